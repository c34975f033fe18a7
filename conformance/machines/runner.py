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
from kspec.conformance.harness import DEFAULT_STEP_TIMEOUT, Divergence, Finding, StepRecord, TargetFailure
from kspec.conformance.machines import PROTOCOLS, RunLog, lockstep_machine

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

    def to_json(self) -> dict[str, Any]:
        return {"protocol": self.protocol, "target": self.target, "verdict": self.verdict,
                "examples": self.examples, "seconds": round(self.seconds, 3), "seed": self.seed,
                "counterexample": self.counterexample,
                "divergence": self.finding.to_json() if self.finding else None,
                "steps": len(self.steps)}


def conform_settings(examples: int, steps: int) -> settings:
    return settings(max_examples=examples, stateful_step_count=steps, deadline=None, database=None,
                    report_multiple_bugs=False, suppress_health_check=list(HealthCheck), print_blob=False,
                    verbosity=Verbosity.quiet,
                    # no explain phase: it traces every line the target runs, which costs minutes
                    phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink))


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


def run_conformance(protocol: str, target: Target, *, examples: int = DEFAULT_EXAMPLES,
                    steps: int = DEFAULT_STEPS, seed_value: int = 0, out_dir: Path | None = DEFAULT_OUT,
                    step_timeout: float = DEFAULT_STEP_TIMEOUT, progress: Any = None) -> ConformResult:
    """Hold ``target`` to the model of ``protocol``; write a counterexample into ``out_dir``."""
    spec = PROTOCOLS[protocol]()
    log = RunLog(on_run=progress)
    machine = seed(seed_value)(lockstep_machine(spec, target, log, step_timeout))
    started = time.perf_counter()
    verdict, finding = "conforms", None
    try:
        with without_local_constants():
            run_state_machine_as_test(machine, settings=conform_settings(examples, steps))
    except (Divergence, TargetFailure) as err:
        verdict = "error" if isinstance(err, TargetFailure) else "diverges"
        finding = err.finding
    except HypothesisException as err:
        verdict = "error"
        finding = Finding("error", 0, "hypothesis", f"{type(err).__name__}: {str(err).splitlines()[0]}")
    finally:
        with contextlib.suppress(Exception):  # a target that cannot close must not hide the verdict
            target.close()
    seconds = time.perf_counter() - started
    session = log.failed
    result = ConformResult(protocol, getattr(target, "name", "?"), verdict, log.runs, seconds, seed_value,
                           finding=finding, config=dict(log.config))
    result.first_found, result.first_steps = log.first_found, log.first_steps
    if finding is not None:
        # A target that failed to start leaves no session: the file then has no steps.
        result.steps = session.steps if session is not None else []
        if session is not None:
            result.config = dict(session.driver.config)
        if out_dir is not None:
            meta = {"protocol": protocol, "target": result.target, "seed": seed_value, "verdict": verdict,
                    "config": result.config, "divergence": finding.to_json(),
                    "property": finding.field if finding.kind == "property" else None,
                    "step": finding.step, "steps": len(result.steps), "examples": log.runs}
            path = default_path(out_dir, protocol, result.target, seed_value)
            result.counterexample = str(write_counterexample(path, meta, result.steps))
    return result
