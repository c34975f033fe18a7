"""The lease register's model: one register, a lease clients take in turn, writes only by the holder.

A toy protocol that shows what adding a protocol to kspec takes (CONTRIBUTING.md, "Adding a
protocol"): this model, a driver (``driver.py``), a reference target and a mutant
(``targets.py``), and the declaration that registers them (``__init__.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kspec.model.core.protocol import Bound, Property, ProtocolInfo, always, always_step, sometimes, sometimes_step

# The roles of the register, as data: the docs draw the diagram from this table, and
# ``Lease.checked`` refuses a change it does not list.
TRANSITIONS: dict[tuple[str, str], str] = {
    ("free", "held"): "a client acquires the lease (the epoch goes up)",
    ("held", "free"): "the holder releases it",
}


@dataclass(frozen=True, slots=True)
class Lease:
    """The register: who holds the lease (0: nobody), its epoch, and the value."""

    holder: int = 0
    epoch: int = 0
    value: int = 0

    @property
    def phase(self) -> str:
        return "held" if self.holder else "free"


@dataclass(frozen=True, slots=True)
class Acquire:
    client: int


@dataclass(frozen=True, slots=True)
class Release:
    client: int


@dataclass(frozen=True, slots=True)
class Write:
    client: int
    value: int


Request = Acquire | Release | Write


def accepted(state: Lease, request: Request) -> bool:
    """Whether the register grants ``request``: an acquire of a free lease, a release or a
    write by the holder (LEASE-RULE-GRANT)."""
    if isinstance(request, Acquire):
        return state.holder == 0
    return state.holder == request.client


def step(state: Lease, request: Request) -> Lease:
    """The register after ``request`` (unchanged when it is denied)."""
    if not accepted(state, request):
        return state
    if isinstance(request, Acquire):
        after = replace(state, holder=request.client, epoch=state.epoch + 1)
    elif isinstance(request, Release):
        after = replace(state, holder=0)
    else:
        after = replace(state, value=request.value)
    if after.phase != state.phase and (state.phase, after.phase) not in TRANSITIONS:
        raise ValueError(f"illegal transition {state.phase} -> {after.phase} on {request}")
    return after


def observe(state: Lease) -> dict[str, int]:
    """What a target shows after every request."""
    return {"holder": state.holder, "epoch": state.epoch, "value": state.value}


@always("LEASE-INV-HOLDER-HAS-EPOCH", "HolderHasEpoch", witnessed_by=("LEASE-W-HELD",))
def holder_has_epoch(s: Lease) -> bool:
    """A held lease has been acquired at least once."""
    return s.holder == 0 or s.epoch >= 1


@sometimes("LEASE-W-HELD", "Held")
def held(s: Lease) -> bool:
    """Some client holds the lease."""
    return s.holder != 0


@always_step("LEASE-STEP-ONLY-HOLDER-WRITES", "OnlyHolderWrites", witnessed_by=("LEASE-W-WRITTEN",))
def only_holder_writes(before: Lease, action: Request, after: Lease) -> bool:
    """The value changes only by a write of the lease holder."""
    return after.value == before.value or (isinstance(action, Write) and before.holder == action.client)


@sometimes_step("LEASE-W-WRITTEN", "Written")
def written(before: Lease, action: Request, after: Lease) -> bool:
    """A write changes the value."""
    return after.value != before.value


class LeaseModel:
    """The system model: ``clients`` clients send any request at any time; the lease is taken
    at most ``max_epoch`` times."""

    name = "lease"

    def __init__(self, clients: int = 2, max_epoch: int = 3, values: int = 2) -> None:
        self.bounds: dict[str, int | bool] = {"clients": clients, "max_epoch": max_epoch, "values": values}
        self.clients, self.max_epoch, self.values = clients, max_epoch, values

    def init_states(self) -> Sequence[Lease]:
        return [Lease()]

    def actions(self, state: Lease) -> Iterable[Request]:
        for c in range(1, self.clients + 1):
            yield Acquire(c)
            yield Release(c)
            yield from (Write(c, v) for v in range(1, self.values + 1))

    def next_state(self, state: Lease, action: Request) -> Lease | None:
        return step(state, action)

    def within_bounds(self, state: Lease) -> bool:
        return state.epoch <= self.max_epoch

    def properties(self) -> Sequence[Property[Any, Any]]:
        return [holder_has_epoch, held, only_holder_writes, written]

    def describe_action(self, action: Request) -> str:
        return f"client {action.client}: {type(action).__name__}" + (
            f"({action.value})" if isinstance(action, Write) else "")


PROTOCOL = ProtocolInfo(
    name="lease",
    make=LeaseModel,
    bounds=(Bound("clients", 2, "number of clients", 1, 4), Bound("max_epoch", 3, "times the lease is taken", 1, 6),
            Bound("values", 2, "values a write may carry", 1, 3)),
    summary="a toy lease register: the example protocol of CONTRIBUTING.md",
)
