"""TLC's liveness verdicts (tla/KRaftLive.tla) against the explorer's, reference and every variant.

For the reference at the shipped config's bounds (tla/KRaft.cfg, what ``kspec tla check raft``
runs with no bounds) and each liveness variant KRaftLive.tla has (model/raft/liveness_variants.py)
at its catalogue bounds over those, runs the explorer's liveness check and TLC's, and prints
each property's two verdicts, whether the variant is caught (a property in its ``breaks`` found
violated by both) and the seconds. Heavy (a TLC run per property where one is violated): run it
alone, under ``nice -n 10``; docs/performance.md has the figures.

    python bench/tla_liveness_variants.py [--only NAME ...] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from kspec.conformance.commands.tla import shipped_bounds
from kspec.model.raft.liveness_variants import CATALOGUE
from kspec.tla.liveness import check_liveness_agreement, supported, variant_bounds
from kspec.tla.mappings.raft import FIXED_BOUNDS


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", help="reference and/or variant names (default: all)")
    ap.add_argument("--timeout", type=float, default=1800.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    base: dict[str, int | bool] = {**shipped_bounds("raft"), **FIXED_BOUNDS}
    names = ["reference", *(v for v in CATALOGUE if supported(v))]
    if args.only:
        names = [n for n in names if n in args.only]
    rows: list[dict[str, Any]] = []
    ok = True
    for name in names:
        variant = None if name == "reference" else name
        bounds = base if variant is None else variant_bounds(variant, base)
        started = time.perf_counter()
        live = check_liveness_agreement(bounds, variant=variant, timeout=args.timeout)
        breaks = () if variant is None else CATALOGUE[variant].breaks
        caught = any(live.tlc[b] == live.explorer[b] == "violated" for b in breaks)
        row = {"name": name, **live.as_json(), "caught": caught if variant else None,
               "bounds": {k: v for k, v in bounds.items() if base.get(k) != v},
               "wall_seconds": round(time.perf_counter() - started, 1)}
        rows.append(row)
        ok &= live.agree and (variant is None or caught)
        if not args.json:
            verdicts = ", ".join(f"{n}: {v['explorer']}/{v['tlc']}" for n, v in row["properties"].items()
                                 if v["explorer"] != "not-checked" or v["tlc"] != "not-checked")
            print(f"{name}: agree={live.agree} caught={row['caught']} explorer {live.explorer_seconds:.1f}s "
                  f"TLC {live.tlc_seconds:.1f}s ({live.tlc_runs} runs, {live.tlc_distinct_states} states) "
                  f"[{verdicts}] {row['bounds']}", flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
