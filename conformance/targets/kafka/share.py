"""``kafka:VERSION`` for share: Kafka's own ``ShareCoordinatorShard`` (kafka-share-coordinator,
Kafka 4.0 and later) behind the node-level interface, doing what ``CoordinatorRuntime`` does
around a shard and no more.

- A request becomes the request data class Kafka's service hands the shard for one key
  (``WriteShareGroupStateRequestData`` ... with one topic and one partition), goes to the
  shard's handler (``writeState``, ``readStateAndMaybeUpdateLeaderEpoch``, and from 4.1
  ``initializeState``, ``deleteState``, ``readStateSummary``), and the records of its
  ``CoordinatorResult`` are replayed into the shard at the next log offsets, as the runtime
  does after appending them. Outputs are the records then the response, in the model's JSON.
- ``Unload``: ``onUnloaded()``; until the next ``Load`` the adapter answers
  COORDINATOR_NOT_AVAILABLE as ``ShareCoordinatorService`` does for a partition it does not host.
- ``Load``: a fresh shard from the Builder, ``onLoaded`` and the metadata image, then every
  record the shard's handlers wrote replayed in order (fail-over); the input's records (the
  model's log) only when this adapter has written none (a replayed counterexample).
- A request Kafka 4.0 has no API for (initialize, delete, read-summary) gets UNSUPPORTED_VERSION,
  as a 4.0 broker's ApiVersions tells a client; the target also declares the ``initialize``,
  ``delete`` and ``summary`` categories unsupported, so the lockstep never draws them.

The model runs with this version's rules (``model_config``: ``kafka_version``; spec/share.md,
"Versions"). From 4.2 the shard takes a ``CoordinatorMetadataImage`` (Kafka's KRaft wrapper of
the ``MetadataImage``), and from 4.3 its ``onNewMetadataImage`` became ``onMetadataUpdate``.
- Observation: the shard's four timeline maps (read through reflection: they are private),
  shaped as ``kspec.model.share.shard.observe``, and ``lastRedundantOffset()`` (public: what the
  runtime's log pruning asks), over the adapter's replay offsets 0, 1, ... (the model's log
  positions).
- ``FindCoordinatorRequest``: what the broker's FindCoordinator does for key type SHARE
  (``KafkaApis``, which the adapter does not run): the requester's key string
  (``SharePartitionKey.asCoordinatorKey``), ``SharePartitionKey.validate`` and
  ``getInstance(String)`` (the parse, SHARE-RULE-KEY-PARSE; an ``IllegalArgumentException`` is
  INVALID_REQUEST, KafkaApis's answer since apache/kafka#19272: 4.0.x's answered
  UNKNOWN_SERVER_ERROR), then ``ShareCoordinatorService.partitionFor`` of the key parsed, on a
  service built with nothing but its partition count (Kafka's default
  ``share.coordinator.state.topic.num.partitions``). Answered whether the shard is loaded or not.
- KIP-1226's delivery-complete count (4.2+): passed in a write (WriteShareGroupState v1) and read
  from the records, the read-summary answer (v1) and the stored ``ShareGroupOffset``. A release
  without it (4.0, 4.1) has no such field: the adapter ignores a write's count and reports -1,
  what a 4.2 reader decodes from a record without the tagged field.

Topic ids are strings in the model and ``Uuid`` in Kafka: each string maps to a fixed Uuid
(from its MD5), and back; a string that is a Uuid's own string form maps to that Uuid (the
FindCoordinator probes' topic id, which the broker parses as a Uuid).
"""

from __future__ import annotations

import hashlib
from typing import Any

from kspec.conformance.adapters.base import JSON, StepResult, Target, TargetError
from kspec.conformance.targets.kafka import artifacts, jvm
from kspec.model.share.shard import MESSAGE_OF, UNSUPPORTED_VERSION
from kspec.model.share.versions import Rules, minor_of, rules_of

