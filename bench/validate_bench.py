"""Trace validation throughput: single-process Python replay vs Spark local[2], same corpus.

    python bench/validate_bench.py [--events 1000000] [--master local[2]] [--cache DIR]

The corpus: raft traces simulated from the reference model and from the ``vote-twice``
variant (so some traces violate), then replicated under fresh trace ids until it holds at least
``--events`` events (simulating a million events from scratch takes far longer than replaying
them; the replicas are ordinary, independent traces to the validator). It is cached under
``--cache`` (a temp dir by default). Reported: events/second for both engines, their ratio,
and the per-event cost of the model's node step alone (decode excluded), measured over the
base traces in this process.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from kspec.conformance.clikit import build_model, protocol_info
from kspec.conformance.pipeline import summary
from kspec.conformance.pipeline.local import run_local
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
    tmp = path.with_suffix(".tmp")
    written = 0
    with tmp.open("w") as f:
        copy = 0
        while written < events:
            for text in base:
                ev = json.loads(text)
                ev["trace"] = f"{ev['trace']}-r{copy}"
                f.write(json.dumps(ev) + "\n")
            written += len(base)
            copy += 1
    tmp.rename(path)
    return path


def step_cost(cache: Path) -> tuple[float, int]:
    """Seconds per event of the model's node step alone, over the base traces."""
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
        started = time.perf_counter()
        for node, value in inputs:
            replay.nodes[node], _ = replay.step_fn(replay.nodes[node], value)
        total += time.perf_counter() - started
        count += len(inputs)
    return total / count, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "kspec-validate-bench")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    path = corpus(args.cache, args.events)
    print(f"corpus {path} ready in {time.perf_counter() - started:.1f}s")
    per_step, stepped = step_cost(args.cache)
    print(f"model node step: {per_step * 1e6:.1f} us/event over {stepped} events")

    started = time.perf_counter()
    acc = summary.empty()
    for outcome in run_local("raft", [str(path)], []):
        summary.add(acc, outcome)
    local_s = time.perf_counter() - started
    local = summary.finish(acc, protocol="raft", seconds=local_s)
    print(f"python single process: {local['events']} events, {local['traces']} traces, "
          f"{local['violating']} violating, {local_s:.1f}s, {local['events_per_second']:.0f} events/s")

    from kspec.conformance.pipeline.spark import run_spark, spark_session

    with spark_session(args.master) as spark:
        acc, spark_s = run_spark(spark, "raft", [str(path)], [], None)
    remote = summary.finish(acc, protocol="raft", seconds=spark_s)
    print(f"spark {args.master}: {remote['events']} events, {remote['traces']} traces, "
          f"{remote['violating']} violating, {spark_s:.1f}s, {remote['events_per_second']:.0f} events/s")
    assert (remote["events"], remote["violating"]) == (local["events"], local["violating"])
    print(json.dumps({"events": local["events"], "python_events_per_second": local["events_per_second"],
                      "spark_master": args.master, "spark_events_per_second": remote["events_per_second"],
                      "spark_over_python": round(remote["events_per_second"] / local["events_per_second"], 2),
                      "model_step_us_per_event": round(per_step * 1e6, 1),
                      "replay_us_per_event_python": round(1e6 / local["events_per_second"], 1)}))


if __name__ == "__main__":
    main()
