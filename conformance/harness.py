"""The lockstep harness: one protocol driver, one target, the model and the target side by side.

A *driver* knows one protocol: its configurations, the model's enabled actions in a state, the
node-level event an action gives (which node, which input, the model's outputs and the model's
observation after it), and the safety checks that can be evaluated on observations alone. A
:class:`Lockstep` session starts one target instance per node and feeds it those inputs; after
every step the target's outputs must equal the model's (as a multiset of JSON values; the
model's node step is deterministic), in the model's order where the protocol orders them (a
partial order declared as data: ``conformance/drivers/ordering.py``; divergence kind
``order``), the target's observation must equal the model's, and the
observed safety checks must hold. The first difference ends the session with a
:class:`Divergence`; a target that raises, hangs or answers malformed JSON ends it with a
:class:`TargetFailure` (verdict ``error``). Every step is recorded, so a counterexample file
can always be written, even for a session that ended in an error.

Replay (:func:`replay_steps`) feeds recorded inputs to a fresh target and compares with the
recorded model side, without the model: it reports the first divergence, step for step.
"""

from __future__ import annotations

import contextlib
import functools
import json
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kspec.conformance.adapters.base import JSON, Instance, Target, TargetError
from kspec.conformance.compare import _get, _key, _short, first_difference, order_violation
from kspec.conformance.driver import Driver, Event
from kspec.conformance.findings import Divergence, Finding, StepRecord, TargetFailure, norm
from kspec.conformance.guard import _Worker, call_with_timeout, check_result
from kspec.conformance.timelimit import TimeLimitReached

__all__ = ["DEFAULT_STEP_TIMEOUT", "JSON", "Divergence", "Driver", "Event", "Feeder", "Finding", "Lockstep",
           "ReplayResult", "StepRecord", "TargetFailure", "call_with_timeout", "check_result", "first_difference",
           "norm", "order_violation", "replay_steps"]

DEFAULT_STEP_TIMEOUT = 10.0
# A start may load classes, start a JVM or build a replica's log: on a loaded machine a Kafka
# target's first start took longer than the step timeout (session 26: "start of node 1: the
# target hung" under load, the usual verdict when rerun alone). Starts get at least this long.
START_TIMEOUT = 60.0


