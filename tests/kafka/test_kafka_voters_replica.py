"""Kafka's ``KafkaRaftClient`` replicas (``kafka:VERSION``, voters, replica level) against the model.

Each run is a ``kspec conform`` child process (one Kafka version per JVM): with the catalogued
deviations accepted (K1-K4, spec/voters.md §12) a short run conforms; without, a run reaches a
verdict and any divergence is one the catalogue names. ``$KSPEC_KAFKA_TEST_VERSION`` picks the
release (3.9 or later; default 3.9.1).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from kspec.conformance.deviations import catalogue

ACCEPT = ("voters-add-voter-caught-up-once,voters-trim-at-snapshot-end,voters-truncate-keeps-next-offset,"
          "voters-no-check-quorum-with-one-voter")


def _pick_version() -> str:
    env = os.environ.get("KSPEC_KAFKA_TEST_VERSION", "")
    parts = env.split(".")
    if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit() and (int(parts[0]), int(parts[1])) >= (3, 9):
        return env
    return "3.9.1"


VERSION = _pick_version()
# K7 (KAFKA-19354, 3.9.0-4.1.2): a guided path's observer lapse probe reaches it at once
if VERSION in catalogue("voters")["voters-observer-stuck-on-bootstrap"].releases:
    ACCEPT += ",voters-observer-stuck-on-bootstrap"


def _conform(tmp_path: Path, *extra: str, examples: int = 8) -> dict[str, Any]:
    done = subprocess.run(["kspec", "conform", "voters", "--target", f"kafka:{VERSION}", "--examples", str(examples),
                           "--seed", "0", "--json", "--out", str(tmp_path), *extra],
                          capture_output=True, text=True, timeout=900, check=False)
    doc = dict(json.loads(done.stdout))
    assert done.returncode == {"conforms": 0, "diverges": 1}.get(doc["verdict"]), (done.returncode, done.stderr[-2000:])
    assert doc["level"] == "replica", doc
    return doc


def test_replica_level_conforms_with_the_catalogued_deviations(tmp_path: Path) -> None:
    doc = _conform(tmp_path, "--accept", ACCEPT)
    assert doc["verdict"] == "conforms", doc["divergence"]
    assert sorted(doc["accepted"]) == sorted(ACCEPT.split(","))
    inputs = doc["coverage"]["inputs"]
    assert inputs.get("AddVoter") and inputs.get("RemoveVoter"), inputs


def test_replica_level_divergence_is_a_catalogued_one(tmp_path: Path) -> None:
    doc = _conform(tmp_path, examples=20)
    if doc["verdict"] == "diverges":
        assert doc["deviation"] in catalogue("voters"), doc["divergence"]


K6_TRACE = Path(__file__).resolve().parents[1] / "voters" / "testdata" / "kafka_k6_update_self.itf.json"


def test_k6_update_naming_the_leader_throws_from_4_1() -> None:
    """VOTERS-KAFKA-K6: the stored run (start-up, then leader 1 takes UpdateVoter(1)) replays
    through 4.0.2, which appends and answers; 4.4.0 throws in the leader's poll, and the run
    reports it as the catalogued deviation's target error (the first 4.x release of each side)."""
    for version, thrown in (("4.0.2", False), ("4.4.0", True)):
        done = subprocess.run(["kspec", "replay", str(K6_TRACE), "--target", f"kafka:{version}"],
                              capture_output=True, text=True, timeout=600, check=False)
        if thrown:
            assert "from the leader itself" in done.stdout + done.stderr, (version, done.stdout[-1500:])
            dev = catalogue("voters")["voters-update-self-crashes-leader"]
            assert dev.target_error and dev.target_error in done.stdout + done.stderr
        else:
            assert "conforms after 31 of 31 steps" in done.stdout, (version, done.stdout[-1500:], done.stderr[-800:])


