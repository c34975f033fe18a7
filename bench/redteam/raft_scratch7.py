"""KRaft replicas, session 14's out-of-sample bugs ("outsider" round c; written blind: none of
sessions 5, 7 and 9-13's bug classes, the drivers, the model or the mutant catalogue read before
the first measurement), over session 7's from-scratch replica ``redteam.raft_scratch.Replica``:
each bug overrides one method where someone implementing KIP-595 / KIP-996 from the KIPs,
spec/raft.md and the adapter docs slips. Kinds: the vote's log check made field by field instead
of lexicographically, a leader that validates a fetch offset against its log end instead of the
end of the fetched epoch (no diverging epoch for a follower with a longer old epoch), a leader's
replica table kept across its leaderships (stale fetch offsets count towards a later epoch's high
watermark and show in DescribeQuorum), a kip-996 follower with a kept vote restarting as voted
(the restart table's rows swapped), the listener's leader news judged before the step's commits
are delivered, a truncating fetch not counted as a fetch from the leader (pre-votes still
granted), a follower that stands at once on its leader's EndQuorumEpoch with no preferred
successors, and an observer that learns a leader from a fetch error only at a higher epoch.

    PYTHONPATH=bench kspec conform raft --target python:redteam.raft_scratch7:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import SelfNamed, register
from redteam.raft_scratch import NONE, Replica, _entry
from redteam.raft_scratch import Correct as _Correct


class VoteLogCheckComponentwise(Replica):
    """RAFT-RULE-VOTE-LOG-UP-TO-DATE written as two separate conditions, "the candidate's last
    epoch is not older AND its log is not shorter", where the rule compares (last epoch, end
    offset) lexicographically: a candidate with a newer last epoch but a shorter log (the voter
    kept more records of an older epoch, which the newer leader never had) is refused, votes and
    pre-votes alike."""

    def up_to_date(self, last_epoch: int, end_offset: int) -> bool:
        return last_epoch >= self.last_epoch and end_offset >= self.end


class FetchOffsetCheckedAgainstLogEnd(Replica):
    """The leader's position check (RAFT-RULE-FETCH step 2) tests that the fetched epoch is in its
    log, then bounds the fetch offset by its own log end instead of by the end offset of that
    epoch: a follower holding more records of an old epoch than the leader (Raft's figure 8) is
    answered with the leader's later records at its offset, with no diverging epoch, and is counted
    at that offset towards the high watermark."""

    def on_fetch(self, req: dict[str, Any]) -> None:
        src, offset, last = req["src"], req["fetch_offset"], req["last_fetched_epoch"]
        found, end = self.end_for_epoch(last)
        valid = (offset == 0 and last == 0) or (found == last and offset <= self.end)
        if not valid:
            self.send("FetchResponse", src, epoch=self.epoch, leader=self.leader, error=NONE, offset=offset,
                      entries=[], high_watermark=self.hw, diverging=[found, end])
            return
        self.end_offsets[src] = offset
        if src in self.voters:
            self.acked.add(src)
            self.fetched.add(src)
            if self.majority(self.fetched | {self.id}):
                self.fetched = set()
        self.update_hw()
        self.send("FetchResponse", src, epoch=self.epoch, leader=self.leader, error=NONE, offset=offset,
                  entries=[_entry(e) for e in self.log[offset:]], high_watermark=self.hw, diverging=None)


class LeaderKeepsStaleFetchOffsets(Replica):
    """The leader's replica table (each voter's last fetch offset) is a field of the client, made
    the first time it leads and reused by every later leadership: a replica that leads again in a
    later epoch starts with the offsets its followers fetched in the earlier one, which count
    towards the new epoch's high watermark before anyone fetched in it and show in DescribeQuorum
    (RAFT-RULE-HW-MAJORITY counts fetches of the current epoch; `LeaderState` is new per epoch)."""

    def to_leader(self) -> None:
        table: dict[int, int] | None = getattr(self, "_table", None)
        before = self.election()
        self.role, self.voted_for, self.leader = "leader", None, self.id
        self._clear_role_fields()
        if table is not None:
            self.end_offsets = table
        self._table = self.end_offsets
        self.epoch_start = self.end
        self.hw = None
        self.persist_if_changed(before)
        self.append([(self.epoch, "leader_change", [])])
        for v in self.others():
            self.send("BeginQuorumEpochRequest", v, epoch=self.epoch)
        self.update_hw()


class RestartPrefersVoteOverLeader(Replica):
    """RAFT-RULE-RESTART's rows taken in the wrong order: "voted for someone" is tested before
    "knows a leader". Under KIP-996 a follower keeps the vote it gave in its epoch
    (RAFT-KIP996-VOTE-KEPT), so the quorum-state file of most followers holds both; this one
    restarts as voted, without its leader, and waits for an election timeout it did not need."""

    def restart(self) -> None:
        e, v, ldr = self.file
        if v is not None and v != self.id and ldr is not None and ldr != self.id and e >= self.last_epoch:
            self._clear_role_fields()
            self.hw = None
            self.listener_next, self.told = 0, (0, None)
            self.epoch, self.role, self.voted_for, self.leader = e, "voted", v, None
            return
        super().restart()


class ListenerLeaderCheckedBeforeCommit(Replica):
    """The listener pass asks "should the leader be announced?" before it delivers the step's
    commits: the leader's news waits for its listener to be past the epoch start
    (RAFT-OBS-LISTENER-LEADER), which is only true after this step's HandleCommit, so a new leader
    is told it leads one step late (and a lone voter at its first step after start)."""

    def tell_listener(self) -> None:
        if self.role == "resigned":
            news = None
        elif self.role == "leader":
            news = (self.epoch, self.id) if self.listener_next > self.epoch_start else None
        else:
            news = (self.epoch, self.election()[2])
        if self.hw is not None and self.hw > self.listener_next:
            records = [[e, k] for e, k, _ in self.log[self.listener_next:self.hw]]
            self.out.append({"type": "HandleCommit", "offset": self.listener_next, "entries": records})
            self.listener_next = self.hw
        if news is not None and (news[0] > self.told[0] or (news[0] == self.told[0] and self.told[1] is None
                                                           and news[1] is not None)):
            self.out.append({"type": "HandleLeaderChange", "epoch": news[0], "leader": news[1]})
            self.told = news
        self._kept_listener = (self.listener_next, self.told)


class TruncatingFetchNotCounted(Replica):
    """A follower marks "has fetched from its leader" (which makes it refuse pre-votes,
    RAFT-KIP996-PRE-VOTE-GRANT) only when a fetch response appends: a response with a diverging
    epoch, which it truncates on, is a successful fetch from the leader too (Kafka's
    `hasFetchedFromLeader`), but this follower goes on granting pre-votes after it."""

    def on_fetch_response(self, resp: dict[str, Any]) -> None:
        if (self.role == "follower" and resp["src"] == self.leader and resp["error"] == NONE
                and resp["diverging"] is not None):
            self.truncate(*resp["diverging"])
            return
        super().on_fetch_response(resp)


class EndEpochSuccessorStandsAtOnce(Replica):
    """EndQuorumEpoch asks the preferred successors to stand without waiting out their fetch
    timeout; this handler reads an empty PreferredSuccessors as "anyone may succeed" and has a
    voter that follows the resigning leader stand in the same step, where KIP-595 only shortens
    the successors' timers (RAFT-RULE-END-EPOCH: a follower of the sender is unchanged)."""

    def on_request(self, req: dict[str, Any]) -> None:
        follows = self.role == "follower" and self.leader == req["src"] and req.get("epoch") == self.epoch
        super().on_request(req)
        preferred = req.get("preferred") or []
        if (req["type"] == "EndQuorumEpochRequest" and follows and self.role == "follower"
                and (not preferred or preferred[0] == self.id)):
            self.start_election()


