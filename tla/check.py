"""Agreement of a TLA+ spec and a Python model: equal sets of distinct states at equal bounds.

TLC model-checks the spec with ``-dump`` (and ``-continue``, so a violated invariant does not
cut the search short); the explorer enumerates the model's reachable states. Both sides go
through the protocol's :class:`~kspec.tla.mappings.TLAMapping` to one canonical form and
the two sets are compared.

TLC 2.15 does not count or dump a state outside the ``CONSTRAINT`` (it checks invariants on
it, then drops it), while the explorer keeps such a state as a distinct state it does not
expand. The model side is therefore compared over the states within the model's bounds.

The comparison streams (#22): TLC's dump is read one state at a time from the file
(:func:`~kspec.tla.readers.iter_dump_file`) and each canonical state is kept only as a
128-bit fingerprint (BLAKE2b of its one-line TLA+ text, :func:`fingerprint`), on both sides.
So memory holds two sets of 16-byte digests and the explorer's states, never TLC's text or
its parsed states (a dump of 396,686 raft states read whole took 4.0 GB). The chance that
two of n different states share a fingerprint is below n²/2¹²⁹ (1e-27 at a million states).
The differing states shown are found again by a second pass over what differs.
"""

from __future__ import annotations

import hashlib
import tempfile
import time
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kspec.model.core.explorer import reachable_states
from kspec.model.core.protocol import Model
from kspec.tla.mappings import TLAMapping
from kspec.tla.readers import TLCOutputError, iter_dump_file
from kspec.tla.runner import TLCError, TLCFailure, TLCResult, run_tlc
from kspec.tla.values import format_state, format_value, sort_key


class MappingError(Exception):
    """A mapping function that failed on a state (a bug in the mapping, reported in one line)."""


@dataclass(slots=True)
class CheckResult:
    """The ``kspec tla check --json`` document."""

    protocol: str
    bounds: dict[str, int | bool]
    tlc_distinct_states: int
    model_distinct_states: int
    equal: bool
    seconds: float
    tlc_seconds: float
    model_seconds: float
    only_in_tlc: int = 0
    only_in_model: int = 0
    model_states_outside_bounds: int = 0
    first_difference: dict[str, str] | None = None
    tlc_violations: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """The keys of ``kspec tla check --json``."""
        return {
            "protocol": self.protocol,
            "bounds": self.bounds,
            "tlc_distinct_states": self.tlc_distinct_states,
            "model_distinct_states": self.model_distinct_states,
            "equal": self.equal,
            "seconds": round(self.seconds, 3),
            "tlc_seconds": round(self.tlc_seconds, 3),
            "model_seconds": round(self.model_seconds, 3),
            "only_in_tlc": self.only_in_tlc,
            "only_in_model": self.only_in_model,
            "model_states_outside_bounds": self.model_states_outside_bounds,
            "first_difference": self.first_difference,
            "tlc_violations": self.tlc_violations,
        }


def render_canonical(value: Hashable) -> str:
    """A canonical state, readably: TLC's ``/\\ var = value`` form when it is TLA+ values."""
    try:
        if isinstance(value, Mapping) and all(isinstance(k, str) for k in value):
            return format_state(value, joiner=" ")
        return format_value(value)
    except TypeError:
        return repr(value)


def _canon(fn: Any, state: Any, side: str, mapping: TLAMapping[Any]) -> Hashable:
    try:
        out = fn(state)
        hash(out)
    except Exception as err:
        raise MappingError(f"mapping of {mapping.protocol}: {side} failed ({type(err).__name__}: {err}) "
                           f"on state {state!r:.200}") from None
    return out  # type: ignore[no-any-return]


def fingerprint(canonical: Any) -> bytes:
    """A 128-bit fingerprint of a canonical state: BLAKE2b of its one-line TLA+ text (sets and
    records in a fixed order, so equal values give equal text), or of its ``repr`` when it is
    not made of TLA+ values (a mapping may choose any hashable canonical form)."""
    try:
        text = format_value(canonical)
    except TypeError:
        text = "repr:" + repr(canonical)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def run_tlc_for(mapping: TLAMapping[Any], bounds: Mapping[str, int | bool], *, timeout: float = 600.0,
                workers: int = 1, workdir: str | Path | None = None) -> TLCResult:
    """TLC on the mapping's spec at ``bounds``, with every distinct state dumped: read back into
    ``dump_states`` without ``workdir``; left in ``workdir``/states.dump, to stream, with one."""
    result = run_tlc(mapping.spec_path(), config_text=mapping.config(bounds), dump=True,
                     read_dump=workdir is None, workdir=workdir, check_deadlock=mapping.check_deadlock,
                     continue_after_violation=True, timeout=timeout, workers=workers)
    if result.stopped_early or result.states_left:
        raise TLCError(f"TLC on {mapping.spec_path().name} stopped after {timeout:.0f}s before exploring every "
                       "state (raise --timeout or lower the bounds)")
    return result


