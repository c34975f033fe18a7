"""KIP-853 voter replicas (replica level) and control-record state machines (log level) with
planted bugs, over the plain-dict reference classes.

Dropped after the first run: ``log-restart-skips-rebuild`` (restart keeps the in-memory
histories when the snapshot has not moved) turned out equivalent: with the snapshot unchanged
the in-memory histories are exactly what a rebuild gives.
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.voters import (
    ControlRecords,
    VoterReplica,
    VotersTarget,
    _entry,
    _ids,
)


class AddVoterLagByOne(VoterReplica):
    """Off by one: a new voter counts as caught up when it is at most one record behind the
    leader's log end (``>= end - 1``)."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if inp["type"] == "AddVoter" and self.role == "leader" and self.high_watermark is not None:
            fetched = self.end_offsets.get(inp["replica"])
            if fetched is not None and fetched == self.end_offset - 1:
                self.end_offsets[inp["replica"]] = self.end_offset
                try:
                    return super().reconfigure(inp)
                finally:
                    self.end_offsets[inp["replica"]] = fetched
        return super().reconfigure(inp)


class DuplicateByKey(VoterReplica):
    """Unknown ids / keys: AddVoter refuses a duplicate only when id *and* directory match, so
    a replica id already voting is added a second time under another directory."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if inp["type"] != "AddVoter" or self.role != "leader" or self.high_watermark is None:
            return super().reconfigure(inp)
        if self.control.kraft_version() < 1 or self.change_pending():
            return super().reconfigure(inp)
        current = self.control.voters_now()
        key = (inp["replica"], inp["directory"])
        if key[0] in _ids(current) and key not in current:
            new = current | {key}
            self.leader_append([_entry(self.epoch, "voters", [x for k in sorted(new) for x in k])])
            return None
        return super().reconfigure(inp)


class RemoveWhileUncommittedUpgrade(VoterReplica):
    """A request handled in the wrong state: the "one change at a time" check looks only at
    VotersRecords, and the leader's first VotersRecord (written by the kraft.version upgrade)
    counts as committed as soon as it is appended."""

    def change_pending(self) -> bool:
        history = self.control.voter_history
        assert self.high_watermark is not None
        if len(history) <= 1:
            return False
        return history[-1][0] >= self.high_watermark


class ControlTruncateKeepsVersion(ControlRecords):
    """Log level: a truncation removes the VotersRecords past the offset but forgets the
    kraft.version history (only voter sets were thought to change)."""

    def truncate(self, offset: int) -> None:
        del self.records[offset:]
        self.voter_history = [(o, v) for o, v in self.voter_history if o < offset]
        self.next_offset = min(self.next_offset, offset)


class ControlSnapshotInclusive(ControlRecords):
    """Log level, off by one: a snapshot ending at N holds the state at offset N (the first
    offset it does *not* cover) rather than at N - 1."""

    def take_snapshot(self, end_offset: int) -> dict[str, Any]:
        last = end_offset
        version = self.value_at(self.version_history, last)
        self.snapshot = {"end_offset": end_offset, "kraft_version": version or 0,
                         "voters": self.value_at(self.voter_history, last)}
        self.voter_history = self.trim(self.voter_history, end_offset - 1)
        self.version_history = self.trim(self.version_history, end_offset - 1)
        return self.snapshot


class ReplicaSnapshotInclusive(VoterReplica):
    """Replica level: the same off-by-one snapshot (state at the high watermark itself)."""

    def __init__(self, node_id: int, config: dict[str, Any], control_class: type[ControlRecords] = ControlRecords
                 ) -> None:
        super().__init__(node_id, config, ControlSnapshotInclusive)


def _replica_target(cls: type[VoterReplica]) -> type[VotersTarget]:
    class T(VotersTarget):
        def __init__(self) -> None:
            super().__init__(f"python:redteam.voters:{cls.__name__}Target", replica_class=cls)

    T.__name__ = cls.__name__ + "Target"
    return T


def _log_target(cls: type[ControlRecords]) -> type[VotersTarget]:
    class T(VotersTarget):
        def __init__(self) -> None:
            super().__init__(f"python:redteam.voters:{cls.__name__}Target", control_class=cls, level="log")

    T.__name__ = cls.__name__ + "Target"
    return T


Correct = _replica_target(VoterReplica)
CorrectLog = _log_target(ControlRecords)
CORRECT = "Correct"
BUGS: dict[str, type] = {
    "add-voter-lag-by-one": AddVoterLagByOne,
    "duplicate-by-key": DuplicateByKey,
    "upgrade-record-counts-committed": RemoveWhileUncommittedUpgrade,
    "replica-snapshot-inclusive": ReplicaSnapshotInclusive,
    "log-truncate-keeps-version": ControlTruncateKeepsVersion,
    "log-snapshot-inclusive": ControlSnapshotInclusive,
}
for _name, _cls in BUGS.items():
    _make = _log_target if issubclass(_cls, ControlRecords) else _replica_target
    globals()[_cls.__name__ + "Target"] = _make(_cls)
TARGETS = {name: cls.__name__ + "Target" for name, cls in BUGS.items()}
