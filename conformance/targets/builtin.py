"""The built-in protocols' target factories, as ``conformance/protocols.py`` names them.

``<protocol>_reference(name, level)`` is the protocol's reference target (``level``: a driver
level it serves, ``""`` for the default); ``<protocol>_mutant(name, cls)`` is the target that
runs a mutated class of the reference (the mutant catalogue, ``targets/mutants.py``).
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import Target


class UnknownLevel(LookupError):
    """A ``reference:LEVEL`` the protocol's reference does not serve."""


def _no_level(protocol: str, level: str) -> None:
    if level:
        raise UnknownLevel(f"reference:{level}: no such level for protocol {protocol!r} (voters has replica, log)")


def raft_reference(name: str, level: str = "") -> Target:
    from kspec.conformance.targets.reference.raft import RaftTarget

    _no_level("raft", level)
    return RaftTarget(name)


def raft_mutant(name: str, cls: type[Any]) -> Target:
    from kspec.conformance.targets.reference.raft import RaftTarget

    return RaftTarget(name, cls)


def voters_reference(name: str, level: str = "") -> Target:
    from kspec.conformance.targets.reference.voters import VotersTarget

    if level not in ("", "replica", "log"):
        raise UnknownLevel(f"reference:{level}: no such level for protocol 'voters' (voters has replica, log)")
    return VotersTarget("reference:log" if level == "log" else name, level=level or "replica")


def voters_mutant(name: str, cls: type[Any]) -> Target:
    from kspec.conformance.targets.reference.voters import voters_target

    return voters_target(name, cls)


def share_reference(name: str, level: str = "") -> Target:
    from kspec.conformance.targets.reference.share import ShareTarget

    _no_level("share", level)
    return ShareTarget(name)


def share_mutant(name: str, cls: type[Any]) -> Target:
    from kspec.conformance.targets.reference.share import ShareTarget

    return ShareTarget(name, cls)


def mm2_reference(name: str, level: str = "") -> Target:
    from kspec.conformance.targets.mm2_policies import PolicyTarget

    _no_level("mm2", level)
    return PolicyTarget(name)


def mm2_mutant(name: str, cls: type[Any]) -> Target:
    from kspec.conformance.targets.mm2_policies import PolicyTarget

    # A user's policy class: one policy kind, the default one.
    return PolicyTarget(name, {"default": cls})


def streams_reference(name: str, level: str = "") -> Target:
    from kspec.conformance.targets.streams_routers import RouterTarget

    _no_level("streams", level)
    return RouterTarget(name)


def streams_mutant(name: str, cls: type[Any]) -> Target:
    from kspec.conformance.targets.streams_routers import RouterTarget

    return RouterTarget(name, cls)
