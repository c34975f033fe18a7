"""Every proof obligation kspec knows, in report order, found by spec ID."""

from __future__ import annotations

import importlib

from kspec.model.proofs.obligation import Obligation

# Modules holding an ``OBLIGATIONS`` tuple, in report order: the built-in ones (so that the
# model layer alone, which never imports conformance/, finds them), then those a protocol
# declares in ``kspec.conformance.protocols`` (``proofs``), added by :func:`register_obligations`
# as it registers the protocol. The share combiner's obligations need the share model, which
# may be absent from a checkout; a missing model leaves its obligations out.
OBLIGATION_MODULES: list[str] = [
    "kspec.model.proofs.raft_quorum",
    "kspec.model.proofs.raft_vote",
    "kspec.model.proofs.raft_hw",
    "kspec.model.proofs.share_combiner",
    "kspec.model.proofs.voters_history",
]


def register_obligations(module: str) -> None:
    """Add a module holding an ``OBLIGATIONS`` tuple (once; after the ones known already)."""
    if module not in OBLIGATION_MODULES:
        OBLIGATION_MODULES.append(module)


class UnknownObligation(LookupError):
    """An obligation ID kspec does not know."""


def all_obligations() -> tuple[Obligation, ...]:
    """Every obligation, in report order."""
    found: list[Obligation] = []
    for name in OBLIGATION_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as err:
            # Only a module that is not there yet is skipped; a broken import is an error.
            if err.name is not None and (name.startswith(err.name) or err.name.startswith("kspec.model.share")):
                continue
            raise
        found.extend(module.OBLIGATIONS)
    return tuple(found)


def get_obligation(obligation_id: str) -> Obligation:
    """The obligation with this spec ID; raises UnknownObligation with a one-line reason."""
    for obligation in all_obligations():
        if obligation.id == obligation_id:
            return obligation
    known = ", ".join(o.id for o in all_obligations())
    raise UnknownObligation(f"unknown proof obligation {obligation_id!r} (known: {known})")
