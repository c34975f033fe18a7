"""Conformance suite benchmark: time to detection and counterexample length per mutant.

For each mutant in the catalogue, ``kspec conform`` at the default budget (or the given one):
seconds until the first failing run (before shrinking), seconds in all (with shrinking),
Hypothesis runs, the failing run's steps before shrinking and the counterexample's steps
after, and whether the counterexample replays to the same divergence. The reference targets'
runs at the same budget are the peer. Prints a Markdown table.

    python bench/conformance_bench.py [--examples N] [--steps S] [--seed S] [--only NAME ...]
                                      [--protocol P ...]

Voters runs open with the quorum's start-up (forced steps, VOTERS-MODEL-START): their
counterexample length is given as "all (after the opening)".
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from kspec.conformance.counterexample import read_counterexample
from kspec.conformance.drivers import PROTOCOLS
from kspec.conformance.drivers.runner import DEFAULT_EXAMPLES, DEFAULT_STEPS, run_conformance
from kspec.conformance.harness import replay_steps
from kspec.conformance.targets.mutants import CATALOGUE
from kspec.conformance.targets.registry import reference_protocols, reference_target


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=DEFAULT_EXAMPLES)
    ap.add_argument("--steps", type=int, default=DEFAULT_STEPS)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--protocol", nargs="*", default=None, help="only these protocols")
    args = ap.parse_args()
    out = Path(tempfile.mkdtemp(prefix="kspec-bench-"))
    print(f"kspec conform, default budget: --examples {args.examples} --steps {args.steps} --seed {args.seed}\n")
    print("| target | protocol | verdict | first failing run (s) | total with shrinking (s) | runs "
          "| steps before shrinking | counterexample steps | divergence | replays |")
    print("|---|---|---|---:|---:|---:|---:|---:|---|---|")
    peers = [(p, "") for p in reference_protocols()] + [("voters", "log")]
    for protocol, level in peers:
        if args.protocol and protocol not in args.protocol:
            continue
        r = run_conformance(protocol, reference_target(protocol, level), examples=args.examples, steps=args.steps,
                            seed_value=args.seed, out_dir=None)
        name = f"reference:{level}" if level else "reference"
        print(f"| {name} | {protocol} | {r.verdict} | - | {r.seconds:.2f} | {r.examples} | - | - | - | - |",
              flush=True)
    missed = 0
    for name, m in CATALOGUE.items():
        if (args.only and name not in args.only) or (args.protocol and m.protocol not in args.protocol):
            continue
        started = time.perf_counter()
        r = run_conformance(m.protocol, m.target(), examples=args.examples, steps=args.steps,
                            seed_value=args.seed, out_dir=out)
        total = time.perf_counter() - started
        replays = "-"
        if r.counterexample:
            meta, steps = read_counterexample(Path(r.counterexample))
            again = replay_steps(PROTOCOLS[m.protocol]().driver(meta["config"]), m.target(), steps)
            replays = "yes" if again.finding is not None and again.finding.same_as(meta["divergence"]) else "NO"
        missed += r.verdict != "diverges" or replays != "yes"
        first = "-" if r.first_found is None else f"{r.first_found:.2f}"
        where = f"{r.finding.kind} {r.finding.field}" if r.finding else "-"
        opening = sum(s.action.startswith("start-up") for s in r.steps)
        length = f"{len(r.steps)} ({len(r.steps) - opening})" if opening else f"{len(r.steps)}"
        print(f"| mutant:{name} | {m.protocol} | {r.verdict} | {first} | {total:.2f} | {r.examples} "
              f"| {r.first_steps if r.first_steps is not None else '-'} | {length} | {where} | {replays} |",
              flush=True)
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
