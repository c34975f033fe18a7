"""The KRaft control-record state machine (Kafka's ``KRaftControlRecordStateMachine``).

It follows a replica's snapshot and log and keeps the ``kraft.version`` history and the
voter-set history between the latest snapshot and the log end offset. Pure: every function
returns a new value. Rule IDs refer to ``spec/voters.md``.

Control records are raft :class:`~kspec.model.raft.messages.Entry` values:

* ``Entry(epoch, "kraft_version", (version,))`` — Kafka's ``KRaftVersionRecord``;
* ``Entry(epoch, "voters", (id1, dir1, id2, dir2, ...))`` — Kafka's ``VotersRecord``: the
  voters' replica keys, sorted, flattened into ``(replica id, directory id)`` pairs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from kspec.model.raft.messages import Entry
from kspec.model.voters.history import BOOTSTRAP_OFFSET, LogHistory, VoterSet, VoterSetHistory

KRAFT_VERSION = "kraft_version"
VOTERS = "voters"


def voters_entry(epoch: int, voters: VoterSet) -> Entry:
    """A VotersRecord written in ``epoch`` (VOTERS-REC-VOTERS)."""
    return Entry(epoch, VOTERS, tuple(x for key in sorted(voters) for x in key))


def kraft_version_entry(epoch: int, version: int) -> Entry:
    """A KRaftVersionRecord written in ``epoch`` (VOTERS-REC-KRAFT-VERSION)."""
    return Entry(epoch, KRAFT_VERSION, (version,))


def voters_of(entry: Entry) -> VoterSet:
    """The voter set a VotersRecord carries."""
    p = entry.payload
    return frozenset((p[i], p[i + 1]) for i in range(0, len(p), 2))


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A snapshot's control records (VOTERS-SNAP-CONTENT): ``end_offset`` is the snapshot id's
    offset (exclusive: it holds offsets below it); ``kraft_version`` is written as a
    KRaftVersionRecord when above 0; ``voters`` is the VotersRecord in force at the last
    contained offset, None when there is none (kraft.version 0)."""

    end_offset: int
    kraft_version: int
    voters: VoterSet | None


_NO_VERSIONS: LogHistory[int] = LogHistory((), BOOTSTRAP_OFFSET)


@dataclass(frozen=True, slots=True)
class ControlState:
    """The histories and the next offset to read (Kafka's ``nextOffset``)."""

    voters: VoterSetHistory
    kraft_versions: LogHistory[int] = _NO_VERSIONS
    next_offset: int = 0

    def last_kraft_version(self) -> int:
        """VOTERS-RULE-KRAFT-VERSION: the last kraft.version, 0 when none was written."""
        last = self.kraft_versions.last_entry()
        return 0 if last is None else last[1]

    def last_voter_set(self) -> VoterSet:
        """VOTERS-HIST-LAST: the voter set in force at the log end (the static set if none)."""
        return self.voters.last_value()

    def voter_set_at(self, offset: int) -> VoterSet | None:
        """Kafka's ``voterSetAtOffset``: only for offsets below the next offset."""
        _check_offset(self, offset)
        return self.voters.value_at_or_before(offset)

    def kraft_version_at(self, offset: int) -> int:
        """Kafka's ``kraftVersionAtOffset``: 0 when none was written by then."""
        _check_offset(self, offset)
        v = self.kraft_versions.value_at_or_before(offset)
        return 0 if v is None else v


def _check_offset(state: ControlState, offset: int) -> None:
    if offset >= state.next_offset:
        raise ValueError(f"Attempting the read a value at an offset ({offset}) which is greater than or equal to "
                         f"the largest known offset ({state.next_offset - 1})")


def initial(static: VoterSet) -> ControlState:
    """A replica's control state before it reads anything."""
    return ControlState(VoterSetHistory(static))


def handle_records(state: ControlState, offset: int, entries: tuple[Entry, ...]) -> ControlState:
    """VOTERS-CTRL-APPEND: read records appended at ``offset`` (Kafka's ``handleBatch``)."""
    if offset != state.next_offset:
        raise ValueError(f"records at {offset} but the next offset to read is {state.next_offset}")
    voters, versions = state.voters, state.kraft_versions
    for i, e in enumerate(entries):
        if e.kind == VOTERS:
            voters = voters.add_at(offset + i, voters_of(e))
        elif e.kind == KRAFT_VERSION:
            versions = versions.add_at(offset + i, e.payload[0])
    return ControlState(voters, versions, offset + len(entries))


