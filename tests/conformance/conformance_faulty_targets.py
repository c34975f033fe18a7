"""Broken targets for the conformance suite's error-path tests (python:module:Class targets)."""

from __future__ import annotations

import contextlib
import time
from typing import Any

from kspec.conformance.adapters.base import StepResult, Target
from kspec.conformance.targets.reference.raft import RaftInstance, RaftReplica, RaftTarget


class _After(RaftInstance):
    """The reference replica until its ``limit``-th step, then ``fail``."""

    limit = 3
    failed = 0  # how many times a subclass's fail() ran, over all its instances

    def __init__(self, replica: RaftReplica) -> None:
        super().__init__(replica)
        self.count = 0

    def step(self, inp: Any) -> StepResult:
        self.count += 1
        if self.count >= self.limit:
            type(self).failed += 1
            return self.fail(inp)
        return super().step(inp)

    def fail(self, inp: Any) -> StepResult:
        raise NotImplementedError


class _Raises(_After):
    def fail(self, inp: Any) -> StepResult:
        raise RuntimeError("boom in the target")


class _Hangs(_After):
    def fail(self, inp: Any) -> StepResult:
        while True:
            time.sleep(0.01)


class _Malformed(_After):
    def fail(self, inp: Any) -> StepResult:
        return StepResult(outputs=["not an object"], observation={})  # type: ignore[list-item]


class _Target(RaftTarget):
    instance_class: type[_After] = _After

    def __init__(self) -> None:
        super().__init__(f"python:conformance_faulty_targets:{type(self).__name__}")

    def start(self, node: int, config: dict[str, Any]) -> RaftInstance:
        replica = RaftReplica(node, list(config["voters"]), bool(config.get("pre_vote")))
        replica.listening = bool(config.get("listener"))  # the reference's listener, as declared
        return self.instance_class(replica)


class RaisingTarget(_Target):
    instance_class = _Raises


class HangingTarget(_Target):
    instance_class = _Hangs


class MalformedTarget(_Target):
    instance_class = _Malformed


class _NoLeaderOnly(RaftInstance):
    """A replica written before the leader-only RPCs (RAFT-DRIVE-LEADER-ONLY): its dispatcher
    knows no FetchSnapshot or DescribeQuorum, as an adapter written from an older guide."""

    def step(self, inp: Any) -> StepResult:
        if inp.get("type") in ("FetchSnapshotRequest", "DescribeQuorumRequest"):
            raise ValueError(f"unknown input type {inp['type']!r}")
        return super().step(inp)


class NoLeaderOnlyTarget(RaftTarget):
    def __init__(self) -> None:
        super().__init__("python:conformance_faulty_targets:NoLeaderOnlyTarget")

    def start(self, node: int, config: dict[str, Any]) -> RaftInstance:
        return _NoLeaderOnly(super().start(node, config).replica)


class NoLeaderOnlyDeclared(NoLeaderOnlyTarget):
    """The same replica, declaring the category it lacks."""

    unsupported = frozenset({"leader_only"})


class StartFails(RaftTarget):
    def start(self, node: int, config: dict[str, Any]) -> RaftInstance:
        raise OSError("cannot start the replica")


class SlowStart(_Target):
    """The reference, each start taking longer than a step may (a JVM loading its classes)."""

    START_SECONDS = 0.5

    def start(self, node: int, config: dict[str, Any]) -> RaftInstance:
        time.sleep(self.START_SECONDS)
        replica = RaftReplica(node, list(config["voters"]), bool(config.get("pre_vote")))
        replica.listening = bool(config.get("listener"))
        return RaftInstance(replica)


class ShareReference(Target):
    """A share target declared in user code (python:module:Class resolves it)."""

    protocol = "share"
    name = "user-share"

    def __init__(self) -> None:
        from kspec.conformance.targets.reference.share import ShareTarget

        self.inner = ShareTarget("user-share")

    def start(self, node: int, config: dict[str, Any]) -> Any:
        return self.inner.start(node, config)

    def close(self) -> None:
        pass


