"""Trace validation throughput: the reference replay, the lean single-process loop and Spark,
on the same corpus in one run; and peak memory of the single-process engine as the corpus grows.

    nice -n 10 python bench/validate_bench.py [--events 1000000] [--master local[2]] [--cache DIR]
        [--reference-events 100000] [--rss 1000000,4000000] [--no-spark] [--diverse 100000] [--baseline REV]

The corpus: raft traces simulated from the reference model and from the ``vote-twice``
variant (so some traces violate), then replicated under fresh trace ids until it holds at least
``--events`` events (simulating a million events from scratch takes far longer than replaying
them; the replicas are ordinary, independent traces to the validator, and the replay's caches
are far too small to remember one replica by the next). It is cached under ``--cache``.

The replicas repeat every node state and message of the base traces, which flatters anything
that remembers across traces (the lean loop memoises node steps): ``--diverse N`` adds a corpus
of N events in which every trace is simulated afresh, under five shapes (``DIVERSE_SHAPES``).

Reported, with the load average at the start and end:
- the reference replay (``engine.judge_lines``: ``judge_events`` on parsed records, the
  validator before the lean loop) on the first ``--reference-events``-sized corpus (and the
  diverse corpus), and the lean loop (``kspec.conformance.pipeline.local``, as ``kspec
  validate`` judges) on the same file, in events per CPU second of this process (CPU seconds,
  not wall: the machine is shared), each run with cold caches; with ``--baseline REV`` the
  pipeline as it was at that revision too, between two runs of the lean loop (and after the
  one-process run on the ``--events`` corpus, on the same file);
- the lean loop on the ``--events`` corpus, wall and CPU, then Spark ``--master`` on the same
  file twice in one session (wall, the JVM start excluded; the second run with the Python
  workers warm), with the CPU seconds of the JVM and of the Python workers over each run: the
  wall ratio of the first Spark run to the one process is the scaling figure;
- with ``--rss``, the peak RSS of a fresh process validating each corpus size.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kspec.conformance.clikit import build_model, protocol_info
from kspec.conformance.pipeline import summary
from kspec.conformance.pipeline.local import iter_local
from kspec.conformance.pipeline.nodes import NodeReplay, decode_input
from kspec.conformance.pipeline.records import parse_line
from kspec.conformance.traces.writer import write_traces
from kspec.model.core.explorer import simulate


def base_corpus(cache: Path) -> list[str]:
    """Simulated event lines: 100 reference traces and 50 vote-twice traces of 300 steps."""
    lines: list[str] = []
    for variant, seed, traces in ((None, 101, 100), ("vote-twice", 102, 50)):
        out = cache / f"base-{variant or 'reference'}"
        if not (out / "events.jsonl").exists():
            model, _ = build_model(protocol_info("raft"), (), variant, simulation=True)
            result = simulate(model, seed=seed, steps=300, traces=traces, stop_on_violation=False)
            write_traces(out, model, result, variant=variant)
        lines += (out / "events.jsonl").read_text().splitlines()
    return lines


def corpus(cache: Path, events: int) -> Path:
    """The cached corpus file with at least ``events`` events."""
    path = cache / f"corpus-{events}.jsonl"
    if path.exists():
        return path
    base = base_corpus(cache)
    ids = [json.loads(text)["trace"] for text in base]
    tmp = path.with_suffix(".tmp")
    written = 0
    with tmp.open("w") as f:
        copy = 0
        while written < events:
            f.writelines(text.replace(f'"trace": "{tid}"', f'"trace": "{tid}-r{copy}"', 1) + "\n"
                         for text, tid in zip(base, ids, strict=True))
            written += len(base)
            copy += 1
    tmp.rename(path)
    return path


# The diverse corpus's shapes: (variant, bounds), each simulated under seeds of its own; longer
# logs and more elections than the bench corpus's defaults, so that fewer states repeat.
DIVERSE_SHAPES: tuple[tuple[str | None, tuple[str, ...]], ...] = (
    (None, ("max_appends=20", "max_fetches=200", "max_elections=20", "max_epoch=12")),
    (None, ("voters=5", "max_appends=12", "max_fetches=120", "max_elections=16")),
    (None, ("pre_vote=true", "observers=1", "max_appends=12", "max_fetches=120", "max_elections=16")),
    (None, ("kip853=true", "observers=2", "max_appends=12", "max_fetches=120")),
    ("vote-twice", ("max_appends=12", "max_fetches=120", "max_elections=16")),
)


def diverse_corpus(cache: Path, events: int) -> Path:
    """A corpus of at least ``events`` events in which every trace is simulated afresh (no
    replicas): the shapes above in turn, 20 traces of up to 2,000 steps per seed, until the
    corpus is large enough. The honest corpus for anything that remembers across traces."""
    path = cache / f"diverse-{events}.jsonl"
    if path.exists():
        return path
    tmp = path.with_suffix(".tmp")
    written, seed = 0, 1000
    with tmp.open("w") as f:
        while written < events:
            variant, bounds = DIVERSE_SHAPES[seed % len(DIVERSE_SHAPES)]
            model, _ = build_model(protocol_info("raft"), bounds, variant, simulation=True)
            result = simulate(model, seed=seed, steps=2000, traces=20, stop_on_violation=False)
            with tempfile.TemporaryDirectory() as out:
                write_traces(Path(out), model, result, variant=variant)
                lines = (Path(out) / "events.jsonl").read_text().splitlines()
            f.writelines(text.replace('"trace": "', f'"trace": "d{seed}-', 1) + "\n" for text in lines)
            written += len(lines)
            seed += 1
    tmp.rename(path)
    return path


def step_cost(cache: Path) -> tuple[float, int]:
    """CPU seconds per event of the model's node step alone, over the base traces."""
    groups: dict[str, list] = {}
    for n, text in enumerate(base_corpus(cache), start=1):
        key, rec = parse_line("base", n, text)  # type: ignore[misc]
        groups.setdefault(key, []).append(rec)
    total, count = 0.0, 0
    for recs in groups.values():
        recs.sort(key=lambda r: r.step)
        replay = NodeReplay("raft", recs[0].event["config"])
        inputs = []
        for r in recs:
            value, _ = decode_input("raft", r.event)
            if r.event["node"] is not None:
                inputs.append((r.event["node"], value))
        started = time.process_time()
        for node, value in inputs:
            replay.nodes[node], _ = replay.step_fn(replay.nodes[node], value)
        total += time.process_time() - started
        count += len(inputs)
    return total / count, count


