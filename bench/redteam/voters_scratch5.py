"""KIP-853 replicas at the replica level, session 13's out-of-sample bugs ("outsider").

Written from the user-facing material only (README.md, docs/adapter-guide.md, spec/voters.md
§6-§7 and §9, spec/adapter-protocol.md, KIP-853) over the reference classes
(``conformance/targets/reference/voters.py``): no driver, model or mutant catalogue read
before the first measurement. Each bug overrides one method of ``VoterReplica`` where someone
porting ``AddVoterHandler`` / ``RemoveVoterHandler`` / ``UpdateVoterHandler`` or the KIP-853
role rules slips. Kinds not planted before: "caught up" read as "reached the high watermark",
an observer's fetch lapse ended by any answer, the last voter removed, RemoveVoter without the
one-change check, the high watermark over the committed set, UpdateVoter's role checked before
its epoch, a removed leader rejoining in its own epoch, and AddVoter validated before the role
check (a follower answering INVALID_REQUEST).

    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch5:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.voters import VoterReplica, VotersTarget, _entry, _ids
from redteam._targets import SelfNamed, register


def _voters_payload(voters: frozenset[tuple[int, int]]) -> list[int]:
    return [x for k in sorted(voters) for x in k]


class AddCaughtUpToHighWatermark(VoterReplica):
    """AddVoter's catch-up check compares the new voter's fetch offset with the leader's high
    watermark, not its log end ("caught up" read as "has everything committed"): a replica that
    fetched up to the HW while the leader has uncommitted records is added at once."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if (inp["type"] == "AddVoter" and self.role == "leader" and self.high_watermark is not None
                and self.valid_key(inp) and inp.get("endpoint", True) and self.control.kraft_version() >= 1
                and not self.change_pending()):
            current = self.control.voters_now()
            replica, directory = inp["replica"], inp["directory"]
            fetched = self.end_offsets.get(replica)
            if (replica not in _ids(current) and directory == replica and fetched is not None
                    and self.high_watermark <= fetched < self.end_offset):
                self.leader_append([_entry(self.epoch, "voters", _voters_payload(current | {(replica, directory)}))])
                return None
        return super().reconfigure(inp)


class LapseEndsOnAnyAnswer(VoterReplica):
    """An observer whose fetch timer lapsed goes back to fetching its leader on any Fetch answer
    of its epoch, whoever sent it and whatever it names: "got a response, the quorum is back"
    (VOTERS-RULE-OBSERVER-FETCH-TIMEOUT wants an answer naming that leader)."""

    def _still_lapsed(self, following: tuple[str, int, int | None], inp: dict[str, Any]) -> bool:
        if ((self.role, self.epoch, self.leader) == following and not self.is_voter
                and inp["type"] == "FetchResponse" and inp["epoch"] == self.epoch):
            return False
        return super()._still_lapsed(following, inp)


class RemoveLastVoter(VoterReplica):
    """RemoveVoter refuses a key that is not a voter, but not the only voter: removing the last
    one writes an empty voter set (Kafka's ``VoterSet.removeVoter`` refuses that)."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if (inp["type"] == "RemoveVoter" and self.role == "leader" and self.high_watermark is not None
                and self.valid_key(inp) and self.control.kraft_version() >= 1 and not self.change_pending()):
            current = self.control.voters_now()
            key = (inp["replica"], inp["directory"])
            if current == {key}:
                self.leader_append([_entry(self.epoch, "voters", [])])
                return None
        return super().reconfigure(inp)


class RemoveSkipsPendingCheck(VoterReplica):
    """The one-change-at-a-time check sits in AddVoter's handler only (the spec's step 1 reads
    "a pending add"): a RemoveVoter while a VotersRecord is uncommitted is accepted and writes a
    second uncommitted set."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if (inp["type"] == "RemoveVoter" and self.role == "leader" and self.high_watermark is not None
                and self.valid_key(inp) and self.control.kraft_version() >= 1 and self.change_pending()
                and self.control.voter_history):
            current = self.control.voters_now()
            key = (inp["replica"], inp["directory"])
            if key in current and len(current) > 1:
                self.leader_append([_entry(self.epoch, "voters", _voters_payload(current - {key}))])
                return None
        return super().reconfigure(inp)


