"""KRaft voter-set (KIP-853) bugs, session 20's blind round ("blindvoters").

Each bug overrides one or a few methods of the reference replica
(:class:`~kspec.conformance.targets.reference.voters.VoterReplica`) or of its control-record
state machine (:class:`~kspec.conformance.targets.reference.voters.ControlRecords`), written from
README.md, CONTRIBUTING.md, docs/adapter-guide.md, docs/design.md, spec/voters.md, KIP-853 and the
reference target alone (no driver, model or mutant catalogue read before the first measurement).
They are the slips of an implementer who knows the KIP, each needing a voter change, a disk
replacement, an upgrade or a snapshot before it shows: RemoveVoter waiting for the removed voter
to catch up (AddVoter's check copied), a Vote naming another disk refused before the replica moves
to the request's higher epoch, the kraft.version upgrade judging only the voters that reported
(the others written with the -1 directory sentinel), UpdateVoter finding the voter by id and
writing the new directory (a disk replacement done by an update), the bootstrap servers taken
from the voter set in force, a candidate's Vote to a replaced-disk voter not naming its directory,
a replaced disk keeping its quorum-state epoch, and a snapshot's trim keeping the oldest entry
before its end instead of the one in force.

    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch12:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.raft import RaftReplica
from kspec.conformance.targets.reference.voters import ControlRecords, VoterReplica, VoterSet, _ids
from redteam._targets import register, subclass

# the targets of the two levels, as session 15's voters module defines them
from redteam.voters_scratch7 import LogTarget, ReplicaTarget

# ---------------------------------------------------------------------------- replica-level bugs


class RemoveWaitsForCatchUp(VoterReplica):
    """VOTERS-RULE-REMOVE: RemoveVoter has no catch-up step (the replica leaves; whether it kept
    up does not matter, and removing a dead voter is the common case). This one shares AddVoter's
    "caught up to the log end" check ("a voter change waits for the replica it names"), so the
    RemoveVoter of a voter that has not fetched the leader's log end in this epoch is answered
    REQUEST_TIMED_OUT. Needs kraft.version 1, a leader with a committed set (its HW known) and a
    voter that lags, or has not fetched since the election, then its RemoveVoter."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if (inp["type"] == "RemoveVoter" and self.role == "leader" and self.valid_key(inp)
                and self.high_watermark is not None and self.control.kraft_version() >= 1
                and not self.change_pending()):
            current = self.control.voters_now()
            key = (inp["replica"], inp["directory"])
            if (key in current and len(current) > 1 and key[0] != self.id
                    and self.end_offsets.get(key[0]) != self.end_offset):
                return self.reject("remove_voter", key[0], "REQUEST_TIMED_OUT")
        return super().reconfigure(inp)


class KeyedVoteRefusedBeforeEpoch(VoterReplica):
    """VOTERS-RULE-VOTE-BY-KEY: a Vote naming another directory than this disk's is refused
    INVALID_VOTER_KEY after the replica has moved to a higher epoch the request carries (as any
    request of a higher epoch). This one refuses it before the epoch transition ("a refused
    request changes nothing"), so the replica stays in its old epoch (and its old leader)
    after a keyed Vote it refused. Needs a disk replacement, the replaced disk's key in a voter
    set (auto-join or AddVoter), then a candidate of a higher epoch naming the old disk."""

    def on_VoteRequest(self, req: dict[str, Any]) -> None:
        named = req.get("voter_directory", self.id)
        if (self.directory != self.id or "voter_directory" in req) and named != self.directory:
            pre_vote = bool(req.get("pre_vote"))
            if self.refuse_vote(req, pre_vote=pre_vote) or self.refuse_non_voter(req):
                return
            self.answer_vote(req, False, pre_vote=pre_vote, error="INVALID_VOTER_KEY")
            return
        super().on_VoteRequest(req)

    on_KeyedVoteRequest = on_VoteRequest


class UpgradeSkipsUnreported(VoterReplica):
    """VOTERS-RULE-UPGRADE-VOTERS: the upgrade to kraft.version 1 is refused until every voter has
    reported (UpdateRaftVoter) that it supports kraft.version 1. This one judges the reports it
    has ("every voter that answered supports it"), so a voter that never sent UpdateVoter is
    written into the upgrade's VotersRecord with the directory sentinel -1. Needs a
    kraft.version-0 cluster of several voters, a leader whose HW is known, then the upgrade
    before every voter's UpdateVoter."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if inp["type"] != "UpgradeKRaftVersion" or not self.upgrade_voters:
            return super().reconfigure(inp)
        reports = self.upgrade_voters
        self.upgrade_voters = {r: (d, ok or d == -1) for r, (d, ok) in reports.items()}
        try:
            return super().reconfigure(inp)
        finally:
            self.upgrade_voters = reports  # (an accepted upgrade's step then drops them)


class UpdateVoterById(VoterReplica):
    """VOTERS-RULE-UPDATE step 9 / VOTERS-KEY: the voter is found by its whole replica key; an
    UpdateVoter naming a voter's id under another directory is answered VOTER_NOT_FOUND. This one
    finds the voter by id and writes the request's directory into the new VotersRecord ("an
    update carries the voter's current key"), so a replaced disk's UpdateVoter replaces the old
    disk in the voter set with no RemoveVoter / AddVoter (and no catch-up). Needs kraft.version 1,
    a disk replacement of a voter, then the replaced disk's UpdateVoter at the leader."""

    rewrite: tuple[int, int] | None = None

    def update_voter(self, inp: dict[str, Any]) -> None:
        current = dict(self.control.voters_now())
        replica = inp["replica"]
        if (self.role == "leader" and self.control.kraft_version() >= 1 and replica in current
                and current[replica] != inp["directory"] and self.valid_key(inp)):
            self.rewrite = (replica, inp["directory"])
            try:
                return super().update_voter({**inp, "directory": current[replica]})
            finally:
                self.rewrite = None
        return super().update_voter(inp)

    def leader_append(self, entries: list[dict[str, Any]]) -> None:
        if self.rewrite is not None and [e["kind"] for e in entries] == ["voters"]:
            payload = list(entries[0]["payload"])
            for i in range(0, len(payload), 2):
                if payload[i] == self.rewrite[0]:
                    payload[i + 1] = self.rewrite[1]
            entries = [{**entries[0], "payload": payload}]
        super().leader_append(entries)


