"""``kafka:VERSION`` for voters, at the **log** level: Kafka's own control-record state machine
(``org.apache.kafka.raft.internals.KRaftControlRecordStateMachine`` over ``VoterSetHistory``,
kafka-raft 3.8 and later) reading one replica's log — Kafka's ``MockLog`` from the kafka-raft
test jar — the way ``KafkaRaftClient`` drives it (spec/adapter-protocol.md, section voters).

- **start**: a ``MockLog``; with a bootstrap checkpoint, snapshot ``0-0`` written by Kafka's
  ``RecordsSnapshotWriter`` with the KRaftVersionRecord and VotersRecord (what ``kafka-storage
  format --initial-controllers`` writes, 3.9+); then a state machine over the static voter set
  and ``updateState()`` (``KafkaRaftClient.initialize``).
- **Append**: one batch per record, built by Kafka (``MemoryRecords.withKRaftVersionRecord`` /
  ``withVotersRecord`` of ``VoterSet.toVotersRecord`` / ``withLeaderChangeMessage`` /
  ``withRecords``), appended with ``appendAsFollower`` and flushed, then ``updateState()``
  (``KafkaRaftClient.appendAsFollower``). One record per batch keeps every offset batch-aligned,
  which ``MockLog.createNewSnapshot`` demands of a snapshot id.
- **Truncate**: ``log.truncateTo(N)`` then ``truncateNewEntries(N)``, exactly what the client
  does on a diverging epoch (no ``updateState()`` until the next append).
- **Snapshot**: ``KafkaRaftClient.createSnapshot``: the high watermark is moved to N (the model
  snapshots at most at its high watermark), ``log.createNewSnapshot(N, epoch at N-1)``, a
  ``RecordsSnapshotWriter`` with ``kraftVersionAtOffset(N-1)`` and ``voterSetAtOffset(N-1)``
  wrapped in Kafka's ``NotifyingRawSnapshotWriter`` whose freeze calls
  ``truncateOldEntries(snapshotId.offset())`` — as the client does, with the snapshot id's offset.
  Output: ``SnapshotWritten`` with the snapshot read back by Kafka's ``RecordsSnapshotReader``.
- **Restart**: ``log.reopen()`` (nothing unflushed to lose) and a fresh state machine over the
  same log and snapshots, ``updateState()``.

Observation: ``lastKraftVersion()``, ``lastVoterSet()`` and the entries of the voter-set history
(``VoterSetHistory.votersHistory``, a ``TreeMapLogHistory``: read through reflection, it has no
accessor). A voter set of the model (``[[id, directory], ...]``) is a ``VotersRecord`` whose
voters have directory ``Uuid(KSPEC, directory)``, one CONTROLLER endpoint and kraft.version
support 0-1, made a ``VoterSet`` by ``VoterSet.fromVotersRecord``; the static voter set
(``controller.quorum.voters``) is built the same way, so the model's one-directory-per-host
convention (VOTERS-MODEL-DIRS) holds for it too.

Versions: 3.8 keeps ``VoterSet``/``ReplicaKey`` in ``raft.internals``, takes the static set as an
``Optional``, starts ``nextOffset`` at 0, and its ``TreeMapLogHistory`` refuses offset -1, so it
cannot load a bootstrap checkpoint (``--initial-controllers`` shipped in 3.9): the 3.8 target
takes only the kraft.version-0 configurations (``supports``). 4.0 added the metrics arguments
(``KafkaRaftMetrics``, ``ExternalKRaftMetrics``); 3.9 and 4.1+ pass the leader epoch to
``MockLog.appendAsFollower``; 4.1 moved ``OffsetAndEpoch`` to ``server.common``; 4.2 renamed
``setMaxBatchSize`` to ``setMaxBatchSizeBytes``; 4.3 moved the record classes to
``common.record.internal``. Where Kafka and the model differ (snapshot trim at the end offset,
``nextOffset`` kept on truncation): docs/kafka-matrix.md, voters, K1 and K2 (spec/voters.md §12,
docs/findings.md). The model variant with both, ``KAFKA_VARIANT``, is what every release here
conforms to: ``kspec conform voters --target kafka:VERSION --model-variant KAFKA_VARIANT``.
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import JSON, StepResult, Target, TargetError
from kspec.conformance.targets.kafka import artifacts, jvm

# The raft target's artifact set (one Maven resolution, one cache directory for both).
ARTIFACTS = ["kafka-raft", "kafka-raft@test", "kafka-clients@test"]
MIN_VERSION = (3, 8)
RAFT = "org.apache.kafka.raft"
MSG = "org.apache.kafka.common.message"
KSPEC_UUID_HIGH = 0x6B73706563  # "kspec": the high bits of every model directory's Uuid
MAX_BATCH_BYTES = 8192
# The model variant that behaves as 3.8-4.4 do (K1 and K2; kspec.model.voters.variants).
KAFKA_VARIANT = "kafka-trim-at-snapshot-end+kafka-truncate-keeps-next-offset"


def check_supported(version: str) -> tuple[int, int]:
    """The version's (major, minor), or a one-line TargetError below 3.8."""
    return artifacts.supported_version(version, "voters", MIN_VERSION, "KRaftControlRecordStateMachine and "
                                       "VoterSetHistory ship from Kafka 3.8.0, KIP-853")


