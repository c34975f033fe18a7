"""The Go share target through the harness core (``resolve_target`` + ``run_conformance``), the
path ``kspec conform share --target exec:...`` takes: the faithful binary conforms, a flawed one
diverges. (The ``conform`` verb itself is not in the CLI yet; this is the code below it.)"""

from __future__ import annotations

from exec_go_build import build_go_share_target

from kspec.conformance.commands.conform import _WithModelConfig
from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets.registry import resolve_target

# The Go share target implements Kafka 4.3's share coordinator (and refuses other rule sets).
GO_RULES = {"kafka_version": "4.3"}


def test_go_share_target_conforms_through_the_harness() -> None:
    binary = build_go_share_target()
    target = _WithModelConfig(resolve_target(f"exec:{binary}", "share"), GO_RULES)
    result = run_conformance("share", target, examples=25, out_dir=None)
    assert result.finding is None, result.finding.line()
    assert result.verdict == "conforms"
    assert result.examples >= 25


def test_flawed_go_share_target_diverges_through_the_harness() -> None:
    binary = build_go_share_target()
    target = _WithModelConfig(resolve_target(f"exec:{binary} -flaw lower-count-wins", "share"), GO_RULES)
    result = run_conformance("share", target, examples=200, out_dir=None)
    assert result.verdict == "diverges"
    assert result.finding is not None
    # Lower-count-wins changes the combined batches: the first difference is in the state
    # batches a record (ShareSnapshot/ShareUpdate, whose detail may be cut short before them) or
    # the observation carries.
    finding = result.finding
    assert ("state_ba" in finding.line() or "state_batches" in (finding.field or "")
            or finding.field in ("outputs.ShareSnapshot", "outputs.ShareUpdate"))

