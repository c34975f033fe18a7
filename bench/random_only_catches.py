"""Catches that depend on random-run luck: for each catalogued mutant (and, with ``--redteam``,
each planted bug of ``bench/redteam/``) of the given protocols, the run of a default ``kspec
conform`` that catches it at a seed and the phase that run belongs to; then the list of those
caught only by a random run.

    nice -n 10 python bench/random_only_catches.py [--protocols raft voters ...] [--seed S]
        [--only NAME ...] [--redteam] [--modules raft ...] [--guided-only]

``--guided-only`` runs the guided phase alone (``--cover transitions`` at half the default
budget: exactly the default run's guided runs, the same at every seed; then the liveness check
if they conform): a name it does not catch is listed as random-only (phase ``escaped``)
without the random runs that may or may not catch it, the costly part (a raft mutant that
escapes takes all 300 runs).

A default run takes the guided paths first (runs 1..``coverage.guided_runs``: the driver's
graph and probes, the same whatever the seed), then Hypothesis's random runs. A catch in the
guided phase holds while the driver's graph keeps the path; a catch in the random phase holds
only while the draws do, and any change to a driver's categories, weights or inputs moves them
(session 14: ``voters-restart-follows-unreachable-leader`` escaped the default budget after one
input moved category). The phase is the ``phase`` of ``kspec conform --json``
(:func:`phase_of` also reads an older document without it). ``liveness``: the liveness check
after the runs conformed (its suffixes draw from ``random.Random(seed)``, not from the lockstep
rules, so a driver change moves them less; they are listed apart).

Each run is the default budget without shrinking or minimising (the run that first fails is
the same; only the counterexample would be shorter). Prints a Markdown table and the
random-only list; exit 1 when something escaped.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

PHASES = ("guided", "random", "liveness")


@dataclass(frozen=True)
class Catch:
    """How one mutant or bug fared at one seed."""

    name: str
    protocol: str
    seed: int
    verdict: str
    run: int | None  # runs_to_detection (None: not caught in a run, or not caught)
    phase: str | None  # guided | random | liveness | None (not caught)
    guided_runs: int

    def line(self) -> str:
        run = "-" if self.run is None else str(self.run)
        return (f"| {self.protocol} | {self.name} | {self.seed} | {self.verdict} | {run} | "
                f"{self.phase or 'escaped'} | {self.guided_runs} |")


def phase_of(doc: dict[str, Any]) -> str | None:
    """The phase of a ``kspec conform --json`` document's catch (None: it did not diverge): its
    ``phase``, or, in a document from before that key, the detection run against the guided runs."""
    if doc.get("verdict") != "diverges":
        return None
    if "phase" in doc:
        found: str | None = doc["phase"]
        return found
    run = doc.get("runs_to_detection")
    if run is None:
        return "liveness"
    guided = int((doc.get("coverage") or {}).get("guided_runs") or 0)
    return "guided" if run <= guided else "random"


def catch_of(name: str, protocol: str, seed: int, doc: dict[str, Any]) -> Catch:
    """A ``--json`` document (or ``ConformResult.to_json()``) as a :class:`Catch`."""
    guided = int((doc.get("coverage") or {}).get("guided_runs") or 0)
    return Catch(name, protocol, seed, str(doc.get("verdict")), doc.get("runs_to_detection"), phase_of(doc), guided)


def random_only(catches: Iterable[Catch]) -> list[str]:
    """The names caught at some seed only by a random run (or escaped), never by the guided
    phase or the liveness check, in the order first met."""
    by_name: dict[str, list[Catch]] = {}
    for c in catches:
        by_name.setdefault(c.name, []).append(c)
    return [n for n, cs in by_name.items() if any(c.phase in (None, "random") for c in cs)]


def _subjects(protocols: list[str], only: list[str] | None, redteam: bool,
              modules: list[str] | None) -> Iterator[tuple[str, str, Any]]:
    """(name, protocol, target factory) for each catalogued mutant, then each red-team bug."""
    from kspec.conformance.targets.mutants import CATALOGUE
    from kspec.conformance.targets.registry import resolve_target

    for protocol in protocols:
        for name, m in CATALOGUE.items():
            if m.protocol == protocol and (not only or name in only):
                yield name, protocol, m.target
    if not redteam:
        return
    from redteam_power import MODULES

    for protocol in protocols:
        for module_name in MODULES.get(protocol, ()):
            if modules and module_name not in modules:
                continue
            module = importlib.import_module(f"redteam.{module_name}")
            for bug, attr in module.TARGETS.items():
                if only and bug not in only:
                    continue
                spec = f"python:redteam.{module_name}:{attr}"
                yield f"{module_name}:{bug}", protocol, (lambda s=spec, p=protocol: resolve_target(s, p))


def main() -> None:
    from kspec.conformance.drivers.runner import DEFAULT_EXAMPLES, run_conformance

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--protocols", nargs="*", default=["raft", "voters"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", nargs="*", default=None, help="mutant or bug names")
    ap.add_argument("--redteam", action="store_true", help="the planted bugs of bench/redteam/ too")
    ap.add_argument("--modules", nargs="*", default=None, help="red-team modules (default: all of the protocols')")
    ap.add_argument("--guided-only", action="store_true", help="the guided phase alone (see the module docstring)")
    args = ap.parse_args()
    # the default run's guided phase: at most half the default budget (runner.run_conformance)
    cover, examples = ("transitions", DEFAULT_EXAMPLES // 2) if args.guided_only else ("mixed", DEFAULT_EXAMPLES)
    mode = "its guided phase alone" if args.guided_only else "the default budget"
    print(f"kspec conform at {mode}, seed {args.seed}: the run that catches each and its phase\n")
    print("| protocol | mutant / bug | seed | verdict | run | phase | guided runs |")
    print("|---|---|---:|---|---:|---|---:|", flush=True)
    catches: list[Catch] = []
    for name, protocol, target in _subjects(args.protocols, args.only, args.redteam, args.modules):
        result = run_conformance(protocol, target(), seed_value=args.seed, out_dir=None, shrink=False,
                                 minimal=False, cover=cover, examples=examples)
        c = catch_of(name, protocol, args.seed, result.to_json())
        catches.append(c)
        print(c.line(), flush=True)
    listed = random_only(catches)
    escaped = [c.name for c in catches if c.phase is None]
    print(f"\ncaught only by a random run (or escaped) at seed {args.seed}: {len(listed)}/{len(catches)}")
    for c in catches:
        if c.name in listed:
            how = f"random run {c.run}" if c.phase else (
                "not in the guided phase" if args.guided_only else f"escaped ({c.verdict})")
            print(f"  {c.protocol} {c.name}: {how}")
    sys.exit(1 if escaped and not args.guided_only else 0)


if __name__ == "__main__":
    main()
