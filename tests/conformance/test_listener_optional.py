"""The listener contract (RAFT-OBS-LISTENER) is held to every raft target that does not decline
it: one that declares ``{"listener": false}`` in its ``model_config`` (an ``exec:`` target in
its hello answer) is judged on the protocol's outputs alone; one that declares nothing, or
declares the listener, is held to the callbacks."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any

from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets.reference.raft import RaftInstance, RaftReplica, RaftTarget


class NoListener:
    """A duck-typed raft target (no kspec base class) that never reports callbacks and says so."""

    name = "python:no-listener"
    protocol = "raft"
    model_config = {"listener": False}

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


class SilentListener(NoListener):
    """Reports no callbacks but does not decline the listener either: held to it by default."""

    name = "python:silent-listener"
    model_config: dict[str, Any] = {}


def test_undeclared_listener_is_held_to_it(tmp_path: Path) -> None:
    result = run_conformance("raft", SilentListener(), examples=40, seed_value=0, out_dir=tmp_path, liveness=False)
    assert result.verdict == "diverges" and result.finding is not None
    assert "HandleLeaderChange" in result.finding.line() or "HandleCommit" in result.finding.line()


def test_declared_listener_is_held_to_it(tmp_path: Path) -> None:
    result = run_conformance("raft", ClaimsListener("python:claims-listener"), examples=40, seed_value=0,
                             out_dir=tmp_path)
    assert result.verdict == "diverges" and result.finding is not None
    assert "HandleLeaderChange" in result.finding.line() or "HandleCommit" in result.finding.line()


HELLO = ("import json, sys\n"
         "for line in sys.stdin:\n"
         "    req = json.loads(line)\n"
         "    if req['op'] == 'hello':\n"
         "        print(json.dumps({'id': req['id'], 'version': 1, 'protocols': ['raft'], 'model_config': MC}),"
         " flush=True)\n"
         "    else:\n"
         "        print(json.dumps({'id': req['id']}), flush=True)\n"
         "        break\n")


def test_exec_target_declines_the_listener_in_its_hello() -> None:
    import sys

    from kspec.conformance.targets.exec import ExecTarget

    declines = ExecTarget([sys.executable, "-c", "MC = {'listener': False}\n" + HELLO], "raft")
    try:
        assert declines.model_config == {"listener": False}
    finally:
        declines.close()
    malformed = ExecTarget([sys.executable, "-c", "MC = [1]\n" + HELLO], "raft")
    try:
        assert malformed.model_config == {}  # the hello failed: the first start reports it
    finally:
        malformed.close()
