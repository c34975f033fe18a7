"""The raft mutants that only one of a guided path's probes catches (conformance/drivers/raft.py:
RaftDriver.probes, RAFT-DRIVE-PROBE; conformance/targets/mutants_raft.py), at the default budget
over seeds, and each again with its probe switched off: a mutant the rest of the suite also
catches is no evidence for the probe (issue #17: "each new input kind has a mutant in the
catalogue that only it catches").

    nice -n 10 python bench/probe_mutants.py [--seeds N] [--off-seeds M] [--only NAME ...]

A probe is switched off here only, never in the driver: a probe macro (macros.FirstAnswer, ...)
by a driver whose ``resolve`` does not enable it (the probe that would take it takes nothing, or
the next kind its rotation offers; macros.Canvass is a random-run macro too, off there as well),
RAFT-DRIVE-TIMER-CHAIN by a driver whose ``_timer_chain_probe`` takes nothing. The guided graphs
are explored again on each switch (guide._GRAPHS: cached by configuration, and Canvass edges are
in them).

Prints a Markdown table: runs to detection per seed with the probe on (``first_runs``: guided and
random runs until the failing one; g: a guided run, r: a random one; "liveness check: KIND": the
lockstep runs conformed and the run's liveness check caught it, a violated property or a
divergence its timed runs met), then the same with it off (seeds
0..M-1), or the verdict and the runs taken. Exits 1
when a mutant is missed at some seed with its probe on, or caught with it off.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kspec.conformance.drivers import guide, macros
from kspec.conformance.drivers.raft import RaftDriver
from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets.mutants import CATALOGUE

TIMER_CHAIN = "RAFT-DRIVE-TIMER-CHAIN"
# mutant -> the probe only it is written for (the catalogue's note names it too)
PROBE_MUTANTS: dict[str, str] = {
    "raft-candidate-loses-at-half": "FirstAnswer",
    "raft-prospective-retimes-in-place": "AbandonRound",
    "raft-stale-answer-marks-fetched": "HeldFetch",
    "raft-resigned-never-resends-end-epoch": "Retry",
    "raft-prospective-timeout-leaves-leader": TIMER_CHAIN,
    "raft-prospective-loss-votes-for-self": "Canvass",
}


@contextmanager
def probe_off(probe: str) -> Iterator[None]:
    """The raft driver without ``probe`` (a macro's class name, or TIMER_CHAIN) while inside."""
    saved: dict[str, Any] = {}
    if probe == TIMER_CHAIN:
        saved["_timer_chain_probe"] = RaftDriver._timer_chain_probe
        RaftDriver._timer_chain_probe = lambda self, state, k: ([], state)  # type: ignore[method-assign]
    else:
        kind = getattr(macros, probe)
        resolve = saved["resolve"] = RaftDriver.resolve

        def without(self: RaftDriver, state: Any, action: Any) -> Any:
            return None if isinstance(action, kind) else resolve(self, state, action)

        RaftDriver.resolve = without  # type: ignore[method-assign]
    guide._GRAPHS.clear()
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(RaftDriver, name, value)
        guide._GRAPHS.clear()


def _run(name: str, seed: int) -> str:
    result = run_conformance("raft", CATALOGUE[name].target(), seed_value=seed, out_dir=None)
    if result.verdict == "diverges" and result.first_runs is None and result.finding is not None:
        # the lockstep runs conformed; the liveness check of the conforming run caught it
        return f"liveness check: {result.finding.kind} ({result.examples} runs)"
    if result.verdict != "diverges" or result.first_runs is None:
        return f"{result.verdict} ({result.examples} runs)"
    # guided (g) or random (r): the random runs come after every guided one
    guided = result.first_runs <= result.coverage.guided_runs
    return f"{'g' if guided else 'r'}{result.first_runs}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=2, help="seeds 0..N-1 with the probe on")
    ap.add_argument("--off-seeds", type=int, default=1, help="seeds 0..M-1 with the probe off")
    ap.add_argument("--only", nargs="*", default=None)
    args = ap.parse_args()
    bad = False
    print(f"| mutant | probe | probe on: verdict, runs (seeds 0..{args.seeds - 1}) "
          f"| probe off: verdict, runs (seeds 0..{args.off_seeds - 1}) |")
    print("|---|---|---|---|", flush=True)
    for name, probe in PROBE_MUTANTS.items():
        if args.only and name not in args.only:
            continue
        on = [_run(name, seed) for seed in range(args.seeds)]
        with probe_off(probe):
            off = [_run(name, seed) for seed in range(args.off_seeds)]
        bad |= any(r.startswith(("conforms", "error")) for r in on) or any(not r.startswith("conforms") for r in off)
        print(f"| `{name}` | {probe} | {'; '.join(on)} | {'; '.join(off)} |", flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
