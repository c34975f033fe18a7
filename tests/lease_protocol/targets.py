"""The lease register's reference target (written apart from the model) and one mutant."""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import JSON, StepResult, Target, TargetError


class Register:
    """A lease register over plain JSON requests."""

    def __init__(self) -> None:
        self.holder, self.epoch, self.value = 0, 0, 0

    def may_write(self, client: int) -> bool:
        return self.holder == client

    def handle(self, req: dict[str, Any]) -> bool:
        kind, client = req["type"], int(req["client"])
        if kind == "Acquire":
            if self.holder:
                return False
            self.holder, self.epoch = client, self.epoch + 1
            return True
        if kind == "Release":
            if self.holder != client:
                return False
            self.holder = 0
            return True
        if kind == "Write":
            if not self.may_write(client):
                return False
            self.value = int(req["value"])
            return True
        raise TargetError(f"unknown request {kind!r}")


class WriteWithoutLease(Register):
    """Takes a write from any client, holder or not (a missing ownership check)."""

    def may_write(self, client: int) -> bool:
        return True


class RegisterInstance:
    def __init__(self, register: Register) -> None:
        self.register = register

    def step(self, inp: JSON) -> StepResult:
        granted = self.register.handle(inp)
        r = self.register
        return StepResult([{"type": "Granted" if granted else "Denied"}],
                          {"holder": r.holder, "epoch": r.epoch, "value": r.value})

    def close(self) -> None:
        pass


class LeaseTarget(Target):
    protocol = "lease"

    def __init__(self, name: str = "reference", register_class: type[Register] = Register) -> None:
        self.name = name
        self.register_class = register_class

    def start(self, node: Any, config: dict[str, JSON]) -> RegisterInstance:
        return RegisterInstance(self.register_class())


def reference(name: str, level: str = "") -> Target:
    if level:
        raise TargetError(f"reference:{level}: the lease register has no levels")
    return LeaseTarget(name)


def mutant(name: str, cls: type[Any]) -> Target:
    return LeaseTarget(name, cls)


def mutants() -> list[Any]:
    from kspec.conformance.targets.mutants import Mutant

    return [Mutant("lease-write-without-lease", "lease", WriteWithoutLease, "missing ownership check")]
