"""Hostile input at volume: generated bad files and argument lists for every reader and command,
run in process, counting outcomes that break the CLI contract (an internal error, a traceback,
an exit code other than 0/1/2, an error of more than one line).

    nice -n 10 python bench/fuzz_inputs.py [--cases 100000] [--seed 0] [--work DIR]

Cases are split evenly between the seven file kinds (counterexample, ITF trace, JSON Lines
events, explore/simulate JSON, TLC error trace, TLC -simulate trace, TLC -dump) and argument
lists; each file case runs every TLC reader (TLC kinds) or explain and replay twice (JSON kinds).
The generators are tests/hostile_fuzz.py, which the Hypothesis fuzz test in the default test run
uses too. Prints one JSON document; exit 1 when any case broke the contract.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.hostile_fuzz import OUTCOMES, Files, check_argv, check_file, hostile_argv, mutate, seed_documents  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", type=Path, default=None, help="scratch directory (default: a temp dir)")
    ap.add_argument("--show", type=int, default=20, help="failures to print")
    ap.add_argument("--save", type=Path, default=None, help="write the failing file cases here")
    ap.add_argument("--trace", action="store_true", help="print every case before running it")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="kspec-fuzz-"))
    work.mkdir(parents=True, exist_ok=True)
    os.chdir(work)  # a default --out or site/ lands here, never in the repository
    docs = seed_documents(work / "seeds")
    cx = work / "seed-cx.itf.json"
    cx.write_bytes(docs["counterexample"])
    itf = work / "seed.itf.json"
    itf.write_bytes(docs["itf"])
    (work / "paths").mkdir(exist_ok=True)
    files = Files(work / "paths", cx, itf)
    kinds = [*docs, "argv"]
    rng = random.Random(args.seed)
    by_kind: Counter[str] = Counter()
    failures: list[str] = []
    started = time.perf_counter()
    cpu0 = time.process_time()
    slow: list[str] = []
    for n in range(args.cases):
        kind = kinds[n % len(kinds)]
        began = time.perf_counter()
        if kind == "argv":
            argv = hostile_argv(rng, files)
            if args.trace:
                print(f"case {n}: {argv}", file=sys.stderr, flush=True)
            problems = check_argv(argv)
            what = " ".join(repr(a)[:40] for a in argv)
        else:
            data = mutate(rng, kind, docs[kind], rng.randrange(1, 5))
            if args.trace:
                print(f"case {n}: {kind} {data[:200]!r}", file=sys.stderr, flush=True)
            problems = check_file(kind, data, work)
            what = f"{kind} of {len(data)} bytes"
        if (n + 1) % 5000 == 0:
            print(f"progress: {n + 1} cases, {len(failures)} failures, {time.perf_counter() - started:.0f} s",
                  file=sys.stderr, flush=True)
        if time.perf_counter() - began > 2.0:
            slow.append(f"case {n} ({what}): {time.perf_counter() - began:.1f} s")
        by_kind[kind] += 1
        failures += problems
        if problems and len(failures) <= args.show:
            print(f"case {n} ({kind}): {problems[0]}", file=sys.stderr)
            if args.save is not None and kind != "argv":
                args.save.mkdir(parents=True, exist_ok=True)
                (args.save / f"case-{n}-{kind}.bin").write_bytes(data)
    seconds = time.perf_counter() - started
    doc = {"cases": args.cases, "seed": args.seed, "by_kind": dict(by_kind), "failures": len(failures),
           "outcomes": dict(sorted(OUTCOMES.items())), "slow_cases": slow[:20],
           "seconds": round(seconds, 1), "cpu_seconds": round(time.process_time() - cpu0, 1),
           "cases_per_second": round(args.cases / seconds, 1), "python": platform.python_version(),
           "machine": f"{platform.machine()}, {os.cpu_count()} cores"}
    print(json.dumps(doc, indent=2))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