class _Java(jvm.MetadataLogClasses):
    """The Kafka classes the adapter uses, looked up once, and the version's construction rules."""

    def __init__(self, version: str, vt: tuple[int, int]) -> None:
        super().__init__(version, vt)
        jpype = self.jpype
        c = self.c
        self.SM = c(f"{RAFT}.internals.KRaftControlRecordStateMachine")
        internals = vt < (3, 9)  # 3.8: VoterSet in raft.internals
        self.VoterSet = c(f"{RAFT}.internals.VoterSet" if internals else f"{RAFT}.VoterSet")
        # raft.OffsetAndEpoch to 4.0, server.common.OffsetAndEpoch from 4.1
        self.OffsetAndEpoch = self.first(f"{RAFT}.OffsetAndEpoch", "org.apache.kafka.server.common.OffsetAndEpoch")
        self.LogOffsetMetadata = c(f"{RAFT}.LogOffsetMetadata")
        self.SnapshotBuilder = c("org.apache.kafka.snapshot.RecordsSnapshotWriter$Builder")
        self.SnapshotReader = c("org.apache.kafka.snapshot.RecordsSnapshotReader")
        self.Notifying = c("org.apache.kafka.snapshot.NotifyingRawSnapshotWriter")
        self.VotersRecord = c(f"{MSG}.VotersRecord")
        self.Voter = c(f"{MSG}.VotersRecord$Voter")
        self.Endpoint = c(f"{MSG}.VotersRecord$Endpoint")
        self.EndpointCollection = c(f"{MSG}.VotersRecord$EndpointCollection")
        self.VersionFeature = c(f"{MSG}.VotersRecord$KRaftVersionFeature")
        self.KRaftVersionRecord = c(f"{MSG}.KRaftVersionRecord")
        self.ControlRecordUtils = self.record("ControlRecordUtils")
        # common.utils to 4.3, common.utils.internals from 4.4 (as LogContext)
        self.BufferSupplier = self.first("org.apache.kafka.common.utils.BufferSupplier",
                                         "org.apache.kafka.common.utils.internals.BufferSupplier")
        self.Time = c("org.apache.kafka.common.utils.Time")
        self.JShort = jpype.JShort
        self.KRaftVersion = None if internals else c("org.apache.kafka.server.common.KRaftVersion")
        # The constructor: 6 arguments to 3.9, plus (KafkaRaftMetrics, ExternalKRaftMetrics) from 4.0;
        # 4.2.2 dropped the BufferSupplier (7).
        ctors = list(self.SM.class_.getConstructors())
        if len(ctors) != 1 or ctors[0].getParameterCount() not in (6, 7, 8):
            raise TargetError(f"kafka:{version}: KRaftControlRecordStateMachine has an unknown constructor "
                              f"({', '.join(str(k) for k in ctors)})")
        types = [str(t.getName()) for t in ctors[0].getParameterTypes()]
        self.with_buffer_supplier = any(t.endswith(".BufferSupplier") for t in types)
        self.with_metrics = ctors[0].getParameterCount() + (0 if self.with_buffer_supplier else 1) == 8
        if self.with_metrics:
            self.Metrics = c("org.apache.kafka.common.metrics.Metrics")
            self.RaftMetrics = c(f"{RAFT}.internals.KafkaRaftMetrics")
            self.external_metrics = self.no_external_metrics()
        self.follower_epoch = self.has_method(self.MockLog, "appendAsFollower", 2)
        # 4.1 added a LogContext argument to ``RecordsSnapshotReader.of``.
        self.reader_takes_context = self.has_method(self.SnapshotReader, "of", 6)
        # The voter-set history's entries, for the observation (private fields, reflection once).
        self.f_history = self.field(self.SM, "voterSetHistory")
        self.f_voters = self.field(f"{RAFT}.internals.VoterSetHistory", "votersHistory")
        self.f_map = self.field(f"{RAFT}.internals.TreeMapLogHistory", "history")
        self.f_next = self.field(self.SM, "nextOffset")

    # -------------------------------------------------------------- values

    def uuid(self, directory: int) -> Any:
        return self.Uuid(KSPEC_UUID_HIGH, int(directory))

    def voter_set(self, pairs: list[list[int]]) -> Any:
        """A model voter set as Kafka's VoterSet (``VoterSet.fromVotersRecord``)."""
        record = self.VotersRecord().setVersion(self.JShort(0))
        voters = record.voters()
        for replica, directory in sorted((int(r), int(d)) for r, d in pairs):
            endpoints = self.EndpointCollection()
            endpoints.add(self.Endpoint().setName("CONTROLLER").setHost("localhost").setPort(9000 + replica))
            feature = self.VersionFeature().setMinSupportedVersion(self.JShort(0)).setMaxSupportedVersion(
                self.JShort(1))
            voters.add(self.Voter().setVoterId(replica).setVoterDirectoryId(self.uuid(directory))
                       .setEndpoints(endpoints).setKRaftVersionFeature(feature))
        return self.VoterSet.fromVotersRecord(record)

    def static_voter_set(self, pairs: list[list[int]]) -> Any:
        if self.KRaftVersion is None:  # 3.8: Optional<VoterSet>, empty without static voters
            return self.Optional.of(self.voter_set(pairs)) if pairs else self.Optional.empty()
        return self.voter_set(pairs) if pairs else self.VoterSet.empty()

    def pairs(self, voter_set: Any) -> list[list[int]]:
        """A Kafka VoterSet as ``[[id, directory], ...]``, read from its own ``toVotersRecord``
        (3.8's VoterSet has no ``voterKeys``); directory -1 for a Uuid kspec never made."""
        out = []
        for voter in voter_set.toVotersRecord(self.ControlRecordUtils.KRAFT_VOTERS_CURRENT_VERSION).voters():
            u = voter.voterDirectoryId()
            high, low = int(u.getMostSignificantBits()), int(u.getLeastSignificantBits())
            out.append([int(voter.voterId()), low if high == KSPEC_UUID_HIGH else -1])
        return sorted(out)

    def kraft_version_value(self, version: int) -> Any:
        """What ``RecordsSnapshotWriter.Builder.setKraftVersion`` takes (3.8: a short)."""
        return self.JShort(version) if self.KRaftVersion is None else self.KRaftVersion.fromFeatureLevel(
            self.JShort(version))

    def kraft_version_int(self, value: Any) -> int:
        return int(value) if self.KRaftVersion is None else int(value.featureLevel())

    def new_state_machine(self, static: Any, log: Any) -> Any:
        args = [static, log, self.serde, *([self.BufferSupplier.NO_CACHING] if self.with_buffer_supplier else []),
                MAX_BATCH_BYTES, self.log_context]
        if self.with_metrics:
            args += [self.RaftMetrics(self.Metrics(), "raft"), self.external_metrics]
        return self.SM(*args)

    # -------------------------------------------------------------- records

    def batch(self, offset: int, epoch: int, record: dict[str, Any]) -> Any:
        """One batch holding ``record`` at ``offset``, built by Kafka's MemoryRecords."""
        kind = record.get("type")
        buf = self.ByteBuffer.allocate(1024)
        if kind == "KRaftVersion":
            msg = self.KRaftVersionRecord().setVersion(self.ControlRecordUtils.KRAFT_VERSION_CURRENT_VERSION) \
                .setKRaftVersion(self.JShort(int(record["version"])))
            return self.MemoryRecords.withKRaftVersionRecord(offset, 0, epoch, buf, msg)
        if kind == "Voters":
            msg = self.voter_set(record["voters"]).toVotersRecord(
                self.ControlRecordUtils.KRAFT_VOTERS_CURRENT_VERSION)
            return self.MemoryRecords.withVotersRecord(offset, 0, epoch, buf, msg)
        if kind == "LeaderChange":
            msg = self.LeaderChangeMessage().setLeaderId(-1)
            return self.MemoryRecords.withLeaderChangeMessage(offset, 0, epoch, buf, msg)
        if kind == "Data":
            value = self.jpype.JArray(self.jpype.JByte)([100])  # "d": a data record the state machine skips
            return self.MemoryRecords.withRecords(offset, self.Compression, self.Integer.valueOf(epoch),
                                                  self.SimpleRecord(value))
        raise TargetError(f"kafka:{self.version} voters: unknown log record {record!r}")

    def concat(self, parts: list[Any]) -> Any:
        buf = self.ByteBuffer.allocate(sum(int(p.sizeInBytes()) for p in parts))
        for p in parts:
            buf.put(p.buffer())
        buf.flip()
        return self.MemoryRecords.readableRecords(buf)


