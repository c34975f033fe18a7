"""The KIP-853 control-record state machine (``KRaftControlRecordStateMachine`` over
``VoterSetHistory``) written from scratch as a log-level ``python:`` target, with planted bugs.

Written from spec/voters.md §1-§5 and spec/adapter-protocol.md (voters, log level) only: no kspec
model code, no reference target, the drivers unread (session 8). The log level is what the docs
offer a ``python:`` target that is not a whole KRaft replica (``level = "log"``). One class,
:class:`Control`, holds the state; each planted bug is a name in ``Control.bugs`` switched on by
a subclass, one ``if`` where a real implementer slips.

    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import StepResult, Target, TargetError
from redteam._targets import switched

Voters = list[list[Any]]  # [[replica id, directory id], ...], sorted


class History:
    """``TreeMapLogHistory``: values by offset, in order."""

    def __init__(self, owner: Control, lowest: int) -> None:
        self.owner = owner
        self.lowest = lowest  # -1 for the voter sets (the bootstrap checkpoint), 0 otherwise
        self.entries: list[tuple[int, Any]] = []

    def add_at(self, offset: int, value: Any) -> None:
        if offset < self.lowest or (self.entries and offset <= self.entries[-1][0]):
            return  # IllegalArgumentException: nothing changes
        self.entries.append((offset, value))

    def at_or_before(self, offset: int) -> Any:
        strict = self.owner.bug("read-floor-strict")
        found = None
        for o, v in self.entries:
            if o < offset or (o == offset and not strict):
                found = v
        return found

    def last(self) -> Any:
        return self.entries[-1][1] if self.entries else None

    def truncate_new(self, end: int) -> None:
        keep_at_end = self.owner.bug("truncate-keeps-entry-at-end")
        self.entries = [(o, v) for o, v in self.entries if o < end or (keep_at_end and o == end)]

    def truncate_old(self, start: int) -> None:
        older = [e for e in self.entries if e[0] <= start]
        newer = [e for e in self.entries if e[0] > start]
        if self.owner.bug("trim-drops-floor"):
            self.entries = newer
        else:
            self.entries = older[-1:] + newer


def _overlapping(a: Voters, b: Voters) -> bool:
    """At most one replica key leaves and at most one joins (the leader's rule)."""
    sa, sb = {tuple(k) for k in a}, {tuple(k) for k in b}
    return len(sa - sb) <= 1 and len(sb - sa) <= 1


class Control:
    bugs: frozenset[str] = frozenset()

    def __init__(self, static: Voters, bootstrap: dict[str, Any] | None) -> None:
        self.static = sorted(static)
        self.bootstrap = bootstrap
        self.log: list[dict[str, Any]] = []  # records at offsets 0, 1, ... (kept whole)
        self.snapshot: dict[str, Any] | None = None  # the latest written (end_offset, kraft_version, voters)
        self.rebuild()

    def bug(self, name: str) -> bool:
        return name in self.bugs

    # ---- reading records ----

    def add(self, offset: int, record: dict[str, Any]) -> None:
        kind = record["type"]
        if kind == "KRaftVersion":
            self.versions.add_at(offset, record["version"])
        elif kind == "Voters":
            new = sorted(record["voters"])
            last = self.voters.last()
            if self.bug("non-overlapping-refused") and last is not None and self.voters.entries[-1][0] >= 0 \
                    and not _overlapping(last, new):
                return  # Kafka 3.8/3.9.0 threw here
            self.voters.add_at(offset, new)

    def rebuild(self) -> None:
        """VOTERS-CTRL-REBUILD: the latest snapshot (the bootstrap checkpoint when none), then the log."""
        self.voters = History(self, -1)
        self.versions = History(self, -1)
        snap = None if self.bug("restart-ignores-snapshot") else self.snapshot
        if snap is not None:
            at = snap["end_offset"] - 1
            if snap["kraft_version"] > 0 and not self.bug("restart-loses-snapshot-version"):
                self.versions.add_at(at, snap["kraft_version"])
            if snap["voters"] is not None:
                self.voters.add_at(at, sorted(snap["voters"]))
            start = snap["end_offset"]
        else:
            if self.bootstrap is not None:
                self.versions.add_at(-1, self.bootstrap["kraft_version"])
                self.voters.add_at(-1, sorted(self.bootstrap["voters"]))
            start = 0
        for off in range(start, len(self.log)):
            self.add(off, self.log[off])
        self.next_offset = len(self.log)

    # ---- inputs ----

    def append(self, base: int, entries: list[dict[str, Any]]) -> None:
        if base != len(self.log):
            raise TargetError(f"Append at {base}, log end {len(self.log)}")
        for i, e in enumerate(entries):
            self.log.append(e["record"])
            self.add(base if self.bug("batch-base-offset") else base + i, e["record"])
        self.next_offset = len(self.log)

    def truncate(self, offset: int) -> None:
        del self.log[offset:]
        self.voters.truncate_new(offset)
        self.versions.truncate_new(offset)
        if not self.bug("truncate-keeps-next-offset"):
            self.next_offset = offset

    def version_at(self, offset: int) -> int:
        v = self.versions.at_or_before(offset)
        return 0 if v is None else v

    def take_snapshot(self, end: int) -> dict[str, Any]:
        at = end - 1
        voters = self.voters.at_or_before(at)
        if self.bug("snapshot-voters-from-log-end"):
            voters = self.voters.last()
        if voters is None and self.bug("snapshot-static-when-none"):
            voters = self.static or None
        snap = {"type": "Snapshot", "end_offset": end, "kraft_version": self.version_at(at), "voters": voters}
        self.snapshot = snap
        self.voters.truncate_old(at)
        self.versions.truncate_old(at)
        return snap

    def read(self, offset: int) -> dict[str, Any]:
        refused = offset > self.next_offset if self.bug("read-refused-off-by-one") else offset >= self.next_offset
        if refused:
            return {"type": "ReadRefused", "offset": offset}
        return {"type": "ReadAt", "offset": offset, "kraft_version": self.version_at(offset),
                "voters": self.voters.at_or_before(offset)}

    def observe(self) -> dict[str, Any]:
        last = self.voters.last()
        if last is None:
            last = [] if self.bug("static-lost-after-truncate") and self.voters_seen else self.static
        version = self.versions.last()
        return {"kraft_version": 0 if version is None else version, "voters": last,
                "history": [[o, v] for o, v in self.voters.entries]}

    @property
    def voters_seen(self) -> bool:
        return any(r["type"] == "Voters" for r in self.log) or self.snapshot is not None


class Node:
    def __init__(self, control: Control) -> None:
        self.c = control

    def step(self, inp: dict[str, Any]) -> StepResult:
        c, t = self.c, inp["type"]
        out: list[dict[str, Any]] = []
        if t == "Append":
            c.append(inp["base_offset"], inp["entries"])
        elif t == "Truncate":
            c.truncate(inp["offset"])
        elif t == "Snapshot":
            out = [{"type": "SnapshotWritten", "snapshot": c.take_snapshot(inp["end_offset"])}]
        elif t == "Restart":
            c.rebuild()
        elif t == "Read":
            out = [c.read(inp["offset"])]
        else:
            raise TargetError(f"unknown voters log-level input {t!r}")
        return StepResult(outputs=out, observation=c.observe())

    def close(self) -> None:
        pass


class Correct(Target):
    """The bug-free control-record state machine, driven at the log level."""

    protocol = "voters"
    level = "log"
    control: type[Control] = Control

    def __init__(self) -> None:
        self.name = f"python:redteam.voters_scratch:{type(self).__name__}"

    def start(self, node: Any, config: dict[str, Any]) -> Node:
        if config.get("level", "replica") != "log":
            raise TargetError(f"level {config.get('level')!r} not served (log level only)")
        return Node(self.control(list(config.get("static_voters") or []), config.get("bootstrap")))


CORRECT = "Correct"
BUGS = {
    "read-floor-strict": "a read at an offset answers the entry strictly before it, not at or before",
    "truncate-keeps-entry-at-end": "a truncation to N keeps the entry at N itself",
    "trim-drops-floor": "a snapshot's trim drops every entry at or before its last offset, the one in force too",
    "restart-ignores-snapshot": "a restart rebuilds from the bootstrap checkpoint and the whole log, not the snapshot",
    "restart-loses-snapshot-version": "a restart reads the snapshot's VotersRecord but not its KRaftVersionRecord",
    "batch-base-offset": "every record of an Append is added at the batch's base offset",
    "truncate-keeps-next-offset": "a truncation leaves the next offset to read where it was (Kafka's K2)",
    "snapshot-voters-from-log-end": "a snapshot holds the last voter set, not the one at its last offset",
    "snapshot-static-when-none": "a snapshot with no voter set in force holds the static set",
    "read-refused-off-by-one": "a read at the next offset to read is answered, not refused",
    "non-overlapping-refused": "a VotersRecord without an overlapping majority is dropped (3.8 / 3.9.0)",
    "static-lost-after-truncate": "once voter sets were read, an empty history answers no voters, not the static set",
}
TARGETS = switched(globals(), Correct, "control", Control, {bug: {"__doc__": doc} for bug, doc in BUGS.items()})
