"""Raft liveness mutants (issue #20): each conforms step for step, since the lockstep runs
abstract time into timer events, and each keeps a leader from being elected once the faults
stop. Only the timed suffix of ``conformance/drivers/raft_liveness.py`` sees them.

Each subclasses the reference replica (``conformance/targets/reference/raft.py``), whose
instances report their timers (a ``TimedInstance``); ``conformance/targets/mutants.py``
registers them (``LIVENESS_MUTANTS``).
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.raft import (
    ELECTION_BACKOFF_MAX_MS,
    ELECTION_TIMEOUT_MS,
    RETRY_BACKOFF_BASE_MS,
    RaftReplica,
)
from kspec.conformance.targets.reference.share import NOT_AVAILABLE, ShareShard
from kspec.conformance.targets.reference.voters import VoterReplica


class BackoffWithoutJitter(RaftReplica):
    """Every lost election backs off exactly ``quorum.election.backoff.max.ms``: candidates
    that lost in the same instant retry in the same instant, split the vote again, forever."""

    def election_backoff_ms(self, retries: int) -> int:
        return ELECTION_BACKOFF_MAX_MS


class BackoffSaturates(RaftReplica):
    """A binary exponential backoff without the random factor (``base * 2^retries``, capped):
    it grows, but every candidate's grows the same, so the split repeats."""

    def election_backoff_ms(self, retries: int) -> int:
        return min(RETRY_BACKOFF_BASE_MS << min(20, retries), ELECTION_BACKOFF_MAX_MS)


class NoJitter(RaftReplica):
    """Neither the election timeout nor the backoff is random (a replica set configured or
    written without jitter): the timers of replicas that start together stay together."""

    def election_timeout_ms(self) -> int:
        return ELECTION_TIMEOUT_MS

    def election_backoff_ms(self, retries: int) -> int:
        return ELECTION_BACKOFF_MAX_MS


class CandidateNeverRetries(RaftReplica):
    """A candidate that lost its election runs no backoff timer (it was never scheduled): it
    waits for a BackoffExpired that never comes, a candidate forever."""

    def timer_kind(self) -> str | None:
        if self.role == "candidate" and self.backing_off:
            return None
        return super().timer_kind()


class CandidateNoElectionTimer(RaftReplica):
    """A candidate runs no election timer (only the backoff after a lost election): a candidate
    whose vote requests were lost waits for answers that never come."""

    def timer_kind(self) -> str | None:
        if self.role == "candidate" and not self.backing_off:
            return None
        return super().timer_kind()


class ProspectiveTimerTooLong(RaftReplica):
    """A prospective replica's election timer is armed in seconds where Kafka means
    milliseconds (a thousand times too long): a prospective whose pre-votes were lost waits
    minutes before it starts again."""

    def timer_ms(self, kind: str) -> int:
        if kind == "ElectionTimeout" and self.role == "prospective":
            return 1000 * super().timer_ms(kind)
        return super().timer_ms(kind)


class ProspectiveNoTimer(RaftReplica):
    """A prospective replica (KIP-996) runs no election timer: when its pre-vote is not
    decided it waits forever instead of starting again."""

    def timer_kind(self) -> str | None:
        if self.role == "prospective":
            return None
        return super().timer_kind()


class ProspectiveFromFollowerNoTimer(RaftReplica):
    """A follower whose fetch timeout makes it prospective (KIP-996's pollFollower path) arms no
    election timer for the new state: only the unattached path (pollUnattached) arms one. When
    its pre-vote is not decided it waits forever. (A timer not renewed when a prospective starts
    again on its own expiry was tried and escapes: with every voter answering, a restarted
    pre-vote at 3 or 5 voters is always decided, spec/raft.md RAFT-LIVE-TIMED.)"""

    came_from: str | None = None

    def become_prospective(self) -> None:
        self.came_from = self.role
        super().become_prospective()

    def timer_kind(self) -> str | None:
        if self.role == "prospective" and self.came_from == "follower":
            return None
        return super().timer_kind()


