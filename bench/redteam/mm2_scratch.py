"""MirrorMaker 2 replication policies, session 8's planted bugs, over both internal-topic rules
(MM2-RULE-INTERNAL-3X / -4X) and both policies.

The bug-free policies are session 5's from-scratch ``redteam.mm2.Policy`` and
``IdentityPolicy`` (written from spec/mm2.md and spec/adapter-protocol.md only), plus Kafka
3.x's internal-topic rule written here from spec/mm2.md §1.4. The bugs are the slips of someone
porting ``DefaultReplicationPolicy`` by hand: KIP-949's flag half applied, 2.4's ``+ 1``
substring, byte lengths for character lengths, a hop cap, 3.x's rule half remembered.

    PYTHONPATH=bench kspec conform mm2 --target python:redteam.mm2_scratch:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import SelfNamed, register, slot_target, subclass
from redteam.mm2 import IdentityPolicy, Node, PlainTarget, Policy


class Rule3x:
    """Kafka 2.4-3.9's internal-topic rule, mixed into either policy."""

    def is_mm2_internal_topic(self, topic: str) -> bool:
        return topic.endswith(self.isep + "internal")  # type: ignore[attr-defined]

    def is_internal_topic(self, topic: str) -> bool:
        return (self.is_mm2_internal_topic(topic) or topic.startswith(("__", "."))
                or topic.endswith(("-internal", ".internal")))


# ---------------------------------------------------------------------------- bugs


class InternalFlagIgnored(Policy):
    """KIP-949's ``replication.policy.internal.topic.separator.enabled`` not read: internal
    names always use the configured separator (3.1-3.5's behaviour)."""

    def __init__(self, props: dict[str, str]) -> None:
        super().__init__(props)
        self.isep = self.sep


class Mm2SuffixLoose(Policy):
    """4.x's MM2-internal test with the suffix ``internal`` alone (no separator before it):
    ``mm2-internal`` or ``mm2orders_internal`` count as MM2's own."""

    def is_mm2_internal_topic(self, topic: str) -> bool:
        return (topic.startswith("mm2") and topic.endswith("internal")) or self.is_checkpoints_topic(topic)


class OffsetSyncsIgnoresFlag(Policy):
    """KIP-949 applied to the checkpoints name only: offset-syncs keeps the separator."""

    def offset_syncs_topic(self, alias: str) -> str:
        return f"mm2-offset-syncs{self.sep}{alias}{self.sep}internal"


class UpstreamPlusOne(Policy):
    """``upstreamTopic`` cuts ``source.length() + 1`` (2.4's interface default), right only for a
    one-character separator."""

    def upstream_topic(self, topic: str) -> str | None:
        source = self.topic_source(topic)
        return None if source is None else topic[len(source) + 1:]


class OriginalOneHop(Policy):
    """``originalTopic`` takes one step up, not the whole chain."""

    def original_topic(self, topic: str) -> str:
        up = self.upstream_topic(topic)
        return topic if up is None else up


class OriginalHopCap(Policy):
    """``originalTopic`` stops after three hops (a guard against identity-like loops written as
    a cap instead of the fixed-point test)."""

    def original_topic(self, topic: str) -> str:
        for _ in range(3):
            up = self.upstream_topic(topic)
            if up is None or up == topic:
                return topic
            topic = up
        return topic


class ByteLengthSubstring(Policy):
    """``upstreamTopic`` cuts at the source's length in UTF-8 bytes (a port that mixes byte and
    character offsets): wrong once the source alias has a non-ASCII character."""

    def upstream_topic(self, topic: str) -> str | None:
        source = self.topic_source(topic)
        return None if source is None else topic[len(source.encode("utf-8")) + len(self.sep):]


class CheckpointsHardcodedDot(Policy):
    """``isCheckpointsTopic`` tests ``.checkpoints.internal`` whatever the separator (the name is
    built with it)."""

    def is_checkpoints_topic(self, topic: str) -> bool:
        return topic.endswith(".checkpoints.internal")


class HeartbeatsEqualsTopic(Policy):
    """``isHeartbeatsTopic`` compares the topic itself, not its original: a replicated
    ``A.heartbeats`` is not a heartbeats topic."""

    def is_heartbeats_topic(self, topic: str) -> bool:
        return topic == self.heartbeats_topic()