def compare_engines(path: Path, baseline: str | None, cache: Path) -> dict[str, Any]:
    """The reference replay, the pipeline at git revision ``baseline`` (when given) and the
    lean loop on ``path``, one after the other in this process (each with cold caches), with
    the same verdicts: events per CPU second of each, and the ratios."""
    ref, _, ref_cpu = single_process(path, reference=True)
    lean, _, lean_cpu = single_process(path)
    assert (ref["violating"], ref["events"], ref["violations_by_property"]) == \
        (lean["violating"], lean["events"], lean["violations_by_property"])
    out: dict[str, Any] = {"corpus": path.name, "events": ref["events"], "traces": ref["traces"],
                           "violating": ref["violating"], "load_at_start": load(),
                           "reference_events_per_cpu_second": round(ref["events"] / ref_cpu),
                           "lean_events_per_cpu_second": round(lean["events"] / lean_cpu),
                           "lean_over_reference": round(ref_cpu / lean_cpu, 2)}
    print(f"{path.name}: {ref['events']} events; reference replay {ref['events'] / ref_cpu:.0f} events/CPU-s; "
          f"lean loop {lean['events'] / lean_cpu:.0f} events/CPU-s ({ref_cpu / lean_cpu:.2f}x); load {load()}",
          flush=True)
    if baseline:
        base, base_cpu = baseline_process(path, baseline, cache)
        assert (base["violating"], base["events"], base["violations_by_property"]) == \
            (lean["violating"], lean["events"], lean["violations_by_property"])
        again, _, again_cpu = single_process(path)  # the lean loop again, after the baseline
        out |= {"baseline": baseline, "baseline_events_per_cpu_second": round(base["events"] / base_cpu),
                "lean_again_events_per_cpu_second": round(again["events"] / again_cpu),
                "lean_over_baseline": round(base_cpu / lean_cpu, 2),
                "lean_again_over_baseline": round(base_cpu / again_cpu, 2)}
        print(f"{path.name}: pipeline at {baseline} {base['events'] / base_cpu:.0f} events/CPU-s; the lean loop "
              f"{base_cpu / lean_cpu:.2f}x (before it) and {base_cpu / again_cpu:.2f}x (after it) faster; "
              f"load {load()}", flush=True)
    out["load_at_end"] = load()
    return out


