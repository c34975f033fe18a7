"""Search power per mutant: runs and seconds to detection and the counterexample's length, at the
default budget (``kspec conform`` as a user runs it: guided paths mixed with random walks,
Hypothesis shrinking and the ddmin minimiser), over seeds; then the median and the maximum.

By default the search-power mutants (``conformance/targets/mutants_power.py``, issue #19); ``--all``
takes the whole catalogue. Seconds to detection are from the start of the run, the
exploration of the guided graphs included (each run explores them afresh, as a new ``kspec
conform`` process does). Counterexample length counts the steps after a driver's forced
opening (voters: the quorum's start-up) and, in brackets, with it. Prints a Markdown table;
exits 1 when some mutant was missed at some seed.

    nice -n 10 python bench/mutant_power.py [--seeds N] [--all] [--only NAME ...] [--cover MODE]
    nice -n 10 python bench/mutant_power.py --reference   # the cost of guided runs

``--reference`` times ``kspec conform P --target reference`` at the default budget for every
protocol with ``--cover mixed`` and ``--cover random`` alternately (the peer in the same run),
each from a fresh graph cache, and prints the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys

from kspec.conformance.drivers import guide
from kspec.conformance.drivers.runner import COVER_MODES, run_conformance
from kspec.conformance.targets.mutants import CATALOGUE
from kspec.conformance.targets.mutants_power import ENTRIES


def _opening_steps(result: object) -> int:
    """Steps the forced opening took in a counterexample (their labels name the start-up)."""
    return sum(1 for s in getattr(result, "steps", []) if str(s.action).startswith("start-up"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5, help="seeds 0..N-1")
    ap.add_argument("--all", action="store_true", help="the whole catalogue, not only the search-power mutants")
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--cover", choices=COVER_MODES, default="mixed")
    ap.add_argument("--reference", action="store_true", help="time reference runs, mixed against random")
    args = ap.parse_args()
    if args.reference:
        reference_cost(args.seeds)
        return
    names = [n for n in CATALOGUE if args.all or n in {e[0] for e in ENTRIES}]
    if args.only:
        names = [n for n in names if n in args.only]
    print(f"kspec conform at the default budget (--cover {args.cover}), seeds 0-{args.seeds - 1}\n")
    print("| mutant | caught | runs to detection (median, max) | seconds to detection (median, max) "
          "| counterexample steps after the opening (max) [with it] |")
    print("|---|---:|---:|---:|---:|")
    missed = 0
    all_seconds: list[float] = []
    all_lengths: list[int] = []
    for name in names:
        m = CATALOGUE[name]
        runs: list[int] = []
        seconds: list[float] = []
        lengths: list[int] = []
        whole: list[int] = []
        for seed in range(args.seeds):
            guide._GRAPHS.clear()  # as a fresh ``kspec conform`` process: the guided graphs are explored again
            r = run_conformance(m.protocol, m.target(), seed_value=seed, out_dir=None, cover=args.cover)
            if r.verdict != "diverges" or r.first_runs is None or r.first_found is None:
                missed += 1
                continue
            runs.append(r.first_runs)
            seconds.append(r.first_found)
            opening = _opening_steps(r)
            lengths.append(len(r.steps) - opening)
            whole.append(len(r.steps))
        all_seconds += seconds
        all_lengths += lengths
        if runs:
            print(f"| {name} | {len(runs)}/{args.seeds} | {statistics.median(runs):g}, {max(runs)} | "
                  f"{statistics.median(seconds):.1f}, {max(seconds):.1f} | {max(lengths)} [{max(whole)}] |",
                  flush=True)
        else:
            print(f"| {name} | 0/{args.seeds} | - | - | - |", flush=True)
    if all_seconds:
        print(f"\nseconds to detection over every caught run: median {statistics.median(all_seconds):.1f}, "
              f"max {max(all_seconds):.1f}; counterexample steps after the opening: median "
              f"{statistics.median(all_lengths):g}, max {max(all_lengths)}; missed {missed}")
    sys.exit(1 if missed else 0)


def reference_cost(seeds: int) -> None:
    """Seconds of a default reference run, guided-and-random against random only."""
    import time

    from kspec.conformance.targets.registry import reference_protocols, reference_target

    print("| protocol | mixed (s, median) | random (s, median) | ratio | mixed: transitions covered | random |")
    print("|---|---:|---:|---:|---:|---:|")
    for protocol in reference_protocols():
        times: dict[str, list[float]] = {"mixed": [], "random": []}
        cov: dict[str, str] = {}
        for seed in range(seeds):
            for cover in ("mixed", "random"):
                guide._GRAPHS.clear()
                started = time.perf_counter()
                r = run_conformance(protocol, reference_target(protocol), seed_value=seed, out_dir=None, cover=cover)
                times[cover].append(time.perf_counter() - started)
                assert r.verdict == "conforms", (protocol, cover, r.finding)
                doc = r.coverage.to_json()
                cov[cover] = f"{doc['edges_covered']}/{doc['edges_total']}"
        m, r_ = statistics.median(times["mixed"]), statistics.median(times["random"])
        print(f"| {protocol} | {m:.1f} | {r_:.1f} | {m / r_:.2f} | {cov['mixed']} | {cov['random']} |", flush=True)


if __name__ == "__main__":
    main()
