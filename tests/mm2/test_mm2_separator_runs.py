"""MM2-DRIVE-SEPARATOR-RUNS (spec/mm2.md §7): the query names include the heartbeats topic as every
other node's alias names it and runs of the separator's characters that are not a multiple of it.
With ``__`` they split leftmost (``x___heartbeats`` is ``x`` + ``_heartbeats``), so they are not
heartbeats topics, where a policy testing the suffix separator + ``heartbeats`` (red team
``mm2_scratch5``'s ``heartbeats-by-suffix``) says they are: the names tell the two apart."""

from __future__ import annotations

from kspec.conformance.drivers.mm2 import CONFIGS, EXTRA_ALIASES, MAX_NAMES, interesting_topics
from kspec.model.mm2.policy import DefaultReplicationPolicy


def _suffix_test(name: str, sep: str) -> bool:
    return name == "heartbeats" or name.endswith(sep + "heartbeats")


def test_separator_runs_are_asked_and_tell_a_suffix_test_apart() -> None:
    for config in CONFIGS:
        sep = str(config["separator"])
        names = interesting_topics(sep)
        assert len(dict.fromkeys(names)) <= MAX_NAMES  # every one is offered to the query category
        runs = [f"{alias}{sep}heartbeats" for alias in EXTRA_ALIASES] + [f"A{sep}{sep[-1]}heartbeats"]
        assert set(runs) <= set(names), sep
    policy = DefaultReplicationPolicy(separator="__", internal_topic_separator_enabled=False)
    for name in ("x___heartbeats", "A___heartbeats"):
        assert name in interesting_topics("__")
        assert policy.topic_source(name) in ("x", "A") and policy.upstream_topic(name) == "_heartbeats"
        assert not policy.is_heartbeats_topic(name) and _suffix_test(name, "__")
    # with a one-character separator every such name is a heartbeats topic (the chain ends there)
    dotted = DefaultReplicationPolicy(separator=".")
    assert all(dotted.is_heartbeats_topic(n) for n in ("us.west.heartbeats", "A..heartbeats"))
