"""Kafka's own KafkaRaftClient (``kafka:VERSION``, raft) in lockstep with the model.

The version is KSPEC_KAFKA_TEST_VERSION when it is one the raft adapter drives (3.3-4.x), else
3.9.1; the kip-996 scenarios (pre-vote, the prospective state) also run on 4.0.2. JPype runs
one Kafka version per process and the other kafka tests default to 4.x, so
the JVM work runs in a child process: this file run as a script (``python test_kafka_raft.py
VERSION``) prints one JSON document, which the tests read.

- Scripted scenarios (election, replication, commit, restart, truncation, an observer that
  finds the leader) must conform step for step: outputs and observations equal the model's.
- Kafka behaviours the model once lacked (docs/kafka-matrix.md, "raft"; the model now follows
  them: RAFT-RULE-LONE-VOTER, RAFT-TRANS-HW-CARRIED, RAFT-MODEL-IGNORED-RESPONSES) are
  asserted on Kafka itself: a lone voter elects itself inside initialize(); a resigned leader
  has no high watermark; a response to a request sent before the requester's last state
  change is ignored.
- ``kspec conform raft --target kafka:VERSION`` runs to a verdict and names its divergence.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from kafka_child import child_report, run_script

from kspec.conformance.adapters.base import TargetError


def _pick_version() -> str:
    env = os.environ.get("KSPEC_KAFKA_TEST_VERSION", "")
    parts = env.split(".")
    if len(parts) >= 2 and parts[1].isdigit() and (
            (parts[0] == "3" and 3 <= int(parts[1]) <= 9) or parts[0] == "4"):
        return env
    return "3.9.1"


VERSION = _pick_version()
VERSION_4X = VERSION if VERSION.startswith("4.") else "4.0.2"
HERE = Path(__file__).resolve()

# Each scenario: a cluster shape and the model actions, by the start of their description.
# The kip-996 ones (pre_vote) run on a 4.x release, the others on a 3.x one.
SCENARIOS_4X: dict[str, tuple[dict[str, Any], list[str]]] = {
    "pre-vote-election": ({"voters": 3, "observers": 0, "pre_vote": True}, [
        "replica 1: ElectionTimeout", "deliver VoteRequest 1->2 (epoch=0", "deliver VoteResponse 2->1",
        "deliver VoteRequest 1->2 (epoch=1", "deliver VoteResponse 2->1", "deliver BeginQuorumEpochRequest 1->2",
        "replica 1: ClientAppend", "replica 2: FetchDue(to=1)", "deliver FetchRequest 2->1",
        "deliver FetchResponse 1->2", "replica 2: FetchTimeout", "deliver VoteRequest 2->3 (epoch=1",
        "replica 2: ElectionTimeout", "replica 1: crash and restart",
    ]),
    "prospective-timeout": ({"voters": 3, "observers": 0, "pre_vote": True}, [
        "replica 2: ElectionTimeout", "replica 2: ElectionTimeout", "deliver VoteRequest 2->1 (epoch=0",
        "deliver VoteResponse 1->2", "deliver VoteRequest 2->3 (epoch=1", "deliver VoteResponse 3->2",
        "replica 2: ClientAppend",
    ]),
}
SCENARIOS: dict[str, tuple[dict[str, Any], list[str]]] = {
    "elect-replicate-commit": ({"voters": 3, "observers": 0, "pre_vote": False}, [
        "replica 1: ElectionTimeout", "deliver VoteRequest 1->2", "deliver VoteResponse 2->1",
        "deliver BeginQuorumEpochRequest 1->2", "replica 1: ClientAppend", "replica 2: FetchDue(to=1)",
        "deliver FetchRequest 2->1", "deliver FetchResponse 1->2", "replica 2: FetchDue(to=1)",
        "deliver FetchRequest 2->1", "deliver FetchResponse 1->2", "deliver VoteRequest 1->3",
        "replica 3: FetchTimeout (nothing due)", "replica 1: ElectionTimeout (nothing due)",
        "replica 2: crash and restart", "replica 2: FetchDue(to=1)", "deliver FetchRequest 2->1",
        "deliver FetchResponse 1->2",
    ]),
    "truncate-diverging-suffix": ({"voters": 3, "observers": 0, "pre_vote": False}, [
        "replica 1: ElectionTimeout", "deliver VoteRequest 1->2", "deliver VoteResponse 2->1",
        "replica 1: ClientAppend", "drop BeginQuorumEpochRequest 1->3", "drop BeginQuorumEpochRequest 1->2",
        "replica 2: ElectionTimeout", "deliver VoteRequest 2->3", "deliver VoteResponse 3->2",
        "deliver BeginQuorumEpochRequest 2->1", "replica 1: FetchDue(to=2)", "deliver FetchRequest 1->2",
        "deliver FetchResponse 2->1", "replica 1: FetchDue(to=2)", "deliver FetchRequest 1->2",
        "deliver FetchResponse 2->1",
    ]),
    "candidate-backoff-and-restart": ({"voters": 3, "observers": 0, "pre_vote": False}, [
        "replica 1: ElectionTimeout", "deliver VoteRequest 1->2", "replica 2: ElectionTimeout",
        "deliver VoteResponse 2->1", "replica 1: ElectionTimeout", "replica 1: BackoffExpired",
        # 1's VoteRequest to 3 was sent before its restart: 3 handles it, the answer is not
        # sent (RAFT-MODEL-IGNORED-RESPONSES; Kafka's restarted 1 would not expect it).
        "replica 1: crash and restart", "deliver VoteRequest 1->3 (epoch=1, last_epoch=0, end_offset=0, orphaned",
    ]),
    "observer-finds-leader": ({"voters": 3, "observers": 1, "pre_vote": False}, [
        "replica 1: ElectionTimeout", "deliver VoteRequest 1->2", "deliver VoteResponse 2->1",
        "replica 4: FetchDue(to=3)", "deliver FetchRequest 4->3", "drop FetchResponse 3->4",
        "replica 4: FetchDue(to=2)", "deliver FetchRequest 4->2", "deliver FetchResponse 2->4",
        "replica 4: FetchDue(to=1)", "deliver FetchRequest 4->1", "deliver FetchResponse 1->4",
    ]),
    # 3.5+ observers do not flush what they fetch (KAFKA-13884): the adapter flushes an
    # observer's log at a stop, as the model keeps every replica's log across a crash. (The
    # first answer names the leader; the second carries its record.)
    "observer-keeps-its-log-across-a-crash": ({"voters": 3, "observers": 1, "pre_vote": False}, [
        "replica 1: ElectionTimeout", "deliver VoteRequest 1->2", "deliver VoteResponse 2->1",
        "replica 4: FetchDue(to=1)", "deliver FetchRequest 4->1", "deliver FetchResponse 1->4",
        "replica 4: FetchDue(to=1)", "deliver FetchRequest 4->1", "deliver FetchResponse 1->4",
        "replica 4: crash and restart",
    ]),
}


# ---------------------------------------------------------------------------- the child process


def _scenario(target: Any, config: dict[str, Any], script: list[str]) -> dict[str, Any]:
    from kspec.conformance.drivers.raft import RaftDriver

    session, finding = run_script(RaftDriver(config), target, script)
    trace = [{"action": st.action, "node": st.node, "outputs": st.target_outputs,
              "observation": st.target_observation} for st in session.steps]
    return {"steps": len(session.steps), "finding": finding, "trace": trace}


def _behaviours(target: Any) -> dict[str, Any]:
    """Kafka facts the model does not share, observed on Kafka's replicas alone."""
    out: dict[str, Any] = {}
    lone = target.start(1, {"voters": [1]})
    out["lone_voter_after_start"] = lone.observation()
    lone.close()

    leader = target.start(1, {"voters": [1, 2, 3]})
    leader.step({"type": "ElectionTimeout"})
    leader.step({"type": "VoteResponse", "src": 2, "dst": 1, "epoch": 1, "granted": True, "leader": None,
                 "error": "NONE"})
    leader.step({"type": "FetchRequest", "src": 2, "dst": 1, "epoch": 1, "fetch_offset": 1,
                 "last_fetched_epoch": 1})
    out["leader_hw"] = leader.observation()["high_watermark"]
    resigned = leader.step({"type": "CheckQuorumTimeout"})
    out["resigned"] = resigned.observation
    # 3 answers the BeginQuorumEpoch of epoch 1 from epoch 2: Kafka reset its connections on
    # resigning, so the answer is no longer expected.
    late = leader.step({"type": "BeginQuorumEpochResponse", "src": 3, "dst": 1, "epoch": 2, "leader": None,
                        "error": "FENCED_LEADER_EPOCH"})
    out["late_response"] = {"outputs": late.outputs, "observation": late.observation}
    leader.close()

    # RAFT-OBS-ORDER: the vote is written before the response that grants it leaves.
    voter = target.start(2, {"voters": [1, 2, 3]})
    granted = voter.step({"type": "VoteRequest", "src": 1, "dst": 2, "epoch": 1, "last_epoch": 0,
                          "end_offset": 0, "pre_vote": False})
    out["vote"] = granted.outputs
    voter.close()

    # RAFT-RULE-TIMER-KEPT (3.x): a candidate backing off after its election timed out, made
    # unattached by a response of a higher epoch, stands again in the same step.
    if not target.version.startswith("4."):
        cand = target.start(2, {"voters": [1, 2, 3]})
        cand.step({"type": "ElectionTimeout"})
        cand.step({"type": "ElectionTimeout"})
        later = cand.step({"type": "VoteResponse", "src": 1, "dst": 2, "epoch": 2, "granted": False,
                           "leader": None, "pre_vote": False, "error": "NONE"})
        out["timer_kept"] = {"outputs": later.outputs, "observation": later.observation}
        cand.close()
    return out


