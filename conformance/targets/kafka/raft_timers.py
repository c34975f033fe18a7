"""Kafka's timers and random draws for one ``kafka:VERSION`` raft replica: which Kafka timer each
model timer input ends (read from Kafka's quorum state), the clock jumps, and the
``MockableRandom`` whose draws the adapter fixes (pinned in the lockstep runs, drawn from a
seeded source once the driver runs the clock: RAFT-LIVE-TIMED). A mixin of
:class:`~kspec.conformance.targets.kafka.raft.KafkaRaftNode`.
"""

from __future__ import annotations

import random
import weakref
from typing import Any

from kspec.conformance.targets.kafka.raft_client import ELECTION_TIMEOUT_MS
from kspec.conformance.targets.kafka.raft_java import Java as _Java


class Timers:
    """Timer inputs and random draws (mixed into ``KafkaRaftNode``)."""

    java: _Java
    id: int
    voters: list[int]
    time: Any
    client: Any
    quorum: Any = None  # QuorumState, once the client is built
    down: bool
    jitter: random.Random | None
    pinned_draws: bool
    _pick: int | None
    _draw_proxy: Any
    _draw_voters = 0
    # RAFT-RULE-CHECK-QUORUM-PERIOD: (epoch, Kafka's check-quorum deadline) where the leader's
    # current check-quorum period began
    _check_period: tuple[int, int] | None = None
    # whether the run holds this replica to the period (its node configuration, where the
    # target declares check_quorum_period): else a CheckQuorumTimeout always moves the clock to
    # Kafka's own check-quorum deadline, as before session 19
    check_quorum_period = False

    def _random(self) -> Any:
        """A ``MockableRandom`` whose draws the adapter fixes: each ``nextInt(bound)`` is
        :meth:`_draw`'s answer."""
        import jpype

        rnd = self.java.random_ctor.newInstance(self.java.boxed(1, "long"))
        # A weak reference: a Java proxy holding its Python object strongly would make a cycle
        # across the JPype boundary that neither garbage collector can free.
        ref = weakref.ref(self)
        optional_int = self.java.OptionalInt_
        self._draw_voters = len(self.voters)  # the voters Kafka was started with

        @jpype.JImplements("java.util.function.IntFunction")
        class Draw:
            @jpype.JOverride
            def apply(self, bound: int) -> Any:
                node = ref()
                return optional_int.of(node._draw(int(bound)) if node is not None else max(int(bound) - 1, 0))

        self._draw_proxy = Draw()
        self.java.random_fn.set(rnd, self._draw_proxy)
        return rnd

    def _draw(self, bound: int) -> int:
        """What ``MockableRandom.nextInt(bound)`` answers (a subclass may override it): no
        election jitter, the largest election backoff (never 0), and for a draw over the voters
        the one the adapter picks for a bootstrap fetch. A candidate's draw is always its
        backoff's: Kafka draws the backoff factor as ``nextInt(2 << min(20, retries - 1))``
        (``KafkaRaftClient.binaryExponentialElectionBackoffMs``, 3.9.1 line 943) and a voter to
        fetch from as ``nextInt(voters.size())`` (``RequestManager.findReadyVoter``), which only
        an observer or a follower draws; the bounds meet when the voter count is a power of two
        (4 voters, second election: bound 4), and read as a pick the backoff came out 0."""
        if bound == self._draw_voters and not self._candidate():
            return self._start_index()
        jitter = self.jitter
        if bound == ELECTION_TIMEOUT_MS:
            return 0 if jitter is None else jitter.randrange(bound)
        if jitter is not None and bound > 1:
            # the election backoff's factor (RETRY_BACKOFF_BASE_MS times it), never 0: a zero
            # backoff would start the next election inside the step that lost this one
            return jitter.randrange(1, bound)
        return bound - 1

    def _candidate(self) -> bool:
        """Kafka's quorum state is a candidate's (False before the client is built)."""
        return self.quorum is not None and bool(self.quorum.isCandidate())

    def _start_index(self) -> int:
        """``RequestManager.findReadyVoter`` takes the last ready voter from a random start, so
        starting one past the wanted voter picks it when every voter is ready."""
        if self._pick is None or self.client is None:
            return 0
        order = [v if isinstance(v, int) else int(v.id())
                 for v in self.java.f_voters.get(self.java.f_requests.get(self.client))]
        if self._pick not in order:
            return 0
        return (order.index(self._pick) + (1 if self.java.pick_last else 0)) % len(order)

    def _timer(self, kind: str) -> None:
        """Advance the clock to the deadline of the Kafka timer ``kind`` names, if Kafka's state runs it."""
        remaining = self._remaining(kind)
        if remaining is not None:
            self.time.sleep(max(remaining, 0))

    def timers(self) -> dict[str, int]:
        """The Kafka timers the replica's state runs, by the model input that ends each, with
        the milliseconds left (TimedInstance). From the first call on, Kafka draws its election
        timeouts and backoffs at random (seeded by the replica id)."""
        if self.jitter is None and not self.pinned_draws:
            self.jitter = random.Random(self.id)
        if self.down or self.client is None:
            return {}
        found = {}
        for kind in ("ElectionTimeout", "BackoffExpired", "FetchTimeout", "CheckQuorumTimeout"):
            left = self._remaining(kind)
            if left is not None:
                found[kind] = max(left, 0)
        return found

    def elapse(self, ms: int) -> None:
        self.time.sleep(ms)
        # A 4.x follower sends UpdateRaftVoter (KIP-853's voters protocol, not raft's) once its
        # update-voter period expires: the period restarts whenever time passes, as the request
        # timeout of 10^9 ms keeps Kafka from resending (RAFT-LIVE-TIMED).
        q = self.quorum
        if not self.down and q is not None and q.isLeader() and self.java.f_begin_epoch_timer is not None:
            # 3.9+'s BeginQuorumEpoch heartbeat (KAFKA-16536) would go out once half the fetch
            # timeout passes; the model resends only at ResendDue (RAFT-RULE-RESEND, spec/raft.md
            # D-RESEND), where the adapter expires this timer itself: it restarts whenever time
            # passes, as the update-voter period below.
            q.leaderStateOrThrow().resetBeginQuorumEpochTimer(self.time.milliseconds())
        if not self.down and q is not None and q.isFollower():
            state = q.followerStateOrThrow()
            for reset in ("resetUpdateVoterPeriod", "resetUpdateVoterSetPeriod"):  # 3.9, 4.x
                if hasattr(state, reset):
                    getattr(state, reset)(self.time.milliseconds())

    def _remaining(self, kind: str) -> int | None:
        """The milliseconds left on the Kafka timer ``kind`` names, if Kafka's state runs it."""
        q, now = self.quorum, int(self.time.milliseconds())
        remaining: int | None = None
        if kind == "ElectionTimeout" and not q.isVoter() and self._voted():
            # An observer that voted (KIP-853 lets it) keeps an election timer; when it expires
            # the observer must stay an observer (3.8's VotedState stands for election:
            # KAFKA-17067).
            state = q.votedStateOrThrow() if hasattr(q, "isVoted") and q.isVoted() else q.unattachedStateOrThrow()
            remaining = int(state.remainingElectionTimeMs(now))
        elif kind == "ElectionTimeout" and q.isVoter():
            if q.isUnattached():
                remaining = int(q.unattachedStateOrThrow().remainingElectionTimeMs(now))
            elif hasattr(q, "isVoted") and q.isVoted():
                remaining = int(q.votedStateOrThrow().remainingElectionTimeMs(now))
            elif q.isResigned():
                remaining = int(q.resignedStateOrThrow().remainingElectionTimeMs(now))
            elif q.isCandidate() and not self._candidate_lost():
                remaining = int(q.candidateStateOrThrow().remainingElectionTimeMs(now))
            elif hasattr(q, "isProspective") and q.isProspective():
                remaining = int(q.prospectiveStateOrThrow().remainingElectionTimeMs(now))
        elif kind == "BackoffExpired" and q.isCandidate() and self._candidate_lost():
            cand = q.candidateStateOrThrow()
            if self.java.candidate_backoff:
                remaining = int(cand.remainingBackoffMs(now))
            else:  # 4.1+: a lost candidate waits for its election timer, the model's backoff
                remaining = int(cand.remainingElectionTimeMs(now))
        elif kind == "FetchTimeout" and q.isFollower() and q.isVoter():
            remaining = int(q.followerStateOrThrow().remainingFetchTimeMs(now))
        elif kind == "CheckQuorumTimeout" and q.isLeader() and self.java.line.check_quorum:
            left = int(q.leaderStateOrThrow().timeUntilCheckQuorumExpires(now))
            remaining = None if left >= 2**62 else left
        return remaining

    def _check_quorum_deadline(self) -> int | None:
        """When the leader's check-quorum timer expires on this replica's clock (None: Kafka's
        state runs none: not a leader, a single voter, a release without check-quorum)."""
        if self.down or self.quorum is None or not self.quorum.isLeader():
            return None
        left = self._remaining("CheckQuorumTimeout")
        return None if left is None else int(self.time.milliseconds()) + left

    def _begin_check_period(self) -> None:
        """RAFT-RULE-CHECK-QUORUM-PERIOD: a leader's check-quorum period begins (at its election,
        at a CheckQuorumTimeout that renewed the period): note where Kafka's timer expires now,
        then let 1 ms pass, so a reset from here on (``updateCheckQuorumForFollowingVoter``: a
        majority fetched) is seen as a later deadline. Kafka's check-quorum timer is 1.5 times
        the fetch timeout, and the 3.9+ BeginQuorumEpoch heartbeat restarts as time passes
        (``elapse``), so the millisecond moves nothing else."""
        deadline = self._check_quorum_deadline()
        self._check_period = None if deadline is None else (int(self.quorum.epoch()), deadline)
        if deadline is not None:
            self.elapse(1)

    def _note_check_period(self) -> None:
        """After every step: a replica that has just become leader begins its first period."""
        if not self.check_quorum_period:
            return
        deadline = self._check_quorum_deadline()
        if deadline is None:
            if self.down or self.quorum is None or not self.quorum.isLeader():
                self._check_period = None
            # A leader whose timer Kafka does not run for now (a single voter: voters K3,
            # timeUntilCheckQuorumExpires) keeps its period: the timer keeps its deadline, and
            # the model's period (renewed or not) goes on, a CheckQuorumTimeout changing nothing
            # meanwhile. When the set grows again, a renewal before it still counts.
        elif self._check_period is None or self._check_period[0] != int(self.quorum.epoch()):
            self._begin_check_period()

    def _check_period_renewed(self) -> bool:
        """Whether Kafka reset its check-quorum timer since the leader's period began: the model's
        ``Leader.renewed``, read from Kafka's own timer (RAFT-RULE-CHECK-QUORUM-PERIOD). A
        CheckQuorumTimeout then ends the period before Kafka's timer expires: no time passes."""
        if not self.check_quorum_period:
            return False
        deadline = self._check_quorum_deadline()
        period = self._check_period
        return deadline is not None and period is not None and period[0] == int(self.quorum.epoch()) \
            and deadline > period[1]

    def _voted(self) -> bool:
        """Whether the replica is in the model's voted role (3.8 ``VotedState``; 3.9+ an
        unattached state with a voted key)."""
        q = self.quorum
        if hasattr(q, "isVoted") and q.isVoted():
            return True
        if q.isUnattached():
            state = q.unattachedStateOrThrow()
            return hasattr(state, "votedKey") and bool(state.votedKey().isPresent())
        return False

    def _candidate_lost(self) -> bool:
        """The model's ``backing_off``: to 4.0 the candidate's backoff, from 4.1 (no backoff
        state; a candidate a majority rejected waits for its election timer) its rejection."""
        cand = self.quorum.candidateStateOrThrow()
        if self.java.candidate_backoff:
            return bool(cand.isBackingOff())
        return bool(cand.epochElection().isVoteRejected())
