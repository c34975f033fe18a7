"""Explorer throughput: distinct states per second for KRaft at two bound sizes and for the
voter-set model (KIP-853) at its defaults.

    python bench/explore_bench.py [--repeat N] [--only NAME ...]

Prints a Markdown table (bounds, distinct states, transitions, seconds, CPU seconds, states/s)
for the record in docs/performance.md. Each configuration runs to completion; the best of N
runs is kept, since a shared machine only ever makes a run slower (CPU seconds less so than
wall seconds).
"""

from __future__ import annotations

import argparse
import platform
import time

from kspec.model.core.explorer import explore
from kspec.model.raft import make
from kspec.model.voters import PROTOCOL as VOTERS

CONFIGS = [
    ("small", make, {"max_epoch": 1, "max_crashes": 0, "max_appends": 0}),
    ("default", make, {}),
    ("voters default", VOTERS.make, {}),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=None, help="only these configurations")
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, {time.strftime('%Y-%m-%d')}")
    print()
    print("| config | bounds | distinct states | transitions | seconds | CPU seconds | states/s |")
    print("|---|---|---|---|---|---|---|")
    for name, build, bounds in CONFIGS:
        if args.only and name not in args.only:
            continue
        best, best_cpu = None, 0.0
        for _ in range(args.repeat):
            cpu = time.process_time()
            result = explore(build(**bounds))
            cpu = time.process_time() - cpu
            if best is None or result.seconds < best.seconds:
                best, best_cpu = result, cpu
        assert best is not None and best.complete and not best.violations and all(best.witnesses.values())
        shown = " ".join(f"{k}={v}" for k, v in best.bounds.items())
        print(f"| {name} | {shown} | {best.distinct_states} | {best.transitions} | {best.seconds:.1f} | "
              f"{best_cpu:.1f} | {best.states_per_second:.0f} |", flush=True)


if __name__ == "__main__":
    main()
