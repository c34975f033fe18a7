"""KIP-853's control-record state machine at the log level, session 12's out-of-sample bugs
("outsider").

A fresh port of ``KRaftControlRecordStateMachine`` over ``VoterSetHistory`` /
``TreeMapLogHistory`` written from docs/adapter-guide.md, spec/voters.md (§2-§5, §9) and the log
level of spec/adapter-protocol.md (no kspec model, driver, reference or earlier red-team code):
two sorted histories keyed by offset, the log kept for restarts, the latest snapshot. The bugs
are the slips of someone writing it: a truncation that keeps the entry at its offset, a floor
search whose "no entry" index wraps to the last one, a snapshot that replaces the history with
its own content, one map per offset for both kinds of record, a batch's records all at its base
offset, and a trim that drops the entry in force at the snapshot's last offset.

    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch4:Correct
"""

from __future__ import annotations

import bisect
from typing import Any

from kspec.conformance.adapters.base import StepResult, Target, TargetError
from redteam._targets import SelfNamed, attribute_target, register, subclass

Voters = list[list[int | str]]


class History:
    """``TreeMapLogHistory``: values keyed by strictly increasing offsets."""

    def __init__(self) -> None:
        self.offsets: list[int] = []
        self.values: list[Any] = []

    def add_at(self, offset: int, value: Any) -> None:
        if self.offsets and offset <= self.offsets[-1]:
            raise TargetError(f"history: offset {offset} not after {self.offsets[-1]}")
        self.offsets.append(offset)
        self.values.append(value)

    def floor_index(self, offset: int) -> int:
        """The index of the greatest entry at or before ``offset``; -1 when there is none."""
        return bisect.bisect_right(self.offsets, offset) - 1

    def value_at_or_before(self, offset: int) -> Any:
        i = self.floor_index(offset)
        return self.values[i] if i >= 0 else None

    def last(self) -> Any:
        return self.values[-1] if self.values else None

    def truncate_new(self, end: int) -> None:
        """Drop every entry at or after ``end``."""
        keep = bisect.bisect_left(self.offsets, end)
        del self.offsets[keep:], self.values[keep:]

    def truncate_old(self, start: int) -> None:
        """Drop every entry at or before ``start`` except the last of them."""
        i = self.floor_index(start)
        if i > 0:
            del self.offsets[:i], self.values[:i]

    def clear(self) -> None:
        self.offsets.clear()
        self.values.clear()

    def items(self) -> list[tuple[int, Any]]:
        return list(zip(self.offsets, self.values, strict=True))


def norm(voters: Voters) -> Voters:
    return sorted([int(v[0]), v[1]] for v in voters)


