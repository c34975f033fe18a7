"""Running the conformance suite: Hypothesis drives the lockstep machine, shrinks a failure,
and the shrunk run becomes a counterexample file.

The shrunk example is the last one Hypothesis executes (it replays the minimal failing example
to raise its error), so the session recorded last as failed is the shrunk one.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, seed, settings
from hypothesis.errors import HypothesisException
from hypothesis.stateful import run_state_machine_as_test

from kspec.conformance.adapters.base import Target
from kspec.conformance.counterexample import default_path, write_counterexample
from kspec.conformance.harness import DEFAULT_STEP_TIMEOUT, Divergence, Finding, Lockstep, StepRecord, TargetFailure
from kspec.conformance.machines import PROTOCOLS, RunLog, lockstep_machine, macros

DEFAULT_EXAMPLES = 300
DEFAULT_STEPS = 60
DEFAULT_OUT = Path("kspec-counterexamples")


@dataclass
class ConformResult:
    """The outcome of one ``kspec conform`` run (the CLI contract's keys and more)."""

    protocol: str
    target: str
    verdict: str  # conforms | diverges | error
    examples: int
    seconds: float
    seed: int
    counterexample: str | None = None
    finding: Finding | None = None
    steps: list[StepRecord] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)
    first_found: float | None = None  # seconds until the first failing run, before shrinking
    first_steps: int | None = None  # that run's steps
    first_runs: int | None = None  # Hypothesis runs until the first failing one (invalid ones too)
    deviation: str | None = None  # the catalogued deviation that explains the divergence, if one does

    def to_json(self) -> dict[str, Any]:
        return {"protocol": self.protocol, "target": self.target, "verdict": self.verdict,
                "examples": self.examples, "seconds": round(self.seconds, 3), "seed": self.seed,
                "counterexample": self.counterexample,
                "divergence": self.finding.to_json() if self.finding else None,
                "deviation": self.deviation, "steps": len(self.steps)}


def conform_settings(examples: int, steps: int, shrink: bool = True) -> settings:
    """The Hypothesis settings of a run; without ``shrink`` the first failing run is the
    counterexample (the benchmarks measure detection that way)."""
    return settings(max_examples=examples, stateful_step_count=steps, deadline=None, database=None,
                    report_multiple_bugs=False, suppress_health_check=list(HealthCheck), print_blob=False,
                    verbosity=Verbosity.quiet,
                    # no explain phase: it traces every line the target runs, which costs minutes
                    phases=(Phase.explicit, Phase.reuse, Phase.generate) + ((Phase.shrink,) if shrink else ()))


@contextlib.contextmanager
def without_local_constants() -> Iterator[None]:
    """Hypothesis (6.131 on) mixes literals from the source of every local module imported so
    far into its draws ("local constants"), so the run a seed gives would depend on which kspec
    and test modules happen to be loaded: ``kspec conform`` and the same call inside pytest would
    explore differently. A conformance run draws without them: same seed, same run, anywhere."""
    try:
        from hypothesis.internal.conjecture import providers
        from hypothesis.internal.constants_ast import Constants
    except ImportError:  # a Hypothesis without local constants
        yield
        return
    found = getattr(providers, "_get_local_constants", None)
    cache = getattr(getattr(providers, "CONSTANTS_CACHE", None), "cache", None)
    if found is None or cache is None:
        yield
        return
    empty = Constants()
    providers._get_local_constants = lambda: empty
    cache.clear()  # pools computed with the local constants
    try:
        yield
    finally:
        providers._get_local_constants = found
        cache.clear()


def minimise(protocol: str, target: Target, config: dict[str, Any], taken: list[tuple[str, Any]],
             finding: Finding, step_timeout: float = DEFAULT_STEP_TIMEOUT,
             forced: tuple[str, ...] = ()) -> Lockstep | None:
    """After Hypothesis's shrinking, leave out whole actions one at a time while the run still
    diverges the same way (same kind and field): Hypothesis shrinks the choices that pick the
    actions, and deleting one step shifts what the later choices pick, so its result often
    keeps steps that are not needed. Deterministic (no clock): at most ``MINIMISE_ATTEMPTS_PER_STEP``
    replays per action. Returns the shortest failing session found, or None when nothing could
    be left out. ``forced`` categories (a driver's opening) are kept."""
    spec = PROTOCOLS[protocol]()
    best: Lockstep | None = None
    current = list(taken)
    # A macro goes in whole or not at all: first take each as its model actions, one by one,
    # so that the ones the divergence does not need can be left out too.
    has_macro = any(isinstance(a, macros.MACRO_TYPES) for _, a in current)
    flat = _replay_actions(spec, target, config, current, step_timeout, flatten=True) if has_macro else None
    if flat is not None and _same_finding(flat, finding):
        best, current = flat, list(flat.taken)
    attempts = MINIMISE_ATTEMPTS_PER_STEP * len(current)
    changed = True
    while changed and attempts > 0:
        changed = False
        i = len(current) - 1
        while i >= 0 and attempts > 0:
            if current[i][0] not in forced:
                attempts -= 1
                session = _replay_actions(spec, target, config, current[:i] + current[i + 1:], step_timeout)
                if _same_finding(session, finding):
                    assert session is not None
                    best, current, changed = session, list(session.taken), True
            i = min(i - 1, len(current) - 1)
    return best


MINIMISE_ATTEMPTS_PER_STEP = 4


