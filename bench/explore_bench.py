"""Explorer throughput: distinct states per second for KRaft at two bound sizes.

    python bench/explore_bench.py [--repeat N]

Prints a Markdown table (bounds, distinct states, transitions, seconds, states/s) for the
record in docs/performance.md. Each configuration runs to completion; the best of N runs is
kept, since a shared machine only ever makes a run slower.
"""

from __future__ import annotations

import argparse
import platform
import time

from kspec.model.core.explorer import explore
from kspec.model.raft import make

CONFIGS = [
    ("small", {"max_epoch": 1, "max_crashes": 0, "max_appends": 0}),
    ("default", {}),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, {time.strftime('%Y-%m-%d')}")
    print()
    print("| config | bounds | distinct states | transitions | seconds | states/s |")
    print("|---|---|---|---|---|---|")
    for name, bounds in CONFIGS:
        best = None
        for _ in range(args.repeat):
            result = explore(make(**bounds))
            if best is None or result.seconds < best.seconds:
                best = result
        assert best is not None and best.complete and not best.violations
        shown = " ".join(f"{k}={v}" for k, v in best.bounds.items())
        print(f"| {name} | {shown} | {best.distinct_states} | {best.transitions} | {best.seconds:.1f} | "
              f"{best.states_per_second:.0f} |")


if __name__ == "__main__":
    main()
