"""The pipeline at a git revision against this tree, alternated in one process on one corpus:
events per CPU second of each run (both with cold fast-path caches) and the ratio of medians.

    nice -n 10 python bench/validate_ab.py CORPUS REV ROUNDS

e.g. ``bench/validate_ab.py /tmp/scale/cache/corpus-1000000.jsonl a98a4d8 2`` (base, new, new,
base): the first run of a process is the slowest whichever engine it is, so the order alternates.
The corpus is one ``validate_bench.py --cache DIR`` made; every run must give the same verdicts.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import validate_bench as vb  # (bench/ is the script's directory: on sys.path)


def main() -> None:
    path, rev, rounds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    cache = path.parent
    rates: dict[str, list[float]] = {"base": [], "new": []}
    want = None
    for r in range(rounds):
        for which in ("base", "new") if r % 2 == 0 else ("new", "base"):
            if which == "base":
                old = sys.modules.get(f"baseline_{rev}.fast")
                if old is not None:
                    old._CACHES.clear()  # cold, as single_process makes this tree's
                got, cpu = vb.baseline_process(path, rev, cache)
            else:
                got, _, cpu = vb.single_process(path)
            verdicts = (got["events"], got["violating"], got["violations_by_property"])
            assert want is None or verdicts == want, (which, verdicts, want)
            want = verdicts
            rates[which].append(got["events"] / cpu)
            print(which, *verdicts, f"{cpu:.2f} CPU-s", f"{got['events'] / cpu:.0f} events/CPU-s", vb.load(),
                  flush=True)
    base, new = rates["base"], rates["new"]
    print(f"base median {statistics.median(base):.0f} best {max(base):.0f}; new median {statistics.median(new):.0f} "
          f"best {max(new):.0f}; ratio of medians {statistics.median(new) / statistics.median(base):.3f}, "
          f"of bests {max(new) / max(base):.3f}")


if __name__ == "__main__":
    main()