ARTIFACTS = ["kafka-share-coordinator"]
PKG = "org.apache.kafka.coordinator.share"
MSG = "org.apache.kafka.common.message"

RESPONSE_OF = {"WriteRequest": "WriteResponse", "ReadRequest": "ReadResponse",
               "InitializeRequest": "InitializeResponse", "DeleteRequest": "DeleteResponse",
               "ReadSummaryRequest": "ReadSummaryResponse"}
# request type -> (shard method, request data class, topic data class, partition data class)
HANDLERS = {
    "WriteRequest": ("writeState", "WriteShareGroupStateRequestData", "WriteStateData", "PartitionData"),
    "ReadRequest": ("readStateAndMaybeUpdateLeaderEpoch", "ReadShareGroupStateRequestData", "ReadStateData",
                    "PartitionData"),
    "InitializeRequest": ("initializeState", "InitializeShareGroupStateRequestData", "InitializeStateData",
                          "PartitionData"),
    "DeleteRequest": ("deleteState", "DeleteShareGroupStateRequestData", "DeleteStateData", "PartitionData"),
    "ReadSummaryRequest": ("readStateSummary", "ReadShareGroupStateSummaryRequestData", "ReadStateSummaryData",
                           "PartitionData"),
}
MAPS = {"offsets": "shareStateMap", "leader": "leaderEpochMap", "state": "stateEpochMap",
        "count": "snapshotUpdateCount"}


