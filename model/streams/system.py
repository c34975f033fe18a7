"""A system model of Kafka Streams instances, task assignment, rebalances and key queries.

One store (``counts``) is materialized from one source topic (``input``) with ``partitions``
partitions, so task ``p`` owns partition ``p``. The instances are ``host0:8080``... State:
the running members, the rebalance phase, the assignment the metadata was last rebuilt from
(``published``: ``StreamsMetadataState.onChange`` gets every member it was made for, a member
with no task too, and the partition counts of its active map: :func:`to_assignment`), the one
the leader has computed but not yet handed out (``pending``), and the answer to the last key
query, which is cleared by any later step so it always describes the current state.

Actions: ``Join``/``Leave`` (start a rebalance), ``Assign`` (the leader picks any valid
assignment of active tasks and standbys over the members: the model allows every assignment
the assignor could make, not one pick), ``Finish`` (members receive it; metadata rebuilt), and
``Query(key)`` (``queryMetadataForKey``, allowed while RUNNING or REBALANCING as Kafka allows).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any

from kspec.model.core.protocol import Property, always, sometimes
from kspec.model.streams.metadata import (
    NOT_AVAILABLE,
    Assignment,
    HostInfo,
    KeyQueryMetadata,
    TopicPartition,
    Topology,
    all_metadata,
    partitions_from_active,
    route,
)
from kspec.model.streams.murmur2 import partition_for_key

STORE = "counts"
SOURCE_TOPIC = "input"
TOPOLOGY = Topology(((STORE, (SOURCE_TOPIC,)),))
KEYS = ("alice", "dave", "carol")

REBALANCING = "rebalancing"
RUNNING = "running"


def host(instance: int) -> HostInfo:
    """The ``application.server`` of instance ``instance``."""
    return HostInfo(f"host{instance}", 8080)


@dataclass(frozen=True, slots=True)
class Plan:
    """An assignment: the active instance of each partition, its standby instances, and the
    members it was made for (a member may get no task at all)."""

    active: tuple[int, ...]
    standby: tuple[frozenset[int], ...]
    members: frozenset[int]


@dataclass(frozen=True, slots=True)
class Answer:
    """What the last query returned."""

    key: str
    result: KeyQueryMetadata | None


@dataclass(frozen=True, slots=True)
class State:
    members: frozenset[int]
    phase: str
    published: Plan | None = None
    pending: Plan | None = None
    answer: Answer | None = None


@dataclass(frozen=True, slots=True)
class Join:
    instance: int


@dataclass(frozen=True, slots=True)
class Leave:
    instance: int


@dataclass(frozen=True, slots=True)
class Assign:
    plan: Plan


@dataclass(frozen=True, slots=True)
class Finish:
    pass


@dataclass(frozen=True, slots=True)
class Query:
    key: str


Action = Join | Leave | Assign | Finish | Query

# The rebalance phases as data: per action, the phases it is enabled in and the phase it leads
# to (None: the phase stays). ``next_state`` follows it; the docs draw :data:`TRANSITIONS`
# from it, and tests/streams check it against the step function over explored transitions.
PHASE_RULES: dict[type, tuple[frozenset[str], str | None]] = {
    Join: (frozenset({REBALANCING, RUNNING}), REBALANCING),
    Leave: (frozenset({REBALANCING, RUNNING}), REBALANCING),
    Assign: (frozenset({REBALANCING}), REBALANCING),  # only while no plan is pending
    Finish: (frozenset({REBALANCING}), RUNNING),  # only once a plan is pending
    Query: (frozenset({REBALANCING, RUNNING}), None),
}
WHY: dict[type, str] = {Join: "a member joins", Leave: "a member leaves", Assign: "the leader assigns a plan",
                        Finish: "the rebalance finishes (the plan is published)", Query: "a query"}


def _transitions() -> dict[tuple[str, str], str]:
    """(phase before, phase after) -> the actions that take it, from :data:`PHASE_RULES`."""
    table: dict[tuple[str, str], list[str]] = {}
    for kind, (enabled_in, to) in PHASE_RULES.items():
        for phase in sorted(enabled_in):
            table.setdefault((phase, to or phase), []).append(WHY[kind])
    return {edge: "; ".join(whys) for edge, whys in table.items()}


TRANSITIONS = _transitions()

Router = Callable[[Assignment, str, bytes], KeyQueryMetadata | None]


def default_router(assignment: Assignment, store: str, key: bytes) -> KeyQueryMetadata | None:
    """Kafka's lookup with the default partitioner."""
    return route(assignment, store, key)


