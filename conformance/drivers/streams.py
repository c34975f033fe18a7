"""The Kafka Streams lockstep driver: one instance's queryable-state metadata, the StreamsSystem model.

The target is the metadata state of the instance that answers interactive queries (one node).
Membership changes start a rebalance (``RebalanceStarted``); the leader's plan reaches the
instance with ``RebalanceFinished`` (the assignment as ``StreamsMetadataState.onChange`` gets
it); the queries ``MetadataForKey`` (``queryMetadataForKey``), ``AllMetadata`` and
``AllMetadataForStore`` may come at any time, during a rebalance too, as Kafka allows. Every
answer is the observation ``{"result": ...}`` and must equal the model's
(``kspec.model.streams.metadata``). The wire format is spec/adapter-protocol.md's streams
section.

Vocabulary (docs/adapter-guide.md, "What each driver sends"; tests/conformance/test_vocabulary.py
shows each kind in a default run): the keys of ``KEYS`` (every partition, negative hashes, the
empty key, every murmur2 tail length, multi-byte UTF-8, 300 bytes, a NUL byte); five stores — the
system model's ``counts`` over ``input``, ``joined`` over ``side`` and ``input`` (topics of
different sizes, the narrower first), ``enriched`` over the same two the other way round and the
global ``global-config`` (``widen``); unknown store names that look like a real one
(``UNKNOWN_STORES``); partition counts 1 to 4 and 8; a member with standby tasks only, a member
with none; a second sub-topology (``sessions`` over ``clicks``, its tasks placed apart from
``input``'s: STREAMS-DRIVE-SUBTOPOLOGIES); endpoints as deployments write them (configuration
``servers``: two instances on one host, a mixed-case name, an IPv6 literal), the model's
``hostN:8080`` renamed at the wire; assignments in which a partition has standbys and no
active owner, then none has an active owner (KIP-1071's reconciliation, guided paths' probes:
STREAMS-DRIVE-ACTIVE-WITHHELD), and one in which a whole sub-topology (``sessions``) has none while
the instance stays initialized (STREAMS-DRIVE-SUBTOPOLOGY-IN-FLIGHT). No assignment drops a source
topic while keeping the others: no protocol Kafka ships hands one out (STREAMS-DRIVE-TOPIC-DELETED,
withdrawn in session 23, spec/streams.md). ``input_cells`` files each input in the coverage matrix
(STREAMS-DRIVE-COVERAGE).

The assignment names every member the plan was made for, a member with no task with empty
sets (STREAMS-RULE-EVERY-MEMBER); the configurations (3, 3, 1) and (2, 4, 0) have plans that
leave a member without a task, so the lockstep reaches it.

Laws are checked on the target's answers alone (spec/streams.md): every ``MetadataForKey``
answer against the assignment the instance was last given (STREAMS-LAW-PARTITION,
-ACTIVE-OWNS, -ACTIVE-FOUND, -STANDBYS, -HOSTS-IN-STORE-METADATA, -NOT-AVAILABLE), every
``AllMetadata`` answer against it too (STREAMS-LAW-EVERY-MEMBER), and every
``AllMetadataForStore`` answer against the target's own last ``AllMetadata`` answer
(STREAMS-LAW-STORE-METADATA).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from kspec.conformance.driver import Driver, Event
from kspec.conformance.harness import JSON
from kspec.model.core.protocol import first_violated
from kspec.model.streams import laws as L
from kspec.model.streams.metadata import (
    Assignment,
    HostInfo,
    HostMap,
    TopicPartition,
    Topology,
    all_metadata,
    all_metadata_for_store,
    assignment_json,
    host_text,
    key_metadata_json,
    parse_assignment,
    parse_host,
    parse_key_metadata,
    parse_streams_metadata,
    partitions_from_active,
    route,
    streams_metadata_json,
)
from kspec.model.streams.system import (
    REBALANCING,
    SOURCE_TOPIC,
    STORE,
    Assign,
    Finish,
    Join,
    Leave,
    State,
    StreamsSystem,
    host,
    to_assignment,
)

# Cluster shapes (Hypothesis draws one): every plan over the members must fit the 256
# choices a rule draws from (3 instances, 3 partitions, 1 standby: 216 plans).
CONFIGS: list[dict[str, JSON]] = [
    {"instances": 2, "partitions": 3, "standbys": 1},
    # Endpoints as deployments write them (``servers``: instance i's ``application.server``, comma
# separated: a configuration holds scalars only, as counterexample files do):
    # two instances on one machine, told apart by the port alone; a mixed-case name (HostInfo
    # compares names as given); an IPv6 literal (Kafka's HostInfo holds it without brackets, so
    # its ``host:port`` text has colons before the port's). A target that keys hosts by name,
    # normalises names or splits at the first colon answers other hosts.
    {"instances": 3, "partitions": 3, "standbys": 1,
     "servers": "localhost:8080,localhost:8081,Node-2.Example.COM:8080"},
    # STREAMS-DRIVE-PORT-ORDER (session 27): the lower port on the later host name (host order is
    # (host, port): ``::1`` first; a comparator that takes the port first names ``host1:8080``).
    {"instances": 2, "partitions": 4, "standbys": 0, "servers": "::1:9092,host1:8080"},
    # More members than tasks: some member always has none (STREAMS-RULE-EVERY-MEMBER).
    {"instances": 3, "partitions": 2, "standbys": 0},
    {"instances": 1, "partitions": 2, "standbys": 0},
    # Partition counts at the edges: one partition (every key in partition 0, the side topic of
    # ``joined`` has one too), and eight (the widest a one-instance plan keeps small).
    {"instances": 2, "partitions": 1, "standbys": 1,
     # STREAMS-DRIVE-PORT-DIGITS: one host name, ports of four and five digits (host order
     # compares the port as a number, (host, port); the ``host:port`` text puts 10092 first)
     "servers": "localhost:9092,localhost:10092"},
    {"instances": 1, "partitions": 8, "standbys": 0},
    # Two standby replicas: a key with two standby hosts (a lookup that keeps one in a scalar
    # names one; red team, session 9). STREAMS-DRIVE-SHARED-HOST-STANDBYS: two of the three on
    # one machine, so every key whose active is the third has both as standbys (a target that
    # tells standbys apart by host name alone answers one).
    {"instances": 3, "partitions": 2, "standbys": 2,
     "servers": "localhost:8080,localhost:8081,host2:8080"},
]

# Keys over every partition of 2, 3 and 4, and some whose murmur2 is negative (bob, grace,
# judy: toPositive and abs disagree on them).
# Then keys at murmur2's edges: empty, one to seven bytes (every tail length of the 4-byte
# blocks), multi-byte UTF-8 (hashed as bytes, not characters) and a long one.
# Then a key outside the BMP (four UTF-8 bytes; Java's modified UTF-8 writes six), keys with
# blanks around them (a router that trims its input hashes another key) and a key holding a NUL
# byte (a router that hands keys to a C-string hash stops there).
# Then keys that read as numbers (still strings, hashed as their UTF-8 digits: a serde that picks
# IntegerSerializer for them hashes four other bytes; "1" and "-1" land elsewhere at 2, 3, 4, 8).
# STREAMS-DRIVE-DECOMPOSED-KEY (session 27): ``clé-ü`` written with combining marks (e + U+0301,
# u + U+0308; ``é`` and ``日本語`` stay precomposed). ``StringSerializer`` writes the string's UTF-8
# as given; a router that normalises keys to NFC first hashes the precomposed bytes (another
# partition of 2, 3, 4 and 8; red team session 27's ``key-nfc-normalised``: no key had a mark).
DECOMPOSED_KEY = "cle\u0301-u\u0308"
KEYS = ("alice", "dave", "carol", "bob", "grace", "judy", "erin", "ivan",
        "", "k", "ke", "key", "key12", "key123", "key1234", "é", "日本語", DECOMPOSED_KEY, "k" * 300,
        "\U0001f389", " alice", "alice ", "nul\x00key", "1", "-1", "2147483647")
# A store the topology does not have: the lookup answers null, allMetadataForStore nothing.
UNKNOWN_STORE = "missing"
# Store names a "friendly" lookup would confuse with a real one (case, blanks, a changelog
# topic's name, the empty name): each is unknown.
UNKNOWN_STORES = (UNKNOWN_STORE, "Counts", "counts ", "", "app-counts-changelog")

# The topology the driver gives the instance besides the system model's ``counts`` over
# ``input``: ``joined`` over two topics of different sizes, the narrower one first (``side``
# has half the partitions of ``input``, rounded up: 1 of 1 or 2, 2 of 3 or 4, 4 of 8), as a
# sub-topology reading a merge of both has one task per partition of the widest topic, task p
# holding partition p of each topic that has one (Kafka's partition grouper); and a global
# store. Keys are hashed modulo the widest source (STREAMS-RULE-KEY 4); a global store is on
# every host (STREAMS-RULE-ALL-METADATA).
# ``enriched`` reads the same two topics listed the other way round (the widest first): a
# router that takes one listed topic's count (the first, or the last a loop left behind) differs
# on one of the two stores.
# STREAMS-DRIVE-SUBTOPOLOGIES: ``sessions`` over ``clicks``, a topic no other store reads, is a
# second sub-topology with tasks of its own: ``clicks`` has half the partitions of ``input``
# (rounded down, at least one) and its task p runs where ``input``'s task n-1-p runs (actively and
# as standbys), so the hosts that hold only ``input``'s first partitions hold no ``sessions``. A
# host's stores are those of the sub-topologies whose tasks it runs: a router that gives every
# store to any host with a task, looks a store's key up in another sub-topology's partitions, or
# takes the application's widest topic for every store differs.
JOINED = "joined"
ENRICHED = "enriched"
SIDE_TOPIC = "side"
SESSIONS = "sessions"
CLICKS_TOPIC = "clicks"
GLOBAL_STORE = "global-config"
WIDE_TOPOLOGY = Topology(((STORE, (SOURCE_TOPIC,)), (JOINED, (SIDE_TOPIC, SOURCE_TOPIC)),
                          (ENRICHED, (SOURCE_TOPIC, SIDE_TOPIC)), (SESSIONS, (CLICKS_TOPIC,))),
                         frozenset({GLOBAL_STORE}))
# Keys asked of ``joined`` and the global store (fewer than of ``counts``: the hashing is the same).
WIDE_KEYS = ("alice", "dave", "carol", "bob", "", "k" * 300)


def side_partitions(partitions: int) -> int:
    return (partitions + 1) // 2


def clicks_partitions(partitions: int) -> int:
    """``clicks``' partition count (STREAMS-DRIVE-SUBTOPOLOGIES): half of ``input``'s, at least one."""
    return max(1, partitions // 2)


def endpoints(config: dict[str, JSON]) -> dict[HostInfo, HostInfo]:
    """The configuration's ``servers`` (instance i's ``application.server``) as a renaming of the
    system model's hosts (``host0:8080``...); empty when the configuration names none."""
    text = config.get("servers")
    if not text:
        return {}
    servers = str(text).split(",")
    if len(servers) != int(str(config["instances"])):
        raise ValueError(f"streams configuration {config}: 'servers' names one endpoint per instance")
    renamed = {host(i): parse_host(server) for i, server in enumerate(servers)}
    if len(set(renamed.values())) != len(renamed):
        raise ValueError(f"streams configuration {config}: 'servers' must be distinct endpoints")
    return renamed