class BootstrapServersFollowVoters(VoterReplica):
    """VOTERS-RULE-OBSERVER-BOOTSTRAP: an observer without a leader asks the bootstrap servers
    (``controller.quorum.bootstrap.servers``, configuration), whatever the voter set in force.
    This one refreshes its bootstrap servers from every voter set it reads ("the voters are the
    servers to ask"), so after a voter change an observer asks the new set: it skips a removed
    initial voter and asks an added one. Needs a voter change, then an observer (a removed voter
    or a replica never added) without a leader whose fetch is due."""

    def use_voters(self, voters: VoterSet) -> None:
        super().use_voters(voters)
        if voters:
            self.bootstrap_servers = set(_ids(voters))


class VoteOmitsVoterDirectory(VoterReplica):
    """VOTERS-RULE-VOTE-BY-KEY (sending side): a candidate's Vote to a voter whose key in its set
    is a replaced disk names that directory (``voterKey`` in VoteRequest). This one sends every
    Vote by id ("the receiver knows its own directory"), so the replaced disk, now a voter under
    its new key, refuses it as INVALID_VOTER_KEY and the election misses its vote. Needs a disk
    replacement, the new disk added as a voter (auto-join's remove then add, both committed),
    then an election at another voter."""

    def send(self, kind: str, dst: int, **fields: Any) -> None:
        if kind == "VoteRequest":
            RaftReplica.send(self, kind, dst, **fields)
            return
        super().send(kind, dst, **fields)


class ReplacedDiskKeepsEpoch(VoterReplica):
    """VOTERS-RULE-DISK-REPLACED: the new disk is formatted afresh, its quorum-state file too
    (epoch 0, no vote, no leader). This one keeps the epoch it knew ("the quorum-state is the
    host's, the log is the disk's", as with a separate ``metadata.log.dir``), so the replaced
    disk starts unattached in its old epoch. Needs an election or two (an epoch above 0), then
    a disk replacement."""

    def replace_disk(self, directory: int) -> None:
        epoch = self.epoch
        super().replace_disk(directory)
        self.epoch = epoch


# ---------------------------------------------------------------------------- log-level bug


class TrimKeepsOldest(ControlRecords):
    """VOTERS-CTRL-TRIM (``TreeMapLogHistory.truncateOldEntries``): a snapshot ending at N drops
    the entries at or before N - 1 except the latest of them (the one in force at N - 1). This
    one keeps the first of them (``headMap(...).firstEntry()`` where ``lastEntry()`` was meant),
    so after two voter sets below a snapshot's end a read between the snapshot's last offset and
    the next entry answers the oldest set. Needs two VotersRecords (or two KRaftVersion records),
    then a snapshot past both, then a read."""

    @staticmethod
    def trim(history: list[tuple[int, Any]], last: int) -> list[tuple[int, Any]]:
        older = [e for e in history if e[0] <= last]
        return older[:1] + [e for e in history if e[0] > last]


# ---------------------------------------------------------------------------- registration

Correct = subclass(globals(), "Correct", ReplicaTarget)
CorrectLog = subclass(globals(), "CorrectLog", LogTarget)
CORRECT = "Correct"
BASELINES = ("Correct", "CorrectLog")

REPLICA_BUGS: dict[str, type[VoterReplica]] = {
    "remove-waits-for-catch-up": RemoveWaitsForCatchUp,
    "keyed-vote-refused-before-epoch": KeyedVoteRefusedBeforeEpoch,
    "upgrade-skips-unreported": UpgradeSkipsUnreported,
    "update-voter-by-id": UpdateVoterById,
    "bootstrap-servers-follow-voters": BootstrapServersFollowVoters,
    "vote-omits-voter-directory": VoteOmitsVoterDirectory,
    "replaced-disk-keeps-epoch": ReplacedDiskKeepsEpoch,
}

LOG_BUGS: dict[str, type[ControlRecords]] = {
    "log-trim-keeps-oldest": TrimKeepsOldest,
}


def _replica(cls: type[VoterReplica]) -> tuple[str, dict[str, Any]]:
    return cls.__name__ + "Target", {"replica": cls, "__doc__": cls.__doc__}


def _log(cls: type[ControlRecords]) -> tuple[str, dict[str, Any]]:
    return cls.__name__ + "Target", {"control": cls, "__doc__": cls.__doc__}


TARGETS = {**register(globals(), ReplicaTarget, REPLICA_BUGS, _replica),
           **register(globals(), LogTarget, LOG_BUGS, _log)}
