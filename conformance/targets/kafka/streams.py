"""``kafka:VERSION`` for streams: Kafka Streams' own ``StreamsMetadataState`` (kafka-streams),
driven in process through JPype the way a ``KafkaStreams`` instance drives it
(spec/adapter-protocol.md, streams; spec/streams.md §5).

- **Topology**: the node config's ``stores`` (store -> source topics, default the system
  model's ``counts`` from ``input``) and ``global_stores`` become a DSL topology, as an
  application writes it: one ``builder.stream(topic)`` per topic, and per store the merge of
  its topics' streams ``.groupByKey().count(Materialized.as(store))``; per global store
  ``builder.globalTable(store, Materialized.as(store))`` (its topic named after it). Then
  ``StreamsBuilder.build(props)`` and what ``new KafkaStreams(topology, props)`` does: ``new
  TopologyMetadata(topology.internalTopologyBuilder, config)``, ``buildAndRewriteTopology()``,
  ``new StreamsMetadataState(topologyMetadata, parseHostInfo(application.server), logContext)``.
  A ``RebalanceFinished`` whose stores differ is refused: an instance's topology is fixed.
- **RebalanceFinished**: what ``StreamsPartitionAssignor.onAssignment`` does with the
  ``AssignmentInfo`` maps: host -> active and host -> standby ``TopicPartition`` sets
  (``HostInfo.buildFromEndpoint``, as the assignor parses endpoints), the partition info built
  by Kafka's own ``StreamsPartitionAssignor.getTopicPartitionInfo(partitionsByHost)`` — from the
  **active** map, not from the assignment's ``partitions`` counts, which Kafka never sees (the
  model's ``partitions_from_active`` gives the same counts: STREAMS-RULE-PARTITION-INFO) — then
  ``onChange(active, standby, info)`` (package-private, through reflection).
- **RebalanceStarted**: nothing; Kafka keeps answering from the last assignment.
- **Queries**: ``keyQueryMetadataForKey(store, key, StringSerializer)``, ``allMetadata()``,
  ``allMetadataForStore(store)`` (named ``get...`` before 4.0), answered as the wire's JSON.

Which instance answers: Kafka's assignor names every member with an ``application.server`` in
both maps, an empty set if it has no task (``populatePartitionsByHostMaps``), and so does the
model's assignment (STREAMS-RULE-EVERY-MEMBER): the hosts an assignment names are the members
it was made for. The instance answering is the first of them (by host, port), the member the
system model lets answer (spec/streams.md §3) and its stand-in for "this host" (STREAMS-RULE-KEY
2); a member must be named to answer at all (``isInitialized`` needs ``localMetadata``, set only
by an ``onChange`` that names this host). Each host keeps its own ``StreamsMetadataState``
across rebalances, as each ``KafkaStreams`` instance does; before the first assignment
``application.server`` (config, default ``host0:8080``) answers.

Versions (each shape found by reflection): 3.0 builds the state from the
``InternalTopologyBuilder`` (after ``rewriteTopology``), 3.1 from ``TopologyMetadata`` and the
host, 3.2 and later add a ``LogContext``; before 3.6 ``onChange`` takes a ``Cluster``
(``Cluster.empty().withPartitions(info)``, as those assignors build it), from 3.6 the
partition-info map; 4.0 dropped the ``get`` prefix of the query methods. 3.0-3.1 list
``allMetadata`` in ``HashMap`` order, not by (host, port): docs/kafka-matrix.md, streams.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from kspec.conformance.adapters.base import JSON, StepResult, Target, TargetError
from kspec.conformance.targets.kafka import artifacts, jvm
from kspec.model.streams.metadata import host_text, parse_assignment
from kspec.model.streams.system import TOPOLOGY

ARTIFACTS = ["kafka-streams"]
MIN_VERSION = (3, 0)
DEFAULT_SERVER = "host0:8080"
APPLICATION_ID = "kspec-streams"
INTERNALS = "org.apache.kafka.streams.processor.internals"


def check_supported(version: str) -> tuple[int, int]:
    """The version's (major, minor), or a one-line TargetError below 3.0."""
    artifacts.check_version(version)
    vt = artifacts.version_tuple(version)
    if vt < MIN_VERSION:
        raise TargetError(f"kafka:{version}: not supported for streams (the StreamsMetadataState adapter "
                          "needs Kafka 3.0.0 or later)")
    return vt


