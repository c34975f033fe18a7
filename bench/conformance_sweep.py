"""Conformance suite benchmark across seeds: how reliably the default budget catches each mutant.

For each mutant in the catalogue and each seed, ``kspec conform`` at the default budget (or the
given one) without shrinking: whether it was caught, and the Hypothesis runs (invalid ones
included) and seconds until the first failing run. ``conformance_bench.py`` gives one seed
with shrinking and replay; this gives the spread a single seed hides. Prints a Markdown table;
exits 1 when some mutant was missed at some seed.

    python bench/conformance_sweep.py [--seeds N] [--examples N] [--steps S] [--only NAME ...]
                                      [--protocol P ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys

from kspec.conformance.drivers.runner import DEFAULT_EXAMPLES, DEFAULT_STEPS, run_conformance
from kspec.conformance.targets.mutants import CATALOGUE


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10, help="seeds 0..N-1")
    ap.add_argument("--examples", type=int, default=DEFAULT_EXAMPLES)
    ap.add_argument("--steps", type=int, default=DEFAULT_STEPS)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--protocol", nargs="*", default=None, help="only these protocols")
    args = ap.parse_args()
    print(f"kspec conform without shrinking: --examples {args.examples} --steps {args.steps}, "
          f"seeds 0-{args.seeds - 1}\n")
    print("| mutant | caught | runs to the first failing run (median, max) | seconds to it (median, max) |")
    print("|---|---:|---:|---:|")
    missed = 0
    for name, m in CATALOGUE.items():
        if (args.only and name not in args.only) or (args.protocol and m.protocol not in args.protocol):
            continue
        runs: list[int] = []
        seconds: list[float] = []
        for seed in range(args.seeds):
            r = run_conformance(m.protocol, m.target(), examples=args.examples, steps=args.steps,
                                seed_value=seed, out_dir=None, shrink=False)
            if r.verdict == "diverges" and r.first_runs is not None and r.first_found is not None:
                runs.append(r.first_runs)
                seconds.append(r.first_found)
        missed += len(runs) < args.seeds
        spread = (f"{statistics.median(runs):.0f}, {max(runs)} | {statistics.median(seconds):.2f}, "
                  f"{max(seconds):.2f}") if runs else "- | -"
        print(f"| {name} | {len(runs)}/{args.seeds} | {spread} |", flush=True)
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