# (name, class, bug class, caught at the default budget, note): mutants.py makes Mutants of them.
# Each is caught at the default budget, after the safety runs (which it passes); the CI run of
# the whole catalogue leaves them out, since the safety runs take minutes and cannot see them:
# tests/conformance/test_raft_liveness_conformance.py runs their liveness check alone.
_NOTE = ("caught by the timed liveness suffixes (seconds) after the default budget's safety runs (minutes), which "
         "it passes: tested by the liveness check alone")
LIVENESS_MUTANTS: tuple[tuple[str, type, str, bool, str], ...] = (
    ("raft-backoff-without-jitter", BackoffWithoutJitter, "a retry backoff without jitter (liveness)", False, _NOTE),
    ("raft-backoff-saturates", BackoffSaturates, "an exponential backoff without a random factor (liveness)", False,
     _NOTE),
    ("raft-no-jitter", NoJitter, "timeouts and backoff without randomisation (liveness)", False, _NOTE),
    ("raft-candidate-never-retries", CandidateNeverRetries, "a timer never scheduled (liveness)", False, _NOTE),
    ("raft-candidate-no-election-timer", CandidateNoElectionTimer, "a timer never scheduled (liveness)", False,
     _NOTE),
    ("raft-prospective-no-timer", ProspectiveNoTimer, "a timer never scheduled (KIP-996, liveness)", False, _NOTE),
    ("raft-prospective-from-follower-no-timer", ProspectiveFromFollowerNoTimer,
     "a timer armed on one transition path only (KIP-996, liveness)", False, _NOTE),
    ("raft-prospective-timer-too-long", ProspectiveTimerTooLong, "a timer in the wrong unit (KIP-996, liveness)",
     False, _NOTE),
)

# The liveness properties each mutant breaks (the model's names) at seeds 0-2; the timed
# suffixes may find more (a too-long prospective timer that expires past the bound starts a late
# election at some seeds); tests/conformance/test_raft_liveness_conformance.py holds the check to it.
BREAKS: dict[str, tuple[str, ...]] = {
    "raft-backoff-without-jitter": ("EventuallyStableLeader", "NoElectionLivelock", "NotStuckCandidate"),
    "raft-backoff-saturates": ("EventuallyStableLeader", "NoElectionLivelock", "NotStuckCandidate"),
    "raft-no-jitter": ("EventuallyStableLeader", "NoElectionLivelock", "NotStuckCandidate"),
    "raft-candidate-never-retries": ("EventuallyStableLeader", "NotStuckCandidate"),
    "raft-candidate-no-election-timer": ("EventuallyStableLeader", "NotStuckCandidate"),
    "raft-prospective-no-timer": ("EventuallyStableLeader", "NotStuckProspective"),
    "raft-prospective-timer-too-long": ("EventuallyStableLeader", "NotStuckProspective"),
    "raft-prospective-from-follower-no-timer": ("EventuallyStableLeader", "NotStuckProspective"),
}


# ------------------------------------------------------------------------------ share (KIP-932)
# WriteEventuallyAnswered (SHARE-LIVE-WRITE-ANSWERS): a leader retries a retriable answer
# (COORDINATOR_NOT_AVAILABLE) and stops at any other. The share coordinator answers in the step
# that receives the request, so a bug that keeps a leader retrying forever is an answer the
# lockstep compares: each mirrors a liveness variant of model/share/liveness.py and is caught by
# the safety runs at the first retriable answer where the model's is final (or a success).


