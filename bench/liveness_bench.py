"""The cost of liveness checking: the safety exploration alone against the liveness check of
the same model, in the same process, and each liveness variant at the bounds it is held to
in the tests and at the full defaults.

    python bench/liveness_bench.py [--only NAME ...] [--variants] [--variants-at-defaults]

Prints a Markdown table (CPU seconds of the safety run, of the liveness check, their ratio,
fault-phase and suffix states, verdicts) for docs/performance.md. CPU seconds are the figure
to compare on a shared machine.
"""

from __future__ import annotations

import argparse
import platform
import time
from typing import Any

from kspec.model.core.explorer import explore
from kspec.model.core.liveness import check_liveness
from kspec.model.raft import BOUNDS as RAFT_BOUNDS
from kspec.model.raft import PROTOCOL as RAFT
from kspec.model.raft.liveness_variants import CATALOGUE
from kspec.model.share import PROTOCOL as SHARE

DEFAULTS = {b.name: b.default for b in RAFT_BOUNDS}

CONFIGS: list[tuple[str, Any, Any, dict[str, Any]]] = [
    ("raft small", RAFT.make, RAFT.liveness, {"max_epoch": 1, "max_appends": 0}),
    ("raft default", RAFT.make, RAFT.liveness, {}),
    ("raft default pre_vote", RAFT.make, RAFT.liveness, {"pre_vote": True}),
    ("share default", SHARE.make, SHARE.liveness, {}),
]


def _row(name: str, make: Any, suffix: Any, bounds: dict[str, Any], safety: bool = True) -> None:
    model = make(**bounds)
    safety_cpu = float("nan")
    if safety:
        t = time.process_time()
        explore(model)
        safety_cpu = time.process_time() - t
    t = time.process_time()
    result = check_liveness(model, suffix(model))
    live_cpu = time.process_time() - t
    verdicts = ", ".join(f"{k}={v}" for k, v in result.verdicts.items() if v != "not-checked")
    shown = " ".join(f"{k}={v}" for k, v in bounds.items()) or "defaults"
    print(f"| {name} | {shown} | {safety_cpu:.1f} | {live_cpu:.1f} | {live_cpu / safety_cpu:.2f} | "
          f"{result.fault_states} | {result.suffix_states} | {verdicts} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", nargs="*", default=None, help="only these configurations")
    parser.add_argument("--variants", action="store_true", help="also each raft liveness variant")
    parser.add_argument("--variants-at-defaults", action="store_true",
                        help="the raft liveness variants at the full default bounds (slow)")
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, {time.strftime('%Y-%m-%d')}")
    print()
    print("| config | bounds | safety CPU s | liveness CPU s | ratio | fault-phase states | suffix states | verdicts |")
    print("|---|---|---|---|---|---|---|---|")
    for name, make, suffix, bounds in CONFIGS:
        if args.only is None or name in args.only:
            _row(name, make, suffix, bounds)
    if args.variants or args.variants_at_defaults:
        for vname, v in CATALOGUE.items():
            bounds = {**({} if args.variants_at_defaults else v.bounds)}
            if args.variants_at_defaults and "pre_vote" in v.bounds:
                bounds["pre_vote"] = True
            _row(f"raft --variant {vname}", RAFT.variants.get(vname), RAFT.liveness, bounds, safety=False)


if __name__ == "__main__":
    main()
