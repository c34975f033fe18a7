"""``kafka:VERSION`` for raft: Kafka's own ``KafkaRaftClient`` (kafka-raft, 3.7 and later), one
client per replica, driven with Kafka's own test doubles the way ``RaftClientTestContext`` drives
it: ``MockLog``, ``MockQuorumStateStore``, ``MockNetworkChannel``, ``MockMessageQueue``,
``MockTime``, ``MockExpirationService`` and ``MockableRandom`` (the kafka-raft and kafka-clients
*test* jars, resolved by Maven like the rest).

One input is one node-level event of the model; the adapter turns it into what Kafka's event
loop sees and polls the client until it is quiet (no message queued, nothing new sent):

- a request becomes a ``RaftRequest.Inbound`` handed to ``client.handle``; its response is the
  inbound request's completion. A response completes the outbound request Kafka sent to that
  peer with that API (the model's network has no correlation ids; Kafka's request manager
  expects exactly the one in flight, so the match is the latest *reported* request of that
  kind to that peer; a response with no such request reaches Kafka unmatched and is ignored,
  as Kafka ignores any response it no longer expects).
- a timer input advances this replica's ``MockTime`` to the deadline of the Kafka timer it
  names, read from Kafka's own state: ElectionTimeout the election timer of a voter that is
  unattached, voted, resigned or a candidate not backing off; BackoffExpired a backing-off
  candidate's backoff; FetchTimeout a voter follower's fetch timer; CheckQuorumTimeout the
  leader's check-quorum timer. When Kafka's state has no such timer the input is idle: the
  clock stays, the client is polled.
- Kafka sends its Fetch as soon as it may; the model sends on ``FetchDue(to)``. The adapter
  holds Kafka's Fetch back and reports it at ``FetchDue(to)``. If Kafka's fetch went to another
  voter (an observer's random bootstrap voter), or the earlier fetch is still awaited (the model
  lost it), the adapter completes that request as Kafka's network channel does for a lost
  connection (BROKER_NOT_AVAILABLE), steers ``MockableRandom`` to the voter ``to`` and polls.
- ClientAppend is ``scheduleAppend`` (3.9+: ``prepareAppend`` + ``schedulePreparedAppend``) of
  one string record at the leader; elsewhere nothing (Kafka throws NotLeaderException).
- Crash drops the client and ``MockLog.reopen()`` loses unflushed data; Restart builds a new
  client over the same log and quorum-state store and calls ``initialize`` (Kafka's restart).

Outputs: PersistElection when the store's (epoch, voted, leader) changed, AppendLog /
TruncateLog from the log before and after, the messages sent (Fetch only when reported) and the
response. Observation: the role from ``QuorumState``, the election from the store, the log read
back record by record, ``client.highWatermark()``.

Settings that keep Kafka's clock and the model's timer events apart: request timeout 10^9 ms
(Kafka never resends on its own; a lost request is reported at FetchDue as above), retry backoff
0, append linger 0, fetch max wait 0, election timeout 1000 ms with the jitter pinned to 0,
election backoff pinned to its maximum (never 0: a zero backoff would start the next election
inside the same step). ``MockLog.read`` returns at most two batches per read (a test-double
choice; ``KafkaMetadataLog`` reads up to the fetch size), so the log the client sees is a JPype
proxy that reads on until the log end.
"""

from __future__ import annotations

import json
import weakref
from typing import Any

from kspec.conformance.adapters.base import JSON, StepResult, TargetError
from kspec.conformance.targets.kafka import artifacts, jvm

ARTIFACTS = ["kafka-raft", "kafka-raft@test", "kafka-clients@test"]
MIN_VERSION = (3, 7)
MAX_VERSION = (4, 0)  # exclusive
RAFT = "org.apache.kafka.raft"
MSG = "org.apache.kafka.common.message"

ELECTION_TIMEOUT_MS = 1000
FETCH_TIMEOUT_MS = 2000
ELECTION_BACKOFF_MAX_MS = 100
REQUEST_TIMEOUT_MS = 1_000_000_000
CLUSTER_ID = "kspec-raft-cluster"
MAX_POLLS = 16

API = {"VoteRequest": "VOTE", "VoteResponse": "VOTE", "BeginQuorumEpochRequest": "BEGIN_QUORUM_EPOCH",
       "BeginQuorumEpochResponse": "BEGIN_QUORUM_EPOCH", "EndQuorumEpochRequest": "END_QUORUM_EPOCH",
       "EndQuorumEpochResponse": "END_QUORUM_EPOCH", "FetchRequest": "FETCH", "FetchResponse": "FETCH"}
REQUEST_OF = {"VOTE": "VoteRequest", "BEGIN_QUORUM_EPOCH": "BeginQuorumEpochRequest",
              "END_QUORUM_EPOCH": "EndQuorumEpochRequest", "FETCH": "FetchRequest"}
RESPONSE_OF = {"VOTE": "VoteResponse", "BEGIN_QUORUM_EPOCH": "BeginQuorumEpochResponse",
               "END_QUORUM_EPOCH": "EndQuorumEpochResponse", "FETCH": "FetchResponse"}