def child(version: str) -> dict[str, Any]:
    """Everything that needs the JVM, as one JSON document."""
    from kspec.conformance.targets.kafka.raft import KafkaRaftTarget

    target = KafkaRaftTarget(version)
    chosen = SCENARIOS_4X if version.startswith("4.") else SCENARIOS
    scenarios = {name: _scenario(target, config, script) for name, (config, script) in chosen.items()}
    return {"version": version, "scenarios": scenarios, "behaviours": _behaviours(target)}


# ---------------------------------------------------------------------------- the tests


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    return child_report(HERE, VERSION, "raft")


@pytest.fixture(scope="module")
def report4() -> dict[str, Any]:
    return child_report(HERE, VERSION_4X, "raft")


def test_versions_outside_the_kraft_lines_are_one_line_errors() -> None:
    from kspec.conformance.targets.kafka.raft import check_supported

    with pytest.raises(TargetError, match=r"^kafka:3\.2\.3: not supported for raft"):
        check_supported("3.2.3")
    with pytest.raises(TargetError, match=r"^kafka:5\.0\.0: not supported for raft"):
        check_supported("5.0.0")
    with pytest.raises(TargetError, match="not a Kafka version"):
        check_supported("three.seven")
    assert check_supported("3.3.2") == (3, 3)
    assert check_supported("3.7.2") == (3, 7)
    assert check_supported("4.0.2") == (4, 0)