class KafkaControlLog:
    """One replica's log, snapshots and control-record state machine."""

    def __init__(self, java: _Java, config: dict[str, Any]) -> None:
        self.java = java
        j = java
        self.static = j.static_voter_set(list(config.get("static_voters") or []))
        self.log = j.MockLog(j.tp, j.Uuid.METADATA_TOPIC_ID, j.log_context)
        self.epochs: list[int] = []  # the leader epoch of each log offset (for snapshot ids)
        bootstrap = config.get("bootstrap")
        if bootstrap is not None:
            # The bootstrap checkpoint 0-0: what the formatter writes (its records sit at -1).
            writer = self.log.createNewSnapshotUnchecked(j.OffsetAndEpoch(0, 0)).get()
            self._write_snapshot(writer, int(bootstrap["kraft_version"]),
                                 j.Optional.of(j.voter_set(bootstrap["voters"])))
        self.sm = self._fresh()

    def _fresh(self) -> Any:
        sm = self.java.new_state_machine(self.static, self.log)
        sm.updateState()
        return sm

    def _write_snapshot(self, raw_writer: Any, kraft_version: int, voter_set: Any) -> None:
        j = self.java
        builder = j.SnapshotBuilder().setLastContainedLogTimestamp(0).setTime(j.Time.SYSTEM)
        # setMaxBatchSize to 4.1, setMaxBatchSizeBytes from 4.2
        builder = (builder.setMaxBatchSizeBytes(MAX_BATCH_BYTES) if hasattr(builder, "setMaxBatchSizeBytes")
                   else builder.setMaxBatchSize(MAX_BATCH_BYTES))
        writer = (builder.setMemoryPool(j.MemoryPool.NONE).setRawSnapshotWriter(raw_writer)
                  .setKraftVersion(j.kraft_version_value(kraft_version)).setVoterSet(voter_set).build(j.serde))
        try:
            writer.freeze()
        finally:
            writer.close()

    # -------------------------------------------------------------- inputs

    def append(self, base: int, entries: list[dict[str, Any]]) -> None:
        j = self.java
        end = _offset(self.log.endOffset())
        if base != end:
            raise TargetError(f"Append at {base} but the log ends at {end}")
        if not entries:
            return
        parts = [j.batch(base + k, int(e["epoch"]), e["record"]) for k, e in enumerate(entries)]
        records = j.concat(parts)
        top = max(int(e["epoch"]) for e in entries)
        if j.follower_epoch:
            self.log.appendAsFollower(records, top)
        else:
            self.log.appendAsFollower(records)
        self.log.flush(False)
        self.epochs[base:] = [int(e["epoch"]) for e in entries]
        after = _offset(self.log.endOffset())
        if after != base + len(entries):
            raise TargetError(f"MockLog appended up to {after}, expected {base + len(entries)}")
        self.sm.updateState()

    def truncate(self, offset: int) -> None:
        self.log.truncateTo(offset)
        del self.epochs[offset:]
        self.sm.truncateNewEntries(offset)

    def snapshot(self, end_offset: int) -> dict[str, JSON]:
        """``KafkaRaftClient.createSnapshot`` at ``end_offset``, frozen at once."""
        j = self.java
        if end_offset < 1 or end_offset > len(self.epochs):
            raise TargetError(f"Snapshot at {end_offset} outside the log [1, {len(self.epochs)}]")
        if _offset(self.log.highWatermark()) < end_offset:
            self.log.updateHighWatermark(j.LogOffsetMetadata(end_offset))
        snapshot_id = j.OffsetAndEpoch(end_offset, self.epochs[end_offset - 1])
        created = self.log.createNewSnapshot(snapshot_id)
        if not created.isPresent():
            raise TargetError(f"MockLog.createNewSnapshot({end_offset}) made no writer (already stored?)")
        last = end_offset - 1
        kraft_version = j.kraft_version_int(self.sm.kraftVersionAtOffset(last))
        voter_set = self.sm.voterSetAtOffset(last)
        sm = self.sm

        @j.jpype.JImplements("java.util.function.Consumer")
        class _TrimOnFreeze:
            @j.jpype.JOverride
            def accept(self, offset_and_epoch: Any) -> None:
                # KafkaRaftClient.createSnapshot: "Trim the state in the internal listener up to
                # the new snapshot".
                sm.truncateOldEntries(_offset(offset_and_epoch))

        self._write_snapshot(j.Notifying(created.get(), _TrimOnFreeze()), kraft_version, voter_set)
        return {"type": "SnapshotWritten", "snapshot": self.read_snapshot(snapshot_id)}

    def read_snapshot(self, snapshot_id: Any) -> dict[str, JSON]:
        """The snapshot's control records, read back with Kafka's RecordsSnapshotReader."""
        return snapshot_output(self.java, self.log, snapshot_id)

    def read_at(self, offset: int) -> dict[str, JSON]:
        """``voterSetAtOffset`` and ``kraftVersionAtOffset``; ReadRefused when they throw (an
        offset at or past ``nextOffset``: IllegalArgumentException)."""
        j = self.java
        try:
            voters = self.sm.voterSetAtOffset(offset)
            version = self.sm.kraftVersionAtOffset(offset)
        except Exception as err:
            if "IllegalArgumentException" not in _java_error(err):
                raise
            return {"type": "ReadRefused", "offset": offset}
        return {"type": "ReadAt", "offset": offset, "kraft_version": j.kraft_version_int(version),
                "voters": j.pairs(voters.get()) if voters.isPresent() else None}

    def restart(self) -> None:
        self.log.reopen()
        self.sm = self._fresh()

    # -------------------------------------------------------------- observation

    def history(self) -> list[list[Any]]:
        j = self.java
        tree = j.f_map.get(j.f_voters.get(j.f_history.get(self.sm)))
        return [[int(e.getKey()), j.pairs(e.getValue())] for e in tree.entrySet()]

    def observation(self) -> dict[str, JSON]:
        j = self.java
        return {"kraft_version": j.kraft_version_int(self.sm.lastKraftVersion()),
                "voters": j.pairs(self.sm.lastVoterSet()), "history": self.history()}


