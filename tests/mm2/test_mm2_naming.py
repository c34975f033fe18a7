"""Naming edge cases of Kafka's replication policies, as datadriven fixtures (testdata/naming.txt).

``names policy=default|identity [sep=S] [internal_sep=false] [source=ALIAS] alias=A topic=T``
prints every name the policy derives; ``split text=T sep=S`` prints Java's split;
``client policy=P topic=T from=A,B`` prints MirrorClient's countHopsForTopic and allSources.
"""

from __future__ import annotations

from pathlib import Path

from datadriven import Case, run_file

from kspec.model.mm2.policy import (
    DefaultReplicationPolicy,
    IdentityReplicationPolicy,
    all_sources,
    count_hops_for_topic,
    java_split,
)

HERE = Path(__file__).parent


def _show(value: object) -> str:
    return "null" if value is None else repr(value)


def handle(case: Case) -> str:
    if case.command == "split":
        return repr(java_split(case.arg("text", ""), case.arg("sep", ".")))
    if case.command == "client":
        # MirrorClient's reading of one topic name: hops from each alias, and all sources.
        sep = case.arg("sep", ".")
        client = (IdentityReplicationPolicy(separator=sep) if case.arg("policy") == "identity"
                  else DefaultReplicationPolicy(separator=sep))
        topic = case.arg("topic")
        hops = " ".join(f"{a}={count_hops_for_topic(client, topic, a)}" for a in case.arg("from").split(","))
        return f"hops: {hops}\nall_sources: {sorted(all_sources(client, topic))}"
    if case.command != "names":
        raise ValueError(f"{case.path}:{case.line}: unknown command {case.command!r}")
    sep = case.arg("sep", ".")
    internal_sep = case.arg("internal_sep", "true") == "true"
    source = case.arg("source", "") or None
    policy: DefaultReplicationPolicy
    if case.arg("policy") == "identity":
        policy = IdentityReplicationPolicy(separator=sep, internal_topic_separator_enabled=internal_sep,
                                           source_cluster_alias=source)
    else:
        policy = DefaultReplicationPolicy(separator=sep, internal_topic_separator_enabled=internal_sep)
    alias, topic = case.arg("alias"), case.arg("topic")
    remote = policy.format_remote_topic(alias, topic)
    lines = [
        f"format_remote_topic: {_show(remote)}",
        f"topic_source: {_show(policy.topic_source(remote))}",
        f"upstream_topic: {_show(policy.upstream_topic(remote))}",
        f"original_topic: {_show(policy.original_topic(remote))}",
        f"is_internal_topic: {policy.is_internal_topic(remote)}",
        f"is_heartbeats_topic: {policy.is_heartbeats_topic(remote)}",
        f"checkpoints_topic: {_show(policy.checkpoints_topic(alias))}",
        f"offset_syncs_topic: {_show(policy.offset_syncs_topic(alias))}",
    ]
    return "\n".join(lines)


def test_naming_fixtures(rewrite: bool) -> None:
    run_file(HERE / "testdata" / "naming.txt", handle, rewrite)
