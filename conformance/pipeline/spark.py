"""The Spark engine of ``kspec validate``: whole traces per task, no event crosses the JVM.

JSON Lines files are cut into splits (``engine``); each task reads its split's bytes itself
(the files must be readable at the same path on every executor), with line numbers from a
first, cheap job, so a malformed line is quarantined with its file and line instead of being
dropped or nulled by Spark's JSON reader. The traces a split holds whole are judged in its task
by the lean loop (``fast``), a few splits per task, and each task sends back one summary
(counts, violations by property, quarantine reasons, coverage): nothing per event or per trace
crosses to the JVM (clean splits are also read and keyed in bulk, ``spark_split``). Only the
lines of traces that span splits are shuffled (``groupByKey``). ITF files are judged whole
(``wholeTextFiles``). With Parquet outputs wanted, the per-trace outcomes are kept too.

On a real cluster the executors need the ``kspec`` package: ship it with ``--py-files`` (a zip
of the installed package) or ``--archives`` (a packed virtual environment), see
``spec/trace-format.md``.
"""

from __future__ import annotations

import gc
import os
import re
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from kspec.conformance.clikit import InputError, check_spark_master
from kspec.conformance.pipeline import summary
from kspec.conformance.pipeline.engine import SPLIT_BYTES, index_split, judge_split, make_plan
from kspec.conformance.pipeline.fast import judge_lines_fast
from kspec.conformance.pipeline.itf_replay import judge_itf, split_itf
from kspec.conformance.pipeline.judge import Outcome
from kspec.conformance.pipeline.reader import Limits, Split, plan_splits

# The driver JVM schedules tasks and moves small summaries: it never runs hot code long enough
# for C2 to pay back, and on a 2-core machine its JIT threads take CPU from the Python workers.
# C1 only cut the JVM's CPU in a cold 1M-event run from 4.2 to 1.9 CPU-s (issue #22, session 27,
# docs/performance.md). In local mode the executors are in this JVM too.
DRIVER_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1"
# Tasks per core of each job over the splits: each task costs a fixed price in the JVM and the
# worker, and the last task of a job may run alone (issue #22, session 9).
TASKS_PER_CORE = 4

MASTER_RE = re.compile(r"^(local(\[(\*|\d+)(,\d+)?\])?|local-cluster\[\d+,\d+,\d+\]|yarn|"
                       r"(spark|mesos|k8s)://\S+)$")


def check_master(master: str) -> None:
    """A master URL Spark can parse, else an input error (before paying for a JVM)."""
    if not MASTER_RE.match(master):
        raise InputError(f"bad --master {master!r} (local, local[N], local[*], spark://HOST:PORT, yarn, "
                         f"k8s://URL, mesos://URL)")


@contextmanager
def spark_session(master: str, app: str = "kspec-validate", shuffle_partitions: int = 4,
                  driver_memory: str = "2g") -> Iterator[Any]:
    """A small SparkSession that is always stopped."""
    check_master(master)
    check_spark_master(master)  # local[0], a standalone master that does not answer
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    try:
        spark = (SparkSession.builder.master(master).appName(app)
                 .config("spark.ui.enabled", "false")
                 .config("spark.ui.showConsoleProgress", "false")
                 .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
                 .config("spark.default.parallelism", str(shuffle_partitions))
                 .config("spark.driver.memory", driver_memory)
                 .config("spark.python.worker.reuse", "true")
                 .config("spark.driver.extraJavaOptions", DRIVER_JAVA_OPTIONS)
                 .getOrCreate())
    except Exception as err:  # Spark reports a bad master or a failed JVM start in many types
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise InputError(f"cannot start Spark with --master {master}: {first}") from None
    try:
        spark.sparkContext.setLogLevel("ERROR")
        yield spark
    finally:
        spark.stop()


def _local_path(uri: str) -> str:
    return uri[len("file:"):] if uri.startswith("file:") else uri