def _dumped(path: Path, spec: str) -> Iterable[dict[str, Any]]:
    """The states of TLC's dump at ``path``, one at a time (a malformed dump in one line)."""
    try:
        yield from iter_dump_file(path)
    except TLCOutputError as err:
        raise TLCOutputError(f"state dump of {spec}", err.line, err.message, err.text) from None


def check_agreement(mapping: TLAMapping[Any], model: Model[Any, Any], bounds: Mapping[str, int | bool], *,
                    timeout: float = 600.0, workers: int = 1) -> CheckResult:
    """Compare TLC's distinct states with the model's at the same bounds, by fingerprint."""
    started = time.perf_counter()
    spec = mapping.spec_path().name
    with tempfile.TemporaryDirectory(prefix="kspec-tla-check-") as work:
        tlc = run_tlc_for(mapping, bounds, timeout=timeout, workers=workers, workdir=work)
        tlc_seconds = time.perf_counter() - started
        dump = Path(work) / "states.dump"
        dumped = 0
        tlc_prints: set[bytes] = set()
        for s in _dumped(dump, spec):
            dumped += 1
            tlc_prints.add(fingerprint(_canon(mapping.from_tlc, s, "from_tlc", mapping)))
        if tlc.distinct_states is not None and dumped != tlc.distinct_states:
            raise TLCFailure(f"state dump of {spec} has {dumped} states but TLC found {tlc.distinct_states} "
                             "(truncated dump?)")

        m_started = time.perf_counter()
        reached = reachable_states(model)  # within the model's bounds
        model_prints = {fingerprint(_canon(mapping.from_model, s, "from_model", mapping)) for s in reached}
        model_seconds = time.perf_counter() - m_started

        only_tlc = tlc_prints - model_prints
        only_model = model_prints - tlc_prints
        tlc_count = tlc.distinct_states if tlc.distinct_states is not None else dumped
        equal = not only_tlc and not only_model and tlc_count == len(reached)
        first: dict[str, str] | None = None
        if only_tlc:
            # a second pass over the dump for the states that differ (few, when any)
            differing = [c for s in _dumped(dump, spec)
                         if fingerprint(c := _canon(mapping.from_tlc, s, "from_tlc", mapping)) in only_tlc]
            first = {"only_in": "tlc", "state": render_canonical(min(differing, key=_order))}
        elif only_model:
            differing = [c for s in reached
                         if fingerprint(c := _canon(mapping.from_model, s, "from_model", mapping)) in only_model]
            first = {"only_in": "model", "state": render_canonical(min(differing, key=_order))}
        elif not equal:
            first = {"only_in": "neither",
                     "state": f"the same canonical states, but TLC has {tlc_count} distinct states and the model "
                              f"{len(reached)}: the mapping merges states (it is not one-to-one)"}
    violations = []
    if tlc.violation is not None:
        violations.append(tlc.violation.message)
    return CheckResult(
        protocol=mapping.protocol,
        bounds=dict(bounds),
        tlc_distinct_states=tlc_count,
        model_distinct_states=len(reached),
        equal=equal,
        seconds=time.perf_counter() - started,
        tlc_seconds=tlc_seconds,
        model_seconds=model_seconds,
        only_in_tlc=len(only_tlc),
        only_in_model=len(only_model),
        # reachable_states keeps only the states within bounds (see the module docstring)
        model_states_outside_bounds=0,
        first_difference=first,
        tlc_violations=violations,
    )


def _order(value: Hashable) -> tuple[Any, ...]:
    """A deterministic pick among differing states (the smallest, in TLA+ value order)."""
    try:
        return (0, sort_key(value))
    except TypeError:
        return (1, repr(value))
