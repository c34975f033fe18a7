"""Target names, as ``--target`` takes them: ``reference``, ``mutant:NAME``,
``python:module:Class`` (or ``python:module:function``: a zero-argument factory),
``exec:COMMAND`` and ``kafka:VERSION`` (Apache Kafka's classes through JPype).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

from kspec.conformance import protocols
from kspec.conformance.adapters.base import (
    JSON,
    Instance,
    StepResult,
    Target,
    TargetError,
    TargetWrapper,
    as_target,
)


class UnknownTarget(LookupError):
    """A target name that does not resolve; the message is one line naming it."""


def reference_protocols() -> list[str]:
    """The protocols with a conformance driver and a reference target (conformance/protocols.py)."""
    return protocols.conformance_names()


def reference_target(protocol: str, level: str = "") -> Target:
    """The reference target of ``protocol``; ``level`` picks a driver level (voters: ``log``)."""
    declared = protocols.find(protocol)
    if declared is None or declared.reference is None:
        raise UnknownTarget(f"no reference target for protocol {protocol!r} (conformance covers: "
                            f"{', '.join(reference_protocols())})")
    from kspec.conformance.targets.builtin import UnknownLevel

    try:
        return declared.reference_target("reference", level)
    except UnknownLevel as err:
        raise UnknownTarget(str(err)) from None


def list_targets() -> list[dict[str, Any]]:
    """Every named target: ``{name, protocol, kind, doc}`` (kind: reference, mutant, kafka)."""
    from kspec.conformance.targets.mutants import catalogue

    declared = [p for p in protocols.protocols() if p.has_conformance()]
    rows: list[dict[str, Any]] = [
        {"name": "reference", "protocol": p.name, "kind": "reference",
         "doc": f"an independent {p.name} implementation that conforms"} for p in declared]
    rows += [{"name": f"reference:{level}", "protocol": p.name, "kind": "reference",
              "doc": "the reference control-record state machine alone, driven at the log level"}
             for p in declared for level in p.levels if level == "log"]
    rows += [{"name": f"mutant:{m.name}", "protocol": m.protocol, "kind": "mutant", "doc": m.doc}
             for m in catalogue().values()]
    # In the registry's order, as every other listing.
    kafka = [p for p in declared if p.kafka is not None]
    rows += [{"name": "kafka:VERSION", "protocol": p.name, "kind": "kafka",
              "doc": f"Apache Kafka's own {p.kafka_doc} (jars from Maven, run through JPype)"} for p in kafka]
    return rows


def kafka_releases(protocol: str) -> tuple[tuple[int, int], tuple[int, int] | None] | None:
    """The Kafka releases (first, last or None) a ``kafka:VERSION`` target of ``protocol`` runs."""
    declared = protocols.find(protocol)
    return None if declared is None else declared.kafka_releases


# Kafka releases a target may run, per protocol (docs/kafka-matrix.md), as
# conformance/protocols.py declares them: a recorded ``kafka:VERSION`` outside them is not used.
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
        from kspec.conformance.targets.mutants import catalogue

        if rest in catalogue():
            return name
        raise UntrustedTarget(f"{refuse}: no such mutant; pass --target explicitly")
    if kind == "kafka":
        m = RELEASE_RE.match(rest)
        span = kafka_releases(protocol)
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
        from kspec.conformance.targets.mutants import catalogue

        mutants = catalogue()
        mutant = mutants.get(rest)
        if mutant is None:
            known = ", ".join(n for n, m in mutants.items() if m.protocol == protocol)
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
        if not callable(getattr(target, "start", None)):
            raise UnknownTarget(f"target {name!r}: {attr}() is not a target (a kspec.conformance.adapters.base.Target "
                                f"with start(node, config))")
        target = as_target(target)
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