def judge_splits(protocol: str, work: Iterable[tuple[Split, int]], spanning: frozenset[str], limits: Limits,
                 keep: bool) -> Iterator[tuple[int, Any]]:
    """One task's share of the second pass, split after split: every trace a split holds whole
    is judged by the lean loop and folded into one summary, yielded last as ``(0, summary)``;
    ``(1, (key, (file, raw line)))`` for each line of a trace that spans splits; with ``keep``
    (Parquet outputs wanted) also ``(2, outcome)`` for every trace judged. What leaves the
    task is a summary and the spanning lines, not an item per trace."""
    acc = summary.empty()
    for split, first_line in work:
        for tag, item in judge_split(protocol, split, first_line, spanning, limits):
            if tag == 1:
                yield 1, item
                continue
            summary.add(acc, item)
            if keep:
                yield 2, item
    yield 0, acc


def _then_freeze(items: Iterable[Any]) -> Iterator[Any]:
    """A task's items, then ``gc.freeze()``. A reused PySpark worker runs a full cycle
    collection after every task (``pyspark/daemon.py``), which walks every object the worker
    holds: the lean loop's memo and caches, hundreds of thousands of long-lived objects. That
    walk cost about half the CPU of judging a warm split (issue #22, session 9,
    docs/performance.md).
    Frozen objects are skipped by the collector and still freed by reference counting (the
    memo's values are acyclic); only what the next task allocates is walked."""
    yield from items
    gc.freeze()


def _fold(outcomes: Iterable[Outcome]) -> Iterator[dict[str, Any]]:
    acc = summary.empty()
    for outcome in outcomes:
        summary.add(acc, outcome)
    yield acc


def _events_rdd(sc: Any, protocol: str, jsonl: list[str], limits: Limits, split_bytes: int,
                keep: bool) -> tuple[Any, Any, list[Any]]:
    """The JSON Lines files' summaries (an RDD of one summary per task) and, with ``keep``,
    their outcomes (an RDD, else None), and the RDDs to unpersist when done. The driver ships
    split descriptors only; a first job counts each split's lines and lists its trace ids, a
    second judges each split's own traces in its task (a few splits per task: each task costs
    the JVM and the Python worker a fixed price); only the lines of traces that span splits
    are shuffled, grouped and judged."""
    splits = plan_splits(jsonl, split_bytes)
    slices = max(1, min(len(splits), TASKS_PER_CORE * sc.defaultParallelism))
    indexes = sc.parallelize(splits, slices).mapPartitions(
        lambda it: _then_freeze(index_split(s, limits) for s in it)).collect()
    plan = make_plan(splits, indexes)
    spanning = sc.broadcast(plan.spanning)
    work = [(s, plan.first_line[s.index]) for s in splits]
    tagged = sc.parallelize(work, slices).mapPartitions(
        lambda it: _then_freeze(judge_splits(protocol, it, spanning.value, limits, keep)))
    if not plan.spanning and not keep:
        return tagged.values(), None, []
    from pyspark import StorageLevel

    tagged.persist(StorageLevel.MEMORY_AND_DISK)
    held = [tagged]
    summaries = tagged.filter(lambda t: t[0] == 0).values()
    spans = (tagged.filter(lambda t: t[0] == 1).values()
             .groupByKey(numPartitions=max(1, min(len(plan.spanning), sc.defaultParallelism)))
             .mapPartitions(lambda kvs: _then_freeze(judge_lines_fast(protocol, k, v) for k, v in kvs)))
    if keep:
        spans.persist(StorageLevel.MEMORY_AND_DISK)
        held.append(spans)
    outcomes = sc.union([tagged.filter(lambda t: t[0] == 2).values(), spans]) if keep else None
    return sc.union([summaries, spans.mapPartitions(_fold)]), outcomes, held


def _itf_rdd(sc: Any, protocol: str, itf: list[str], partitions: int) -> Any:
    paths = ",".join("file://" + p if p.startswith("/") else p for p in itf)
    return sc.wholeTextFiles(paths, minPartitions=partitions).map(
        lambda kv: judge_itf(protocol, _local_path(kv[0]), kv[1]))