def check_supported(version: str) -> tuple[int, int]:
    """The version's (major, minor), or a one-line TargetError below 3.7."""
    vt = artifacts.supported_version(version, "raft", MIN_VERSION,
                                     "the KafkaRaftClient adapter needs Kafka 3.7.0 or later")
    if vt >= MAX_VERSION:
        raise TargetError(f"kafka:{version}: not supported for raft yet (the adapter drives 3.7-3.9; Kafka 4.x "
                          "always pre-votes (KIP-996) through ProspectiveState, which it does not map)")
    return vt


def encode_payload(payload: list[int]) -> str:
    """A record value for a model payload: JSON, so never empty (3.8+ refuses an empty record)."""
    return json.dumps([int(p) for p in payload])


def decode_payload(text: str) -> list[int]:
    return [int(p) for p in json.loads(text)] if text else []


class _Java:
    """The Kafka classes the adapter uses, looked up once, and the version's construction rules."""

    def __init__(self, version: str, vt: tuple[int, int]) -> None:
        import jpype

        def c(name: str) -> Any:
            return jvm.jclass(version, name)

        self.jpype = jpype
        self.version = version
        self.vt = vt
        self.Client = c(f"{RAFT}.KafkaRaftClient")
        self.MockLog = c(f"{RAFT}.MockLog")
        self.MockStore = c(f"{RAFT}.MockQuorumStateStore")
        self.MockChannel = c(f"{RAFT}.MockNetworkChannel")
        self.MockQueue = c(f"{RAFT}.MockMessageQueue")
        self.MockExpiration = c(f"{RAFT}.MockExpirationService")
        self.MockTime = c("org.apache.kafka.common.utils.MockTime")
        self.ReplicatedLog = c(f"{RAFT}.ReplicatedLog")
        self.Inbound = c(f"{RAFT}.RaftRequest$Inbound")
        self.ResponseInbound = c(f"{RAFT}.RaftResponse$Inbound")
        self.RaftUtil = c(f"{RAFT}.RaftUtil")
        self.Isolation = c(f"{RAFT}.Isolation")
        self.LogFetchInfo = c(f"{RAFT}.LogFetchInfo")
        self.StringSerde = c(f"{RAFT}.internals.StringSerde")
        self.MemoryPool = c("org.apache.kafka.common.memory.MemoryPool")
        self.LogContext = c("org.apache.kafka.common.utils.LogContext")
        self.TopicPartition = c("org.apache.kafka.common.TopicPartition")
        self.Uuid = c("org.apache.kafka.common.Uuid")
        self.Errors = c("org.apache.kafka.common.protocol.Errors")
        self.ApiKeys = c("org.apache.kafka.common.protocol.ApiKeys")
        self.MemoryRecords = c("org.apache.kafka.common.record.MemoryRecords")
        self.SimpleRecord = c("org.apache.kafka.common.record.SimpleRecord")
        self.ControlRecordType = c("org.apache.kafka.common.record.ControlRecordType")
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
        channel = self.MockChannel.class_
        self.listener = (self.MockChannel.LISTENER_NAME if any(str(f.getName()) == "LISTENER_NAME"
                                                               for f in channel.getFields())
                         else c("org.apache.kafka.common.network.ListenerName").normalised("CONTROLLER"))
        self.has_prepare = any(str(m.getName()) == "prepareAppend" for m in self.Client.class_.getMethods())

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


def make_log_proxy(java: _Java, inner: Any) -> Any:
    """A JPype proxy of ``ReplicatedLog`` delegating to ``inner`` with a complete ``read``."""
    import jpype

    # default methods too: a JPype proxy does not fall back to an interface's default body
    methods = {str(m.getName()) for m in java.ReplicatedLog.class_.getMethods()}
    namespace: dict[str, Any] = {}
    for name in sorted(methods):
        def delegate(self: Any, *args: Any, _name: str = name) -> Any:
            return getattr(self.inner, _name)(*args)
        namespace[name] = jpype.JOverride(delegate)

    def read(self: Any, start: Any, isolation: Any) -> Any:
        end = _offset(self.inner.endOffset())
        first = self.inner.read(start, isolation)
        parts = [first.records]
        offset = _next_offset(first.records, int(start))
        limit = _offset(self.inner.highWatermark()) if isolation == java.Isolation.COMMITTED else end
        while offset < limit:
            more = self.inner.read(offset, isolation)
            nxt = _next_offset(more.records, offset)
            if nxt <= offset:
                break
            parts.append(more.records)
            offset = nxt
        if len(parts) == 1:
            return first
        return java.LogFetchInfo(concat_records(java, parts), first.startOffsetMetadata)

    namespace["read"] = jpype.JOverride(read)
    namespace["__init__"] = lambda self, inner_log: setattr(self, "inner", inner_log)
    proxy_cls = jpype.JImplements(f"{RAFT}.ReplicatedLog")(type("KspecLog", (), namespace))
    return proxy_cls(inner)


def _offset(metadata: Any) -> int:
    """A LogOffsetMetadata's offset (a field up to 3.8, a method from 3.9)."""
    off = metadata.offset
    return int(off() if callable(off) else off)


def _next_offset(records: Any, start: int) -> int:
    nxt = start
    for batch in records.batches():
        nxt = max(nxt, int(batch.lastOffset()) + 1)
    return nxt


def concat_records(java: _Java, parts: list[Any]) -> Any:
    """One MemoryRecords holding the batches of ``parts`` in order."""
    total = sum(int(p.sizeInBytes()) for p in parts)
    buf = java.ByteBuffer.allocate(total)
    for p in parts:
        buf.put(p.buffer())
    buf.flip()
    return java.MemoryRecords.readableRecords(buf)


