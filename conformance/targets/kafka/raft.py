"""``kafka:VERSION`` for raft: Kafka's own ``KafkaRaftClient`` (kafka-raft, 3.3-4.4: ``raft_releases``), one
client per replica, driven with Kafka's own test doubles the way ``RaftClientTestContext`` drives
it: ``MockLog``, ``MockQuorumStateStore``, ``MockNetworkChannel``, ``MockMessageQueue``,
``MockTime``, ``MockExpirationService`` and ``MockableRandom`` (the kafka-raft and kafka-clients
*test* jars, resolved by Maven like the rest).

One input is one node-level event of the model; the adapter turns it into what Kafka's event
loop sees and polls the client until it is quiet (no message queued, nothing new sent):

- a request becomes a ``RaftRequest.Inbound`` handed to ``client.handle``; its response is the
  inbound request's completion. A response completes the outbound request Kafka sent to that
  peer with that API (the model's network has no correlation ids; Kafka's request manager
  expects exactly the one in flight, so the match is the latest *reported* request of that
  kind to that peer, a vote answer only of a vote of its kind, ``raft_wire.answers``; a response
  with no such request reaches Kafka unmatched and is ignored, as Kafka ignores any response it
  no longer expects).
- a timer input advances this replica's ``MockTime`` to the deadline of the Kafka timer it
  names, read from Kafka's own state: ElectionTimeout the election timer of a voter that is
  unattached, voted, resigned or a candidate not backing off; BackoffExpired a backing-off
  candidate's backoff; FetchTimeout a voter follower's fetch timer; CheckQuorumTimeout the
  leader's check-quorum timer, unless Kafka reset that timer since the leader's check-quorum
  period began (a majority fetched): then the period ends with no time passing
  (RAFT-RULE-CHECK-QUORUM-PERIOD; a period begins 1 ms before the next input, so a reset is a
  later deadline). When Kafka's state has no such timer the input is idle: the
  clock stays, the client is polled.
- Kafka sends its Fetch as soon as it may; the model sends on ``FetchDue(to)``. The adapter
  holds Kafka's Fetch back and reports it at ``FetchDue(to)``. If Kafka's fetch went to another
  voter (an observer's random bootstrap voter), or the earlier fetch is still awaited (the model
  lost it), the adapter completes that request as Kafka's network channel does for a lost
  connection (BROKER_NOT_AVAILABLE), steers ``MockableRandom`` to the voter ``to`` and polls.
- ``ResendDue(to)`` (RAFT-RULE-RESEND): the request Kafka still awaits from ``to`` is completed as
  a lost connection, so the next poll sends it again (3.3-3.8; Vote and EndQuorumEpoch in every
  line); a 3.9+ leader's BeginQuorumEpoch heartbeat timer is expired in place and the copies to
  other voters are held until their own ResendDue (spec/raft.md D-RESEND). A Vote Kafka sends
  again at once after an answer with an error (no vote: RAFT-RULE-VOTE-ERROR) is held the same way.
- ClientAppend is ``scheduleAppend`` (3.9+: ``prepareAppend`` + ``schedulePreparedAppend``) of
  one string record at the leader; elsewhere nothing (Kafka throws NotLeaderException).
- Crash drops the client and ``MockLog.reopen()`` loses a voter's unflushed data (an observer's
  is flushed first: ``_stop_log``); Restart builds a new
  client over the same log and quorum-state store and calls ``initialize`` (Kafka's restart).

Outputs: PersistElection when the store's (epoch, voted, leader) changed, AppendLog /
TruncateLog from the log before and after, the messages sent (Fetch only when reported) and the
response. Observation: the role from ``QuorumState``, the election from the store, the log read
back record by record, ``client.highWatermark()``.

Settings that keep Kafka's clock and the model's timer events apart: request timeout 10^9 ms
(Kafka never resends on its own; a lost request is reported at FetchDue as above), retry backoff
0, append linger 0, fetch max wait 0, election timeout 1000 ms with the jitter pinned to 0,
election backoff pinned to its maximum (never 0: a zero backoff would start the next election
inside the same step). ``MockLog.read`` returns at most two batches per read (a test-double
choice; ``KafkaMetadataLog`` reads up to the fetch size), so the log the client sees is a JPype
proxy that reads on until the log end.
"""

from __future__ import annotations

import random
import weakref
from typing import Any

