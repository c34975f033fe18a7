"""What each KRaft release line does about resending BeginQuorumEpoch (spec/raft.md D-RESEND),
on Kafka's own classes, so that the plan there (a ``ResendDue`` input and its adapter glue per
line) rests on observed behaviour and a release that changes it fails here:

- 3.3-3.8 send BeginQuorumEpoch again to a voter that has not acknowledged the leader as soon
  as its connection is ready: the adapter completing the outstanding request as a lost
  connection does (BROKER_NOT_AVAILABLE, retry backoff 0) makes the next poll resend it, to that
  voter only; time passing sends nothing;
- 3.9+ (KAFKA-16536) send it as a heartbeat every fetch timeout / 2 (``beginQuorumEpochTimer``)
  to every other voter whose connection is ready: a lost connection alone sends nothing (the
  timer was reset at election), half the fetch timeout later the ready voter gets it again; the
  voter whose request is still awaited (request timeout 10^9 ms) does not.

The leader stays leader throughout (half the fetch timeout is below check-quorum's 1.5 x).

Then the adapter's ``ResendDue`` (RAFT-RULE-RESEND) on a fresh leader whose BeginQuorumEpoch voter
3 acknowledged: every line reports the resend to voter 2 alone; 3.9+ also sent its heartbeat to
the acknowledged voter 3 (the deviation ``raft-begin-epoch-heartbeat``), a copy the adapter
holds (``held_resends``) because KIP-595's rule sends it nowhere.

Then voter 3 acknowledges a fresh leader by a fetch alone and its ``ResendDue`` fires
(RAFT-DRIVE-RESEND-ACKED): no line reports a resend to it; 3.9+'s heartbeat copy to it is held,
because Kafka's leader records it as acknowledged (``hasAcknowledgedLeader``).

Last, on the same child (one JVM per line is the cost): a follower of leader 2 asked for its
fetch (``FetchDue``) reports a Fetch to 2 and none to voter 3 (RAFT-DRIVE-FETCH-ELSEWHERE; the
adapter reads the leader through ``QuorumState``, which every line has: 3.8's FollowerState has
no ``leaderId``, and the matrix's 3.8.1 runs errored on it in session 15).
Each version runs in a child process (this file as a script prints one JSON document)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from kafka_child import child_report

HERE = Path(__file__).resolve()


def child(version: str) -> dict[str, Any]:
    from kspec.conformance.targets.kafka.raft import KafkaRaftTarget
    from kspec.conformance.targets.kafka.raft_client import FETCH_TIMEOUT_MS

    target = KafkaRaftTarget(version)
    node = target.start(1, {"voters": [1, 2, 3]})
    node.step({"type": "ElectionTimeout"})
    elected = node.step({"type": "VoteResponse", "src": 2, "dst": 1, "epoch": 1, "granted": True, "leader": None,
                         "pre_vote": False, "error": "NONE"})

    def begins(outputs: list[dict[str, Any]]) -> list[int]:
        return sorted(int(o["dst"]) for o in outputs if o["type"] == "BeginQuorumEpochRequest")

    out: dict[str, Any] = {"elected": begins(elected.outputs), "role": elected.observation["role"]}
    node.outputs = []
    node._fail(node.reported[(2, "BEGIN_QUORUM_EPOCH")])
    node._settle()
    out["after_lost"] = begins(node.outputs)
    node.outputs = []
    node.time.sleep(FETCH_TIMEOUT_MS // 2)
    node._settle()
    out["after_half_fetch_timeout"] = begins(node.outputs)
    out["role_after"] = node.observation()["role"]
    node.close()

    node = target.start(1, {"voters": [1, 2, 3]})
    node.step({"type": "ElectionTimeout"})
    node.step({"type": "VoteResponse", "src": 2, "dst": 1, "epoch": 1, "granted": True, "leader": None,
               "pre_vote": False, "error": "NONE"})
    node.step({"type": "BeginQuorumEpochResponse", "src": 3, "dst": 1, "epoch": 1, "leader": 1, "error": "NONE"})
    resent = node.step({"type": "ResendDue", "to": 2})
    out["resend_due"] = begins(resent.outputs)
    out["held_after_resend"] = sorted(node.held_resends)
    out["role_after_resend"] = resent.observation["role"]
    node.close()

    # RAFT-DRIVE-RESEND-ACKED: voter 3 acknowledges by a fetch alone (its BeginQuorumEpochResponse
    # lost), then its resend timer fires: no rule set resends to it
    node = target.start(1, {"voters": [1, 2, 3]})
    node.step({"type": "ElectionTimeout"})
    node.step({"type": "VoteResponse", "src": 2, "dst": 1, "epoch": 1, "granted": True, "leader": None,
               "pre_vote": False, "error": "NONE"})
    node.step({"type": "FetchRequest", "src": 3, "dst": 1, "epoch": 1, "fetch_offset": 0, "last_fetched_epoch": 0})
    acked = node.step({"type": "ResendDue", "to": 3})
    out["fetch_ack_resend_due"] = begins(acked.outputs)
    out["fetch_ack_held"] = sorted(node.held_resends)
    out["fetch_ack_again"] = begins(node.step({"type": "ResendDue", "to": 3}).outputs)
    out["fetch_ack_unacked"] = begins(node.step({"type": "ResendDue", "to": 2}).outputs)
    node.close()

    node = target.start(1, {"voters": [1, 2, 3]})
    node.step({"type": "BeginQuorumEpochRequest", "src": 2, "dst": 1, "epoch": 1, "leader": 2})
    out["follower_fetch_leader"] = [int(o["dst"]) for o in node.step({"type": "FetchDue", "to": 2}).outputs
                                    if o["type"] == "FetchRequest"]
    out["follower_fetch_other"] = [int(o["dst"]) for o in node.step({"type": "FetchDue", "to": 3}).outputs
                                   if o["type"] == "FetchRequest"]
    node.close()
    return out


@pytest.mark.parametrize("version", ["3.3.2", "3.8.1", "3.9.1"])
def test_begin_quorum_epoch_resend_by_line(version: str) -> None:
    report = child_report(HERE, version, "raft")
    assert report["role"] == "leader" and report["elected"] == [2, 3], report
    if version < "3.9":
        assert report["after_lost"] == [2], report  # resent at once, to the voter that lost it
        assert report["after_half_fetch_timeout"] == [], report  # no heartbeat
    else:
        assert report["after_lost"] == [], report  # the heartbeat timer decides
        assert report["after_half_fetch_timeout"] == [2], report  # 3's request is still awaited
    assert report["role_after"] == "leader", report
    assert report["resend_due"] == [2] and report["role_after_resend"] == "leader", report
    # 3.9+: the heartbeat also went to voter 3, which had acknowledged (held, not judged)
    assert report["held_after_resend"] == ([] if version < "3.9" else [3]), report
    # a voter that acknowledged by a fetch gets no resend on any line (RAFT-DRIVE-RESEND-ACKED):
    # 3.9+'s heartbeat copy to it is held (raft-begin-epoch-heartbeat; the adapter reads Kafka's
    # hasAcknowledgedLeader); the unacknowledged voter 2 still gets its resend
    assert report["fetch_ack_resend_due"] == [] and report["fetch_ack_again"] == [], report
    assert report["fetch_ack_held"] == ([] if version < "3.9" else [3]), report
    assert report["fetch_ack_unacked"] == [2], report
    # a follower fetches from its leader only (RAFT-DRIVE-FETCH-ELSEWHERE)
    assert report["follower_fetch_leader"] == [2] and report["follower_fetch_other"] == [], report


if __name__ == "__main__":
    print(json.dumps(child(sys.argv[1])))
