"""Kafka's raft classes for ``kafka:VERSION`` raft, looked up once per JVM, and what differs
between release lines (the version table the adapter's glue reads).

- 3.7: ``RaftConfig`` with the voters' addresses; ``initialize()``; ``MockNetworkChannel(ids)``;
  the request manager by connection (reflection); responses name their source by id.
- 3.8: ``QuorumConfig`` (6 ints); ``initialize(voters, store, metrics)``; responses by ``Node``.
- 3.9: as 3.8; requests name the listener; ``prepareAppend`` + ``schedulePreparedAppend``;
  ``Features.KRAFT_VERSION`` gives the kraft.version range.
- 4.x: ``QuorumConfig(AbstractConfig)`` only; ``initialize(voters, store, metrics,
  ExternalKRaftMetrics)``; no ``Features`` enum (the range 0-1 is built); KIP-996's
  ``ProspectiveState`` (the model's rule set kip-996, ``model.raft.rule_sets``); 4.3 renamed
  ``ReplicatedLog`` to ``RaftLog`` and moved the record classes to ``common.record.internal``.
- 4.1: no candidate backoff (``CandidateState.isBackingOff`` is gone): a candidate a majority
  rejected waits for its election timer, which the adapter fires on the model's
  ``BackoffExpired`` (time is abstract: both are "wait, then prospective").
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import TargetError
from kspec.conformance.targets.kafka import jvm
from kspec.conformance.targets.kafka.raft_releases import line_of

RAFT = "org.apache.kafka.raft"
MSG = "org.apache.kafka.common.message"


class Java:
    """The Kafka classes the adapter uses, looked up once, and the version's construction rules."""

    def __init__(self, version: str, vt: tuple[int, int]) -> None:
        import jpype

        def c(name: str) -> Any:
            return jvm.jclass(version, name)

        self.jpype = jpype
        self.version = version
        self.vt = vt
        self.line = line_of(version)  # the release line's glue (raft_releases)
        self.Client = c(f"{RAFT}.KafkaRaftClient")
        self.MockLog = c(f"{RAFT}.MockLog")
        self.MockStore = c(f"{RAFT}.MockQuorumStateStore")
        # 4.4 (KAFKA-20714): the adapter's own channel and queue (raft_io), none of Kafka's
        self.MockChannel: Any = None if self.line.futures else c(f"{RAFT}.MockNetworkChannel")
        self.MockQueue: Any = None if self.line.futures else c(f"{RAFT}.MockMessageQueue")
        self.MockExpiration = c(f"{RAFT}.MockExpirationService")
        self.MockTime = c("org.apache.kafka.common.utils.MockTime")
        try:
            self.log_interface = f"{RAFT}.ReplicatedLog"
            self.ReplicatedLog = c(self.log_interface)
        except TargetError:  # 4.3 renamed it RaftLog
            self.log_interface = f"{RAFT}.RaftLog"
            self.ReplicatedLog = c(self.log_interface)
        # 4.3's read takes a byte limit too: the adapter reads everything
        self.read_limit: tuple[Any, ...] = ()
        if any(str(m.getName()) == "read" and m.getParameterCount() == 3
               for m in self.ReplicatedLog.class_.getMethods()):
            self.read_limit = (jpype.JInt(2**31 - 1),)
        # 4.1 dropped the candidate's backoff state (a lost candidate waits for its timer)
        self.candidate_backoff = any(str(m.getName()) == "isBackingOff"
                                     for m in c(f"{RAFT}.CandidateState").class_.getMethods())
        self.Inbound = c(f"{RAFT}.RaftRequest$Inbound")
        self.ResponseInbound = c(f"{RAFT}.RaftResponse$Inbound")
        self.RaftUtil = c(f"{RAFT}.RaftUtil")
        self.Isolation = c(f"{RAFT}.Isolation")
        self.LogFetchInfo = c(f"{RAFT}.LogFetchInfo")
        self.StringSerde = c(f"{RAFT}.internals.StringSerde")
        self.MemoryPool = c("org.apache.kafka.common.memory.MemoryPool")
        try:
            self.LogContext = c("org.apache.kafka.common.utils.LogContext")
        except TargetError:  # 4.4 moved it to internals
            self.LogContext = c("org.apache.kafka.common.utils.internals.LogContext")
        self.TopicPartition = c("org.apache.kafka.common.TopicPartition")
        self.Uuid = c("org.apache.kafka.common.Uuid")
        self.Errors = c("org.apache.kafka.common.protocol.Errors")
        self.ApiKeys = c("org.apache.kafka.common.protocol.ApiKeys")
        def record(name: str) -> Any:  # 4.3 moved the record classes to common.record.internal
            try:
                return c(f"org.apache.kafka.common.record.{name}")
            except TargetError:
                return c(f"org.apache.kafka.common.record.internal.{name}")

        self.MemoryRecords = record("MemoryRecords")
        self.SimpleRecord = record("SimpleRecord")
        self.ControlRecordType = record("ControlRecordType")
        self.LeaderChangeMessage = c(f"{MSG}.LeaderChangeMessage")
        self.ByteBuffer = c("java.nio.ByteBuffer")
        self.ArrayList = c("java.util.ArrayList")
        self.HashMap = c("java.util.HashMap")
        self.Integer = c("java.lang.Integer")
        self.Long = c("java.lang.Long")
        self.Boolean = c("java.lang.Boolean")
        self.OptionalInt = c("java.util.OptionalInt")
        self.OptionalInt_ = jpype.JClass("java.util.OptionalInt")
        self.OptionalLong = c("java.util.OptionalLong")
        self.Optional = c("java.util.Optional")
        self.InetSocketAddress = c("java.net.InetSocketAddress")
        self.Metrics = c("org.apache.kafka.common.metrics.Metrics")
        self.Object = c("java.lang.Object")
        self.System = c("java.lang.System")
        try:
            self.Compression = c("org.apache.kafka.common.compress.Compression").NONE  # 3.8+
        except TargetError:
            self.Compression = c("org.apache.kafka.common.record.CompressionType").NONE
        self.tp = self.TopicPartition("__cluster_metadata", 0)
        self.topic_id = self.Uuid.METADATA_TOPIC_ID
        self.log_context = self.LogContext()
        self.serde = self.StringSerde()
        self.data = {name: c(f"{MSG}.{name}Data") for name in
                     ("VoteRequest", "VoteResponse", "BeginQuorumEpochRequest", "BeginQuorumEpochResponse",
                      "EndQuorumEpochRequest", "EndQuorumEpochResponse", "FetchRequest", "FetchResponse")}
        self.ctor = self._client_constructor()
        self.random_ctor = self._declared_ctor(f"{RAFT}.MockableRandom")
        self.random_fn = self._declared_field(f"{RAFT}.MockableRandom", "nextIntFunction")
        self.f_quorum = self._declared_field(f"{RAFT}.KafkaRaftClient", "quorum")
        self.f_state = self._declared_field(f"{RAFT}.QuorumState", "state")
        self.f_requests = self._declared_field(f"{RAFT}.KafkaRaftClient", "requestManager")
        # The voters an observer picks its bootstrap fetch from: 3.7 ``voters`` (ids; the last
        # ready one from a random start wins), 3.8+ ``bootstrapServers`` (Nodes; the first wins).
        self.f_voters = self._declared_field(f"{RAFT}.RequestManager", "voters", missing_ok=True)
        self.pick_last = self.f_voters is not None
        if self.f_voters is None:
            self.f_voters = self._declared_field(f"{RAFT}.RequestManager", "bootstrapServers")
        self.m_expected = None
        if not any(str(m.getName()) == "isResponseExpected"
                   for m in c(f"{RAFT}.RequestManager").class_.getMethods()):
            conn = c(f"{RAFT}.RequestManager$ConnectionState").class_
            self.m_expected = conn.getDeclaredMethod("isResponseExpected", jpype.JLong.class_)
            self.m_expected.setAccessible(True)
        self.Node = c("org.apache.kafka.common.Node")
        self.response_by_node = any(str(t.getName()) == "org.apache.kafka.common.Node"
                                    for k in self.ResponseInbound.class_.getConstructors()
                                    for t in k.getParameterTypes())
        self.request_with_listener = any(k.getParameterCount() == 5 for k in self.Inbound.class_.getConstructors())
        listener_name = c("org.apache.kafka.common.network.ListenerName")
        if self.MockChannel is not None and any(str(f.getName()) == "LISTENER_NAME"
                                                for f in self.MockChannel.class_.getFields()):
            self.listener = self.MockChannel.LISTENER_NAME
        else:
            self.listener = listener_name.normalised("CONTROLLER")
        self.has_prepare = any(str(m.getName()) == "prepareAppend" for m in self.Client.class_.getMethods())
        quorum_config = c(f"{RAFT}.QuorumConfig").class_ if vt >= (3, 8) else None
        self.quorum_config_from_props = quorum_config is not None and all(
            k.getParameterCount() == 1 for k in quorum_config.getConstructors())
        self.external_metrics = None
        if vt >= (4, 0):
            @jpype.JImplements(f"{RAFT}.ExternalKRaftMetrics")
            class _NoExternalMetrics:
                @jpype.JOverride
                def setIgnoredStaticVoters(self, ignored: Any) -> None:
                    """The broker's metric of ignored static voters: not observed."""

            self.external_metrics = _NoExternalMetrics()

    def _declared_ctor(self, name: str) -> Any:
        cls = jvm.jclass(self.version, name).class_
        ctors = sorted(cls.getDeclaredConstructors(), key=lambda k: -k.getParameterCount())
        ctor = ctors[0]
        ctor.setAccessible(True)
        return ctor

    def _declared_field(self, cls_name: str, field: str, missing_ok: bool = False) -> Any:
        cls = jvm.jclass(self.version, cls_name).class_
        try:
            f = cls.getDeclaredField(field)
        except Exception:
            if missing_ok:
                return None
            raise TargetError(f"kafka:{self.version}: {cls_name} has no field {field}") from None
        f.setAccessible(True)
        return f

    def _client_constructor(self) -> Any:
        """The package-private constructor ``RaftClientTestContext`` uses (it takes the message
        queue and the Random: a ``MockMessageQueue`` never blocks in ``poll``)."""
        cls = self.Client.class_
        for k in cls.getDeclaredConstructors():
            names = [str(t.getName()) for t in k.getParameterTypes()]
            if f"{RAFT}.RaftMessageQueue" in names and "java.util.Random" in names:
                k.setAccessible(True)
                return k
        raise TargetError(f"kafka:{self.version}: KafkaRaftClient has no constructor taking a message queue")

    def boxed(self, value: Any, kind: str) -> Any:
        return {"int": self.Integer.valueOf, "long": self.Long.valueOf, "bool": self.Boolean.valueOf}[kind](value)