def load() -> str:
    return os.getloadavg().__repr__()


def single_process(path: Path, reference: bool = False) -> tuple[dict[str, Any], float, float]:
    """(summary, wall seconds, CPU seconds) of the local engine on ``path``."""
    from kspec.conformance.pipeline import engine, fast

    judge = engine.judge_lines_fast
    fast._CACHES.clear()  # cold: nothing remembered from an earlier run
    if reference:
        engine.judge_lines_fast = lambda p, k, lines, events=None: engine.judge_lines(p, k, lines)  # type: ignore[assignment]
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        acc = summary.empty()
        for outcome in iter_local("raft", [str(path)], []):
            summary.add(acc, outcome)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        engine.judge_lines_fast = judge  # type: ignore[assignment]
    return summary.finish(acc, protocol="raft", seconds=wall), wall, cpu


def baseline_process(path: Path, rev: str, cache: Path) -> tuple[dict[str, Any], float]:
    """(summary, CPU seconds) of the pipeline as it was at git revision ``rev`` (its modules
    read with ``git show`` into a package of their own under ``cache``), on ``path``."""
    import importlib

    root = Path(__file__).resolve().parent.parent
    name = "baseline_" + "".join(c for c in rev if c.isalnum())
    pkg = cache / name
    pkg.mkdir(exist_ok=True)
    listing = subprocess.run(["git", "-C", str(root), "ls-tree", "--name-only", rev, "conformance/pipeline/"],
                             capture_output=True, text=True, check=True).stdout.split()
    for file in listing:
        text = subprocess.run(["git", "-C", str(root), "show", f"{rev}:{file}"], capture_output=True, text=True,
                              check=True).stdout
        (pkg / Path(file).name).write_text(text.replace("kspec.conformance.pipeline.", f"{name}."))
    sys.path.insert(0, str(cache))
    old = importlib.import_module(f"{name}.local")
    old_summary = importlib.import_module(f"{name}.summary")
    cpu = time.process_time()
    acc = old_summary.empty()
    for outcome in old.run_local("raft", [str(path)], []):
        old_summary.add(acc, outcome)
    cpu = time.process_time() - cpu
    return old_summary.finish(acc, protocol="raft", seconds=cpu), cpu


def tree_cpu_seconds() -> dict[str, float]:
    """CPU seconds (user + system, with reaped children) of this process's descendants by
    command name, from /proc: Spark's JVM ("java") and its Python workers ("python")."""
    tick = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[tuple[int, str, float]]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        name, rest = text[text.index("(") + 1:text.rindex(")")], text[text.rindex(")") + 2:].split()
        cpu = sum(int(x) for x in rest[11:15]) / tick
        children.setdefault(int(rest[1]), []).append((int(entry), name, cpu))
    out: dict[str, float] = {}
    todo = [os.getpid()]
    while todo:
        for pid, name, cpu in children.get(todo.pop(), []):
            kind = "java" if name == "java" else "python" if name.startswith("python") else name
            out[kind] = out.get(kind, 0.0) + cpu
            todo.append(pid)
    return out