def entries_of(java: _Java, records: Any) -> list[tuple[int, dict[str, Any]]]:
    """(offset, model Entry JSON) of every record in ``records``."""
    out = []
    for batch in records.batches():
        epoch = int(batch.partitionLeaderEpoch())
        control = bool(batch.isControlBatch())
        for record in batch:
            if control:
                kind = str(java.ControlRecordType.parse(record.key()).toString()).lower()
                payload: list[int] = []
            else:
                kind = "data"
                value = record.value()
                arr = java.jpype.JArray(java.jpype.JByte)(int(value.remaining()))
                value.duplicate().get(arr)
                payload = decode_payload(bytes(b & 0xFF for b in arr).decode())
            out.append((int(record.offset()), {"type": "Entry", "epoch": epoch, "kind": kind, "payload": payload}))
    return out


def records_of(java: _Java, offset: int, entries: list[dict[str, Any]]) -> Any:
    """MemoryRecords for model entries starting at ``offset``: one batch per entry, as Kafka's
    leader writes them (a LeaderChange control batch, or one data record per append)."""
    if not entries:
        return java.MemoryRecords.EMPTY
    parts = []
    for k, e in enumerate(entries):
        at = offset + k
        if e["kind"] == "leader_change":
            msg = java.LeaderChangeMessage().setLeaderId(-1)
            parts.append(java.MemoryRecords.withLeaderChangeMessage(
                at, 0, int(e["epoch"]), java.ByteBuffer.allocate(256), msg))
        else:
            value = encode_payload(e.get("payload") or []).encode()
            rec = java.SimpleRecord(java.jpype.JArray(java.jpype.JByte)([b if b < 128 else b - 256 for b in value]))
            epoch = java.Integer.valueOf(int(e["epoch"]))
            parts.append(java.MemoryRecords.withRecords(at, java.Compression, epoch, rec))
    return concat_records(java, parts)


# ---------------------------------------------------------------------------- messages


def _jlist(java: _Java, items: list[Any]) -> Any:
    out = java.ArrayList()
    for item in items:
        out.add(item)
    return out


def _set(obj: Any, **fields: Any) -> Any:
    """Call ``setX(value)`` for each field the version's data class has (newer fields are
    skipped on older versions; their defaults are what an old peer sends)."""
    for name, value in fields.items():
        setter = getattr(obj, "set" + name[0].upper() + name[1:], None)
        if setter is not None:
            setter(value)
    return obj


def _nested(java: _Java, data: str, inner: str) -> Any:
    return jvm.jclass(java.version, f"{MSG}.{data}Data${inner}")


def _error(java: _Java, name: str) -> int:
    return int(getattr(java.Errors, name).code())


def _leader(value: int) -> int | None:
    return None if value < 0 else int(value)


def build_request(java: _Java, msg: dict[str, Any]) -> Any:
    """The Kafka request data of a model request addressed to this replica."""
    kind, src, dst, epoch = msg["type"], int(msg["src"]), int(msg["dst"]), int(msg["epoch"])
    if kind == "VoteRequest":
        part = _set(_nested(java, "VoteRequest", "PartitionData")(), partitionIndex=0, candidateEpoch=epoch,
                    replicaEpoch=epoch, candidateId=src, replicaId=src, lastOffsetEpoch=int(msg["last_epoch"]),
                    lastOffset=int(msg["end_offset"]), preVote=bool(msg.get("pre_vote", False)))
        topic = _set(_nested(java, "VoteRequest", "TopicData")(), topicName=java.tp.topic(),
                     partitions=_jlist(java, [part]))
        return _set(java.data["VoteRequest"](), clusterId=CLUSTER_ID, voterId=dst, topics=_jlist(java, [topic]))
    if kind in ("BeginQuorumEpochRequest", "EndQuorumEpochRequest"):
        name = kind.removesuffix("Request") + "Request"
        part = _set(_nested(java, name, "PartitionData")(), partitionIndex=0, leaderId=src, leaderEpoch=epoch,
                    preferredSuccessors=_jlist(java, [java.Integer.valueOf(int(p)) for p in msg.get("preferred", [])]))
        topic = _set(_nested(java, name, "TopicData")(), topicName=java.tp.topic(), partitions=_jlist(java, [part]))
        return _set(java.data[kind](), clusterId=CLUSTER_ID, voterId=dst, topics=_jlist(java, [topic]))
    if kind == "FetchRequest":
        part = _set(_nested(java, "FetchRequest", "FetchPartition")(), partition=0, currentLeaderEpoch=epoch,
                    fetchOffset=int(msg["fetch_offset"]), lastFetchedEpoch=int(msg["last_fetched_epoch"]))
        topic = _set(_nested(java, "FetchRequest", "FetchTopic")(), topic=java.tp.topic(), topicId=java.topic_id,
                     partitions=_jlist(java, [part]))
        state = _set(_nested(java, "FetchRequest", "ReplicaState")(), replicaId=src)
        return _set(java.data["FetchRequest"](), clusterId=CLUSTER_ID, replicaState=state, maxWaitMs=0,
                    maxBytes=8 * 1024 * 1024, topics=_jlist(java, [topic]))
    raise TargetError(f"not a request: {kind!r}")