class _Java(jvm.JavaClasses):
    """The Kafka classes the adapter uses, looked up once."""

    def __init__(self, version: str) -> None:
        super().__init__(version)
        jpype = self.jpype
        c = self.c
        self.Shard = c(f"{PKG}.ShareCoordinatorShard")
        self.Builder = c(f"{PKG}.ShareCoordinatorShard$Builder")
        self.Config = c(f"{PKG}.ShareCoordinatorConfig")
        self.Metrics = c(f"{PKG}.metrics.ShareCoordinatorMetrics")
        self.Helpers = c(f"{PKG}.ShareCoordinatorRecordHelpers")
        self.Offset = c(f"{PKG}.ShareGroupOffset")
        self.OffsetBuilder = c(f"{PKG}.ShareGroupOffset$Builder")
        self.PersisterStateBatch = c("org.apache.kafka.server.share.persister.PersisterStateBatch")
        self.AbstractConfig = c("org.apache.kafka.common.config.AbstractConfig")
        self.SnapshotRegistry = c("org.apache.kafka.timeline.SnapshotRegistry")
        self.LogContext = self.log_context_class()
        self.TopicPartition = c("org.apache.kafka.common.TopicPartition")
        self.Uuid = c("org.apache.kafka.common.Uuid")
        self.Errors = c("org.apache.kafka.common.protocol.Errors")
        self.MetadataDelta = c("org.apache.kafka.image.MetadataDelta")
        self.MetadataImage = c("org.apache.kafka.image.MetadataImage")
        try:
            self.MetadataDeltaBuilder: Any = c("org.apache.kafka.image.MetadataDelta$Builder")
        except TargetError:  # before 4.3: the public constructor MetadataDelta(image)
            self.MetadataDeltaBuilder = None
        self.MetadataProvenance = c("org.apache.kafka.image.MetadataProvenance")
        self.TopicRecord = c("org.apache.kafka.common.metadata.TopicRecord")
        self.PartitionRecord = c("org.apache.kafka.common.metadata.PartitionRecord")
        self.HashMap = c("java.util.HashMap")
        self.ArrayList = c("java.util.ArrayList")
        self.Integer = c("java.lang.Integer")
        self.Short = jpype.JShort
        self.Byte = jpype.JByte
        self.Long = jpype.JLong
        self.has_initialize = self.has_method(self.Shard, "initializeState")
        # KIP-1226 (4.2+): ShareGroupOffset, the records and WriteShareGroupState v1 carry the count.
        self.has_count = self.has_method(self.Offset, "deliveryCompleteCount")
        update_helper = ("newShareUpdateRecord" if self.has_method(self.Helpers, "newShareUpdateRecord")
                         else "newShareSnapshotUpdateRecord")
        self.new_update_record = getattr(self.Helpers, update_helper)
        # 4.2+: the shard sees the metadata through CoordinatorMetadataImage / -Delta.
        runtime = "org.apache.kafka.coordinator.common.runtime"
        self.wrap_image = any(str(t.getName()).endswith("CoordinatorMetadataImage")
                              for m in self.Shard.class_.getMethods() if str(m.getName()) == "onLoaded"
                              for t in m.getParameterTypes())
        if self.wrap_image:
            self.KRaftImage = c(f"{runtime}.KRaftCoordinatorMetadataImage")
            self.KRaftDelta = c(f"{runtime}.KRaftCoordinatorMetadataDelta")
        self.has_metadata_update = self.has_method(self.Shard, "onMetadataUpdate")

        self.SharePartitionKey = c("org.apache.kafka.server.share.SharePartitionKey")
        self.IllegalArgument = c("java.lang.IllegalArgumentException")
        self._service: Any = None
        self.WriteBatch = c(f"{MSG}.WriteShareGroupStateRequestData$StateBatch")
        self._requests: dict[str, tuple[str, Any, Any, Any]] = {}
        # The shard's private timeline maps, read for the observation (reflection, once).
        self.fields: dict[str, Any] = {name: self.field(self.Shard, field) for name, field in MAPS.items()}

    def coordinator_service(self, partitions: int) -> Any:
        """A ``ShareCoordinatorService`` good for ``partitionFor`` only: built with a LogContext and
        nothing else (its constructor only stores its arguments), its partition count and
        ``isActive`` set as ``startup`` sets them (reflection: both are private)."""
        if self._service is None:
            service = self.c(f"{PKG}.ShareCoordinatorService")
            ctor = next((k for k in service.class_.getConstructors()
                         if str(k.getParameterTypes()[0].getName()) == str(self.LogContext.class_.getName())), None)
            if ctor is None:
                raise TargetError(f"kafka:{self.version}: no ShareCoordinatorService constructor takes "
                                  f"{self.LogContext.class_.getName()}")
            args = [self.LogContext()] + [None] * (ctor.getParameterCount() - 1)
            self._service = ctor.newInstance(*args)
            self.field(service, "numPartitions").setInt(self._service, partitions)
            self.field(service, "isActive").get(self._service).set(True)
        return self._service

    def request_classes(self, kind: str) -> tuple[str, Any, Any, Any]:
        """(shard method, request data class, topic data class, partition data class) of ``kind``."""
        if kind not in self._requests:
            method, data, topic, part = HANDLERS[kind]
            if kind != "WriteRequest" and kind != "ReadRequest" and not self.has_initialize:
                raise TargetError(f"kafka:{self.version}: ShareCoordinatorShard has no {method} "
                                  f"({kind} needs Kafka 4.1 or later)")
            self._requests[kind] = (method, self.c(f"{MSG}.{data}"), self.c(f"{MSG}.{data}${topic}"),
                                    self.c(f"{MSG}.{data}${part}"))
        return self._requests[kind]


class TopicIds:
    """Model topic id strings <-> Kafka Uuids (fixed, from the string's MD5)."""

    def __init__(self, java: _Java) -> None:
        self.java = java
        self.to_uuid: dict[str, Any] = {}
        self.to_name: dict[str, str] = {}

    def uuid(self, name: str | None) -> Any:
        if name is None:
            return None
        if name not in self.to_uuid:
            u = self._as_uuid(name)
            if u is None:
                digest = hashlib.md5(name.encode()).digest()
                most = int.from_bytes(digest[:8], "big", signed=True)
                least = int.from_bytes(digest[8:], "big", signed=True)
                u = self.java.Uuid(most, least)
            self.to_uuid[name] = u
            self.to_name[str(u)] = name
        return self.to_uuid[name]

    def _as_uuid(self, name: str) -> Any:
        """The Uuid whose string form ``name`` is, or None."""
        if len(name) != 22:
            return None
        try:
            u = self.java.Uuid.fromString(name)
        except Exception:
            return None
        return u if str(u) == name else None

    def name(self, uuid: Any) -> str | None:
        if uuid is None:
            return None
        text = str(uuid)
        if text not in self.to_name:
            raise TargetError(f"Kafka answered with topic id {text}, which no input named")
        return self.to_name[text]


