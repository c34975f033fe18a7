"""A Python twin of ``testdata/Tokens.tla`` and its TLA+ mapping, to test ``kspec tla check``.

``toy`` reaches exactly the spec's states; ``toybroken`` forgets the ``Len(log) < MaxLog``
guard of Finish, so it reaches states the spec does not. The tests register both as
protocols (``kspec.model.catalog.PROTOCOL_MODULES``) and as mappings
(``kspec.tla.mappings.toy`` / ``toybroken`` in ``sys.modules``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kspec.model.core.protocol import Bound, ProtocolInfo, always, sometimes
from kspec.tla.mappings import TLAMapping, cfg_text
from kspec.tla.values import FrozenDict, ModelValue

SPEC = Path(__file__).with_name("testdata") / "Tokens.tla"


@dataclass(frozen=True, slots=True)
class State:
    count: tuple[int, ...]
    done: frozenset[int]
    log: tuple[tuple[int, int], ...]
    seen: bool
    last: str


class Tokens:
    """Processes count up, finish (logging their count) and, once all have finished, reset."""

    def __init__(self, procs: int = 2, max_count: int = 2, max_log: int = 2, broken: bool = False) -> None:
        self.name = "toybroken" if broken else "toy"
        self.bounds: dict[str, int | bool] = {"procs": procs, "max_count": max_count, "max_log": max_log}
        self.procs = procs
        self.max_count = max_count
        self.max_log = max_log
        self.broken = broken

    def init_states(self) -> list[State]:
        return [State((0,) * self.procs, frozenset(), (), False, "none")]

    def actions(self, state: State) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = []
        for p in range(self.procs):
            out += [("inc", p), ("finish", p)]
        out.append(("reset",))
        return out

    def next_state(self, s: State, action: tuple[Any, ...]) -> State | None:
        if action[0] == "inc":
            p = action[1]
            if p in s.done:
                return None
            count = (*s.count[:p], s.count[p] + 1, *s.count[p + 1:])
            return replace(s, count=count, seen=True)
        if action[0] == "finish":
            p = action[1]
            if p in s.done or (len(s.log) >= self.max_log and not self.broken):
                return None
            return replace(s, done=s.done | {p}, log=(*s.log, (p, s.count[p])), last="finish")
        if len(s.done) != self.procs:
            return None
        return State((-1,) * self.procs, frozenset(), (), False, "reset")

    def within_bounds(self, s: State) -> bool:
        return all(c <= self.max_count for c in s.count)

    def properties(self) -> list[Any]:
        @always("TOY-INV-TYPE", "type_ok")
        def type_ok(s: State) -> bool:
            return s.done <= set(range(self.procs))

        @sometimes("TOY-WIT-RESET", "reset_happens")
        def reset_happens(s: State) -> bool:
            return s.last == "reset"

        return [type_ok, reset_happens]


BOUNDS = (
    Bound("procs", 2, "number of processes", minimum=1, maximum=4),
    Bound("max_count", 2, "how far a counter may go", minimum=0),
    Bound("max_log", 2, "how long the log may grow", minimum=0),
)

PROTOCOL = ProtocolInfo("toy", Tokens, BOUNDS)
BROKEN_PROTOCOL = ProtocolInfo("toybroken", lambda **b: Tokens(**b, broken=True), BOUNDS)


def proc(p: int) -> ModelValue:
    return ModelValue(f"p{p + 1}")


def config(bounds: Mapping[str, int | bool]) -> str:
    procs = frozenset(proc(p) for p in range(int(bounds["procs"])))
    return cfg_text({"Procs": procs, "MaxCount": bounds["max_count"], "MaxLog": bounds["max_log"]},
                    invariants=["TypeOK"], constraint="Bounded")


def from_model(s: State) -> FrozenDict:
    """The TLA+ variables of a model state (TLC's own form, so ``from_tlc`` is the default)."""
    return FrozenDict({
        "count": FrozenDict({proc(p): c for p, c in enumerate(s.count)}),
        "done": frozenset(proc(p) for p in s.done),
        "log": tuple((proc(p), c) for p, c in s.log),
        "flags": FrozenDict({"seen": s.seen, "last": s.last}),
    })


MAPPING = TLAMapping("toy", SPEC, config, from_model)
BROKEN_MAPPING = TLAMapping("toybroken", SPEC, config, from_model)
