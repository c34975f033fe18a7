"""Bounded liveness in ``kspec simulate`` (issue #20, model/core/bounded_liveness.py): after
each walk the faults stop and a fair random walk of the suffix must satisfy each liveness
property within N steps. The correct model holds every applicable property (and the walks do
elect after the last fault); a variant whose pre-votes are all rejected livelocks."""

from __future__ import annotations

import json
import random

import pytest

from kspec.model.core.bounded_liveness import bounded_walk
from kspec.model.raft import RaftModel
from kspec.model.raft.liveness import make_suffix
from kspec.model.raft.liveness_variants import VARIANTS
from tests.cli_run import run_cli


def test_model_holds_within_bound() -> None:
    model = RaftModel(pre_vote=True, max_epoch=2, max_appends=0)
    suffix = make_suffix(model)
    init = model.init_states()[0]
    out = bounded_walk(suffix, init, random.Random(0), 60, applies=model.bounds)
    assert set(out.verdicts.values()) == {"holds"}, out.detail
    assert any(suffix.properties()[1].check(b, a, n) for (_, b), (a, n) in zip(
        [(None, init), *out.steps], out.steps, strict=False)), "no election after the last fault: vacuous"


def test_rejected_pre_votes_livelock() -> None:
    model = VARIANTS["rejects-pre-votes"](pre_vote=True, max_epoch=2, max_appends=0)
    out = bounded_walk(make_suffix(model), model.init_states()[0], random.Random(0), 60, applies=model.bounds)
    assert out.verdicts["EventuallyStableLeader"] == "violated"
    assert out.verdicts["NoElectionLivelock"] == "violated"


def test_simulate_reports_liveness(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["simulate", "raft", "--seed", "0", "--traces", "3", "--steps", "30", "--json"], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["liveness_within"] == 60 and not doc["liveness_violations"]
    assert doc["liveness"] == {"EventuallyStableLeader": "holds", "NoElectionLivelock": "holds",
                               "NotStuckCandidate": "holds", "NotStuckProspective": "not-checked"}
    code, out, _ = run_cli(["simulate", "raft", "pre_vote=true", "--seed", "0", "--traces", "3", "--steps", "30",
                            "--variant", "rejects-pre-votes", "--json"], capsys)
    doc = json.loads(out)
    assert code == 1 and doc["liveness"]["NoElectionLivelock"] == "violated"
    assert doc["liveness_violations"]["NoElectionLivelock"]["property"] == "RAFT-LIVE-NO-LIVELOCK"
