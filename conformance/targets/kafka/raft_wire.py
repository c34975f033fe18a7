"""Between the model's JSON messages and Kafka's raft message data, records and logs."""

from __future__ import annotations

import json
from typing import Any

from kspec.conformance.adapters.base import TargetError
from kspec.conformance.targets.kafka import jvm
from kspec.conformance.targets.kafka.raft_java import MSG, RAFT
from kspec.conformance.targets.kafka.raft_java import Java as _Java

CLUSTER_ID = "kspec-raft-cluster"

API = {"VoteRequest": "VOTE", "VoteResponse": "VOTE", "BeginQuorumEpochRequest": "BEGIN_QUORUM_EPOCH",
       "BeginQuorumEpochResponse": "BEGIN_QUORUM_EPOCH", "EndQuorumEpochRequest": "END_QUORUM_EPOCH",
       "EndQuorumEpochResponse": "END_QUORUM_EPOCH", "FetchRequest": "FETCH", "FetchResponse": "FETCH",
       "FetchSnapshotRequest": "FETCH_SNAPSHOT", "FetchSnapshotResponse": "FETCH_SNAPSHOT",
       "DescribeQuorumRequest": "DESCRIBE_QUORUM", "DescribeQuorumResponse": "DESCRIBE_QUORUM"}
REQUEST_OF = {"VOTE": "VoteRequest", "BEGIN_QUORUM_EPOCH": "BeginQuorumEpochRequest",
              "END_QUORUM_EPOCH": "EndQuorumEpochRequest", "FETCH": "FetchRequest",
              "FETCH_SNAPSHOT": "FetchSnapshotRequest", "DESCRIBE_QUORUM": "DescribeQuorumRequest"}
RESPONSE_OF = {"VOTE": "VoteResponse", "BEGIN_QUORUM_EPOCH": "BeginQuorumEpochResponse",
               "END_QUORUM_EPOCH": "EndQuorumEpochResponse", "FETCH": "FetchResponse",
               "FETCH_SNAPSHOT": "FetchSnapshotResponse", "DESCRIBE_QUORUM": "DescribeQuorumResponse"}

# The model's name of the replica's own topic (messages.OWN_TOPIC); any other name is sent as it is.
OWN_TOPIC = "raft"


# KIP-853 control records (the voters replica level): a model directory id d is the Uuid
# (DIRECTORY_UUID_HIGH, d) (as the voters log level, voters.KSPEC_UUID_HIGH) and replica r listens
# on localhost:PORT_BASE+r (as the raft target's addresses).
DIRECTORY_UUID_HIGH = 0x6B73706563
PORT_BASE = 9990


_CONTROL_UTILS: dict[str, Any] = {}


def _control_utils(java: _Java) -> Any:
    """``ControlRecordUtils`` (``common.record.internal`` from 4.3), looked up once per version:
    a failed lookup costs a Java ClassNotFoundException, and every KRaftVersion record read
    (each log read of the voters replica level) asked again."""
    found = _CONTROL_UTILS.get(java.version)
    if found is None:
        try:
            found = jvm.jclass(java.version, "org.apache.kafka.common.record.ControlRecordUtils")
        except TargetError:
            found = jvm.jclass(java.version, "org.apache.kafka.common.record.internal.ControlRecordUtils")
        _CONTROL_UTILS[java.version] = found
    return found


def voters_record(java: _Java, payload: list[int]) -> Any:
    """The ``VotersRecord`` of a model voters payload ``[id1, dir1, id2, dir2, ...]``: each voter
    with its directory Uuid, one endpoint on the replica's listener and kraft.version 0-1."""
    def msg(name: str) -> Any:
        return jvm.jclass(java.version, f"{MSG}.{name}")

    record = msg("VotersRecord")().setVersion(java.jpype.JShort(0))
    for k in range(0, len(payload), 2):
        replica, directory = int(payload[k]), int(payload[k + 1])
        endpoints = msg("VotersRecord$EndpointCollection")()
        endpoints.add(msg("VotersRecord$Endpoint")().setName(java.listener.value()).setHost("localhost")
                      .setPort(PORT_BASE + replica))
        feature = msg("VotersRecord$KRaftVersionFeature")().setMinSupportedVersion(java.jpype.JShort(0)) \
            .setMaxSupportedVersion(java.jpype.JShort(1))
        record.voters().add(msg("VotersRecord$Voter")().setVoterId(replica)
                            .setVoterDirectoryId(java.Uuid(DIRECTORY_UUID_HIGH, directory))
                            .setEndpoints(endpoints).setKRaftVersionFeature(feature))
    return record


def _voters_payload(java: _Java, record: Any) -> list[int]:
    """A VotersRecord as a model payload: ids and directories sorted (directory -1 for a Uuid
    kspec did not make)."""
    msg = _control_utils(java).deserializeVotersRecord(record)
    pairs = []
    for voter in msg.voters():
        u = voter.voterDirectoryId()
        high, low = int(u.getMostSignificantBits()), int(u.getLeastSignificantBits())
        pairs.append((int(voter.voterId()), low if high == DIRECTORY_UUID_HIGH else -1))
    return [x for p in sorted(pairs) for x in p]