class KafkaShareShard:
    """One ShareCoordinatorShard and the runtime duties around it (see the module docstring)."""

    def __init__(self, java: _Java, snapshot_limit: int, image: list[list[Any]] | None) -> None:
        self.java = java
        self.topics = TopicIds(java)
        self.snapshot_limit = snapshot_limit
        props = java.HashMap()
        props.put(java.Config.SNAPSHOT_UPDATE_RECORDS_PER_SNAPSHOT_CONFIG, str(snapshot_limit))
        try:
            self.config = java.Config(java.AbstractConfig(java.Config.CONFIG_DEF, props))
        except Exception as err:
            raise TargetError(f"kafka:{java.version}: share coordinator config with snapshot limit "
                              f"{snapshot_limit} refused: {err}") from None
        self.image = None if image is None else self._image(image)
        self.metrics = java.Metrics()
        self.next_offset = 0
        # __share_group_state partition 0: (offset, record) of every record replayed, in order
        # (from the log start offset: a pruned load drops the records below it).
        self.log: list[tuple[int, Any]] = []
        self.shard: Any = None
        self.active = True
        self._new_shard()

    def _image(self, image: list[list[Any]]) -> Any:
        j = self.java
        delta = self._delta(j.MetadataImage.EMPTY)
        for topic in sorted({str(t) for t, _ in image}):
            delta.replay(j.TopicRecord().setName(topic).setTopicId(self.topics.uuid(topic)))
        replicas = j.ArrayList()
        replicas.add(j.Integer.valueOf(1))
        for topic, partition in image:
            delta.replay(j.PartitionRecord().setTopicId(self.topics.uuid(str(topic))).setPartitionId(int(partition))
                         .setReplicas(replicas).setIsr(replicas).setLeader(1).setLeaderEpoch(0)
                         .setPartitionEpoch(0))
        return delta.apply(j.MetadataProvenance.EMPTY)

    def _delta(self, image: Any) -> Any:
        """A MetadataDelta on ``image`` (4.3 builds it with MetadataDelta.Builder)."""
        j = self.java
        if j.MetadataDeltaBuilder is not None:
            return j.MetadataDeltaBuilder().setImage(image).build()
        return j.MetadataDelta(image)

    def _new_shard(self) -> None:
        j = self.java
        registry = j.SnapshotRegistry(j.LogContext())
        builder = (j.Builder(self.config).withSnapshotRegistry(registry).withLogContext(j.LogContext())
                   .withCoordinatorMetrics(self.metrics)
                   .withTopicPartition(j.TopicPartition("__share_group_state", 0)))
        if hasattr(builder, "withTime"):
            builder = builder.withTime(j.jpype.JClass("org.apache.kafka.common.utils.Time").SYSTEM)
        self.shard = builder.build()
        self.next_offset = 0
        self.log = []
        image = j.MetadataImage.EMPTY if self.image is None else self.image
        if j.wrap_image:
            image = j.KRaftImage(image)
        # onLoaded gets the image (EMPTY when there is none): 4.2+ keeps it, earlier releases
        # take it from onNewMetadataImage.
        self.shard.onLoaded(image)
        if self.image is not None:
            self._publish(self.image)

    def _publish(self, image: Any) -> None:
        """Hand the shard a new metadata image, as the runtime does on every metadata update."""
        j = self.java
        delta = self._delta(image)
        if j.wrap_image:
            image, delta = j.KRaftImage(image), j.KRaftDelta(delta)
        if j.has_metadata_update:
            self.shard.onMetadataUpdate(delta, image)
        else:
            self.shard.onNewMetadataImage(image, delta)

    def update_image(self, image: list[list[Any]]) -> None:
        """``MetadataUpdate``: the image changes (a topic deleted, or a partition created:
        SHARE-DRIVE-PARTITION-ADDED); the input holds the whole new image, which is built afresh
        either way; an unloaded shard gets it at its next Load."""
        self.image = self._image(image)
        if self.active:
            self._publish(self.image)

    # -------------------------------------------------------------- records

    def replay(self, record: Any) -> None:
        """Replay one CoordinatorRecord at the next offset of the coordinator partition (and keep
        it in the partition's log)."""
        j = self.java
        self.log.append((self.next_offset, record))
        self.shard.replay(j.Long(self.next_offset), j.Long(-1), j.Short(-1), record)
        self.next_offset += 1

    def record_in(self, rec: dict[str, Any]) -> Any:
        """A model record (JSON) as Kafka's CoordinatorRecord."""
        j = self.java
        key = rec["key"]
        group, topic, partition = key["group_id"], self.topics.uuid(key["topic_id"]), int(key["partition"])
        kind = rec.get("type")
        if kind == "ShareTombstone":
            if not hasattr(j.Helpers, "newShareStateTombstoneRecord"):
                raise TargetError(f"kafka:{j.version} has no share state tombstone record (4.1+)")
            return j.Helpers.newShareStateTombstoneRecord(group, topic, partition)
        batches = j.ArrayList()
        for b in rec["state_batches"]:
            batches.add(j.PersisterStateBatch(j.Long(b["first_offset"]), j.Long(b["last_offset"]),
                                              j.Byte(b["delivery_state"]), j.Short(b["delivery_count"])))
        builder = (j.OffsetBuilder().setSnapshotEpoch(int(rec["snapshot_epoch"]))
                   .setLeaderEpoch(int(rec["leader_epoch"])).setStartOffset(j.Long(rec["start_offset"]))
                   .setStateBatches(batches))
        if j.has_count:
            builder = builder.setDeliveryCompleteCount(int(rec.get("delivery_complete_count", -1)))
        if kind == "ShareSnapshot":
            offset = builder.setStateEpoch(int(rec["state_epoch"])).build()
            return j.Helpers.newShareSnapshotRecord(group, topic, partition, offset)
        if kind == "ShareUpdate":
            return j.new_update_record(group, topic, partition, builder.build())
        raise TargetError(f"unknown record type {kind!r}")

    def record_out(self, record: Any) -> dict[str, Any]:
        """Kafka's CoordinatorRecord in the model's JSON."""
        key_msg = _message(record.key())
        value = record.value()
        key = {"type": "SharePartitionKey", "group_id": str(key_msg.groupId()),
               "topic_id": self.topics.name(key_msg.topicId()), "partition": int(key_msg.partition())}
        if value is None:
            return {"type": "ShareTombstone", "key": key}
        msg = _message(value)
        name = str(msg.getClass().getSimpleName())
        batches = [{"type": "StateBatch", "first_offset": int(b.firstOffset()), "last_offset": int(b.lastOffset()),
                    "delivery_state": int(b.deliveryState()), "delivery_count": int(b.deliveryCount())}
                   for b in msg.stateBatches()]
        count = int(msg.deliveryCompleteCount()) if self.java.has_count else -1
        if name == "ShareSnapshotValue":
            return {"type": "ShareSnapshot", "key": key, "snapshot_epoch": int(msg.snapshotEpoch()),
                    "state_epoch": int(msg.stateEpoch()), "leader_epoch": int(msg.leaderEpoch()),
                    "start_offset": int(msg.startOffset()), "state_batches": batches,
                    "delivery_complete_count": count}
        if name == "ShareUpdateValue":
            return {"type": "ShareUpdate", "key": key, "snapshot_epoch": int(msg.snapshotEpoch()),
                    "leader_epoch": int(msg.leaderEpoch()), "start_offset": int(msg.startOffset()),
                    "state_batches": batches, "delivery_complete_count": count}
        raise TargetError(f"ShareCoordinatorShard produced an unexpected record value {name}")

    # -------------------------------------------------------------- requests

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        kind = inp.get("type")
        if kind == "Unload":
            self.shard.onUnloaded()
            self.active = False
            return []
        if kind == "MetadataUpdate":
            self.update_image(inp.get("image") or [])
            return []
        if kind == "Load":
            # Fail-over replays the partition's log: the records this shard's handlers wrote
            # (Kafka's own), so what they rebuild is compared with the model's state. A log
            # this adapter did not write (a replayed counterexample's first Load) comes from
            # the input. Records below ``log_start_offset`` were deleted by the runtime's pruning
            # (``deleteRecords`` up to ``lastRedundantOffset()``): what is left is replayed at its
            # own offsets, as after a real fail-over (SHARE-RULE-PRUNE-INVISIBLE).
            start = int(inp.get("log_start_offset") or 0)
            log = list(self.log) if self.log or not inp.get("records") else \
                [(at, self.record_in(rec)) for at, rec in enumerate(inp.get("records", []))]
            self._new_shard()
            self.active = True
            self.next_offset = start
            for at, record in log:
                if at >= start:
                    self.next_offset = at
                    self.replay(record)
            return []
        if kind == "FindCoordinatorRequest":
            return [self.find_coordinator(inp)]
        if kind not in RESPONSE_OF:
            raise TargetError(f"unknown input type {kind!r}")
        if not self.active:
            err = self.java.Errors.COORDINATOR_NOT_AVAILABLE
            return [self._response(inp, str(err.name()), str(err.message()))]
        if kind not in ("WriteRequest", "ReadRequest") and not self.java.has_initialize:
            # Kafka 4.0 has no such API: its broker answers UNSUPPORTED_VERSION (SHARE-VER-INITIALIZE).
            return [self._response(inp, UNSUPPORTED_VERSION, MESSAGE_OF[UNSUPPORTED_VERSION])]
        method, data_cls, topic_cls, part_cls = self.java.request_classes(kind)
        part = part_cls().setPartition(int(inp["partition"]))
        if "leader_epoch" in inp:
            part = part.setLeaderEpoch(int(inp["leader_epoch"]))
        if "state_epoch" in inp:
            part = part.setStateEpoch(int(inp["state_epoch"]))
        if "start_offset" in inp:
            part = part.setStartOffset(self.java.Long(inp["start_offset"]))
        if kind == "WriteRequest":
            batch_cls = self.java.WriteBatch
            batches = self.java.ArrayList()
            for b in inp["state_batches"]:
                batches.add(batch_cls().setFirstOffset(self.java.Long(b["first_offset"]))
                            .setLastOffset(self.java.Long(b["last_offset"]))
                            .setDeliveryState(self.java.Byte(b["delivery_state"]))
                            .setDeliveryCount(self.java.Short(b["delivery_count"])))
            part = part.setStateBatches(batches)
            if self.java.has_count:  # WriteShareGroupState v1 (KIP-1226); 4.0 and 4.1 have no such field
                part = part.setDeliveryCompleteCount(int(inp.get("delivery_complete_count", -1)))
        parts = self.java.ArrayList()
        parts.add(part)
        topic = topic_cls().setTopicId(self.topics.uuid(inp["topic_id"])).setPartitions(parts)
        topics = self.java.ArrayList()
        topics.add(topic)
        request = data_cls().setGroupId(str(inp["group_id"])).setTopics(topics)
        try:
            result = getattr(self.shard, method)(request)
        except Exception as err:
            raise TargetError(f"ShareCoordinatorShard.{method} raised {type(err).__name__}: {err}") from None
        records = list(result.records())
        outputs = [self.record_out(r) for r in records]
        for r in records:
            self.replay(r)
        return [*outputs, self._response_out(kind, inp, result.response())]

    def find_coordinator(self, inp: dict[str, Any]) -> dict[str, Any]:
        """FindCoordinator, key type SHARE, as the broker answers it (module docstring)."""
        j = self.java
        out: dict[str, Any] = {"type": "FindCoordinatorResponse", "topic_id": inp["topic_id"],
                               "partition": inp["partition"], "error": "NONE", "message": "", "coordinator": -1}
        key = j.SharePartitionKey.asCoordinatorKey(str(inp["group_id"]), self.topics.uuid(inp["topic_id"]),
                                                   int(inp["partition"]))
        try:
            j.SharePartitionKey.validate(key)
            parsed = j.SharePartitionKey.getInstance(key)
        except j.IllegalArgument as err:
            return {**out, "error": "INVALID_REQUEST", "message": str(err.getMessage())}
        service = j.coordinator_service(int(self.config.shareCoordinatorStateTopicNumPartitions()))
        return {**out, "coordinator": int(service.partitionFor(parsed))}

    def _response(self, inp: dict[str, Any], error: str = "NONE", message: str = "",
                  **fields: Any) -> dict[str, Any]:
        kind = RESPONSE_OF[str(inp["type"])]
        out: dict[str, Any] = {"type": kind, "topic_id": inp["topic_id"], "partition": inp["partition"],
                               "error": error, "message": message}
        if kind == "ReadResponse":
            out.update(state_epoch=0, start_offset=-1, state_batches=[])
        elif kind == "ReadSummaryResponse":
            out.update(state_epoch=0, leader_epoch=0, start_offset=-1, delivery_complete_count=-1)
        out.update(fields)
        return out

    def _response_out(self, kind: str, inp: dict[str, Any], data: Any) -> dict[str, Any]:
        results = list(data.results())
        if len(results) != 1 or len(list(results[0].partitions())) != 1:
            raise TargetError(f"{kind}: Kafka answered {len(results)} topics, expected one topic and one partition")
        topic = results[0]
        p = next(iter(topic.partitions()))
        error = str(self.java.Errors.forCode(p.errorCode()).name())
        message = "" if p.errorMessage() is None else str(p.errorMessage())
        out: dict[str, Any] = {"type": RESPONSE_OF[kind], "topic_id": self.topics.name(topic.topicId()),
               "partition": int(p.partition()), "error": error, "message": message}
        if kind == "ReadRequest":
            out.update(state_epoch=int(p.stateEpoch()), start_offset=int(p.startOffset()),
                       state_batches=[{"type": "StateBatch", "first_offset": int(b.firstOffset()),
                                       "last_offset": int(b.lastOffset()), "delivery_state": int(b.deliveryState()),
                                       "delivery_count": int(b.deliveryCount())} for b in p.stateBatches()])
        elif kind == "ReadSummaryRequest":
            out.update(state_epoch=int(p.stateEpoch()), leader_epoch=int(p.leaderEpoch()),
                       start_offset=int(p.startOffset()),
                       delivery_complete_count=int(p.deliveryCompleteCount()) if self.java.has_count else -1)
        return out

    # -------------------------------------------------------------- observation

    def observation(self) -> dict[str, JSON]:
        maps = {name: f.get(self.shard) for name, f in self.java.fields.items()}
        entries: dict[tuple[str, str, int], dict[str, Any]] = {}
        for name, table in maps.items():
            for e in table.entrySet():
                k = e.getKey()
                key = (str(k.groupId()), self.topics.name(k.topicId()) or "", int(k.partition()))
                entries.setdefault(key, {})[name] = e.getValue()
        parts: dict[str, Any] = {}
        for key in sorted(entries):
            row = entries[key]
            off = row.get("offsets")
            parts[f"{key[0]}:{key[1]}:{key[2]}"] = {
                "offset": None if off is None else {
                    "snapshot_epoch": int(off.snapshotEpoch()), "state_epoch": int(off.stateEpoch()),
                    "leader_epoch": int(off.leaderEpoch()), "start_offset": int(off.startOffset()),
                    "state_batches": [[int(b.firstOffset()), int(b.lastOffset()), int(b.deliveryState()),
                                       int(b.deliveryCount())] for b in off.stateBatches()],
                    "delivery_complete_count": int(off.deliveryCompleteCount()) if self.java.has_count else -1,
                },
                "leader_epoch_fence": _int_or_none(row.get("leader")),
                "state_epoch_fence": _int_or_none(row.get("state")),
                "update_count": _int_or_none(row.get("count")),
            }
        # SHARE-RULE-REDUNDANT-OFFSET: what the runtime's log pruning asks the shard (every release).
        redundant = self.shard.lastRedundantOffset().response()
        return {"active": self.active, "partitions": parts,
                "redundant_offset": int(redundant.get()) if redundant.isPresent() else None}


