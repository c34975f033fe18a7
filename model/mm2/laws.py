"""The laws of the ``ReplicationPolicy`` contract, as named checks with spec IDs (spec/mm2.md).

A law is checked on one :class:`LawInput` (an alias, another alias, a topic and the separator
the policy is configured with) against ``policy_for``: a function from a source cluster alias
to the policy as the connector of a flow from that alias configures it (the same object for
DefaultReplicationPolicy; ``source.cluster.alias`` set for IdentityReplicationPolicy). Laws
only take the policy's public methods, so they apply to any user class with Kafka's method
names in snake_case. Each law has a precondition on the input (the naming edge cases under
which Kafka itself does not promise the law), and says whether Kafka's identity policy meets
it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kspec.model.core import laws as core_laws
from kspec.model.mm2.policy import INTERNAL_RULE_3X, INTERNAL_RULE_4X, PolicyLike, is_cycle, original_topic_chain

PolicyFor = Callable[[str], PolicyLike]


@dataclass(frozen=True, slots=True)
class LawInput:
    """One point at which the laws are checked: names, the separator the policy is configured
    with, and the Kafka release line whose internal-topic rule applies (MM2-RULE-INTERNAL-*)."""

    alias: str
    other_alias: str
    topic: str
    separator: str = "."
    internal_rule: str = INTERNAL_RULE_4X


def clean_alias(alias: str, separator: str) -> bool:
    """The alias is non-empty and ``alias + separator`` first matches the separator at its end
    (MM2-LAW-ALIAS-SEPARATOR): the alias does not contain the separator, and no separator
    occurrence straddles the boundary (alias "x_" with separator "__")."""
    return bool(alias) and (alias + separator).find(separator) == len(alias)


def plain_alias(alias: str, separator: str) -> bool:
    """A clean alias that does not make a remote topic look like a Kafka-internal one."""
    prefix = alias + separator
    return clean_alias(alias, separator) and not prefix.startswith("__") and not prefix.startswith(".")


def topic_ok(topic: str, separator: str) -> bool:
    """The topic is not empty and not made only of separators (Java's split would drop it)."""
    return any(part for part in topic.split(separator))


def local_topic(topic: str, separator: str) -> bool:
    """A topic that does not contain the separator: the policy must read it as local."""
    return bool(topic) and separator not in topic


def _not_internal_shaped(topic: str) -> bool:
    return not (topic.startswith("__") or topic.startswith(".") or topic.endswith("internal"))


@dataclass(frozen=True, slots=True)
class Law(core_laws.Law[PolicyFor, LawInput]):
    """A law of the replication policy: ``check(policy_for, input)`` where ``precondition(input)``;
    ``identity_meets``: whether the identity policy meets it too."""

    identity_meets: bool = True


def _remote_ok(i: LawInput) -> bool:
    return clean_alias(i.alias, i.separator) and topic_ok(i.topic, i.separator)


def _remote_source(pf: PolicyFor, i: LawInput) -> bool:
    p = pf(i.alias)
    return p.topic_source(p.format_remote_topic(i.alias, i.topic)) == i.alias


def _remote_upstream(pf: PolicyFor, i: LawInput) -> bool:
    p = pf(i.alias)
    return p.upstream_topic(p.format_remote_topic(i.alias, i.topic)) == i.topic


def _original_of_remote(pf: PolicyFor, i: LawInput) -> bool:
    p = pf(i.alias)
    return p.original_topic(p.format_remote_topic(i.alias, i.topic)) == p.original_topic(i.topic)


def _original_terminates(pf: PolicyFor, i: LawInput) -> bool:
    p = pf(i.alias)
    remote = p.format_remote_topic(i.alias, i.topic)
    return all(original_topic_chain(p, t, len(t) + 2) is not None for t in (i.topic, remote))


def _original_idempotent(pf: PolicyFor, i: LawInput) -> bool:
    p = pf(i.alias)
    first = p.original_topic(i.topic)
    return p.original_topic(first) == first


def _original_is_local(pf: PolicyFor, i: LawInput) -> bool:
    p = pf(i.alias)
    first = p.original_topic(i.topic)
    return p.upstream_topic(first) in (None, first)


def _local_not_remote(pf: PolicyFor, i: LawInput) -> bool:
    p = pf(i.alias)
    return p.topic_source(i.topic) is None and p.upstream_topic(i.topic) is None


def _two_hops_ok(i: LawInput) -> bool:
    return (_remote_ok(i) and clean_alias(i.other_alias, i.separator) and i.alias != i.other_alias)


def _cycle_detectable(pf: PolicyFor, i: LawInput) -> bool:
    # One hop: a topic from ``alias`` sits on ``other``; replicating it back is a cycle.
    one = pf(i.alias).format_remote_topic(i.alias, i.topic)
    if not is_cycle(pf(i.other_alias), one, i.alias):
        return False
    # Two hops: alias -> other -> a third cluster; sending it back to alias is a cycle.
    two = pf(i.other_alias).format_remote_topic(i.other_alias, one)
    return is_cycle(pf("third-cluster"), two, i.alias)


def _internal_topics(pf: PolicyFor, i: LawInput) -> bool:
    p = pf(i.alias)
    checkpoints = p.checkpoints_topic(i.alias)
    syncs = p.offset_syncs_topic(i.alias)
    mm2 = all(p.is_internal_topic(t) and p.is_mm2_internal_topic(t) for t in (checkpoints, syncs))
    kafka = all(p.is_internal_topic(t) for t in ("__" + i.topic, "." + i.topic))
    return mm2 and kafka and p.is_checkpoints_topic(checkpoints) and not p.is_checkpoints_topic(syncs)


def _connect_names_internal(pf: PolicyFor, i: LawInput) -> bool:
    # MM2-RULE-INTERNAL-3X: Connect's default internal topic names are never replicated.
    p = pf(i.alias)
    return all(p.is_internal_topic(i.topic + suffix) for suffix in (".internal", "-internal"))


def _only_named_internal(pf: PolicyFor, i: LawInput) -> bool:
    # MM2-RULE-INTERNAL-4X: internal means Kafka's prefixes or MM2's own suffix, nothing else;
    # a user topic that merely ends in "-internal" is replicated.
    p = pf(i.alias)

    def named(t: str) -> bool:
        return t.startswith("__") or t.startswith(".") or p.is_mm2_internal_topic(t)
    return all(p.is_internal_topic(t) == named(t) for t in (i.topic, i.topic + "-internal", i.topic + ".internal"))


def _internal_not_remote_shaped(pf: PolicyFor, i: LawInput) -> bool:
    # Checkpoints and offset-syncs topics are never mistaken for heartbeats.
    p = pf(i.alias)
    return not any(p.is_heartbeats_topic(t) for t in (p.checkpoints_topic(i.alias), p.offset_syncs_topic(i.alias)))


def _heartbeats(pf: PolicyFor, i: LawInput) -> bool:
    p = pf(i.alias)
    hb = p.heartbeats_topic()
    if p.original_topic(hb) != hb:
        # KIP-1016 validates no name: one holding the separator (``hb.topic`` with ``.``) reads as
        # remote, and KIP-690's ``isHeartbeatsTopic(t) = heartbeatsTopic().equals(originalTopic(t))``
        # is false for the name itself (and for its remote copies): MM2 then neither recognises
        # nor specially replicates its heartbeats (MM2-LAW-HEARTBEATS-SEPARATOR, spec/mm2.md §2).
        return not p.is_heartbeats_topic(hb)
    if not topic_ok(hb, i.separator):
        # MM2-LAW-HEARTBEATS-NAME-VALID: the empty name or one made only of separators is its own
        # original topic, so a heartbeats topic, but its remote copy (``A.`` / ``A..``) reads as
        # local (Java's split drops trailing empty strings): the hops ask nothing of it.
        return p.is_heartbeats_topic(hb)
    one = p.format_remote_topic(i.alias, hb)
    if not (p.is_heartbeats_topic(hb) and p.is_heartbeats_topic(one)):
        return False
    if _not_internal_shaped(hb) and (p.is_internal_topic(hb) or p.is_internal_topic(one)):
        # A name Kafka's internal tests match (``__hb``, ``-internal``) is internal as named:
        # a hazard of the configuration, not a bug of the policy (MM2-LAW-HEARTBEATS-NAME-VALID).
        return False
    other = pf(i.other_alias)
    if other.heartbeats_topic() != hb:
        return True  # the second hop's flow names another heartbeats topic: nothing to ask of it
    two = other.format_remote_topic(i.other_alias, one)
    return other.is_heartbeats_topic(two)


def _heartbeats_ok(i: LawInput) -> bool:
    return (plain_alias(i.alias, i.separator) and plain_alias(i.other_alias, i.separator)
            and i.alias != i.other_alias)


def _user_not_heartbeat(pf: PolicyFor, i: LawInput) -> bool:
    p = pf(i.alias)
    return not p.is_heartbeats_topic(i.topic)


def _user_not_heartbeat_ok(i: LawInput) -> bool:
    return topic_ok(i.topic, i.separator) and not i.topic.endswith("heartbeats")


def _remote_not_internal(pf: PolicyFor, i: LawInput) -> bool:
    p = pf(i.alias)
    return not p.is_internal_topic(p.format_remote_topic(i.alias, i.topic))


def _remote_not_internal_ok(i: LawInput) -> bool:
    return (plain_alias(i.alias, i.separator) and topic_ok(i.topic, i.separator)
            and _not_internal_shaped(i.topic) and not i.topic.endswith("-internal"))


LAWS: tuple[Law, ...] = (
    Law("MM2-LAW-REMOTE-SOURCE", "remote topic names its source",
        "topic_source(format_remote_topic(a, t)) == a", _remote_source, _remote_ok),
    Law("MM2-LAW-REMOTE-UPSTREAM", "remote topic names its upstream topic",
        "upstream_topic(format_remote_topic(a, t)) == t", _remote_upstream, _remote_ok),
    Law("MM2-LAW-ORIGINAL-OF-REMOTE", "replication keeps the original topic",
        "original_topic(format_remote_topic(a, t)) == original_topic(t)", _original_of_remote, _remote_ok),
    Law("MM2-LAW-ORIGINAL-TERMINATES", "original_topic terminates",
        "the upstream chain of t and of a remote t reaches None or a fixed point within len+2 steps",
        _original_terminates, _remote_ok),
    Law("MM2-LAW-ORIGINAL-IDEMPOTENT", "original_topic is idempotent",
        "original_topic(original_topic(t)) == original_topic(t)", _original_idempotent,
        lambda i: bool(i.topic)),
    Law("MM2-LAW-ORIGINAL-IS-LOCAL", "the original topic has no further upstream",
        "upstream_topic(original_topic(t)) is None or original_topic(t)", _original_is_local,
        lambda i: bool(i.topic)),
    Law("MM2-LAW-LOCAL-TOPIC", "a topic without the separator is local",
        "topic_source(t) is None and upstream_topic(t) is None when t has no separator",
        _local_not_remote, lambda i: local_topic(i.topic, i.separator), identity_meets=False),
    Law("MM2-LAW-CYCLE-DETECTABLE", "replicating a topic back to a cluster it came from is a cycle",
        "is_cycle(format_remote_topic(a, t), target=a), also after a second hop through b",
        _cycle_detectable, _two_hops_ok, identity_meets=False),
    Law("MM2-LAW-INTERNAL-TOPICS", "internal topics are recognised",
        "checkpoints and offset-syncs topics are MM2-internal and internal; __* and .* are internal;"
        " checkpoints are recognised as checkpoints, offset-syncs not",
        _internal_topics, lambda i: bool(i.alias) and bool(i.topic)),
    Law("MM2-LAW-INTERNAL-CONNECT-3X", "Connect-style names are internal (Kafka before 4.0)",
        "with the 3.x rule, t.internal and t-internal are internal", _connect_names_internal,
        lambda i: i.internal_rule == INTERNAL_RULE_3X and bool(i.topic)),
    Law("MM2-LAW-INTERNAL-ONLY-4X", "only Kafka's and MM2's own topics are internal (Kafka 4.0 and later)",
        "with the 4.x rule, is_internal_topic holds for t, t-internal and t.internal exactly when the name starts"
        " with __ or . or is MM2-internal",
        _only_named_internal, lambda i: i.internal_rule == INTERNAL_RULE_4X and bool(i.topic)),
    Law("MM2-LAW-INTERNAL-NOT-HEARTBEAT", "internal topics are not heartbeats",
        "neither checkpoints_topic(a) nor offset_syncs_topic(a) is a heartbeats topic",
        _internal_not_remote_shaped, lambda i: clean_alias(i.alias, i.separator)),
    Law("MM2-LAW-HEARTBEATS", "heartbeats are replicable and recognised at every hop",
        "heartbeats_topic() is a heartbeats topic exactly when it is its own original topic (KIP-690's"
        " is_heartbeats_topic); then, when the name is a valid topic (not empty, not only separators), it"
        " stays a heartbeats topic after one hop and after two through a flow naming the same topic, and"
        " neither it nor its copy is internal unless the name is internal-shaped",
        _heartbeats, _heartbeats_ok),
    Law("MM2-LAW-USER-NOT-HEARTBEAT", "a user topic is not a heartbeat",
        "is_heartbeats_topic(t) is false for t not ending with the heartbeats name", _user_not_heartbeat,
        _user_not_heartbeat_ok),
    Law("MM2-LAW-REMOTE-NOT-INTERNAL", "replication does not make a topic internal",
        "format_remote_topic(a, t) is not internal when t is not and the alias is plain", _remote_not_internal,
        _remote_not_internal_ok),
)

LAWS_BY_ID: dict[str, Law] = {law.id: law for law in LAWS}


def violated_laws(policy_for: PolicyFor, inp: LawInput) -> list[str]:
    """The IDs of the laws that fail at ``inp`` (preconditions respected)."""
    return [law.id for law in LAWS if not law.holds(policy_for, inp)]