@pytest.mark.parametrize("name", sorted(SCENARIOS_4X))
def test_kip996_scenario_conforms_step_for_step(report4: dict[str, Any], name: str) -> None:
    """The kip-996 rule set (RAFT-KIP996-*) against Kafka 4.x's ProspectiveState."""
    result = report4["scenarios"][name]
    assert result["finding"] is None, f"kafka:{VERSION_4X} {name}: {result['finding']} (at {result['trace'][-1]})"
    assert result["steps"] >= len(SCENARIOS_4X[name][1])
    roles = [st["observation"]["role"] for st in result["trace"] if st["observation"]]
    assert "prospective" in roles, roles


@pytest.mark.parametrize("which", ["3.x", "4.x"])
def test_a_vote_is_written_before_its_response_leaves(report: dict[str, Any], report4: dict[str, Any],
                                                      which: str) -> None:
    """RAFT-OBS-ORDER, observed on Kafka: the write of the vote, then the granting response."""
    outputs = (report if which == "3.x" else report4)["behaviours"]["vote"]
    assert [o["type"] for o in outputs] == ["PersistElection", "VoteResponse"], outputs
    assert outputs[0]["voted_for"] == 1 and outputs[1]["granted"] is True, outputs


def test_a_timed_out_candidate_made_unattached_stands_again_at_once(report: dict[str, Any]) -> None:
    """RAFT-RULE-TIMER-KEPT (was R3): Kafka's unattached state inherits the expired timer."""
    kept = report["behaviours"]["timer_kept"]
    assert kept["observation"]["role"] == "candidate" and kept["observation"]["epoch"] == 3, kept
    assert [o["type"] for o in kept["outputs"]][:1] == ["PersistElection"], kept


