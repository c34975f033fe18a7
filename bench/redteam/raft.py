"""Raft (KIP-595/KIP-996) replicas with planted bugs, over the plain-dict reference replica.

Each class re-implements one method of :class:`RaftReplica` the way a real implementer slips.
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.raft import FENCED, NONE, RaftReplica, RaftTarget


class FetchAtEndDiverges(RaftReplica):
    """Off by one at the boundary: the leader accepts a fetch only strictly inside its log
    (``offset < end``), so a follower that is fully caught up is told it diverges."""

    def on_FetchRequest(self, req: dict[str, Any]) -> None:
        if req["epoch"] != self.epoch or self.role != "leader":
            return super().on_FetchRequest(req)
        offset, last_epoch = req["fetch_offset"], req["last_fetched_epoch"]
        found, end = self.end_offset_for_epoch(last_epoch)
        valid = (offset == 0 and last_epoch == 0) or (found == last_epoch and end >= offset
                                                       and offset < self.end_offset)
        if not valid:
            self.send("FetchResponse", req["src"], epoch=self.epoch, leader=self.id, error=NONE, offset=offset,
                      entries=[], high_watermark=self.high_watermark, diverging=[found, end])
            return None
        self.on_valid_fetch(req["src"], offset)
        self.send("FetchResponse", req["src"], epoch=self.epoch, leader=self.id, error=NONE, offset=offset,
                  entries=[dict(e) for e in self.log[offset:]], high_watermark=self.high_watermark, diverging=None)
        return None


class HwCountsObservers(RaftReplica):
    """The leader computes the high watermark over every replica that fetched, observers too
    (a majority of "replicas", not of voters)."""

    def update_high_watermark(self) -> None:
        offsets = dict(self.end_offsets)
        offsets[self.id] = self.end_offset
        ordered = sorted(offsets.values(), reverse=True)
        majority_offset = ordered[len(self.voters) // 2] if len(ordered) > len(self.voters) // 2 else 0
        if majority_offset <= self.epoch_start:
            return
        if self.high_watermark is not None and majority_offset <= self.high_watermark:
            return
        self.high_watermark = majority_offset


class EqualEpochVoteResets(RaftReplica):
    """Stale versus equal epoch: a VoteRequest at the replica's own epoch is treated like a new
    epoch (``>=``), so a replica that voted (or follows a leader) in the epoch forgets it and
    may vote for a second candidate."""

    def on_VoteRequest(self, req: dict[str, Any]) -> None:
        if req.get("pre_vote") or req["epoch"] < self.epoch or self.role == "leader":
            return super().on_VoteRequest(req)
        up_to_date = self.log_is_up_to_date(req["last_epoch"], req["end_offset"])
        if req["epoch"] >= self.epoch and self.role in ("voted", "follower"):
            self.become_unattached(req["epoch"])
        granted = self.grant_vote(req, up_to_date)
        self.persist()
        self.send("VoteResponse", req["src"], epoch=self.epoch, granted=granted, leader=self.leader,
                  pre_vote=False, error=NONE)
        return None


class TruncateToLeaderEnd(RaftReplica):
    """A follower told it diverges truncates to the leader's end offset for the epoch without
    taking its own end offset for that epoch into account (``min`` forgotten): entries of
    another epoch below the leader's offset survive. Shows only after a deposition."""

    def truncate_to(self, div_epoch: int, div_end: int) -> None:
        target = div_end
        if target < self.end_offset:
            del self.log[target:]
            self.out.append({"type": "TruncateLog", "offset": target})


class VotedIgnoresEndQuorum(RaftReplica):
    """Role: an EndQuorumEpoch of the replica's epoch makes an *unattached* replica follow the
    sender, but a replica that voted in the epoch keeps waiting (the voted role forgotten)."""

    def on_EndQuorumEpochRequest(self, req: dict[str, Any]) -> None:
        if req["epoch"] < self.epoch:
            self.send("EndQuorumEpochResponse", req["src"], epoch=self.epoch, leader=self.leader, error=FENCED)
            return
        self.observe_epoch(req["epoch"], req["src"])
        if (req["epoch"] == self.epoch and req["src"] != self.id and req["src"] in self.voters
                and self.role in ("unattached", "candidate", "prospective") and self.leader is None):
            self.become_follower(req["epoch"], req["src"])
        self.persist()
        self.send("EndQuorumEpochResponse", req["src"], epoch=self.epoch, leader=self.leader, error=NONE)


class RestartForgetsLeader(RaftReplica):
    """Persistence: the leader a follower learned is kept in memory only (the quorum-state file
    is written with the epoch and vote, not the leader), so after a restart the follower comes
    back unattached and waits for an election instead of fetching."""

    def on_restart(self) -> None:
        if self.leader is not None and self.leader != self.id:
            self.leader = None
            self._written = self.election()
        super().on_restart()


class DuplicateVoteCounted(RaftReplica):
    """Votes are counted, not collected: a VoteResponse delivered twice (a retry, a duplicate on
    the wire) counts twice, so a candidate of five voters wins with two real votes."""

    def on_vote_response(self, resp: dict[str, Any]) -> None:
        if self.role != "candidate" or resp["src"] not in self.voters:
            return
        if not hasattr(self, "tally") or self.tally[0] != self.epoch:
            self.tally = [self.epoch, 1]
        if resp["granted"]:
            self.tally[1] += 1
            self.granted.add(resp["src"])
            if self.tally[1] >= len(self.voters) // 2 + 1:
                self.become_leader()
                return
        else:
            self.rejected.add(resp["src"])
        if not self.majority(set(self.voters) - self.rejected):
            self.backing_off = True


def _target(cls: type[RaftReplica]) -> type[RaftTarget]:
    class T(RaftTarget):
        def __init__(self) -> None:
            super().__init__(f"python:redteam.raft:{cls.__name__}", cls)

    T.__name__ = cls.__name__ + "Target"
    return T


Correct = _target(RaftReplica)
CORRECT = "Correct"
BUGS = {
    "fetch-at-end-diverges": FetchAtEndDiverges,
    "hw-counts-observers": HwCountsObservers,
    "equal-epoch-vote-resets": EqualEpochVoteResets,
    "truncate-to-leader-end": TruncateToLeaderEnd,
    "voted-ignores-end-quorum": VotedIgnoresEndQuorum,
    "restart-forgets-leader": RestartForgetsLeader,
    "duplicate-vote-counted": DuplicateVoteCounted,
}
for _name, _cls in BUGS.items():
    globals()[_cls.__name__ + "Target"] = _target(_cls)
TARGETS = {name: cls.__name__ + "Target" for name, cls in BUGS.items()}