def widen(assignment: Assignment, partitions: int, servers: dict[HostInfo, HostInfo] | None = None) -> Assignment:
    """The system model's assignment over :data:`WIDE_TOPOLOGY`: whoever holds ``input`` p
    (actively or as a standby) holds ``side`` p too when ``side`` has a partition p; the counts
    are again those of the active map (STREAMS-RULE-PARTITION-INFO). ``servers`` renames the
    model's hosts to the configuration's endpoints."""
    narrow = side_partitions(partitions)
    clicks = clicks_partitions(partitions)
    names = servers or {}

    def more(tps: frozenset[TopicPartition]) -> frozenset[TopicPartition]:
        # side p with input p (one task); clicks p where input n-1-p runs (another sub-topology)
        inputs = {tp.partition for tp in tps if tp.topic == SOURCE_TOPIC}
        return frozenset(tps | {TopicPartition(SIDE_TOPIC, p) for p in inputs if p < narrow}
                         | {TopicPartition(CLICKS_TOPIC, p) for p in range(clicks) if partitions - 1 - p in inputs})

    def grow(host_map: HostMap) -> HostMap:
        return tuple(sorted((names.get(h, h), more(tps)) for h, tps in host_map))

    active = grow(assignment.active)
    return Assignment(WIDE_TOPOLOGY, active, grow(assignment.standby),
                      partitions_from_active(active) if assignment.active else ())


