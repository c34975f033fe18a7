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


def test_dash_separator_configured_and_tells_a_connect_branch_apart() -> None:
    """MM2-DRIVE-DASH-SEPARATOR (session 17): a 4.x configuration with separator ``-``, whose MM2
    names end with ``-internal``; a branch that takes every ``-internal`` name for a user's
    Connect-style topic (mutant ``mm2-dash-suffix-user-topic``) refuses MM2's checkpoints topic
    there and nowhere else. Its system model creates no user topic holding the separator."""
    from kspec.conformance.drivers.mm2 import user_topics
    from kspec.conformance.targets.mm2_policies import DefaultPolicy
    from kspec.conformance.targets.mutants_power import DashSuffixUserTopicPolicy

    dash = [c for c in CONFIGS if c["separator"] == "-"]
    assert dash and all(c["internal_rule"] == "4.x" for c in dash)
    for config in CONFIGS:
        sep, rule = str(config["separator"]), str(config["internal_rule"])
        assert not any(sep in t for t in user_topics(sep))
        right = DefaultPolicy(separator=sep, internal_rule=rule)
        wrong = DashSuffixUserTopicPolicy(separator=sep, internal_rule=rule)
        differs = [n for n in interesting_topics(sep) if right.is_internal_topic(n) != wrong.is_internal_topic(n)]
        assert bool(differs) == (sep == "-"), (sep, differs)


def test_supplementary_sources_are_asked_and_tell_utf16_lengths_apart() -> None:
    """MM2-DRIVE-SUPPLEMENTARY (session 17): a source holding a character outside the BMP is asked
    in every configuration; a port cutting at UTF-16 lengths (mutant ``mm2-utf16-lengths``) differs
    there, and on no BMP name."""
    from kspec.conformance.drivers.mm2 import SUPPLEMENTARY
    from kspec.conformance.targets.mm2_policies import DefaultPolicy
    from kspec.conformance.targets.mutants_power import Utf16LengthsPolicy

    for config in CONFIGS:
        sep = str(config["separator"])
        names = interesting_topics(sep)
        assert len(dict.fromkeys(names)) <= MAX_NAMES
        right, wrong = DefaultPolicy(separator=sep), Utf16LengthsPolicy(separator=sep)
        differs = {n for n in names if right.upstream_topic(n) != wrong.upstream_topic(n)}
        assert differs and all(SUPPLEMENTARY in n for n in differs), sep
        assert right.upstream_topic(f"{SUPPLEMENTARY}{sep}orders") == "orders"