def _topology_of(config: Mapping[str, Any]) -> tuple[tuple[tuple[str, tuple[str, ...]], ...], tuple[str, ...]]:
    """(stores with their source topics, global stores) of a node config, as the wire writes
    them; the system model's topology when the config has none."""
    stores = config.get("stores")
    if stores is None:
        pairs = TOPOLOGY.stores
    elif isinstance(stores, dict) and all(isinstance(t, list) for t in stores.values()):
        pairs = tuple((str(n), tuple(str(t) for t in ts)) for n, ts in stores.items())
    else:
        raise TargetError(f"streams config: 'stores' must map a store to its source topics, got {stores!r:.80}")
    globals_ = config.get("global_stores") or []
    if not isinstance(globals_, list):
        raise TargetError(f"streams config: 'global_stores' must be a list, got {globals_!r:.80}")
    return tuple(sorted(pairs)), tuple(sorted(str(g) for g in globals_))


class _Java(jvm.JavaClasses):
    """The Kafka classes and the version's shapes, looked up once."""

    def __init__(self, version: str) -> None:
        super().__init__(version)
        c = self.c
        self._Thread: Any = c("java.lang.Thread")
        # When another artifact set started the JVM, kafka-streams sits on JPype's dynamic class
        # path, which Kafka's ConfigDef does not search: it loads a class-valued default
        # (StreamsConfig's exception handlers) through the thread's context class loader.
        self.loader: Any = c("org.apache.kafka.streams.KeyQueryMetadata").class_.getClassLoader()
        with self.context_loader():
            self._lookup(version)

    @contextmanager
    def context_loader(self) -> Iterator[None]:
        """Kafka-streams' class loader as this thread's context class loader, for the block."""
        thread = self._Thread.currentThread()
        before = thread.getContextClassLoader()
        thread.setContextClassLoader(self.loader)
        try:
            yield
        finally:
            thread.setContextClassLoader(before)

    def _lookup(self, version: str) -> None:
        c, jpype = self.c, self.jpype
        self.StreamsBuilder: Any = c("org.apache.kafka.streams.StreamsBuilder")
        self.Materialized: Any = c("org.apache.kafka.streams.kstream.Materialized")
        self.StreamsConfig: Any = c("org.apache.kafka.streams.StreamsConfig")
        self.Topology: Any = c("org.apache.kafka.streams.Topology")
        self.HostInfo: Any = c("org.apache.kafka.streams.state.HostInfo")
        self.LogContext: Any = self.log_context_class()
        self.TopicPartition: Any = c("org.apache.kafka.common.TopicPartition")
        self.Cluster: Any = c("org.apache.kafka.common.Cluster")
        self.State: Any = c(f"{INTERNALS}.StreamsMetadataState")
        self.Properties: Any = c("java.util.Properties")
        self.HashMap: Any = c("java.util.HashMap")
        self.HashSet: Any = c("java.util.HashSet")
        self.serializer: Any = c("org.apache.kafka.common.serialization.StringSerializer")()
        self.JString = jpype.JString
        jmap: Any = c("java.util.Map").class_
        itb: Any = c(f"{INTERNALS}.InternalTopologyBuilder")
        self._builder_field = self.accessible(self.Topology.class_.getDeclaredField("internalTopologyBuilder"))
        assignor: Any = c(f"{INTERNALS}.StreamsPartitionAssignor")
        self.partition_info = self.accessible(assignor.class_.getDeclaredMethod("getTopicPartitionInfo", jmap))
        # The shapes that changed between releases (see the module docstring).
        metadata = c(f"{INTERNALS}.TopologyMetadata")
        self.TopologyMetadata: Any = metadata
        self.ctor_args: tuple[str, ...] = ("metadata", "host", "log")
        for args, types in ((("metadata", "host", "log"), (metadata, self.HostInfo, self.LogContext)),
                            (("metadata", "host"), (metadata, self.HostInfo)),
                            (("builder", "host"), (itb, self.HostInfo))):
            try:
                self.state_ctor = self.State.class_.getConstructor(*(t.class_ for t in types))
            except Exception:
                continue
            self.ctor_args = args
            break
        else:
            raise TargetError(f"kafka:{version}: StreamsMetadataState has no constructor this adapter knows")
        try:
            self.on_change = self.accessible(self.State.class_.getDeclaredMethod("onChange", jmap, jmap, jmap))
            self.change_takes_cluster = False
        except Exception:
            self.on_change = self.accessible(self.State.class_.getDeclaredMethod(
                "onChange", jmap, jmap, self.Cluster.class_))
            self.change_takes_cluster = True
        prefix = "" if hasattr(self.State, "keyQueryMetadataForKey") else "get"
        self.m_key = "keyQueryMetadataForKey" if not prefix else "getKeyQueryMetadataForKey"
        self.m_all = "allMetadata" if not prefix else "getAllMetadata"
        self.m_store = "allMetadataForStore" if not prefix else "getAllMetadataForStore"
        # 4.4 takes the record's headers too (keyQueryMetadataForKey(store, key, headers,
        # serializer)); the query passes none, so the key's bytes are the same.
        self.key_headers: Any = None
        if prefix == "":
            try:
                self.State.class_.getMethod(self.m_key, c("java.lang.String").class_, c("java.lang.Object").class_,
                                            c("org.apache.kafka.common.serialization.Serializer").class_)
            except Exception:
                self.key_headers = c("org.apache.kafka.common.header.internals.RecordHeaders")

    def host(self, text: str) -> Any:
        """``HostInfo.buildFromEndpoint``: how Kafka parses ``application.server`` endpoints."""
        return self.HostInfo.buildFromEndpoint(text)

    def new_state(self, stores: tuple[tuple[str, tuple[str, ...]], ...], global_stores: tuple[str, ...],
                  server: str) -> Any:
        """A ``StreamsMetadataState`` as ``new KafkaStreams(topology, props)`` makes it."""
        props = self.Properties()
        props.put("application.id", APPLICATION_ID)
        props.put("bootstrap.servers", "localhost:9092")  # never contacted
        props.put("application.server", server)
        with self.context_loader():
            return self._new_state(props, stores, global_stores, server)

    def _new_state(self, props: Any, stores: tuple[tuple[str, tuple[str, ...]], ...],
                   global_stores: tuple[str, ...], server: str) -> Any:
        builder = self.StreamsBuilder()
        # One source stream per topic (Kafka refuses a topic registered by two sources); a
        # store over several topics counts their merge.
        streams: dict[str, Any] = {}
        for store, topics in stores:
            if not topics:
                continue  # a store no source topic feeds: Kafka answers as for an unknown store
            merged: Any = None
            for t in topics:
                if t not in streams:
                    streams[t] = builder.stream(t)
                merged = streams[t] if merged is None else merged.merge(streams[t])
            merged.groupByKey().count(self.Materialized.as_(store))
        for store in global_stores:
            builder.globalTable(store, self.Materialized.as_(store))
        config = self.StreamsConfig(props)
        internal = self._builder_field.get(builder.build(props))
        args = {"host": self.host(server), "log": self.LogContext(f"[{server}] ")}
        if self.ctor_args[0] == "metadata":
            args["metadata"] = self.TopologyMetadata(internal, config)
            args["metadata"].buildAndRewriteTopology()
        else:
            internal.rewriteTopology(config)
            args["builder"] = internal
        return self.state_ctor.newInstance(*(args[a] for a in self.ctor_args))

    def host_map(self, doc: Mapping[str, Any]) -> Any:
        """host:port -> [[topic, partition], ...] as Kafka's ``Map<HostInfo, Set<TopicPartition>>``."""
        out = self.HashMap()
        for h, tps in doc.items():
            parts = self.HashSet()
            for topic, partition in tps:
                parts.add(self.TopicPartition(str(topic), int(partition)))
            out.put(self.host(str(h)), parts)
        return out