def _offset(value: Any) -> int:
    """The offset of a LogOffsetMetadata or OffsetAndEpoch: a field to 3.9 (``offset``), a
    record accessor later (``offset()``)."""
    o = value.offset
    return int(o() if callable(o) else o)


def snapshot_output(j: _Java, log: Any, snapshot_id: Any) -> dict[str, JSON]:
    """The ``Snapshot`` output of snapshot ``snapshot_id`` of ``log``: its control records
    (kraft.version, voter set) read back with Kafka's RecordsSnapshotReader."""
    raw = log.readSnapshot(snapshot_id).get()
    kraft_version, voters = 0, None
    reader = j.SnapshotReader.of(raw, j.serde, j.BufferSupplier.NO_CACHING, MAX_BATCH_BYTES, True,
                                 *([j.log_context] if j.reader_takes_context else []))
    try:
        while reader.hasNext():
            for record in reader.next().controlRecords():
                kind = str(record.type().toString())
                if kind == "KRAFT_VERSION":
                    kraft_version = int(record.message().kRaftVersion())
                elif kind == "KRAFT_VOTERS":
                    voters = j.pairs(j.VoterSet.fromVotersRecord(record.message()))
    finally:
        reader.close()
    return {"type": "Snapshot", "end_offset": _offset(snapshot_id), "kraft_version": kraft_version,
            "voters": voters}