def encode_payload(payload: list[int]) -> str:
    """A record value for a model payload: JSON, so never empty (3.8+ refuses an empty record)."""
    return json.dumps([int(p) for p in payload])


def decode_payload(text: str) -> list[int]:
    return [int(p) for p in json.loads(text)] if text else []


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

    def read(self: Any, start: Any, isolation: Any, max_bytes: Any = None) -> Any:
        # 4.3 adds the read's byte limit: passed on as Kafka gave it
        cap = () if max_bytes is None else (max_bytes,)
        end = _offset(self.inner.endOffset())
        first = self.inner.read(start, isolation, *cap)
        parts = [first.records]
        offset = _next_offset(first.records, int(start))
        limit = _offset(self.inner.highWatermark()) if isolation == java.Isolation.COMMITTED else end
        while offset < limit:
            more = self.inner.read(offset, isolation, *cap)
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
    proxy_cls = jpype.JImplements(java.log_interface)(type("KspecLog", (), namespace))
    return proxy_cls(inner)


_STORE_PROXY: dict[str, Any] = {}


def make_store_proxy(java: _Java, inner: Any, on_write: Any) -> Any:
    """A JPype proxy of ``QuorumStateStore`` delegating to ``inner`` (Kafka's
    ``MockQuorumStateStore``) that calls ``on_write()`` after each ``writeElectionState``. One
    proxy class per Kafka version (a class per replica would pile up in the JVM)."""
    import jpype

    proxy_cls = _STORE_PROXY.get(java.version)
    if proxy_cls is None:
        iface = jvm.jclass(java.version, f"{RAFT}.QuorumStateStore")
        namespace: dict[str, Any] = {}
        for name in sorted({str(m.getName()) for m in iface.class_.getMethods()}):
            def delegate(self: Any, *args: Any, _name: str = name) -> Any:
                result = getattr(self.inner, _name)(*args)
                if _name == "writeElectionState":
                    self.on_write()
                return result
            namespace[name] = jpype.JOverride(delegate)

        def init(self: Any, store: Any, callback: Any) -> None:
            self.inner, self.on_write = store, callback

        namespace["__init__"] = init
        proxy_cls = jpype.JImplements(f"{RAFT}.QuorumStateStore")(type("KspecStore", (), namespace))
        _STORE_PROXY[java.version] = proxy_cls
    return proxy_cls(inner, on_write)


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
                if kind == "kraft_voters":  # KIP-853 (the voters replica level)
                    kind, payload = "voters", _voters_payload(java, record)
                elif kind == "kraft_version":
                    payload = [int(_control_utils(java).deserializeKRaftVersionRecord(record).kRaftVersion())]
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
        elif e["kind"] == "voters":
            parts.append(java.MemoryRecords.withVotersRecord(
                at, 0, int(e["epoch"]), java.ByteBuffer.allocate(1024), voters_record(java, list(e["payload"]))))
        elif e["kind"] == "kraft_version":
            kv = jvm.jclass(java.version, f"{MSG}.KRaftVersionRecord")().setVersion(java.jpype.JShort(0)) \
                .setKRaftVersion(java.jpype.JShort(int(e["payload"][0])))
            parts.append(java.MemoryRecords.withKRaftVersionRecord(
                at, 0, int(e["epoch"]), java.ByteBuffer.allocate(256), kv))
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


def _topic_name(java: _Java, name: str) -> str:
    return str(java.tp.topic()) if name == OWN_TOPIC else name


def _fetch_snapshot_request(java: _Java, msg: dict[str, Any]) -> Any:
    """FetchSnapshotRequestData with the model's topic list as it is (RAFT-DRIVE-LEADER-ONLY: no
    topic, two partitions, two topics ...): every partition carries the request's epoch,
    snapshot id and position."""
    end, epoch = (int(x) for x in msg["snapshot_id"])
    topics = []
    for name, partitions in msg["topics"]:
        parts = []
        for index in partitions:
            part = _set(_nested(java, "FetchSnapshotRequest", "PartitionSnapshot")(), partition=int(index),
                        currentLeaderEpoch=int(msg["epoch"]), position=int(msg.get("position", 0)))
            part.snapshotId().setEndOffset(end).setEpoch(epoch)
            parts.append(part)
        topics.append(_set(_nested(java, "FetchSnapshotRequest", "TopicSnapshot")(), name=_topic_name(java, name),
                           partitions=_jlist(java, parts)))
    return _set(java.data["FetchSnapshotRequest"](), clusterId=CLUSTER_ID, replicaId=int(msg["src"]),
                maxBytes=8 * 1024 * 1024, topics=_jlist(java, topics))


def _describe_quorum_request(java: _Java) -> Any:
    """DescribeQuorumRequestData for the replica's own partition (what the admin client sends)."""
    part = _set(_nested(java, "DescribeQuorumRequest", "PartitionData")(), partitionIndex=0)
    topic = _set(_nested(java, "DescribeQuorumRequest", "TopicData")(), topicName=java.tp.topic(),
                 partitions=_jlist(java, [part]))
    return _set(java.data["DescribeQuorumRequest"](), topics=_jlist(java, [topic]))