RSS_RUN = """
import resource, sys
from kspec.conformance.pipeline import summary
from kspec.conformance.pipeline.local import iter_local
acc = summary.empty()
for outcome in iter_local("raft", [sys.argv[1]], []):
    summary.add(acc, outcome)
print(sum(acc["events"].values()), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak_rss(path: Path) -> tuple[int, int]:
    """(events, peak RSS in KiB) of a fresh process validating ``path`` with the local engine."""
    out = subprocess.run([sys.executable, "-c", RSS_RUN, str(path)], capture_output=True, text=True, check=True)
    events, rss = out.stdout.split()
    return int(events), int(rss)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--reference-events", type=int, default=100_000)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--no-spark", action="store_true")
    parser.add_argument("--baseline", default=None, metavar="REV",
                        help="also time the pipeline as it was at this git revision (e.g. c758e3e)")
    parser.add_argument("--diverse", type=int, default=0, metavar="EVENTS",
                        help="also compare the engines on a corpus of this many events simulated afresh (no replicas)")
    parser.add_argument("--rss", default="", help="comma-separated corpus sizes for the peak-RSS runs")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "kspec-validate-bench")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"load_at_start": load(), "cpus": os.cpu_count()}
    started = time.perf_counter()
    path = corpus(args.cache, args.events)
    ref_path = corpus(args.cache, args.reference_events)
    print(f"corpora ready in {time.perf_counter() - started:.1f}s; load {load()}", flush=True)
    per_step, stepped = step_cost(args.cache)
    report["model_step_us_per_event"] = round(per_step * 1e6, 1)
    print(f"model node step: {per_step * 1e6:.1f} us/event over {stepped} events", flush=True)

    corpora = [("bench", ref_path)]
    if args.diverse:
        corpora.append(("diverse", diverse_corpus(args.cache, args.diverse)))
    for name, sample in corpora:
        report[name] = compare_engines(sample, args.baseline, args.cache)

    local, local_wall, local_cpu = single_process(path)
    report |= {"events": local["events"], "traces": local["traces"], "violating": local["violating"],
               "python_wall_s": round(local_wall, 1), "python_cpu_s": round(local_cpu, 1),
               "python_events_per_second": round(local["events"] / local_wall),
               "python_events_per_cpu_second": round(local["events"] / local_cpu)}
    print(f"python single process: {local['events']} events, {local['traces']} traces, "
          f"{local['violating']} violating, {local_wall:.1f}s wall, {local_cpu:.1f}s CPU, "
          f"{local['events'] / local_cpu:.0f} events/CPU-s; load {load()}", flush=True)

    if args.baseline:  # the pipeline at REV on the same file, right after, with the same verdicts
        base, base_cpu = baseline_process(path, args.baseline, args.cache)
        assert (base["violating"], base["events"], base["violations_by_property"]) == \
            (local["violating"], local["events"], local["violations_by_property"])
        report |= {"baseline_events_per_cpu_second": round(base["events"] / base_cpu),
                   "python_over_baseline": round(base_cpu / local_cpu, 2)}
        print(f"pipeline at {args.baseline} on the same file: {base_cpu:.1f}s CPU, "
              f"{base['events'] / base_cpu:.0f} events/CPU-s; one process now {base_cpu / local_cpu:.2f}x faster; "
              f"load {load()}", flush=True)

    if not args.no_spark:
        from kspec.conformance.pipeline.spark import run_spark, spark_session

        with spark_session(args.master) as spark:
            for run in ("spark", "spark_again"):  # the second with the Python workers warm
                before = tree_cpu_seconds()
                acc, spark_s = run_spark(spark, "raft", [str(path)], [], None)
                after = tree_cpu_seconds()
                cpu = {k: round(after[k] - before.get(k, 0.0), 1) for k in after if after[k] > before.get(k, 0.0)}
                remote = summary.finish(acc, protocol="raft", seconds=spark_s)
                assert (remote["events"], remote["violating"], remote["violations_by_property"]) == \
                    (local["events"], local["violating"], local["violations_by_property"])
                report |= {f"{run}_wall_s": round(spark_s, 1), f"{run}_cpu_s": cpu,
                           f"{run}_over_python_wall": round(local_wall / spark_s, 2)}
                print(f"{run} {args.master}: {remote['events']} events, {remote['violating']} violating, "
                      f"{spark_s:.1f}s wall, CPU {cpu} (one process: {local_cpu:.1f}), "
                      f"{local_wall / spark_s:.2f}x one process; load {load()}", flush=True)
        report["spark_master"] = args.master
    for size in [int(s) for s in args.rss.split(",") if s]:
        events, rss = peak_rss(corpus(args.cache, size))
        report[f"peak_rss_kib_{size}"] = rss
        print(f"peak RSS validating {events} events: {rss / 1024:.0f} MiB; load {load()}", flush=True)
    report["load_at_end"] = load()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
