"""The from-scratch raft red-team target (bench/redteam/raft_scratch.py, written from the spec and
the adapter docs alone) conforms, and two of its planted bugs are caught at the first run: an
output order (RAFT-STATE-PERSIST-BEFORE-SEND) and the listener contract (RAFT-OBS-LISTENER-LEADER).
The whole catalogue is measured by bench/redteam_power.py (docs/performance.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets.registry import resolve_target

BENCH = Path(__file__).resolve().parents[2] / "bench"


def run(attr: str, tmp_path: Path, examples: int) -> object:
    return run_conformance("raft", resolve_target(f"python:redteam.raft_scratch:{attr}", "raft"), examples=examples,
                           out_dir=tmp_path)


def test_scratch_raft_conforms_and_two_bugs_are_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    good = run("Correct", tmp_path, 12)
    assert good.verdict == "conforms", good.finding and good.finding.line()
    order = run("CandidateSendsBeforePersist", tmp_path, 12)
    assert order.verdict == "diverges" and order.finding is not None
    assert order.finding.field.startswith("order"), order.finding.line()
    told = run("LeaderToldBeforeCaughtUp", tmp_path, 12)
    assert told.verdict == "diverges" and told.finding is not None
    assert "HandleLeaderChange" in told.finding.line(), told.finding.line()


# The bug-free baseline of every red-team module written from scratch (the bugs are measured by
# bench/redteam_power.py, docs/performance.md): each conforms at a small budget. One row per
# (protocol, module, class); a new module adds its row here and its name to redteam_power.MODULES.
BASELINES = [
    # raft
    ("raft", "raft_scratch2", "Correct"),
    ("raft", "raft_scratch3", "Correct"),
    ("raft", "raft_scratch4", "Correct"),
    ("raft", "raft_scratch5", "Correct"),
    ("raft", "raft_scratch6", "Correct"),
    ("raft", "raft_scratch7", "Correct"),
    ("raft", "raft_scratch8", "Correct"),
    ("raft", "raft_scratch9", "Correct"),
    ("raft", "raft_scratch10", "Correct"),
    ("raft", "raft_scratch11", "Correct"),
    ("raft", "raft_scratch12", "Correct"),
    ("raft", "raft_scratch13", "Correct"),
    ("raft", "raft_scratch14", "Correct"),
    ("raft", "raft_scratch15", "Correct"),
    ("raft", "raft_scratch16", "Correct"),
    ("raft", "raft_scratch17", "Correct"),
    ("raft", "raft_scratch18", "Correct"),
    ("raft", "raft_scratch19", "Correct"),
    ("raft", "raft_scratch20", "Correct"),
    # voters
    ("voters", "voters_scratch", "Correct"),
    ("voters", "voters_scratch2", "Correct"),
    ("voters", "voters_scratch3", "Correct"),
    ("voters", "voters_scratch3", "CorrectLog"),
    ("voters", "voters_scratch4", "Correct"),
    ("voters", "voters_scratch5", "Correct"),
    ("voters", "voters_scratch6", "Correct"),
    ("voters", "voters_scratch6", "CorrectLog"),
    ("voters", "voters_scratch7", "Correct"),
    ("voters", "voters_scratch7", "CorrectLog"),
    ("voters", "voters_scratch8", "Correct"),
    ("voters", "voters_scratch8", "CorrectLog"),
    ("voters", "voters_scratch9", "Correct"),
    ("voters", "voters_scratch9", "CorrectLog"),
    ("voters", "voters_scratch10", "Correct"),
    ("voters", "voters_scratch10", "CorrectLog"),
    ("voters", "voters_scratch11", "Correct"),
    ("voters", "voters_scratch12", "Correct"),
    ("voters", "voters_scratch12", "CorrectLog"),
    ("voters", "voters_scratch13", "Correct"),
    ("voters", "voters_scratch13", "CorrectLog"),
    ("voters", "voters_scratch14", "Correct"),
    ("voters", "voters_scratch14", "CorrectLog"),
    ("voters", "voters_scratch15", "Correct"),
    ("voters", "voters_scratch16", "Correct"),
    ("voters", "voters_scratch16", "CorrectLog"),
    ("voters", "voters_scratch17", "Correct"),
    # share (session 9's baseline claims 4.4, 4.1 and 4.3 in turn)
    ("share", "share_scratch", "Correct"),
    ("share", "share_scratch2", "Correct"),
    ("share", "share_scratch2", "Correct41"),
    ("share", "share_scratch2", "Correct43"),
    ("share", "share_scratch3", "Correct"),
    ("share", "share_scratch4", "Correct"),
    ("share", "share_scratch5", "Correct"),
    ("share", "share_scratch6", "Correct"),
    ("share", "share_scratch7", "Correct"),
    ("share", "share_scratch8", "Correct"),
    ("share", "share_scratch9", "Correct"),
    ("share", "share_scratch10", "Correct"),
    ("share", "share_scratch11", "Correct"),
    ("share", "share_scratch12", "Correct"),
    ("share", "share_scratch13", "Correct"),
    ("share", "share_scratch14", "Correct"),
    ("share", "share_scratch15", "Correct"),
    ("share", "share_scratch16", "Correct"),
    ("share", "share_scratch17", "Correct"),
    ("share", "share_scratch18", "Correct"),
    # mm2
    ("mm2", "mm2_scratch", "Correct"),
    ("mm2", "mm2_scratch2", "Correct"),
    ("mm2", "mm2_scratch3", "Correct"),
    ("mm2", "mm2_scratch4", "Correct"),
    ("mm2", "mm2_scratch5", "Correct"),
    ("mm2", "mm2_scratch6", "Correct"),
    ("mm2", "mm2_scratch7", "Correct"),
    ("mm2", "mm2_scratch8", "Correct"),
    ("mm2", "mm2_scratch9", "Correct"),
    ("mm2", "mm2_scratch10", "Correct"),
    ("mm2", "mm2_scratch11", "Correct"),
    ("mm2", "mm2_scratch12", "Correct"),
    ("mm2", "mm2_scratch13", "Correct"),
    ("mm2", "mm2_scratch14", "Correct"),
    ("mm2", "mm2_scratch15", "Correct"),
    ("mm2", "mm2_scratch16", "Correct"),
    # streams
    ("streams", "streams_scratch", "Correct"),
    ("streams", "streams_scratch2", "Correct"),
    ("streams", "streams_scratch3", "Correct"),
    ("streams", "streams_scratch4", "Correct"),
    ("streams", "streams_scratch5", "Correct"),
    ("streams", "streams_scratch6", "Correct"),
    ("streams", "streams_scratch7", "Correct"),
    ("streams", "streams_scratch8", "Correct"),
    ("streams", "streams_scratch9", "Correct"),
    ("streams", "streams_scratch10", "Correct"),
    ("streams", "streams_scratch11", "Correct"),
    ("streams", "streams_scratch12", "Correct"),
    ("streams", "streams_scratch13", "Correct"),
    ("streams", "streams_scratch14", "Correct"),
    ("streams", "streams_scratch15", "Correct"),
]


@pytest.mark.parametrize(("protocol", "module", "attr"), BASELINES)
def test_scratch_baseline_conforms(protocol: str, module: str, attr: str, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    target = resolve_target(f"python:redteam.{module}:{attr}", protocol)
    result = run_conformance(protocol, target, examples=12, out_dir=tmp_path)
    assert result.verdict == "conforms", result.finding and result.finding.line()
