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


def test_suffixes_inside_a_name_are_asked_and_tell_contains_apart() -> None:
    """MM2-DRIVE-SUFFIX-INSIDE (session 16): names holding an internal suffix followed by more are
    asked in every configuration; Kafka's endsWith says none is MM2-internal, a "contains" test
    (mutant ``mm2-suffix-contained``, red team ``mm2_scratch8``'s ``mm2-suffix-contained``) differs."""
    from kspec.conformance.targets.mm2_policies import DefaultPolicy
    from kspec.conformance.targets.mutants_power import SuffixContainedPolicy

    for config in CONFIGS:
        sep, rule = str(config["separator"]), str(config["internal_rule"])
        names = interesting_topics(sep)
        assert len(dict.fromkeys(names)) <= MAX_NAMES
        inside = [f"mm2-offsets{sep}A{sep}internal{sep}bak", f"A{sep}heartbeats{sep}orders"]
        assert set(inside) <= set(names), sep
        right = DefaultPolicy(separator=sep, internal_rule=rule)
        wrong = SuffixContainedPolicy(separator=sep, internal_rule=rule)
        assert not right.is_mm2_internal_topic(inside[0]) and not right.is_heartbeats_topic(inside[1])
        assert any(right.is_mm2_internal_topic(n) != wrong.is_mm2_internal_topic(n) for n in names), (sep, rule)


def test_checkpoints_of_a_dotted_alias_are_asked() -> None:
    """MM2-DRIVE-DOTTED-CHECKPOINTS (session 16): ``us.west``'s checkpoints topic is asked; a test
    that rebuilds the name from its first piece (mutant ``mm2-checkpoints-alias-parsed``) differs."""
    from kspec.conformance.targets.mm2_policies import DefaultPolicy
    from kspec.conformance.targets.mutants_power import CheckpointsAliasParsedPolicy

    assert "us.west.checkpoints.internal" in interesting_topics(".")
    assert DefaultPolicy().is_checkpoints_topic("us.west.checkpoints.internal")
    assert not CheckpointsAliasParsedPolicy().is_checkpoints_topic("us.west.checkpoints.internal")