def test_observer_pick_outside_bootstrap_leaves_the_fetch_awaited() -> None:
    """VOTERS-RULE-OBSERVER-BOOTSTRAP at the adapter: observer 3 (bootstrap server 1, voter 2
    added) has a fetch to 1 in flight when its timer fires with pick 2; nothing is sent, and the
    answer to the fetch in flight later makes it 1's follower (the adapter used to fail that
    fetch as lost: kafka:4.4.0 seed 0 diverged at step 35, a false alarm)."""
    trace = K6_TRACE.with_name("kafka_observer_pick_outside_bootstrap.itf.json")
    done = subprocess.run(["kspec", "replay", str(trace), "--target", "kafka:4.4.0"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert "conforms after 35 of 35 steps" in done.stdout, (done.stdout[-1500:], done.stderr[-800:])


def test_k7_observer_stuck_on_bootstrap_through_4_1() -> None:
    """VOTERS-KAFKA-K7 (KAFKA-19354): the stored run (start-up; observer 4's fetch timer; a
    Fetch to bootstrap server 2, whose NOT_LEADER_OR_FOLLOWER names leader 1; a pick of 2 again)
    diverges on 4.1.2, whose observer sends that Fetch to 2 (its fetch timer stays expired), and
    conforms on 4.2.0, the release with the fix (VOTERS-RULE-OBSERVER-FETCH-TIMEOUT)."""
    trace = K6_TRACE.with_name("kafka_k7_observer_stuck.itf.json")
    for version, verdict in (("4.1.2", "diverges after 35 of 35 steps"), ("4.2.0", "conforms after 35 of 35 steps")):
        done = subprocess.run(["kspec", "replay", str(trace), "--target", f"kafka:{version}"],
                              capture_output=True, text=True, timeout=600, check=False)
        assert verdict in done.stdout, (version, done.stdout[-1500:], done.stderr[-800:])


def test_k7_variant_lapse_outlives_an_answer_naming_the_leader() -> None:
    """VOTERS-KAFKA-K7 under its variant: an answer naming the leader (bootstrap server 2's
    NOT_LEADER_OR_FOLLOWER on 3.9.1; the resigned leader's own on 4.0.2) leaves 3.9-4.1's fetch
    timer expired, so the next pick of a bootstrap server is Kafka's random one, which the adapter
    steers as at the first lapse. The adapter used to end its lapse on that answer and report no
    Fetch where the variant's model sends one (kafka:3.9.1 seed 0 run 195 step 35, the 4.0.2
    matrix accept run at seed 0 run 98 step 27: false alarms)."""
    for name, version, steps in (("kafka_k7_other_bootstrap_pick.itf.json", "3.9.1", 35),
                                 ("kafka_k7_lapse_after_resigned_leader.itf.json", "4.0.2", 27)):
        done = subprocess.run(["kspec", "replay", str(K6_TRACE.with_name(name)), "--target", f"kafka:{version}"],
                              capture_output=True, text=True, timeout=600, check=False)
        assert f"conforms after {steps} of {steps} steps" in done.stdout, (version, done.stdout[-1500:],
                                                                          done.stderr[-800:])


def test_lapsed_observer_whose_fetch_is_lost_asks_the_next_bootstrap_server() -> None:
    """VOTERS-RULE-OBSERVER-FETCH-TIMEOUT at the adapter: observer 4 lapses, asks bootstrap
    server 1 (the leader), the answer is lost, and it asks server 2. Kafka 4.4 retries its leader
    once the request to server 1 timed out; the adapter times that one out too, as it did the
    leader's (kafka:4.4.0 --seed 0 with K1-K4, K6 accepted diverged at run 287, a false alarm)."""
    trace = K6_TRACE.with_name("kafka_observer_lapse_lost_fetch.itf.json")
    done = subprocess.run(["kspec", "replay", str(trace), "--target", "kafka:4.4.0"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert "conforms after 37 of 37 steps" in done.stdout, (done.stdout[-1500:], done.stderr[-800:])


def test_added_voter_fetch_renews_the_check_quorum_period() -> None:
    """RAFT-RULE-CHECK-QUORUM-PERIOD at the adapter: lone voter 1 leads (Kafka runs no
    check-quorum timer for one voter), AddVoter(2) appends {1,2}, 2's Fetch arrives (Kafka's
    LeaderState counts it: its voterStates follow the latest, uncommitted set, as KIP-853's),
    and the CheckQuorumTimeout ends a renewed period: the leader leads on. The adapter used to
    begin the period only after the next raft step, that very Fetch, so the renewal was missed
    and Kafka's timer moved to expiry: kafka:3.9.1 seed 0 (the period declared) and 4.0.2 sent
    EndQuorumEpoch at step 22, a false alarm that kept 3.9 from declaring the period."""
    trace = K6_TRACE.with_name("kafka_added_voter_renews_check_quorum.itf.json")
    for version in ("3.9.1", "4.0.2"):
        done = subprocess.run(["kspec", "replay", str(trace), "--target", f"kafka:{version}"],
                              capture_output=True, text=True, timeout=600, check=False)
        assert "conforms after 22 of 22 steps" in done.stdout, (version, done.stdout[-1500:], done.stderr[-800:])


def test_check_quorum_period_outlives_a_single_voter() -> None:
    """RAFT-RULE-CHECK-QUORUM-PERIOD across a one-voter interval: leader 1 of {1,2}, renewed by
    2's Fetch, then RemoveVoter(2) (Kafka runs no timer for one voter: voters K3) and
    AddVoter(3): the CheckQuorumTimeout still ends the renewed period, as the model's (which
    keeps the period through the interval) and Kafka's timer (reset at 2's Fetch, still
    running). An adapter that dropped the period with the timer and began another at
    AddVoter(3) saw no renewal and expired Kafka's timer: kafka:4.4.0 seed 0 sent EndQuorumEpoch
    at step 24 (session 22, a false alarm of the first fix for the test above)."""
    trace = K6_TRACE.with_name("kafka_check_quorum_period_over_one_voter.itf.json")
    done = subprocess.run(["kspec", "replay", str(trace), "--target", "kafka:4.4.0"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert "conforms after 24 of 24 steps" in done.stdout, (done.stdout[-1500:], done.stderr[-800:])


def test_log_level_is_named_and_refuses_the_replica_level() -> None:
    done = subprocess.run(["kspec", "conform", "voters", "--target", f"kafka:{VERSION}:loggy", "--json"],
                          capture_output=True, text=True, timeout=120, check=False)
    err = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert done.returncode == 2 and len(err) == 1 and "no voters level 'loggy'" in err[0], done.stderr


def test_auto_join_timer_is_the_models_input() -> None:
    """VOTERS-RULE-AUTO-JOIN at kafka:4.2.2 (the auto-join configuration, K1-K4 and K6 accepted):
    a lapsed observer's Fetch to a bootstrap server moves the adapter's clock past the request
    timeout, which expired the update-voter-set period too, and Kafka's observer asked its
    leader to add it three times where the model fetches (seed 0, run 7, step 32: a kspec false
    alarm). The adapter now restarts that period before every poll unless the model fired it."""
    trace = K6_TRACE.with_name("kafka_auto_join_lapse_clock.itf.json")
    done = subprocess.run(["kspec", "replay", str(trace), "--target", "kafka:4.2.2"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert "conforms after 32 of 32 steps" in done.stdout, (done.stdout[-1500:], done.stderr[-800:])