def test_cli_names_the_version_in_one_line() -> None:
    done = subprocess.run(["kspec", "conform", "raft", "--target", "kafka:2.8.0", "--json"], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 2
    err = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert len(err) == 1 and "kafka:2.8.0: not supported for raft: the KRaft lines are 3.3-4.4" in err[0], done.stderr


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_conforms_step_for_step(report: dict[str, Any], name: str) -> None:
    result = report["scenarios"][name]
    assert result["finding"] is None, f"kafka:{VERSION} {name}: {result['finding']} (at {result['trace'][-1]})"
    # every scripted action was applied (a reboot is two steps)
    assert result["steps"] >= len(SCENARIOS[name][1])


def test_truncation_and_commit_happen_in_kafka(report: dict[str, Any]) -> None:
    """The scenarios reach what they are named for, on Kafka's side."""
    trunc = report["scenarios"]["truncate-diverging-suffix"]["trace"]
    assert any(o["type"] == "TruncateLog" for st in trunc for o in st["outputs"] or []), trunc
    assert trunc[-1]["node"] == 1 and trunc[-1]["observation"]["log"] == [[2, "leader_change"]], trunc[-1]
    commit = report["scenarios"]["elect-replicate-commit"]["trace"]
    follower_hw = [st["observation"]["high_watermark"] for st in commit if st["node"] == 2 and st["observation"]]
    assert 2 in follower_hw, commit  # the data record committed and reached the follower's high watermark
    observer = report["scenarios"]["observer-finds-leader"]["trace"][-1]["observation"]
    assert observer["role"] == "follower" and observer["leader"] == 1, observer
    crashed = [st["observation"]["log"] for st in report["scenarios"]["observer-keeps-its-log-across-a-crash"]["trace"]
               if st["node"] == 4 and st["observation"]]
    assert crashed[-1] == [[1, "leader_change"]] and crashed[-1] in crashed[:-2], crashed  # fetched, then kept


def test_lone_voter_elects_itself_in_initialize(report: dict[str, Any]) -> None:
    """KafkaRaftClient.initialize(): "When there is only a single voter, become candidate
    immediately" (and so leader), as the model's does (RAFT-RULE-LONE-VOTER)."""
    obs = report["behaviours"]["lone_voter_after_start"]
    assert obs["role"] == "leader" and obs["epoch"] == 1 and obs["log"] == [[1, "leader_change"]], obs


def test_resigned_leader_has_no_high_watermark(report: dict[str, Any]) -> None:
    """ResignedState keeps no high watermark (EpochState's default is empty), nor does the model's."""
    beh = report["behaviours"]
    assert beh["leader_hw"] == 1
    assert beh["resigned"]["role"] == "resigned" and beh["resigned"]["high_watermark"] is None, beh["resigned"]


def test_response_to_a_request_of_an_earlier_state_is_ignored(report: dict[str, Any]) -> None:
    """A resigned leader ignores the answer (epoch 2) to the BeginQuorumEpoch it sent as leader
    (the model no longer sends it: the request was orphaned when the leader resigned)."""
    late = report["behaviours"]["late_response"]
    assert late["outputs"] == [] and late["observation"]["epoch"] == 1, late
    assert late["observation"]["role"] == "resigned"


def test_conform_runs_to_a_verdict() -> None:
    done = subprocess.run(["kspec", "conform", "raft", "--target", f"kafka:{VERSION}", "--examples", "6",
                           "--steps", "12", "--seed", "3", "--json", "--no-liveness",
                           "--out", "/tmp/kspec-test-kafka-raft"],
                          capture_output=True, text=True, timeout=600, check=False)
    doc = json.loads(done.stdout)
    assert doc["verdict"] in ("conforms", "diverges"), doc
    assert done.returncode == (0 if doc["verdict"] == "conforms" else 1)
    # 3.9+ holds KAFKA-16536's heartbeat copies unjudged, and says so (Target.unjudged)
    held = set(doc["unjudged"])
    assert held == ({"raft-begin-epoch-heartbeat"} if tuple(map(int, VERSION.split(".")[:2])) >= (3, 9) else set())
    if doc["verdict"] == "diverges":
        assert doc["divergence"]["kind"] in ("outputs", "observation") and doc["counterexample"], doc


if __name__ == "__main__":
    print(json.dumps(child(sys.argv[1] if len(sys.argv) > 1 else VERSION)))
