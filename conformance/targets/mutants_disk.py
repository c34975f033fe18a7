"""The disk-replacement mutants (issue #18, KIP-853's motivating example; session 18).

Each is the reference voters replica with one slip that only a replaced disk shows
(VOTERS-RULE-DISK-REPLACED), so only VOTERS-DRIVE-DISK-REPLACED, -VOTE and -REJOINED-DISK-VOTE
(the driver's start probes for a target that declares ``disk_replacement``) reach it: no other
run replaces a disk.
Registered in ``mutants.CATALOGUE`` (the block at its end).
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.raft import RaftReplica
from kspec.conformance.targets.reference.voters import VoterReplica


class FetchCountedById(VoterReplica):
    """The leader matches a fetch to a voter by replica id alone: a replaced disk's fetch (same
    id, new directory) is counted as the old voter's, so the high watermark moves past records
    that only the leader and the wiped disk hold, and the new disk counts for check-quorum
    (VOTERS-RULE-FETCH-BY-KEY: Kafka's ``LeaderState`` keeps a key that does not match the voter's
    among the observers). VOTERS-DRIVE-DISK-REPLACED: the new disk fetches the leader's append."""

    def on_valid_fetch(self, replica: int, offset: int) -> None:
        directory, _ = self._fetch_key or (replica, False)
        if directory == replica:
            self.fetch_dirs.pop(replica, None)
        else:
            self.fetch_dirs[replica] = directory
        RaftReplica.on_valid_fetch(self, replica, offset)


class NewDiskKeepsDirectory(VoterReplica):
    """A replica whose disk was replaced keeps answering as the old directory id (it reads its
    directory id from configuration, not from the disk's meta.properties): its fetches name the
    old key, so the leader counts them as the old voter's, it takes the old voter's place in the
    fetched voter set, and it grants a Vote meant for the old disk with its empty log
    (VOTERS-RULE-DISK-REPLACED, -VOTE-BY-KEY). VOTERS-DRIVE-DISK-REPLACED and -VOTE."""

    def replace_disk(self, directory: int) -> None:
        super().replace_disk(self.id)


class ReplacedDiskNeverVotes(VoterReplica):
    """A replica whose disk was replaced refuses every Vote as INVALID_VOTER_KEY ("a wiped disk
    must not elect a candidate"), also once it is a voter again under its new key and the Vote
    names that key: the refusal is for a Vote naming another directory (VOTERS-RULE-VOTE-BY-KEY),
    not for the new disk. VOTERS-DRIVE-REJOINED-DISK-VOTE: the two other disk probes end before
    any Vote names the new key."""

    def on_VoteRequest(self, req: dict[str, Any]) -> None:
        if self.directory != self.id:
            req = {**req, "voter_directory": self.id}
        super().on_VoteRequest(req)

    on_KeyedVoteRequest = on_VoteRequest


class ErrorAnswerCountsAsRefusal(VoterReplica):
    """A candidate or prospective counts a VoteResponse with an error as a refusal (a port that
    reads ``VoteGranted`` alone): the INVALID_VOTER_KEY of a replaced disk is one more refusal, so
    a candidate backs off and a prospective returns to its prior state with one real refusal of
    three (RAFT-RULE-VOTE-ERROR: an answer with an error is no vote; Kafka's ``handleVoteResponse``
    records only ``NONE`` answers, 3.7-4.4). VOTERS-DRIVE-DISK-REPLACED-VOTE's pre-vote shape."""

    @staticmethod
    def is_ballot(resp: dict[str, object]) -> bool:
        return True


class UnkeyedFetchCounted(VoterReplica):
    """The leader checks a fetch's directory only where the Fetch names one (v17's
    ``ReplicaDirectoryId``) and takes a plain Fetch as the voter's whatever directory its set
    holds for that id: the old disk's Fetch still in flight after the new key was added moves
    the voter's fetch offset back to the old log's (VOTERS-RULE-FETCH-BY-KEY: the old disk's
    fetch after the new key was added is an observer's). VOTERS-DRIVE-STALE-DISK-FETCH: the
    other disk probes start with nothing in flight, so no old-disk Fetch outlives the swap."""

    def on_valid_fetch(self, replica: int, offset: int) -> None:
        directory, named = self._fetch_key or (replica, False)
        mine = dict(self.voter_set).get(replica)
        if mine is not None and not named:
            directory = mine
        if mine is not None and mine != directory:
            return
        if directory == replica:
            self.fetch_dirs.pop(replica, None)
        else:
            self.fetch_dirs[replica] = directory
        RaftReplica.on_valid_fetch(self, replica, offset)


ENTRIES: tuple[tuple[str, str, type, str, bool, str], ...] = (
    ("voters-fetch-counted-by-id", "voters", FetchCountedById, "identity by id where the key is (id, directory)", True,
     "VOTERS-DRIVE-DISK-REPLACED's (session 18): a start probe's guided run at seeds 0 and 1; no other run "
     "replaces a disk"),
    ("voters-new-disk-keeps-directory", "voters", NewDiskKeepsDirectory,
     "identity read from configuration instead of from the disk", True,
     "VOTERS-DRIVE-DISK-REPLACED's and -VOTE's (session 18): a start probe's guided run at seeds 0 and 1; no "
     "other run replaces a disk"),
    ("voters-replaced-disk-never-votes", "voters", ReplacedDiskNeverVotes,
     "a refusal meant for a stale key applied to the replica itself", True,
     "VOTERS-DRIVE-REJOINED-DISK-VOTE's (session 20): a start probe's guided run at seeds 0 and 1; the other "
     "disk probes end before a Vote names the new key"),
    ("voters-error-answer-counts-as-refusal", "voters", ErrorAnswerCountsAsRefusal,
     "an error answer read as a negative one", True,
     "VOTERS-DRIVE-DISK-REPLACED-VOTE's pre-vote shape (session 20): the replaced disk's INVALID_VOTER_KEY and "
     "the leader's refusal reach the prospective, which must stay prospective; no other run answers a vote "
     "with an error"),
    ("voters-unkeyed-fetch-counted", "voters", UnkeyedFetchCounted,
     "an unchecked field read as a match (no directory named, any directory taken)", True,
     "VOTERS-DRIVE-STALE-DISK-FETCH's (session 23, red team voters_scratch14's "
     "unkeyed-fetch-counted-for-replaced-voter escaped seeds 0 and 1): the old disk's Fetch in flight "
     "across the swap, delivered after the new key was added; no other run keeps one"),
)