class ControlState:
    """One replica's control-record state machine, its log and its latest snapshot."""

    history: type[History] = History

    def __init__(self, config: dict[str, Any]) -> None:
        self.static: Voters = norm(config.get("static_voters") or [])
        boot = config.get("bootstrap")
        # The bootstrap checkpoint, a snapshot ending at offset 0 (its records at -1).
        self.snapshot: tuple[int, int, Voters | None] = (
            (0, int(boot["kraft_version"]), norm(boot["voters"])) if boot else (0, 0, None))
        self.log: list[dict[str, Any]] = []
        self.voters = self.history()
        self.kraft = self.history()
        self.next_offset = 0
        self.rebuild()

    # -- reading records
    def read_record(self, offset: int, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if kind == "Voters":
            self.voters.add_at(offset, norm(record["voters"]))
        elif kind == "KRaftVersion":
            self.kraft.add_at(offset, int(record["version"]))

    def load_snapshot(self) -> None:
        end, version, voters = self.snapshot
        self.voters.clear()
        self.kraft.clear()
        if version > 0:
            self.read_record(end - 1, {"type": "KRaftVersion", "version": version})
        if voters is not None:
            self.read_record(end - 1, {"type": "Voters", "voters": voters})
        self.next_offset = end

    def read_log(self) -> None:
        while self.next_offset < len(self.log):
            self.read_record(self.next_offset, self.log[self.next_offset])
            self.next_offset += 1

    def rebuild(self) -> None:
        self.load_snapshot()
        self.read_log()

    # -- inputs
    def append(self, base: int, entries: list[dict[str, Any]]) -> None:
        if base != len(self.log):
            raise TargetError(f"append at {base}, log end {len(self.log)}")
        self.log.extend(e["record"] for e in entries)
        self.read_log()

    def truncate(self, end: int) -> None:
        del self.log[end:]
        self.voters.truncate_new(end)
        self.kraft.truncate_new(end)
        self.next_offset = min(self.next_offset, end)

    def take_snapshot(self, end: int) -> dict[str, Any]:
        version = self.kraft_at(end - 1)
        voters = self.voters.value_at_or_before(end - 1)
        self.snapshot = (end, version, voters)
        self.trim(end - 1)
        return {"type": "SnapshotWritten",
                "snapshot": {"type": "Snapshot", "end_offset": end, "kraft_version": version, "voters": voters}}

    def trim(self, start: int) -> None:
        self.voters.truncate_old(start)
        self.kraft.truncate_old(start)

    def kraft_at(self, offset: int) -> int:
        v = self.kraft.value_at_or_before(offset)
        return 0 if v is None else int(v)

    def read(self, offset: int) -> dict[str, Any]:
        if offset >= self.next_offset:
            return {"type": "ReadRefused", "offset": offset}
        return {"type": "ReadAt", "offset": offset, "kraft_version": self.kraft_at(offset),
                "voters": self.voters.value_at_or_before(offset)}

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        t = inp["type"]
        if t == "Append":
            self.append(int(inp["base_offset"]), inp["entries"])
            return []
        if t == "Truncate":
            self.truncate(int(inp["offset"]))
            return []
        if t == "Snapshot":
            return [self.take_snapshot(int(inp["end_offset"]))]
        if t == "Restart":
            self.rebuild()
            return []
        if t == "Read":
            return [self.read(int(inp["offset"]))]
        raise TargetError(f"unknown log-level input {t!r}")

    def observation(self) -> dict[str, Any]:
        last = self.voters.last()
        version = self.kraft.last()
        return {"kraft_version": 0 if version is None else int(version),
                "voters": self.static if last is None else last,
                "history": [[o, v] for o, v in self.voters.items()]}


# ---------------------------------------------------------------------------- bugs


class TruncateKeepsEntryAtOffset(ControlState):
    """``truncateNewEntries(end)`` drops the entries *after* ``end`` (``tailMap(end, false)``):
    a VotersRecord exactly at the truncation offset stays in the history."""

    def truncate(self, end: int) -> None:
        super().truncate(end + 1)
        del self.log[end:]
        self.next_offset = min(self.next_offset, end)


class FloorIndexWraps(History):
    """The floor search's "no entry" index (-1) used as a list index: a read before the first
    entry answers the *last* entry (Python's ``values[-1]``)."""

    def value_at_or_before(self, offset: int) -> Any:
        return self.values[self.floor_index(offset)] if self.values else None


class FloorWrapsState(ControlState):
    __doc__ = FloorIndexWraps.__doc__
    history = FloorIndexWraps


class SnapshotReplacesHistory(ControlState):
    """Taking a snapshot loads it (clear, then the snapshot's records at its last offset) in
    place of the trim: VotersRecords above the snapshot, not yet in any snapshot, are lost."""

    def trim(self, start: int) -> None:
        next_offset = self.next_offset
        self.load_snapshot()
        self.next_offset = next_offset


class OneMapPerOffset(ControlState):
    """Both kinds of control record in one map offset -> record: the snapshot's (and the
    bootstrap checkpoint's) KRaftVersionRecord and VotersRecord share an offset, and the
    VotersRecord, read second, replaces the KRaftVersionRecord."""

    def load_snapshot(self) -> None:
        end, version, voters = self.snapshot
        self.voters.clear()
        self.kraft.clear()
        if voters is not None:
            self.read_record(end - 1, {"type": "Voters", "voters": voters})
        elif version > 0:
            self.read_record(end - 1, {"type": "KRaftVersion", "version": version})
        self.next_offset = end


class BatchAtBaseOffset(ControlState):
    """Every record of an appended batch read at the batch's base offset (``batch.baseOffset()``
    for the record's offset): the upgrade's VotersRecord, second in its batch, lands on the
    KRaftVersionRecord's offset."""

    def append(self, base: int, entries: list[dict[str, Any]]) -> None:
        if base != len(self.log):
            raise TargetError(f"append at {base}, log end {len(self.log)}")
        self.log.extend(e["record"] for e in entries)
        last: dict[str, dict[str, Any]] = {}  # a map put: the batch's last record of each kind
        for e in entries:
            last[str(e["record"].get("type"))] = e["record"]
        for kind in ("KRaftVersion", "Voters"):
            if kind in last:
                self.read_record(base, last[kind])
        self.next_offset = len(self.log)


class TrimDropsFloor(ControlState):
    """The snapshot's trim drops every entry *before* its last offset (``headMap(start,
    false).clear()``), the one in force there included when it is older: the history starts at
    the next VotersRecord, or is empty."""

    def trim(self, start: int) -> None:
        for h in (self.voters, self.kraft):
            keep = bisect.bisect_left(h.offsets, start)
            del h.offsets[:keep], h.values[:keep]


# ---------------------------------------------------------------------------- target


class LogNode:
    def __init__(self, state: ControlState) -> None:
        self.state = state

    def step(self, inp: dict[str, Any]) -> StepResult:
        return StepResult(self.state.step(inp), self.state.observation())

    def close(self) -> None:
        pass


class LogTarget(SelfNamed, Target):
    protocol = "voters"
    level = "log"
    impl: type[ControlState] = ControlState

    def start(self, node: Any, config: dict[str, Any]) -> LogNode:
        if config.get("level", "log") != "log":
            raise TargetError("this target serves the voters log level only")
        return LogNode(self.impl(config))


Correct = subclass(globals(), "Correct", LogTarget)
CORRECT = "Correct"

BUGS: dict[str, type[ControlState]] = {
    "truncate-keeps-entry-at-offset": TruncateKeepsEntryAtOffset,
    "floor-index-wraps": FloorWrapsState,
    "snapshot-replaces-history": SnapshotReplacesHistory,
    "one-map-per-offset": OneMapPerOffset,
    "batch-at-base-offset": BatchAtBaseOffset,
    "trim-drops-floor": TrimDropsFloor,
}
TARGETS = register(globals(), LogTarget, BUGS, attribute_target("impl"))
