"""The listener contract (RAFT-OBS-LISTENER) is held only to a target that reports it: a raft
target written to the adapter API without a listener (it declares no ``listener`` in its
``model_config``) is judged on the protocol's outputs alone, and one that declares it is held to
the callbacks."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any

from kspec.conformance.machines.runner import run_conformance
from kspec.conformance.targets.reference.raft import RaftInstance, RaftReplica, RaftTarget


class NoListener:
    """A duck-typed raft target (no kspec base class) that never reports callbacks."""

    name = "python:no-listener"
    protocol = "raft"

    def start(self, node: int, config: dict[str, Any]) -> RaftInstance:
        replica = RaftReplica(node, list(config["voters"]), bool(config.get("pre_vote")),
                              None if config.get("kip853") is None else bool(config.get("kip853")))
        replica.initialize()
        return RaftInstance(replica)


class ClaimsListener(RaftTarget):
    """Declares a listener but never reports a callback: the run must catch it."""

    model_config = MappingProxyType({"listener": True})

    def start(self, node: int, config: dict[str, Any]) -> RaftInstance:
        return NoListener().start(node, config)


def test_target_without_listener_conforms(tmp_path: Path) -> None:
    result = run_conformance("raft", NoListener(), examples=40, seed_value=0, out_dir=tmp_path, liveness=False)
    assert result.verdict == "conforms", result.finding and result.finding.line()


def test_declared_listener_is_held_to_it(tmp_path: Path) -> None:
    result = run_conformance("raft", ClaimsListener("python:claims-listener"), examples=40, seed_value=0,
                             out_dir=tmp_path)
    assert result.verdict == "diverges" and result.finding is not None
    assert "HandleLeaderChange" in result.finding.line() or "HandleCommit" in result.finding.line()
