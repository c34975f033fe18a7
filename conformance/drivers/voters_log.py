"""The free log: arbitrary log changes for the voters driver's log level (issue #18, item 3).

The log level's replicas are fed the log changes of the model's replicas, so every
VotersRecord they read is one a correct leader wrote: each set differs from the one before by
at most one voter. The history a replica keeps must answer for any log, though: a cluster
recovered by hand, or one of KAFKA-17973's disaster-recovery voter sets, has consecutive sets
without an overlapping majority, and a replica reads its history at any offset below its next
offset (``voterSetAtOffset``, ``kraftVersionAtOffset``). So the log level has one more target
instance, node :data:`FREE_LOG`, not a replica of the cluster: its log is written by the driver
alone, one record per batch — VotersRecords of any set (sharing no voter with the last, losing
two voters, a voter under another directory), KRaftVersionRecords of either version,
LeaderChange and data records — truncated at any offset at or above its high watermark,
snapshotted at any offset past its latest snapshot, restarted, and read at every offset from
the bootstrap offset to one past the next offset (refused there, VOTERS-CTRL-READ).

The model's answer is the control-record state machine of ``kspec.model.voters.control`` under
the run's rules (a Kafka variant's K1/K2 apply here as at the replicas). The inputs are those
of the log level (``Append``, ``Truncate``, ``Snapshot``, ``Restart``) plus ``Read``
(``spec/adapter-protocol.md``, section voters); :func:`cells` names each action's kind for the
run's coverage matrix, so a run shows how many consecutive VotersRecords shared no voter.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from kspec.conformance.adapters.base import JSON
from kspec.model.core.codec import encode
from kspec.model.raft.messages import Entry
from kspec.model.voters.control import (
    KRAFT_VERSION,
    VOTERS,
    ControlState,
    Snapshot,
    handle_records,
    initial,
    load_snapshot,
    read_log,
    rebuild,
    take_snapshot,
    trim_to,
    truncate_to,
    voters_entry,
)
from kspec.model.voters.history import VoterSet, voter_ids
from kspec.model.voters.node import Rules, SnapshotWritten

# The category of VOTERS-DRIVE-FREE-REPEATED-SET's VotersRecord (the raft driver's PROBE: no lockstep
# rule draws it and the guide graph leaves it out, so random runs and planned paths draw as before).
PROBE = "probe"

# The free log's node id: no host has it (hosts are 1..n).
FREE_LOG = 0
# Replica ids its VotersRecords draw from (more than any configuration's hosts, so a set can
# share no voter with the last one), and how far off a replaced disk's directory is.
IDS = range(1, 7)
OTHER_DIRECTORY = 100
# Replica ids at the edges (VOTERS-DRIVE-ODD-IDS): 0, a valid id that reads as "none" to a
# truthiness check, and 2**15, the first id a 16-bit field wraps (Kafka's ids are int32; the Kafka
# adapter's endpoint port, 9000 + id, stays a uint16).
ODD_IDS = (0, 2**15)
# Bounds: records in the log (one per Append), snapshots taken.
MAX_RECORDS = 10
MAX_SNAPSHOTS = 3
ROLE = "free log"


@dataclass(frozen=True, slots=True)
class FreeLog:
    """The free log's state: its records, latest snapshot and control state, the offset no
    truncation goes below (its high watermark: a snapshot moves it), the epoch its records are
    written in (a truncation starts a new one, as a new leader's would) and snapshots taken."""

    static: VoterSet
    log: tuple[Entry, ...]
    snapshot: Snapshot | None
    control: ControlState
    floor: int = 0
    epoch: int = 1
    snapshots: int = 0


@dataclass(frozen=True, slots=True)
class FreeAppend:
    """Append one record (an ``Entry``) at the log end."""

    entry: Entry


@dataclass(frozen=True, slots=True)
class FreeTruncate:
    offset: int


@dataclass(frozen=True, slots=True)
class FreeSnapshot:
    end_offset: int


@dataclass(frozen=True, slots=True)
class FreeRestart:
    pass


@dataclass(frozen=True, slots=True)
class FreeRead:
    offset: int


FreeAction = FreeAppend | FreeTruncate | FreeSnapshot | FreeRestart | FreeRead
FREE_TYPES = (FreeAppend, FreeTruncate, FreeSnapshot, FreeRestart, FreeRead)
CATEGORIES = ("free_voters", "free_record", "free_read", "free_log")


def start(static: VoterSet, bootstrap: VoterSet | None) -> FreeLog:
    """A formatted replica: the bootstrap checkpoint (kraft.version 1, ``bootstrap``) or the
    static set alone, as the cluster's replicas start (``VotersDriver.node_config``)."""
    if bootstrap is not None:
        snap = Snapshot(0, 1, bootstrap)
        return FreeLog(frozenset(), (), snap, load_snapshot(frozenset(), snap))
    return FreeLog(static, (), None, initial(static))


def _voter_sets(last: VoterSet) -> list[VoterSet]:
    """VotersRecords worth writing after ``last``: one sharing no voter with it, one that drops
    two voters (or adds two), one voter added, and one voter's disk replaced (VOTERS-KEY)."""
    ids = voter_ids(last)
    fresh = [i for i in IDS if i not in ids]
    out = [frozenset((i, i) for i in fresh[:3])]
    kept = sorted(last)
    out.append(frozenset(kept[2:]) if len(kept) >= 3 else last | frozenset((i, i) for i in fresh[:2]))
    out.append(last | frozenset((i, i) for i in fresh[:1]))
    if kept:
        r, d = kept[0]
        out.append((last - {(r, d)}) | {(r, d + OTHER_DIRECTORY if d < OTHER_DIRECTORY else r)})
    out.append(odd_ids_set(last))
    return [s for s in dict.fromkeys(out) if s]


def odd_ids_set(last: VoterSet) -> VoterSet:
    """``last`` with the replica ids at the edges (:data:`ODD_IDS`) added, or, when it holds
    them, without them. By id: a VotersRecord names each replica id once (Kafka's ``VoterSet`` is
    keyed by id), so an id ``last`` holds under another directory is not added again (a set
    holding (0, 100) and (0, 0) was a kspec false alarm on kafka:4.4.0:log, seed 0, random run 242)."""
    ids = voter_ids(last)
    if set(ODD_IDS) <= ids:
        return frozenset(k for k in last if k[0] not in ODD_IDS)
    return last | frozenset((i, i) for i in ODD_IDS if i not in ids)


def overlapping_majority(a: VoterSet, b: VoterSet) -> bool:
    """Kafka's ``VoterSet.hasOverlappingMajority``: at most one replica key leaves and at most one
    joins (VOTERS-RULE-OVERLAP)."""
    return len(a - b) <= 1 and len(b - a) <= 1


def candidates(free: FreeLog, rules: Rules | None = None) -> list[tuple[str, FreeAction]]:
    """``(category, action)``: VotersRecords (``free_voters``), other records (``free_record``),
    reads at every offset from -1 to one past the next offset (``free_read``), truncations,
    snapshots and a restart (``free_log``). Under K5 (``rules.history_takes_any_set`` off) only
    VotersRecords with an overlapping majority with the history's last set: 3.8 and 3.9.0 throw
    on the others (VOTERS-KAFKA-K5)."""
    out: list[tuple[str, FreeAction]] = []
    end = len(free.log)
    if end < MAX_RECORDS:
        last = free.control.voters.last_entry()
        out += [("free_voters", FreeAppend(voters_entry(free.epoch, s)))
                for s in _voter_sets(free.control.last_voter_set())
                if rules is None or rules.history_takes_any_set or last is None or overlapping_majority(last[1], s)]
        # kraft.version is never downgraded (KIP-853): a KRaftVersion record at or above the one in
        # force. Below it, Kafka's snapshot writer throws on the voter set (IllegalStateException)
        # instead of answering, which is outside the log level's contract.
        # VOTERS-DRIVE-FREE-REPEATED-SET: the set in force written again (only the script takes it)
        if free.control.last_voter_set():
            out.append((PROBE, FreeAppend(voters_entry(free.epoch, free.control.last_voter_set()))))
        current = free.control.last_kraft_version()
        out += [("free_record", FreeAppend(Entry(free.epoch, KRAFT_VERSION, (v,)))) for v in (1, 0) if v >= current]
        out += [("free_record", FreeAppend(Entry(free.epoch, kind, ()))) for kind in ("leader_change", "data")]
    out += [("free_read", FreeRead(o)) for o in range(-1, free.control.next_offset + 1)]
    out += [("free_log", FreeTruncate(o)) for o in range(free.floor, end)]
    last_snapshot = 0 if free.snapshot is None else free.snapshot.end_offset
    if free.snapshots < MAX_SNAPSHOTS:
        # Not where a voter set is in force at kraft.version 0 (a VotersRecord read before any
        # KRaftVersionRecord, or, under K1/K2, a kraft.version history trimmed or truncated away):
        # Kafka's snapshot writer throws there ("Voter set ... not expected when the kraft.version
        # is 0", IllegalStateException) instead of answering, outside the log level's contract.
        out += [("free_log", FreeSnapshot(n)) for n in range(max(1, last_snapshot + 1), end + 1)
                if _writable(take_snapshot(free.control, n))]
    out.append(("free_log", FreeRestart()))
    return out


def step(free: FreeLog, action: FreeAction, rules: Rules) -> tuple[FreeLog, JSON, JSON]:
    """The state after ``action``, with the log-level input and the model's outputs."""
    k2 = not rules.truncate_moves_next_offset
    control = free.control
    match action:
        case FreeAppend(entry=e):
            base = len(free.log)
            control = read_log(control, base, (e,)) if k2 else handle_records(control, base, (e,))
            record = _record(e)
            return (replace(free, log=(*free.log, e), control=control),
                    {"type": "Append", "base_offset": base, "entries": [{"epoch": e.epoch, "record": record}]}, [])
        case FreeTruncate(offset=o):
            return (replace(free, log=free.log[:o], control=truncate_to(control, o, keep_next_offset=k2),
                            epoch=free.epoch + 1), {"type": "Truncate", "offset": o}, [])
        case FreeSnapshot(end_offset=n):
            snap = take_snapshot(control, n)
            control = trim_to(control, snap, at_end_offset=not rules.trim_before_snapshot_end)
            return (replace(free, snapshot=snap, control=control, floor=max(free.floor, n),
                            snapshots=free.snapshots + 1),
                    {"type": "Snapshot", "end_offset": n}, snapshot_written(snap))
        case FreeRestart():
            return (replace(free, control=rebuild(free.static, free.snapshot, free.log)), {"type": "Restart"}, [])
        case FreeRead(offset=o):
            return free, {"type": "Read", "offset": o}, [read_answer(control, o)]
    raise AssertionError(action)


def _writable(snap: Snapshot) -> bool:
    """A snapshot a KIP-853 writer can write: no voter set at kraft.version 0."""
    return snap.kraft_version > 0 or snap.voters is None


def snapshot_written(snap: Snapshot) -> JSON:
    """The ``SnapshotWritten`` output, its voter set ``[[id, directory], ...]`` sorted by number as
    the adapter protocol writes every voter set (the codec orders a set by ``repr``, which puts
    ``[32768, 32768]`` before ``[4, 4]``: VOTERS-DRIVE-ODD-IDS' ids showed it)."""
    out = encode([SnapshotWritten(snap)])
    voters = out[0]["snapshot"]["voters"]
    if voters is not None:
        out[0]["snapshot"]["voters"] = sorted(voters)
    return out


def read_answer(control: ControlState, offset: int) -> JSON:
    """VOTERS-CTRL-READ: the kraft.version and voter set in force at ``offset``
    (``kraftVersionAtOffset``, ``voterSetAtOffset``: the floor entry, no voter set when none),
    refused at or past the next offset."""
    if offset >= control.next_offset:
        return {"type": "ReadRefused", "offset": offset}
    voters = control.voter_set_at(offset)
    return {"type": "ReadAt", "offset": offset, "kraft_version": control.kraft_version_at(offset),
            "voters": None if voters is None else [list(k) for k in sorted(voters)]}


def _payload_set(e: Entry) -> VoterSet:
    return frozenset((e.payload[i], e.payload[i + 1]) for i in range(0, len(e.payload), 2))


def _record(e: Entry) -> dict[str, JSON]:
    if e.kind == VOTERS:
        p = e.payload
        return {"type": "Voters", "voters": [[p[i], p[i + 1]] for i in range(0, len(p), 2)]}
    if e.kind == KRAFT_VERSION:
        return {"type": "KRaftVersion", "version": e.payload[0]}
    return {"type": "LeaderChange" if e.kind == "leader_change" else "Data"}


def cells(free: FreeLog, action: FreeAction) -> list[tuple[str, str]]:
    """The coverage cell of ``action``: a VotersRecord by how its set relates to the one in
    force before it (``disjoint``: no voter id shared; ``no-majority``: more than one replica
    key left or joined; ``one-change``: at most one each way; ``odd-ids`` first: replica id 0 or
    2**15 joins or leaves, VOTERS-DRIVE-ODD-IDS), the other kinds by name."""
    match action:
        case FreeAppend(entry=e) if e.kind == VOTERS:
            last = free.control.last_voter_set()
            new = _payload_set(e)
            if new == last:
                kind = "repeated"
            elif (voter_ids(last) ^ voter_ids(new)) & set(ODD_IDS):
                kind = "odd-ids"
            elif not voter_ids(last) & voter_ids(new):
                kind = "disjoint"
            elif len(last - new) > 1 or len(new - last) > 1:
                kind = "no-majority"
            else:
                kind = "one-change"
            return [(ROLE, f"Voters:{kind}")]
        case FreeAppend(entry=e):
            return [(ROLE, str(_record(e)["type"]))]
        case FreeRead(offset=o):
            return [(ROLE, "Read" if o < free.control.next_offset else "Read:refused")]
        case _:
            return [(ROLE, type(action).__name__.removeprefix("Free"))]


def probes(free: FreeLog, rules: Rules, k: int) -> list[tuple[str, FreeAction]]:
    """VOTERS-DRIVE-FREE-PROBE: the free-log script a guided path ends with (the free log is
    left to the random runs, ``unguided``, so without it a guided run never writes, truncates or
    reads it). From the formatted free log: a VotersRecord one voter off the set in force, then
    one sharing no voter with it (``disjoint``; a history that refuses sets without an
    overlapping majority drops it: KAFKA-17973), reads at the next offset (refused) and the one
    below it, a truncation below the log end (one past its floor or, every other path, at the
    floor) and reads at the
    new log end and in [truncation point, old next offset) (a reader whose next offset stays put
    answers there: K2), then a VotersRecord written again at the truncation point (one voter's
    disk replaced, VOTERS-KEY, where the menu has it) and read, then the set with replica ids 0
    and 2**15 (VOTERS-DRIVE-ODD-IDS) and a read at it.
    Each step is taken as the model then enables it (:func:`candidates` under ``rules``);
    :func:`step` gives the state for the next, so the offsets follow the script's own log. A
    static quorum's free log (kraft.version 0) first takes a LeaderChange, the upgrade's
    KRaftVersionRecord and a snapshot that ends before it (it holds kraft.version 0). The script
    ends with the kraft.version in force written again (kraft.version 1:
    VOTERS-DRIVE-FREE-VERSION-TRIM), a snapshot at the log end and reads below it."""
    out: list[tuple[str, FreeAction]] = []

    def enabled(action: FreeAction) -> bool:
        return any(a == action for _, a in candidates(free, rules))

    def take(category: str, action: FreeAction | None) -> None:
        nonlocal free
        if action is not None and enabled(action):
            out.append((category, action))
            free = step(free, action, rules)[0]

    def voters_append(kind: str) -> FreeAction | None:
        found = [a for c, a in candidates(free, rules)
                 if c == "free_voters" and cells(free, a) == [(ROLE, f"Voters:{kind}")]]
        return found[0] if found else None

    def replaced_disk() -> FreeAction | None:
        last = free.control.last_voter_set()
        found = [a for c, a in candidates(free, rules) if c == "free_voters" and isinstance(a, FreeAppend)
                 and (new := _payload_set(a.entry)) != last and voter_ids(new) == voter_ids(last)]
        return found[0] if found else None

    if not free.log and free.control.last_kraft_version() == 0:
        # A static quorum's upgrade: a snapshot that ends before the KRaftVersionRecord holds
        # kraft.version 0, the version at its last offset (VOTERS-SNAP-TAKE), not the newest read.
        take("free_record", FreeAppend(Entry(free.epoch, "leader_change", ())))
        take("free_record", FreeAppend(Entry(free.epoch, KRAFT_VERSION, (1,))))
        take("free_log", FreeSnapshot(1))
        # VOTERS-DRIVE-FREE-REBUILD: then a snapshot holding kraft.version 1 and no voter set
        for category, action in rebuild_probes(free, rules):
            take(category, action)
    take("free_voters", voters_append("one-change"))
    take("free_voters", voters_append("disjoint") or voters_append("no-majority"))
    end = free.control.next_offset
    take("free_read", FreeRead(end))
    take("free_read", FreeRead(end - 1))
    cut = min(free.floor + (1 if k % 2 == 0 else 0), len(free.log) - 1)
    if cut >= free.floor:
        take("free_log", FreeTruncate(cut))
        for o in range(cut, end + 1):
            take("free_read", FreeRead(o))
        # written again as one voter's disk replaced (VOTERS-KEY: the same ids, another key)
        take("free_voters", replaced_disk() or voters_append("one-change") or voters_append("disjoint"))
        take("free_read", FreeRead(cut))
        take("free_read", FreeRead(free.control.next_offset))
    # Replica ids at the edges (VOTERS-DRIVE-ODD-IDS: 0 and 2**15), read back at their offset.
    take("free_voters", voters_append("odd-ids"))
    take("free_read", FreeRead(free.control.next_offset - 1))
    # VOTERS-DRIVE-FREE-VERSION-TRIM: the kraft.version in force written again, so that the
    # snapshot below trims a kraft.version history of two entries (VOTERS-CTRL-TRIM trims both
    # histories; the read at -1 then answers none, where a reader that trims only the voter sets
    # answers the older entry).
    if free.control.last_kraft_version() >= 1:
        take("free_record", FreeAppend(Entry(free.epoch, KRAFT_VERSION, (free.control.last_kraft_version(),))))
    # A snapshot at the log end, then reads below it: answered from the entry in force there
    # (the trim keeps it, VOTERS-CTRL-TRIM), not refused as trimmed.
    take("free_log", FreeSnapshot(len(free.log)))
    for o in (-1, len(free.log) - 2):
        take("free_read", FreeRead(o))
    for category, action in rebuild_probes(free, rules):  # VOTERS-DRIVE-FREE-REBUILD
        take(category, action)
    for category, action in repeated_set_probes(free, rules):  # VOTERS-DRIVE-FREE-REPEATED-SET
        take(category, action)
    return out


def repeated_set_probes(free: FreeLog, rules: Rules) -> list[tuple[str, FreeAction]]:
    """VOTERS-DRIVE-FREE-REPEATED-SET (session 28): VOTERS-CTRL-APPEND adds every VotersRecord at
    its own offset, one repeating the set in force too (an accepted UpdateVoter writes one), but
    the free log's menu (:func:`_voter_sets`) never repeats it, so no guided path wrote one. From
    ``free`` (:func:`probes` ends with it, after VOTERS-DRIVE-FREE-REBUILD's restart, where the
    history's last entry is the snapshot's): the set in force written again (category
    :data:`PROBE`, which no lockstep rule draws), then a read at its offset. Each step as the
    model then enables it."""
    out: list[tuple[str, FreeAction]] = []
    if not free.control.last_voter_set():
        return out
    again = FreeAppend(voters_entry(free.epoch, free.control.last_voter_set()))
    script: list[tuple[str, FreeAction]] = [(PROBE, again), ("free_read", FreeRead(free.control.next_offset))]
    for category, action in script:
        if any(a == action for _, a in candidates(free, rules)):
            out.append((category, action))
            free = step(free, action, rules)[0]
    return out


def rebuild_probes(free: FreeLog, rules: Rules) -> list[tuple[str, FreeAction]]:
    """VOTERS-DRIVE-FREE-REBUILD: a snapshot's control records are loaded at its last contained
    offset, each on its own (VOTERS-CTRL-SNAPSHOT, VOTERS-CTRL-REBUILD), which only a restart
    after a snapshot shows; the free-log script restarted only where its random steps did. From
    ``free``: a snapshot at the log end where the latest one ends below it, a restart, then reads
    at the snapshot's last offset and at -1. :func:`probes` takes it after a static quorum's
    upgrade record (the snapshot holds kraft.version 1 and no voter set) and at its end. Each
    step as the model then enables it."""
    out: list[tuple[str, FreeAction]] = []
    script: list[tuple[str, FreeAction]] = []
    if free.log and (free.snapshot is None or free.snapshot.end_offset < len(free.log)):
        script.append(("free_log", FreeSnapshot(len(free.log))))
    script += [("free_log", FreeRestart()), ("free_read", FreeRead(len(free.log) - 1)), ("free_read", FreeRead(-1))]
    for category, action in script:
        if any(a == action for _, a in candidates(free, rules)):
            out.append((category, action))
            free = step(free, action, rules)[0]
    return out
