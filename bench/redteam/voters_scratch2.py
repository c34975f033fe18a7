"""The KIP-853 control-record state machine at the log level, session 9's planted bugs (none of
session 8's), over session 8's from-scratch ``redteam.voters_scratch.Control`` (spec/voters.md
§1-§5 and spec/adapter-protocol.md only): each bug overrides one method.

    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch2:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import SelfNamed, attribute_target, register
from redteam.voters_scratch import Control
from redteam.voters_scratch import Correct as _Correct


class SnapshotAtEndOffset(Control):
    """A snapshot holds the voter set in force at its end offset (exclusive end read as
    inclusive), not at its last offset, ``end - 1``."""

    def take_snapshot(self, end: int) -> dict[str, Any]:
        snap = super().take_snapshot(end)
        snap["voters"] = self.voters.at_or_before(end)
        return snap


class SnapshotVersionFromLast(Control):
    """A snapshot holds the newest kraft.version read, not the one at its last offset."""

    def take_snapshot(self, end: int) -> dict[str, Any]:
        last = self.versions.last()
        snap = super().take_snapshot(end)
        snap["kraft_version"] = 0 if last is None else last
        return snap


class EmptyVotersIgnored(Control):
    """A VotersRecord with no voters skipped (a falsy check on the list)."""

    def add(self, offset: int, record: dict[str, Any]) -> None:
        if record["type"] == "Voters" and not record["voters"]:
            return
        super().add(offset, record)


class BootstrapVersionIgnored(Control):
    """The bootstrap checkpoint's voter set read, its kraft.version not (taken as 0)."""

    def rebuild(self) -> None:
        boot = self.bootstrap
        if boot is not None:
            self.bootstrap = {**boot, "kraft_version": 0}
        try:
            super().rebuild()
        finally:
            self.bootstrap = boot


class TruncateKeepsVersions(Control):
    """A truncation cuts the voter-set history but not the kraft.version history (one map of two)."""

    def truncate(self, offset: int) -> None:
        kept = list(self.versions.entries)
        super().truncate(offset)
        self.versions.entries = kept


class ReadBelowSnapshotRefused(Control):
    """A read below the latest snapshot's end is refused ("trimmed"), not answered from the
    entry in force there."""

    def read(self, offset: int) -> dict[str, Any]:
        if self.snapshot is not None and offset < self.snapshot["end_offset"] - 1:
            return {"type": "ReadRefused", "offset": offset}
        return super().read(offset)


class Correct(SelfNamed, _Correct):
    pass


CORRECT = "Correct"
BUGS: dict[str, type[Control]] = {
    "snapshot-at-end-offset": SnapshotAtEndOffset,
    "snapshot-version-from-last": SnapshotVersionFromLast,
    "empty-voters-ignored": EmptyVotersIgnored,
    "bootstrap-version-ignored": BootstrapVersionIgnored,
    "truncate-keeps-versions": TruncateKeepsVersions,
    "read-below-snapshot-refused": ReadBelowSnapshotRefused,
}
TARGETS = register(globals(), Correct, BUGS, attribute_target("control"))
