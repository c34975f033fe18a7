"""Bounded liveness of a voters target (spec/voters.md §Liveness, VOTERS-LIVE-SUFFIX-CONFORM).

The lockstep runs stop wherever Hypothesis stops them, mostly with a reconfiguration half done.
This check, run when the voters runs conform (replica level), ends a run's fault phase with an
accepted AddVoter or RemoveVoter whenever a leader takes one, stops the faults, and drives the
cluster on under the model's suffix (``model.voters.liveness.VotersSuffix``: no faults and no
new reconfiguration; RAFT-LIVE-ASSUME-TIMELY and -DETECTOR), every step fed to the target in
lockstep as in a safety run:

1. everything in flight is delivered and down replicas restart;
2. otherwise the enabled fetch or timer taken least recently goes next (fetches first among
   equals): a scheduler that serves every enabled action in turn is fair.

Verdict, with the model's property name (``VOTERS_LIVENESS``): ReconfigurationCompletes holds
when no VotersRecord is left above its leader's high watermark within ``MAX_SUFFIX_STEPS``;
violated otherwise (the counterexample is the session's steps). The verdict is on the model's
state, and the target took every step with it: a target that does not complete the change the
way the model does diverges on the way (a safety finding inside the suffix: ``error``).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from kspec.conformance.adapters.base import Target
from kspec.conformance.drivers.raft_liveness import SuffixOutcome, SuffixReport
from kspec.conformance.harness import DEFAULT_STEP_TIMEOUT, Divergence, Lockstep, TargetFailure
from kspec.model.raft.messages import FetchDue, Restart
from kspec.model.raft.system import Deliver, Fire
from kspec.model.voters.liveness import VOTERS_LIVENESS, VotersSuffix, pending_changes

NAMES = tuple(p.name for p in VOTERS_LIVENESS)
IDS = {p.name: p.id for p in VOTERS_LIVENESS}
NAME = "ReconfigurationCompletes"

# Steps the suffix may take before a pending change counts as stuck: a change needs one fetch
# round per follower to replicate and one to learn the high watermark, and an election (a
# handful of steps per voter) if its leader resigned; a few hundred is far past that.
MAX_SUFFIX_STEPS = 400
# How a suffix's fault phase ends, in turn: with a change the leader just accepted (its
# VotersRecord uncommitted), the same with every message in flight lost, or as it was.
STARTS = ("pending", "pending-lost", "as-is")


@dataclass
class ReconfigReport(SuffixReport):
    """The voters liveness verdicts of a conformance run (``--json`` ``liveness``)."""

    verdicts: dict[str, str] = field(default_factory=lambda: dict.fromkeys(NAMES, "not-checked"))
    ids: dict[str, str] = field(default_factory=lambda: dict(IDS))
    # Non-vacuity: suffixes that start with a change pending, and those in which it completed.
    witnesses: dict[str, int] = field(default_factory=lambda: {"pending_at_start": 0, "completed": 0})

    def summary(self) -> str:
        return (f"{self.suffixes} fault-free suffixes of up to {MAX_SUFFIX_STEPS} steps, "
                f"{self.witnesses['pending_at_start']} starting with a change pending, "
                f"{self.witnesses['completed']} completed")


class ReconfigSuffix:
    """One fault-free suffix of a voters lockstep session (see the module docstring)."""

    def __init__(self, session: Lockstep) -> None:
        self.s = session
        self.suffix = VotersSuffix(session.driver.model)
        self.turn = 0
        self.last: dict[Any, int] = {}  # action -> the turn it was last taken
        self.out = SuffixOutcome(verdicts=dict.fromkeys(NAMES, "not-checked"))

    def take(self, action: Any) -> bool:
        after = self.suffix.next_state(self.s.state, action)
        if after is None:
            return False
        self.s._step(action, after, "liveness")
        return True

    def run(self) -> SuffixOutcome:
        self.out.faults_stop = len(self.s.steps)
        start = pending_changes(self.s.state)
        self.out.saw_candidate = bool(start)  # (reused: a change was pending when faults stopped)
        for _ in range(MAX_SUFFIX_STEPS):
            if not pending_changes(self.s.state):
                self.out.verdicts[NAME] = "holds"
                return self.out
            if not self._next():
                break
        left = sorted(map(str, pending_changes(self.s.state)))
        if left:
            self.out.verdicts[NAME] = "violated"
            self.out.detail[NAME] = (f"VotersRecord (offset, entry) {', '.join(left)} still above its leader's high "
                                     f"watermark {len(self.s.steps) - self.out.faults_stop} steps after the last fault"
                                     + ("" if self._enabled() else ": nothing is enabled"))
            self.out.loop_back = len(self.s.steps)
        else:
            self.out.verdicts[NAME] = "holds"
        return self.out

    def _enabled(self) -> list[Any]:
        state = self.s.state
        return [a for a in self.suffix.actions(state) if self.suffix.next_state(state, a) is not None]

    def _next(self) -> bool:
        acts = self._enabled()
        if not acts:
            return False
        urgent = [a for a in acts if isinstance(a, Deliver) or (isinstance(a, Fire) and isinstance(a.input, Restart))]
        if urgent:
            return self.take(urgent[0])
        # The least recently taken of the rest (a fair scheduler): fetches before timers.
        self.turn += 1
        chosen = min(acts, key=lambda a: (self.last.get(a, -1), not (isinstance(a, Fire) and
                                                                      isinstance(a.input, FetchDue))))
        self.last[chosen] = self.turn
        return self.take(chosen)


def _prefix(session: Lockstep, rng: random.Random, steps: int) -> None:
    """A random fault phase of the driver's categories (not the off-protocol ones)."""
    categories = [c for c in session.driver.categories if c not in ("inject", "idle", "request", "pending", "opening")]
    if session.has_enabled("opening"):
        session.apply("opening", 0)
    for _ in range(steps):
        live = [c for c in categories if session.has_enabled(c)]
        if not live:
            return
        session.apply(rng.choice(live), rng.randrange(1 << 16))


