"""Breadth-first exploration on several cores: every state's 64-bit fingerprint (the hash of
its key, the canonical form under symmetry) has an owner among the worker processes, and each
worker owns the seen-set of its fingerprints (TLC's fingerprint partitioning, in processes
because Python threads share one interpreter lock).

A worker keeps the new states it generates and expands them at the next level; what crosses
processes is mostly fingerprints. The search is level-synchronous, and the workers talk to one
another directly (a one-way pipe per ordered pair), twice per level:

1. each worker expands its frontier; a successor whose fingerprint it owns is decided on the
   spot, the others are *claimed*: their fingerprints go to their owners, one array per owner,
   with a header (this worker's frontier size, its transitions so far, whether it has seen a
   violation);
2. each owner answers every claim, in order, with one byte: 1 if the fingerprint was new (it
   joins the owner's seen-set and the claimant keeps the state for the next level), 0 if not.
   A worker whose frontier was above the mean also sends, with its answers, some of its new
   states to the workers below it (pickled; :func:`_shipments`), so the frontiers stay even:
   only the imbalance travels, most of it in the first levels.

Every worker reads every header, so all of them see the same totals and stop at the same
level: when no worker had a state to expand, or one has seen a violation. The main process
only starts the workers and collects one report from each at the end.

The counts are those of :func:`explorer.explore`: the same states are stored (a state
outside the bounds is checked but neither stored nor expanded), the same transitions counted,
the same levels. Two different keys with the same fingerprint would count as one state; with
``N`` states and 64-bit hashes the chance of any such collision is at most ``N²/2⁶⁵`` (under
10⁻⁷ for 10⁶ states), the bound TLC reports for its own fingerprints. A violation's shortest
trace, ``max_states`` and witness traces need the serial explorer's parent links: a run that
finds a violation, or asks for those, is redone serially, so its result is exactly the serial
one. Needs the ``fork`` start method (the workers inherit the model and the string hash seed,
so every worker computes the same fingerprint for the same key).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import queue as queue_mod
import struct
import threading
import time
from array import array
from collections.abc import Callable, Collection
from multiprocessing.connection import Connection
from typing import Any

from kspec.model.core.explorer import (
    ExploreResult,
    Violation,
    explore,
    not_applicable,
    split_properties,
    without_cycle_collection,
)
from kspec.model.core.protocol import Model, Symmetric

_HEADER = struct.Struct("<qqq")  # frontier size, transitions so far, 1 if a violation was seen
_LENGTH = struct.Struct("<q")
_IMBALANCE = 0.05  # a worker whose frontier exceeds the mean by more than this share sends states away


def _shipments(me: int, sizes: list[int], mine: list[Any], claims: int) -> list[list[Any]]:
    """The new states this worker hands to others, taken from the end of ``mine`` (the new
    states it owns, whose checks it has done), so that the next level's frontiers come out
    even. A worker keeps the new states it generates, so each frontier grows in proportion to
    the one it came from: every worker plans from this level's frontier sizes (the same list
    on every worker), a worker above the mean sends the share by which it is above, split
    among the workers below in proportion to their shortfall. It sends at most the states it
    owns; ``claims`` bounds the ones it will be granted."""
    n = len(sizes)
    out: list[list[Any]] = [[] for _ in range(n)]
    mean = sum(sizes) / n
    surplus = sizes[me] - mean
    if surplus <= _IMBALANCE * mean:
        return out
    shortfall = [max(0.0, mean - size) for size in sizes]
    expected = len(mine) + claims  # this worker's next frontier, at most
    amount = min(len(mine), round(expected * surplus / sizes[me]))
    whole = sum(shortfall)
    for w in range(n):
        if shortfall[w] > 0 and amount:
            k = min(len(mine), round(amount * shortfall[w] / whole))
            if k:
                out[w] = mine[-k:]
                del mine[-k:]
    return out


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
    # pipes[a][b]: a's sending end and b's receiving end of the pipe from worker a to worker b
    pipes: list[list[tuple[Connection, Connection] | None]] = [
        [None if a == b else _one_way(ctx) for b in range(n)] for a in range(n)]
    reports: Any = ctx.Queue()
    procs = []
    for w in range(n):
        tx = [None if pair is None else pair[1] for pair in pipes[w]]
        rx = [None if pair is None else pair[0] for pair in (pipes[a][w] for a in range(n))]
        procs.append(ctx.Process(target=_worker, args=(model, w, n, tx, rx, reports, progress is not None),
                                 daemon=True))
    for p in procs:
        p.start()
    for row in pipes:  # the workers hold their ends; the parent's copies would only hide a dead peer
        for pair in row:
            if pair is not None:
                pair[0].close()
                pair[1].close()
    result = ExploreResult(protocol=model.name, bounds=dict(model.bounds),
                           not_applicable=not_applicable(model.properties(), model.bounds))
    _, _, witnesses, step_witnesses = split_properties(model.properties(), model.bounds)
    result.witnesses = {p.name: False for p in witnesses + step_witnesses}
    result.witness_ids = {p.name: p.id for p in witnesses + step_witnesses}
    finals: list[dict[str, Any]] = []
    try:
        while len(finals) < n:
            rep = _report(reports, procs, {int(r["worker"]) for r in finals})
            if "progress" in rep:
                if progress is not None:
                    progress(*rep["progress"])
                continue
            finals.append(rep)
        for p in procs:
            p.join(timeout=30)
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
    violated: set[str] = set()
    finals.sort(key=lambda rep: int(rep["worker"]))
    for rep in finals:
        result.distinct_states += rep["stored"]
        result.transitions += rep["transitions"]
        violated |= rep["violated"]
        for name in rep["witnesses"]:
            result.witnesses[name] = True
        result.worker_cpu.append(rep["cpu"])
        result.worker_wait.append(rep["wait"])
    result.max_depth = finals[0]["depth"]
    result.seconds = time.perf_counter() - started
    result.violations = [Violation("", name, ()) for name in sorted(violated)]
    return result


def _one_way(ctx: Any) -> tuple[Connection, Connection]:
    """A pipe as (receiving end, sending end)."""
    recv_end, send_end = ctx.Pipe(duplex=False)
    return recv_end, send_end


def _report(reports: Any, procs: list[Any], finished: Collection[int] = ()) -> dict[str, Any]:
    """The next report from the workers. A worker that exited with code 0 put its final report
    on the queue before it exited, but on a loaded machine the parent can wait out a timeout
    just before the report arrives and then see the exit: such a worker is given one more
    round before it counts as lost. Any other exit is a death. ``finished``: the indexes of
    the workers whose final report has arrived."""
    quiet_exits: set[int] = set()
    while True:
        try:
            rep: dict[str, Any] = reports.get(timeout=5)
        except queue_mod.Empty:
            for i, p in enumerate(procs):
                if i in finished or p.is_alive():
                    continue
                if p.exitcode != 0 or i in quiet_exits:
                    raise RuntimeError(f"explorer worker {p.name} died (exit code {p.exitcode})") from None
                quiet_exits.add(i)
            continue
        if "error" in rep:
            raise RuntimeError(f"explorer worker failed: {rep['error']}")
        return rep


def _worker(model: Model[Any, Any], me: int, n: int, tx: list[Connection | None], rx: list[Connection | None],
            reports: Any, with_progress: bool) -> None:
    try:
        with without_cycle_collection():
            _work(model, me, n, tx, rx, reports, with_progress)
    except BaseException as err:  # report, do not hang the others (the main process then stops them)
        reports.put({"error": f"worker {me}: {type(err).__name__}: {err}"})
        raise


def _exchange(me: int, tx: list[Connection | None], rx: list[Connection | None], out: list[bytes]) -> list[bytes]:
    """Send ``out[w]`` to every other worker ``w`` and receive one message from each. The
    sending runs on a thread: two workers sending each other more than a pipe holds would
    otherwise wait for each other forever."""
    def send() -> None:
        for w, conn in enumerate(tx):
            if conn is not None:
                conn.send_bytes(out[w])

    global _waited
    started = time.perf_counter()
    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    got = [b"" if conn is None else conn.recv_bytes() for conn in rx]
    sender.join()
    _waited += time.perf_counter() - started
    return got


_waited = 0.0  # in a worker: wall seconds in _exchange


def _work(model: Model[Any, Any], me: int, n: int, tx: list[Connection | None], rx: list[Connection | None],
          reports: Any, with_progress: bool) -> None:
    invariants, step_props, witnesses, step_witnesses = split_properties(model.properties(), model.bounds)
    canonical = model.canonical if isinstance(model, Symmetric) else None
    within_bounds = model.within_bounds
    step_checks = [(p.name, p.check) for p in step_props]  # the predicates (``holds`` only wraps them)
    inv_checks = [(p.name, p.check) for p in invariants]
    actions = model.actions
    next_state = model.next_state
    seen: set[int] = set()  # fingerprints this worker owns, of stored states
    known: set[int] = set()  # fingerprints claimed from their owners (stored there or by another)
    outside: set[int] = set()  # fingerprints of states outside the bounds, already checked
    raw_known: set[int] = set()  # with symmetry: hashes of the states met as themselves
    pending_w = list(witnesses)
    pending_sw = list(step_witnesses)
    reached: set[str] = set()
    violated: set[str] = set()

    def check(state: Any) -> None:
        nonlocal pending_w
        for name, holds in inv_checks:
            if name not in violated and not holds(state):
                violated.add(name)
        if pending_w:
            still = []
            for prop in pending_w:
                if prop.holds(state):
                    reached.add(prop.name)
                else:
                    still.append(prop)
            pending_w = still

    def fingerprint(state: Any) -> int | None:
        """The fingerprint of the state's key; None for a state met before as itself."""
        if canonical is None:
            return hash(state)
        raw = hash(state)
        if raw in raw_known:
            return None
        raw_known.add(raw)
        rep = canonical(state)
        return raw if rep is state else hash(rep)

    frontier: list[Any] = []
    for init in model.init_states():
        fp = fingerprint(init)
        if fp is None or fp % n != me or fp in seen or fp in outside:
            continue
        check(init)
        if within_bounds(init):
            seen.add(fp)
            frontier.append(init)
        else:
            outside.add(fp)

    transitions = 0
    stored = 0  # states stored by every worker together, at the levels done
    depth = 0
    level = 0
    while True:
        mine: list[Any] = []  # new successors this worker owns
        claims = [array("q") for _ in range(n)]
        claimed: list[list[Any]] = [[] for _ in range(n)]
        for state in frontier:
            for action in actions(state):
                succ = next_state(state, action)
                if succ is None:
                    continue
                transitions += 1
                if pending_sw:
                    for prop in list(pending_sw):
                        if prop.holds_step(state, action, succ):
                            reached.add(prop.name)
                            pending_sw.remove(prop)
                for name, holds_step in step_checks:
                    if name not in violated and not holds_step(state, action, succ):
                        violated.add(name)
                fp = fingerprint(succ)
                if fp is None or fp in seen or fp in known or fp in outside:
                    continue
                if not within_bounds(succ):
                    outside.add(fp)
                    check(succ)
                    continue
                owner = fp % n
                if owner == me:
                    seen.add(fp)
                    check(succ)
                    mine.append(succ)
                else:
                    known.add(fp)
                    claims[owner].append(fp)
                    claimed[owner].append(succ)
        header = _HEADER.pack(len(frontier), transitions, 1 if violated else 0)
        got = _exchange(me, tx, rx, [header + claims[w].tobytes() for w in range(n)])
        sizes = [len(frontier)] * n
        all_transitions = transitions
        stop = bool(violated)
        theirs: list[array[int]] = []
        for w, msg in enumerate(got):
            fps: array[int] = array("q")
            if w != me:
                sizes[w], their_transitions, their_violation = _HEADER.unpack_from(msg)
                all_transitions += their_transitions
                stop = stop or bool(their_violation)
                fps.frombytes(msg[_HEADER.size:])
            theirs.append(fps)
        total = sum(sizes)
        if total:
            depth = level
            stored += total
        if with_progress and me == 0:
            reports.put({"progress": (stored, all_transitions, depth)})
        if total == 0 or stop:
            break
        out = []
        shipped = _shipments(me, sizes, mine, sum(len(c) for c in claims))
        for w, fps in enumerate(theirs):
            verdict = bytearray(len(fps))
            for i, fp in enumerate(fps):
                if fp not in seen:
                    seen.add(fp)
                    verdict[i] = 1
            states = pickle.dumps(shipped[w], pickle.HIGHEST_PROTOCOL) if shipped[w] else b""
            out.append(_LENGTH.pack(len(verdict)) + verdict + states)
        nxt = mine
        for w, msg in enumerate(_exchange(me, tx, rx, out)):
            if w == me:
                continue
            (count,) = _LENGTH.unpack_from(msg)
            verdict_bytes = msg[_LENGTH.size:_LENGTH.size + count]
            for succ, new in zip(claimed[w], verdict_bytes, strict=True):
                if new:
                    check(succ)
                    nxt.append(succ)
            if len(msg) > _LENGTH.size + count:  # states sent to even the load (checked by their sender)
                nxt.extend(pickle.loads(msg[_LENGTH.size + count:]))
        frontier = nxt
        level += 1
    reports.put({"stored": len(seen), "transitions": transitions, "depth": depth,
                 "violated": set(violated), "witnesses": set(reached),
                 "cpu": time.process_time(), "wait": _waited, "worker": me})