HostMaps = Callable[[Plan | None], Assignment]


def to_assignment(plan: Plan | None) -> Assignment:
    """What an instance gives ``onChange`` after ``plan`` (nothing before the first one): every
    member in both host maps, with an empty set when it has no task (STREAMS-RULE-EVERY-MEMBER,
    ``populatePartitionsByHostMaps``), and the partition counts of the active map
    (STREAMS-RULE-PARTITION-INFO, ``getTopicPartitionInfo(partitionsByHost)``)."""
    return _host_maps(plan, every_member=True)


def to_assignment_without_idle(plan: Plan | None) -> Assignment:
    """Variant ``omit-idle-members``: host maps built from the tasks, so a member with no task
    is left out (kspec's model before it followed ``populatePartitionsByHostMaps``)."""
    return _host_maps(plan, every_member=False)


def _host_maps(plan: Plan | None, *, every_member: bool) -> Assignment:
    if plan is None:
        return Assignment(TOPOLOGY, ())
    named = plan.members if every_member else frozenset()
    active: dict[HostInfo, set[TopicPartition]] = {host(m): set() for m in named}
    standby: dict[HostInfo, set[TopicPartition]] = {host(m): set() for m in named}
    for p, owner in enumerate(plan.active):
        active.setdefault(host(owner), set()).add(TopicPartition(SOURCE_TOPIC, p))
        for s in plan.standby[p]:
            standby.setdefault(host(s), set()).add(TopicPartition(SOURCE_TOPIC, p))
    active_map = tuple(sorted((h, frozenset(tps)) for h, tps in active.items()))
    return Assignment(TOPOLOGY, active_map, tuple(sorted((h, frozenset(tps)) for h, tps in standby.items())),
                      partitions_from_active(active_map))


