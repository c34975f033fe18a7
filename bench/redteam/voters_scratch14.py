"""KRaft voter-set (KIP-853) bugs, session 23's blind round ("blindvs").

Each bug overrides one or a few methods of the reference replica
(:class:`~kspec.conformance.targets.reference.voters.VoterReplica`) or of its control-record
state machine (:class:`~kspec.conformance.targets.reference.voters.ControlRecords`), written from
README.md, CONTRIBUTING.md, docs/adapter-guide.md, docs/design.md, spec/voters.md,
spec/adapter-protocol.md, KIP-853 and the reference target alone (no driver, model or mutant
catalogue read before the first measurement; the earlier voters modules read for their bug names
only). They aim at sequences the earlier rounds left alone: a replaced disk under auto-join
whose id is still a voter (the join condition by id), an old disk's plain Fetch still in flight
after its host's new key was added, an observer whose last Fetch diverged at the leader's log end
when AddVoter comes, a second UpdateVoter while the first one's VotersRecord is uncommitted,
and a truncation followed by a new VotersRecord at an offset the history had read before.

BEFORE (committed before any kspec change; ``redteam_power.py --seeds 2``): caught at seeds 0
and 1: auto-join-checks-id-only (23 runs), update-pending-by-set-difference (104),
log-truncate-keeps-read-mark (1); escaped at both: unkeyed-fetch-counted-for-replaced-voter,
add-caught-up-by-divergent-fetch. AFTER (session 23, VOTERS-DRIVE-STALE-DISK-FETCH):
unkeyed-fetch-counted-for-replaced-voter caught at seeds 0 and 1 (run 6);
add-caught-up-by-divergent-fetch still escapes (not reached).

    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch14:Correct
    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch14:CorrectLog
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.raft import RaftReplica
from kspec.conformance.targets.reference.voters import ControlRecords, VoterReplica, VoterSet, _ids
from redteam._targets import register, subclass

# the targets of the two levels, as session 15's voters module defines them
from redteam.voters_scratch7 import LogTarget, ReplicaTarget

# ---------------------------------------------------------------------------- replica-level bugs


class AutoJoinChecksIdOnly(VoterReplica):
    """VOTERS-RULE-AUTO-JOIN ("whose own replica key (id, directory) is not in the voter set in
    force"): the implementer reads KIP-853's "a controller that is not a voter" by id, as the
    static quorum did (``voters.contains(localId)``), so a replaced disk, whose id is still a
    voter under the old directory, never asks anything: not the RemoveVoter of its old key, so
    not the AddVoter of its new one either (only after an operator removes the old key does it
    add itself). Needs auto-join on, a voter's disk replaced (ReplaceDisk), the new disk
    following the leader at kraft.version 1, then its update-voter-set period
    (UpdateVoterSetDue)."""

    def joins(self) -> bool:
        return (self.auto_join and self.role == "follower" and self.control.kraft_version() >= 1
                and self.id not in _ids(self.voter_set))


class UnkeyedFetchCountedForReplacedVoter(VoterReplica):
    """VOTERS-RULE-FETCH-BY-KEY ("a fetch from a voter's id under another directory (... the old
    disk's still in flight after the new key was added) is an observer's"): the leader checks the
    directory only when the Fetch names one (v17's ``ReplicaDirectoryId``); a Fetch without it
    ("an old client, it cannot tell") is taken as the voter's whatever directory the set holds
    for that id. So once (h, new directory) is a voter, the old disk's plain Fetch still in flight
    moves h's fetch offset, the check-quorum set and the high watermark (the old log's offset
    counted for a disk that does not hold it). Needs a voter's disk replaced, its old key removed
    and the new one added, and a plain Fetch of the old disk delivered after that (or a replica
    whose set gives a replaced directory for a host fetching without a directory)."""

    def on_valid_fetch(self, replica: int, offset: int) -> None:
        directory, named = self._fetch_key or (replica, False)
        mine = dict(self.voter_set).get(replica)
        if mine is not None and not named:
            directory = mine  # the slip: an unnamed fetch is trusted as the voter's key
        if mine is not None and mine != directory:
            return
        if directory == replica:
            self.fetch_dirs.pop(replica, None)
        else:
            self.fetch_dirs[replica] = directory
        RaftReplica.on_valid_fetch(self, replica, offset)


class AddCaughtUpByDivergentFetch(VoterReplica):
    """VOTERS-RULE-ADD step 7 ("the new voter has caught up to the leader's log end", its fetch
    offset as the leader *knows* it: a valid Fetch, whose last fetched epoch matches the leader's
    log): the leader keeps an observer table filled as each Fetch arrives (for DescribeQuorum's
    observers, before the Fetch is validated), and AddVoter's caught-up check reads that table.
    An observer whose log diverged from the leader's (records of an old leader's epoch never
    committed) and whose Fetch offset happens to equal the leader's log end is taken as caught
    up, though the leader answers that Fetch with a diverging epoch and the observer truncates
    first. Needs kraft.version 1, an observer holding uncommitted records of an earlier epoch, a
    new leader whose log end equals the observer's, the observer's Fetch in the new epoch, then
    AddVoter for it."""

    def on_FetchRequest(self, req: dict[str, Any]) -> None:
        if (self.role == "leader" and req["epoch"] == self.epoch and req["src"] >= 0
                and req["src"] not in self.voters and req["fetch_offset"] >= 0):
            seen = self.__dict__.setdefault("_arrived", {})
            if seen.get("epoch") != self.epoch:
                seen.clear()
                seen["epoch"] = self.epoch
            seen[req["src"]] = req["fetch_offset"]
        super().on_FetchRequest(req)

    on_KeyedFetchRequest = on_FetchRequest

    def reconfigure(self, inp: dict[str, Any]) -> None:
        seen = self.__dict__.get("_arrived", {})
        replica = inp.get("replica", -1)
        if (inp["type"] == "AddVoter" and self.role == "leader" and seen.get("epoch") == self.epoch
                and replica in seen and replica >= 0):
            had = replica in self.end_offsets
            before = self.end_offsets.get(replica)
            self.end_offsets[replica] = seen[replica]
            try:
                return super().reconfigure(inp)
            finally:
                if had:
                    self.end_offsets[replica] = before  # type: ignore[assignment]
                else:
                    self.end_offsets.pop(replica, None)
        return super().reconfigure(inp)


class UpdatePendingBySetDifference(VoterReplica):
    """VOTERS-RULE-UPDATE step 7 with VOTERS-RULE-ONE-CHANGE ("it changes no majority, but it is a
    voter change for VOTERS-RULE-ONE-CHANGE"): UpdateVoter's handler asks whether a change is
    pending by comparing the voter set at the log end with the committed one ("is the quorum
    changing?"), which is right for AddVoter and RemoveVoter but not for UpdateVoter's own
    record: it rewrites the same keys. So a second UpdateVoter while the first one's VotersRecord
    is uncommitted is accepted, and two uncommitted VotersRecords stand in the log. Needs
    kraft.version 1, a leader with followers (a lone voter commits at once), two UpdateVoters
    (or an UpdateVoter after another) before the leader's high watermark passes the first."""

    _updating = False

    def update_voter(self, inp: dict[str, Any]) -> None:
        self._updating = True
        try:
            return super().update_voter(inp)
        finally:
            self._updating = False

    def change_pending(self) -> bool:
        if not self._updating:
            return super().change_pending()
        history = self.control.voter_history
        assert self.high_watermark is not None
        if not history:
            return True
        committed: VoterSet | None = self.control.value_at(history, self.high_watermark - 1)
        return committed != self.control.voters_now()


# ---------------------------------------------------------------------------- log-level bugs


class TruncateKeepsReadMark(ControlRecords):
    """VOTERS-CTRL-TRUNCATE ("both histories drop the entries at or after the truncation offset")
    with VOTERS-CTRL-APPEND: the reader guards against a batch handed to it twice (a follower
    re-fetching after a timeout) with a mark of the highest offset whose VotersRecord it has read,
    and skips a VotersRecord at or below it. The mark is reset on a rebuild but not on a
    truncation, so after a truncation below a VotersRecord, the VotersRecord the new leader's log
    holds at that offset (or any offset up to the old one) is skipped: the history answers the
    set in force before it. Needs a VotersRecord appended, a truncation to an offset at or below
    it, then a VotersRecord appended at an offset up to the truncated one's."""

    def rebuild(self) -> None:
        self._mark = -2
        super().rebuild()

    def add_voters(self, offset: int, voters: VoterSet) -> None:
        if offset <= getattr(self, "_mark", -2):
            return  # the slip: "already read" (the mark survived a truncation)
        self._mark = offset
        super().add_voters(offset, voters)


# ---------------------------------------------------------------------------- registration

Correct = subclass(globals(), "Correct", ReplicaTarget)
CorrectLog = subclass(globals(), "CorrectLog", LogTarget)
CORRECT = "Correct"
BASELINES = ("Correct", "CorrectLog")

REPLICA_BUGS: dict[str, type[VoterReplica]] = {
    "auto-join-checks-id-only": AutoJoinChecksIdOnly,
    "unkeyed-fetch-counted-for-replaced-voter": UnkeyedFetchCountedForReplacedVoter,
    "add-caught-up-by-divergent-fetch": AddCaughtUpByDivergentFetch,
    "update-pending-by-set-difference": UpdatePendingBySetDifference,
}

LOG_BUGS: dict[str, type[ControlRecords]] = {
    "log-truncate-keeps-read-mark": TruncateKeepsReadMark,
}


def _replica(cls: type[VoterReplica]) -> tuple[str, dict[str, Any]]:
    return cls.__name__ + "Target", {"replica": cls, "__doc__": cls.__doc__}


def _log(cls: type[ControlRecords]) -> tuple[str, dict[str, Any]]:
    return cls.__name__ + "Target", {"control": cls, "__doc__": cls.__doc__}


TARGETS = {**register(globals(), ReplicaTarget, REPLICA_BUGS, _replica),
           **register(globals(), LogTarget, LOG_BUGS, _log)}
