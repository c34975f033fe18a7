"""The lease register's lockstep driver: every request of every client, fed to one register node."""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import JSON
from kspec.conformance.driver import Driver, Event
from kspec.model.core.codec import encode
from kspec.model.core.protocol import first_violated
from lease_protocol.model import Acquire, Lease, LeaseModel, Release, Request, Write, accepted, observe

CONFIGS: list[dict[str, JSON]] = [{"clients": 2, "max_epoch": 3}, {"clients": 3, "max_epoch": 2}]


class LeaseDriver(Driver[LeaseModel]):
    """Drives a register with requests a correct client would not send too (a release or a
    write without the lease, an acquire of a held lease): the register must deny them."""

    protocol = "lease"
    categories = ("acquire", "release", "write")
    weights = {"write": 2}

    def __init__(self, config: dict[str, JSON]) -> None:
        self.config = {**CONFIGS[0], **config}
        self.model = LeaseModel(clients=int(self.config["clients"]), max_epoch=int(self.config["max_epoch"]))

    def nodes(self) -> list[int]:
        return [0]

    def node_config(self, node: Any) -> dict[str, JSON]:
        return {}

    def init_state(self) -> Lease:
        return self.model.init_states()[0]

    def candidates(self, state: Lease) -> list[tuple[str, Any]]:
        kinds = {Acquire: "acquire", Release: "release", Write: "write"}
        return [(kinds[type(a)], a) for a in self.model.actions(state)]

    def resolve(self, state: Lease, action: Request) -> Lease | None:
        after = self.model.next_state(state, action)
        return after if after is not None and self.model.within_bounds(after) else None

    def events(self, before: Lease, action: Request, after: Lease) -> list[Event]:
        answer = {"type": "Granted" if accepted(before, action) else "Denied"}
        return [Event(0, encode(action), [answer], observe(after))]

    def describe(self, action: Request) -> str:
        return self.model.describe_action(action)

    def model_violation(self, before: Lease, action: Any, after: Lease) -> str | None:
        return first_violated(self.model.properties(), before, action, after)

    def observed_violation(self, node: Any, inp: JSON, observations: dict[Any, JSON],
                           memory: dict[str, Any]) -> str | None:
        # LEASE-OBS-EPOCH-MONOTONIC: the epoch a register shows never goes down.
        epoch = int(observations[node]["epoch"])
        if epoch < memory.get("epoch", 0):
            return f"LEASE-OBS-EPOCH-MONOTONIC: epoch went from {memory['epoch']} to {epoch}"
        memory["epoch"] = epoch
        return None
