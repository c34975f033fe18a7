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


class Java(jvm.MetadataLogClasses):
    """The Kafka classes the adapter uses, looked up once, and the version's construction rules."""

    def __init__(self, version: str, vt: tuple[int, int]) -> None:
        super().__init__(version, vt)
        jpype = self.jpype
        c = self.c
        self.line = line_of(version)  # the release line's glue (raft_releases)
        self.Client = c(f"{RAFT}.KafkaRaftClient")
        self.MockStore = c(f"{RAFT}.MockQuorumStateStore")
        # 4.4 (KAFKA-20714): the adapter's own channel and queue (raft_io), none of Kafka's
        self.MockChannel: Any = None if self.line.futures else c(f"{RAFT}.MockNetworkChannel")
        self.MockQueue: Any = None if self.line.futures else c(f"{RAFT}.MockMessageQueue")
        self.MockExpiration = c(f"{RAFT}.MockExpirationService")
        self.MockTime = c("org.apache.kafka.common.utils.MockTime")
        self.ReplicatedLog = self.first(f"{RAFT}.ReplicatedLog", f"{RAFT}.RaftLog")  # 4.3 renamed it RaftLog
        self.log_interface = str(self.ReplicatedLog.class_.getName())
        # 4.3's read takes a byte limit too: the adapter reads everything
        self.read_limit: tuple[Any, ...] = ()
        if self.has_method(self.ReplicatedLog, "read", 3):
            self.read_limit = (jpype.JInt(2**31 - 1),)
        # 4.1 dropped the candidate's backoff state (a lost candidate waits for its timer)
        self.candidate_backoff = self.has_method(c(f"{RAFT}.CandidateState"), "isBackingOff")
        self.Inbound = c(f"{RAFT}.RaftRequest$Inbound")
        self.ResponseInbound = c(f"{RAFT}.RaftResponse$Inbound")
        self.RaftUtil = c(f"{RAFT}.RaftUtil")
        self.Isolation = c(f"{RAFT}.Isolation")
        self.LogFetchInfo = c(f"{RAFT}.LogFetchInfo")
        self.Errors = c("org.apache.kafka.common.protocol.Errors")
        self.ApiKeys = c("org.apache.kafka.common.protocol.ApiKeys")
        self.ControlRecordType = self.record("ControlRecordType")
        self.ArrayList = c("java.util.ArrayList")
        self.HashMap = c("java.util.HashMap")
        self.Long = c("java.lang.Long")
        self.Boolean = c("java.lang.Boolean")
        self.OptionalInt = c("java.util.OptionalInt")
        self.OptionalInt_ = self.OptionalInt
        self.OptionalLong = c("java.util.OptionalLong")
        self.InetSocketAddress = c("java.net.InetSocketAddress")
        self.Metrics = c("org.apache.kafka.common.metrics.Metrics")
        self.Object = c("java.lang.Object")
        self.System = c("java.lang.System")
        self.topic_id = self.Uuid.METADATA_TOPIC_ID
        self.data = {name: c(f"{MSG}.{name}Data") for name in
                     ("VoteRequest", "VoteResponse", "BeginQuorumEpochRequest", "BeginQuorumEpochResponse",
                      "EndQuorumEpochRequest", "EndQuorumEpochResponse", "FetchRequest", "FetchResponse",
                      "FetchSnapshotRequest", "DescribeQuorumRequest")}
        self.ctor = self._client_constructor()
        self.random_ctor = self._declared_ctor(f"{RAFT}.MockableRandom")
        self.random_fn = self.field(f"{RAFT}.MockableRandom", "nextIntFunction")
        self.f_quorum = self.field(f"{RAFT}.KafkaRaftClient", "quorum")
        self.f_state = self.field(f"{RAFT}.QuorumState", "state")
        self.f_requests = self.field(f"{RAFT}.KafkaRaftClient", "requestManager")
        # 3.9+ (KAFKA-16536): the leader's BeginQuorumEpoch heartbeat timer (spec/raft.md D-RESEND)
        self.f_begin_epoch_timer = self.field(f"{RAFT}.LeaderState", "beginQuorumEpochTimer", missing_ok=True)
        # Who the leader records as having acknowledged its epoch (every line: a NONE
        # BeginQuorumEpochResponse, addAcknowledgementFrom, or a valid Fetch,
        # ReplicaState.updateFollowerState): a 3.9+ heartbeat copy to such a voter is the
        # deviation raft-begin-epoch-heartbeat, held unjudged (spec/raft.md D-RESEND)
        self.f_voter_states = self.field(f"{RAFT}.LeaderState", "voterStates")
        self.f_acknowledged = self.field(f"{RAFT}.LeaderState$ReplicaState", "hasAcknowledgedLeader")
        # The voters an observer picks its bootstrap fetch from: 3.7 ``voters`` (ids; the last
        # ready one from a random start wins), 3.8+ ``bootstrapServers`` (Nodes; the first wins).
        self.f_voters = self.field(f"{RAFT}.RequestManager", "voters", missing_ok=True)
        self.pick_last = self.f_voters is not None
        if self.f_voters is None:
            self.f_voters = self.field(f"{RAFT}.RequestManager", "bootstrapServers")
        self.m_expected = None
        if not self.has_method(c(f"{RAFT}.RequestManager"), "isResponseExpected"):
            conn = c(f"{RAFT}.RequestManager$ConnectionState").class_
            self.m_expected = self.accessible(conn.getDeclaredMethod("isResponseExpected", jpype.JLong.class_))
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
        self.has_prepare = self.has_method(self.Client, "prepareAppend")
        quorum_config = c(f"{RAFT}.QuorumConfig").class_ if vt >= (3, 8) else None
        self.quorum_config_from_props = quorum_config is not None and all(
            k.getParameterCount() == 1 for k in quorum_config.getConstructors())
        self.external_metrics = None
        if vt >= (4, 0):
            self.external_metrics = self.no_external_metrics()

    def _declared_ctor(self, name: str) -> Any:
        """The declared constructor of ``name`` with the most parameters, made accessible."""
        ctors = sorted(self.c(name).class_.getDeclaredConstructors(), key=lambda k: -k.getParameterCount())
        return self.accessible(ctors[0])

    def _client_constructor(self) -> Any:
        """The package-private constructor ``RaftClientTestContext`` uses (it takes the message
        queue and the Random: a ``MockMessageQueue`` never blocks in ``poll``)."""
        cls = self.Client.class_
        for k in cls.getDeclaredConstructors():
            names = [str(t.getName()) for t in k.getParameterTypes()]
            if f"{RAFT}.RaftMessageQueue" in names and "java.util.Random" in names:
                return self.accessible(k)
        raise TargetError(f"kafka:{self.version}: KafkaRaftClient has no constructor taking a message queue")

    def boxed(self, value: Any, kind: str) -> Any:
        return {"int": self.Integer.valueOf, "long": self.Long.valueOf, "bool": self.Boolean.valueOf}[kind](value)