class EmptyAliasFormatsLocal(Policy):
    """``formatRemoteTopic`` with an empty alias returns the topic unchanged (a guard against
    a missing alias), where Kafka prepends the separator."""

    def format_remote_topic(self, source: str, topic: str) -> str:
        return topic if not source else super().format_remote_topic(source, topic)


class Rule3xSuffixSeparator(Rule3x, Policy):
    """3.x: Connect's names tested with the configured separator (``_internal``) instead of
    ``.internal`` and ``-internal``."""

    def is_internal_topic(self, topic: str) -> bool:
        return self.is_mm2_internal_topic(topic) or topic.startswith(("__", ".")) or topic.endswith(
            self.sep + "internal")


class Rule3xMm2Prefix(Rule3x, Policy):
    """3.x: the MM2-internal test of 4.x (``mm2`` prefix) kept on 3.x, so ``orders.internal`` is
    internal (Connect's rule) but not MM2-internal."""

    def is_mm2_internal_topic(self, topic: str) -> bool:
        return Policy.is_mm2_internal_topic(self, topic)


class Rule3xDotInternalOnly(Rule3x, Policy):
    """3.x: ``-internal`` forgotten (only ``.internal`` Connect names are internal)."""

    def is_internal_topic(self, topic: str) -> bool:
        return (self.is_mm2_internal_topic(topic) or topic.startswith(("__", "."))
                or topic.endswith(".internal"))


class IdentityFormatsHeartbeatsAsIs(IdentityPolicy):
    """Identity: ``formatRemoteTopic`` keeps every name, heartbeats too (the other methods do
    treat heartbeats as the default policy does)."""

    def format_remote_topic(self, source: str, topic: str) -> str:
        return topic


class IdentityClientAliasEmpty(IdentityPolicy):
    """Identity: the alias read as ``props.get(alias, "")``: a client's policy (no
    ``source.cluster.alias``) answers ``""`` where Kafka answers null."""

    def __init__(self, props: dict[str, str]) -> None:
        super().__init__(props)
        self.alias = props.get("source.cluster.alias", "")


class Identity3xRule(Rule3x, IdentityPolicy):
    pass


class Default3xRule(Rule3x, Policy):
    pass


class AnyTarget(SelfNamed, PlainTarget):
    """Every configuration: the class for the run's policy and rule (named after the module and
    class that define the target: the later scratch modules build on it)."""

    default: type[Policy] = Policy
    identity: type[Policy] = IdentityPolicy
    default3x: type[Policy] = Default3xRule
    identity3x: type[Policy] = Identity3xRule

    def supports(self, config: dict[str, Any]) -> bool:
        return True

    def start(self, node: str, config: dict[str, Any]) -> Node:
        rule3 = config.get("internal_rule", "4.x") == "3.x"
        if config.get("policy", "default") == "identity":
            cls = self.identity3x if rule3 else self.identity
        else:
            cls = self.default3x if rule3 else self.default
        return Node(cls({str(k): str(v) for k, v in (config.get("props") or {}).items()}))


Correct = subclass(globals(), "Correct", AnyTarget)
CORRECT = "Correct"
# bug name -> {slot of AnyTarget: class}: the slot the bug replaces.
BUGS: dict[str, dict[str, type[Policy]]] = {
    "internal-flag-ignored": {"default": InternalFlagIgnored},
    "mm2-suffix-loose": {"default": Mm2SuffixLoose},
    "offset-syncs-ignores-flag": {"default": OffsetSyncsIgnoresFlag},
    "upstream-plus-one": {"default": UpstreamPlusOne},
    "original-one-hop": {"default": OriginalOneHop},
    "original-hop-cap": {"default": OriginalHopCap},
    "byte-length-substring": {"default": ByteLengthSubstring},
    "checkpoints-hardcoded-dot": {"default": CheckpointsHardcodedDot},
    "heartbeats-equals-topic": {"default": HeartbeatsEqualsTopic},
    "empty-alias-formats-local": {"default": EmptyAliasFormatsLocal},
    "rule3x-suffix-separator": {"default3x": Rule3xSuffixSeparator},
    "rule3x-mm2-prefix": {"default3x": Rule3xMm2Prefix},
    "rule3x-dot-internal-only": {"default3x": Rule3xDotInternalOnly},
    "identity-formats-heartbeats-as-is": {"identity": IdentityFormatsHeartbeatsAsIs},
    "identity-client-alias-empty": {"identity": IdentityClientAliasEmpty},
}
TARGETS = register(globals(), AnyTarget, BUGS, slot_target)
