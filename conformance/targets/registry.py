"""Target names, as ``--target`` takes them: ``reference``, ``mutant:NAME``,
``python:module:Class`` (or ``python:module:function``: a zero-argument factory),
``exec:COMMAND`` and ``kafka:VERSION`` (Apache Kafka's classes through JPype).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

from kspec.conformance.adapters.base import JSON, Instance, StepResult, Target, TargetError, TargetWrapper

# The protocols with a conformance driver and a reference target.
REFERENCE_PROTOCOLS = ("raft", "share", "voters", "mm2", "streams")


class UnknownTarget(LookupError):
    """A target name that does not resolve; the message is one line naming it."""


def reference_target(protocol: str, level: str = "") -> Target:
    """The reference target of ``protocol``; ``level`` picks a driver level (voters: ``log``)."""
    if protocol == "voters" and level in ("", "replica", "log"):
        from kspec.conformance.targets.reference.voters import VotersTarget

        return VotersTarget("reference:log" if level == "log" else "reference", level=level or "replica")
    if level:
        raise UnknownTarget(f"reference:{level}: no such level for protocol {protocol!r} (voters has replica, log)")
    if protocol == "raft":
        from kspec.conformance.targets.reference.raft import RaftTarget

        return RaftTarget("reference")
    if protocol == "share":
        from kspec.conformance.targets.reference.share import ShareTarget

        return ShareTarget("reference")
    if protocol == "mm2":
        from kspec.conformance.targets.mm2_policies import PolicyTarget

        return PolicyTarget("reference")
    if protocol == "streams":
        from kspec.conformance.targets.streams_routers import RouterTarget

        return RouterTarget("reference")
    raise UnknownTarget(f"no reference target for protocol {protocol!r} (conformance covers: "
                        f"{', '.join(REFERENCE_PROTOCOLS)})")


def list_targets() -> list[dict[str, Any]]:
    """Every named target: ``{name, protocol, kind, doc}`` (kind: reference, mutant, kafka)."""
    from kspec.conformance.targets.mutants import CATALOGUE

    rows: list[dict[str, Any]] = [
        {"name": "reference", "protocol": p, "kind": "reference",
         "doc": f"an independent {p} implementation that conforms"} for p in REFERENCE_PROTOCOLS]
    rows.append({"name": "reference:log", "protocol": "voters", "kind": "reference",
                 "doc": "the reference control-record state machine alone, driven at the log level"})
    rows += [{"name": f"mutant:{m.name}", "protocol": m.protocol, "kind": "mutant", "doc": m.doc}
             for m in CATALOGUE.values()]
    rows += [{"name": "kafka:VERSION", "protocol": p, "kind": "kafka",
              "doc": f"Apache Kafka's own {cls} (jars from Maven, run through JPype)"}
             for p, cls in (("mm2", "Default/IdentityReplicationPolicy"), ("share", "ShareCoordinatorShard, 4.0+"),
                            ("raft", "KafkaRaftClient over its test doubles, 3.7-3.9"),
                            ("voters", "KRaftControlRecordStateMachine over MockLog (log level), 3.8+"),
                            ("streams", "StreamsMetadataState fed as the assignor feeds it, 3.0+"))]
    return rows


# Kafka releases a target may run, per protocol (docs/kafka-matrix.md): (first, last) minor
# version, None for open-ended. A recorded ``kafka:VERSION`` outside this table is not used.
KAFKA_RELEASES: dict[str, tuple[tuple[int, int], tuple[int, int] | None]] = {
    "mm2": ((2, 4), None), "share": ((4, 0), (4, 3)), "raft": ((3, 7), (3, 9)),
    "voters": ((3, 8), (4, 3)), "streams": ((3, 0), (4, 3))}
RELEASE_RE = re.compile(r"^([0-9]{1,2})\.([0-9]{1,3})\.([0-9]{1,3})$")


class UntrustedTarget(UnknownTarget):
    """A target named by a file (a counterexample's ``#meta.target``) that kspec will not start
    on the file's word: it could run code (``exec:``, ``python:``) or reach the network."""


def recorded_target(name: str, protocol: str, where: str) -> str:
    """``name``, read from a file at ``where``, when it is safe to start without the user naming
    it: a built-in, inert target (``reference``, ``reference:LEVEL``, ``mutant:NAME``) or
    ``kafka:VERSION`` for a release of the table whose jars are already cached (so nothing is
    fetched because a file said so). Anything else raises :class:`UntrustedTarget` (one line,
    showing the recorded value) telling the user to pass ``--target`` (docs/threat-model.md)."""
    shown = name if len(name) <= 120 else name[:117] + "..."
    refuse = f"{where} names target {shown!r}; kspec does not start a target a file names"
    kind, _, rest = name.partition(":")
    if name == "reference" or (kind == "reference" and rest in ("replica", "log")):
        return name
    if kind == "mutant":
        from kspec.conformance.targets.mutants import CATALOGUE

        if rest in CATALOGUE:
            return name
        raise UntrustedTarget(f"{refuse}: no such mutant; pass --target explicitly")
    if kind == "kafka":
        m = RELEASE_RE.match(rest)
        span = KAFKA_RELEASES.get(protocol)
        if m is None or span is None:
            raise UntrustedTarget(f"{refuse}: not a Kafka release kspec runs for {protocol}; pass --target explicitly")
        minor = (int(m.group(1)), int(m.group(2)))
        first, last = span
        if minor < first or (last is not None and minor > last):
            raise UntrustedTarget(f"{refuse}: not a Kafka release kspec runs for {protocol}; pass --target explicitly")
        from kspec.conformance.targets.kafka.artifacts import cache_root

        if not (cache_root() / rest).is_dir():
            raise UntrustedTarget(f"{refuse} whose jars are not cached (fetching them is your call): "
                                  f"pass --target {name} explicitly")
        return name
    if kind in ("exec", "python"):
        raise UntrustedTarget(f"{refuse}, because an {kind}: target runs code: pass --target explicitly "
                              f"(e.g. --target reference, or the same target if you trust it)")
    raise UntrustedTarget(f"{refuse}: pass --target explicitly")


def resolve_target(name: str, protocol: str, timeout: float = 10.0) -> Target:
    """The target called ``name`` for ``protocol``; UnknownTarget (one line) when it does not resolve."""
    if name == "reference":
        return reference_target(protocol)
    kind, _, rest = name.partition(":")
    if kind == "reference":
        return reference_target(protocol, rest)
    if kind == "mutant":
        from kspec.conformance.targets.mutants import CATALOGUE

        mutant = CATALOGUE.get(rest)
        if mutant is None:
            known = ", ".join(n for n, m in CATALOGUE.items() if m.protocol == protocol)
            raise UnknownTarget(f"unknown mutant {rest!r} (for {protocol}: {known or 'none'})")
        if mutant.protocol != protocol:
            raise UnknownTarget(f"mutant {rest!r} is a {mutant.protocol} target, not {protocol}")
        target: Target = mutant.target()
        return target
    if kind == "exec":
        if not rest.strip():
            raise UnknownTarget(f"target {name!r}: exec needs a command (exec:COMMAND)")
        from kspec.conformance.targets.exec import make_exec_target

        try:
            return make_exec_target(name, protocol, timeout=timeout)
        except ValueError as err:
            raise UnknownTarget(str(err)) from None
    if kind == "python":
        return _python_target(name, rest, protocol)
    if kind == "kafka":
        return _kafka_target(name, rest, protocol)
    raise UnknownTarget(f"unknown target {name!r} (reference, mutant:NAME, python:module:Class, exec:COMMAND "
                        "or kafka:VERSION)")


def _kafka_target(name: str, version: str, protocol: str) -> Target:
    # Apache Kafka's own classes through JPype (kspec.conformance.targets.kafka); resolving
    # the jars, starting the JVM or a missing class is one line naming the version.
    from kspec.conformance.adapters.base import TargetError
    from kspec.conformance.targets.kafka import make_kafka_target

    try:
        target: Target = make_kafka_target(version, protocol)
    except TargetError as err:
        raise UnknownTarget(str(err)) from None
    return target


def _python_target(name: str, spec: str, protocol: str) -> Target:
    module_name, _, attr = spec.rpartition(":")
    if not module_name or not attr:
        raise UnknownTarget(f"target {name!r}: expected python:module:Class")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise UnknownTarget(f"target {name!r}: cannot import {module_name!r} ({err})") from None
    except (Exception, SystemExit) as err:
        raise UnknownTarget(f"target {name!r}: importing {module_name!r} raised {type(err).__name__}: {err}") from None
    factory = getattr(module, attr, None)  # a name the user gave, looked up in their module
    if factory is None:
        raise UnknownTarget(f"target {name!r}: module {module_name!r} has no {attr!r}")
    try:
        target = factory()
    except (Exception, SystemExit) as err:
        raise UnknownTarget(f"target {name!r}: {attr}() raised {type(err).__name__}: {err}") from None
    if not isinstance(target, Target):
        raise UnknownTarget(f"target {name!r}: {attr}() is not a target (a kspec.conformance.adapters.base.Target "
                            f"with start(node, config))")
    declared = target.protocol or protocol
    if declared != protocol:
        raise UnknownTarget(f"target {name!r} is a {declared} target, not {protocol}")
    if not target.name:
        target.name = name
    return _NoExit(target)


class _NoExit(TargetWrapper):
    """A user's Python target whose ``sys.exit`` (SystemExit) is a target error, not kspec's exit
    code: the run ends with verdict ``error`` naming the step. Everything else is the target's."""

    def start(self, node: Any, config: dict[str, JSON]) -> Instance:
        try:
            return _NoExitInstance(self.inner.start(node, config))
        except SystemExit as err:
            raise TargetError(f"called sys.exit({err.code!r}) in start") from None

    def close(self) -> None:
        _close_without_exit(self.inner.close)


def _close_without_exit(close: Callable[[], None]) -> None:
    """``close()``, a ``sys.exit`` in it turned into a TargetError."""
    try:
        close()
    except SystemExit as err:
        raise TargetError(f"called sys.exit({err.code!r}) in close") from None


class _NoExitInstance:
    def __init__(self, instance: Instance) -> None:
        self._instance = instance

    def step(self, inp: JSON) -> StepResult:
        try:
            return self._instance.step(inp)
        except SystemExit as err:
            raise TargetError(f"called sys.exit({err.code!r})") from None

    def close(self) -> None:
        _close_without_exit(self._instance.close)