from kspec.conformance.adapters.base import JSON, StepResult, Target, TargetError
from kspec.conformance.targets.kafka import jvm, raft_io
from kspec.conformance.targets.kafka.raft_client import ClientBuild
from kspec.conformance.targets.kafka.raft_java import Java as _Java
from kspec.conformance.targets.kafka.raft_listener import answered_class, listener_class
from kspec.conformance.targets.kafka.raft_releases import line_of, resolve_jars
from kspec.conformance.targets.kafka.raft_timers import Timers
from kspec.conformance.targets.kafka.raft_wire import (
    API,
    _api_name,
    _dst,
    _jlist,
    _leader,
    _offset,
    answers,
    build_request,
    build_response,
    encode_payload,
    entries_of,
    make_log_proxy,
    make_store_proxy,
    request_json,
)
from kspec.model.raft.rule_sets import rule_set_for

ARTIFACTS = ["kafka-raft", "kafka-raft@test", "kafka-clients@test"]

MAX_POLLS = 16

# The VoteResponse errors Kafka's ``maybeHandleCommonResponse`` settles by the epoch (3.7-4.4):
# any other error is no vote and leaves the request to be sent again (RAFT-RULE-VOTE-ERROR).
_VOTE_ANSWERS = frozenset({"NONE", "FENCED_LEADER_EPOCH", "NOT_LEADER_OR_FOLLOWER", "UNKNOWN_LEADER_EPOCH"})


def check_supported(version: str) -> tuple[int, int]:
    """The version's (major, minor), or a one-line TargetError naming the KRaft lines the
    adapter knows (``raft_releases.LINES``)."""
    return line_of(version).line


