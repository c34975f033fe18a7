"""The Java callbacks the ``kafka:VERSION`` raft adapter registers on each ``KafkaRaftClient``:
the ``BiConsumer`` that turns a completed inbound request into its response output, and the
``RaftClient.Listener`` whose callbacks are outputs (RAFT-OBS-LISTENER). Each is one JPype proxy
class per process (a proxy class made per call would pile up in the JVM); an instance holds its
replica weakly (no cycle across the JPype boundary).
"""

from __future__ import annotations

import weakref
from typing import Any

from kspec.conformance.targets.kafka import jvm
from kspec.conformance.targets.kafka.raft_java import RAFT
from kspec.conformance.targets.kafka.raft_java import Java as _Java
from kspec.conformance.targets.kafka.raft_wire import response_json

_ANSWERED: list[Any] = []


def answered_class() -> Any:
    """One ``BiConsumer`` proxy class per process (a JPype proxy class made per call would
    pile up in the JVM): it appends the answer to its replica's outputs when Kafka completes
    an inbound request."""
    if not _ANSWERED:
        import jpype

        @jpype.JImplements("java.util.function.BiConsumer")
        class Answered:
            def __init__(self, node: Any, msg: dict[str, Any]) -> None:
                self.node, self.msg = weakref.ref(node), msg

            @jpype.JOverride
            def accept(self, resp: Any, error: Any) -> None:
                node = self.node()
                if resp is not None and node is not None:
                    node.outputs.append(response_json(node.java, node.id, int(self.msg["src"]), resp.data(),
                                                      self.msg))

        _ANSWERED.append(Answered)
    return _ANSWERED[0]


_LISTENER: list[Any] = []


def listener_class(java: _Java) -> Any:
    """One ``RaftClient.Listener`` proxy class per process (as :func:`answered_class`): the
    state machine kspec registers on each client, whose callbacks are outputs
    (RAFT-OBS-LISTENER). It reads each ``BatchReader`` to its end and closes it, as a state
    machine must for Kafka to send it more."""
    if not _LISTENER:
        import jpype

        interface = jvm.jclass(java.version, f"{RAFT}.RaftClient$Listener")
        # 4.3 added handleLoadBootstrap (the bootstrap checkpoint, which these replicas do not have)
        names = {str(m.getName()) for m in interface.class_.getMethods()}
        bootstrap = "handleLoadBootstrap" in names
        # 3.3-3.5 name handleLoadSnapshot handleSnapshot (renamed in 3.6); same contract
        old_snapshot = "handleSnapshot" in names
        # 3.3-3.5's handleCommit carries data records only (their listener API, KAFKA-15345)
        data_only = java.vt < (3, 6)

        @jpype.JImplements(f"{RAFT}.RaftClient$Listener")
        class Listener:
            def __init__(self, node: Any) -> None:
                self.node = weakref.ref(node)

            @jpype.JOverride
            def handleCommit(self, reader: Any) -> None:
                entries: list[list[Any]] = []
                base: int | None = None
                try:
                    while reader.hasNext():
                        batch = reader.next()
                        if base is None:
                            base = int(batch.baseOffset())
                        controls = list(batch.controlRecords()) if hasattr(batch, "controlRecords") else []
                        kinds = [str(c.type()).lower() for c in controls] or \
                            ["data"] * (int(batch.lastOffset()) - int(batch.baseOffset()) + 1)
                        entries += [[int(batch.epoch()), k] for k in kinds]
                finally:
                    reader.close()
                node = self.node()
                if node is None:
                    return
                if data_only:
                    # 3.3-3.5 skip control batches (ListenerRules.data_only): the note names the
                    # committed range's start, and where it ends (read once the reader is closed)
                    # lets contiguous ranges of one step merge across the skipped records
                    last = reader.lastOffset()
                    offset = int(reader.baseOffset())
                    end = int(last.getAsLong()) + 1 if last.isPresent() else offset
                    node.listened({"type": "HandleCommit", "offset": offset, "entries": entries}, end)
                else:
                    offset = int(reader.baseOffset()) if base is None else base
                    node.listened({"type": "HandleCommit", "offset": offset, "entries": entries})

            def _load_snapshot(self, reader: Any) -> None:
                node = self.node()
                offset = int(reader.snapshotId().offset())
                reader.close()
                if node is not None:
                    node.listened({"type": "HandleLoadSnapshot", "offset": offset})

            if old_snapshot:
                @jpype.JOverride
                def handleSnapshot(self, reader: Any) -> None:
                    self._load_snapshot(reader)
            else:
                @jpype.JOverride
                def handleLoadSnapshot(self, reader: Any) -> None:
                    self._load_snapshot(reader)

            if bootstrap:
                @jpype.JOverride
                def handleLoadBootstrap(self, reader: Any) -> None:
                    node = self.node()
                    reader.close()
                    if node is not None:  # never due: no bootstrap checkpoint (RAFT-OBS-LISTENER-SNAPSHOT)
                        node.listened({"type": "HandleLoadBootstrap"})

            @jpype.JOverride
            def handleLeaderChange(self, leader: Any) -> None:
                node = self.node()
                if node is not None:
                    lid = leader.leaderId()
                    node.listened({"type": "HandleLeaderChange", "epoch": int(leader.epoch()),
                                   "leader": int(lid.getAsInt()) if lid.isPresent() else None})

            @jpype.JOverride
            def beginShutdown(self) -> None:
                node = self.node()
                if node is not None:  # the model never shuts a replica down gracefully
                    node.listened({"type": "BeginShutdown"})

        _LISTENER.append(Listener)
    return _LISTENER[0]
