"""TLC's liveness verdicts (tla/KRaftLive.tla) against the explorer's, by property name (#20).

Real TLC at small bounds: the reference through ``kspec tla check raft`` (every property holds
on both sides, one TLC run) and one liveness variant whose violation TLC must find too. Every
supported variant at its catalogue bounds is bench work: ``bench/tla_liveness_variants.py``
(docs/performance.md).
"""

from __future__ import annotations

import json

import pytest
from cli_run import run_cli

from kspec.model.raft.liveness import RAFT_LIVENESS
from kspec.model.raft.liveness_variants import CATALOGUE
from kspec.tla.liveness import LIVE_SPEC, check_liveness_agreement, live_config, supported
from kspec.tla.mappings import TLA_DIR
from kspec.tla.mappings.raft import UnsupportedBounds

# The fault phase is small (no fetches, two election timers, no crashes or appends); the
# suffix still reaches split votes, lost elections and backoff.
SMALL: dict[str, int | bool] = {"max_epoch": 1, "max_appends": 0, "max_crashes": 0, "max_fetches": 0,
                                "max_elections": 2, "symmetry": False}



def test_the_spec_names_every_liveness_property() -> None:
    text = (TLA_DIR / LIVE_SPEC).read_text()
    for p in RAFT_LIVENESS:
        assert f"\\* {p.id}\n{p.name} ==" in text, p.name


def test_config_turns_on_the_variants_flaw_or_timer_order() -> None:
    assert '  LiveFlaw = "candidate-never-retries"\n' in live_config(SMALL, ["NotStuckCandidate"],
                                                                       variant="candidate-never-retries")
    lock = live_config(SMALL, ["EventuallyStableLeader"], variant="lockstep-timers")
    assert '  TimerOrder = "lockstep"\n' in lock and '  LiveFlaw = "none"\n' in lock
    assert "SPECIFICATION LiveSpec\nPROPERTIES\n  EventuallyStableLeader\n" in lock
    restores = live_config({**SMALL, "pre_vote": True}, ["NotStuckProspective"], variant="restores-into-prospective")
    assert '  LiveFlaw = "restores-into-prospective"\n' in restores
    # every liveness variant is in the spec (a step flaw or a timer order): 7/7 in the bench
    assert all(supported(v) for v in CATALOGUE)
    with pytest.raises(UnsupportedBounds, match="no-such-variant"):
        live_config(SMALL, [], variant="no-such-variant")


def test_tla_check_raft_liveness_agrees_on_the_reference(capsys: pytest.CaptureFixture[str]) -> None:
    args = [f"{k}={str(v).lower()}" for k, v in SMALL.items()]
    code, out, err = run_cli(["tla", "check", "raft", *args, "--json"], capsys)
    assert code == 0, err
    live = json.loads(out)["liveness"]
    assert live["agree"] is True and live["tlc_runs"] == 1
    verdicts = live["properties"]
    assert {n: v["tlc"] for n, v in verdicts.items()} == {
        "EventuallyStableLeader": "holds", "NoElectionLivelock": "holds", "NotStuckCandidate": "holds",
        "NotStuckProspective": "not-checked"}


def test_tlc_catches_a_candidate_that_never_retries() -> None:
    live = check_liveness_agreement(SMALL, variant="candidate-never-retries", only=["NotStuckCandidate"],
                                    timeout=300)
    assert live.tlc["NotStuckCandidate"] == live.explorer["NotStuckCandidate"] == "violated"
    assert live.agree and live.tlc_runs == 1
