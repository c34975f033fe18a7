"""Bounded liveness of a raft target (spec/raft.md §Liveness, RAFT-LIVE-TIMED).

The lockstep runs abstract time into timer events, so a target whose election timeouts or
backoffs cannot break symmetry (no jitter, a backoff that saturates) conforms step for step.
This check gives the timers their durations. After a run's fault phase, the faults stop and the
driver runs one clock for every replica (each instance a ``TimedInstance``):

1. everything in flight is delivered at once (RAFT-LIVE-ASSUME-TIMELY), down replicas restart;
2. every follower of a leader that leads its epoch fetches once per instant (heartbeats: its
   fetch timer and the leader's check-quorum timer are reset, RAFT-LIVE-ASSUME-DETECTOR);
3. otherwise the timers the model's suffix enables (``model.raft.liveness.RaftSuffix``) expire
   in the order of the target's deadlines: the clock moves to the earliest, and every timer due
   at that instant fires before any message is delivered (a tie is a ``Together`` step).

Every step is fed to the target in lockstep, as in a safety run. The fault phase may end with a
*symmetric split* (RAFT-LIVE-SPLIT-START): every voter's election-starting timer fires in the
same instant and the vote requests and answers are delivered together, so every candidate loses
in the same instant. An adversarial network reaches that (it delays the votes), and from there
only the target's random draws separate the candidates.

Verdicts, with the model's property names (``model.raft.liveness.RAFT_LIVENESS``), for the
bound ``ROUNDS`` election rounds of the release's longest timeout plus backoff:

- EventuallyStableLeader: a leader every voter follows in its epoch is reached within the bound
  and still holds after ``STAY_MS`` of heartbeats;
- NoElectionLivelock: elections stop starting within the bound;
- NotStuckCandidate / NotStuckProspective: no replica is a candidate (prospective) without a
  break for longer than the bound, and none waits on a timer the target does not run (the model
  waits for that timer; a target without one waits forever).

A violation's counterexample is the session's steps; when the model state and the target's
remaining timers repeat, the repeating cycle is marked (``loop_back``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from kspec.conformance.adapters.base import Target, TimedInstance
from kspec.conformance.harness import DEFAULT_STEP_TIMEOUT, Divergence, Lockstep, StepRecord, TargetFailure
from kspec.model.core.evolve import evolve as replace
from kspec.model.raft.epochs import map_epochs
from kspec.model.raft.liveness import RAFT_LIVENESS, RaftSuffix, stable_leader, starts_election
from kspec.model.raft.messages import (
    BackoffExpired,
    CheckQuorumTimeout,
    ElectionTimeout,
    FetchDue,
    FetchTimeout,
    ResendDue,
    Restart,
)
from kspec.model.raft.state import Candidate, Down, Follower, Leader, Prospective
from kspec.model.raft.system import Deliver, Fire, Raft

NAMES = tuple(p.name for p in RAFT_LIVENESS)
IDS = {p.name: p.id for p in RAFT_LIVENESS}

# The release timing the bound is derived from (Kafka's defaults, QuorumConfig): an election
# round lasts at most the longest election timeout (2 x quorum.election.timeout.ms) plus the
# longest backoff (quorum.election.backoff.max.ms; 4.1+ has none: a lost candidate waits for its
# election timer, which the first term covers).
ELECTION_TIMEOUT_MS = 1000
ELECTION_BACKOFF_MAX_MS = 1000
ROUND_MS = 2 * ELECTION_TIMEOUT_MS + ELECTION_BACKOFF_MAX_MS
# Rounds allowed after the last fault. A replica set whose draws are random loses ROUNDS split
# elections in a row with a probability below 10^-9 (three candidates drawing Kafka's binary
# exponential backoff tie with probability 1/4, 1/16, 1/64, ... per round).
ROUNDS = 8
BOUND_MS = ROUNDS * ROUND_MS
# (one round: longer than any election timeout plus backoff; Kafka 4.x followers send
# UpdateRaftVoter, which the model does not have, after three fetch timeouts, 6,000 ms)
STAY_MS = ROUND_MS
# How long a suffix without a stable leader runs: the stuck and livelock verdicts need time past the bound.
HORIZON_MS = 2 * BOUND_MS
# Steps a suffix may take (a timer that keeps expiring at once would stop the clock).
MAX_SUFFIX_STEPS = 5000
ELECTION_STARTERS = (ElectionTimeout, FetchTimeout, BackoffExpired)


@dataclass
class SuffixOutcome:
    """What one fault-free suffix showed."""

    verdicts: dict[str, str]  # property name -> holds | violated | not-checked
    detail: dict[str, str] = field(default_factory=dict)  # violated property -> why
    faults_stop: int = 0  # the last step of the fault phase
    loop_back: int | None = None  # the step the repeating cycle returns to
    loop_end: int | None = None  # the step that closes the cycle
    elections: int = 0
    milliseconds: int = 0
    saw_candidate: bool = False
    saw_prospective: bool = False
    idle: set[str] = field(default_factory=set)  # timers whose expiry the model ignores (RAFT-LIVE-TIMED-IDLE)


@dataclass
class SuffixReport:
    """The liveness verdicts of a conformance run (``--json`` ``liveness``), whichever
    protocol's suffixes gave them: a protocol's report sets the properties (``verdicts``,
    ``ids``), its non-vacuity counts (``witnesses``) and the summary ``line()`` prints."""

    verdicts: dict[str, str] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)
    suffixes: int = 0
    witnesses: dict[str, int] = field(default_factory=dict)
    reason: str = ""  # why not checked
    violation: SuffixOutcome | None = None
    seconds: float = 0.0  # wall time of the check
    cpu_seconds: float = 0.0  # the process's CPU time in it (an in-process JVM's threads included)
    error: Divergence | TargetFailure | None = None  # a divergence or target error inside a suffix (a safety finding)
    config: dict[str, Any] = field(default_factory=dict)
    steps: list[StepRecord] = field(default_factory=list)

    def to_json(self) -> dict[str, str]:
        return dict(self.verdicts)

    def summary(self) -> str:
        """What the suffixes were and what they reached, for ``line()``."""
        return f"{self.suffixes} suffixes"

    def line(self) -> str:
        if self.reason:
            return f"liveness: not checked ({self.reason})"
        shown = ", ".join(f"{n} {v}" for n, v in self.verdicts.items())
        return f"liveness ({self.summary()}): {shown}"


@dataclass
class LivenessReport(SuffixReport):
    """The raft liveness verdicts of a conformance run."""

    verdicts: dict[str, str] = field(default_factory=lambda: dict.fromkeys(NAMES, "not-checked"))
    ids: dict[str, str] = field(default_factory=lambda: dict(IDS))
    witnesses: dict[str, int] = field(default_factory=lambda: {"elections_after_faults": 0, "candidate": 0,
                                                               "prospective": 0, "split_resolved": 0})
    # The model variant the suffixes ran (an accepted deviation's, e.g. kafka-no-check-quorum)
    # and the timers it leaves idle: liveness is judged against those rules.
    variant: str = ""
    idle: set[str] = field(default_factory=set)

    def summary(self) -> str:
        against = ""
        if self.variant:
            against = f", judged against the model variant {self.variant}"
            if self.idle:
                against += f" ({', '.join(sorted(self.idle))} idle there)"
        return (f"{self.suffixes} timed suffixes, bound {BOUND_MS} ms after the last fault, "
                f"{self.witnesses['split_resolved']} symmetric splits resolved{against}")

    def merge(self, out: SuffixOutcome) -> None:
        self.suffixes += 1
        for name, v in out.verdicts.items():
            if v == "violated" or (v == "holds" and self.verdicts[name] == "not-checked"):
                self.verdicts[name] = v
        self.witnesses["elections_after_faults"] += out.elections > 0
        self.witnesses["candidate"] += out.saw_candidate
        self.witnesses["prospective"] += out.saw_prospective
        self.idle |= out.idle


class _Violated(Exception):
    pass


class TimedSuffix:
    """One fault-free suffix of a lockstep session (see the module docstring)."""

    def __init__(self, session: Lockstep) -> None:
        self.s = session
        self.model = session.driver.model
        self.suffix = RaftSuffix(self.model)
        self.now = 0
        self.seen: dict[Any, int] = {}
        self.since: dict[tuple[int, str], int] = {}
        self.late = 0  # elections started past the bound
        self.out = SuffixOutcome(verdicts=dict.fromkeys(NAMES, "not-checked"))
        if not self.model.pre_vote:
            self.out.verdicts.pop("NotStuckProspective")

    # ------------------------------------------------------------------ stepping

    def take(self, action: Any) -> bool:
        before = self.s.state
        after = self.suffix.next_state(before, action)
        if after is None:
            return False
        first = len(self.s.steps)
        self.s._step(action, after, "liveness")
        for rec in self.s.steps[first:]:
            rec.action += f" (t={self.now} ms)"
        if starts_election(before, action, after):
            self.out.elections += 1
            self.late += self.now > BOUND_MS
        self._roles(after)
        return True

    def _roles(self, state: Raft) -> None:
        for n in state.nodes:
            for role, cls in (("candidate", Candidate), ("prospective", Prospective)):
                key = (n.id, role)
                if isinstance(n.role, cls):
                    self.since.setdefault(key, self.now)
                    self.out.saw_candidate |= role == "candidate"
                    self.out.saw_prospective |= role == "prospective"
                else:
                    self.since.pop(key, None)

    def timed(self) -> dict[int, TimedInstance]:
        found: dict[int, TimedInstance] = {}
        for node, inst in self.s.instances.items():
            assert isinstance(inst, TimedInstance)
            found[node] = inst
        return found

    def settle(self) -> None:
        """Deliver everything in flight and restart the down replicas (no time passes)."""
        for _ in range(10_000):
            state = self.s.state
            acts = [a for a in self.suffix.actions(state)
                    if isinstance(a, Deliver) or (isinstance(a, Fire) and isinstance(a.input, Restart))]
            if not acts:
                return
            self.take(acts[0])
        raise _Violated("messages never stop: 10000 deliveries in one instant")

    def heartbeat(self) -> None:
        """Every follower of a leader that leads its epoch fetches once (RAFT-LIVE-ASSUME-DETECTOR)."""
        state = self.s.state
        for n in state.nodes:
            if not isinstance(n.role, Follower):
                continue
            lead = state.node(n.role.leader).role
            if not (isinstance(lead, Leader) and lead.epoch == n.role.epoch):
                continue
            fire = Fire(n.id, FetchDue(n.role.leader))
            if self.suffix.next_state(self.s.state, fire) is not None:
                self.take(fire)
                self.settle()

    def due_timers(self) -> list[Fire]:
        """The timers the model's suffix enables, less those whose expiry changes nothing in the
        model (RAFT-LIVE-TIMED-IDLE): under an accepted deviation's model variant a timer the
        release does not run is idle (``kafka-no-check-quorum``: a 3.3-3.6 leader has no
        check-quorum timer), so a target without it waits for nothing, and liveness is judged
        against the variant's rules, not the protocol's."""
        state = self.s.state
        here = self.suffix.canonical(state)
        due = []
        for t in self.suffix.actions(state):
            # (FetchDue and ResendDue are the adapters' cues to let a request out, not timers)
            if not isinstance(t, Fire) or isinstance(t.input, FetchDue | ResendDue | Restart):
                continue
            after = self.suffix.next_state(state, t)
            if after is None or self.suffix.canonical(after) == here:
                self.out.idle.add(type(t.input).__name__)
                continue
            due.append(t)
        return due

    def renew_check_quorum(self, leader: int) -> None:
        """RAFT-RULE-CHECK-QUORUM-PERIOD: where a majority fetched from ``leader`` within its
        current check-quorum period (the timer was reset then), the model's CheckQuorumTimeout
        ends that period and the leader leads on; it comes before the clock moves to the timer's
        expiry (no time passes: the reset timer has not expired), so the CheckQuorumTimeout at
        the expiry is the one that resigns."""
        fire = Fire(leader, CheckQuorumTimeout())
        after = self.suffix.next_state(self.s.state, fire)
        if after is not None and isinstance(after.node(leader).role, Leader):
            self.take(fire)

    def elapse(self, ms: int) -> None:
        for inst in self.timed().values():
            inst.elapse(ms)
        self.now += ms

    # ------------------------------------------------------------------ the fault phase's end

    def lost(self) -> None:
        """RAFT-LIVE-LOST-START: as the split, but the fault phase ends by losing every message
        in flight, so every replica that stood waits for its own timer (the one a target may
        never have scheduled)."""
        self.split(deliver=False)
        for _ in range(10_000):
            drops = [a for a in self.model.actions(self.s.state) if type(a).__name__ == "Drop"]
            if not drops:
                return
            after = self.model.next_state(self.s.state, drops[0])
            if after is None:
                return
            self.s._step(drops[0], after, "liveness")

    def split(self, deliver: bool = True) -> None:
        """RAFT-LIVE-SPLIT-START: every voter's election-starting timer fires in one instant
        (on the instances' clocks too), a leader's check-quorum timer first (its followers have
        just stood, so it resigns), then the votes are delivered together."""
        self.settle()
        stood: set[int] = set()
        for _ in range(3):  # followers stand; the leader resigns; the resigned leader stands
            for n in self.s.state.nodes:
                if isinstance(n.role, Down) or n.id not in n.voters or n.id in stood:
                    continue
                for inp in (ElectionTimeout(), FetchTimeout(), BackoffExpired(), CheckQuorumTimeout()):
                    fire = Fire(n.id, inp)
                    if isinstance(inp, CheckQuorumTimeout):
                        self.renew_check_quorum(n.id)
                    if self.suffix.next_state(self.s.state, fire) is None:
                        continue
                    left = self.timed()[n.id].timers().get(type(inp).__name__)
                    if left:
                        self.timed()[n.id].elapse(left)
                    self.take(fire)
                    if not isinstance(inp, CheckQuorumTimeout):
                        stood.add(n.id)
                    break
        if deliver:
            self.settle()

    # ------------------------------------------------------------------ the suffix

    def run(self) -> SuffixOutcome:
        self.out.faults_stop = len(self.s.steps)
        try:
            self._run()
        except _Violated as why:
            for name in list(self.out.verdicts):
                if self.out.verdicts[name] == "not-checked":
                    self._violate(name, str(why))
        self.out.milliseconds = self.now
        return self.out

    def _violate(self, name: str, why: str) -> None:
        if name in self.out.verdicts and self.out.verdicts[name] != "violated":
            self.out.verdicts[name] = "violated"
            self.out.detail[name] = why

    def _hold(self, *names: str) -> None:
        for name in names:
            if self.out.verdicts.get(name) == "not-checked":
                self.out.verdicts[name] = "holds"

    def _run(self) -> None:
        self._roles(self.s.state)
        stable_at: int | None = None
        first = len(self.s.steps)
        while True:
            if len(self.s.steps) - first > MAX_SUFFIX_STEPS:
                raise _Violated(f"{MAX_SUFFIX_STEPS} steps after the last fault within {self.now} ms and no stable "
                                "leader: timers that expire at once, over and over")
            self.settle()
            self.heartbeat()
            state = self.s.state
            self._check_stuck()
            if stable_leader(state):
                if stable_at is None:
                    stable_at = self.now
            elif stable_at is not None:
                self._violate("EventuallyStableLeader", f"the stable leader was lost {self.now - stable_at} ms "
                              "after it was reached, without a fault")
                stable_at = None
            if stable_at is not None and self.now - stable_at >= STAY_MS:
                if self.late:
                    self._violate("NoElectionLivelock", f"{self.late} elections started more than {BOUND_MS} ms "
                                  f"after the last fault ({self.out.elections} in all)")
                self._hold(*NAMES)
                return
            if stable_at is None and self.now > BOUND_MS:
                self._violate("EventuallyStableLeader", f"no stable leader {BOUND_MS} ms ({ROUNDS} election rounds "
                              f"of {ROUND_MS} ms) after the last fault; {self.out.elections} elections started")
            if self.now > HORIZON_MS:
                if self.late:
                    self._violate("NoElectionLivelock", f"{self.late} elections started more than {BOUND_MS} ms "
                                  f"after the last fault ({self.out.elections} in all)")
                self._hold(*NAMES)
                return
            insts = self.timed()
            left: list[tuple[int, Fire]] = []
            for t in self.due_timers():
                kind = type(t.input).__name__
                remaining = insts[t.node].timers().get(kind)
                node = state.node(t.node)
                if remaining is None and node.id not in node.voters:
                    continue  # an observer's timer decides nothing here
                if remaining is None:
                    role = node.role
                    why = (f"replica {t.node} ({type(role).__name__.lower()}, epoch {node.epoch}) waits for its "
                           f"{kind}, but the target runs no such timer: it waits forever")
                    if isinstance(role, Candidate):
                        self._violate("NotStuckCandidate", why)
                    if isinstance(role, Prospective):
                        self._violate("NotStuckProspective", why)
                    if stable_at is None:
                        self._violate("EventuallyStableLeader", why)
                    self.out.loop_back = len(self.s.steps)  # it stutters there forever
                    self._hold("NoElectionLivelock")
                    return
                left.append((remaining, t))
            if not left:
                if stable_at is None:
                    raise _Violated("no timer runs and no message is in flight: nothing will ever happen")
                self.elapse(ELECTION_TIMEOUT_MS // 2)  # a stable leader: heartbeats while time passes
                continue
            clocks = tuple(sorted((t.node, type(t.input).__name__, r) for r, t in left))
            key = (epoch_ranks(self.suffix.canonical(state)), clocks)
            earlier = self.seen.get(key)
            if earlier is not None and self.out.loop_back is None:
                self.out.loop_back, self.out.loop_end = earlier, len(self.s.steps)
            self.seen[key] = len(self.s.steps)
            dt = min(r for r, _ in left)
            if stable_at is not None:
                dt = min(dt, ELECTION_TIMEOUT_MS // 2)
            elif self.now + dt > BOUND_MS:
                # the next thing to happen comes after the bound: judge at that instant
                self._check_stuck(self.now + dt)
                self._violate("EventuallyStableLeader", f"no stable leader {BOUND_MS} ms ({ROUNDS} election "
                              f"rounds of {ROUND_MS} ms) after the last fault; {self.out.elections} elections "
                              f"started, the next timer expires at {self.now + dt} ms")
            for r, t in left:
                if r == dt and isinstance(t.input, CheckQuorumTimeout):
                    self.renew_check_quorum(t.node)
            self.elapse(dt)
            for r, t in left:  # every timer due now fires before any delivery (a tie: together)
                if r == dt:
                    self.take(t)

    def _check_stuck(self, now: int | None = None) -> None:
        now = self.now if now is None else now
        for (node, role), since in self.since.items():
            if now - since > BOUND_MS:
                name = "NotStuckCandidate" if role == "candidate" else "NotStuckProspective"
                self._violate(name, f"replica {node} is {role} for {now - since} ms after the last fault "
                              f"(bound {BOUND_MS} ms)")


def epoch_ranks(state: Raft) -> Raft:
    """``state`` with every epoch (replica, message and log epochs alike; 0, "no epoch", stays)
    replaced by its rank among them: an election round that repeats with every epoch one
    higher gives the same key (the cycle shown in a counterexample, RAFT-LIVE-TIMED-CYCLE)."""
    found: set[int] = set()

    def collect(epoch: int) -> int:
        found.add(epoch)
        return epoch

    # The same walk that renumbers them finds them (a map that changes nothing).
    map_epochs(state.nodes, collect, _EPOCH_FIELDS)
    map_epochs(state.network, collect, _EPOCH_FIELDS)
    rank = {e: k + 1 for k, e in enumerate(sorted(found - {0}))}
    rank[0] = 0
    return replace(state, nodes=map_epochs(state.nodes, rank.__getitem__, _EPOCH_FIELDS),
                   network=map_epochs(state.network, rank.__getitem__, _EPOCH_FIELDS))


_EPOCH_FIELDS = frozenset({"epoch", "last_epoch", "last_fetched_epoch", "told_epoch"})  # told_epoch: the listener's


# ---------------------------------------------------------------------- the check


def _prefix(session: Lockstep, rng: random.Random, steps: int) -> None:
    """A random fault phase: ``steps`` enabled actions of the driver's categories, none of a
    category the target declines (``Target.unsupported``: a replica without the leader-only
    RPCs was sent them here) and no fetch due elsewhere (RAFT-DRIVE-FETCH-ELSEWHERE: it changes
    nothing, as the idle timers)."""
    declined = frozenset(session.target.unsupported)
    categories = [c for c in session.driver.categories if c not in ("inject", "idle_timer", "idle_fetch")
                  and c not in declined]
    for _ in range(steps):
        live = [c for c in categories if session.has_enabled(c)]
        if not live:
            return
        session.apply(rng.choice(live), rng.randrange(1 << 16))


# How a suffix's fault phase ends, in turn: a symmetric split, every vote lost, or as it was.
STARTS = ("split", "lost", "as-is")


def check_suffix(session: Lockstep, *, prefix: int, start: str, rng: random.Random) -> SuffixOutcome | None:
    """One fault phase of ``prefix`` random steps in ``session`` ending as ``start`` says (one
    of ``STARTS``), then the timed suffix; None when the target's instances report no timers."""
    if not all(isinstance(i, TimedInstance) for i in session.instances.values()):
        return None
    _prefix(session, rng, prefix)
    suffix = TimedSuffix(session)
    if start == "split":
        suffix.split()
    elif start == "lost":
        suffix.lost()
    return suffix.run()


def check_liveness(spec: Any, target: Target, configs: list[dict[str, Any]], *, seed: int = 0, runs: int = len(STARTS),
                   prefix: int = 12, step_timeout: float = DEFAULT_STEP_TIMEOUT) -> LivenessReport:
    """The liveness verdicts of ``target``: ``runs`` suffixes per cluster shape with more than
    one voter (:func:`shapes`), their fault phases ending in turn as ``STARTS`` says.
    Stops at the first violation (its session is the counterexample). A divergence or error
    inside a suffix is a safety finding: ``error``, with the session's steps."""
    report = LivenessReport()
    started, cpu = time.perf_counter(), time.process_time()
    try:
        _check_all(report, spec, target, configs, random.Random(seed), runs, prefix, step_timeout)
    finally:
        report.seconds = time.perf_counter() - started
        report.cpu_seconds = time.process_time() - cpu
    return report


def shapes(configs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One configuration per cluster shape with more than one voter (``faults`` only shapes the
    random fault phase: the one with faults is kept, its fault phases are richer)."""
    chosen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for config in configs:
        if int(config.get("voters", 1)) < 2:
            continue
        key = tuple(sorted((k, repr(v)) for k, v in config.items() if k != "faults"))
        if key not in chosen or (config.get("faults") and not chosen[key].get("faults")):
            chosen[key] = config
    return list(chosen.values())


def _check_all(report: LivenessReport, spec: Any, target: Target, configs: list[dict[str, Any]],
               rng: random.Random, runs: int, prefix: int, step_timeout: float) -> None:
    for config in shapes(configs):
        for k in range(runs):
            session: Lockstep | None = None
            try:
                session = Lockstep(spec.driver(config), target, step_timeout)
                out = check_suffix(session, prefix=prefix, start=STARTS[k % len(STARTS)], rng=rng)
            except (Divergence, TargetFailure) as err:
                report.error, report.config = err, dict(config)
                report.steps = session.steps if session is not None else []
                return
            finally:
                if session is not None:
                    session.close()
            report.variant = str(config.get("model_variant") or "")
            if out is None:
                report.reason = "the target's instances report no timers (no TimedInstance)"
                return
            report.merge(out)
            if STARTS[k % len(STARTS)] == "split" and out.verdicts.get("EventuallyStableLeader") == "holds":
                report.witnesses["split_resolved"] += 1
            if "violated" in out.verdicts.values():
                report.violation, report.config = out, dict(config)
                # The steps up to the end of the first repeating cycle show it all.
                report.steps = session.steps[:out.loop_end] if out.loop_end else session.steps
                return


def violated(report: LivenessReport) -> Iterator[str]:
    yield from (n for n, v in report.verdicts.items() if v == "violated")


__all__ = ["BOUND_MS", "IDS", "NAMES", "ROUNDS", "Divergence", "LivenessReport", "SuffixOutcome", "TargetFailure",
           "TimedSuffix", "check_liveness", "check_suffix", "violated"]