def build_response(java: _Java, msg: dict[str, Any]) -> Any:
    """The Kafka response data of a model response addressed to this replica."""
    kind = msg["type"]
    leader = -1 if msg.get("leader") is None else int(msg["leader"])
    error = _error(java, msg.get("error", "NONE"))
    epoch = int(msg["epoch"])
    if kind == "FetchResponse":
        data = _nested(java, "FetchResponse", "PartitionData")()
        _set(data, partitionIndex=0, errorCode=error, logStartOffset=0,
             highWatermark=-1 if msg.get("high_watermark") is None else int(msg["high_watermark"]),
             records=records_of(java, int(msg.get("offset", 0)), list(msg.get("entries") or [])))
        data.currentLeader().setLeaderId(leader).setLeaderEpoch(epoch)
        if msg.get("diverging") is not None:
            d_epoch, d_end = msg["diverging"]
            data.divergingEpoch().setEpoch(int(d_epoch)).setEndOffset(int(d_end))
        topic = _set(_nested(java, "FetchResponse", "FetchableTopicResponse")(), topic=java.tp.topic(),
                     topicId=java.topic_id, partitions=_jlist(java, [data]))
        return _set(java.data["FetchResponse"](), errorCode=0, responses=_jlist(java, [topic]))
    part = _set(_nested(java, kind, "PartitionData")(), partitionIndex=0, errorCode=error, leaderId=leader,
                leaderEpoch=epoch, voteGranted=bool(msg.get("granted", False)))
    topic = _set(_nested(java, kind, "TopicData")(), topicName=java.tp.topic(), partitions=_jlist(java, [part]))
    return _set(java.data[kind](), errorCode=0, topics=_jlist(java, [topic]))


def _api_name(java: _Java, data: Any) -> str:
    # ApiKeys has a public field ``name`` that hides Enum.name(); toString() is the constant's name
    return str(java.ApiKeys.forId(data.apiKey()).toString())


def _dst(req: Any) -> int:
    """An outbound request's destination id (3.8+: a ``Node``)."""
    return int(req.destination().id()) if hasattr(req, "destination") else int(req.destinationId())


def _first_partition(data: Any) -> Any:
    topics = data.responses() if hasattr(data, "responses") else data.topics()
    if topics.isEmpty():
        return None
    parts = topics.get(0).partitions()
    return None if parts.isEmpty() else parts.get(0)


def request_json(java: _Java, src: int, dst: int, data: Any) -> dict[str, Any]:
    """The model JSON of a request Kafka sent."""
    api = _api_name(java, data)
    part = _first_partition(data)
    if api == "VOTE":
        epoch = part.candidateEpoch() if hasattr(part, "candidateEpoch") else part.replicaEpoch()
        pre_vote = bool(part.preVote()) if hasattr(part, "preVote") else False
        return {"type": "VoteRequest", "src": src, "dst": dst, "epoch": int(epoch),
                "last_epoch": int(part.lastOffsetEpoch()), "end_offset": int(part.lastOffset()), "pre_vote": pre_vote}
    if api == "BEGIN_QUORUM_EPOCH":
        return {"type": "BeginQuorumEpochRequest", "src": src, "dst": dst, "epoch": int(part.leaderEpoch())}
    if api == "END_QUORUM_EPOCH":
        preferred = [int(p) for p in part.preferredSuccessors()]
        if not preferred and hasattr(part, "preferredCandidates"):
            preferred = [int(r.candidateId()) for r in part.preferredCandidates()]
        return {"type": "EndQuorumEpochRequest", "src": src, "dst": dst, "epoch": int(part.leaderEpoch()),
                "preferred": preferred}
    if api == "FETCH":
        return {"type": "FetchRequest", "src": src, "dst": dst, "epoch": int(part.currentLeaderEpoch()),
                "fetch_offset": int(part.fetchOffset()), "last_fetched_epoch": int(part.lastFetchedEpoch())}
    return {"type": f"Kafka{api}Request", "src": src, "dst": dst}


def response_json(java: _Java, src: int, dst: int, data: Any, request: dict[str, Any]) -> dict[str, Any]:
    """The model JSON of the response Kafka gave to ``request``."""
    api = _api_name(java, data)
    kind = RESPONSE_OF.get(api, f"Kafka{api}Response")
    part = _first_partition(data)
    if part is None:  # a top-level error only (INCONSISTENT_CLUSTER_ID, INVALID_REQUEST, ...)
        return {"type": kind, "src": src, "dst": dst, "error": str(java.Errors.forCode(data.errorCode()).name())}
    error = str(java.Errors.forCode(part.errorCode()).name())
    if api == "FETCH":
        div = part.divergingEpoch()
        return {"type": kind, "src": src, "dst": dst, "epoch": int(part.currentLeader().leaderEpoch()),
                "leader": _leader(int(part.currentLeader().leaderId())), "error": error,
                "offset": int(request.get("fetch_offset", 0)),
                "entries": [e for _, e in entries_of(java, part.records())] if part.records() is not None else [],
                "high_watermark": None if part.highWatermark() < 0 else int(part.highWatermark()),
                "diverging": [int(div.epoch()), int(div.endOffset())] if int(div.epoch()) >= 0 else None}
    out = {"type": kind, "src": src, "dst": dst, "epoch": int(part.leaderEpoch()),
           "leader": _leader(int(part.leaderId())), "error": error}
    if api == "VOTE":
        out["granted"] = bool(part.voteGranted())
        out["pre_vote"] = bool(request.get("pre_vote", False))
    return out


