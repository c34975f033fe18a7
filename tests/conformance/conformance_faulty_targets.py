"""Broken targets for the conformance suite's error-path tests (python:module:Class targets)."""

from __future__ import annotations

import time
from typing import Any

from kspec.conformance.adapters.base import StepResult, Target
from kspec.conformance.targets.reference.raft import RaftInstance, RaftReplica, RaftTarget


class _After(RaftInstance):
    """The reference replica until its ``limit``-th step, then ``fail``."""

    limit = 3

    def __init__(self, replica: RaftReplica) -> None:
        super().__init__(replica)
        self.count = 0

    def step(self, inp: Any) -> StepResult:
        self.count += 1
        if self.count >= self.limit:
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