class _Counted(RaftInstance):
    """The reference replica, counting the steps of every instance its target started (the
    target's ``steps``); ``at(n, inp)`` may take over the ``n``-th step of the whole run."""

    def __init__(self, replica: RaftReplica, owner: _CountingTarget) -> None:
        super().__init__(replica)
        self.owner = owner
        self.own = 0  # this instance's steps

    def step(self, inp: Any) -> StepResult:
        self.owner.steps += 1
        taken = self.owner.at(self.owner.steps, self, inp)
        return taken if taken is not None else super().step(inp)


class _CountingTarget(RaftTarget):
    """A reference raft target whose instances share one step counter (Hypothesis's replays
    while shrinking count on), so that exactly one step of the run misbehaves."""

    def __init__(self) -> None:
        super().__init__(f"python:conformance_faulty_targets:{type(self).__name__}")
        self.steps = 0

    def start(self, node: int, config: dict[str, Any]) -> RaftInstance:
        replica = RaftReplica(node, list(config["voters"]), bool(config.get("pre_vote")))
        replica.listening = bool(config.get("listener"))
        return _Counted(replica, self)

    def at(self, n: int, instance: _Counted, inp: Any) -> StepResult | None:
        return None


SLOW_STEP = 12  # the run's step that overruns the limit (in the first random run)
OVERRUN = 1.0  # seconds it takes: beyond the tests' step limit of 0.3 s


class AlarmSwallowedOnce(_CountingTarget):
    """Step SLOW_STEP overruns once, catches whatever interrupts it and answers wrong: what a
    Kafka client does when the harness's alarm lands in a Python callback the JVM called (it
    becomes a Java exception Kafka catches or throws back). Hypothesis, taking the answer as a
    divergence, would replay it while shrinking, find it gone, and end with its flakiness error."""

    def at(self, n: int, instance: _Counted, inp: Any) -> StepResult | None:
        if n != SLOW_STEP:
            return None
        deadline = time.monotonic() + OVERRUN
        while time.monotonic() < deadline:
            with contextlib.suppress(BaseException):  # the alarm, swallowed as foreign code would
                time.sleep(0.01)
        right = RaftInstance.step(instance, inp)
        return StepResult(outputs=[*right.outputs, {"type": "Halt", "exception": "Interrupted"}],
                          observation=right.observation)


class HangsOnce(_CountingTarget):
    """One step hangs, once (a replay of the same inputs would not): an instance's first step
    after the first LATER_RUN steps of the whole run, so early in a later Hypothesis run."""

    LATER_RUN = 30

    def __init__(self) -> None:
        super().__init__()
        self.hung: int | None = None

    def at(self, n: int, instance: _Counted, inp: Any) -> StepResult | None:
        instance.own += 1
        if self.hung is None and n > self.LATER_RUN and instance.own == 1:
            self.hung = n
            time.sleep(OVERRUN)
        return None


class DivergesThenHangs(_CountingTarget):
    """Every instance's third step answers wrong (a deterministic divergence Hypothesis
    shrinks), and one step, SLOW_STEP steps after the first wrong answer (a replay while
    shrinking), hangs."""

    def __init__(self) -> None:
        super().__init__()
        self.first_wrong: int | None = None

    def at(self, n: int, instance: _Counted, inp: Any) -> StepResult | None:
        instance.own += 1
        if self.first_wrong is not None and n == self.first_wrong + SLOW_STEP:
            time.sleep(OVERRUN)
            return None
        if instance.own == 3:
            self.first_wrong = self.first_wrong or n
            right = RaftInstance.step(instance, inp)
            return StepResult(outputs=[*right.outputs, {"type": "Halt", "exception": "Wrong"}],
                              observation=right.observation)
        return None