def _end_pending(session: Lockstep, rng: random.Random, lose: bool) -> None:
    """End the fault phase with an accepted reconfiguration, when a leader takes one (deliveries
    and fetches first, so that a leader is known), and optionally lose every message in flight."""
    for _ in range(40):
        if pending_changes(session.state) or session.has_enabled("reconfig"):
            break
        for category in ("deliver", "fetch", "timer"):
            if session.has_enabled(category):
                session.apply(category, rng.randrange(1 << 16))
                break
        else:
            break
    if not pending_changes(session.state) and session.has_enabled("reconfig"):
        session.apply("reconfig", rng.randrange(1 << 16))
    if lose:
        model = session.driver.model
        for _ in range(1000):
            drops = [a for a in model.actions(session.state) if type(a).__name__ == "Drop"]
            after = model.next_state(session.state, drops[0]) if drops else None
            if after is None:
                return
            session._step(drops[0], after, "liveness")


def check_liveness(spec: Any, target: Target, configs: list[dict[str, Any]], *, seed: int = 0,
                   runs: int = len(STARTS), prefix: int = 8,
                   step_timeout: float = DEFAULT_STEP_TIMEOUT) -> ReconfigReport:
    """The voters liveness verdict of ``target``: ``runs`` suffixes per replica-level cluster
    shape, their fault phases ending in turn as ``STARTS`` says; stops at the first violation or
    divergence (its session is the counterexample)."""
    report = ReconfigReport()
    started, cpu = time.perf_counter(), time.process_time()
    rng = random.Random(seed)
    try:
        chosen = _shapes(configs)
        if not chosen:
            report.reason = "no replica-level configuration ran"
        for config in chosen:
            for k in range(runs):
                if not _one(report, spec, target, config, rng, STARTS[k % len(STARTS)], prefix, step_timeout):
                    return report
    finally:
        report.seconds = time.perf_counter() - started
        report.cpu_seconds = time.process_time() - cpu
    return report


def _shapes(configs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    chosen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for config in configs:
        if config.get("level", "replica") != "replica":
            continue
        key = tuple(sorted((k, repr(v)) for k, v in config.items() if k != "faults"))
        if key not in chosen or (config.get("faults") and not chosen[key].get("faults")):
            chosen[key] = config
    return list(chosen.values())


def _one(report: ReconfigReport, spec: Any, target: Target, config: dict[str, Any], rng: random.Random,
         start: str, prefix: int, step_timeout: float) -> bool:
    session: Lockstep | None = None
    try:
        session = Lockstep(spec.driver(config), target, step_timeout)
        _prefix(session, rng, prefix)
        if start != "as-is":
            _end_pending(session, rng, lose=start == "pending-lost")
        out = ReconfigSuffix(session).run()
    except (Divergence, TargetFailure) as err:
        report.error, report.config = err, dict(config)
        report.steps = session.steps if session is not None else []
        return False
    finally:
        if session is not None:
            session.close()
    report.suffixes += 1
    report.witnesses["pending_at_start"] += out.saw_candidate
    report.witnesses["completed"] += out.saw_candidate and out.verdicts[NAME] == "holds"
    for name, v in out.verdicts.items():
        if v == "violated" or (v == "holds" and report.verdicts[name] == "not-checked"):
            report.verdicts[name] = v
    if out.verdicts[NAME] == "violated":
        report.violation, report.config, report.steps = out, dict(config), list(session.steps)
        return False
    return True


__all__ = ["IDS", "NAMES", "ReconfigReport", "check_liveness"]
