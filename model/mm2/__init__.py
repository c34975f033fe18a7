"""MirrorMaker 2's ReplicationPolicy contract (KIP-382, KIP-690): policies, laws, system model.

``kspec explore mm2`` explores K clusters replicating to each other with Kafka's
DefaultReplicationPolicy; ``identity=true`` swaps in IdentityReplicationPolicy, whose cycle
counterexample is the law Kafka's own identity policy cannot meet (spec/mm2.md).
"""

from __future__ import annotations

from collections.abc import Callable

from kspec.model.core.protocol import Bound, ProtocolInfo
from kspec.model.mm2.mutants import InternalReplicablePolicy, PeriodSplitPolicy, UpstreamSelfPolicy
from kspec.model.mm2.policy import (
    INTERNAL_RULE_3X,
    INTERNAL_RULE_4X,
    DefaultReplicationPolicy,
    IdentityReplicationPolicy,
    ReplicationPolicy,
)
from kspec.model.mm2.system import DOTTED_ALIASES, PLAIN_ALIASES, Mm2System

BOUNDS = (
    Bound("clusters", 3, "number of clusters, each replicating to every other", 2, 3),
    Bound("topics", 1, "number of user topic names a cluster may create", 0, 2),
    Bound("hops", 3, "longest replication path, in hops", 1, 3),
    Bound("mesh", False, "every ordered pair of clusters is a flow (default: A<->B plus the ring B->C->A)"),
    Bound("identity", False, "use Kafka's IdentityReplicationPolicy instead of DefaultReplicationPolicy"),
    Bound("dotted_aliases", False, "cluster aliases contain '.', with separator '_'"),
    Bound("rule_3x", False, "Kafka 3.x's internal-topic rule (before KAFKA-17200: *-internal topics are internal)"),
)


def make(clusters: int = 3, topics: int = 1, hops: int = 3, mesh: bool = False, identity: bool = False,
         dotted_aliases: bool = False, rule_3x: bool = False) -> Mm2System:
    """The system model with Kafka's policies (the 4.x internal-topic rule unless ``rule_3x``)."""
    separator = "_" if dotted_aliases else "."
    rule = INTERNAL_RULE_3X if rule_3x else INTERNAL_RULE_4X
    policy: ReplicationPolicy = (IdentityReplicationPolicy(separator=separator, internal_rule=rule) if identity
                                 else DefaultReplicationPolicy(separator=separator, internal_rule=rule))
    aliases = DOTTED_ALIASES if dotted_aliases else PLAIN_ALIASES
    return Mm2System(policy, clusters=clusters, topics=topics, hops=hops, mesh=mesh, aliases=aliases,
                     bounds={"clusters": clusters, "topics": topics, "hops": hops, "mesh": mesh, "identity": identity,
                             "dotted_aliases": dotted_aliases, "rule_3x": rule_3x})


def _variant(policy: ReplicationPolicy, aliases: tuple[str, ...] = PLAIN_ALIASES) -> Callable[..., Mm2System]:
    def build(clusters: int = 3, topics: int = 1, hops: int = 3, mesh: bool = False, identity: bool = False,
              dotted_aliases: bool = False, rule_3x: bool = False) -> Mm2System:
        return Mm2System(policy, clusters=clusters, topics=topics, hops=hops, mesh=mesh, aliases=aliases,
                         bounds={"clusters": clusters, "topics": topics, "hops": hops, "mesh": mesh,
                                 "identity": identity,
                                 "dotted_aliases": dotted_aliases, "rule_3x": rule_3x})
    return build


VARIANTS: dict[str, Callable[..., Mm2System]] = {
    # Kafka's own policies where the laws do not hold (documented limitations, spec/mm2.md).
    "identity": _variant(IdentityReplicationPolicy()),
    "default-dotted-aliases": _variant(DefaultReplicationPolicy(), DOTTED_ALIASES),
    # Mutants: bug classes of user-written policies.
    "upstream-self": _variant(UpstreamSelfPolicy()),
    "internal-replicable": _variant(InternalReplicablePolicy()),
    "period-split": _variant(PeriodSplitPolicy(separator="_"), DOTTED_ALIASES),
}

PROTOCOL = ProtocolInfo(
    name="mm2",
    make=make,
    bounds=BOUNDS,
    variants=dict(VARIANTS),
    summary="MirrorMaker 2 replication policies across K clusters replicating to each other",
)
