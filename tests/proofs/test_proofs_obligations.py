"""The obligations themselves: each reaches its expected status, counterexamples replay, a
broken rule is caught, a timeout is unknown, and ``kspec prove`` keeps the CLI contract."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import pytest
from click.testing import CliRunner

from kspec.model.proofs import all_obligations, check, get_obligation, raft_quorum, raft_vote, share_combiner
from kspec.model.proofs import encode_raft as enc
from kspec.model.proofs.obligation import Obligation

OBLIGATIONS = {o.id: o for o in all_obligations()}


def test_catalogue_lists_every_obligation_the_issue_asks_for() -> None:
    expected = {
        "RAFT-PROOF-QUORUM-ONE-CHANGE", "RAFT-PROOF-QUORUM-TWO-CHANGE", "RAFT-PROOF-ONE-LEADER-PER-EPOCH",
        "RAFT-PROOF-ONE-LEADER-FORGETFUL-VOTER", "RAFT-PROOF-HW-HELD-BY-MAJORITY", "RAFT-PROOF-HW-MONOTONE",
        "SHARE-PROOF-COMBINE-SHAPE", "SHARE-PROOF-COMBINE-NO-COUNT-LOST",
    }
    assert expected <= set(OBLIGATIONS)
    assert len(OBLIGATIONS) == len(all_obligations()), "duplicate obligation IDs"
    for o in all_obligations():
        assert o.doc and o.bounds and o.rules and o.expected in ("proved", "refuted")


@pytest.mark.parametrize("obligation_id", sorted(OBLIGATIONS))
def test_obligation_reaches_its_expected_status(obligation_id: str) -> None:
    # A generous timeout: these tests check outcomes, not speed, on a possibly busy machine.
    result = check(OBLIGATIONS[obligation_id], timeout_seconds=120)
    assert result.status == result.expected, result.reason
    assert result.ok
    if result.status == "refuted":
        assert result.counterexample is not None
        assert result.replay is not None and result.replay.confirmed, result.replay
    else:
        assert result.premises_satisfiable is True
    assert result.to_json()["status"] == result.expected


def _with_build(obligation: Obligation, build: object) -> Obligation:
    return replace(obligation, build=build)  # type: ignore[arg-type]


def test_a_wrong_majority_is_refuted(monkeypatch: pytest.MonkeyPatch) -> None:
    # With majority = n // 2 (a "half is enough" bug) one-voter changes no longer intersect.
    monkeypatch.setattr(enc, "majority", lambda n: n / 2)
    result = check(raft_quorum.QUORUM_ONE_CHANGE, timeout_seconds=60)
    assert result.status == "refuted"
    assert not result.ok


def test_one_leader_proof_fails_without_persisted_votes() -> None:
    # The inductive step over the forgetful rules is not provable: restart breaks the invariant.
    forgetful = _with_build(raft_vote.ONE_LEADER_PER_EPOCH,
                            lambda: raft_vote._inductive_query(3, forgetful=True))
    result = check(forgetful, timeout_seconds=60)
    assert result.status == "refuted"


def test_replays_reject_non_counterexamples() -> None:
    intersecting = {"old_voters": [0, 1, 2], "new_voters": [0, 1, 2, 3], "old_quorum": [0, 1],
                    "new_quorum": [1, 2, 3], "voters_changed": 1}
    assert not raft_quorum._replay_disjoint_quorums(intersecting).confirmed
    one_leader_run = {"initial": {"voters": [0, 1, 2], "last_epoch": [0, 0, 0], "end_offset": [0, 0, 0]},
                      "actions": [{"action": "grant", "voter": 0, "candidate": 0},
                                  {"action": "grant", "voter": 1, "candidate": 0},
                                  {"action": "lead", "candidate": 0}]}
    assert not raft_vote.replay_trace(one_leader_run, forgetful=True).confirmed
    # Without forgetting, the restart in a two-leader run is not enabled.
    forgetful = check(raft_vote.FORGETFUL_VOTER, timeout_seconds=60)
    assert forgetful.counterexample is not None
    assert not raft_vote.replay_trace(forgetful.counterexample, forgetful=False).confirmed


def test_share_new_only_counterexample_is_the_seed_bug() -> None:
    result = check(share_combiner.COMBINE_NEW_ONLY, timeout_seconds=60)
    assert result.status == "refuted"
    assert result.replay is not None and result.replay.detail["lost"]
    assert result.counterexample is not None and result.counterexample["current"]


def test_timeout_is_unknown_never_proved() -> None:
    result = check(get_obligation("SHARE-PROOF-COMBINE-NOTHING-INVENTED"), timeout_seconds=0.001)
    assert result.status == "unknown"
    assert not result.ok
    assert result.reason


def _kspec(*args: str) -> subprocess.CompletedProcess[str]:
    # Not "python -m kspec.conformance.cli": run as __main__ the module is a second copy of cli,
    # not the one the verbs register on.
    code = "import sys; from kspec.conformance.cli import main; main(sys.argv[1:])"
    return subprocess.run([sys.executable, "-c", code, *args],
                          capture_output=True, text=True, timeout=300)


def test_cli_json_lists_results_and_exit_zero() -> None:
    done = _kspec("prove", "--json", "RAFT-PROOF-QUORUM-ONE-CHANGE", "RAFT-PROOF-QUORUM-TWO-CHANGE")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert [d["id"] for d in doc] == ["RAFT-PROOF-QUORUM-ONE-CHANGE", "RAFT-PROOF-QUORUM-TWO-CHANGE"]
    for d in doc:
        assert {"id", "status", "expected", "seconds"} <= set(d)
        assert d["status"] == d["expected"]
    assert doc[1]["counterexample"]["old_quorum"] and doc[1]["replay"]["confirmed"] is True
    assert "counterexample" not in doc[0]


def test_cli_unknown_id_is_exit_two_with_one_line() -> None:
    done = _kspec("prove", "RAFT-PROOF-NO-SUCH-THING")
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert "RAFT-PROOF-NO-SUCH-THING" in done.stderr


def test_cli_timeout_gives_unknown_and_exit_one() -> None:
    # Z3's 1 ms timer usually stops it first; on a loaded machine it once proved the obligation
    # inside its first millisecond, so three tries (a timeout that never bites still fails).
    for _ in range(3):
        done = _kspec("prove", "--json", "--timeout", "0.001", "SHARE-PROOF-COMBINE-NOTHING-INVENTED")
        (entry,) = json.loads(done.stdout)
        assert entry["expected"] == "proved"
        if entry["status"] == "unknown":
            break
    assert done.returncode == 1, done.stderr
    assert entry["status"] == "unknown"


def test_cli_list_and_human_output() -> None:
    from kspec.conformance.cli import _load_commands, cli

    _load_commands()
    runner = CliRunner()
    listed = runner.invoke(cli, ["prove", "--list", "--json"])
    assert listed.exit_code == 0
    assert {d["id"] for d in json.loads(listed.output)} == set(OBLIGATIONS)
    human = runner.invoke(cli, ["prove", "RAFT-PROOF-HW-REGRESSING-FOLLOWER"])
    assert human.exit_code == 0
    assert "refuted" in human.output and "counterexample" in human.output
