"""Red-team power: the planted bugs of ``bench/redteam/`` (buggy ``python:`` targets written from
the user-facing material only) run at the default budget, per seed: caught or escaped, runs to
detection and the counterexample's length. Prints a Markdown table, then the escaped bugs.

    nice -n 10 python bench/redteam_power.py [--seeds N] [--first-seed S] [--protocols raft mm2 ...] [--only BUG ...]
        [--modules raft_scratch ...] [--fresh-graphs]

Each bug's module first proves its bug-free target conforms (``--no-correct`` skips that). A bug
counts as caught at a seed when the run ends ``diverges``; ``error`` (the target crashed) is
listed apart. Exit 1 when some bug escaped at some seed.

The guide graph of a configuration (``guide.graph_for``) is explored once and kept for the later
runs of that configuration: it depends only on the driver and its configuration (the cache key),
never on the target or the seed, and nothing mutates it after exploration, so a run takes the
same paths as a fresh ``kspec conform`` process would (mm2 power runs spent 1-2.5 min per bug
re-exploring it). ``--fresh-graphs`` clears it before every run, as a fresh process.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from kspec.conformance.drivers import guide
from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets.registry import resolve_target

PROTOCOLS = ("raft", "voters", "share", "mm2", "streams")
# The modules of bench/redteam/, one line each, grouped by protocol (a new module is one line at
# the end of its protocol's group; tests/bench/test_redteam_scratch.py's BASELINES likewise):
# session 5's (over the reference replicas), then the ``*_scratch*`` modules written from scratch
# (the drivers and the model unread), sessions 7-11.
MODULE_LINES: tuple[tuple[str, str], ...] = (
    # raft
    ("raft", "raft"),
    ("raft", "raft_scratch"),
    ("raft", "raft_scratch2"),
    ("raft", "raft_scratch3"),
    ("raft", "raft_scratch4"),
    ("raft", "raft_scratch5"),
    ("raft", "raft_scratch6"),
    ("raft", "raft_scratch7"),
    ("raft", "raft_scratch8"),
    ("raft", "raft_scratch9"),
    ("raft", "raft_scratch10"),
    ("raft", "raft_scratch11"),
    ("raft", "raft_scratch12"),
    ("raft", "raft_scratch13"),
    ("raft", "raft_scratch14"),
    ("raft", "raft_scratch15"),
    ("raft", "raft_scratch16"),
    ("raft", "raft_scratch17"),
    ("raft", "raft_scratch18"),
    ("raft", "raft_scratch19"),
    ("raft", "raft_scratch20"),
    # voters
    ("voters", "voters"),
    ("voters", "voters_scratch"),
    ("voters", "voters_scratch2"),
    ("voters", "voters_scratch3"),
    ("voters", "voters_scratch4"),
    ("voters", "voters_scratch5"),
    ("voters", "voters_scratch6"),
    ("voters", "voters_scratch7"),
    ("voters", "voters_scratch8"),
    ("voters", "voters_scratch9"),
    ("voters", "voters_scratch10"),
    ("voters", "voters_scratch11"),
    ("voters", "voters_scratch12"),
    ("voters", "voters_scratch13"),
    ("voters", "voters_scratch14"),
    ("voters", "voters_scratch15"),
    ("voters", "voters_scratch16"),
    ("voters", "voters_scratch17"),
    # share
    ("share", "share"),
    ("share", "share_scratch"),
    ("share", "share_scratch2"),
    ("share", "share_scratch3"),
    ("share", "share_scratch4"),
    ("share", "share_scratch5"),
    ("share", "share_scratch6"),
    ("share", "share_scratch7"),
    ("share", "share_scratch8"),
    ("share", "share_scratch9"),
    ("share", "share_scratch10"),
    ("share", "share_scratch11"),
    ("share", "share_scratch12"),
    ("share", "share_scratch13"),
    ("share", "share_scratch14"),
    ("share", "share_scratch15"),
    ("share", "share_scratch16"),
    ("share", "share_scratch17"),
    ("share", "share_scratch18"),
    # mm2
    ("mm2", "mm2"),
    ("mm2", "mm2_scratch"),
    ("mm2", "mm2_scratch2"),
    ("mm2", "mm2_scratch3"),
    ("mm2", "mm2_scratch4"),
    ("mm2", "mm2_scratch5"),
    ("mm2", "mm2_scratch6"),
    ("mm2", "mm2_scratch7"),
    ("mm2", "mm2_scratch8"),
    ("mm2", "mm2_scratch9"),
    ("mm2", "mm2_scratch10"),
    ("mm2", "mm2_scratch11"),
    ("mm2", "mm2_scratch12"),
    ("mm2", "mm2_scratch13"),
    ("mm2", "mm2_scratch14"),
    ("mm2", "mm2_scratch15"),
    ("mm2", "mm2_scratch16"),
    # streams
    ("streams", "streams"),
    ("streams", "streams_scratch"),
    ("streams", "streams_scratch2"),
    ("streams", "streams_scratch3"),
    ("streams", "streams_scratch4"),
    ("streams", "streams_scratch5"),
    ("streams", "streams_scratch6"),
    ("streams", "streams_scratch7"),
    ("streams", "streams_scratch8"),
    ("streams", "streams_scratch9"),
    ("streams", "streams_scratch10"),
    ("streams", "streams_scratch11"),
    ("streams", "streams_scratch12"),
    ("streams", "streams_scratch13"),
    ("streams", "streams_scratch14"),
    ("streams", "streams_scratch15"),
)
MODULES = {p: tuple(m for q, m in MODULE_LINES if q == p) for p in PROTOCOLS}


def run(protocol: str, module: str, attr: str, seed: int, fresh_graphs: bool = False) -> object:
    if fresh_graphs:
        guide._GRAPHS.clear()  # as a fresh ``kspec conform`` process would
    target = resolve_target(f"python:redteam.{module}:{attr}", protocol)
    return run_conformance(protocol, target, seed_value=seed, out_dir=None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5, help="seeds FIRST..FIRST+N-1")
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--protocols", nargs="*", default=list(PROTOCOLS))
    ap.add_argument("--only", nargs="*", default=None, help="bug names")
    ap.add_argument("--modules", nargs="*", default=None, help="modules of bench/redteam/ (default: all)")
    ap.add_argument("--no-correct", action="store_true", help="skip the bug-free targets")
    ap.add_argument("--fresh-graphs", action="store_true",
                    help="explore the guide graph again for every run (as a fresh process; slower, same runs)")
    args = ap.parse_args()
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    print(f"red-team bugs at the default budget, seeds {seeds[0]}-{seeds[-1]}\n")
    print("| protocol | bug | caught | runs to detection (median, max) | counterexample steps (max) |")
    print("|---|---|---:|---:|---:|", flush=True)
    escaped: list[str] = []
    total = caught_total = 0
    for protocol, name in [(p, m) for p in args.protocols for m in MODULES[p]]:
        if args.modules and name not in args.modules:
            continue
        module = importlib.import_module(f"redteam.{name}")
        if not args.no_correct and not args.only:
            for correct in getattr(module, "BASELINES", (module.CORRECT,)):
                r = run(protocol, name, correct, 0, args.fresh_graphs)
                if r.verdict != "conforms":
                    print(f"| {protocol} | (bug-free {correct}) | {r.verdict}: {r.finding} | | |", flush=True)
        for bug, attr in module.TARGETS.items():
            if args.only and bug not in args.only:
                continue
            runs: list[int] = []
            lengths: list[int] = []
            errors = 0
            for seed in seeds:
                r = run(protocol, name, attr, seed, args.fresh_graphs)
                if r.verdict == "diverges" and r.first_runs is not None:
                    runs.append(r.first_runs)
                    lengths.append(len(r.steps))
                elif r.verdict == "error":
                    errors += 1
            total += 1
            caught = f"{len(runs)}/{args.seeds}" + (f" ({errors} error)" if errors else "")
            if runs:
                caught_total += len(runs) == args.seeds
                print(f"| {protocol} | {bug} | {caught} | {statistics.median(runs):g}, {max(runs)} | "
                      f"{max(lengths)} |", flush=True)
            else:
                print(f"| {protocol} | {bug} | {caught} | - | - |", flush=True)
            if len(runs) < args.seeds:
                escaped.append(f"{protocol}:{bug} ({args.seeds - len(runs)}/{args.seeds} seeds)")
    print(f"\ncaught at every seed: {caught_total}/{total}; escaped at some seed: {len(escaped)}")
    for e in escaped:
        print(f"  escaped {e}")
    sys.exit(1 if escaped else 0)


if __name__ == "__main__":
    main()
