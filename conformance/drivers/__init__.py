"""Hypothesis state machines that run the model and a target in lockstep, per protocol.

:func:`lockstep_machine` builds a ``RuleBasedStateMachine`` from a protocol's driver: an
``initialize`` rule draws a cluster configuration, one rule per action category draws among
the model's enabled actions of that category (preconditions, never ``assume``), and the harness checks the
target after every step. :data:`PROTOCOLS` names the drivers.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from hypothesis import reject
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from kspec.conformance import protocols
from kspec.conformance.adapters.base import Target
from kspec.conformance.driver import Driver
from kspec.conformance.harness import DEFAULT_STEP_TIMEOUT, JSON, Lockstep, TargetFailure

CHOICE = st.integers(0, 255)


@dataclass(frozen=True)
class ProtocolSpec:
    """A protocol the conformance suite drives: its driver factory and configurations."""

    name: str
    driver: type[Driver[Any]]
    configs: list[dict[str, JSON]]


class _Specs(Mapping[str, Callable[[], ProtocolSpec]]):
    """The protocols with a conformance driver, as ``conformance/protocols.py`` declares them:
    ``PROTOCOLS[name]()`` imports the driver and its configurations."""

    def _names(self) -> list[str]:
        return protocols.conformance_names()

    def __getitem__(self, name: str) -> Callable[[], ProtocolSpec]:
        if name not in self._names():
            raise KeyError(name)
        declared = protocols.get(name)
        return lambda: ProtocolSpec(name, declared.driver_class(), declared.driver_configs())

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


PROTOCOLS: Mapping[str, Callable[[], ProtocolSpec]] = _Specs()


@dataclass
class RunLog:
    """What the machine runs leave behind: the last session and the last failing one."""

    runs: int = 0
    current: Lockstep | None = None
    failed: Lockstep | None = None
    # The last session that diverged (failed holds a target failure after it, when the target
    # hung or crashed while Hypothesis was shrinking that divergence).
    diverged: Lockstep | None = None
    # The target failure that ended a Hypothesis run. It leaves Hypothesis at once (a
    # BaseException), but on the way out Hypothesis checks the run's choices against the runs
    # before, and when an earlier run went on drawing past the failed step (a shared prefix: a
    # new run's, or a replay while shrinking) it raises FlakyStrategyDefinition in its place.
    aborted: TargetFailure | None = None
    config: dict[str, JSON] = field(default_factory=dict)
    on_run: Callable[[int], None] | None = None
    started: float = field(default_factory=time.perf_counter)
    first_found: float | None = None  # seconds to the first failing run (before shrinking)
    first_steps: int | None = None  # that run's steps
    first_runs: int | None = None  # runs until (and with) the first failing one
    # Configurations the target refused at start (a one-line reason each): skipped, counted.
    refused: dict[str, str] = field(default_factory=dict)
    # Hooks a run's sessions report to (conformance/drivers/guide.py Coverage), if any.
    coverage: Any = None
    runs_before: int = 0  # runs of an earlier phase (guided paths) counted into first_runs
    generated: int = 0  # runs that started (a refused configuration's are not), shrinking's too


def config_key(config: dict[str, JSON]) -> str:
    """A configuration as a stable string (coverage and refusals are kept per configuration)."""
    return json.dumps(config, sort_keys=True, default=str)


def attach(session: Lockstep, log: RunLog, config: dict[str, JSON]) -> None:
    """Let ``log.coverage`` see the session's actions and inputs."""
    cov = log.coverage
    if cov is None:
        return
    key = config_key(config)
    driver = session.driver
    session.on_step = lambda before, category, action, after: cov.on_step(driver, key, before, category, action,
                                                                          after)
    session.on_input = cov.on_input


def is_refusal(err: TargetFailure) -> bool:
    """Whether a target failure happened at start, before any step (a refused configuration:
    a level it does not serve, a setting it does not implement)."""
    finding = err.finding
    return finding.kind == "error" and finding.step == 0 and finding.field == "target"


def unsupported_categories(target: Target) -> frozenset[str]:
    """The action categories ``target`` declares it does not implement (``target.unsupported``)."""
    return frozenset(target.unsupported)


def target_configs(spec: ProtocolSpec, target: Target) -> list[dict[str, JSON]]:
    """The configurations a run of ``target`` draws from: a target that declares a ``level``
    (voters: ``replica`` or ``log``) is driven at that level, which the configuration (and so
    the counterexample file) records."""
    level = target.level
    return spec.configs if level is None else [{**c, "level": level} for c in spec.configs]