class StreamsSystem:
    """Instances, rebalances and key queries; the router is a parameter."""

    def __init__(self, *, instances: int = 2, partitions: int = 3, standbys: int = 1, keys: int = 2,
                 router: Router = default_router, host_maps: HostMaps = to_assignment,
                 name: str = "streams") -> None:
        self.name = name
        self.host_maps = host_maps
        self.instances = tuple(range(instances))
        self.partitions = partitions
        self.standbys = standbys
        self.keys = KEYS[:keys]
        self.router = router
        self.bounds: dict[str, int | bool] = {"instances": instances, "partitions": partitions,
                                              "standbys": standbys, "keys": keys}

    def plans(self, members: frozenset[int]) -> list[Plan]:
        """Every valid assignment over ``members``: one active per partition, and
        ``min(standbys, members - 1)`` standbys on other members."""
        ordered = sorted(members)
        wanted = min(self.standbys, len(ordered) - 1)
        out = []
        for active in product(ordered, repeat=self.partitions):
            choices = []
            for owner in active:
                others = [m for m in ordered if m != owner]
                choices.append([frozenset(c) for c in _subsets(others, wanted)])
            for standby in product(*choices):
                out.append(Plan(tuple(active), tuple(standby), members))
        return out

    def init_states(self) -> Sequence[State]:
        return [State(frozenset(self.instances), REBALANCING)]

    def actions(self, state: State) -> Iterable[Action]:
        for i in self.instances:
            yield Join(i)
        for i in self.instances:
            yield Leave(i)
        if state.phase == REBALANCING and state.pending is None:
            for plan in self.plans(state.members):
                yield Assign(plan)
        yield Finish()
        for k in self.keys:
            yield Query(k)

    def next_state(self, state: State, action: Action) -> State | None:
        enabled_in, to = PHASE_RULES[type(action)]
        if state.phase not in enabled_in:
            return None
        phase = to or state.phase
        if isinstance(action, Join):
            if action.instance in state.members:
                return None
            return State(state.members | {action.instance}, phase, state.published)
        if isinstance(action, Leave):
            if action.instance not in state.members or len(state.members) == 1:
                return None
            return State(state.members - {action.instance}, phase, state.published)
        if isinstance(action, Assign):
            if state.pending is not None:
                return None
            return State(state.members, phase, state.published, action.plan)
        if isinstance(action, Finish):
            if state.pending is None:
                return None
            return State(state.members, phase, state.pending)
        result = self.router(self.host_maps(state.published), STORE, action.key.encode())
        answer = Answer(action.key, result)
        if answer == state.answer:
            return None
        return State(state.members, phase, state.published, state.pending, answer)

    def within_bounds(self, state: State) -> bool:
        return True

    def properties(self) -> Sequence[Property[State, Action]]:
        return streams_properties(self)

    def events_of(self, before: State, action: Action, after: State) -> list[dict[str, Any]]:
        """The node-level event of a step: membership and assignment events on the group, a
        query on the instance that answers it (the first member)."""
        if isinstance(action, Query):
            answer = after.answer.result if after.answer is not None else None
            node = host(min(after.members)).host
            return [{"node": node, "action": "query_metadata_for_key",
                     "input": {"store": STORE, "key": action.key}, "outputs": [answer],
                     "observation": {"phase": after.phase}}]
        name = type(action).__name__.lower()
        payload: dict[str, Any] = {}
        if isinstance(action, Join | Leave):
            payload = {"instance": host(action.instance).host}
        elif isinstance(action, Assign):
            payload = {"plan": action.plan}
        return [{"node": "group", "action": name, "input": payload, "outputs": [],
                 "observation": {"phase": after.phase, "members": sorted(after.members)}}]

    def describe_action(self, action: Action) -> str:
        if isinstance(action, Join):
            return f"{host(action.instance).host} joins (rebalance starts)"
        if isinstance(action, Leave):
            return f"{host(action.instance).host} leaves (rebalance starts)"
        if isinstance(action, Assign):
            return "leader assigns " + _plan_text(action.plan)
        if isinstance(action, Finish):
            return "rebalance completes; metadata rebuilt"
        return f"queryMetadataForKey({STORE!r}, {action.key!r})"

    def describe_state(self, state: State) -> str:
        members = ",".join(host(i).host for i in sorted(state.members))
        lines = [f"members {members}; {state.phase}",
                 f"metadata: {_plan_text(state.published) if state.published else 'none (not initialized)'}"]
        if state.pending is not None:
            lines.append(f"pending: {_plan_text(state.pending)}")
        if state.answer is not None:
            r = state.answer.result
            if r is None:
                text = "null"
            elif r == NOT_AVAILABLE:
                text = "NOT_AVAILABLE"
            else:
                sb = ",".join(sorted(h.host for h in r.standby_hosts)) or "-"
                text = f"partition {r.partition} active {r.active_host.host} standbys {sb}"
            lines.append(f"answer for {state.answer.key!r}: {text}")
        return "\n".join(lines)


def _subsets(items: list[int], size: int) -> list[tuple[int, ...]]:
    if size == 0:
        return [()]
    out: list[tuple[int, ...]] = []
    for i, x in enumerate(items):
        for rest in _subsets(items[i + 1:], size - 1):
            out.append((x, *rest))
    return out


def idle_members(plan: Plan) -> frozenset[int]:
    """The members ``plan`` gives no task, active or standby."""
    busy = set(plan.active).union(*plan.standby)
    return plan.members - busy


def _plan_text(plan: Plan) -> str:
    parts = []
    for p, owner in enumerate(plan.active):
        sb = ",".join(host(s).host for s in sorted(plan.standby[p]))
        parts.append(f"p{p}->{host(owner).host}" + (f" (standby {sb})" if sb else ""))
    idle = ",".join(host(i).host for i in sorted(idle_members(plan)))
    return " ".join(parts) + (f"; {idle} no task" if idle else "")