class HwOverCommittedSet(VoterReplica):
    """The leader's high watermark is a majority of the *committed* voter set (the one in force
    at the high watermark), as Raft's joint-consensus reading "the new configuration counts once
    committed"; KIP-853 counts the set at the log end (VOTERS-RULE-EFFECT-ON-APPEND)."""

    def update_high_watermark(self) -> None:
        if self.role != "leader" or self.high_watermark is None:
            return super().update_high_watermark()
        committed = self.control.value_at(self.control.voter_history, self.high_watermark - 1)
        if committed is None:
            return super().update_high_watermark()
        voters = self.voters
        self.voters = _ids(committed)
        try:
            super().update_high_watermark()
        finally:
            self.voters = voters
        return None


class UpdateRoleBeforeEpoch(VoterReplica):
    """UpdateRaftVoter checks the receiver's role before the request's epoch: a follower (or
    candidate, observer) answers NOT_LEADER_OR_FOLLOWER to a stale or future epoch, where
    ``validateLeaderOnlyRequest`` answers FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH first."""

    def update_voter(self, inp: dict[str, Any]) -> None:
        if self.role != "leader":
            return self.reject("update_voter", inp["replica"], "NOT_LEADER_OR_FOLLOWER")
        return super().update_voter(inp)


class RemovedLeaderRejoinsSameEpoch(VoterReplica):
    """A leader that removed itself and resigned goes back to leader discovery in its own epoch
    when its election timer expires (unattached, epoch unchanged), not in epoch + 1
    (VOTERS-RULE-REMOVED-LEADER-TIMER): "I am not a voter, so no new epoch is mine to start"."""

    def on_ElectionTimeout(self, inp: dict[str, Any]) -> None:
        if self.role == "resigned" and not self.is_voter:
            self.become_unattached(self.epoch)
            self.persist()
            return
        super().on_ElectionTimeout(inp)


class AddValidatedBeforeRole(VoterReplica):
    """AddVoter / RemoveVoter validate the request (a replica key, an endpoint) before the
    receiver checks it is the leader: a follower answers a malformed request INVALID_REQUEST
    where KafkaRaftClient answers NOT_LEADER_OR_FOLLOWER first (VOTERS-RULE-KEY-VALID,
    VOTERS-RULE-ADD-ENDPOINT)."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if inp["type"] in ("AddVoter", "RemoveVoter") and self.role != "leader":
            request = "add_voter" if inp["type"] == "AddVoter" else "remove_voter"
            if not self.valid_key(inp) or (request == "add_voter" and not inp.get("endpoint", True)):
                return self.reject(request, inp["replica"], "INVALID_REQUEST")
        return super().reconfigure(inp)


class Correct(SelfNamed, VotersTarget):
    """The bug-free replica (the reference ``VoterReplica``), named after this module."""

    replica: type[VoterReplica] = VoterReplica

    def __init__(self) -> None:
        VotersTarget.__init__(self, replica_class=self.replica)
        SelfNamed.__init__(self)


CORRECT = "Correct"
BUGS: dict[str, type[VoterReplica]] = {
    "add-caught-up-to-high-watermark": AddCaughtUpToHighWatermark,
    "lapse-ends-on-any-answer": LapseEndsOnAnyAnswer,
    "remove-last-voter": RemoveLastVoter,
    "remove-skips-pending-check": RemoveSkipsPendingCheck,
    "hw-over-committed-set": HwOverCommittedSet,
    "update-role-before-epoch": UpdateRoleBeforeEpoch,
    "removed-leader-rejoins-same-epoch": RemovedLeaderRejoinsSameEpoch,
    "add-validated-before-role": AddValidatedBeforeRole,
}
TARGETS = register(globals(), Correct, BUGS,
                   lambda replica: (replica.__name__ + "Target", {"replica": replica, "__doc__": replica.__doc__}))
