"""Breadth-first exploration on several cores: the state space is partitioned by the hash of
each state's key (its canonical form under symmetry), and each worker process owns one part —
its seen-set, its frontier, the property checks of its new states (TLC's fingerprint
partitioning, in processes because Python threads share one interpreter lock).

The search is level-synchronous: in each round every worker expands its frontier, keeps the
successors it owns and sends the others, in batches, to their owners' inboxes; then it reads
its inbox until every other worker has said it is done with the round. A round with no new
state anywhere ends the search. The counts are those of :func:`explorer.explore` (the same
states are stored, the same transitions counted, states outside the bounds checked but not
stored). A violation's shortest trace, ``max_states`` and witness traces need the serial
explorer's parent links: a run that finds a violation, or asks for those, is redone serially,
so its result is exactly the serial one. Needs the ``fork`` start method (the workers inherit
the model and the string hash seed).
"""

from __future__ import annotations

import dataclasses
import io
import multiprocessing as mp
import os
import pickle
import queue as queue_mod
import time
from collections.abc import Callable, Collection
from typing import Any

from kspec.model.core.explorer import (
    ExploreResult,
    Hashed,
    explore,
    not_applicable,
    split_properties,
    without_cycle_collection,
)
from kspec.model.core.protocol import Model, Symmetric

BATCH = 1024  # states per message between workers (pickled together, they share their common parts)
_DONE = None  # end-of-round marker in an inbox


class _Pickler(pickle.Pickler):
    """Frozen dataclasses as (class, field values): about a third cheaper than the default
    slots pickling, both ways."""

    reducers: dict[type, Callable[[Any], tuple[Any, ...]]] = {}

    def reducer_override(self, obj: Any) -> Any:
        cls = type(obj)
        reduce = self.reducers.get(cls)
        if reduce is None:
            if isinstance(obj, type) or not dataclasses.is_dataclass(cls) or not cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
                return NotImplemented
            names = tuple(f.name for f in dataclasses.fields(cls))

            def reduce(value: Any, cls: type = cls, names: tuple[str, ...] = names) -> tuple[Any, ...]:
                return cls, tuple(getattr(value, n) for n in names)

            self.reducers[cls] = reduce
        return reduce(obj)


def _dumps(value: Any) -> bytes:
    buf = io.BytesIO()
    _Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return buf.getvalue()