class ShareLoadNeverCompletes(ShareShard):
    """A new shard never finishes loading the coordinator partition (its replay fails and it
    stays inactive): every write is answered COORDINATOR_NOT_AVAILABLE, retried forever
    (the variant load-never-completes)."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        out = super().step(inp)
        if inp.get("type") == "Load":
            self.active = False
        return out


class ShareUninitializedWriteRetriable(ShareShard):
    """A write to a share-partition the group coordinator has not initialized is answered
    COORDINATOR_NOT_AVAILABLE (retriable) instead of INVALID_REQUEST: the leader retries forever
    (the variant uninitialized-write-retriable)."""

    def on_WriteRequest(self, key: Any, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        if key not in self.offsets:
            return [], self.response(req, *NOT_AVAILABLE)
        return super().on_WriteRequest(key, req)


class ShareFencedWriteRetriable(ShareShard):
    """A fenced write (an older leader or state epoch) is answered COORDINATOR_NOT_AVAILABLE:
    the stale leader retries forever instead of learning it is fenced (the variant
    fenced-write-retriable)."""

    def write_fenced(self, key: Any, req: dict[str, Any]) -> tuple[str, str] | None:
        return NOT_AVAILABLE if super().write_fenced(key, req) is not None else None


# (name, class, bug class): mutants.py registers them as share mutants (caught at the default budget).
SHARE_LIVENESS_MUTANTS: tuple[tuple[str, type[ShareShard], str], ...] = (
    ("share-load-never-completes", ShareLoadNeverCompletes, "a load that never finishes (liveness)"),
    ("share-uninitialized-write-retriable", ShareUninitializedWriteRetriable,
     "a final error answered as retriable (liveness)"),
    ("share-fenced-write-retriable", ShareFencedWriteRetriable, "a fence answered as retriable (liveness)"),
)


# ------------------------------------------------------------------------------ voters (KIP-853)
# ReconfigurationCompletes (VOTERS-LIVE-RECONFIG-COMPLETES): an accepted AddVoter/RemoveVoter
# commits or is truncated away once faults stop. Each mirrors a liveness variant of
# model/voters/liveness.py; the leader's high watermark, what it sends and what a follower keeps
# are observed step by step, so the lockstep catches each where the model commits the change
# (in the safety runs, or in the fault-free suffix that drives every change to its end,
# conformance/drivers/voters_liveness.py).


def _is_change(log: list[dict[str, Any]], offset: int) -> bool:
    """A reconfiguration's VotersRecord: not the copy a first leader writes after its
    KRaftVersionRecord (VOTERS-RULE-FIRST-LEADER), which the quorum needs to start."""
    return log[offset].get("kind") == "voters" and not (offset > 0 and log[offset - 1].get("kind") == "kraft_version")


class VotersHwStopsAtVotersRecord(VoterReplica):
    """The leader never moves its high watermark past an uncommitted VotersRecord (it waits for
    a majority of a voter set that cannot form): the change never commits (the variant
    hw-stops-at-voters-record)."""

    def update_high_watermark(self) -> None:
        before = self.high_watermark
        super().update_high_watermark()
        after = self.high_watermark
        if after is not None and any(_is_change(self.log, o) for o in range(before or 0, min(after, len(self.log)))):
            self.high_watermark = before


class VotersLeaderWithholdsVotersRecord(VoterReplica):
    """The leader sends fetching followers the records before an uncommitted VotersRecord only,
    so the record never reaches a majority (the variant leader-withholds-voters-record)."""

    def send(self, kind: str, dst: int, **fields: Any) -> None:
        if kind == "FetchResponse" and self.role == "leader" and fields.get("entries"):
            hw, offset, kept = self.high_watermark or 0, int(fields["offset"]), []
            for k, e in enumerate(fields["entries"]):
                if _is_change(self.log, offset + k) and offset + k >= hw:
                    break
                kept.append(e)
            fields = {**fields, "entries": kept}
        super().send(kind, dst, **fields)


class VotersFollowerDropsVotersRecord(VoterReplica):
    """A follower ignores a fetch response that carries a VotersRecord (it fails to apply it and
    fetches from the same offset again, forever: the variant follower-drops-voters-record)."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        if inp.get("type") == "FetchResponse" and inp.get("entries") and self.role != "leader":
            log = self.log[:inp["offset"]] + list(inp["entries"])
            if any(_is_change(log, inp["offset"] + k) for k in range(len(inp["entries"]))):
                self.out = []
                return self.out
        return super().step(inp)


# (name, class, bug class): mutants.py registers them as voters mutants.
VOTERS_LIVENESS_MUTANTS: tuple[tuple[str, type[VoterReplica], str], ...] = (
    ("voters-hw-stops-at-voters-record", VotersHwStopsAtVotersRecord, "commit rule that waits forever (liveness)"),
    ("voters-leader-withholds-voters-record", VotersLeaderWithholdsVotersRecord,
     "record withheld from replication (liveness)"),
    ("voters-follower-drops-voters-record", VotersFollowerDropsVotersRecord, "record never applied (liveness)"),
)
