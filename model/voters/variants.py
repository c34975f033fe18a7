"""Deliberately broken variants of the voter-set model, one per bug class.

Each turns off one of Kafka's rules (:class:`~kspec.model.voters.node.Rules`); the explorer
must find a short trace to the property it breaks. ``tests/voters/test_voters_model.py``
holds each to it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kspec.model.voters.node import Rules
from kspec.model.voters.system import VotersModel

# name -> (rules, the property it breaks, what it is, bounds that show it quickly)
CATALOGUE: dict[str, tuple[Rules, str, str, dict[str, Any]]] = {
    "two-changes-in-flight": (
        Rules(one_change_at_a_time=False), "AtMostOneUncommittedChange",
        "the leader appends a second VotersRecord before the first commits", {}),
    "effect-on-commit": (
        Rules(effect_on_append=False), "VotersFromLogEnd",
        "a replica switches to a new voter set only once it is committed", {}),
    "history-not-truncated": (
        Rules(truncate_history=False), "ControlStateRebuilds",
        "a diverging-epoch truncation leaves the truncated voter sets in the history", {}),
    "snapshot-without-voters": (
        Rules(snapshot_has_voters=False), "ControlStateRebuilds",
        "a snapshot leaves out the VotersRecord in force at its offset", {}),
}


def _factory(rules: Rules) -> Callable[..., VotersModel]:
    def make(**bounds: Any) -> VotersModel:
        return VotersModel(rules=rules, **bounds)

    return make


VARIANTS: dict[str, Callable[..., VotersModel]] = {name: _factory(r) for name, (r, _, _, _) in CATALOGUE.items()}