class Feeder:
    """Feeds node-level inputs to a target's instances and compares with the model side.

    Shared by the lockstep run (the model side computed now) and replay (read from a file).
    """

    def __init__(self, driver: Driver[Any], target: Target, step_timeout: float = DEFAULT_STEP_TIMEOUT) -> None:
        self.driver = driver
        self.target = target
        self.step_timeout = step_timeout
        self.steps: list[StepRecord] = []
        self.instances: dict[Any, Instance] = {}
        self.observations: dict[Any, JSON] = {}
        self.memory: dict[str, Any] = {}
        self._worker: _Worker | None = None
        self.finding: Finding | None = None
        # Called with every input fed (coverage counts input kinds; conformance/drivers/guide.py).
        self.on_input: Callable[[JSON], None] | None = None
        from kspec.conformance.drivers.ordering import rules_for

        self.order = rules_for(driver)
        for node in driver.nodes():
            self.instances[node] = self._call(functools.partial(target.start, node, driver.node_config(node)),
                                              0, f"start of node {node}", max(step_timeout, START_TIMEOUT))

    @property
    def worker(self) -> _Worker:
        if self._worker is None:
            self._worker = _Worker()
        return self._worker

    def _call(self, fn: Callable[[], Any], step: int, what: str, timeout: float | None = None) -> Any:
        in_main = threading.current_thread() is threading.main_thread()
        try:
            return call_with_timeout(fn, timeout or self.step_timeout, None if in_main else self.worker)
        except TimeoutError as err:
            self._worker = None  # a hung worker thread is abandoned
            self._fail(step, "timeout", f"{what}: the target hung ({err})")
        except TimeLimitReached as err:
            self._fail(step, "time_limit", f"{what}: {err}")
        except TargetError as err:
            self._fail(step, "target", f"{what}: {err}")
        except Exception as err:
            self._fail(step, "target", f"{what}: the target raised {type(err).__name__}: {err}")

    def _fail(self, step: int, field: str, detail: str) -> None:
        self.finding = Finding("error", step, field, detail)
        raise TargetFailure(self.finding)

    def _diverge(self, step: int, kind: str, field: str, detail: str) -> None:
        self.finding = Finding(kind, step, field, detail)
        raise Divergence(self.finding)

    def model_only(self, action: str) -> None:
        """A step that touches only the model (a dropped or duplicated message)."""
        self.steps.append(StepRecord(len(self.steps) + 1, action))

    def feed(self, action: str, node: Any, inp: JSON, model_outputs: JSON, model_observation: JSON,
             alternatives: JSON = None) -> None:
        """Give ``inp`` to ``node``'s instance and compare; raises Divergence or TargetFailure.
        ``alternatives``: other output lists the model allows at this step (Event.alternatives)."""
        index = len(self.steps) + 1
        record = StepRecord(index, action, node, norm(inp), norm(model_outputs), None, norm(model_observation),
                            model_alternatives=norm(list(alternatives)) if alternatives else None)
        self.steps.append(record)
        if self.on_input is not None:
            self.on_input(record.input)
        instance = self.instances[node]
        what = f"node {node} on {inp.get('type', '?') if isinstance(inp, dict) else '?'}"
        result = self._call(lambda: instance.step(record.input), index, what)
        try:
            outputs, observation = check_result(result)
        except TargetError as err:
            self._fail(index, "malformed", f"{what}: {err}")
        record.target_outputs, record.target_observation = outputs, observation
        self.observations[node] = observation
        self.compare(record)

    def compare(self, record: StepRecord) -> None:
        index = record.index
        relevant = self.driver.comparable_at(record.model_outputs)
        allowed = record.model_outputs or []
        expected = Counter(_key(relevant(o)) for o in allowed)
        actual = Counter(_key(relevant(o)) for o in record.target_outputs or [])
        for other in record.model_alternatives or []:
            # another answer the protocol allows (a re-asked vote granted again): judged as the model's
            if expected != actual and Counter(_key(relevant(o)) for o in other) == actual:
                allowed, expected = other, actual
        if expected != actual:
            missing = sorted((expected - actual).elements())
            extra = sorted((actual - expected).elements())
            kinds = sorted({json.loads(k)["type"] for k in [*missing, *extra]})
            detail = "; ".join(filter(None, [
                f"model sent {', '.join(_short(json.loads(m)) for m in missing)} that the target did not"
                if missing else "",
                f"target sent {', '.join(_short(json.loads(x)) for x in extra)} that the model does not allow"
                if extra else ""]))
            self._diverge(index, "outputs", "outputs." + "|".join(kinds), detail)
        broken = order_violation(self.order, allowed, record.target_outputs or [],
                                 lambda o: _key(relevant(o)), lambda o: self.driver.output_kind(record.node, o))
        if broken is not None:
            self._diverge(index, "order", *broken)
        violated = self.driver.observed_violation(record.node, record.input, self.observations, self.memory)
        if violated is not None:
            name, _, detail = violated.partition(": ")
            self._diverge(index, "property", name, detail or name)
        expected_obs, actual_obs = record.model_observation, record.target_observation
        expected_obs = self.driver.canonical_observation(record.input, expected_obs)
        actual_obs = self.driver.canonical_observation(record.input, actual_obs)
        where = first_difference(expected_obs, actual_obs)
        if where is not None:
            self._diverge(index, "observation", "observation" + (f".{where}" if where else ""),
                          f"model {_short(_get(expected_obs, where))}, "
                          f"target {_short(_get(actual_obs, where))}")

    def close(self) -> None:
        for inst in self.instances.values():
            # closing a broken target must not hide the finding
            with contextlib.suppress(BaseException):
                in_main = threading.current_thread() is threading.main_thread()
                call_with_timeout(inst.close, 2.0, None if in_main else self.worker)


