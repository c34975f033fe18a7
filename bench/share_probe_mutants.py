"""The share mutants that only the probe requests reach (conformance/drivers/share.py:
epochs, delete, summary, keys, batches), at the default budget over seeds, and each again with the
probes off: a mutant the protocol actors alone also catch is not evidence for the probes.

    nice -n 10 python bench/share_probe_mutants.py [--seeds N] [--only NAME ...] [--no-baseline]

Prints a Markdown table (runs to detection and counterexample length per seed; the verdict
with probes off at seed 0); exits 1 when a mutant is missed at some seed with probes on, or
caught with them off.
"""

from __future__ import annotations

import argparse
import sys

from kspec.conformance.drivers import guide
from kspec.conformance.drivers import share as share_driver
from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets.mutants import CATALOGUE

PROBE_MUTANTS = ("share-delete-keeps-fences", "share-delete-without-tombstone", "share-replay-skips-tombstone",
                 "share-summary-leader-epoch-from-fence", "share-summary-records-leader-epoch",
                 "share-write-records-higher-state-epoch", "share-stale-initialize-accepted",
                 "share-initialize-unknown-partition", "share-fences-ignore-group", "share-start-offset-regresses",
                 "share-merge-ignores-count", "share-image-before-fences")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5, help="seeds 0..N-1")
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--no-baseline", action="store_true", help="skip the run with the probes off")
    args = ap.parse_args()
    names = args.only or list(PROBE_MUTANTS)
    bad = False
    print(f"| mutant | runs to detection (seeds 0..{args.seeds - 1}) | counterexample steps | probes off, seed 0 |")
    print("|---|---|---|---|")
    for name in names:
        mutant = CATALOGUE[name]
        runs, lengths = [], []
        for seed in range(args.seeds):
            result = run_conformance("share", mutant.target(), seed_value=seed, out_dir=None)
            if result.verdict != "diverges":
                bad = True
                runs.append(f"**{result.verdict}**")
                lengths.append("-")
            else:
                runs.append(str(result.first_runs if result.first_runs is not None else result.examples))
                lengths.append(str(len(result.steps)))
        baseline = "-"
        if not args.no_baseline:
            share_driver.BOUNDS["probes"] = False
            guide._GRAPHS.clear()  # the guided graphs are cached by configuration, not by bounds
            try:
                off = run_conformance("share", mutant.target(), seed_value=0, out_dir=None)
            finally:
                share_driver.BOUNDS["probes"] = True
                guide._GRAPHS.clear()
            baseline = off.verdict
            bad |= off.verdict == "diverges"
        print(f"| `{name}` | {', '.join(runs)} | {', '.join(lengths)} | {baseline} |", flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
