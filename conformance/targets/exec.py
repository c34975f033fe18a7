"""``exec:COMMAND`` — a target in any language, spoken to in JSON Lines over stdin/stdout.

The wire protocol is ``spec/adapter-protocol.md`` (ADAPTER-*). One child process serves every
node instance of the target; it starts on the first :meth:`ExecTarget.start` (after a failure,
the next ``start`` launches a fresh one). Every request waits at most ``timeout`` seconds for
its answer. A child that exits, hangs, writes something that is not an answer, or answers
another request's id is killed and the step raises :class:`TargetError`::

    ./share-target: step 7: no answer within 10 s, killed (node 0, WriteRequest); stderr: ...

The step number counts step requests since the target last had no live instance, so within
one harness example it is the example's step index.
"""

from __future__ import annotations

import contextlib
import json
import shlex
from collections.abc import Mapping, Sequence
from typing import NoReturn

from kspec.conformance.adapters.base import JSON, StepResult, Target, TargetError
from kspec.conformance.targets.process import ChildExited, ChildTimeout, LineProcess

ADAPTER_PROTOCOL_VERSION = 1
DEFAULT_TIMEOUT = 10.0          # seconds per request
DEFAULT_STARTUP_TIMEOUT = 30.0  # seconds for the hello answer (a JVM or an interpreter may be slow)
SHOWN_CHARS = 120               # of a malformed line, in an error message


def _fmt_seconds(s: float) -> str:
    return f"{s:g} s"


def _shown(line: bytes) -> str:
    text = line.decode("utf-8", "replace").rstrip("\r\n")
    return repr(text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "...")


class ExecInstance:
    """One node of an :class:`ExecTarget`; its requests go to the target's child process."""

    def __init__(self, target: ExecTarget, node: int, generation: int, observation: dict[str, JSON]) -> None:
        self.target = target
        self.node = node
        self.generation = generation
        self.initial_observation = observation
        self.closed = False

    def step(self, inp: JSON) -> StepResult:
        """Send one input; the program's outputs and observation (ADAPTER-OP-STEP)."""
        return self.target._step(self, inp)

    def close(self) -> None:
        """Tell the program the node is gone (ADAPTER-OP-CLOSE); nothing if the process already died."""
        self.target._close_instance(self)


