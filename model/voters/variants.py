"""Deliberately broken variants of the voter-set model, one per bug class.

Each turns off one of Kafka's rules (:class:`~kspec.model.voters.node.Rules`); the explorer
must find a short trace to the property it breaks. ``tests/voters/test_voters_model.py``
holds each to it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
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
    "first-leader-skips-voters": (
        Rules(first_leader_writes_voters=False), "BootstrapVotersReplicated",
        "a leader whose voter set came from the bootstrap checkpoint does not write it to the log", {}),
    # Kafka 3.8-4.4's own behaviour (spec/voters.md, Kafka deviations; docs/findings.md).
    "kafka-trim-at-snapshot-end": (
        Rules(trim_before_snapshot_end=False), "ControlStateRebuilds",
        "K1: a snapshot trims the history at its end offset N, so a VotersRecord at N drops the set "
        "in force before it", {}),
    "kafka-truncate-keeps-next-offset": (
        Rules(truncate_moves_next_offset=False), "ControlStateRebuilds",
        "K2: a truncation leaves nextOffset, so records appended again below it are never read", {}),
    "kafka-no-check-quorum-with-one-voter": (
        Rules(check_quorum_one_voter=False), "",
        "K3: a leader whose voter set has one voter never resigns on check-quorum, even when that voter "
        "is not the leader", {}),
    "kafka-add-voter-caught-up-once": (
        Rules(add_caught_up_now=False), "AddedVoterCaughtUp",
        "K4: AddVoter accepts a replica that reached the leader's log end at some fetch of the epoch, "
        "not one whose fetch offset is the log end now", {"max_appends": 1}),
    "kafka-observer-stuck-on-bootstrap": (
        Rules(observer_rediscovers_leader=False), "",
        "K7 (KAFKA-19354, 3.9.0-4.1.2): an observer whose fetch timer expired keeps fetching from bootstrap "
        "servers after one of them names its leader (only the leader's own answer ends it)", {}),
    "kafka-update-voter-counts-as-fetch": (
        Rules(check_quorum_fetches_only=False), "",
        "K8 (4.1+): an accepted UpdateVoter counts as its voter's fetch for check-quorum, so a leader "
        "whose voters sent no Fetch within the timeout but an UpdateVoter leads on", {}),
    # A release that throws on an input (spec/voters.md K5, K6): the variant leaves that input out
    # of the conformance driver's runs; the model's step is the reference's.
    "kafka-history-refuses-disjoint": (
        Rules(history_takes_any_set=False), "",
        "K5: the voter-set history throws on a VotersRecord without an overlapping majority with the "
        "last set (3.8, 3.9.0); the log level's free log writes none", {}),
    "kafka-update-self-crashes": (
        Rules(update_names_leader=False), "",
        "K6: an accepted UpdateVoter naming the leader itself throws in the leader's poll (4.1+); the "
        "replica level sends none", {}),
}


def rules_for(names: str | None) -> Rules:
    """The rules of the variants named in ``names`` joined by ``+`` (each switch off when one of
    them turns it off); the reference rules for None or "". ValueError for an unknown name."""
    names_of_flags = [f.name for f in fields(Rules)]
    flags = dict.fromkeys(names_of_flags, True)
    for name in filter(None, (names or "").split("+")):
        found = CATALOGUE.get(name.strip())
        if found is None:
            raise ValueError(f"unknown voters model variant {name.strip()!r} (known: {', '.join(sorted(CATALOGUE))})")
        for f in names_of_flags:
            flags[f] = flags[f] and getattr(found[0], f)
    return Rules(**flags)


def _factory(rules: Rules) -> Callable[..., VotersModel]:
    def make(**bounds: Any) -> VotersModel:
        return VotersModel(rules=rules, **bounds)

    return make


VARIANTS: dict[str, Callable[..., VotersModel]] = {name: _factory(r) for name, (r, _, _, _) in CATALOGUE.items()}
