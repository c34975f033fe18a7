"""A share-group state coordinator shard written the way a user would write one.

It follows Kafka's ``ShareCoordinatorShard`` (KIP-932: request handlers produce records, a
``replay`` applies them; ``PersisterStateBatchCombiner`` for the batches), keeps its state in
plain dicts, speaks the conformance JSON, and never imports ``kspec.model.share``. Two inputs
besides the requests drive fail-over: ``{"type": "Unload"}`` (the broker loses the coordinator
partition) and ``{"type": "Load", "records": [...]}`` (a new shard replays the partition's log).
The share mutants subclass :class:`ShareShard` and override one method each.

It implements the protocol of the 4.1 and 4.4 rule sets (spec/share.md, "Versions"): a key must
be initialized before writes and reads, a write's record keeps the stored epochs (only a read
records a new leader epoch), the update count starts at 1, a read with leader epoch -1 is not
fenced, from 4.2 KIP-1226's delivery-complete count is stored (0 after an initialize with a known
start offset; a write's count only from a start offset above the stored one, the higher one at
the same start offset) and from 4.4 (``kafka_version`` in the node configuration) negative epochs
are refused. Before 4.2 there is no count: every record and summary carries -1.
"""

from __future__ import annotations

import copy
from typing import Any

from kspec.conformance.adapters.base import JSON, NodeInstance, Target, TargetError

NOT_SET = -1
NONE = "NONE"
FENCED_LEADER = ("FENCED_LEADER_EPOCH", "The leader epoch in the request is older than the epoch on the broker.")
FENCED_STATE = ("FENCED_STATE_EPOCH",
                "The share coordinator rejected the request because the share-group state epoch did not match.")
WRITE_UNINITIALIZED = ("INVALID_REQUEST", "Write operation on uninitialized share partition not allowed.")
READ_UNINITIALIZED = ("INVALID_REQUEST", "Read operation on uninitialized share partition not allowed.")
UNKNOWN_TP = ("UNKNOWN_TOPIC_OR_PARTITION", "This server does not host this topic-partition.")
NOT_AVAILABLE = ("COORDINATOR_NOT_AVAILABLE", "The coordinator is not available.")

RESPONSE_OF = {"WriteRequest": "WriteResponse", "ReadRequest": "ReadResponse",
               "InitializeRequest": "InitializeResponse", "DeleteRequest": "DeleteResponse",
               "ReadSummaryRequest": "ReadSummaryResponse"}
STATE_PARTITIONS = 50  # share.coordinator.state.topic.num.partitions (Kafka's default)


def java_hash(text: str) -> int:
    """Java's ``String.hashCode`` (over UTF-16 code units, 32-bit wrap-around)."""
    h = 0
    units = text.encode("utf-16-le")
    for i in range(0, len(units), 2):
        h = (h * 31 + int.from_bytes(units[i:i + 2], "little")) % 2**32
    return h - 2**32 if h >= 2**31 else h


def coordinator_partition(key: str) -> int:
    """``Utils.abs(key.hashCode()) % partitions`` (``Utils.abs(Integer.MIN_VALUE)`` is 0)."""
    h = java_hash(key)
    return (0 if h == -(2**31) else abs(h)) % STATE_PARTITIONS


def combine(start_offset: int, current: list[list[int]], new: list[list[int]]) -> list[list[int]]:
    """Batches ``[first, last, state, count]`` combined above ``start_offset``: on each offset
    the higher (delivery count, delivery state) wins; equal neighbours merge."""
    best: dict[int, tuple[int, int]] = {}
    for first, last, state, count in [*current, *new]:
        for o in range(first, last + 1):
            if start_offset != NOT_SET and o < start_offset:
                continue
            if o not in best or (count, state) > best[o]:
                best[o] = (count, state)
    out: list[list[int]] = []
    for o in sorted(best):
        count, state = best[o]
        if out and out[-1][1] == o - 1 and out[-1][2] == state and out[-1][3] == count:
            out[-1][1] = o
        else:
            out.append([o, o, state, count])
    return out


