"""The catalogue of known deviations (kspec.conformance.deviations) and ``--accept``.

- Every catalogued entry holds together: its model variant is one the protocol registers, its
  spec ID is in the protocol's spec, its counterexample file exists.
- A divergence that a catalogued deviation explains is named after it; accepting the deviation
  holds the target to the model with it allowed, and the report says so.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cli_run import run_cli

from kspec.conformance.deviations import DeviationError, accepted_names, catalogue, resolve_accepted
from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets.reference.voters import ControlRecords, voters_target
from kspec.model.catalog import get_protocol

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", sorted(catalogue()))
def test_catalogue_entry_holds_together(name: str) -> None:
    dev = catalogue()[name]
    variants = get_protocol(dev.protocol).variants
    for part in dev.model_variant.split("+"):
        assert part in variants, f"{name}: model variant {part!r} is not a {dev.protocol} variant"
    spec = (ROOT / "spec" / f"{dev.protocol}.md").read_text(encoding="utf-8")
    assert re.search(rf"\b{re.escape(dev.spec_id)}\b", spec), f"{name}: {dev.spec_id} is not in spec/{dev.protocol}.md"
    assert dev.releases, f"{name}: observed on no release"
    if dev.counterexample:
        assert (ROOT / dev.counterexample).is_file(), f"{name}: {dev.counterexample} does not exist"


def test_accept_names_from_values_and_files(tmp_path: Path) -> None:
    listing = tmp_path / "accepted.txt"
    listing.write_text("# what we know about\nvoters-trim-at-snapshot-end  # K1\n\nvoters-truncate-keeps-next-offset\n")
    assert accepted_names(("a-b,c", f"@{listing}", "a-b")) == [
        "a-b", "c", "voters-trim-at-snapshot-end", "voters-truncate-keeps-next-offset"]
    with pytest.raises(DeviationError, match="not a regular file"):
        accepted_names((f"@{tmp_path / 'missing.txt'}",))
    bad = tmp_path / "bad.txt"
    bad.write_text("ok-name\nnot a name!\n")
    with pytest.raises(DeviationError, match="line 2"):
        accepted_names((f"@{bad}",))


def test_resolve_refuses_unknown_and_foreign_names() -> None:
    assert [d.name for d in resolve_accepted("voters", ["voters-trim-at-snapshot-end"])] == [
        "voters-trim-at-snapshot-end"]
    with pytest.raises(DeviationError, match=r"unknown voters deviation 'nope'.*known: voters-trim"):
        resolve_accepted("voters", ["nope"])
    with pytest.raises(DeviationError, match="is a voters deviation, not share"):
        resolve_accepted("share", ["voters-trim-at-snapshot-end"])


class TrimsAtSnapshotEnd(ControlRecords):
    """Kafka's K1 at the log level: a snapshot ending at N trims the history at N, so an entry at
    N (not in the snapshot) leaves the value the snapshot holds out of the history."""

    def take_snapshot(self, end_offset: int) -> dict[str, Any]:
        snap = super().take_snapshot(end_offset)
        self.voter_history = self.trim(self.voter_history, end_offset)
        self.version_history = self.trim(self.version_history, end_offset)
        return snap


K1 = catalogue("voters")["voters-trim-at-snapshot-end"]


def test_divergence_is_named_after_the_deviation_that_explains_it(tmp_path: Path) -> None:
    target = voters_target("python:k1", TrimsAtSnapshotEnd)
    result = run_conformance("voters", target, seed_value=0, out_dir=tmp_path,
                             deviations=(("voters-truncate-keeps-next-offset", "kafka-truncate-keeps-next-offset"),
                                         (K1.name, K1.model_variant)))
    assert result.verdict == "diverges"
    assert result.deviation == K1.name, result.finding
    doc = json.loads(Path(result.counterexample or "").read_text())
    assert doc["#meta"]["deviation"] == K1.name


def test_reference_divergence_is_not_blamed_on_a_deviation(tmp_path: Path) -> None:
    """The reference target under the K1 variant diverges; no catalogued deviation of the other
    kind (K2) explains that."""
    target = voters_target("reference:log", ControlRecords)
    result = run_conformance("voters", target, seed_value=0, out_dir=tmp_path, examples=50,
                             deviations=(("voters-truncate-keeps-next-offset", "kafka-truncate-keeps-next-offset"),))
    assert result.verdict == "conforms"
    assert result.deviation is None


def test_cli_accept_reports_what_was_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _code, out, _err = run_cli(["conform", "voters", "--target", "reference:log", "--accept", K1.name,
                                "--examples", "30", "--out", str(tmp_path), "--json"], capsys)
    doc = json.loads(out)
    assert doc["accepted"] == [K1.name]
    assert doc["model_variant"] == K1.model_variant


def test_cli_accept_unknown_name_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run_cli(["conform", "voters", "--target", "reference", "--accept", "no-such-thing"], capsys)
    assert code == 2
    assert err.count("\n") == 1 and "unknown voters deviation 'no-such-thing'" in err


def test_cli_lists_the_catalogue(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run_cli(["deviations", "voters", "--json"], capsys)
    assert code == 0
    assert [d["name"] for d in json.loads(out)] == list(catalogue("voters"))


def test_naming_skips_a_deviation_that_does_not_compose_with_the_accepted_one() -> None:
    # kafka:3.6.2 --accept raft-leader-never-resigns: naming a later divergence tries each other
    # deviation on top of the accepted one; two raft variants that both change the step do not
    # compose, which is "cannot tell", never an internal error.
    from kspec.conformance.drivers import PROTOCOLS
    from kspec.conformance.drivers.minimise import explained_by
    from kspec.conformance.findings import Finding
    from kspec.conformance.targets.registry import reference_target

    config = {"voters": 3, "observers": 1, "pre_vote": False, "kip853": False, "faults": True,
              "model_variant": "kafka-no-check-quorum"}
    finding = Finding("outputs", 1, "outputs", "a divergence")
    assert not explained_by(PROTOCOLS["raft"](), reference_target("raft"), config, [], finding,
                            "kafka-observer-voted-stands")