def _host(h: Any) -> str:
    return f"{h.host()}:{int(h.port())}"


def _tps(tps: Any) -> list[list[str | int]]:
    return sorted([str(tp.topic()), int(tp.partition())] for tp in tps)


def metadata_json(m: Any) -> dict[str, JSON]:
    """A Kafka ``StreamsMetadata`` as the wire's JSON."""
    return {"host": _host(m.hostInfo()), "stores": sorted(str(s) for s in m.stateStoreNames()),
            "partitions": _tps(m.topicPartitions()),
            "standby_stores": sorted(str(s) for s in m.standbyStateStoreNames()),
            "standby_partitions": _tps(m.standbyTopicPartitions())}


def key_json(k: Any) -> JSON:
    """A Kafka ``KeyQueryMetadata`` (or null) as the wire's JSON."""
    if k is None:
        return None
    return {"active": _host(k.activeHost()), "standbys": sorted(_host(h) for h in k.standbyHosts()),
            "partition": int(k.partition())}


class StreamsInstance:
    """The metadata state of the instance answering queries (see the module docstring)."""

    def __init__(self, java: _Java, name: str, stores: tuple[tuple[str, tuple[str, ...]], ...],
                 global_stores: tuple[str, ...], server: str) -> None:
        self.java = java
        self.name = name
        self.stores = stores
        self.global_stores = global_stores
        self.answering = server
        self.states: dict[str, Any] = {}

    def state(self, server: str | None = None) -> Any:
        """The ``StreamsMetadataState`` of ``server`` (default: the instance answering)."""
        server = server or self.answering
        if server not in self.states:
            self.states[server] = self._call("new StreamsMetadataState", self.java.new_state, self.stores,
                                             self.global_stores, server)
        return self.states[server]

    def _call(self, what: str, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except TargetError:
            raise
        except Exception as err:  # a Java exception is the target failing, one line
            raise TargetError(f"{self.name} streams: {what} threw {type(err).__name__}: {err}") from None

    def rebalance_finished(self, doc: Mapping[str, Any]) -> None:
        """``onChange`` as ``StreamsPartitionAssignor.onAssignment`` calls it."""
        try:
            wanted = parse_assignment(doc)
        except (KeyError, TypeError, ValueError) as err:
            raise TargetError(f"RebalanceFinished: malformed assignment ({err})") from None
        topology = (tuple(sorted(wanted.topology.stores)), tuple(sorted(wanted.topology.global_stores)))
        if topology != (self.stores, self.global_stores):
            raise TargetError(f"{self.name} streams: the assignment's stores {topology} are not this instance's "
                              f"topology {(self.stores, self.global_stores)} (an instance's topology is fixed)")
        named = sorted({h for h, _ in wanted.active} | {h for h, _ in wanted.standby})
        if named:
            self.answering = host_text(named[0])
        java = self.java
        active = java.host_map(dict(doc["active"]))
        standby = java.host_map(dict(doc.get("standby") or {}))
        info = self._call("getTopicPartitionInfo", java.partition_info.invoke, None, active)
        if java.change_takes_cluster:
            info = java.Cluster.empty().withPartitions(info)
        self._call("onChange", java.on_change.invoke, self.state(), active, standby, info)

    def step(self, inp: JSON) -> StepResult:
        kind = inp.get("type") if isinstance(inp, dict) else None
        java = self.java
        if kind == "RebalanceStarted":
            return StepResult([], {"result": None})
        if kind == "RebalanceFinished" and isinstance(inp, dict) and isinstance(inp.get("assignment"), dict):
            self.rebalance_finished(inp["assignment"])
            return StepResult([], {"result": None})
        if kind == "MetadataForKey" and isinstance(inp.get("store"), str) and isinstance(inp.get("key"), str):
            store, key = java.JString(inp["store"]), java.JString(inp["key"])
            args = (store, key, java.serializer) if java.key_headers is None else \
                (store, key, java.key_headers(), java.serializer)
            found = self._call(java.m_key, getattr(self.state(), java.m_key), *args)
            return StepResult([], {"result": key_json(found)})
        if kind == "AllMetadata":
            every = self._call(java.m_all, getattr(self.state(), java.m_all))
            return StepResult([], {"result": [metadata_json(m) for m in every]})
        if kind == "AllMetadataForStore" and isinstance(inp.get("store"), str):
            some = self._call(java.m_store, getattr(self.state(), java.m_store), java.JString(inp["store"]))
            return StepResult([], {"result": [metadata_json(m) for m in some]})
        raise TargetError(f"unknown or malformed streams input {inp!r:.120}")

    def close(self) -> None:
        self.states.clear()


class KafkaStreamsTarget(Target):
    """The streams target of one Kafka version: one node, Kafka's ``StreamsMetadataState``."""

    protocol = "streams"

    def __init__(self, version: str, jars: list[Any] | None = None) -> None:
        self.vt = check_supported(version)
        self.version = version
        self.name = f"kafka:{version}"
        jvm.check(version)
        jvm.ensure(version, jars if jars is not None else artifacts.resolve(version, ARTIFACTS))
        self.java = _Java(version)

    def start(self, node: Any, config: dict[str, JSON]) -> StreamsInstance:
        stores, global_stores = _topology_of(config)
        server = str(config.get("application_server") or DEFAULT_SERVER)
        instance = StreamsInstance(self.java, self.name, stores, global_stores, server)
        instance.state()  # build the topology now: a bad one fails at start, not at the first query
        return instance

    def close(self) -> None:
        """Nothing to release: the JVM lives as long as the process (JPype cannot restart it)."""