def without_active(assignment: Assignment, every: bool, sessions: bool = False) -> Assignment:
    """``assignment`` with actives withheld (STREAMS-DRIVE-ACTIVE-WITHHELD): task 0 of ``input``'s
    sub-topology (``input`` 0 and ``side`` 0) owned actively by no host, or, with ``every``, no
    task at all, or, with ``sessions``, no task of the ``sessions`` sub-topology (every ``clicks``
    partition: STREAMS-DRIVE-SUBTOPOLOGY-IN-FLIGHT); the standbys stay, and the partition counts are
    again those of the active map (STREAMS-RULE-PARTITION-INFO), so they lose the withheld
    partitions (with ``sessions``, ``clicks``' count altogether)."""

    def held(tp: TopicPartition) -> bool:
        if every:
            return False
        if sessions:
            return tp.topic != CLICKS_TOPIC
        return not (tp.topic in (SOURCE_TOPIC, SIDE_TOPIC) and tp.partition == 0)

    active = tuple((h, frozenset(tp for tp in tps if held(tp))) for h, tps in assignment.active)
    return Assignment(assignment.topology, active, assignment.standby, partitions_from_active(active))


@dataclass(frozen=True, slots=True)
class MetadataForKey:
    store: str
    key: str


@dataclass(frozen=True, slots=True)
class AllMetadata:
    pass


@dataclass(frozen=True, slots=True)
class AllMetadataForStore:
    store: str


QueryAction = MetadataForKey | AllMetadata | AllMetadataForStore


@dataclass(frozen=True, slots=True)
class ActiveWithheld:
    """STREAMS-DRIVE-ACTIVE-WITHHELD: an ``onChange`` whose active map leaves out the active of
    ``input``'s task 0 (``every``: of every task; ``sessions``: of every task of the ``sessions``
    sub-topology, STREAMS-DRIVE-SUBTOPOLOGY-IN-FLIGHT) while the standbys stay, as KIP-1071's
    streams group protocol hands it out while a moved task is revoked from its old owner and not
    yet owned by its new one (the endpoints' partitions are the members' current assignments)."""

    every: bool
    sessions: bool = False


