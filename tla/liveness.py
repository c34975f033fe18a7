"""KRaft liveness in TLA+: TLC's verdicts on ``tla/KRaftLive.tla`` beside the explorer's.

``KRaftLive.tla`` is the finite system :func:`kspec.model.core.liveness.check_liveness` checks
for raft (the fault phase within the bounds, then :class:`~kspec.model.raft.liveness.RaftSuffix`:
no faults, the timing assumptions, epochs renumbered, escapes past ``max_epoch +
EXTRA_EPOCHS``), with weak fairness written as TLC checks it. Each property has the explorer's
name (``RAFT_LIVENESS``), so the verdicts are compared name by name.

TLC stops at the first violated temporal property without naming it, so the properties are
checked together first (the reference spec: one run) and, when that run finds a violation,
one at a time.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kspec.model.core.liveness import Verdict, check_liveness
from kspec.model.raft.liveness import EXTRA_EPOCHS, RAFT_LIVENESS, LiveRaftModel, TimerOrder, make_suffix
from kspec.model.raft.liveness_variants import CATALOGUE, VARIANTS, LivenessVariant
from kspec.tla.mappings import TLA_DIR
from kspec.tla.mappings.raft import UnsupportedBounds, constants
from kspec.tla.runner import TLCError, run_tlc
from kspec.tla.values import format_value

LIVE_SPEC = "KRaftLive.tla"
# The liveness variants whose step flaw KRaft.tla's LiveFlaw copies (the others are timer
# orders, KRaftLive.tla's TimerOrder): every variant of the catalogue has one or the other.
STEP_FLAWS = frozenset({"candidate-never-retries", "prospective-ignores-timeout", "prospective-never-gives-up",
                        "restores-into-prospective", "rejects-pre-votes"})


def supported(variant: str) -> bool:
    """Does KRaftLive.tla have the liveness variant (as a step flaw or a timer order)?"""
    v = CATALOGUE[variant]
    return variant in STEP_FLAWS if v.step is not None else True


def applicable(bounds: Mapping[str, int | bool]) -> tuple[str, ...]:
    """The properties checked at ``bounds`` (NotStuckProspective only with pre-vote)."""
    return tuple(p.name for p in RAFT_LIVENESS if p.applies(dict(bounds)))


def live_config(bounds: Mapping[str, int | bool], properties: Sequence[str], *, variant: str | None = None) -> str:
    """KRaftLive's .cfg at ``bounds`` (the variant's flaw or timer order on) checking ``properties``."""
    timers: TimerOrder = "solo"
    flaw = "none"
    if variant is not None:
        if variant not in CATALOGUE:
            raise UnsupportedBounds(f"{LIVE_SPEC}: no liveness variant {variant!r}")
        if not supported(variant):
            raise UnsupportedBounds(f"{LIVE_SPEC} has no flaw for the liveness variant {variant!r}")
        timers = CATALOGUE[variant].timers
        if CATALOGUE[variant].step is not None:
            flaw = variant
    consts: dict[str, Any] = {**constants(bounds), "LiveFlaw": flaw, "ExtraEpochs": EXTRA_EPOCHS,
                              "TimerOrder": timers}
    lines = ["CONSTANTS", *(f"  {k} = {format_value(v)}" for k, v in consts.items()), "  Nil = Nil",
             "SPECIFICATION LiveSpec", "PROPERTIES", *(f"  {p}" for p in properties)]
    return "\n".join(lines) + "\n"


@dataclass(slots=True)
class TLCLiveness:
    """TLC's verdicts, its distinct states (of the first run) and its runs' wall seconds."""

    verdicts: dict[str, Verdict]
    distinct_states: int | None
    seconds: float
    runs: int


def tlc_liveness(bounds: Mapping[str, int | bool], *, variant: str | None = None, timeout: float = 600.0,
                 workers: int = 1, only: Sequence[str] | None = None) -> TLCLiveness:
    """TLC's verdict on each liveness property at ``bounds`` (not-checked where it does not
    apply, or is not in ``only``)."""
    names = tuple(n for n in applicable(bounds) if only is None or n in only)
    verdicts: dict[str, Verdict] = {p.name: "not-checked" for p in RAFT_LIVENESS}
    started = time.perf_counter()

    def run(props: Sequence[str]) -> tuple[bool, int | None]:
        result = run_tlc(TLA_DIR / LIVE_SPEC, config_text=live_config(bounds, props, variant=variant),
                         check_deadlock=False, timeout=timeout, workers=workers)
        if result.stopped_early or (result.violation is None and result.states_left):
            raise TLCError(f"TLC on {LIVE_SPEC} stopped after {timeout:.0f}s before checking every state "
                           "(raise --timeout or lower the bounds)")
        if result.violation is not None and result.violation.kind != "temporal":
            raise TLCError(f"TLC on {LIVE_SPEC}: {result.violation.message}")
        return result.violation is None, result.distinct_states

    runs = 1
    ok, states = run(names)
    if ok:
        verdicts.update({n: "holds" for n in names})
    elif len(names) == 1:
        verdicts[names[0]] = "violated"
    else:
        for n in names:
            runs += 1
            verdicts[n] = "holds" if run([n])[0] else "violated"
    return TLCLiveness(verdicts, states, time.perf_counter() - started, runs)


def live_model(bounds: Mapping[str, int | bool], variant: str | None = None) -> LiveRaftModel:
    """The explorer's model at ``bounds`` (a liveness variant's when named)."""
    given: dict[str, Any] = dict(bounds)
    return LiveRaftModel(**given) if variant is None else VARIANTS[variant](**given)


def variant_bounds(variant: str, base: Mapping[str, int | bool]) -> dict[str, int | bool]:
    """The bounds a variant is shown at (its catalogue's over ``base``)."""
    v: LivenessVariant = CATALOGUE[variant]
    return {**base, **v.bounds}


@dataclass(slots=True)
class LivenessAgreement:
    """The ``liveness`` part of ``kspec tla check raft --json``."""

    explorer: dict[str, Verdict]
    tlc: dict[str, Verdict]
    explorer_seconds: float
    tlc_seconds: float
    tlc_distinct_states: int | None
    explorer_states: int
    tlc_runs: int
    variant: str | None = None
    names: tuple[str, ...] = field(default_factory=tuple)

    @property
    def agree(self) -> bool:
        return self.explorer == self.tlc

    def as_json(self) -> dict[str, Any]:
        return {
            "agree": self.agree,
            "variant": self.variant,
            "properties": {n: {"explorer": self.explorer[n], "tlc": self.tlc[n]} for n in self.explorer},
            "explorer_seconds": round(self.explorer_seconds, 3),
            "tlc_seconds": round(self.tlc_seconds, 3),
            "explorer_states": self.explorer_states,
            "tlc_distinct_states": self.tlc_distinct_states,
            "tlc_runs": self.tlc_runs,
        }


def check_liveness_agreement(bounds: Mapping[str, int | bool], *, variant: str | None = None,
                             timeout: float = 600.0, workers: int = 1,
                             only: Sequence[str] | None = None) -> LivenessAgreement:
    """The explorer's and TLC's liveness verdicts on the same system at ``bounds`` (the
    properties in ``only``, all by default)."""
    if variant is not None and not supported(variant):
        raise UnsupportedBounds(f"{LIVE_SPEC} has no flaw for the liveness variant {variant!r}")
    live_config(bounds, (), variant=variant)  # refuses bounds the spec does not model, before any run
    started = time.perf_counter()
    model = live_model(bounds, variant)
    explored = check_liveness(model, make_suffix(model), only=only)
    explorer_seconds = time.perf_counter() - started
    tlc = tlc_liveness(bounds, variant=variant, timeout=timeout, workers=workers, only=only)
    return LivenessAgreement(dict(explored.verdicts), tlc.verdicts, explorer_seconds, tlc.seconds,
                             tlc.distinct_states, explored.fault_states + explored.suffix_states, tlc.runs,
                             variant, applicable(bounds))