class VotersLogInstance:
    """The adapter of one replica's control-record state machine to the node-level interface."""

    def __init__(self, java: _Java, control: KafkaControlLog) -> None:
        self.java = java
        self.control = control

    def step(self, inp: JSON) -> StepResult:
        if not isinstance(inp, dict):
            raise TargetError(f"voters input must be an object, got {inp!r}")
        kind = inp.get("type")
        outputs: list[JSON] = []
        try:
            if kind == "Append":
                self.control.append(int(inp["base_offset"]), list(inp["entries"]))
            elif kind == "Truncate":
                self.control.truncate(int(inp["offset"]))
            elif kind == "Snapshot":
                outputs.append(self.control.snapshot(int(inp["end_offset"])))
            elif kind == "Restart":
                self.control.restart()
            elif kind == "Read":
                outputs.append(self.control.read_at(int(inp["offset"])))
            else:
                raise TargetError(f"kafka:{self.java.version} voters (log level): unknown input {kind!r}")
            return StepResult(outputs, self.control.observation())
        except TargetError:
            raise
        except Exception as err:  # a Java exception: one line naming the step
            raise TargetError(f"kafka:{self.java.version} voters: {kind} threw {_java_error(err)}") from None

    def close(self) -> None:
        pass


def _java_error(err: BaseException) -> str:
    """``ExceptionClass: message`` of a Java exception, on one line."""
    name = type(err).__name__
    try:
        name = str(err.getClass().getName())  # type: ignore[attr-defined]
        message = err.getMessage()  # type: ignore[attr-defined]
        text = "" if message is None else str(message)
    except Exception:
        text = str(err)
    return f"{name}: {' '.join(text.split())}"[:400]