def _message(api_message_and_version: Any) -> Any:
    # 4.0: CoordinatorRecord.key() is an ApiMessageAndVersion; later versions may hand the
    # ApiMessage itself.
    return api_message_and_version.message() if hasattr(api_message_and_version, "message") \
        else api_message_and_version


def _int_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


class ShareInstance:
    """The adapter of one shard to the node-level interface."""

    def __init__(self, shard: KafkaShareShard) -> None:
        self.shard = shard

    def step(self, inp: JSON) -> StepResult:
        if not isinstance(inp, dict):
            raise TargetError(f"share input must be an object, got {inp!r}")
        return StepResult(self.shard.step(inp), self.shard.observation())

    def close(self) -> None:
        if self.shard.active:
            self.shard.shard.onUnloaded()


class KafkaShareTarget(Target):
    """The share target of one Kafka version (4.0.0 or later).

    ``model_config`` makes the lockstep run the model with this release's rules; ``unsupported``
    leaves out the initialize, delete and summary categories on 4.0, which has no
    InitializeShareGroupState, DeleteShareGroupState or ReadShareGroupStateSummary.
    """

    protocol = "share"

    def __init__(self, version: str, jars: list[Any] | None = None) -> None:
        self.version = artifacts.check_version(version)
        self.name = f"kafka:{version}"
        if int(version.split(".")[0]) < 4:
            raise TargetError(f"kafka:{version}: the share coordinator ships from Kafka 4.0.0 (KIP-932)")
        try:
            self.rules: Rules = rules_of(minor_of(version))
        except ValueError as err:
            raise TargetError(f"kafka:{version}: {err}") from None
        # Every release's shard answers lastRedundantOffset(): compared (SHARE-OBS-REDUNDANT-OFFSET).
        self.model_config: dict[str, JSON] = {"kafka_version": self.rules.version, "redundant_offset": True,
                                              "routing": True}
        # Kafka 4.0's shard has no initializeState, deleteState or readStateSummary (the methods
        # and their request classes arrive in 4.1): the driver's categories for them are not drawn.
        self.unsupported = frozenset() if self.rules.initialize else frozenset({"initialize", "delete", "summary"})
        jvm.check(version)
        jvm.ensure(version, jars if jars is not None else artifacts.resolve(version, ARTIFACTS))
        self.java = _Java(version)

    def start(self, node: int, config: dict[str, JSON]) -> ShareInstance:
        wanted = config.get("kafka_version")
        if wanted is not None and wanted != self.rules.version:
            raise TargetError(f"kafka:{self.version}: the model runs Kafka {wanted}'s share rules, this target "
                              f"is {self.rules.version} (pass kafka_version={self.rules.version})")
        return ShareInstance(KafkaShareShard(self.java, int(config.get("snapshot_limit", 500)),
                                             config.get("image")))

    def close(self) -> None:
        """Nothing to release: the JVM lives as long as the process (JPype cannot restart it)."""