class Lockstep(Feeder):
    """A lockstep run: the model state, its enabled actions by category, the target fed in step."""

    def __init__(self, driver: Driver[Any], target: Target, step_timeout: float = DEFAULT_STEP_TIMEOUT) -> None:
        super().__init__(driver, target, step_timeout)
        self.state = driver.init_state()
        self._candidates: dict[str, list[Any]] | None = None
        self._enabled: dict[str, list[tuple[Any, Any]]] = {}
        self._after: dict[int, Any] = {}
        self.taken: list[tuple[str, Any]] = []  # (category, action) of every step, in order
        # Called as (before, category, action, after) at every action (coverage of transitions).
        self.on_step: Callable[[Any, str, Any, Any], None] | None = None

    def candidates(self, category: str) -> list[Any]:
        """The driver's candidate actions of ``category`` now (not yet resolved)."""
        if self._candidates is None:
            self._candidates = {}
            for cat, action in self.driver.candidates(self.state):
                self._candidates.setdefault(cat, []).append(action)
        return self._candidates.get(category, [])

    def _resolved(self, action: Any) -> Any:
        """The state after ``action`` (None when the model does not enable it), resolved once
        per state."""
        key = id(action)  # candidates live as long as the state: identity is enough
        if key not in self._after:
            self._after[key] = self.driver.resolve(self.state, action)
        return self._after[key]

    def enabled(self, category: str) -> list[tuple[Any, Any]]:
        """The candidates of ``category`` that the model enables within its bounds now, each
        with the state after it: a rule whose category has nothing enabled is not offered, so
        no step of a run is spent on it."""
        found = self._enabled.get(category)
        if found is None:
            found = [(action, after) for action in self.candidates(category)
                     if (after := self._resolved(action)) is not None]
            self._enabled[category] = found
        return found

    def has_enabled(self, category: str) -> bool:
        """Whether ``category`` has an enabled action now (resolving candidates only until the
        first enabled one: Hypothesis asks this of many rules at every step)."""
        found = self._enabled.get(category)
        if found is not None:
            return bool(found)
        return any(self._resolved(action) is not None for action in self.candidates(category))

    def any_enabled(self, skipped: frozenset[str] = frozenset()) -> bool:
        """Whether some category other than ``skipped`` has an enabled action now."""
        return any(self.has_enabled(c) for c in self.driver.categories if c not in skipped)

    def apply(self, category: str, choice: int) -> bool:
        """Apply the ``choice``-th enabled action of ``category`` (modulo their number); False
        when none is enabled."""
        options = self.enabled(category)
        if not options:
            return False
        action, after = options[choice % len(options)]
        self.taken.append((category, action))
        self._step(action, after, category)
        return True

    def category_of(self, action: Any) -> str | None:
        """The category in which the model enables ``action`` now, or None."""
        return next((c for c in self.driver.categories if any(a == action for a, _ in self.enabled(c))), None)

    def take(self, category: str, action: Any) -> bool:
        """Apply ``action`` of ``category`` if the model enables it now; False when not (the
        minimiser replays a run with some actions left out)."""
        for candidate, after in self.enabled(category):
            if candidate == action:
                self.taken.append((category, candidate))
                self._step(candidate, after, category)
                return True
        return False

    def _step(self, action: Any, after: Any, category: str = "") -> None:
        before, self.state, self._candidates, self._enabled, self._after = self.state, after, None, {}, {}
        if self.on_step is not None:
            self.on_step(before, category, action, after)
        label = self.driver.describe(action)
        broken = self.driver.model_violation(before, action, after)
        if broken is not None:
            self.model_only(label)
            self._fail(len(self.steps), "model", f"the model itself violates {broken} (a kspec bug)")
        events = self.driver.events(before, action, after)
        if not events:
            self.model_only(label)
        try:
            for k, ev in enumerate(events):
                part = ev.label or ev.input.get("type")
                shown = label if len(events) == 1 else f"{label} [{k + 1}/{len(events)}: {part}]"
                self.feed(shown, ev.node, ev.input, ev.model_outputs, ev.model_observation, ev.alternatives)
        except TargetFailure as err:
            sends = self.driver.declinable.get(category)
            if sends is not None and err.finding.field in ("target", "malformed"):
                # a target written without these inputs learns how to decline them, not only that it failed
                err.finding.detail += (f" (an input of category {category!r}: {sends}; a target that does not"
                                       f" implement them declares unsupported = {{{category!r}}})")
            raise


@dataclass
class ReplayResult:
    """What replaying a counterexample against a target gave."""

    finding: Finding | None
    steps: list[StepRecord] = field(default_factory=list)


def replay_steps(driver: Driver[Any], target: Target, steps: list[StepRecord],
                 step_timeout: float = DEFAULT_STEP_TIMEOUT) -> ReplayResult:
    """Feed the recorded inputs to fresh instances; stop at the first divergence or error."""
    feeder: Feeder | None = None
    try:
        feeder = Feeder(driver, target, step_timeout)
        for rec in steps:
            if rec.input is None:
                feeder.model_only(rec.action)
            else:
                feeder.feed(rec.action, rec.node, rec.input, rec.model_outputs, rec.model_observation,
                            rec.model_alternatives)
    except (Divergence, TargetFailure) as err:
        return ReplayResult(err.finding, feeder.steps if feeder else [])
    finally:
        if feeder is not None:
            feeder.close()
    return ReplayResult(None, feeder.steps)