class ExecTarget(Target):
    """A target implemented by a program speaking the stdio adapter protocol."""

    def __init__(self, command: Sequence[str] | str, protocol: str, *, timeout: float = DEFAULT_TIMEOUT,
                 startup_timeout: float = DEFAULT_STARTUP_TIMEOUT, name: str | None = None,
                 env: Mapping[str, str] | None = None, cwd: str | None = None, echo_stderr: bool = False) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise ValueError("exec target: empty command")
        if timeout <= 0 or startup_timeout <= 0:
            raise ValueError("exec target: timeouts must be positive")
        self.argv = argv
        self.command = shlex.join(argv)
        self.name = name or f"exec:{self.command}"
        self.protocol = protocol
        self.timeout = timeout
        self.startup_timeout = startup_timeout
        self.env = env
        self.cwd = cwd
        self.echo_stderr = echo_stderr
        self.hello: dict[str, JSON] = {}   # the program's hello answer
        self._child: LineProcess | None = None
        self._generation = 0               # bumped on every launch; stale instances are refused
        self._next_id = 0
        self._steps = 0
        self._live: set[int] = set()

    # -- the Target protocol -------------------------------------------------------------------

    @property
    def model_config(self) -> Mapping[str, JSON]:  # type: ignore[override]
        """The settings the program names in its hello answer (``"model_config"``, optional:
        raft's ``{"listener": false}`` declines the listener contract). Reading it says hello
        first when no child runs yet; a hello that fails gives none here (the first ``start``
        says hello again and reports the failure where a run expects it)."""
        if not self.hello:
            with contextlib.suppress(TargetError):
                self._ensure_child()
        found = self.hello.get("model_config")
        return dict(found) if isinstance(found, dict) else {}

    @property
    def unsupported(self) -> frozenset[str]:  # type: ignore[override]
        """The driver categories the program declines in its hello answer (``"unsupported"``,
        optional: raft's ``["leader_only"]`` for a replica without FetchSnapshot and
        DescribeQuorum), read as ``model_config`` is."""
        if not self.hello:
            with contextlib.suppress(TargetError):
                self._ensure_child()
        found = self.hello.get("unsupported")
        return frozenset(str(c) for c in found) if isinstance(found, list) else frozenset()

    def start(self, node: int, config: dict[str, JSON]) -> ExecInstance:
        """Start (or restart, from the initial state) node ``node`` in the child process."""
        self._ensure_child()
        if not self._live:
            self._steps = 0
        answer = self._call({"op": "start", "node": node, "protocol": self.protocol, "config": config},
                            f"start of node {node}", self.timeout)
        _outputs, observation = self._result(answer, f"start of node {node}", allow_outputs=False)
        self._live.add(node)
        return ExecInstance(self, node, self._generation, observation)

    def close(self) -> None:
        """End the session (ADAPTER-OP-CLOSE without a node); the child is killed if it lingers."""
        child = self._child
        if child is None:
            return
        self._child = None
        self._live.clear()
        if child.alive:
            # A program that fumbles the goodbye is killed below; the run's verdict stands.
            with contextlib.suppress(ChildExited, ChildTimeout, _Malformed):
                self._exchange(child, {"id": self._take_id(), "op": "close"}, min(self.timeout, 5.0))
        child.finish(grace=min(self.timeout, 5.0))

    def __enter__(self) -> ExecTarget:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- requests ------------------------------------------------------------------------------

    def _step(self, inst: ExecInstance, inp: JSON) -> StepResult:
        self._steps += 1
        kind = inp.get("type", "?") if isinstance(inp, dict) else type(inp).__name__
        where = f"step {self._steps}"
        detail = f"node {inst.node}, {kind}"
        if inst.closed:
            raise TargetError(f"{self.command}: {where}: node {inst.node} was closed ({detail})")
        if inst.generation != self._generation or self._child is None:
            raise TargetError(f"{self.command}: {where}: the process serving node {inst.node} was killed "
                              f"after an earlier error ({detail})")
        answer = self._call({"op": "step", "node": inst.node, "input": inp}, where, self.timeout, detail)
        outputs, observation = self._result(answer, where, allow_outputs=True, detail=detail)
        return StepResult(outputs=outputs, observation=observation)

    def _close_instance(self, inst: ExecInstance) -> None:
        if inst.closed:
            return
        inst.closed = True
        if inst.generation != self._generation or self._child is None:
            return
        self._live.discard(inst.node)
        answer = self._call({"op": "close", "node": inst.node}, f"close of node {inst.node}", self.timeout)
        if "error" in answer:
            raise TargetError(f"{self.command}: close of node {inst.node}: target error: {answer['error']}")

    def _ensure_child(self) -> LineProcess:
        if self._child is not None and self._child.alive:
            return self._child
        if self._child is not None:
            self._child.kill()
            self._child = None
        try:
            child = LineProcess(self.argv, env=self.env, cwd=self.cwd, echo_stderr=self.echo_stderr)
        except OSError as err:
            raise TargetError(f"{self.command}: cannot start: {err.strerror or err}") from None
        self._child = child
        self._generation += 1
        self._live.clear()
        self._next_id = 0
        answer = self._call({"op": "hello", "version": ADAPTER_PROTOCOL_VERSION, "protocol": self.protocol},
                            "hello", self.startup_timeout)
        self._check_hello(answer)
        self.hello = answer
        return child

    def _check_hello(self, answer: dict[str, JSON]) -> None:
        if "error" in answer:
            self._fail("hello", f"target error: {answer['error']}")
        version = answer.get("version")
        if version != ADAPTER_PROTOCOL_VERSION:
            self._fail("hello", f"speaks adapter protocol version {version!r}, kspec speaks "
                                f"{ADAPTER_PROTOCOL_VERSION}")
        protocols = answer.get("protocols")
        if not isinstance(protocols, list) or not all(isinstance(p, str) for p in protocols):
            self._fail("hello", "malformed answer: 'protocols' is not a list of strings")
        if self.protocol not in protocols:
            self._fail("hello", f"does not implement protocol {self.protocol!r} (implements "
                                f"{', '.join(protocols) or 'none'})")
        if not isinstance(answer.get("model_config", {}), dict):
            self._fail("hello", "malformed answer: 'model_config' is not an object")
        found = answer.get("unsupported", [])
        if not isinstance(found, list) or not all(isinstance(c, str) for c in found):
            self._fail("hello", "malformed answer: 'unsupported' is not a list of strings")

    def _take_id(self) -> int:
        n = self._next_id
        self._next_id += 1
        return n

    def _call(self, request: dict[str, JSON], where: str, timeout: float, detail: str = "") -> dict[str, JSON]:
        """Send one request and return its answer object; any failure kills the child."""
        child = self._child
        assert child is not None
        rid = self._take_id()
        try:
            return self._exchange(child, {"id": rid, **request}, timeout)
        except ChildTimeout:
            self._fail(where, f"no answer within {_fmt_seconds(timeout)}, killed", detail)
        except ChildExited as err:
            self._fail(where, f"process {err} before answering", detail)
        except _Malformed as err:
            self._fail(where, str(err), detail)

    def _exchange(self, child: LineProcess, request: dict[str, JSON], timeout: float) -> dict[str, JSON]:
        try:
            line = (json.dumps(request, separators=(",", ":"), allow_nan=False) + "\n").encode()
        except (TypeError, ValueError) as err:
            # The harness's own input is not JSON: a bug on this side, not the target's.
            raise TypeError(f"exec target: request is not JSON: {err}") from None
        child.send(line)
        while True:
            raw = child.receive(timeout)
            if raw.strip():
                break  # ADAPTER-MALFORMED: blank lines are ignored, anything else is an answer
        try:
            answer = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise _Malformed(f"malformed answer (not JSON): {_shown(raw)}") from None
        if not isinstance(answer, dict):
            raise _Malformed(f"malformed answer (not a JSON object): {_shown(raw)}")
        if "id" not in answer:
            raise _Malformed(f"malformed answer (no 'id'): {_shown(raw)}")
        if answer["id"] != request["id"] or isinstance(answer["id"], bool):
            raise _Malformed(f"answered id {answer['id']!r}, expected {request['id']}")
        return answer

    def _result(self, answer: dict[str, JSON], where: str, allow_outputs: bool,
                detail: str = "") -> tuple[list[JSON], dict[str, JSON]]:
        if "error" in answer:
            # The program is alive and well-behaved; it refused this input. Not killed.
            raise TargetError(self._message(where, f"target error: {answer['error']}", detail, stderr=True))
        outputs = answer.get("outputs", [])
        observation = answer.get("observation")
        if not isinstance(outputs, list):
            self._fail(where, "malformed answer: 'outputs' is not a list", detail)
        if not allow_outputs and outputs:
            self._fail(where, "malformed answer: a start answer has outputs", detail)
        if not isinstance(observation, dict):
            self._fail(where, "malformed answer: 'observation' is missing or not an object", detail)
        return outputs, observation

    def _fail(self, where: str, reason: str, detail: str = "") -> NoReturn:
        """Kill the child and raise the TargetError naming the step and the reason."""
        child = self._child
        message = self._message(where, reason, detail, stderr=False)
        if child is not None:
            child.kill()
            tail = child.stderr_tail()
            if tail:
                message += "; stderr: " + " | ".join(tail)
        self._child = None
        self._live.clear()
        raise TargetError(message)

    def _message(self, where: str, reason: str, detail: str, stderr: bool) -> str:
        message = f"{self.command}: {where}: {reason}"
        if detail:
            message += f" ({detail})"
        if stderr and self._child is not None:
            tail = self._child.stderr_tail()
            if tail:
                message += "; stderr: " + " | ".join(tail)
        return message

    def stderr_tail(self, lines: int = 20) -> list[str]:
        """The last lines the current child wrote to stderr (for diagnostics)."""
        return [] if self._child is None else self._child.stderr_tail(lines)


class _Malformed(Exception):
    """An answer line that breaks ADAPTER-MALFORMED."""


def harness_timeout(timeout: float, startup_timeout: float = DEFAULT_STARTUP_TIMEOUT) -> float:
    """The harness's own per-call watchdog for an exec target: the target enforces ``timeout``
    per request and ``startup_timeout`` for ``hello`` itself (with better messages), so the
    harness waits past both; the first start, which includes the hello, must get its 30 s."""
    return max(timeout, startup_timeout) + 5.0


def make_exec_target(spec: str, protocol: str, timeout: float = DEFAULT_TIMEOUT) -> ExecTarget:
    """The target for ``--target exec:COMMAND`` (the ``exec:`` prefix is optional here).

    COMMAND is split like a shell would (``shlex``), without running a shell. An empty command
    raises ``ValueError``.
    """
    command = spec[len("exec:"):] if spec.startswith("exec:") else spec
    try:
        argv = shlex.split(command)
    except ValueError as err:
        raise ValueError(f"--target {spec!r}: {err}") from None
    if not argv:
        raise ValueError(f"--target {spec!r}: empty command")
    return ExecTarget(argv, protocol, timeout=timeout)