def build_request(java: _Java, msg: dict[str, Any]) -> Any:
    """The Kafka request data of a model request addressed to this replica."""
    if msg["type"] == "FetchSnapshotRequest":
        return _fetch_snapshot_request(java, msg)
    if msg["type"] == "DescribeQuorumRequest":
        return _describe_quorum_request(java)
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
        data = _set(java.data["FetchRequest"](), clusterId=CLUSTER_ID, maxWaitMs=0, maxBytes=8 * 1024 * 1024,
                    topics=_jlist(java, [topic]))
        try:
            state = _set(_nested(java, "FetchRequest", "ReplicaState")(), replicaId=src)
        except TargetError:  # before 3.5 (KIP-903): the replica id is the request's own field
            return _set(data, replicaId=src)
        return _set(data, replicaState=state)
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


def _fetch_snapshot_response(java: _Java, src: int, dst: int, data: Any) -> dict[str, Any]:
    """A FetchSnapshotResponse as the model's: the top-level error when it has no partition
    (INVALID_REQUEST, INCONSISTENT_CLUSTER_ID), else the partition's error and its current
    leader (-1: none); snapshot bytes are reported by their size (the model never has any)."""
    part = _first_partition(data)
    out: dict[str, Any] = {"type": "FetchSnapshotResponse", "src": src, "dst": dst, "epoch": None, "leader": None}
    if part is None:
        return {**out, "error": str(java.Errors.forCode(data.errorCode()).name())}
    error = str(java.Errors.forCode(part.errorCode()).name())
    out["error"] = error
    if error == "UNKNOWN_TOPIC_OR_PARTITION":
        # the answer for a partition the replica does not hold sets the error alone: its
        # CurrentLeader keeps the schema's defaults (0 and 0, not -1), which say nothing
        return out
    leader = part.currentLeader()
    out.update(epoch=None if int(leader.leaderEpoch()) < 0 else int(leader.leaderEpoch()),
               leader=_leader(int(leader.leaderId())))
    if int(part.size()) > 0:
        out["snapshot_size"] = int(part.size())
    return out


def _describe_quorum_response(java: _Java, src: int, dst: int, data: Any) -> dict[str, Any]:
    """A DescribeQuorumResponse as the model's: an error alone, or the leader's id, epoch, high
    watermark (-1: None) and its voters' log end offsets by id (KIP-836's timestamps, the
    observers and the endpoints are not compared)."""
    part = _first_partition(data)
    out: dict[str, Any] = {"type": "DescribeQuorumResponse", "src": src, "dst": dst, "leader": None, "epoch": None,
                           "high_watermark": None, "voters": []}
    code = int(data.errorCode()) if part is None or int(data.errorCode()) else int(part.errorCode())
    error = str(java.Errors.forCode(code).name())
    if part is None or error != "NONE":
        return {**out, "error": error}
    hw = int(part.highWatermark())
    voters = sorted([int(r.replicaId()), int(r.logEndOffset())] for r in part.currentVoters())
    return {**out, "error": error, "leader": _leader(int(part.leaderId())), "epoch": int(part.leaderEpoch()),
            "high_watermark": None if hw < 0 else hw, "voters": voters}


def response_json(java: _Java, src: int, dst: int, data: Any, request: dict[str, Any]) -> dict[str, Any]:
    """The model JSON of the response Kafka gave to ``request``."""
    api = _api_name(java, data)
    if api == "FETCH_SNAPSHOT":
        return _fetch_snapshot_response(java, src, dst, data)
    if api == "DESCRIBE_QUORUM":
        return _describe_quorum_response(java, src, dst, data)
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


def answers(request: dict[str, Any], response: dict[str, Any]) -> bool:
    """Whether ``response`` can be the answer to ``request`` (both as the model's JSON).

    The model's network has no correlation ids, so the adapter infers them: a responder
    answers with its epoch after handling (never below the request's), FENCED_LEADER_EPOCH
    only to a lower request epoch, UNKNOWN_LEADER_EPOCH only to a higher one, and
    NOT_LEADER_OR_FOLLOWER and a Fetch without error only at its own epoch; a vote answer
    answers a vote of its own kind (a pre-vote's answer a pre-vote, KIP-996: a candidate that
    became prospective in the same epoch sent a pre-vote after its vote, and the vote's late
    answer carries the vote's correlation id, RAFT-DRIVE-HELD-GRANT). A response that cannot
    answer the latest request answers an older one, which Kafka no longer expects."""
    if response["type"] == "VoteResponse" and bool(request.get("pre_vote", False)) != bool(
            response.get("pre_vote", False)):
        return False
    request_epoch = int(request["epoch"])
    epoch, error = int(response["epoch"]), response.get("error", "NONE")
    if error == "FENCED_LEADER_EPOCH":
        return request_epoch < epoch
    if error == "UNKNOWN_LEADER_EPOCH":
        return request_epoch > epoch
    if error == "NOT_LEADER_OR_FOLLOWER" or response["type"] == "FetchResponse":
        return request_epoch == epoch
    return request_epoch <= epoch


# ---------------------------------------------------------------------------- one replica


