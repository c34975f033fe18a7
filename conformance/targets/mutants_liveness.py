"""Raft liveness mutants (issue #20): each conforms step for step, since the lockstep runs
abstract time into timer events, and each keeps a leader from being elected once the faults
stop. Only the timed suffix of ``conformance/machines/raft_liveness.py`` sees them.

Each subclasses the reference replica (``conformance/targets/reference/raft.py``), whose
instances report their timers (a ``TimedInstance``); ``conformance/targets/mutants.py``
registers them (``LIVENESS_MUTANTS``).
"""

from __future__ import annotations

from kspec.conformance.targets.reference.raft import (
    ELECTION_BACKOFF_MAX_MS,
    ELECTION_TIMEOUT_MS,
    RETRY_BACKOFF_BASE_MS,
    RaftReplica,
)


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


class BackoffUnbounded(RaftReplica):
    """The backoff doubles with every lost election and is never capped by
    ``quorum.election.backoff.max.ms``, and its random factor is drawn once per replica: the
    retries spread apart only as fast as they slow down."""

    def election_backoff_ms(self, retries: int) -> int:
        return (RETRY_BACKOFF_BASE_MS << min(20, retries)) * (1 + self.id % 2)


class ProspectiveNoTimer(RaftReplica):
    """A prospective replica (KIP-996) runs no election timer: when its pre-vote is not
    decided it waits forever instead of starting again."""

    def timer_kind(self) -> str | None:
        if self.role == "prospective":
            return None
        return super().timer_kind()


# (name, class, bug class, caught at the default budget, note): mutants.py makes Mutants of them.
LIVENESS_MUTANTS: tuple[tuple[str, type, str, bool, str], ...] = (
    ("raft-backoff-without-jitter", BackoffWithoutJitter, "a retry backoff without jitter (liveness)", True, ""),
    ("raft-backoff-saturates", BackoffSaturates, "an exponential backoff without a random factor (liveness)", True,
     ""),
    ("raft-no-jitter", NoJitter, "timeouts and backoff without randomisation (liveness)", True, ""),
    ("raft-candidate-never-retries", CandidateNeverRetries, "a timer never scheduled (liveness)", True, ""),
)