def default_workers() -> int:
    """Every core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def explore_parallel(
    model: Model[Any, Any],
    *,
    workers: int | None = None,
    max_states: int | None = None,
    stop_on_violation: bool = True,
    keep_witness_traces: bool = False,
    progress: Callable[[int, int, int], None] | None = None,
    stop_on: Collection[str] | None = None,
) -> ExploreResult:
    """:func:`explorer.explore` on ``workers`` processes (default: all cores); one worker, a
    state limit or witness traces run the serial explorer itself."""
    n = workers or default_workers()

    def serial() -> ExploreResult:
        return explore(model, max_states=max_states, stop_on_violation=stop_on_violation,
                       keep_witness_traces=keep_witness_traces, progress=progress, stop_on=stop_on)

    if n <= 1 or max_states is not None or keep_witness_traces or "fork" not in mp.get_all_start_methods():
        return serial()
    result = _run(model, n, progress)
    if result.violations:
        return serial()  # it stops at the first violation, with a shortest trace to it
    return result


def _run(model: Model[Any, Any], n: int, progress: Callable[[int, int, int], None] | None) -> ExploreResult:
    started = time.perf_counter()
    ctx = mp.get_context("fork")
    inboxes = [ctx.Queue() for _ in range(n)]
    commands = [ctx.Queue() for _ in range(n)]
    reports: Any = ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(model, w, n, inboxes, commands[w], reports), daemon=True)
             for w in range(n)]
    for p in procs:
        p.start()
    result = ExploreResult(protocol=model.name, bounds=dict(model.bounds),
                           not_applicable=not_applicable(model.properties(), model.bounds))
    _, _, witnesses, step_witnesses = split_properties(model.properties(), model.bounds)
    result.witnesses = {p.name: False for p in witnesses + step_witnesses}
    result.witness_ids = {p.name: p.id for p in witnesses + step_witnesses}
    try:
        depth = 0
        stored = 0
        transitions = 0
        violated: set[str] = set()
        while True:
            for c in commands:
                c.put("round")
            new = 0
            for _ in range(n):
                rep = _report(reports, procs)
                new += rep["new"]
                transitions += rep["transitions"]
                violated |= rep["violated"]
                for name in rep["witnesses"]:
                    result.witnesses[name] = True
            stored += new
            if progress is not None:
                progress(stored, transitions, depth)
            if new == 0 or violated:
                break
            depth += 1
        for c in commands:
            c.put("stop")
        for p in procs:
            p.join(timeout=30)
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
    result.distinct_states = stored
    result.transitions = transitions
    # depth counts the rounds that found new states after the initial one
    result.max_depth = max(0, depth - 1) if not violated else depth
    result.seconds = time.perf_counter() - started
    if violated:
        from kspec.model.core.explorer import Violation

        result.violations = [Violation("", name, ()) for name in sorted(violated)]
    return result


def _report(reports: Any, procs: list[Any]) -> dict[str, Any]:
    while True:
        try:
            rep: dict[str, Any] = reports.get(timeout=5)
        except queue_mod.Empty:
            dead = [p for p in procs if not p.is_alive()]
            if dead:
                raise RuntimeError(f"explorer worker {dead[0].name} died (exit code {dead[0].exitcode})") from None
            continue
        if "error" in rep:
            raise RuntimeError(f"explorer worker failed: {rep['error']}")
        return rep


def _worker(model: Model[Any, Any], me: int, n: int, inboxes: list[Any], commands: Any, reports: Any) -> None:
    try:
        with without_cycle_collection():
            _work(model, me, n, inboxes, commands, reports)
    except BaseException as err:  # report, do not hang the others
        reports.put({"error": f"{type(err).__name__}: {err}"})
        raise


def _work(model: Model[Any, Any], me: int, n: int, inboxes: list[Any], commands: Any, reports: Any) -> None:
    invariants, step_props, witnesses, step_witnesses = split_properties(model.properties(), model.bounds)
    canonical = model.canonical if isinstance(model, Symmetric) else None
    seen: set[Hashed] = set()
    sent: set[Hashed] = set()  # successors already sent to their owner (who stored or dropped them)
    frontier: list[Any] = []
    nxt_frontier: list[Any] = []
    pending_w = list(witnesses)
    pending_sw = list(step_witnesses)
    reached: set[str] = set()
    violated: set[str] = set()
    first = True

    def key_of(state: Any) -> Hashed:
        return Hashed(state if canonical is None else canonical(state))

    def take(state: Any, key: Hashed) -> int:
        """A successor (or initial state) this worker owns: 1 when it is new and stored."""
        nonlocal pending_w
        if key in seen:
            return 0
        inside = model.within_bounds(state)
        for prop in invariants:
            if prop.name not in violated and not prop.holds(state):
                violated.add(prop.name)
        if pending_w:
            still = []
            for prop in pending_w:
                if prop.holds(state):
                    reached.add(prop.name)
                else:
                    still.append(prop)
            pending_w = still
        if not inside:
            return 0
        seen.add(key)
        nxt_frontier.append(state)
        return 1

    while True:
        command = commands.get()
        if command == "stop":
            return
        new = 0
        transitions = 0
        if first:
            first = False
            for init in model.init_states():
                key = key_of(init)
                if key.hash % n == me:
                    new += take(init, key)
            reports.put({"new": new, "transitions": 0, "violated": set(violated), "witnesses": set(reached)})
            frontier, nxt_frontier = nxt_frontier, []
            continue
        out: list[list[tuple[int, Any, Any]]] = [[] for _ in range(n)]
        for state in frontier:
            for action in model.actions(state):
                succ = model.next_state(state, action)
                if succ is None:
                    continue
                transitions += 1
                if pending_sw:
                    for prop in list(pending_sw):
                        if prop.holds_step(state, action, succ):
                            reached.add(prop.name)
                            pending_sw.remove(prop)
                for prop in step_props:
                    if prop.name not in violated and not prop.holds_step(state, action, succ):
                        violated.add(prop.name)
                key = key_of(succ)
                owner = key.hash % n
                if owner == me:
                    new += take(succ, key)
                elif key not in sent:
                    sent.add(key)
                    box = out[owner]
                    box.append((key.hash, succ, None if key.value is succ else key.value))
                    if len(box) >= BATCH:
                        inboxes[owner].put(_dumps(box))
                        out[owner] = []
        for w in range(n):
            if w != me:
                if out[w]:
                    inboxes[w].put(_dumps(out[w]))
                inboxes[w].put(_DONE)
        done = 0
        while done < n - 1:
            batch = inboxes[me].get()
            if batch is _DONE:
                done += 1
                continue
            for h, succ, rep in pickle.loads(batch):
                key = Hashed.__new__(Hashed)  # the sender hashed it already
                key.hash, key.value = h, (succ if rep is None else rep)
                new += take(succ, key)
        reports.put({"new": new, "transitions": transitions, "violated": set(violated), "witnesses": set(reached)})
        frontier, nxt_frontier = nxt_frontier, []