def answers(request_epoch: int, response: dict[str, Any]) -> bool:
    """Whether ``response`` can be the answer to a request of ``request_epoch``.

    The model's network has no correlation ids, so the adapter infers them: a responder
    answers with its epoch after handling (never below the request's), FENCED_LEADER_EPOCH
    only to a lower request epoch, UNKNOWN_LEADER_EPOCH only to a higher one, and
    NOT_LEADER_OR_FOLLOWER and a Fetch without error only at its own epoch. A response that
    cannot answer the latest request answers an older one, which Kafka no longer expects."""
    epoch, error = int(response["epoch"]), response.get("error", "NONE")
    if error == "FENCED_LEADER_EPOCH":
        return request_epoch < epoch
    if error == "UNKNOWN_LEADER_EPOCH":
        return request_epoch > epoch
    if error == "NOT_LEADER_OR_FOLLOWER" or response["type"] == "FetchResponse":
        return request_epoch == epoch
    return request_epoch <= epoch


# ---------------------------------------------------------------------------- one replica


class KafkaRaftNode:
    """One replica: a ``KafkaRaftClient`` over Kafka's test doubles (see the module docstring)."""

    def __init__(self, java: _Java, node: int, voters: list[int]) -> None:
        self.java = java
        self.id = node
        self.voters = sorted(int(v) for v in voters)
        self.is_voter = node in self.voters
        self.time = java.MockTime()
        self.inner_log = java.MockLog(java.tp, java.topic_id, java.log_context)
        self.log = make_log_proxy(java, self.inner_log)
        self.store = java.MockStore()
        self.down = False
        self.client: Any = None
        self._pick: int | None = None  # the voter an observer's next bootstrap fetch goes to
        self.inbound: list[tuple[Any, dict[str, Any]]] = []
        self.outputs: list[dict[str, Any]] = []
        self._boot()
        self.outputs = []  # what a replica does while it starts is no step of the model

    # -------------------------------------------------------------- construction

    def _random(self) -> Any:
        """A ``MockableRandom`` whose draws the adapter fixes: no election jitter, the largest
        election backoff (never 0), and the voter the adapter picks for a bootstrap fetch."""
        import jpype

        rnd = self.java.random_ctor.newInstance(self.java.boxed(1, "long"))
        # A weak reference: a Java proxy holding its Python object strongly would make a cycle
        # across the JPype boundary that neither garbage collector can free.
        ref = weakref.ref(self)
        voters, optional_int = len(self.voters), self.java.OptionalInt_

        @jpype.JImplements("java.util.function.IntFunction")
        class Draw:
            @jpype.JOverride
            def apply(self, bound: int) -> Any:
                bound = int(bound)
                node = ref()
                if bound == ELECTION_TIMEOUT_MS:
                    value = 0
                elif bound == voters:
                    value = node._start_index() if node is not None else 0
                else:
                    value = bound - 1
                return optional_int.of(value)

        self._draw = Draw()
        self.java.random_fn.set(rnd, self._draw)
        return rnd

    def _start_index(self) -> int:
        """``RequestManager.findReadyVoter`` takes the last ready voter from a random start, so
        starting one past the wanted voter picks it when every voter is ready."""
        if self._pick is None or self.client is None:
            return 0
        order = [v if isinstance(v, int) else int(v.id())
                 for v in self.java.f_voters.get(self.java.f_requests.get(self.client))]
        if self._pick not in order:
            return 0
        return (order.index(self._pick) + (1 if self.java.pick_last else 0)) % len(order)

    def _boot(self) -> None:
        """Build and initialize a client over this replica's log and quorum-state store (a
        start or a restart: the log and the store are the durable part) and poll it quiet."""
        j = self.java
        self.channel = self._channel()
        self.queue = j.MockQueue()
        self.random = self._random()
        self.client = self._construct()
        self._initialize()
        self.quorum = j.f_quorum.get(self.client)
        self.requests = j.f_requests.get(self.client)
        self.reported: dict[tuple[int, str], Any] = {}  # (dst, api) -> the latest reported request
        self.held: dict[int, Any] = {}  # dst -> a Fetch Kafka sent that the model has not sent yet
        self._pick = None
        self._settle()

    def _channel(self) -> Any:
        j = self.java
        try:
            return j.MockChannel()
        except TypeError:  # 3.7: the channel knows the destination ids
            ids = j.jpype.JClass("java.util.HashSet")()
            for v in self.voters:
                ids.add(j.Integer.valueOf(v))
            return j.MockChannel(ids)

    def _construct(self) -> Any:
        """KafkaRaftClient's package-private constructor, argument by argument for the version."""
        j = self.java
        ctor = j.ctor
        names = [str(t.getName()).rsplit(".", 1)[-1] for t in ctor.getParameterTypes()]
        if getattr(self, "metrics", None) is not None:
            self.metrics.close()  # the crashed client's gauges go with it
        self.metrics = j.Metrics(self.time)
        expiration = j.MockExpiration(self.time)
        local = j.OptionalInt.of(self.id)
        args: list[Any] = []
        for name in names:
            if name == "RecordSerde":
                args.append(j.serde)
            elif name == "NetworkChannel":
                args.append(self.channel)
            elif name == "RaftMessageQueue":
                args.append(self.queue)
            elif name == "ReplicatedLog":
                args.append(self.log)
            elif name == "QuorumStateStore":
                args.append(self.store)
            elif name == "MemoryPool":
                args.append(j.MemoryPool.NONE)
            elif name == "Time":
                args.append(self.time)
            elif name == "Metrics":
                args.append(self.metrics)
            elif name == "ExpirationService":
                args.append(expiration)
            elif name == "int":
                args.append(j.boxed(0, "int"))  # fetchMaxWaitMs, the only int: answer at once
            elif name == "boolean":
                args.append(j.boxed(False, "bool"))  # alwaysFlush
            elif name == "String":
                args.append(j.jpype.JString(CLUSTER_ID))
            elif name == "OptionalInt":
                args.append(local)
            elif name == "Uuid":
                args.append(j.Uuid.randomUuid())  # the local directory id
            elif name == "LogContext":
                args.append(j.LogContext(f"[kspec replica {self.id}] "))
            elif name == "Random":
                args.append(self.random)
            elif name == "Collection":
                args.append(j.ArrayList())  # no bootstrap servers: the voters are static
            elif name == "Endpoints":
                args.append(self._endpoints(self.id) if self.is_voter else
                            jvm.jclass(j.version, f"{RAFT}.Endpoints").empty())
            elif name == "SupportedVersionRange":
                args.append(jvm.jclass(j.version, "org.apache.kafka.server.common.Features")
                            .KRAFT_VERSION.supportedVersionRange())
            elif name in ("RaftConfig", "QuorumConfig"):
                args.append(self._config(name))
            else:
                raise TargetError(f"kafka:{j.version}: KafkaRaftClient constructor parameter {name} is unknown "
                                  "to the adapter")
        return ctor.newInstance(*args)

    def _address(self, node: int) -> Any:
        return self.java.InetSocketAddress.createUnresolved("localhost", 9990 + node)

    def _endpoints(self, node: int) -> Any:
        j = self.java
        endpoints = jvm.jclass(j.version, f"{RAFT}.Endpoints")
        m = j.HashMap()
        m.put(j.listener, self._address(node))
        return endpoints.fromInetSocketAddresses(m)

    def _config(self, name: str) -> Any:
        j = self.java
        if name == "RaftConfig":  # 3.7: the voters' addresses are part of the config
            cls = jvm.jclass(j.version, f"{RAFT}.RaftConfig")
            spec = jvm.jclass(j.version, f"{RAFT}.RaftConfig$InetAddressSpec")
            voters = j.HashMap()
            for v in self.voters:
                voters.put(j.Integer.valueOf(v), spec(self._address(v)))
            return cls(voters, REQUEST_TIMEOUT_MS, 0, ELECTION_TIMEOUT_MS, ELECTION_BACKOFF_MAX_MS,
                       FETCH_TIMEOUT_MS, 0)
        cls = jvm.jclass(j.version, f"{RAFT}.QuorumConfig")
        return cls(REQUEST_TIMEOUT_MS, 0, ELECTION_TIMEOUT_MS, ELECTION_BACKOFF_MAX_MS, FETCH_TIMEOUT_MS, 0)

    def _initialize(self) -> None:
        j = self.java
        methods = [m for m in j.Client.class_.getMethods() if str(m.getName()) == "initialize"]
        count = methods[0].getParameterCount() if methods else 0
        if count == 0:
            self.client.initialize()
            return
        voters = j.HashMap()
        for v in self.voters:
            voters.put(j.Integer.valueOf(v), self._address(v))
        if count == 3:
            self.client.initialize(voters, self.store, self.metrics)
            return
        raise TargetError(f"kafka:{j.version}: KafkaRaftClient.initialize takes {count} arguments; "
                          "the adapter knows 0 (3.7) and 3 (3.8, 3.9)")

    # -------------------------------------------------------------- the event loop

    def _settle(self) -> None:
        """Poll until the client is quiet: its queue is empty and a poll sent nothing."""
        for k in range(MAX_POLLS):
            self.client.poll()
            sent = list(self.channel.drainSendQueue())
            for req in sent:
                self._sent(req)
            if k > 0 and not sent and self.queue.isEmpty():
                return
        raise TargetError(f"replica {self.id}: KafkaRaftClient did not settle within {MAX_POLLS} polls")

    def _sent(self, req: Any) -> None:
        """A request Kafka sent: a Fetch is held until FetchDue, anything else is an output."""
        dst = _dst(req)
        api = _api_name(self.java, req.data())
        if api == "FETCH":
            self.held[dst] = req
            return
        self.reported[(dst, api)] = req
        self.outputs.append(request_json(self.java, self.id, dst, req.data()))

    def _expected(self, req: Any) -> bool:
        """Whether Kafka's request manager still awaits ``req`` (package-private, by reflection)."""
        if self.java.m_expected is None:  # 3.8+: public, by node
            return bool(self.requests.isResponseExpected(req.destination(), req.correlationId()))
        conn = self.requests.getOrCreate(_dst(req))
        return bool(self.java.m_expected.invoke(conn, self.java.boxed(req.correlationId(), "long")))

    def _fail(self, req: Any) -> None:
        """Complete an outbound request the way Kafka's network channel does for a lost
        connection (BROKER_NOT_AVAILABLE)."""
        j = self.java
        api = j.ApiKeys.forId(req.data().apiKey())
        data = j.RaftUtil.errorResponse(api, j.Errors.BROKER_NOT_AVAILABLE)
        req.completion.complete(self._response(req.correlationId(), data, req))

    def _fetch_due(self, to: int) -> None:
        """Report Kafka's Fetch to ``to`` (see the module docstring)."""
        for _ in range(3):
            req = self.held.get(to)
            if req is not None and self._expected(req):
                del self.held[to]
                self.reported[(to, "FETCH")] = req
                self.outputs.append(request_json(self.java, self.id, to, req.data()))
                return
            stale = [r for r in [*self.held.values(), *[r for (d, a), r in self.reported.items() if a == "FETCH"]]
                     if self._expected(r)]
            self.held = {}
            if not stale:
                return  # Kafka has no fetch to send now
            for r in stale:
                self._fail(r)
            self._pick = to
            self._settle()

    def _timer(self, kind: str) -> None:
        """Advance the clock to the deadline of the Kafka timer ``kind`` names, if Kafka's state runs it."""
        q, now = self.quorum, int(self.time.milliseconds())
        remaining: int | None = None
        if kind == "ElectionTimeout" and q.isVoter():
            if q.isUnattached():
                remaining = int(q.unattachedStateOrThrow().remainingElectionTimeMs(now))
            elif hasattr(q, "isVoted") and q.isVoted():
                remaining = int(q.votedStateOrThrow().remainingElectionTimeMs(now))
            elif q.isResigned():
                remaining = int(q.resignedStateOrThrow().remainingElectionTimeMs(now))
            elif q.isCandidate() and not q.candidateStateOrThrow().isBackingOff():
                remaining = int(q.candidateStateOrThrow().remainingElectionTimeMs(now))
        elif kind == "BackoffExpired" and q.isCandidate() and q.candidateStateOrThrow().isBackingOff():
            remaining = int(q.candidateStateOrThrow().remainingBackoffMs(now))
        elif kind == "FetchTimeout" and q.isFollower() and q.isVoter():
            remaining = int(q.followerStateOrThrow().remainingFetchTimeMs(now))
        elif kind == "CheckQuorumTimeout" and q.isLeader():
            left = int(q.leaderStateOrThrow().timeUntilCheckQuorumExpires(now))
            remaining = None if left >= 2**62 else left
        if remaining is not None:
            self.time.sleep(max(remaining, 0))

    def _append(self, payload: list[int]) -> None:
        j = self.java
        if not self.quorum.isLeader():
            return  # Kafka: NotLeaderException; the model: nothing
        records = _jlist(j, [j.jpype.JString(encode_payload(payload))])
        epoch = int(self.quorum.epoch())
        if j.has_prepare:
            self.client.prepareAppend(epoch, records)
            self.client.schedulePreparedAppend()
        else:
            self.client.scheduleAppend(epoch, records)

    # -------------------------------------------------------------- state read back

    def election(self) -> tuple[int, int | None, int | None]:
        es = self.store.readElectionState()
        if es is not None and hasattr(es, "isPresent"):  # 3.8+: Optional<ElectionState>
            es = es.get() if es.isPresent() else None
        if es is None:
            return (0, None, None)
        epoch = es.epoch() if callable(es.epoch) else es.epoch
        voted = None
        if es.hasVoted():
            voted = int(es.votedId()) if hasattr(es, "votedId") else int(es.votedKey().id())
        return (int(epoch), voted, _leader(int(es.leaderIdOrSentinel())))

    def log_entries(self) -> list[dict[str, Any]]:
        end = _offset(self.inner_log.endOffset())
        if end == 0:
            return []
        info = self.log.read(0, self.java.Isolation.UNCOMMITTED)
        return [e for _, e in entries_of(self.java, info.records)]

    def role(self) -> str:
        q = self.quorum
        if self.down:
            return "down"
        if q.isLeader():
            return "leader"
        if q.isCandidate():
            return "candidate"
        if q.isFollower():
            return "follower"
        if q.isResigned():
            return "resigned"
        if hasattr(q, "isProspective") and q.isProspective():
            return "prospective"
        if hasattr(q, "isVoted") and q.isVoted():
            return "voted"
        if q.isUnattached():
            # 3.9+: Unattached with a voted key is the model's voted (D-VOTED)
            state = q.unattachedStateOrThrow()
            if hasattr(state, "votedKey") and state.votedKey().isPresent():
                return "voted"
            return "unattached"
        return f"kafka:{q}"

    def observation(self) -> dict[str, JSON]:
        epoch, voted, leader = self.election()
        hw: int | None = None
        if not self.down:
            opt = self.client.highWatermark()
            hw = int(opt.getAsLong()) if opt.isPresent() else None
        return {"role": self.role(), "epoch": epoch if self.down else int(self.quorum.epoch()),
                "leader": leader, "voted_for": voted,
                "log": [[e["epoch"], e["kind"]] for e in self.log_entries()], "high_watermark": hw}

    # -------------------------------------------------------------- the step

    def step(self, inp: JSON) -> StepResult:
        kind = inp["type"]
        before_election, before_log = self.election(), self.log_entries()
        self.outputs, self.inbound = [], []
        if self.down:
            if kind == "Restart":
                self.down = False
                self._boot()
        elif kind == "Crash":
            self.client, self.down = None, True
            self.inner_log.reopen()
        elif kind == "Restart":
            pass
        elif kind.endswith("Request"):
            if kind == "EndQuorumEpochRequest":
                inp = {**inp, "preferred": self._successors(int(inp["src"]))}
            data = build_request(self.java, inp)
            req = self._request(data)
            self.inbound.append((req, inp))
            self.client.handle(req)
            self._settle()
        elif kind.endswith("Response"):
            self._deliver(inp)
            self._settle()
        elif kind == "FetchDue":
            self._settle()
            self._fetch_due(int(inp["to"]))
        elif kind == "ClientAppend":
            self._append(list(inp.get("payload") or []))
            self._settle()
        elif kind in ("ElectionTimeout", "BackoffExpired", "FetchTimeout", "CheckQuorumTimeout"):
            self._timer(kind)
            self._settle()
        else:
            raise TargetError(f"unknown input type {kind!r}")
        outputs = self._effects(before_election, before_log) + self.outputs + self._responses()
        return StepResult(outputs, self.observation())

    def _request_epoch(self, req: Any) -> int:
        return int(request_json(self.java, self.id, _dst(req), req.data())["epoch"])

    def _successors(self, leader: int) -> list[int]:
        """The preferred successors this replica is told: the other voters, itself last.

        The model's EndQuorumEpoch names none (D-CHECK-QUORUM-SUCCESSORS). Kafka shortens the
        receiver's fetch timer by its place in the list, to zero for the first (or for a replica
        not in the list), so a zero timer would start the election inside the delivery step.
        Last place gives a positive timer, which the model's FetchTimeout then fires; Kafka's
        leader orders the list by fetch offset, so every order is one Kafka can send."""
        return [v for v in self.voters if v not in (leader, self.id)] + [self.id]

    def _deliver(self, msg: dict[str, Any]) -> None:
        j = self.java
        src, api = int(msg["src"]), API[msg["type"]]
        data = build_response(j, msg)
        req = self.reported.get((src, api))
        if req is not None and answers(self._request_epoch(req), msg):
            req.completion.complete(self._response(req.correlationId(), data, req))
        else:
            self.queue.add(self._response(-1, data, src))  # nothing asked: Kafka ignores it

    def _response(self, correlation: int, data: Any, source: Any) -> Any:
        """A ``RaftResponse.Inbound`` from ``source`` (an outbound request's destination, or an
        id); 3.8+ names the source by ``Node``."""
        j = self.java
        if j.response_by_node:
            node = source.destination() if not isinstance(source, int) else j.Node(source, "localhost", 9990 + source)
            return j.ResponseInbound(correlation, data, node)
        return j.ResponseInbound(correlation, data, source if isinstance(source, int) else _dst(source))

    def _request(self, data: Any) -> Any:
        """A ``RaftRequest.Inbound`` at the API's latest version (3.9+ also names the listener)."""
        j = self.java
        now = self.time.milliseconds()
        if j.request_with_listener:
            version = j.ApiKeys.forId(data.apiKey()).latestVersion()
            return j.Inbound(j.listener, 0, version, data, now)
        return j.Inbound(0, data, now)

    def _responses(self) -> list[dict[str, Any]]:
        out = []
        for req, msg in self.inbound:
            if req.completion.isDone():
                resp = req.completion.get()
                out.append(response_json(self.java, self.id, int(msg["src"]), resp.data(), msg))
        return out

    def _effects(self, election: tuple[int, int | None, int | None],
                 log: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        now = self.election()
        if now != election:
            out.append({"type": "PersistElection", "epoch": now[0], "voted_for": now[1], "leader": now[2]})
        after = self.log_entries()
        common = 0
        while common < min(len(log), len(after)) and log[common] == after[common]:
            common += 1
        if common < len(log):
            out.append({"type": "TruncateLog", "offset": common})
        if common < len(after):
            out.append({"type": "AppendLog", "offset": common, "entries": after[common:]})
        return out

    def close(self) -> None:
        """Drop every Java object this replica holds, so the JVM frees them even while Python
        keeps this object (Hypothesis may): the client's metrics gauges reach its quorum state
        and the leader's 8 MB batch buffer, which soon fill a 256 MB heap otherwise."""
        if self.metrics is not None:
            self.metrics.close()
        self.client = self.quorum = self.requests = self.channel = self.queue = self.random = None
        self.metrics = self.time = self.log = self.inner_log = self.store = self._draw = None
        self.reported, self.held, self.inbound = {}, {}, []


class KafkaRaftTarget:
    """``kafka:VERSION`` for raft: one :class:`KafkaRaftNode` per replica."""

    protocol = "raft"

    def __init__(self, version: str) -> None:
        vt = check_supported(version)
        jvm.check(version)
        jars = artifacts.resolve(version, ARTIFACTS)
        jvm.ensure(version, jars)
        self.version = version
        self.name = f"kafka:{version}"
        self.java = _Java(version, vt)

    def supports(self, config: dict[str, JSON]) -> bool:
        """The cluster shapes this Kafka can be compared on: no pre-vote before 4.0 (KIP-996
        shipped in 4.0), and more than one voter: a lone voter elects itself inside
        ``initialize()`` as the model's does (RAFT-RULE-LONE-VOTER), but its restart writes the
        quorum-state file twice in one step (candidate, then leader) and this adapter reports
        the store's change per step, one write (see docs/kafka-matrix.md)."""
        return not config.get("pre_vote") and int(config.get("voters", 3)) > 1

    def start(self, node: int, config: dict[str, JSON]) -> KafkaRaftNode:
        return KafkaRaftNode(self.java, int(node), [int(v) for v in config["voters"]])

    def close(self) -> None:
        pass