class ObserverIgnoresEqualEpochRedirect(Replica):
    """An observer's bootstrap fetch is answered NOT_LEADER_OR_FOLLOWER with the voter's epoch and
    leader; this observer follows the named leader only when the answer's epoch is above its own,
    and drops an error answer of its own epoch (RAFT-RULE-RESPONSE step 3: an equal-epoch response
    naming a leader makes a replica without one its follower), so an observer that learned the
    epoch from a voter still campaigning never finds that epoch's leader."""

    def on_response(self, resp: dict[str, Any]) -> None:
        if (resp["type"] == "FetchResponse" and resp["error"] != NONE and not self.is_voter
                and resp["epoch"] == self.epoch):
            return
        super().on_response(resp)


class Correct(SelfNamed, _Correct):
    """The bug-free replica (session 7's), named after this module."""


CORRECT = "Correct"
BUGS: dict[str, type[Replica]] = {
    "vote-log-check-componentwise": VoteLogCheckComponentwise,
    "fetch-offset-checked-against-log-end": FetchOffsetCheckedAgainstLogEnd,
    "leader-keeps-stale-fetch-offsets": LeaderKeepsStaleFetchOffsets,
    "restart-prefers-vote-over-leader": RestartPrefersVoteOverLeader,
    "listener-leader-checked-before-commit": ListenerLeaderCheckedBeforeCommit,
    "truncating-fetch-not-counted": TruncatingFetchNotCounted,
    "end-epoch-successor-stands-at-once": EndEpochSuccessorStandsAtOnce,
    "observer-ignores-equal-epoch-redirect": ObserverIgnoresEqualEpochRedirect,
}
TARGETS = register(globals(), Correct, BUGS,
                   lambda replica: (replica.__name__ + "Target", {"replica": replica, "__doc__": replica.__doc__}))
