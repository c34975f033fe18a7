"""The protocols kspec models, found by name (``raft``, ``voters``, ``share``, ``mm2``, ``streams``).

Each protocol package exposes ``PROTOCOL``, a :class:`~kspec.model.core.protocol.ProtocolInfo`.
They are imported lazily so a command about one protocol does not pay for the others.
"""

from __future__ import annotations

from kspec.model.core.declared import declared
from kspec.model.core.protocol import ProtocolInfo

PROTOCOL_MODULES: dict[str, str] = {
    "raft": "kspec.model.raft",
    "voters": "kspec.model.voters",
    "share": "kspec.model.share",
    "mm2": "kspec.model.mm2",
    "streams": "kspec.model.streams",
}


class UnknownProtocol(LookupError):
    """A protocol name kspec does not know, or one whose model is not there."""


def register_model(name: str, module: str) -> None:
    """Make the model package ``module`` (exposing ``PROTOCOL``) the model of protocol ``name``
    (``kspec.conformance.protocols.register`` calls it for every protocol it declares)."""
    known = PROTOCOL_MODULES.get(name)
    if known is not None and known != module:
        raise ValueError(f"protocol {name!r} already has the model {known!r}, not {module!r}")
    PROTOCOL_MODULES[name] = module


def unregister_model(name: str) -> None:
    """Forget the model of a protocol registered in-process (tests)."""
    PROTOCOL_MODULES.pop(name, None)


def get_protocol(name: str) -> ProtocolInfo:
    """The protocol called ``name``; raises UnknownProtocol with a one-line reason."""
    module_name = PROTOCOL_MODULES.get(name)
    if module_name is None:
        raise UnknownProtocol(f"unknown protocol {name!r} (one of: {', '.join(PROTOCOL_MODULES)})")
    missing = f"protocol {name!r} has no model in this version of kspec"
    return declared(module_name, "PROTOCOL", ProtocolInfo, UnknownProtocol, absent=missing, wrong=missing)


def available_protocols() -> list[str]:
    """The protocol names whose models import."""
    out = []
    for name in PROTOCOL_MODULES:
        try:
            get_protocol(name)
        except UnknownProtocol:
            continue
        out.append(name)
    return out
