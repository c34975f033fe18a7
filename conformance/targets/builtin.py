"""The built-in protocols' target factories, as ``conformance/protocols.py`` names them.

``<protocol>_reference(name, level)`` is the protocol's reference target (``level``: a driver
level it serves, ``""`` for the default); ``<protocol>_mutant(name, cls)`` is the target that
runs a mutated class of the reference (the mutant catalogue, ``targets/mutants.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kspec.conformance.adapters.base import Target


class UnknownLevel(LookupError):
    """A ``reference:LEVEL`` the protocol's reference does not serve."""


def _no_level(protocol: str, level: str) -> None:
    if level:
        raise UnknownLevel(f"reference:{level}: no such level for protocol {protocol!r} (voters has replica, log)")


class _Factories:
    """The reference and mutant factories of a protocol whose target class takes ``(name)`` and
    ``(name, mutated_class)`` (raft, share, streams); the class is imported on first use."""

    def __init__(self, protocol: str, target_class: str) -> None:
        self.protocol = protocol
        self.target_class = target_class  # "module:attribute"

    def _cls(self) -> Callable[..., Target]:
        from kspec.conformance.protocols import load

        cls: Callable[..., Target] = load(self.target_class)
        return cls

    def reference(self, name: str, level: str = "") -> Target:
        _no_level(self.protocol, level)
        return self._cls()(name)

    def mutant(self, name: str, cls: type[Any]) -> Target:
        return self._cls()(name, cls)


_raft = _Factories("raft", "kspec.conformance.targets.reference.raft:RaftTarget")
raft_reference, raft_mutant = _raft.reference, _raft.mutant
_share = _Factories("share", "kspec.conformance.targets.reference.share:ShareTarget")
share_reference, share_mutant = _share.reference, _share.mutant
_streams = _Factories("streams", "kspec.conformance.targets.streams_routers:RouterTarget")
streams_reference, streams_mutant = _streams.reference, _streams.mutant


def voters_reference(name: str, level: str = "") -> Target:
    from kspec.conformance.targets.reference.voters import VotersTarget

    if level not in ("", "replica", "log"):
        raise UnknownLevel(f"reference:{level}: no such level for protocol 'voters' (voters has replica, log)")
    return VotersTarget("reference:log" if level == "log" else name, level=level or "replica")


def voters_mutant(name: str, cls: type[Any]) -> Target:
    from kspec.conformance.targets.reference.voters import voters_target

    return voters_target(name, cls)


def mm2_reference(name: str, level: str = "") -> Target:
    from kspec.conformance.targets.mm2_policies import PolicyTarget

    _no_level("mm2", level)
    return PolicyTarget(name)


def mm2_mutant(name: str, cls: type[Any]) -> Target:
    from kspec.conformance.targets.mm2_policies import PolicyTarget

    # A user's policy class: one policy kind, the default one.
    return PolicyTarget(name, {"default": cls})