class _Progress:
    """Polls Spark's status tracker and reports finished/total tasks of the running stages."""

    def __init__(self, sc: Any, update: Callable[..., None]) -> None:
        self.sc, self.update = sc, update
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        tracker = self.sc.statusTracker()
        while not self.stop.wait(0.5):
            try:
                infos = [tracker.getStageInfo(s) for s in tracker.getActiveStageIds()]
            except Exception:  # the context is stopping
                return
            infos = [i for i in infos if i is not None]
            if infos:
                done = sum(i.numCompletedTasks for i in infos)
                total = sum(i.numTasks for i in infos)
                self.update(completed=None, info=f"stage {max(i.stageId for i in infos)}: "
                                                                f"{done}/{total} tasks")

    def __enter__(self) -> _Progress:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=2)


def run_spark(spark: Any, protocol: str, jsonl: list[str], itf: list[str], out: str | None,
              update: Callable[..., None] | None = None, known_actions: list[str] | None = None,
              limits: Limits | None = None, split_bytes: int = SPLIT_BYTES) -> tuple[dict[str, Any], float]:
    """Judge every trace on ``spark``; write the Parquet outputs under ``out``; return the
    summary accumulator and the seconds the replay took."""
    import time

    sc = spark.sparkContext
    partitions = max(2, sc.defaultParallelism * 2)
    keep = out is not None
    started = time.perf_counter()
    from pyspark import StorageLevel

    summaries: list[Any] = []
    outcomes: list[Any] = []
    held: list[Any] = []
    if jsonl:
        events, judged, held = _events_rdd(sc, protocol, jsonl, limits or Limits(), split_bytes, keep)
        summaries.append(events)
        if judged is not None:
            outcomes.append(judged)
    itf, oversized = split_itf(itf)
    others = []
    if itf:
        others.append(_itf_rdd(sc, protocol, itf, partitions))
    if oversized:
        others.append(sc.parallelize(oversized, 1))
    for rdd in others:
        if keep:
            rdd.persist(StorageLevel.MEMORY_AND_DISK)
            held.append(rdd)
            outcomes.append(rdd)
        summaries.append(rdd.mapPartitions(_fold))
    try:
        with _Progress(sc, update or (lambda **kw: None)):
            acc = summary.empty()
            for part in (sc.union(summaries).collect() if summaries else []):  # one small summary per task
                summary.merge(acc, part)
        seconds = time.perf_counter() - started
        if out is not None:
            write_outputs(spark, sc.union(outcomes) if outcomes else sc.emptyRDD(), acc, out, known_actions or [])
    finally:
        for rdd in held:
            rdd.unpersist()
    return acc, seconds


VERDICT_SCHEMA = ("trace string, status string, events long, file string, line long, step long, "
                  "property string, action string, detail string")
QUARANTINE_SCHEMA = ("file string, line long, trace string, step long, reason string, primary boolean, "
                     "record string")
COVERAGE_SCHEMA = "kind string, name string, count long"


def write_outputs(spark: Any, outcomes: Any, acc: dict[str, Any], out: str, known_actions: list[str]) -> None:
    """``out/verdicts.parquet``, ``out/quarantine.parquet``, ``out/coverage.parquet`` (known
    actions never covered appear with count 0)."""
    verdict_cols = [c.split()[0] for c in VERDICT_SCHEMA.split(", ")]
    quarantine_cols = [c.split()[0] for c in QUARANTINE_SCHEMA.split(", ")]
    verdicts = outcomes.map(lambda o: tuple(o.verdict[c] for c in verdict_cols))
    spark.createDataFrame(verdicts, VERDICT_SCHEMA).write.mode("overwrite").parquet(
        os.path.join(out, "verdicts.parquet"))
    quarantine = outcomes.flatMap(lambda o: [tuple(q[c] for c in quarantine_cols) for q in o.quarantine])
    spark.createDataFrame(quarantine, QUARANTINE_SCHEMA).write.mode("overwrite").parquet(
        os.path.join(out, "quarantine.parquet"))
    actions = {a: 0 for a in known_actions} | dict(acc["actions"])
    rows = [("action", k, v) for k, v in sorted(actions.items())]
    rows += [("feature", k, v) for k, v in sorted(acc["features"].items())]
    spark.createDataFrame(rows, COVERAGE_SCHEMA).coalesce(1).write.mode("overwrite").parquet(
        os.path.join(out, "coverage.parquet"))


__all__ = ["Outcome", "check_master", "run_spark", "spark_session"]