def streams_properties(model: StreamsSystem) -> list[Property[State, Action]]:
    """The Streams system properties and witnesses for ``model``'s bounds."""
    n = model.partitions

    def available(state: State) -> KeyQueryMetadata | None:
        if state.answer is None or state.answer.result is None or state.answer.result == NOT_AVAILABLE:
            return None
        return state.answer.result

    def not_available_iff_unassigned(state: State) -> bool:
        if state.answer is None:
            return True
        return (state.answer.result == NOT_AVAILABLE) == (state.published is None)

    def answer_partition(state: State) -> bool:
        r = available(state)
        return r is None or state.answer is None or r.partition == partition_for_key(state.answer.key.encode(), n)

    def answer_hosts(state: State) -> bool:
        r = available(state)
        if r is None or state.published is None or not 0 <= r.partition < n:
            return r is None
        plan = state.published
        return (r.active_host == host(plan.active[r.partition])
                and r.standby_hosts == frozenset(host(s) for s in plan.standby[r.partition])
                and r.active_host not in r.standby_hosts)

    def running_answer_current(state: State) -> bool:
        r = available(state)
        if r is None or state.phase != RUNNING:
            return True
        return r.active_host in {host(i) for i in state.members}

    def metadata_covers(state: State) -> bool:
        if state.published is None:
            return True
        meta = all_metadata(model.host_maps(state.published))
        owned = [tp for m in meta for tp in m.topic_partitions]
        return sorted(owned) == [TopicPartition(SOURCE_TOPIC, p) for p in range(n)]

    def metadata_members(state: State) -> bool:
        if state.published is None:
            return True
        listed = [m.host_info for m in all_metadata(model.host_maps(state.published))]
        return listed == sorted(host(i) for i in state.published.members)

    def idle_listed(state: State) -> bool:
        if state.published is None or not idle_members(state.published):
            return False
        listed = {m.host_info for m in all_metadata(model.host_maps(state.published))}
        return all(host(i) in listed for i in idle_members(state.published))

    def stale(state: State) -> bool:
        r = available(state)
        return r is not None and state.phase == REBALANCING and r.active_host not in {host(i) for i in state.members}

    props: list[Property[State, Action]] = [
        always("STREAMS-INV-NOT-AVAILABLE", "not_available_until_assigned",
               "A query answers NOT_AVAILABLE exactly while no assignment has been received.")(
            not_available_iff_unassigned),
        always("STREAMS-INV-KEY-PARTITION", "key_routed_to_its_partition",
               "An answer's partition is toPositive(murmur2(key)) % partitions.")(answer_partition),
        always("STREAMS-INV-KEY-HOSTS", "key_routed_to_owner",
               "An answer names the active and standby holders of the partition in the metadata,"
               " and the active host is not a standby.")(answer_hosts),
        always("STREAMS-INV-RUNNING-CURRENT", "running_answer_is_a_member",
               "Outside a rebalance, the active host an answer names is a running member.")(running_answer_current),
        always("STREAMS-INV-METADATA-COVERS", "metadata_covers_every_partition",
               "Once assigned, allMetadata holds every partition actively exactly once.")(metadata_covers),
        always("STREAMS-INV-METADATA-MEMBERS", "metadata_names_every_member",
               "Once assigned, allMetadata lists exactly the members the assignment was made for, one entry"
               " each, a member with no task too.")(metadata_members),
        sometimes("STREAMS-WIT-NOT-AVAILABLE", "not_available_answered")(
            lambda s: s.answer is not None and s.answer.result == NOT_AVAILABLE),
        sometimes("STREAMS-WIT-ROUTED", "key_routed")(lambda s: available(s) is not None),
        sometimes("STREAMS-WIT-OTHER-PARTITION", "key_routed_to_nonzero_partition")(
            lambda s: (r := available(s)) is not None and r.partition > 0),
    ]
    if len(model.instances) >= 2:
        props.append(sometimes("STREAMS-WIT-REBALANCED", "assignment_after_membership_change")(
            lambda s: s.published is not None and s.phase == RUNNING and s.members != frozenset(model.instances)))
        props.append(sometimes("STREAMS-WIT-STALE-DURING-REBALANCE", "stale_answer_during_rebalance",
                               "During a rebalance the metadata still names a host that has left.")(stale))
        if model.standbys > 0:
            props.append(sometimes("STREAMS-WIT-STANDBY", "key_has_standby")(
                lambda s: (r := available(s)) is not None and bool(r.standby_hosts)))
        if model.standbys >= 2:
            # A published plan with two standby hosts for a partition (a lookup that keeps them
            # in a scalar names one). A state, not an answer: the guide's graph keeps no answers,
            # so this is what makes a guided path reach it and query there.
            props.append(sometimes("STREAMS-WIT-TWO-STANDBYS", "partition_with_two_standbys")(
                lambda s: s.published is not None and any(len(b) >= 2 for b in s.published.standby)))
    if len(model.instances) > model.standbys + 1:
        # A member can get no task only when the tasks' actives and standbys need fewer members.
        props.append(sometimes("STREAMS-WIT-IDLE-MEMBER", "member_without_task_listed",
                               "allMetadata lists a member the assignment gave no task.")(idle_listed))
    return props
