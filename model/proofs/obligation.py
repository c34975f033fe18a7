"""Proof obligations and the runner that discharges them with Z3.

An obligation is a claim under premises. The runner asks Z3 for a model of
``premises and not claim``: ``unsat`` means the claim is *proved*, ``sat`` means it is
*refuted* and the model is a counterexample, anything else (a timeout, an incomplete theory)
is *unknown* — never proved. A counterexample is decoded into plain Python values and replayed
through the Python rules it is about, so a refutation is shown on the code that runs, not only
on its encoding. The premises alone are checked too, so a proof that holds only because its
premises contradict each other is reported, not counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import z3  # type: ignore[import-untyped]  # z3-solver ships no type information

Status = Literal["proved", "refuted", "unknown"]
Expected = Literal["proved", "refuted"]

DEFAULT_TIMEOUT_SECONDS = 20.0

# Simplifying and eliminating definitional equalities first (solve-eqs) matters: the sorting
# network in majority_end_offset takes Z3's default solver 10 s at 7 replicas and this pipeline
# a third of a second. Obligations full of if-then-else terms add "elim-term-ite".
DEFAULT_TACTICS = ("simplify", "solve-eqs", "smt")
ITE_TACTICS = ("simplify", "solve-eqs", "elim-term-ite", "smt")  # share_combiner, voters_history


@dataclass(frozen=True, slots=True)
class Replay:
    """A counterexample run through the Python rules.

    ``confirmed`` is True when the Python code shows the same violation the encoding did;
    ``detail`` is what it computed, for the report.
    """

    confirmed: bool
    detail: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Query:
    """What Z3 is asked: ``premises`` imply ``claim``.

    ``decode`` turns a Z3 model of ``premises and not claim`` into plain Python values (the
    counterexample); ``replay`` runs those values through the Python rules.
    """

    premises: tuple[Any, ...]
    claim: Any
    decode: Callable[[Any], dict[str, Any]]
    replay: Callable[[dict[str, Any]], Replay]


@dataclass(frozen=True, slots=True)
class Obligation:
    """A named proof obligation carrying its spec ID and the outcome the spec expects.

    ``build`` makes the Z3 query; it is called afresh for every check so obligations share no
    solver state. ``rules`` names the spec rule IDs the obligation is about. ``bounds`` says in
    words which sizes the proof covers (``"unbounded"`` when it covers all).
    """

    id: str
    name: str
    expected: Expected
    doc: str
    rules: tuple[str, ...]
    bounds: str
    build: Callable[[], Query]
    tactics: tuple[str, ...] = DEFAULT_TACTICS


@dataclass(frozen=True, slots=True)
class ProofResult:
    """The outcome of one obligation."""

    id: str
    name: str
    status: Status
    expected: Expected
    seconds: float
    bounds: str
    premises_satisfiable: bool | None
    reason: str = ""
    counterexample: dict[str, Any] | None = None
    replay: Replay | None = None
    rules: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        """The status is the expected one, the proof is not vacuous, and a refutation replays."""
        if self.status != self.expected:
            return False
        if self.status == "proved":
            return self.premises_satisfiable is not False
        return self.replay is not None and self.replay.confirmed

    def to_json(self) -> dict[str, Any]:
        """The ``kspec prove --json`` entry for this obligation."""
        doc: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "status": self.status,
            "expected": self.expected,
            "seconds": round(self.seconds, 3),
            "ok": self.ok,
            "bounds": self.bounds,
            "rules": list(self.rules),
            "premises_satisfiable": self.premises_satisfiable,
        }
        if self.reason:
            doc["reason"] = self.reason
        if self.status == "refuted":
            doc["counterexample"] = self.counterexample
            doc["replay"] = None if self.replay is None else {
                "confirmed": self.replay.confirmed, **self.replay.detail}
        return doc


def _solver(timeout_seconds: float, tactics: tuple[str, ...] = DEFAULT_TACTICS) -> Any:
    solver = z3.Then(*tactics).solver()
    # Z3 takes milliseconds; at least 1 so a tiny timeout is not read as "no timeout".
    solver.set("timeout", max(1, int(timeout_seconds * 1000)))
    return solver


def check(obligation: Obligation, timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS) -> ProofResult:
    """Discharge one obligation with Z3 under a per-obligation timeout."""
    started = time.perf_counter()
    query = obligation.build()
    deadline = started + timeout_seconds

    solver = _solver(timeout_seconds, obligation.tactics)
    solver.add(*query.premises)
    solver.add(z3.Not(query.claim))
    answer = solver.check()

    counterexample: dict[str, Any] | None = None
    replay: Replay | None = None
    reason = ""
    status: Status
    if answer == z3.unsat:
        status = "proved"
    elif answer == z3.sat:
        status = "refuted"
        counterexample = query.decode(solver.model())
        replay = query.replay(counterexample)
    else:
        status = "unknown"
        reason = str(solver.reason_unknown()) or "unknown"

    # Vacuity: a proof whose premises are unsatisfiable proves nothing.
    premises_satisfiable: bool | None = None
    if status == "proved":
        remaining = max(0.001, deadline - time.perf_counter())
        premises = _solver(remaining, obligation.tactics)
        premises.add(*query.premises)
        sat = premises.check()
        premises_satisfiable = True if sat == z3.sat else False if sat == z3.unsat else None
        if premises_satisfiable is False:
            reason = "the premises are unsatisfiable: the proof is vacuous"
    elif status == "refuted":
        premises_satisfiable = True

    return ProofResult(
        id=obligation.id,
        name=obligation.name,
        status=status,
        expected=obligation.expected,
        seconds=time.perf_counter() - started,
        bounds=obligation.bounds,
        premises_satisfiable=premises_satisfiable,
        reason=reason,
        counterexample=counterexample,
        replay=replay,
        rules=obligation.rules,
    )