def _same_finding(session: Lockstep | None, finding: Finding) -> bool:
    """Whether ``session`` diverged the way ``finding`` says (kind and field; the step may move)."""
    return session is not None and session.finding is not None and (
        session.finding.kind, session.finding.field) == (finding.kind, finding.field)


def _replay_actions(spec: Any, target: Target, config: dict[str, Any], actions: list[tuple[str, Any]],
                    step_timeout: float, flatten: bool = False) -> Lockstep | None:
    """A fresh lockstep session fed ``actions`` in order (with ``flatten``, every macro as the
    model actions it expands into): the session when it diverged, None when an action is no
    longer enabled, the run conformed or the target failed."""
    session = Lockstep(spec.driver(config), target, step_timeout)
    try:
        for category, action in actions:
            if flatten and isinstance(action, macros.MACRO_TYPES):
                for sub, _after in session.driver.sub_steps(session.state, action):
                    if not session.take(session.category_of(sub) or "", sub):
                        return None
            elif not session.take(category, action):
                return None
    except Divergence:
        return session
    except TargetFailure:
        return None
    finally:
        with contextlib.suppress(Exception):
            session.close()
    return None


def explained_by(spec: Any, target: Target, config: dict[str, Any], actions: list[tuple[str, Any]],
                 finding: Finding, variant: str, step_timeout: float = DEFAULT_STEP_TIMEOUT) -> bool:
    """Whether the model with ``variant`` added (a catalogued deviation's) no longer diverges from
    ``target`` at or before ``finding``'s step when fed the same ``actions``: the deviation then
    explains the divergence. False when the variant's model does not enable an action of the run
    (it cannot tell) or the target fails."""
    joined = "+".join(v for v in (str(config.get("model_variant") or ""), variant) if v)
    session = Lockstep(spec.driver({**config, "model_variant": joined}), target, step_timeout)
    try:
        for category, action in actions:
            if not session.take(category, action):
                return False
            if len(session.steps) >= finding.step:
                return True
    except Divergence:
        return session.finding is not None and session.finding.step > finding.step
    except TargetFailure:
        return False
    finally:
        with contextlib.suppress(Exception):
            session.close()
    return True


def run_conformance(protocol: str, target: Target, *, examples: int = DEFAULT_EXAMPLES,
                    steps: int = DEFAULT_STEPS, seed_value: int = 0, out_dir: Path | None = DEFAULT_OUT,
                    step_timeout: float = DEFAULT_STEP_TIMEOUT, progress: Any = None,
                    shrink: bool = True, minimal: bool = True,
                    deviations: tuple[tuple[str, str], ...] = ()) -> ConformResult:
    """Hold ``target`` to the model of ``protocol``; write a counterexample into ``out_dir``.

    ``deviations`` are (name, model variant) pairs of catalogued deviations: on a divergence, the
    first whose variant explains it (:func:`explained_by`) is named in the result."""
    spec = PROTOCOLS[protocol]()
    log = RunLog(on_run=progress)
    machine = seed(seed_value)(lockstep_machine(spec, target, log, step_timeout))
    started = time.perf_counter()
    verdict, finding, shorter, deviation = "conforms", None, None, None
    try:
        try:
            with without_local_constants():
                run_state_machine_as_test(machine, settings=conform_settings(examples, steps, shrink))
        except (Divergence, TargetFailure) as err:
            verdict = "error" if isinstance(err, TargetFailure) else "diverges"
            finding = err.finding
        except HypothesisException as err:
            verdict = "error"
            finding = Finding("error", 0, "hypothesis", f"{type(err).__name__}: {str(err).splitlines()[0]}")
        failed = log.failed
        if verdict == "diverges" and minimal and finding is not None and failed is not None:
            shorter = minimise(protocol, target, dict(failed.driver.config), failed.taken, finding, step_timeout,
                               forced=tuple(getattr(failed.driver, "opening", ())))
        if verdict == "diverges" and finding is not None and failed is not None and deviations:
            final = shorter if shorter is not None and shorter.finding is not None else failed
            assert final.finding is not None
            for name, variant in deviations:
                if explained_by(spec, target, dict(final.driver.config), list(final.taken), final.finding, variant,
                                step_timeout):
                    deviation = name
                    break
    finally:
        with contextlib.suppress(Exception):  # a target that cannot close must not hide the verdict
            target.close()
    seconds = time.perf_counter() - started
    session = log.failed
    if shorter is not None and shorter.finding is not None:
        session, finding = shorter, shorter.finding
    result = ConformResult(protocol, getattr(target, "name", "?"), verdict, log.runs, seconds, seed_value,
                           finding=finding, config=dict(log.config))
    result.first_found, result.first_steps, result.first_runs = log.first_found, log.first_steps, log.first_runs
    result.deviation = deviation
    if finding is not None:
        # A target that failed to start leaves no session: the file then has no steps.
        result.steps = session.steps if session is not None else []
        if session is not None:
            result.config = dict(session.driver.config)
        if out_dir is not None:
            meta = {"protocol": protocol, "target": result.target, "seed": seed_value, "verdict": verdict,
                    "config": result.config, "divergence": finding.to_json(),
                    "property": finding.field if finding.kind == "property" else None,
                    "step": finding.step, "steps": len(result.steps), "examples": log.runs,
                    "deviation": deviation}
            path = default_path(out_dir, protocol, result.target, seed_value, meta, result.steps)
            result.counterexample = str(write_counterexample(path, meta, result.steps))
    return result