@dataclass(frozen=True, slots=True)
class WithheldState(State):
    """The driver's state while actives are withheld: the model's state, the instance's metadata
    the published assignment less those actives (:func:`without_active`), until the next
    ``Finish`` (the tasks owned again)."""

    every: bool = False
    sessions: bool = False


# The valid plans over a member set, per (partitions, standbys): computed once per process.
_PLANS: dict[tuple[tuple[int, int], frozenset[int]], list[tuple[str, Any]]] = {}


class StreamsDriver(Driver[StreamsSystem]):
    """Lockstep driver for ``streams`` (see the module docstring)."""

    protocol = "streams"
    categories = ("membership", "assign", "finish", "query", "metadata")
    weights = {"query": 2}

    def __init__(self, config: dict[str, JSON]) -> None:
        self.config = {**CONFIGS[0], **config}
        self.model = StreamsSystem(instances=int(self.config["instances"]), partitions=int(self.config["partitions"]),
                                   standbys=int(self.config["standbys"]))
        self._always = [p for p in self.model.properties() if p.kind == "always"]
        self._shape = (self.model.partitions, self.model.standbys)
        self._servers = endpoints(self.config)

    def nodes(self) -> list[int]:
        return [0]

    def node_config(self, node: Any) -> dict[str, JSON]:
        # The instance's topology (a Kafka adapter builds it; a RebalanceFinished carries it too).
        return {"stores": {name: list(topics) for name, topics in WIDE_TOPOLOGY.stores},
                "global_stores": sorted(WIDE_TOPOLOGY.global_stores)}

    def init_state(self) -> State:
        return self.model.init_states()[0]

    def candidates(self, state: State) -> list[tuple[str, Any]]:
        # The model's actions in its order, with the plans over a member set computed once.
        out: list[tuple[str, Any]] = [("membership", Join(i)) for i in self.model.instances]
        out += [("membership", Leave(i)) for i in self.model.instances]
        if state.phase == REBALANCING and state.pending is None:
            key = (self._shape, state.members)
            if key not in _PLANS:
                _PLANS[key] = [("assign", Assign(plan)) for plan in self.model.plans(state.members)]
            out += _PLANS[key]
        out.append(("finish", Finish()))
        out += [("query", MetadataForKey(STORE, k)) for k in KEYS]
        out += [("query", MetadataForKey(JOINED, k)) for k in WIDE_KEYS]
        out += [("query", MetadataForKey(ENRICHED, k)) for k in WIDE_KEYS]
        out += [("query", MetadataForKey(SESSIONS, k)) for k in WIDE_KEYS]
        out.append(("query", MetadataForKey(GLOBAL_STORE, KEYS[0])))
        out += [("query", MetadataForKey(s, KEYS[0])) for s in UNKNOWN_STORES]
        out.append(("metadata", AllMetadata()))
        out += [("metadata", AllMetadataForStore(s))
                for s in (STORE, JOINED, ENRICHED, SESSIONS, GLOBAL_STORE, *UNKNOWN_STORES)]
        return out + self._withheld_candidates(state, out)

    def _withheld_candidates(self, state: State, out: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
        """STREAMS-DRIVE-ACTIVE-WITHHELD: offered in category ``topology``, which has no random rule
        (not in ``categories``): guided paths alone take it. While the ``sessions`` sub-topology is
        in flight (STREAMS-DRIVE-SUBTOPOLOGY-IN-FLIGHT, a probe's step alone) no key of ``sessions``
        is asked: ``clicks`` has no partition count, and Kafka's partitioner divides by zero
        (ArithmeticException) where the model answers NOT_AVAILABLE; neither KIP says what a key of
        a store without partitions answers."""
        if isinstance(state, WithheldState) and state.sessions:
            out[:] = [(c, a) for c, a in out if not (isinstance(a, MetadataForKey) and a.store == SESSIONS)]
        if state.published is None:
            return []
        withheld = [("topology", ActiveWithheld(True))]
        if self.model.partitions >= 2:  # with one partition no count of ``input`` would be left
            withheld.insert(0, ("topology", ActiveWithheld(False)))
        if self._in_flight_enabled(state):  # STREAMS-DRIVE-SUBTOPOLOGY-IN-FLIGHT
            withheld.append(("topology", ActiveWithheld(False, sessions=True)))
        return withheld

    def _in_flight_enabled(self, state: State) -> bool:
        """Whether STREAMS-DRIVE-SUBTOPOLOGY-IN-FLIGHT's assignment (the ``sessions`` sub-topology
        without an active owner) is offered and probed: once an assignment is published, with two
        members or more (one to revoke from, one to hand to). bench/_probes.py switches it off here."""
        return state.published is not None and len(state.members) >= 2

    def probes(self, state: State, k: int) -> list[tuple[str, Any]]:
        """STREAMS-DRIVE-MOVED-TASKS: a guided path ends with a rebalance over the same members
        that moves tasks (a member leaves and comes back, the leader hands out another plan over
        the same members: the ``k``-th, rotated over the paths) and queries after it. An
        ``onChange`` over an unchanged member set must be applied all the same (a listener that
        skips it as "nothing changed" routes keys to the old owners). Before it, where a plan
        over the same members moves standby tasks only, STREAMS-DRIVE-MOVED-STANDBYS: the keys of
        every partition queried, that rebalance, the same keys again (the standby hosts must
        follow the new plan though no active owner changed). On odd ``k`` the moved plan leaves
        the first host idle where such a plan exists, and the global store's key is asked last
        (STREAMS-DRIVE-IDLE-FIRST-HOST). STREAMS-DRIVE-MID-REBALANCE-QUERY: the keys asked after the
        moved rebalance are asked inside it too, before its finish."""
        if state.published is None or len(state.members) < 2:
            return []
        plans = self.model.plans(state.members)
        moved = [p for p in plans if p.active != state.published.active]
        if not moved:
            return []
        back = max(state.members)
        out: list[tuple[str, Any]] = []
        # STREAMS-DRIVE-MOVED-STANDBYS: first a rebalance that moves standby tasks only (the
        # active map unchanged; (3, 3, 1) has such plans), with the same keys queried before and
        # after it: a lookup memoised until the active owners change answers the old standby
        # hosts (red team, session 14: ``key-cache-ignores-standbys``).
        was = state.published
        standby_moved = [p for p in plans if p.active == was.active and p.standby != was.standby]
        if standby_moved:
            queries = [("query", MetadataForKey(STORE, key)) for key in KEYS[:3]]
            out += [*queries, ("membership", Leave(back)), ("membership", Join(back)),
                    ("assign", Assign(standby_moved[k % len(standby_moved)])), ("finish", Finish()), *queries]
        # STREAMS-DRIVE-IDLE-FIRST-HOST: on every other path, where one exists, the moved plan is
        # one that leaves the first host in host order without a task, and the global store's key
        # is asked after it (every member, an idle one too, holds every global store: the answer
        # names the first host whatever it runs; red team, session 16: a router that picks the
        # first host with a task conformed over 300 runs at seeds 0 and 1).
        idle_first = [p for p in moved if self._first_host_idle(p)]
        pool = idle_first if idle_first and k % 2 == 1 else moved
        # STREAMS-DRIVE-MOVED-STORE-METADATA: the stores of both sub-topologies' hosts asked
        # before the moved rebalance and again after it (their holders change, the members do
        # not: an answer memoised until the member set changes is the old one; red team,
        # session 18: ``store-metadata-memo``).
        store_queries = [("metadata", AllMetadataForStore(s)) for s in (STORE, SESSIONS)]
        # STREAMS-DRIVE-MID-REBALANCE-QUERY: the keys asked after it are asked during it too
        # (answered from the old assignment until ``onChange``): an answer kept from inside the
        # rebalance past its end is the old owner's (red team, session 20: a key cache emptied
        # when a rebalance starts, ``key-cache-cleared-on-start``, found only by random runs).
        key_queries = [("query", MetadataForKey(STORE, key)) for key in KEYS[:3]]
        out += [*store_queries, ("membership", Leave(back)), ("membership", Join(back)), *key_queries,
                ("assign", Assign(pool[k % len(pool)])), ("finish", Finish()), *store_queries]
        out += key_queries + self._decomposed_key_probe()
        out += [("query", MetadataForKey(JOINED, KEYS[0])), ("query", MetadataForKey(SESSIONS, KEYS[0])),
                ("metadata", AllMetadata()), ("query", MetadataForKey(GLOBAL_STORE, KEYS[0]))]
        return out + self._in_flight_probe(state) + self._active_withheld_probe(state)

    def _decomposed_key_probe(self) -> list[tuple[str, Any]]:
        """STREAMS-DRIVE-DECOMPOSED-KEY: after the moved rebalance's key queries, the key of
        ``counts`` written with combining marks (``DECOMPOSED_KEY``, one of ``KEYS``, where random
        runs seldom ask it of an initialized instance): Kafka hashes the UTF-8 of the string as
        given, a router that normalises it to NFC hashes another key. bench/_probes.py switches the
        key back to its precomposed form (then this query is not offered)."""
        return [("query", MetadataForKey(STORE, DECOMPOSED_KEY))]

    def _first_host_idle(self, plan: Any) -> bool:
        """Whether ``plan`` leaves the first host in host order (the wire's, after the
        configuration's renaming) without an active or a standby task."""
        every = all_metadata(widen(to_assignment(plan), self.model.partitions, self._servers))
        return bool(every) and not (every[0].topic_partitions or every[0].standby_topic_partitions)

    def resolve(self, state: State, action: Any) -> State | None:
        if isinstance(action, MetadataForKey | AllMetadata | AllMetadataForStore):
            return state
        if isinstance(action, ActiveWithheld) or isinstance(state, WithheldState):
            return self._resolve_withheld(state, action)
        return self.model.next_state(state, action)

    def _resolve_withheld(self, state: State, action: Any) -> State | None:
        """STREAMS-DRIVE-ACTIVE-WITHHELD: withholding needs a published assignment (and, for task 0
        alone, two partitions) and lasts until the next ``Finish``; the ``sessions`` sub-topology's
        withholding (STREAMS-DRIVE-SUBTOPOLOGY-IN-FLIGHT) leaves ``input``'s tasks owned, so any
        partition count will do."""
        if isinstance(action, ActiveWithheld):
            alone = not action.every and not action.sessions
            if state.published is None or (alone and self.model.partitions < 2) or (
                    action.sessions and not self._in_flight_enabled(state)):
                return None
            return WithheldState(state.members, state.phase, state.published, state.pending, state.answer,
                                 action.every, action.sessions)
        if not isinstance(state, WithheldState):
            return None
        after = self.model.next_state(state, action)
        if after is None or isinstance(action, Finish):
            return after
        return WithheldState(after.members, after.phase, after.published, after.pending, after.answer, state.every,
                             state.sessions)

    def _metadata(self, state: State) -> Assignment:
        wide = widen(to_assignment(state.published), self.model.partitions, self._servers)
        if isinstance(state, WithheldState):
            return without_active(wide, state.every, state.sessions)
        return wide

    def _in_flight_probe(self, state: State) -> list[tuple[str, Any]]:
        """STREAMS-DRIVE-SUBTOPOLOGY-IN-FLIGHT (session 23): an assignment in which no task of the
        ``sessions`` sub-topology has an active owner while ``input``'s tasks keep theirs (KIP-1071's
        reconciliation with every ``sessions`` task moving at once: revoked from the old owners, not
        yet owned by the new ones; the standbys stay), so ``clicks`` has no partition count while the
        instance is initialized. Then ``allMetadataForStore('sessions')`` (Kafka lists the hosts
        holding it as a standby: the answer never looks at a partition count), ``allMetadata``, a
        key of ``counts`` and of ``joined`` (routed as before) and the global store's key; then the
        tasks owned again (a rebalance over the same members hands out ``state``'s plan) and
        ``allMetadataForStore('sessions')`` again. Before it a store's source topics had a count
        whenever the instance was initialized, so an ``allMetadataForStore`` that answers nothing for
        a store without one (mutant ``streams-store-metadata-needs-count``) conformed. No key of
        ``sessions`` is asked meanwhile (``_withheld_candidates``)."""
        if not self._in_flight_enabled(state) or state.published is None:
            return []
        back = max(state.members)
        looks = [("metadata", AllMetadataForStore(SESSIONS)), ("metadata", AllMetadata()),
                 ("query", MetadataForKey(STORE, KEYS[0])), ("query", MetadataForKey(JOINED, KEYS[1])),
                 ("query", MetadataForKey(GLOBAL_STORE, KEYS[0]))]
        return [("topology", ActiveWithheld(False, sessions=True)), *looks,
                ("membership", Leave(back)), ("membership", Join(back)),
                ("assign", Assign(state.published)), ("finish", Finish()),
                ("metadata", AllMetadataForStore(SESSIONS))]

    def _active_withheld_probe(self, state: State) -> list[tuple[str, Any]]:
        """STREAMS-DRIVE-ACTIVE-WITHHELD (session 22): an assignment in which ``input``'s task 0 has
        no active owner while its standbys stay (KIP-1071's reconciliation), then the keys of
        ``counts`` (now hashed modulo one partition fewer, so some land on the partition without an
        active: Kafka answers UNKNOWN_HOST and still lists its standby hosts) and the stores' hosts;
        then one in which no task has an active owner (the partition counts empty: Kafka is
        uninitialized again, NOT_AVAILABLE, ``allMetadataForStore`` empty, ``allMetadata`` still
        listing the members), the same queries and a global store's key; then the tasks owned
        again (a rebalance over the same members hands out ``state``'s plan) and the keys asked.
        Before it every partition had an active owner in every assignment and no assignment after
        the first had empty counts (red team ``streams_scratch12``'s ``standbys-skipped-without-active``
        and ``initialized-by-first-assignment`` conformed over every run at seeds 0 and 1)."""
        if state.published is None or len(state.members) < 2:
            return []
        back = max(state.members)
        keys = [("query", MetadataForKey(STORE, key)) for key in KEYS[:8]]
        looks = [("query", MetadataForKey(JOINED, KEYS[0])), ("query", MetadataForKey(GLOBAL_STORE, KEYS[0])),
                 ("metadata", AllMetadataForStore(STORE)), ("metadata", AllMetadata())]
        out: list[tuple[str, Any]] = []
        if self.model.partitions >= 2:
            out += [("topology", ActiveWithheld(False)), *keys, *looks]
        return [*out, ("topology", ActiveWithheld(True)), *keys, *looks,
                ("membership", Leave(back)), ("membership", Join(back)),
                ("assign", Assign(state.published)), ("finish", Finish()), *keys, *looks]

    def events(self, before: State, action: Any, after: State) -> list[Event]:
        if isinstance(action, Join | Leave):
            return [Event(0, {"type": "RebalanceStarted"}, [], {"result": None})]
        if isinstance(action, Assign):
            return []  # the leader's plan; the instance learns it when the rebalance finishes
        if isinstance(action, Finish | ActiveWithheld):
            inp = {"type": "RebalanceFinished", "assignment": assignment_json(self._metadata(after))}
            return [Event(0, inp, [], {"result": None})]
        meta = self._metadata(after)
        if isinstance(action, MetadataForKey):
            result: JSON = key_metadata_json(route(meta, action.store, action.key.encode("utf-8")))
            inp = {"type": "MetadataForKey", "store": action.store, "key": action.key}
        elif isinstance(action, AllMetadata):
            result = [streams_metadata_json(m) for m in all_metadata(meta)]
            inp = {"type": "AllMetadata"}
        else:
            result = [streams_metadata_json(m) for m in all_metadata_for_store(meta, action.store)]
            inp = {"type": "AllMetadataForStore", "store": action.store}
        return [Event(0, inp, [], {"result": result})]

    def describe(self, action: Any) -> str:
        if isinstance(action, MetadataForKey):
            return f"queryMetadataForKey({action.store!r}, {action.key!r})"
        if isinstance(action, AllMetadata):
            return "allMetadata()"
        if isinstance(action, AllMetadataForStore):
            return f"allMetadataForStore({action.store!r})"
        if isinstance(action, ActiveWithheld):
            held = "every task" if action.every else "every sessions task" if action.sessions else "input's task 0"
            return f"active of {held} withheld (KIP-1071 reconciliation: standbys kept, counts from the active map)"
        return self.model.describe_action(action)

    def input_cells(self, before: State, action: Any) -> list[tuple[str, str]]:
        """STREAMS-DRIVE-COVERAGE (session 23): the coverage matrix's cells of ``action`` (``kspec
        conform streams --json``: ``coverage.matrix``), as (the instance's metadata before the
        input, the input's kind). The metadata: ``uninitialized`` (no assignment yet),
        ``assigned``, ``rebalancing`` (a rebalance started, the last assignment still answering),
        or a withheld assignment (``task 0 withheld``, ``sessions in flight``, ``every active
        withheld``: STREAMS-DRIVE-ACTIVE-WITHHELD, -SUBTOPOLOGY-IN-FLIGHT). The kind: a query by the
        store it names (``counts``, ``joined``, ``enriched``, ``sessions``, ``global``, ``unknown``),
        a key query also by the key's shape where it is a rare one (``empty key``, ``non-ASCII
        key``, ``NUL key``, ``numeric key``, ``300-byte key``, ``blank-edged key``) and by its
        answer where no host holds the key's partition actively (``no active``); an assignment
        (``RebalanceFinished``) once, and again per shape it has (``idle member``, ``standby-only
        member``, ``standbys without active``, ``no counts``, ``same members``: over the members
        of the last one)."""
        if isinstance(action, Assign):
            return []  # the leader's plan: no input reaches the instance
        if before.published is None:
            where = "uninitialized"
        elif isinstance(before, WithheldState):
            where = ("every active withheld" if before.every else "sessions in flight" if before.sessions
                     else "task 0 withheld")
        else:
            where = "rebalancing" if before.phase == REBALANCING else "assigned"
        if isinstance(action, Join | Leave):
            return [(where, "RebalanceStarted")]
        after = self.resolve(before, action)
        if isinstance(action, Finish | ActiveWithheld):
            if after is None:
                return []
            meta = self._metadata(after)
            cells = [(where, "RebalanceFinished")]
            active, standby = dict(meta.active), dict(meta.standby)
            held = {tp for tps in active.values() for tp in tps}
            shapes = {"idle member": any(not active.get(h) and not standby.get(h) for h in active),
                      "standby-only member": any(not active.get(h) and standby.get(h) for h in active),
                      "standbys without active": any(tp not in held for tps in standby.values() for tp in tps),
                      "no counts": not meta.initialized(),
                      "same members": before.published is not None
                      and {h for h, _ in meta.active} == {h for h, _ in self._metadata(before).active}}
            return cells + [(where, f"RebalanceFinished {shape}") for shape, hit in shapes.items() if hit]
        classes = {STORE: "counts", JOINED: "joined", ENRICHED: "enriched", SESSIONS: "sessions",
                   GLOBAL_STORE: "global"}
        if isinstance(action, AllMetadata):
            return [(where, "AllMetadata")]
        if isinstance(action, AllMetadataForStore):
            return [(where, f"AllMetadataForStore {classes.get(action.store, 'unknown')}")]
        if not isinstance(action, MetadataForKey):
            return []
        kind = f"MetadataForKey {classes.get(action.store, 'unknown')}"
        cells = [(where, kind)]
        key = action.key
        shape = ("empty key" if key == "" else "NUL key" if "\x00" in key else "300-byte key" if len(key) >= 300
                 else "non-ASCII key" if not key.isascii() else "blank-edged key" if key != key.strip()
                 else "numeric key" if key.lstrip("-").isdigit() else None)
        if shape is not None:
            cells.append((where, f"{kind} {shape}"))
        answer = route(self._metadata(before), action.store, key.encode("utf-8")) if before.published else None
        if answer is not None and answer.partition >= 0 and answer.active_host.port == -1:
            cells.append((where, f"{kind} no active"))
        return cells

    def model_violation(self, before: State, action: Any, after: State) -> str | None:
        if before is after:
            return None
        return first_violated(self._always, before, action, after)

    def observed_violation(self, node: Any, inp: JSON, observations: dict[Any, JSON],
                           memory: dict[str, Any]) -> str | None:
        """The laws of spec/streams.md on the target's answers (see the module docstring)."""
        kind = inp.get("type") if isinstance(inp, dict) else None
        result = (observations.get(node) or {}).get("result")
        if kind == "RebalanceFinished":
            try:
                memory["assignment"] = parse_assignment(inp["assignment"])
            except (KeyError, TypeError, ValueError):
                memory.pop("assignment", None)
            memory.pop("all_metadata", None)
            return None
        known: Assignment = memory.get("assignment") or Assignment(WIDE_TOPOLOGY, ())
        if kind == "AllMetadata":
            memory["all_metadata"] = result
            return self._every_member_law(known, result)
        if kind == "AllMetadataForStore":
            return self._store_metadata_law(known, str(inp.get("store")), result, memory.get("all_metadata"))
        if kind != "MetadataForKey":
            return None
        try:
            answer = parse_key_metadata(result)
        except (KeyError, TypeError, ValueError):
            return None  # a malformed answer is reported as a difference from the model's
        query = L.Query(known, str(inp.get("store")), str(inp.get("key")).encode("utf-8"))
        broken = L.violated_laws(lambda *_: answer, query)
        if broken:
            law = L.LAWS_BY_ID[broken[0]]
            return f"{law.id}: {law.doc} fails for key {inp.get('key')!r} (answer {result})"
        return None

    @staticmethod
    def canonical_observation(inp: JSON, observation: JSON) -> JSON:
        """``allMetadata`` and ``allMetadataForStore`` answer a ``Collection<StreamsMetadata>``
        whose order neither KIP-67 nor the javadoc fixes (STREAMS-RULE-ALL-METADATA): the answers
        are compared as collections, each side's entries in one canonical order."""
        kind = inp.get("type") if isinstance(inp, dict) else None
        if kind not in ("AllMetadata", "AllMetadataForStore") or not isinstance(observation, dict):
            return observation
        result = observation.get("result")
        if not isinstance(result, list):
            return observation
        return {**observation, "result": _as_collection(result)}

    @staticmethod
    def _every_member_law(known: Assignment, answer: JSON) -> str | None:
        """STREAMS-LAW-EVERY-MEMBER on the target's allMetadata answer."""
        try:
            listed = [parse_streams_metadata(m) for m in answer] if isinstance(answer, list) else None
        except (KeyError, TypeError, ValueError):
            listed = None
        if listed is None:
            return None  # a malformed answer is reported as a difference from the model's
        law = L.EVERY_MEMBER
        if not law.check(known, listed):
            hosts = sorted({h for h, _ in known.active} | {h for h, _ in known.standby})
            named = ", ".join(host_text(h) for h in hosts)
            shown = ", ".join(host_text(m.host_info) for m in listed)
            return f"{law.id}: {law.doc} fails (hosts given {named or 'none'}; listed {shown or 'none'})"
        return None

    @staticmethod
    def _store_metadata_law(known: Assignment, store: str, answer: JSON, every: JSON) -> str | None:
        """STREAMS-LAW-STORE-METADATA on the target's answers: allMetadataForStore(store) is
        allMetadata filtered to the hosts with the store as active or standby."""
        law = L.LAWS_BY_ID["STREAMS-LAW-STORE-METADATA"]
        if (not known.initialized() or store in known.topology.global_stores or not known.topology.source_topics(store)
                or not isinstance(every, list) or not isinstance(answer, list)):
            return None
        expected = [m for m in every if isinstance(m, dict)
                    and (store in (m.get("stores") or []) or store in (m.get("standby_stores") or []))]
        if _as_collection(answer) != _as_collection(expected):  # Collections: order left open
            return f"{law.id}: {law.doc} fails for store {store!r}"
        return None


def _as_collection(answer: list[JSON]) -> list[JSON]:
    """A list answer in one canonical order, for comparing it as a collection."""
    return sorted(answer, key=lambda m: json.dumps(m, sort_keys=True))