def read_log(state: ControlState, offset: int, entries: tuple[Entry, ...]) -> ControlState:
    """Kafka's ``maybeLoadLog`` after ``entries`` were appended at ``offset``: it reads from
    ``next_offset`` to the log end, so records below ``next_offset`` are not read. Only the
    ``kafka-truncate-keeps-next-offset`` variant (K2) has records there: a truncation left
    ``next_offset`` above the log end (one record per batch, as the conformance adapter writes)."""
    if offset > state.next_offset:
        raise ValueError(f"records at {offset} but the next offset to read is {state.next_offset}")
    skip = state.next_offset - offset
    return state if skip >= len(entries) else handle_records(state, state.next_offset, entries[skip:])


def truncate_to(state: ControlState, end_offset: int, *, keep_next_offset: bool = False) -> ControlState:
    """VOTERS-CTRL-TRUNCATE: the log was truncated to ``end_offset`` on a diverging epoch.
    ``keep_next_offset``: Kafka 3.8-4.4's ``truncateNewEntries``, which leaves ``nextOffset``
    where it was (K2, variant ``kafka-truncate-keeps-next-offset``)."""
    return ControlState(state.voters.truncate_new_entries(end_offset),
                        state.kraft_versions.truncate_new_entries(end_offset),
                        state.next_offset if keep_next_offset else min(state.next_offset, end_offset))


def trim_to(state: ControlState, snapshot: Snapshot, *, at_end_offset: bool = False) -> ControlState:
    """VOTERS-CTRL-TRIM: a snapshot was taken; entries it makes unnecessary go, keeping the
    last one at or before its last contained offset. ``at_end_offset``: Kafka 3.8-4.4's
    ``createSnapshot``, which trims at the snapshot id's (exclusive) end offset, so an entry
    at that offset drops the set in force at the last contained one (K1, variant
    ``kafka-trim-at-snapshot-end``)."""
    last = snapshot.end_offset if at_end_offset else snapshot.end_offset - 1
    return replace(state, voters=state.voters.truncate_old_entries(last),
                   kraft_versions=state.kraft_versions.truncate_old_entries(last))


def load_snapshot(static: VoterSet, snapshot: Snapshot) -> ControlState:
    """VOTERS-CTRL-SNAPSHOT: the snapshot's control records, all at its last contained offset."""
    state = initial(static)
    last = snapshot.end_offset - 1
    versions = state.kraft_versions
    if snapshot.kraft_version > 0:
        versions = versions.add_at(last, snapshot.kraft_version)
    voters = state.voters
    if snapshot.voters is not None:
        voters = voters.add_at(last, snapshot.voters)
    return ControlState(voters, versions, snapshot.end_offset)


def take_snapshot(state: ControlState, end_offset: int) -> Snapshot:
    """VOTERS-SNAP-CONTENT: the control records of a snapshot of offsets below ``end_offset``
    (Kafka's RecordsSnapshotWriter builder)."""
    last = end_offset - 1
    return Snapshot(end_offset, state.kraft_version_at(last), state.voter_set_at(last))


def rebuild(static: VoterSet, snapshot: Snapshot | None, log: tuple[Entry, ...]) -> ControlState:
    """VOTERS-CTRL-REBUILD: the control state read from scratch, as after a restart: the
    latest snapshot, then the log from the snapshot's end offset."""
    state = initial(static) if snapshot is None else load_snapshot(static, snapshot)
    return handle_records(state, state.next_offset, log[state.next_offset:])


def view(state: ControlState, start: int) -> tuple[object, ...]:
    """What the control state answers for offsets ``start - 1`` up to the log end, and its
    last values: two states with the same view are interchangeable (VOTERS-INV-REBUILD)."""
    at = tuple((state.kraft_version_at(o), state.voter_set_at(o))
               for o in range(max(start - 1, BOOTSTRAP_OFFSET), state.next_offset))
    return (state.next_offset, state.last_kraft_version(), state.last_voter_set(), at)
