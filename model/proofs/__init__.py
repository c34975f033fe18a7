"""Z3 proof obligations over the model's rules; the list, with meanings, is in spec/proofs.md.

``all_obligations()`` lists them, ``check(obligation, timeout_seconds)`` discharges one.
"""

from kspec.model.proofs.catalog import UnknownObligation, all_obligations, get_obligation
from kspec.model.proofs.obligation import (
    DEFAULT_TIMEOUT_SECONDS,
    Obligation,
    ProofResult,
    Query,
    Replay,
    check,
)

__all__ = [
    "DEFAULT_TIMEOUT_SECONDS",
    "Obligation",
    "ProofResult",
    "Query",
    "Replay",
    "UnknownObligation",
    "all_obligations",
    "check",
    "get_obligation",
]