class KafkaVotersTarget(Target):
    """The voters target of one Kafka version (3.8.0 or later), at the log level."""

    protocol = "voters"
    level = "log"

    def __init__(self, version: str, jars: list[Any] | None = None) -> None:
        self.version = version
        self.name = f"kafka:{version}"
        self.vt = check_supported(version)
        jvm.check(version)
        jvm.ensure(version, jars if jars is not None else artifacts.resolve(version, ARTIFACTS))
        self.java = _Java(version, self.vt)

    def supports(self, config: dict[str, JSON]) -> bool:
        """3.8 cannot load a bootstrap checkpoint (its history refuses offset -1): only the
        kraft.version-0 configurations (static voters)."""
        return self.vt >= (3, 9) or int(config.get("kraft_version", 0) or 0) == 0

    def start(self, node: int, config: dict[str, JSON]) -> VotersLogInstance:
        asked = config.get("level", "replica")
        if asked != self.level:
            raise TargetError(f"{self.name} serves the voters log level (KRaftControlRecordStateMachine), the run "
                              f"drives the {asked} level")
        try:
            control = KafkaControlLog(self.java, config)
        except TargetError:
            raise
        except Exception as err:
            raise TargetError(f"{self.name} voters: start threw {_java_error(err)}") from None
        return VotersLogInstance(self.java, control)

    def close(self) -> None:
        """Nothing to release: the JVM lives as long as the process (JPype cannot restart it)."""