def supported_configs(configs: list[dict[str, JSON]], target: Target) -> list[dict[str, JSON]]:
    """The configurations ``target`` takes (``target.supports(config)``; mm2: a Kafka release
    keeps its own internal-topic rule, a user's policy class has one policy kind); all of them
    when it declares nothing or takes none, so that the target itself says why at start. A
    target's ``model_config`` is added to each (share: ``kafka:VERSION`` runs its release's rules)."""
    fixed = dict(target.model_config)
    configs = [{**c, **fixed} for c in configs] if fixed else configs
    kept = [c for c in configs if target.supports(c)]
    return kept or configs


def lockstep_machine(spec: ProtocolSpec, target: Target, log: RunLog,
                     step_timeout: float = DEFAULT_STEP_TIMEOUT) -> type[RuleBasedStateMachine]:
    """A RuleBasedStateMachine class driving ``target`` against the model of ``spec``.

    One rule per action category of the driver (deliver, timer, fault ...): Hypothesis picks
    among the rules whose category has an action the model enables now (never one that would
    do nothing, so no step of a run is wasted), and its swarm testing switches whole
    categories off in some runs, so a run without faults reaches deep states quickly while
    another hammers on crashes. Within a category the rule draws a number from a fixed range
    taken modulo the number of enabled actions: when the shrinker deletes a step the later draws
    stay valid (and mostly keep their meaning), so counterexamples shrink far.
    """

    skipped = unsupported_categories(target)
    configs = supported_configs(target_configs(spec, target), target)

    def failed(session: Lockstep, err: BaseException) -> None:
        """Keep the failing session; the first one's time, steps and run count are the report's."""
        log.failed = session
        if isinstance(err, TargetFailure):
            log.aborted = err
        if session.finding is not None and session.finding.kind != "error":
            log.diverged = session
        if log.first_found is None:
            log.first_found = time.perf_counter() - log.started
            log.first_steps = len(session.steps)
            log.first_runs = log.runs_before + log.generated

    def __init__(self: Any) -> None:
        RuleBasedStateMachine.__init__(self)
        self.session = None
        log.runs += 1
        if log.on_run is not None:
            log.on_run(log.runs)

    @initialize(config=st.sampled_from(configs))
    def start(self: Any, config: dict[str, JSON]) -> None:
        log.config = config
        key = config_key(config)
        if key in log.refused:
            reject()  # refused before: not drawn again (and not counted as a generated run)
        try:
            self.session = Lockstep(spec.driver(config), target, step_timeout)
        except TargetFailure as err:
            if is_refusal(err):
                log.refused[key] = err.finding.detail
                if log.coverage is not None:
                    log.coverage.drop(key)
                reject()
            log.failed = None  # the target did not start: no session to show
            log.aborted = err
            raise
        except BaseException:
            log.failed = None  # the target did not start: no session to show
            raise
        log.current = self.session
        log.generated += 1
        attach(self.session, log, config)
        # A driver may open every run with forced steps no rule draws (voters: the quorum's
        # start-up); they are fed, checked and recorded like any other step.
        for category in self.session.driver.opening:
            try:
                self.session.apply(category, 0)
            except BaseException as err:
                failed(self.session, err)
                raise

    def make_rule(category: str) -> Any:
        def run(self: Any, data: st.DataObject) -> None:
            choice = data.draw(CHOICE, label=category)
            try:
                self.session.apply(category, choice)
            except BaseException as err:
                failed(self.session, err)
                raise

        run.__name__ = category
        return precondition(lambda self: self.session is not None and self.session.has_enabled(category))(
            rule(data=st.data())(run))

    @precondition(lambda self: self.session is not None and not self.session.any_enabled(skipped))
    @rule()
    def nothing_enabled(self: Any) -> None:
        """Nothing is enabled: the run waits."""

    def teardown(self: Any) -> None:
        if self.session is not None:
            self.session.close()

    probe = spec.driver(configs[0])
    weights = probe.weights
    namespace: dict[str, Any] = {"__init__": __init__, "start": start, "nothing_enabled": nothing_enabled,
                                 "teardown": teardown}
    for category in probe.categories:
        # A category named like one of the machine's own members would silently replace it.
        if category in namespace:
            raise ValueError(f"{spec.name} driver: category {category!r} clashes with a lockstep machine member")
        if category in skipped:
            continue
        # Hypothesis picks uniformly among the rules that can run: a category of weight w
        # gets w rules (each switched off on its own by swarm testing).
        for k in range(max(1, weights.get(category, 1))):
            namespace[category if k == 0 else f"{category}_{k + 1}"] = make_rule(category)
    name = f"{spec.name.capitalize()}Lockstep"
    machine: type[RuleBasedStateMachine] = type(name, (RuleBasedStateMachine,), namespace)
    return machine