def _batches_in(raw: list[dict[str, Any]]) -> list[list[int]]:
    return [[b["first_offset"], b["last_offset"], b["delivery_state"], b["delivery_count"]] for b in raw]


def _batches_out(batches: list[list[int]]) -> list[dict[str, Any]]:
    return [{"type": "StateBatch", "first_offset": f, "last_offset": last, "delivery_state": s, "delivery_count": c}
            for f, last, s, c in batches]


class ShareShard:
    """One coordinator partition's shard."""

    combine = staticmethod(combine)

    # SHARE-VER-NEGATIVE-EPOCHS-REFUSED: set per run from the rule set (Kafka 4.4 and later).
    negative_epochs_refused = False
    # SHARE-VER-DELIVERY-COMPLETE-COUNT: set per run from the rule set (Kafka 4.2 and later).
    delivery_complete_count = False
    # The release whose rule set a target of this shard is held to (None: the model's default).
    kafka_version: str | None = None

    def __init__(self, snapshot_limit: int, image: list[list[Any]] | None) -> None:
        self.snapshot_limit = snapshot_limit
        self.image = None if image is None else {(t, p) for t, p in image}
        self.reset()

    def reset(self) -> None:
        self.active = True
        self.offsets: dict[tuple[str, str, int], dict[str, Any]] = {}
        self.leader_epochs: dict[tuple[str, str, int], int] = {}
        self.state_epochs: dict[tuple[str, str, int], int] = {}
        self.update_counts: dict[tuple[str, str, int], int] = {}
        # The log housekeeping (SHARE-RULE-REDUNDANT-OFFSET): the offset of the next record in
        # the coordinator partition, per key the offset of its last snapshot, and the lowest
        # offset still needed (None until a snapshot is replayed).
        self.log_end = 0
        self.snapshot_at: dict[tuple[str, str, int], int] = {}
        self.redundant: int | None = None

    # -------------------------------------------------------------- records and replay

    @staticmethod
    def key_json(key: tuple[str, str, int]) -> dict[str, Any]:
        return {"type": "SharePartitionKey", "group_id": key[0], "topic_id": key[1], "partition": key[2]}

    def snapshot(self, key: tuple[str, str, int], snapshot_epoch: int, state_epoch: int, leader_epoch: int,
                 start_offset: int, batches: list[list[int]], count: int = NOT_SET) -> dict[str, Any]:
        return {"type": "ShareSnapshot", "key": self.key_json(key), "snapshot_epoch": snapshot_epoch,
                "state_epoch": state_epoch, "leader_epoch": leader_epoch, "start_offset": start_offset,
                "state_batches": _batches_out(batches), "delivery_complete_count": count}

    def update(self, key: tuple[str, str, int], snapshot_epoch: int, leader_epoch: int, start_offset: int,
               batches: list[list[int]], count: int = NOT_SET) -> dict[str, Any]:
        return {"type": "ShareUpdate", "key": self.key_json(key), "snapshot_epoch": snapshot_epoch,
                "leader_epoch": leader_epoch, "start_offset": start_offset, "state_batches": _batches_out(batches),
                "delivery_complete_count": count}

    @staticmethod
    def _raise_to(table: dict[tuple[str, str, int], int], key: tuple[str, str, int], epoch: int) -> None:
        if key not in table or table[key] < epoch:
            table[key] = epoch

    def replay(self, record: dict[str, Any]) -> None:
        """Replay one record at the next offset of the coordinator partition."""
        self.replay_maps(record)
        k = record["key"]
        self.track_redundant((k["group_id"], k["topic_id"], k["partition"]), record["type"])
        self.log_end += 1

    def replay_maps(self, record: dict[str, Any]) -> None:
        """The four maps after ``record`` (ShareCoordinatorShard.replay's handlers)."""
        k = record["key"]
        key = (k["group_id"], k["topic_id"], k["partition"])
        kind = record["type"]
        if kind == "ShareTombstone":
            for table in (self.offsets, self.leader_epochs, self.state_epochs, self.update_counts):
                table.pop(key, None)
        elif kind == "ShareSnapshot":
            self.replay_snapshot(key, record)
        elif kind == "ShareUpdate":
            self.replay_update(key, record)
        else:
            raise TargetError(f"unknown record type {kind!r}")

    def track_redundant(self, key: tuple[str, str, int], kind: str) -> None:
        """A snapshot or tombstone makes its offset the key's; the lowest held offset is the
        redundant one; a deleted key is forgotten (an update needs the snapshot before it)."""
        if kind == "ShareUpdate":
            return
        self.snapshot_at[key] = self.log_end
        self.redundant = min(self.snapshot_at.values())
        if kind == "ShareTombstone":
            del self.snapshot_at[key]

    def replay_snapshot(self, key: tuple[str, str, int], record: dict[str, Any]) -> None:
        if self.update_counts.get(key, -1) >= self.snapshot_limit:
            self.update_counts[key] = 0
        self.offsets[key] = {"snapshot_epoch": record["snapshot_epoch"], "state_epoch": record["state_epoch"],
                             "leader_epoch": record["leader_epoch"], "start_offset": record["start_offset"],
                             "state_batches": _batches_in(record["state_batches"]),
                             "delivery_complete_count": record.get("delivery_complete_count", NOT_SET)}
        self._raise_to(self.leader_epochs, key, record["leader_epoch"])
        self._raise_to(self.state_epochs, key, record["state_epoch"])

    def replay_update(self, key: tuple[str, str, int], record: dict[str, Any]) -> None:
        batches = _batches_in(record["state_batches"])
        current = self.offsets.get(key)
        count = record.get("delivery_complete_count", NOT_SET)  # an update's count replaces the stored one
        if current is None:
            self.offsets[key] = {"snapshot_epoch": record["snapshot_epoch"], "state_epoch": NOT_SET,
                                 "leader_epoch": record["leader_epoch"], "start_offset": record["start_offset"],
                                 "state_batches": batches, "delivery_complete_count": count}
        else:
            start = current["start_offset"] if record["start_offset"] == NOT_SET else record["start_offset"]
            leader = current["leader_epoch"] if record["leader_epoch"] == NOT_SET else record["leader_epoch"]
            self.offsets[key] = {**current, "leader_epoch": leader, "start_offset": start,
                                 "state_batches": self.combine(start, current["state_batches"], batches),
                                 "delivery_complete_count": count}
        self._raise_to(self.leader_epochs, key, record["leader_epoch"])
        self.update_counts[key] = self.update_counts[key] + 1 if key in self.update_counts else 1

    def state_record(self, key: tuple[str, str, int], leader_epoch: int, state_epoch: int, start_offset: int,
                     batches: list[list[int]], from_read: bool = False, count: int = NOT_SET) -> dict[str, Any]:
        """A ShareSnapshot for a new key or once the update count reaches the limit, else a ShareUpdate.
        The record keeps the stored epochs, but for a read's new leader epoch, and the higher of the
        stored and the request's start offset."""
        current = self.offsets.get(key)
        if not self.delivery_complete_count:
            count = NOT_SET
        if current is None:
            return self.snapshot(key, 0, state_epoch, leader_epoch, start_offset,
                                 self.combine(start_offset, [], batches), count)
        count = self.write_count(current, start_offset, count)
        leader_epoch = leader_epoch if from_read and leader_epoch != NOT_SET else current["leader_epoch"]
        state_epoch = current["state_epoch"]
        if start_offset != NOT_SET and start_offset < current["start_offset"]:
            start_offset = current["start_offset"]  # an out-of-order write never moves the start back
        if self.update_counts.get(key, 0) >= self.snapshot_limit:
            return self.limit_snapshot(key, current, leader_epoch, state_epoch, start_offset, batches, count)
        return self.update(key, current["snapshot_epoch"], leader_epoch, start_offset,
                           self.combine(start_offset, [], batches), count)

    def write_count(self, current: dict[str, Any], start_offset: int, count: int) -> int:
        """KIP-1226: a write's count is measured from its start offset, so it replaces the stored
        one only from a higher start offset; at the same one the higher count stays."""
        if not self.delivery_complete_count:
            return NOT_SET
        if start_offset > current["start_offset"]:
            return count
        if start_offset == current["start_offset"]:
            return max(count, int(current["delivery_complete_count"]))
        return int(current["delivery_complete_count"])

    def limit_snapshot(self, key: tuple[str, str, int], current: dict[str, Any], leader_epoch: int,
                       state_epoch: int, start_offset: int, batches: list[list[int]],
                       count: int = NOT_SET) -> dict[str, Any]:
        leader = current["leader_epoch"] if leader_epoch == NOT_SET else leader_epoch
        st_epoch = current["state_epoch"] if state_epoch == NOT_SET else state_epoch
        start = current["start_offset"] if start_offset == NOT_SET else start_offset
        return self.snapshot(key, current["snapshot_epoch"] + 1, st_epoch, leader, start,
                             self.combine(start, current["state_batches"], batches), count)

    # -------------------------------------------------------------- requests

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        kind = inp["type"]
        if kind == "Unload":
            self.active = False
            return []
        if kind == "Load":
            self.reset()
            for record in inp["records"]:
                self.replay(record)
            return []
        if kind == "MetadataUpdate":  # SHARE-RULE-METADATA-UPDATE: validate against the new image
            self.image = {(t, p) for t, p in inp["image"]}
            return []
        if kind == "FindCoordinatorRequest":
            return [self.find_coordinator(inp)]
        if kind not in RESPONSE_OF:
            raise TargetError(f"unknown input type {kind!r}")
        if not self.active:
            return [self.response(inp, *NOT_AVAILABLE)]
        error = self.basic_error(inp) or self.negative_epoch_error(inp)
        if error is not None:
            return [self.response(inp, "INVALID_REQUEST", error)]
        key = (inp["group_id"], inp["topic_id"], inp["partition"])
        records, response = getattr(self, "on_" + kind)(key, inp)
        for r in records:
            self.replay(r)
        return [*records, response]

    def response(self, req: dict[str, Any], error: str = NONE, message: str = "", **fields: Any) -> dict[str, Any]:
        kind = RESPONSE_OF[req["type"]]
        out = {"type": kind, "topic_id": req["topic_id"], "partition": req["partition"], "error": error,
               "message": message}
        # An error response carries the wire defaults (0) in its numbers.
        start = 0 if error not in (NONE, NOT_AVAILABLE[0]) else NOT_SET
        if kind == "ReadResponse":
            out.update(state_epoch=0, start_offset=start, state_batches=[])
        elif kind == "ReadSummaryResponse":
            out.update(state_epoch=0, leader_epoch=0, start_offset=start, delivery_complete_count=NOT_SET)
        out.update(fields)
        return out

    @staticmethod
    def basic_error(req: dict[str, Any]) -> str | None:
        if req["topic_id"] is None:
            return "The topic id cannot be null."
        if req["partition"] < 0:
            return "The partition id cannot be a negative number."
        return None

    def negative_epoch_error(self, req: dict[str, Any]) -> str | None:
        """From 4.4 a negative epoch is refused, where -1 meant "not set" before."""
        if not self.negative_epochs_refused or req["type"] not in ("WriteRequest", "ReadRequest",
                                                                    "InitializeRequest"):
            return None
        if req["type"] != "InitializeRequest" and req["leader_epoch"] < 0:
            return "The leader epoch cannot be a negative number."
        if req["type"] != "ReadRequest" and req["state_epoch"] < 0:
            return "The state epoch cannot be a negative number."
        return None

    def hosts(self, key: tuple[str, str, int]) -> bool:
        return self.image is not None and (key[1], key[2]) in self.image

    def on_WriteRequest(self, key: tuple[str, str, int], req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        if key not in self.offsets:
            return [], self.response(req, *WRITE_UNINITIALIZED)
        fenced = self.write_fenced(key, req)
        if fenced is not None:
            return [], self.response(req, *fenced)
        if not self.hosts(key):
            return [], self.response(req, *UNKNOWN_TP)
        record = self.state_record(key, req["leader_epoch"], req["state_epoch"], req["start_offset"],
                                   _batches_in(req["state_batches"]),
                                   count=req.get("delivery_complete_count", NOT_SET))
        return [record], self.response(req)

    def write_fenced(self, key: tuple[str, str, int], req: dict[str, Any]) -> tuple[str, str] | None:
        stored_leader = self.leader_epochs.get(key)
        if req["leader_epoch"] != NOT_SET and stored_leader is not None and stored_leader > req["leader_epoch"]:
            return FENCED_LEADER
        stored_state = self.state_epochs.get(key)
        if req["state_epoch"] != NOT_SET and stored_state is not None and stored_state > req["state_epoch"]:
            return FENCED_STATE
        return None

    def on_ReadRequest(self, key: tuple[str, str, int], req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        if key not in self.offsets:
            return [], self.response(req, *READ_UNINITIALIZED)
        stored_leader = self.leader_epochs.get(key)
        if req["leader_epoch"] != NOT_SET and stored_leader is not None and stored_leader > req["leader_epoch"]:
            return [], self.response(req, *FENCED_LEADER)
        if not self.hosts(key):
            return [], self.response(req, *UNKNOWN_TP)
        current = self.offsets.get(key)
        if current is None:
            response = self.response(req)
        else:
            response = self.response(req, state_epoch=current["state_epoch"], start_offset=current["start_offset"],
                                     state_batches=_batches_out(current["state_batches"]))
        return self.read_records(key, req, response, stored_leader), response

    def read_records(self, key: tuple[str, str, int], req: dict[str, Any], response: dict[str, Any],
                     stored_leader: int | None) -> list[Any]:
        """A read carrying a new leader epoch records it (ShareCoordinatorShard.readStateAndMaybeUpdateLeaderEpoch)."""
        if req["leader_epoch"] == NOT_SET or stored_leader == req["leader_epoch"]:
            return []
        count = self.offsets[key].get("delivery_complete_count", NOT_SET)
        return [self.state_record(key, req["leader_epoch"], response["state_epoch"], response["start_offset"], [],
                                  from_read=True, count=count)]

    def on_InitializeRequest(self, key: tuple[str, str, int], req: dict[str, Any]
                             ) -> tuple[list[Any], dict[str, Any]]:
        stored_state = self.state_epochs.get(key)
        if req["state_epoch"] != NOT_SET and stored_state is not None and stored_state > req["state_epoch"]:
            return [], self.response(req, *FENCED_STATE)
        if not self.hosts(key):
            return [], self.response(req, *UNKNOWN_TP)
        return [self.initialize_record(key, req)], self.response(req)

    def initialize_record(self, key: tuple[str, str, int], req: dict[str, Any]) -> dict[str, Any]:
        current = self.offsets.get(key)
        snapshot_epoch = 0 if current is None else current["snapshot_epoch"] + 1
        return self.snapshot(key, snapshot_epoch, req["state_epoch"], 0, req["start_offset"], [],
                             self.initialize_count(req["start_offset"]))

    def initialize_count(self, start_offset: int) -> int:
        """KIP-1226 (KAFKA-20034): 0 from a known start offset, -1 (unknown) when it is -1."""
        return 0 if self.delivery_complete_count and start_offset != NOT_SET else NOT_SET

    def on_DeleteRequest(self, key: tuple[str, str, int], req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        if not self.hosts(key):
            return [], self.response(req, *UNKNOWN_TP)
        if key not in self.offsets:
            return [], self.response(req)
        return [{"type": "ShareTombstone", "key": self.key_json(key)}], self.response(req)

    def on_ReadSummaryRequest(self, key: tuple[str, str, int], req: dict[str, Any]
                              ) -> tuple[list[Any], dict[str, Any]]:
        if not self.hosts(key):
            return [], self.response(req, *UNKNOWN_TP)
        current = self.offsets.get(key)
        if current is None:
            return [], self.response(req)
        return [], self.response(req, state_epoch=current["state_epoch"], leader_epoch=current["leader_epoch"],
                                 start_offset=current["start_offset"],
                                 delivery_complete_count=current["delivery_complete_count"])

    # -------------------------------------------------------------- finding the coordinator

    @staticmethod
    def parse_key(key: str) -> tuple[str, str, int] | None:
        """A coordinator key back into (group, topic, partition): topic and partition are the
        last two fields, the group id is the rest, ':' and all."""
        group, sep, rest = key.rpartition(":")
        group, sep2, topic = group.rpartition(":")
        if not sep or not sep2 or not group or not topic or not rest.lstrip("+-").isdigit():
            return None
        return group, topic, int(rest)

    def find_coordinator(self, req: dict[str, Any]) -> dict[str, Any]:
        """FindCoordinator (key type SHARE): the broker parses the key string and answers the
        __share_group_state partition of what it parsed."""
        out = {"type": "FindCoordinatorResponse", "topic_id": req["topic_id"], "partition": req["partition"],
               "error": NONE, "message": "", "coordinator": -1}
        key = f"{req['group_id']}:{req['topic_id']}:{req['partition']}"
        found = self.parse_key(key) if req["topic_id"] is not None else None
        if found is None:
            return {**out, "error": "INVALID_REQUEST", "message": f"Invalid key format: {key}"}
        return {**out, "coordinator": self.route(f"{found[0]}:{found[1]}:{found[2]}")}

    def route(self, key: str) -> int:
        """The ``__share_group_state`` partition of a coordinator key (SHARE-RULE-ROUTING)."""
        return coordinator_partition(key)

    # -------------------------------------------------------------- observation

    def observation(self) -> dict[str, JSON]:
        keys = set(self.offsets) | set(self.leader_epochs) | set(self.state_epochs) | set(self.update_counts)
        parts: dict[str, Any] = {}
        for key in sorted(keys):
            off = self.offsets.get(key)
            parts[f"{key[0]}:{key[1]}:{key[2]}"] = {
                "offset": None if off is None else copy.deepcopy(off),
                "leader_epoch_fence": self.leader_epochs.get(key),
                "state_epoch_fence": self.state_epochs.get(key),
                "update_count": self.update_counts.get(key),
            }
        redundant = self.redundant if self.redundant is not None and self.redundant > 0 else None
        return {"active": self.active, "partitions": parts, "redundant_offset": redundant}


class ShareTarget(Target):
    """A share target: one :class:`ShareShard` (or subclass) per coordinator partition."""

    protocol = "share"

    def __init__(self, name: str = "reference", shard_class: type[ShareShard] = ShareShard) -> None:
        self.name = name
        self.shard_class = shard_class
        # It reports its redundant offset (SHARE-OBS-REDUNDANT-OFFSET).
        self.model_config: dict[str, JSON] = {"redundant_offset": True, "routing": True}
        if shard_class.kafka_version is not None:
            self.model_config["kafka_version"] = shard_class.kafka_version

    def start(self, node: int, config: dict[str, JSON]) -> NodeInstance:
        shard = self.shard_class(int(config.get("snapshot_limit", 500)), config.get("image"))
        version = str(config.get("kafka_version", "4.4")).split(".")
        shard.negative_epochs_refused = (int(version[0]), int(version[1])) >= (4, 4)
        shard.delivery_complete_count = (int(version[0]), int(version[1])) >= (4, 2)
        return NodeInstance(shard)  # the shard behind the node-level interface

    def close(self) -> None:
        pass
