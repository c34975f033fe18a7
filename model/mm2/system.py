"""A system model of K Kafka clusters replicating to each other with MirrorMaker 2.

The replication flows are either every ordered pair of clusters (``mesh``) or, by default,
the smallest topology that has both an active/active pair and a longer cycle: A<->B plus the
ring B->C->A (with two clusters, both are A<->B). Cycles are what MM2's cycle detection
exists for. A state is the set of topic replicas on all clusters; each
replica carries its ground-truth provenance (the kind and name of the topic it started as,
and the clusters it went through), which the policy under test never sees. The properties
hold that ground truth against what MM2 did with the policy's names (spec/mm2.md,
MM2-INV-*).

Actions:

* ``CreateTopic(cluster, name)``: a user creates a topic.
* ``Sync(source, target)``: one ``MirrorSourceConnector.refreshTopicPartitions`` of the flow:
  every topic on ``source`` that ``shouldReplicateTopic`` accepts (topic filter accepts all,
  so the policy's ``isInternalTopic`` is the only guard, as with ``topics.exclude`` emptied)
  gets its remote topic ``format_remote_topic(source, name)`` on ``target``. Topics it
  rejects set a flag per reason (cycle, internal), so witnesses can see a cycle or an internal topic
  being refused.

MM2 creates its internal topics when it starts, so the initial state already has, on every
cluster, ``__consumer_offsets``, the heartbeats topic, and for every flow ``s -> t`` the
checkpoints topic ``checkpoints_topic(s)`` on ``t`` and the offset-syncs topic
``offset_syncs_topic(t)`` on ``s`` (the default ``offset-syncs.topic.location=source``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import pairwise
from typing import Any

from kspec.model.core.protocol import Property, always, sometimes
from kspec.model.mm2.policy import (
    IdentityReplicationPolicy,
    PolicyLike,
    ReplicationPolicy,
    is_cycle,
    replication_hops,
    upstream_clusters,
)

USER = "user"
HEARTBEATS = "heartbeats"
CHECKPOINTS = "checkpoints"
OFFSET_SYNCS = "offset-syncs"
KAFKA_INTERNAL = "kafka-internal"
INTERNAL_KINDS = frozenset({CHECKPOINTS, OFFSET_SYNCS, KAFKA_INTERNAL})

PLAIN_ALIASES = ("A", "B", "C")
DOTTED_ALIASES = ("us.east", "us.west", "eu.central")
USER_TOPICS = ("orders", "payments")


@dataclass(frozen=True, slots=True, order=True)
class Replica:
    """One provenance of topic ``name`` on ``cluster``: started as ``origin`` (of ``kind``)
    on ``path[0]`` and was replicated along ``path`` (which ends at ``cluster``)."""

    cluster: str
    name: str
    kind: str
    origin: str
    path: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class State:
    """All replicas on all clusters, and whether a sync has refused a topic as a cycle or as
    internal."""

    replicas: frozenset[Replica]
    cycle_refused: bool = False
    internal_refused: bool = False

    def names_on(self, cluster: str) -> list[str]:
        """The topic names on ``cluster``, sorted."""
        return sorted({r.name for r in self.replicas if r.cluster == cluster})


@dataclass(frozen=True, slots=True)
class CreateTopic:
    cluster: str
    name: str


@dataclass(frozen=True, slots=True)
class Sync:
    source: str
    target: str


Action = CreateTopic | Sync


def flows(aliases: Sequence[str], mesh: bool) -> tuple[tuple[str, str], ...]:
    """The replication flows ``(source, target)`` between ``aliases``."""
    if mesh or len(aliases) < 3:
        return tuple((s, t) for s in aliases for t in aliases if s != t)
    a, b, *rest = aliases
    ring = [a, b, *rest, a]
    return ((b, a), *pairwise(ring))


class Refused(Enum):
    """Why a flow did not copy a topic."""

    INTERNAL = "internal"
    CYCLE = "cycle"


def replicate(fp: PolicyLike, name: str, source: str, target: str) -> str | Refused:
    """One topic of one ``refreshTopicPartitions`` of the flow ``source -> target``: the remote
    name it gets on the target, or why it is refused (the calls ``shouldReplicateTopic`` and
    ``formatRemoteTopic`` make, in MirrorSourceConnector's order)."""
    if fp.is_internal_topic(name):
        return Refused.INTERNAL
    if is_cycle(fp, name, target):
        return Refused.CYCLE
    return fp.format_remote_topic(source, name)


# -- the rules of one flow's sync, as data --------------------------------------------------
#
# What ``replicate`` does with a topic on the flow's source, by the topic's class (its ground
# truth: what it started as, and whether it came from elsewhere or from the flow's target) and
# the policy (Kafka's two, under each internal-topic rule). ``tests/mm2/test_mm2_rules_table.py``
# holds every reachable sync to this table; the docs draw it.
PREFIXED = "copied as <source><separator><name>"
KEPT = "copied under its own name"
REFUSED_INTERNAL = "refused: internal"
REFUSED_CYCLE = "refused: cycle"
NEVER = "never on a source (refused where it started)"

POLICY_COLUMNS = ("default 4.x", "default 3.x", "identity 4.x", "identity 3.x")

# name class -> the outcome per POLICY_COLUMNS column. "local": created on the flow's source;
# "remote": replicated there from another cluster; "returning": the flow's target is on its
# path, so copying it would close a cycle. "connect-internal" is a user topic named like
# Connect's internal ones (``*-internal``, ``*.internal``), internal under the 3.x rule only.
REPLICATION_RULES: dict[str, tuple[str, str, str, str]] = {
    "user local": (PREFIXED, PREFIXED, KEPT, KEPT),
    "user remote": (PREFIXED, PREFIXED, KEPT, KEPT),
    # Identity names carry no path, so it cannot see the cycle (MM2-LAW-CYCLE-DETECTABLE).
    "user returning": (REFUSED_CYCLE, REFUSED_CYCLE, KEPT, KEPT),
    "connect-internal local": (PREFIXED, REFUSED_INTERNAL, KEPT, REFUSED_INTERNAL),
    "connect-internal remote": (PREFIXED, NEVER, KEPT, NEVER),
    "connect-internal returning": (REFUSED_CYCLE, NEVER, KEPT, NEVER),
    # Identity handles heartbeats as the default policy does.
    "heartbeats local": (PREFIXED, PREFIXED, PREFIXED, PREFIXED),
    "heartbeats remote": (PREFIXED, PREFIXED, PREFIXED, PREFIXED),
    "heartbeats returning": (REFUSED_CYCLE, REFUSED_CYCLE, REFUSED_CYCLE, REFUSED_CYCLE),
    "checkpoints": (REFUSED_INTERNAL,) * 4,
    "offset-syncs": (REFUSED_INTERNAL,) * 4,
    "kafka-internal": (REFUSED_INTERNAL,) * 4,
}


def name_class(replica: Replica, target: str) -> str:
    """The :data:`REPLICATION_RULES` row of ``replica`` (on a flow's source) for the flow to
    ``target``, from its ground truth."""
    if replica.kind in INTERNAL_KINDS:
        return replica.kind
    kind = replica.kind
    if kind == USER and replica.origin.endswith(("-internal", ".internal")):
        kind = "connect-internal"
    where = "returning" if target in replica.path else "remote" if len(replica.path) > 1 else "local"
    return f"{kind} {where}"


def policy_column(policy: ReplicationPolicy) -> str:
    """The :data:`POLICY_COLUMNS` column of Kafka's policy ``policy``."""
    kind = "identity" if isinstance(policy, IdentityReplicationPolicy) else "default"
    return f"{kind} {policy.internal_rule}"


class Mm2System:
    """The MM2 system model over a replication policy (a parameter).

    ``user_topics`` overrides the names users may create (default: the first ``topics`` of
    :data:`USER_TOPICS`); the conformance driver adds a Connect-style ``orders-internal``,
    which replicates under the 4.x internal-topic rule and is refused under 3.x.
    """

    def __init__(self, policy: ReplicationPolicy, *, clusters: int = 3, topics: int = 1, hops: int = 3,
                 mesh: bool = False, aliases: Sequence[str] = PLAIN_ALIASES, name: str = "mm2",
                 bounds: dict[str, int | bool] | None = None, user_topics: Sequence[str] | None = None) -> None:
        self.name = name
        self.policy = policy
        self.aliases = tuple(aliases[:clusters])
        self.flows = flows(self.aliases, mesh)
        self.user_topics = tuple(user_topics) if user_topics is not None else USER_TOPICS[:topics]
        self.hops = hops
        self.bounds: dict[str, int | bool] = dict(bounds) if bounds is not None else {
            "clusters": clusters, "topics": topics, "hops": hops}

    def flow_policy(self, source: str) -> ReplicationPolicy:
        """The policy as the connectors of flows from ``source`` configure it."""
        return self.policy.for_flow(source)

    # -- the model protocol -------------------------------------------------------------

    def init_states(self) -> Sequence[State]:
        p = self.policy
        replicas: set[Replica] = set()
        for c in self.aliases:
            replicas.add(Replica(c, "__consumer_offsets", KAFKA_INTERNAL, "__consumer_offsets", (c,)))
            hb = p.heartbeats_topic()
            replicas.add(Replica(c, hb, HEARTBEATS, hb, (c,)))
        for s, t in self.flows:
            fp = self.flow_policy(s)
            cp = fp.checkpoints_topic(s)
            replicas.add(Replica(t, cp, CHECKPOINTS, cp, (t,)))
            os = fp.offset_syncs_topic(t)
            replicas.add(Replica(s, os, OFFSET_SYNCS, os, (s,)))
        return [State(frozenset(replicas))]

    def actions(self, state: State) -> Iterable[Action]:
        # Syncs first: breadth-first search then meets a topic coming back (a cycle) before two
        # clusters creating the same name, so the identity policy's first counterexample is
        # the cycle the spec is about.
        for s, t in self.flows:
            yield Sync(s, t)
        for c in self.aliases:
            for n in self.user_topics:
                yield CreateTopic(c, n)

    def next_state(self, state: State, action: Action) -> State | None:
        if isinstance(action, CreateTopic):
            if action.name in state.names_on(action.cluster):
                return None
            new = Replica(action.cluster, action.name, USER, action.name, (action.cluster,))
            return State(state.replicas | {new}, state.cycle_refused, state.internal_refused)
        return self._sync(state, action)

    def _sync(self, state: State, action: Sync) -> State | None:
        s, t = action.source, action.target
        fp = self.flow_policy(s)
        added: set[Replica] = set()
        cycle_refused, internal_refused = state.cycle_refused, state.internal_refused
        for name in state.names_on(s):
            remote = replicate(fp, name, s, t)
            if remote is Refused.INTERNAL:
                internal_refused = True
                continue
            if remote is Refused.CYCLE:
                cycle_refused = True
                continue
            for r in state.replicas:
                if r.cluster == s and r.name == name and len(r.path) <= self.hops:
                    added.add(Replica(t, remote, r.kind, r.origin, (*r.path, t)))
        new = State(state.replicas | added, cycle_refused, internal_refused)
        return None if new == state else new

    def within_bounds(self, state: State) -> bool:
        return True

    def properties(self) -> Sequence[Property[State, Action]]:
        return mm2_properties(self)

    def events_of(self, before: State, action: Action, after: State) -> list[dict[str, Any]]:
        """The node-level event of a step, as an MM2 deployment would log it."""
        if isinstance(action, CreateTopic):
            return [{"node": action.cluster, "action": "create_topic", "input": {"topic": action.name},
                     "outputs": [], "observation": {"topics": after.names_on(action.cluster)}}]
        created = sorted(set(after.names_on(action.target)) - set(before.names_on(action.target)))
        return [{"node": f"{action.source}->{action.target}", "action": "sync",
                 "input": {"source_topics": before.names_on(action.source)},
                 "outputs": [{"create_topic": name} for name in created],
                 "observation": {"target_topics": after.names_on(action.target)}}]

    # -- rendering ----------------------------------------------------------------------

    def describe_action(self, action: Action) -> str:
        if isinstance(action, CreateTopic):
            return f"create topic {action.name!r} on {action.cluster}"
        return f"sync flow {action.source}->{action.target}"

    def describe_state(self, state: State) -> str:
        """Each cluster's topics with the paths of replicated ones; internal topics that stayed
        home are only counted, so traces stay readable."""
        lines = []
        for c in self.aliases:
            parts = []
            hidden = 0
            for name in state.names_on(c):
                here = [r for r in state.replicas if r.cluster == c and r.name == name]
                paths = sorted("->".join(r.path) for r in here)
                if len(here) == 1 and len(here[0].path) == 1:
                    if here[0].kind in INTERNAL_KINDS:
                        hidden += 1
                    else:
                        parts.append(name)
                else:
                    parts.append(f"{name} [{', '.join(paths)}]")
            if hidden:
                parts.append(f"(+{hidden} internal)")
            lines.append(f"{c}: " + "; ".join(parts))
        return "\n".join(lines)


# -- properties ---------------------------------------------------------------------------

def _no_cycle(state: State) -> bool:
    return all(len(set(r.path)) == len(r.path) for r in state.replicas)


def _internal_not_replicated(state: State) -> bool:
    return all(r.kind not in INTERNAL_KINDS or len(r.path) == 1 for r in state.replicas)


def _no_merge(state: State) -> bool:
    seen: dict[tuple[str, str], tuple[str, str]] = {}
    for r in state.replicas:
        key = (r.cluster, r.name)
        root = (r.path[0], r.origin)
        if seen.setdefault(key, root) != root:
            return False
    return True


def mm2_properties(model: Mm2System) -> list[Property[State, Action]]:
    """The MM2 system properties and witnesses for ``model``'s policy and bounds."""
    policy = model.policy

    def names_resolve(state: State) -> bool:
        for r in state.replicas:
            if len(r.path) < 2:
                continue
            source = r.path[-2]
            fp = model.flow_policy(source)
            if fp.topic_source(r.name) != source or policy.original_topic(r.name) != r.origin:
                return False
        return True

    def heartbeats_recognised(state: State) -> bool:
        for r in state.replicas:
            is_hb = policy.is_heartbeats_topic(r.name)
            if (r.kind == HEARTBEATS) != is_hb:
                return False
        return True

    def client_view(state: State) -> bool:
        # What MirrorClient on each cluster concludes from the heartbeat topic names.
        for c in model.aliases:
            names = state.names_on(c)
            beats = [r for r in state.replicas if r.cluster == c and r.kind == HEARTBEATS and len(r.path) > 1]
            if upstream_clusters(policy, names) != frozenset(x for r in beats for x in r.path[:-1]):
                return False
            for other in model.aliases:
                lengths = [len(r.path) - 1 for r in beats if r.path[0] == other]
                if other != c and replication_hops(policy, names, other) != (min(lengths) if lengths else -1):
                    return False
        return True

    def reached(kind: str, length: int) -> Callable[[State], bool]:
        return lambda state: any(r.kind == kind and len(r.path) == length for r in state.replicas)

    def active_active(state: State) -> bool:
        return any(r.kind == USER and len(r.path) == 2 and any(
            q.kind == USER and len(q.path) == 2 and q.origin == r.origin and q.path == r.path[::-1]
            for q in state.replicas) for r in state.replicas)

    props: list[Property[State, Action]] = [
        always("MM2-INV-NO-CYCLE", "no_topic_back_to_source",
               "No replica has a cluster twice on its path: nothing is replicated back to a cluster it"
               " came from.")(_no_cycle),
        always("MM2-INV-INTERNAL-NOT-REPLICATED", "internal_topics_never_replicated",
               "Checkpoints, offset-syncs and Kafka-internal topics stay on the cluster that created"
               " them.")(_internal_not_replicated),
        always("MM2-INV-NO-MERGE", "remote_names_do_not_collide",
               "Each topic name on a cluster holds records of one origin topic only.")(_no_merge),
        always("MM2-INV-NAMES-RESOLVE", "remote_names_resolve",
               "topic_source of a replica names the cluster it came from and original_topic names the"
               " topic it started as.")(names_resolve),
        always("MM2-INV-HEARTBEATS-RECOGNISED", "heartbeats_recognised",
               "is_heartbeats_topic holds exactly for heartbeat replicas, at every hop.")(heartbeats_recognised),
        always("MM2-INV-CLIENT-VIEW", "mirror_client_view",
               "MirrorClient's upstreamClusters and replicationHops, read from heartbeat names, match the"
               " heartbeats' real paths.")(client_view),
        sometimes("MM2-WIT-HEARTBEAT-REPLICATED", "heartbeat_replicated")(reached(HEARTBEATS, 2)),
        sometimes("MM2-WIT-CYCLE-PREVENTED", "cycle_prevented")(lambda state: state.cycle_refused),
        sometimes("MM2-WIT-INTERNAL-SKIPPED", "internal_topic_skipped")(lambda state: state.internal_refused),
    ]
    if model.user_topics:
        props.append(sometimes("MM2-WIT-TOPIC-REPLICATED", "topic_replicated")(reached(USER, 2)))
        props.append(sometimes("MM2-WIT-ACTIVE-ACTIVE", "active_active")(active_active))
    if len(model.aliases) >= 3 and model.hops >= 2:
        props.append(sometimes("MM2-WIT-HEARTBEAT-TWO-HOPS", "heartbeat_two_hops")(reached(HEARTBEATS, 3)))
        if model.user_topics:
            props.append(sometimes("MM2-WIT-TWO-HOPS", "topic_two_hops")(reached(USER, 3)))
    return props