class KafkaRaftNode(ClientBuild, Timers):
    """One replica: a ``KafkaRaftClient`` over Kafka's test doubles (see the module docstring).
    How the client is built for the release is :class:`ClientBuild`'s (``raft_client``); its
    timers and random draws are :class:`Timers`' (``raft_timers``); the messages' translation is
    ``raft_wire``'s; this class runs the event loop and reads the state back."""

    # Java objects, dropped (None) on close; the client's metrics exist once it has started.
    metrics: Any = None
    channel: Any = None
    queue: Any = None
    quorum: Any = None  # QuorumState, once the client is built
    _callbacks: list[Any]

    def __init__(self, java: _Java, node: int, voters: list[int], listening: bool = False) -> None:
        self.java = java
        self.listening = listening
        self.listener: Any = None
        self.id = node
        self.voters = sorted(int(v) for v in voters)
        self.is_voter = node in self.voters
        self.time = java.MockTime()
        self.inner_log = java.MockLog(java.tp, java.topic_id, java.log_context)
        self.log = make_log_proxy(java, self.inner_log)
        self.store = java.MockStore()
        # Kafka writes the quorum-state file through this proxy, so each write that changes it
        # is an output at the moment it happens, in order with the responses (RAFT-OBS-ORDER).
        on_write = weakref.WeakMethod(self._on_write)  # no cycle through the JVM (see _random)

        def wrote() -> None:
            method = on_write()
            if method is not None:
                method()

        self.store_proxy = make_store_proxy(java, self.store, wrote)
        self._written: tuple[int, int | None, int | None] = (0, None, None)
        self._commit_end: int | None = None  # where this step's last HandleCommit's range ends
        self.down = False
        self.client: Any = None
        self._pick: int | None = None  # the voter an observer's next bootstrap fetch goes to
        # Kafka's random draws of the election timeout and backoff: pinned (None) in the lockstep
        # runs; drawn from this source once the driver runs the clock (RAFT-LIVE-TIMED).
        self.jitter: random.Random | None = None
        # True keeps the draws pinned in the timed suffixes too: Kafka as a release without
        # jitter would be (tests/kafka/test_kafka_raft_liveness.py: 3.9 then livelocks).
        self.pinned_draws = False
        self.inbound: list[tuple[Any, dict[str, Any]]] = []
        self.outputs: list[dict[str, Any]] = []
        self._boot()
        self.outputs = []  # what a replica does while it starts is no step of the model

    # -------------------------------------------------------------- start

    def _boot(self) -> None:
        """Build and initialize a client over this replica's log and quorum-state store (a
        start or a restart: the log and the store are the durable part) and poll it quiet."""
        j = self.java
        raft_io.release(self.channel, self.queue)  # a restart: the crashed client's (4.4)
        self.channel = self._channel()
        self.queue = raft_io.queue() if j.line.futures else j.MockQueue()
        self.random = self._random()
        self.client = self._construct()
        self._initialize()
        if self.listening:
            # a state machine registers after initialize, as the broker's does (a new one at
            # every restart: it reads from offset 0 and knows no leader yet)
            self.listener = listener_class(j)(self)
            self.client.register(self.listener)
        self.quorum = j.f_quorum.get(self.client)
        self.requests = j.f_requests.get(self.client)
        self.reported: dict[tuple[int, str], Any] = {}  # (dst, api) -> the latest reported request
        self.held: dict[int, Any] = {}  # dst -> a Fetch Kafka sent that the model has not sent yet
        # dst -> a 3.9+ BeginQuorumEpoch heartbeat copy the model has not sent yet (D-RESEND)
        self.held_resends: dict[int, Any] = {}
        self._resend_to: int | None = None  # a heartbeat is being let out for this voter
        self._vote_retry: int | None = None  # the voter whose error answer Kafka takes as no vote
        self._pick = None
        self._settle()

    # -------------------------------------------------------------- the event loop

    def _settle(self) -> None:
        """Poll until the client is quiet: its queue is empty and a poll sent nothing and
        changed no state (a poll that changes the state may return at once and leave what the
        new state does to the next poll: 4.x's prospective to unattached to prospective)."""
        for k in range(MAX_POLLS):
            before = self._signature()
            self.client.poll()
            sent = list(self.channel.drainSendQueue())
            for req in sent:
                self._sent(req)
            if k > 0 and not sent and self.queue.isEmpty() and self._signature() == before:
                return
        raise TargetError(f"replica {self.id}: KafkaRaftClient did not settle within {MAX_POLLS} polls")

    def _signature(self) -> tuple[int, int, int]:
        """Which state object the quorum is in (a new one at every transition), and how many
        outputs there are (a listener told something may be told more at the next poll)."""
        q = self.quorum
        if q is None:
            return (0, 0, len(self.outputs))
        return (int(self.java.System.identityHashCode(self.java.f_state.get(q))), int(q.epoch()), len(self.outputs))

    def listened(self, note: dict[str, Any], end: int | None = None) -> None:
        """A listener callback (RAFT-OBS-LISTENER) as an output. Within one step, records
        delivered in several readers are one HandleCommit when contiguous (how Kafka batches
        them is no part of the contract), and a leaderless LeaderAndEpoch that another
        notification follows in the same step is dropped: the step is atomic in the model, and
        which intermediate states a poll of Kafka's event loop ends in is not the protocol's
        (RAFT-OBS-LISTENER-STEP). ``end``: where a HandleCommit's range ends when its entries do
        not say (3.3-3.5 leave control records out)."""
        notes = [o for o in self.outputs if str(o.get("type", "")).startswith("Handle")]
        last = notes[-1] if notes else None
        if note["type"] == "HandleCommit":
            ends = note["offset"] + len(note["entries"]) if end is None else end
            if last is not None and last["type"] == "HandleCommit" and self._commit_end == note["offset"]:
                last["entries"] = last["entries"] + note["entries"]
                self._commit_end = ends
                return
            self._commit_end = ends
        if note["type"] == "HandleLeaderChange":
            # (a commit delivered in between does not matter: the listener is told commits and
            # leaders in Kafka's order within the step, which the model does not order)
            self.outputs = [o for o in self.outputs
                            if not (o["type"] == "HandleLeaderChange" and o["leader"] is None
                                    and o["epoch"] <= note["epoch"])]
        self.outputs.append(note)

    def _sent(self, req: Any) -> None:
        """A request Kafka sent: a Fetch is held until FetchDue, anything else is an output."""
        dst = _dst(req)
        api = _api_name(self.java, req.data())
        if api == "FETCH":
            self.held[dst] = req
            return
        if api == "BEGIN_QUORUM_EPOCH" and self._resend_to is not None and (
                dst != self._resend_to or self._acknowledged(dst)):
            # 3.9+'s heartbeat goes to every ready voter at once; the model's resend to one
            # voter at a time is ResendDue(to): the other copies wait for theirs (spec/raft.md
            # D-RESEND), as a Fetch waits for FetchDue. A copy to a voter the leader records as
            # having acknowledged its epoch is no resend of any rule set (RAFT-RULE-RESEND) but
            # KAFKA-16536's heartbeat, the deviation raft-begin-epoch-heartbeat: held, never
            # reported, so a ResendDue at an acknowledged voter is judged on every line
            self.held_resends[dst] = req
            return
        if api == "VOTE" and dst == self._vote_retry:
            self.held_resends[dst] = req  # let out at ResendDue(dst), as a heartbeat copy is
            return
        self.reported[(dst, api)] = req
        self.outputs.append(request_json(self.java, self.id, dst, req.data()))

    def _expected(self, req: Any) -> bool:
        """Whether Kafka's request manager still awaits ``req`` (package-private, by reflection)."""
        if self.java.m_expected is None:  # 3.8+: public, by node
            return bool(self.requests.isResponseExpected(req.destination(), req.correlationId()))
        conn = self.requests.getOrCreate(_dst(req))
        return bool(self.java.m_expected.invoke(conn, self.java.boxed(req.correlationId(), "long")))

    def _fail(self, req: Any) -> None:
        """Complete an outbound request the way Kafka's network channel does for a lost
        connection (BROKER_NOT_AVAILABLE)."""
        j = self.java
        api = j.ApiKeys.forId(req.data().apiKey())
        data = j.RaftUtil.errorResponse(api, j.Errors.BROKER_NOT_AVAILABLE)
        self._complete(req, self._response(req.correlationId(), data, req))

    def _fetch_due(self, to: int) -> None:
        """Report Kafka's Fetch to ``to`` (see the module docstring). Where Kafka's role fetches
        from no voter, or from another one (``_fetches_from``), only a Fetch Kafka already sent
        to ``to`` is reported, and nothing is failed: the fetch in flight to the leader stays
        awaited (RAFT-DRIVE-FETCH-ELSEWHERE)."""
        if not self._fetches_from(to):
            self._report_held(to)
            return
        for _ in range(3):
            if self._report_held(to):
                return
            stale = [r for r in [*self.held.values(), *[r for (d, a), r in self.reported.items() if a == "FETCH"]]
                     if self._expected(r)]
            self.held = {}
            if not stale:
                return  # Kafka has no fetch to send now
            for r in stale:
                self._fail(r)
            self._pick = to
            self._settle()

    def _report_held(self, to: int) -> bool:
        """Report the Fetch Kafka sent to ``to`` and still awaits, if there is one."""
        req = self.held.get(to)
        if req is None or not self._expected(req):
            return False
        del self.held[to]
        self.reported[(to, "FETCH")] = req
        self.outputs.append(request_json(self.java, self.id, to, req.data()))
        return True

    def _fetches_from(self, to: int) -> bool:
        """Whether Kafka's role fetches from voter ``to`` at all (RAFT-RULE-FETCH-DUE): a follower
        from its leader (``pollFollower`` -> ``maybeSendFetchOrFetchSnapshot``), an observer that
        knows no leader from any voter (``pollUnattachedAsObserver`` / 3.8's voted observer ->
        ``maybeSendAnyVoterFetch``, the random pick steered to ``to``); a leader, resigned
        leader, candidate or prospective sends none (an unattached voter does in 3.9.1+,
        KAFKA-17030: the driver never asks it, RAFT-DRIVE-FETCH-ELSEWHERE). (A follower asks
        another voter only once its request to the leader timed out or backs off, or an
        observer's fetch timer expired: request timeout 10^9 ms, retry backoff 0 and the
        observer's fetch timer never fired keep that out of the lockstep, spec/raft.md
        RAFT-MODEL-ONE-FETCH.)"""
        q = self.quorum
        if self.down or q is None:
            return True
        if q.isFollower():
            # QuorumState.leaderIdOrSentinel: every line has it (3.8's FollowerState has no leaderId)
            return bool(int(q.leaderIdOrSentinel()) == to)
        return not self.is_voter

    def _resend_api(self) -> str | None:
        """The request Kafka's role sends again until answered (RAFT-RULE-RESEND), or None."""
        q = self.quorum
        if q.isLeader():
            return "BEGIN_QUORUM_EPOCH"
        if q.isResigned():
            return "END_QUORUM_EPOCH"
        if q.isCandidate() or (hasattr(q, "isProspective") and q.isProspective()):
            return "VOTE"
        return None

    def _resend_due(self, to: int) -> None:
        """Let Kafka send its role's request to ``to`` again (spec/raft.md D-RESEND).

        A copy held from an earlier 3.9+ heartbeat goes out as it is. Otherwise the request
        Kafka still awaits from ``to`` (the model lost it or its answer) is completed as a lost
        connection (BROKER_NOT_AVAILABLE, retry backoff 0), so the next poll sends it again:
        3.3-3.8 to the voters that have not acknowledged the leader, every line for Vote and
        EndQuorumEpoch. A 3.9+ leader sends BeginQuorumEpoch only when its heartbeat timer
        expires: the adapter expires that timer (no clock jump, so no other timer moves) and
        polls; the copies to other voters are held until their own ResendDue."""
        api = self._resend_api()
        if api is None:
            return
        held = self.held_resends.pop(to, None)
        if held is not None and _api_name(self.java, held.data()) == api and self._expected(held):
            if api == "BEGIN_QUORUM_EPOCH" and self._acknowledged(to):
                self.held_resends[to] = held  # the heartbeat to an acknowledged voter: held still
                return
            self.reported[(to, api)] = held
            self.outputs.append(request_json(self.java, self.id, to, held.data()))
            return
        req = self.reported.get((to, api))
        if req is not None and self._expected(req):
            self._fail(req)
        count = len(self.outputs)
        self._settle()
        timer_field = self.java.f_begin_epoch_timer
        if api != "BEGIN_QUORUM_EPOCH" or timer_field is None or len(self.outputs) > count:
            return
        timer = timer_field.get(self.quorum.leaderStateOrThrow())
        timer.update(self.time.milliseconds())
        timer.reset(0)
        self._resend_to = to
        try:
            self._settle()
        finally:
            self._resend_to = None

    def _acknowledged(self, voter: int) -> bool:
        """Whether Kafka's leader records ``voter`` as having acknowledged its epoch
        (``ReplicaState.hasAcknowledgedLeader``: a NONE BeginQuorumEpochResponse or a valid
        Fetch, the model's ``Leader.acknowledged``; what 3.3-3.8's ``nonAcknowledgingVoters``
        reads). False where this replica does not lead or ``voter`` has no voter state."""
        q = self.quorum
        if self.down or q is None or not q.isLeader():
            return False
        states = self.java.f_voter_states.get(q.leaderStateOrThrow())
        state = states.get(self.java.boxed(voter, "int"))
        return state is not None and bool(self.java.f_acknowledged.get(state))

    def _append(self, payload: list[int]) -> None:
        j = self.java
        if not self.quorum.isLeader():
            return  # Kafka: NotLeaderException; the model: nothing
        records = _jlist(j, [j.jpype.JString(encode_payload(payload))])
        epoch = int(self.quorum.epoch())
        if j.has_prepare:
            self.client.prepareAppend(epoch, records)
            self.client.schedulePreparedAppend()
        else:
            self.client.scheduleAppend(epoch, records)

    # -------------------------------------------------------------- state read back

    def election(self) -> tuple[int, int | None, int | None]:
        es = self.store.readElectionState()
        if es is not None and hasattr(es, "isPresent"):  # 3.8+: Optional<ElectionState>
            es = es.get() if es.isPresent() else None
        if es is None:
            return (0, None, None)
        epoch = es.epoch() if callable(es.epoch) else es.epoch
        voted = None
        if es.hasVoted():
            voted = int(es.votedId()) if hasattr(es, "votedId") else int(es.votedKey().id())
        if not es.hasLeader():
            return (int(epoch), voted, None)
        return (int(epoch), voted, _leader(int(es.leaderId())))  # 3.3-3.4 have no leaderIdOrSentinel

    def log_entries(self) -> list[dict[str, Any]]:
        end = _offset(self.inner_log.endOffset())
        if end == 0:
            return []
        info = self.log.read(0, self.java.Isolation.UNCOMMITTED, *self.java.read_limit)
        return [e for _, e in entries_of(self.java, info.records)]

    def role(self) -> str:
        q = self.quorum
        if self.down:
            return "down"
        if q.isLeader():
            return "leader"
        if q.isCandidate():
            return "candidate"
        if q.isFollower():
            return "follower"
        if q.isResigned():
            return "resigned"
        if hasattr(q, "isProspective") and q.isProspective():
            return "prospective"
        if hasattr(q, "isVoted") and q.isVoted():
            return "voted"
        if q.isUnattached():
            # 3.9+: Unattached with a voted key is the model's voted (D-VOTED)
            state = q.unattachedStateOrThrow()
            if hasattr(state, "votedKey") and state.votedKey().isPresent():
                return "voted"
            return "unattached"
        return f"kafka:{q}"

    def observation(self) -> dict[str, JSON]:
        epoch, voted, leader = self.election()
        hw: int | None = None
        if not self.down:
            opt = self.client.highWatermark()
            hw = int(opt.getAsLong()) if opt.isPresent() else None
        return {"role": self.role(), "epoch": epoch if self.down else int(self.quorum.epoch()),
                "leader": leader, "voted_for": voted,
                "log": [[e["epoch"], e["kind"]] for e in self.log_entries()], "high_watermark": hw}

    # -------------------------------------------------------------- the step

    def step(self, inp: JSON) -> StepResult:
        import jpype

        before_log = self.log_entries()
        self.outputs, self.inbound, self._callbacks = [], [], []
        try:
            self._dispatch(inp)
        except jpype.JException as err:
            # RAFT-OBS-EXCEPTION: Kafka's raft thread throws; the broker's fault handler stops the
            # process (KafkaRaftClientDriver). That is an output no protocol rule allows, so a
            # legal input that makes Kafka throw is a divergence naming the exception, not an
            # adapter error; the replica is down from here on.
            cls = str(err.getClass().getName())
            self.outputs.append({"type": "Halt", "exception": cls, "message": str(err.getMessage())})
            self.client, self.down = None, True
            # The replica stops where it threw: what it had appended stays, as the model keeps
            # it (spec/raft.md D-FLUSH: no unflushed suffix), an observer's too (``_stop_log``).
            self._stop_log(halted=True)
            return StepResult(self._effects(before_log) + self.outputs, self.observation())
        outputs = self._effects(before_log) + self.outputs
        self._note_check_period()
        return StepResult(outputs, self.observation())

    def _stop_log(self, halted: bool = False) -> None:
        """The log as the stopped process leaves it: ``MockLog.reopen()`` loses what was not
        flushed, which a voter must have flushed before it answered (RAFT-STATE-PERSISTED). An
        observer's log counts towards nothing, and Kafka's observers do not flush what they fetch
        (3.5+: ``appendAsFollower`` flushes at voters only, KAFKA-13884), so what one loses at a
        stop is refetched, not a protocol fact (the durability of an observer's log is not
        protocol): the model's crash loses nothing, and the adapter flushes an observer's log
        first. A Halt (``halted``, see ``step``) flushes every replica's log, and so does a Crash
        where ``_crash_may_lose()`` is false (the voters adapter's replicas)."""
        if halted or not self._crash_may_lose():
            self.inner_log.flush(False)
        self.inner_log.reopen()

    def _crash_may_lose(self) -> bool:
        """Whether a Crash may lose this replica's unflushed appends (``_stop_log``): a voter's."""
        return self.is_voter

    def _dispatch(self, inp: JSON) -> None:
        kind = inp["type"]
        if self.down:
            if kind == "Restart":
                self.down = False
                self._boot()
        elif kind == "Crash":
            self.client, self.down = None, True
            self._stop_log()
        elif kind == "Restart":
            pass
        elif kind.endswith("Request"):
            if kind == "EndQuorumEpochRequest":
                inp = {**inp, "preferred": self._successors(int(inp["src"]))}
            data = build_request(self.java, inp)
            req = self._request(data)
            self.inbound.append((req, inp))
            if self.java.line.futures:  # 4.4: handle returns the completion (KAFKA-20714)
                self._report_when_answered(self.client.handle(req), inp)
            else:
                self._report_when_answered(req.completion, inp)
                self.client.handle(req)
            self._settle()
        elif kind.endswith("Response"):
            self._deliver(inp)
            if kind == "VoteResponse" and inp.get("error", "NONE") not in _VOTE_ANSWERS:
                # RAFT-RULE-VOTE-ERROR: Kafka records no vote and its connection to the voter is
                # ready again (3.9+ INVALID_VOTER_KEY handled; 3.7 an unexpected error, retry
                # backoff 0), so the next poll asks again; the model sends it at ResendDue(src)
                self._vote_retry = int(inp["src"])
            try:
                self._settle()
            finally:
                self._vote_retry = None
        elif kind == "FetchDue":
            self._settle()
            self._fetch_due(int(inp["to"]))
        elif kind == "ResendDue":
            self._settle()
            self._resend_due(int(inp["to"]))
        elif kind == "ClientAppend":
            self._append(list(inp.get("payload") or []))
            self._settle()
        elif kind == "CheckQuorumTimeout" and self._check_period_renewed():
            # RAFT-RULE-CHECK-QUORUM-PERIOD: the period ends before Kafka's (reset) timer expires
            self._settle()
            self._begin_check_period()
        elif kind in ("ElectionTimeout", "BackoffExpired", "FetchTimeout", "CheckQuorumTimeout"):
            self._timer(kind)
            self._settle()
        else:
            raise TargetError(f"unknown input type {kind!r}")

    def _on_write(self) -> None:
        """Kafka wrote the quorum-state file: an output if the election state changed (Kafka
        rewrites it unchanged at some transitions; the model writes only a change)."""
        now = self.election()
        if now == self._written:
            return
        self._written = now
        write = {"type": "PersistElection", "epoch": now[0], "voted_for": now[1], "leader": now[2]}
        # nothing left between the two writes (RAFT-OBS-PERSIST); a listener callback is told
        # the local state machine, not a peer, so it does not separate them
        sent = [k for k, o in enumerate(self.outputs) if not str(o.get("type", "")).startswith("Handle")]
        if sent and self.outputs[sent[-1]]["type"] == "PersistElection":
            del self.outputs[sent[-1]]
        self.outputs.append(write)

    def _complete(self, req: Any, response: Any) -> None:
        """Complete the outbound request ``req`` with ``response`` (as Kafka's network channel)."""
        if self.java.line.futures:
            raft_io.complete(self.channel, req, response)
        else:
            req.completion.complete(response)

    def _report_when_answered(self, completion: Any, msg: dict[str, Any]) -> None:
        """The response to an inbound request becomes an output when Kafka completes it, so a
        write of the quorum state before it (a vote) shows before it."""
        callback = answered_class()(self, msg)
        self._callbacks.append(callback)
        completion.whenComplete(callback)


    def _successors(self, leader: int) -> list[int]:
        """The preferred successors this replica is told: the other voters, itself last.

        The model's EndQuorumEpoch names none (D-CHECK-QUORUM-SUCCESSORS). Kafka shortens the
        receiver's fetch timer by its place in the list, to zero for the first (or for a replica
        not in the list), so a zero timer would start the election inside the delivery step.
        Last place gives a positive timer, which the model's FetchTimeout then fires; Kafka's
        leader orders the list by fetch offset, so every order is one Kafka can send."""
        return [v for v in self.voters if v not in (leader, self.id)] + [self.id]

    def _deliver(self, msg: dict[str, Any]) -> None:
        j = self.java
        src, api = int(msg["src"]), API[msg["type"]]
        data = build_response(j, msg)
        req = self.reported.get((src, api))
        if req is not None and answers(request_json(self.java, self.id, _dst(req), req.data()), msg):
            self._complete(req, self._response(req.correlationId(), data, req))
        else:
            self.queue.add(self._response(-1, data, src))  # nothing asked: Kafka ignores it

    def _response(self, correlation: int, data: Any, source: Any) -> Any:
        """A ``RaftResponse.Inbound`` from ``source`` (an outbound request's destination, or an
        id); 3.8+ names the source by ``Node``."""
        j = self.java
        if j.response_by_node:
            node = source.destination() if not isinstance(source, int) else j.Node(source, "localhost", 9990 + source)
            return j.ResponseInbound(correlation, data, node)
        return j.ResponseInbound(correlation, data, source if isinstance(source, int) else _dst(source))

    def _request(self, data: Any) -> Any:
        """A ``RaftRequest.Inbound`` at the API's latest version (3.9+ also names the listener)."""
        j = self.java
        now = self.time.milliseconds()
        if j.request_with_listener:
            version = j.ApiKeys.forId(data.apiKey()).latestVersion()
            return j.Inbound(j.listener, 0, version, data, now)
        return j.Inbound(0, data, now)

    def _effects(self, log: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The log's change over the step (AppendLog, TruncateLog)."""
        out: list[dict[str, Any]] = []
        after = self.log_entries()
        common = 0
        while common < min(len(log), len(after)) and log[common] == after[common]:
            common += 1
        if common < len(log):
            out.append({"type": "TruncateLog", "offset": common})
        if common < len(after):
            out.append({"type": "AppendLog", "offset": common, "entries": after[common:]})
        return out

    def close(self) -> None:
        """Drop every Java object this replica holds, so the JVM frees them even while Python
        keeps this object (Hypothesis may): the client's metrics gauges reach its quorum state
        and the leader's 8 MB batch buffer, which soon fill a 256 MB heap otherwise."""
        if self.metrics is not None:
            self.metrics.close()
        raft_io.release(self.channel, self.queue)
        self.client = self.quorum = self.requests = self.channel = self.queue = self.random = None
        self.metrics = self.time = self.log = self.inner_log = self.store = self._draw_proxy = None
        self.reported, self.held, self.inbound, self._callbacks = {}, {}, [], []
        self.held_resends = {}
        self.store_proxy = self.listener = None


HEARTBEAT_HELD = ("KAFKA-16536's BeginQuorumEpoch heartbeat (3.9+) to a voter that acknowledged the epoch "
                  "(RAFT-RULE-RESEND): the adapter holds these copies, since no model variant predicts them "
                  "step for step (spec/raft.md D-RESEND); every resend the rule allows is judged")


def unjudged_for(version: str) -> dict[str, str]:
    """What ``kafka:VERSION``'s adapter holds without judging, by deviation name (``Target.unjudged``)."""
    return {"raft-begin-epoch-heartbeat": HEARTBEAT_HELD} if check_supported(version) >= (3, 9) else {}


class KafkaRaftTarget(Target):
    """``kafka:VERSION`` for raft: one :class:`KafkaRaftNode` per replica."""

    protocol = "raft"

    def __init__(self, version: str) -> None:
        vt = check_supported(version)
        jvm.check(version)
        jars = resolve_jars(version, ARTIFACTS)
        jvm.ensure(version, jars)
        self.version = version
        self.name = f"kafka:{version}"
        self.java = _Java(version, vt)
        # The release's rule set (spec/raft.md, "Rule sets"): kip-595 before 4.0, kip-996 from
        # 4.0 (pre-vote always on). A release picks its rules by its version and nothing else.
        # A real RaftClient.Listener on each replica (RAFT-OBS-LISTENER). 3.3-3.7.0 tell a
        # restarted replica's new listener nothing until its next transition: Kafka's doing
        # (KAFKA-16286, pollListeners applies registrations only), catalogued as
        # raft-new-listener-untold, not the adapter's (it registers after initialize, as the
        # broker does). 3.3-3.5 predate KAFKA-15345 (3.6.0): their handleCommit carries data
        # records only, the listener API of those releases ("data": ListenerRules.data_only), and
        # a leader is told it leads once its listener reached the epoch start, before the epoch
        # is committed, a bug the javadoc already ruled out (raft-leader-told-before-epoch-commits).
        # 3.7+ keep the check-quorum period (RAFT-RULE-CHECK-QUORUM-PERIOD: LeaderState's
        # checkQuorumTimer, reset by updateCheckQuorumForFollowingVoter, KAFKA-15489); 3.3-3.6 have
        # no check-quorum at all (raft-leader-never-resigns) and run without it.
        self.model_config = {**dict(rule_set_for(version).bounds), "listener": True if vt >= (3, 6) else "data",
                             **({"check_quorum_period": True} if vt >= (3, 7) else {})}
        self.unjudged = unjudged_for(version)

    def supports(self, config: dict[str, JSON]) -> bool:
        """The cluster shapes this Kafka can be compared on: those of the release's own rule
        set. A lone voter is one of them: it elects itself inside ``initialize()`` as the
        model's does (RAFT-RULE-LONE-VOTER), and its restart's two writes (candidate, then
        leader) are one output on both sides (RAFT-OBS-PERSIST)."""
        wanted = dict(rule_set_for(self.version).bounds)
        return all(config.get(k) == v for k, v in wanted.items())

    def start(self, node: int, config: dict[str, JSON]) -> KafkaRaftNode:
        replica = KafkaRaftNode(self.java, int(node), [int(v) for v in config["voters"]], bool(config.get("listener")))
        replica.check_quorum_period = bool(config.get("check_quorum_period"))  # RAFT-RULE-CHECK-QUORUM-PERIOD
        return replica

    def close(self) -> None:
        pass
