"""Running the conformance suite: Hypothesis drives the lockstep machine, shrinks a failure,
and the shrunk run becomes a counterexample file.

The shrunk example is the last one Hypothesis executes (it replays the minimal failing example
to raise its error), so the session recorded last as failed is the shrunk one.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, seed, settings
from hypothesis.errors import Flaky, HypothesisException
from hypothesis.stateful import run_state_machine_as_test

from kspec.conformance import protocols
from kspec.conformance.adapters.base import Target, as_target
from kspec.conformance.counterexample import default_path, write_counterexample
from kspec.conformance.deviations import failure_deviation
from kspec.conformance.drivers import (
    PROTOCOLS,
    RunLog,
    attach,
    config_key,
    guide,
    is_refusal,
    lockstep_machine,
    supported_configs,
    target_configs,
    unsupported_categories,
)
from kspec.conformance.drivers.minimise import _replay_actions, explained_by, minimise
from kspec.conformance.harness import DEFAULT_STEP_TIMEOUT, Divergence, Finding, Lockstep, StepRecord, TargetFailure

__all__ = ["COVER_MODES", "DEFAULT_EXAMPLES", "DEFAULT_OUT", "DEFAULT_STEPS", "ConformResult", "_replay_actions",
           "conform_settings", "explained_by", "minimise", "run_conformance"]

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
    first_runs: int | None = None  # runs until (and with) the first failing one (guided ones too)
    coverage: Any = None  # guide.Coverage
    cover: str = "mixed"
    refused: dict[str, str] = field(default_factory=dict)  # configuration -> the target's refusal
    unsupported: int = 0  # configurations the target's supports() declined
    deviation: str | None = None  # the catalogued deviation that explains the divergence, if one does
    liveness: Any = None  # raft_liveness.LivenessReport / voters_liveness.ReconfigReport (None: not run)
    # The target failure (a hung step) that stopped Hypothesis's shrinking of the divergence found
    shrinking_stopped: Finding | None = None

    @property
    def phase(self) -> str | None:
        """Which phase found the divergence: ``guided`` (a guided path or its probes, runs
        1..guided_runs, deterministic whatever the seed), ``random`` (a Hypothesis run: a draw
        that moves whenever a driver's categories, weights or inputs change), ``liveness``
        (the liveness check after the runs conformed); None when nothing diverged."""
        if self.finding is None or self.verdict != "diverges":
            return None
        if self.first_runs is None:  # no run failed: the liveness check's suffix did
            return "liveness"
        guided = self.coverage.guided_runs if self.coverage is not None else 0
        return "guided" if self.first_runs <= guided else "random"

    def to_json(self) -> dict[str, Any]:
        return {"protocol": self.protocol, "target": self.target, "verdict": self.verdict,
                "examples": self.examples, "seconds": round(self.seconds, 3), "seed": self.seed,
                "counterexample": self.counterexample,
                "divergence": self.finding.to_json() if self.finding else None,
                "deviation": self.deviation, "steps": len(self.steps),
                "runs_to_detection": self.first_runs if self.finding is not None and self.verdict == "diverges"
                else None,
                "phase": self.phase,
                "shrinking_stopped": self.shrinking_stopped.to_json() if self.shrinking_stopped else None,
                "cover": self.cover,
                **({"liveness": self.liveness.to_json(), "liveness_witnesses": dict(self.liveness.witnesses),
                    "liveness_suffixes": self.liveness.suffixes,
                    "liveness_seconds": round(self.liveness.seconds, 3),
                    "liveness_cpu_seconds": round(self.liveness.cpu_seconds, 3)} if self.liveness is not None else {}),
                "coverage": self.coverage.to_json() if self.coverage is not None else None,
                "configurations": {"unsupported": self.unsupported, "refused": len(self.refused),
                                   "refusals": [{"config": json.loads(k), "reason": v}
                                                for k, v in sorted(self.refused.items())]}}


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


COVER_MODES = ("mixed", "transitions", "random")


def _guided_plans(spec: Any, configs: list[dict[str, Any]], skipped: frozenset[str], steps: int, budget: int,
                  coverage: guide.Coverage,
                  refused: dict[str, str]) -> Iterator[tuple[dict[str, Any], list[guide.Step]]]:
    """The guided paths of every configuration, taken in turn (config 1's first path, config
    2's first path, ...), at most ``budget`` in all. A configuration's graph is explored when
    its first path is due (and registered with ``coverage``), so a shallow divergence in the
    first configuration is found before the others are explored."""
    plans: list[list[list[guide.Step]] | None] = [None] * len(configs)
    drivers: list[Any] = [None] * len(configs)
    given = 0
    k = 0
    while given < budget:
        more = False
        for c, config in enumerate(configs):
            if config_key(config) in refused:
                continue  # the target refused it at start: its paths go to the others
            if plans[c] is None:
                drivers[c] = spec.driver(config)
                graph = guide.graph_for(drivers[c], skipped)
                coverage.add_graph(config_key(config), graph)
                plans[c] = guide.plan(graph, steps, budget)
                # A configuration's start probes first (Driver.start_probes), each on a path of
                # its own where the budgets are whole; ``k`` counts the planned paths only.
                for path in guide.start_paths(drivers[c], graph, skipped):
                    if given < budget:
                        given += 1
                        yield config, path
            paths = plans[c]
            assert paths is not None
            if k < len(paths) and given < budget:
                more = True
                given += 1
                # each path ends with the driver's probes where it ends (Driver.probes)
                yield config, guide.with_probes(drivers[c], paths[k], k, skipped)
        if not more:
            return
        k += 1


def _run_path(spec: Any, target: Target, config: dict[str, Any], path: list[guide.Step], log: RunLog,
              step_timeout: float) -> Lockstep:
    """One guided run: the session fed ``path`` (stopping where the model no longer enables a
    step); raises Divergence or TargetFailure as a Hypothesis run would."""
    session = Lockstep(spec.driver(config), target, step_timeout)
    attach(session, log, config)
    log.current = session
    try:
        for category, action in path:
            if not session.take(category, action):
                break
    except BaseException:
        log.failed = session
        raise
    finally:
        with contextlib.suppress(Exception):
            session.close()
    return session


def _liveness_finding(live: Any) -> Finding | None:
    """The finding a liveness check ends with: a violated property (kind ``liveness``, field
    its name, the detail led by its spec ID in the report's ``ids``), or the divergence a suffix met."""
    if live.error is not None:
        found: Finding = live.error.finding
        return found
    if live.violation is None:
        return None
    name = next(n for n, v in live.violation.verdicts.items() if v == "violated")
    cycle = ""
    back = live.violation.loop_back
    if back is not None and back >= len(live.steps):
        cycle = f"; it stays at step {back} forever"
    elif back is not None:
        cycle = f"; steps {back + 1}-{len(live.steps)} repeat, epochs aside"
    return Finding("liveness", len(live.steps), name,
                   f"{live.ids[name]}: {live.violation.detail[name]} (faults stop after step "
                   f"{live.violation.faults_stop}{cycle})")


def run_conformance(protocol: str, target: Target, *, examples: int = DEFAULT_EXAMPLES,
                    steps: int = DEFAULT_STEPS, seed_value: int = 0, out_dir: Path | None = DEFAULT_OUT,
                    step_timeout: float = DEFAULT_STEP_TIMEOUT, progress: Any = None,
                    shrink: bool = True, minimal: bool = True, cover: str = "mixed",
                    deviations: tuple[tuple[str, str], ...] = (), liveness: bool = True) -> ConformResult:
    """Hold ``target`` to the model of ``protocol``; write a counterexample into ``out_dir``.

    ``cover``: ``transitions`` runs only model-guided paths (conformance/drivers/guide.py),
    up to ``examples`` of them; ``random`` only Hypothesis's random walks; ``mixed`` (the
    default) the guided paths first, up to half of ``examples``, then random walks for the rest.

    ``deviations`` are (name, model variant) pairs of catalogued deviations: on a divergence, the
    first whose variant explains it (:func:`explained_by`) is named in the result.

    ``liveness``: when the runs conform, the protocol's declared fault-free liveness check
    (``ConformanceProtocol.conform_liveness``: raft, the timed suffixes of
    ``conformance/drivers/raft_liveness.py``; voters, the fair suffixes of
    ``conformance/drivers/voters_liveness.py``: every accepted change completes) judges the
    liveness properties; a violation is a ``liveness`` divergence whose counterexample shows the
    repeating cycle (raft) or the stuck change (voters)."""
    if cover not in COVER_MODES:
        raise ValueError(f"cover must be one of {', '.join(COVER_MODES)}, not {cover!r}")
    target = as_target(target)  # a user's object with start() is a Target too (public API)
    spec = PROTOCOLS[protocol]()
    coverage = guide.Coverage()
    log = RunLog(on_run=progress, coverage=coverage)
    started = time.perf_counter()
    verdict, finding, shorter, deviation = "conforms", None, None, None
    live: Any = None
    live_steps: list[StepRecord] | None = None
    live_config: dict[str, Any] = {}
    stopped: Finding | None = None
    all_configs = target_configs(spec, target)
    configs = supported_configs(all_configs, target)
    unsupported = len(all_configs) - len(configs) if len(configs) < len(all_configs) else 0
    skipped = unsupported_categories(target)
    budget = {"transitions": examples, "mixed": examples // 2, "random": 0}[cover]
    try:
        try:
            if cover == "random":  # no guided paths, but the coverage of the random walks is measured
                for config in configs:
                    coverage.add_graph(config_key(config), guide.graph_for(spec.driver(config), skipped))
            for config, path in _guided_plans(spec, configs, skipped, steps, budget, coverage, log.refused):
                key = config_key(config)
                if key in log.refused:
                    continue
                log.config = config
                try:
                    _run_path(spec, target, config, path, log, step_timeout)
                except TargetFailure as err:
                    if not is_refusal(err):
                        raise
                    log.failed = None
                    log.refused[key] = err.finding.detail
                    coverage.drop(key)
                    continue
                finally:
                    log.runs_before += 1 if key not in log.refused else 0
                if progress is not None:
                    progress(log.runs_before)
            coverage.guided_runs = log.runs_before
            if cover != "transitions" and examples - log.runs_before > 0:
                machine = seed(seed_value)(lockstep_machine(spec, target, log, step_timeout))
                with without_local_constants():
                    run_state_machine_as_test(machine, settings=conform_settings(examples - log.runs_before,
                                                                                 steps, shrink))
        except (Divergence, TargetFailure, HypothesisException) as caught:
            ended: BaseException = caught
            if isinstance(caught, HypothesisException) and log.aborted is not None:
                ended = log.aborted  # Hypothesis's complaint on the way out hid it (RunLog.aborted)
            if isinstance(ended, Divergence | TargetFailure):
                verdict = "error" if isinstance(ended, TargetFailure) else "diverges"
                finding = ended.finding
                if isinstance(ended, TargetFailure) and log.diverged is not None and log.failed is not log.diverged:
                    # The target failed (a step hung on a starved CPU, say) while Hypothesis was
                    # shrinking a divergence it had found and reproduced: that divergence
                    # stands, shrunk as far as it got, and the failure is named with it.
                    stopped, log.failed = ended.finding, log.diverged
                    assert log.failed.finding is not None
                    verdict, finding = "diverges", log.failed.finding
                if log.first_runs is None and log.failed is not None:  # a guided path
                    log.first_found = time.perf_counter() - log.started
                    log.first_steps = len(log.failed.steps)
                    log.first_runs = log.runs_before
            elif len(log.refused) >= len(configs):
                verdict = "error"
                finding = Finding("error", 0, "target", "the target refused every configuration: "
                                  + "; ".join(sorted(set(log.refused.values())))[:400])
            elif isinstance(ended, Flaky):
                # Hypothesis replayed a failing run's choices and the outcome changed: the model is
                # deterministic, so the target answered the same inputs differently.
                verdict = "error"
                finding = Finding("error", 0, "nondeterministic",
                                  "the target answered the same inputs differently when the failing run was "
                                  "replayed (state kept between runs, or a clock or thread it depends on); "
                                  f"Hypothesis: {type(ended).__name__}: {str(ended).splitlines()[0]}")
            else:
                verdict = "error"
                finding = Finding("error", 0, "hypothesis", f"{type(ended).__name__}: {str(ended).splitlines()[0]}")
        coverage.guided_runs = log.runs_before
        checker = protocols.get(protocol).conform_liveness
        if verdict == "conforms" and liveness and checker is not None and configs:
            timed = protocols.load(checker)  # the declared module (ConformanceProtocol.conform_liveness)
            live = timed.check_liveness(spec, target, [c for c in configs if config_key(c) not in log.refused],
                                        seed=seed_value, step_timeout=step_timeout)
            live_finding = _liveness_finding(live)
            if live_finding is not None:
                verdict = "error" if live_finding.kind == "error" else "diverges"
                finding = live_finding
                live_steps, live_config = live.steps, live.config
        failed = log.failed
        if verdict == "diverges" and minimal and finding is not None and failed is not None:
            shorter = minimise(protocol, target, dict(failed.driver.config), failed.taken, finding, step_timeout,
                               forced=failed.driver.opening)
        if verdict == "diverges" and finding is not None and failed is not None and deviations:
            final = shorter if shorter is not None and shorter.finding is not None else failed
            assert final.finding is not None
            for name, variant in deviations:
                if explained_by(spec, target, dict(final.driver.config), list(final.taken), final.finding, variant,
                                step_timeout):
                    deviation = name
                    break
        if verdict == "error" and finding is not None and finding.kind == "error" and deviations:
            # A release that throws where the protocol answers (a catalogued target_error): a
            # named divergence, not an error of the run.
            named = failure_deviation(protocol, finding.detail, [name for name, _ in deviations])
            if named is not None:
                verdict, deviation = "diverges", named
    finally:
        with contextlib.suppress(Exception):  # a target that cannot close must not hide the verdict
            target.close()
    if verdict == "conforms" and configs and len(log.refused) >= len(configs):
        verdict = "error"
        finding = Finding("error", 0, "target", "the target refused every configuration: "
                          + "; ".join(sorted(set(log.refused.values())))[:400])
    seconds = time.perf_counter() - started
    session = log.failed
    if shorter is not None and shorter.finding is not None:
        session, finding = shorter, shorter.finding
    # Generated runs only: the runs Hypothesis makes while shrinking are not examples.
    generated = log.first_runs if log.first_runs is not None else log.runs_before + log.generated
    coverage.random_runs = max(0, generated - log.runs_before) if log.first_runs is None else max(
        0, log.first_runs - log.runs_before)
    result = ConformResult(protocol, target.name or "?", verdict, generated, seconds, seed_value,
                           finding=finding, config=dict(log.config))
    result.first_found, result.first_steps, result.first_runs = log.first_found, log.first_steps, log.first_runs
    result.coverage = coverage
    result.cover = cover
    result.refused = dict(log.refused)
    result.unsupported = unsupported
    result.deviation = deviation
    result.liveness = live
    result.shrinking_stopped = stopped
    if finding is not None:
        # A target that failed to start leaves no session: the file then has no steps.
        result.steps = session.steps if session is not None else []
        if session is not None:
            result.config = dict(session.driver.config)
        lasso: dict[str, Any] = {}
        if live_steps is not None:
            result.steps, result.config = live_steps, dict(live_config)
            if live.violation is not None:
                lasso = {"liveness": live.to_json(), "faults_stop": live.violation.faults_stop,
                         "loop_back": live.violation.loop_back}
        if out_dir is not None:
            meta = {**lasso, "protocol": protocol, "target": result.target, "seed": seed_value, "verdict": verdict,
                    "config": result.config, "divergence": finding.to_json(),
                    "property": finding.field if finding.kind == "property" else None,
                    "step": finding.step, "steps": len(result.steps), "examples": generated,
                    "deviation": deviation}
            file = default_path(out_dir, protocol, result.target, seed_value, meta, result.steps)
            result.counterexample = str(write_counterexample(file, meta, result.steps))
    return result
