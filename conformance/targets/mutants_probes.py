"""The voters and share drivers' probe mutants (issue #17/#18: "each new observation and input
kind has a mutant in the catalogue that only it catches"), session 15.

Each is the reference target with one slip in the state only one of the drivers' probes reaches
(conformance/drivers/voters.py: ``VotersDriver.probes``; conformance/drivers/share.py: the
composite steps), named in its entry's note. "Only it catches" is measured by
``bench/voters_probe_mutants.py`` and ``bench/share_probe_mutants.py`` (bench/_probes.py switches
that one probe off): caught with the probe at seeds 0 and 1, escaping the default budget without
it (figures in docs/performance.md, "Probe mutants, session 15"). Registered in
``mutants.CATALOGUE`` (the block at its end).
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.mutants_share import LoadingShard
from kspec.conformance.targets.reference.raft import NOT_LEADER
from kspec.conformance.targets.reference.share import ShareShard
from kspec.conformance.targets.reference.voters import ControlRecords, VoterReplica, VoterSet, _entry

# ------------------------------------------------------------------------------ voters


class LapsedObserverUnattachedOnLeaderless(VoterReplica):
    """An observer whose fetch timer lapsed takes a NOT_LEADER_OR_FOLLOWER answer of its epoch
    that names no leader (a bootstrap server that has not learned the epoch's leader) for "this
    epoch has no leader": it goes unattached in the epoch, forgetting the leader it follows,
    where such an answer tells it nothing and it stays its leader's lapsed follower, asking the
    next bootstrap server (VOTERS-RULE-OBSERVER-FETCH-TIMEOUT; Kafka's
    ``maybeHandleCommonResponse`` ignores an answer of the current epoch without a leader).
    VOTERS-DRIVE-LEADERLESS-ANSWER-PROBE ends a guided path with that answer; so does
    VOTERS-DRIVE-LAPSE-PROBE where a path ends with a voter that knows no leader."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        if (self.fetch_lapsed and inp["type"] == "FetchResponse" and inp["epoch"] == self.epoch
                and inp["error"] == NOT_LEADER and inp.get("leader") is None and self.role == "follower"):
            self.out = []
            self.fetch_lapsed = False
            self.become_unattached(self.epoch)
            self.persist()
            return self.out
        return super().step(inp)


class AddCaughtUpAtLastFetch(VoterReplica):
    """The leader judges an AddVoter's replica caught up against the log end it had when that
    replica last fetched (the replica reached the end then), not against its log end now: a
    non-voter that fetched to the end is added right after the leader appends more, where it is
    behind (VOTERS-RULE-ADD step 7: caught up is the leader's log end, REQUEST_TIMED_OUT
    otherwise). VOTERS-DRIVE-UNCOMMITTED-ADD-PROBE ends a guided path with the leader's append
    and an AddVoter for each live non-voter; a guide-graph path that removes a voter and adds it
    back reaches it too."""

    def __init__(self, node_id: int, config: dict[str, Any], *args: Any) -> None:
        super().__init__(node_id, config, *args)
        self.end_at_fetch: dict[int, int] = {}  # replica -> this leader's log end at its last fetch

    def on_valid_fetch(self, replica: int, offset: int) -> None:
        self.end_at_fetch[replica] = self.end_offset
        super().on_valid_fetch(replica, offset)

    def reconfigure(self, inp: dict[str, Any]) -> None:
        replica: int = inp.get("replica", -1)
        if inp["type"] != "AddVoter" or self.role != "leader" or replica not in self.end_offsets \
                or self.end_offsets[replica] != self.end_at_fetch.get(replica):
            return super().reconfigure(inp)
        saved = self.end_offsets[replica]
        self.end_offsets[replica] = self.end_offset  # "caught up": it had the end when it fetched
        try:
            return super().reconfigure(inp)
        finally:
            self.end_offsets[replica] = saved


class LapseEndsOnLeaderlessAnswer(VoterReplica):
    """An observer whose fetch timer lapsed ends the lapse on any Fetch answer of its epoch,
    one that names no leader too: it goes back to fetching from its leader alone, where only an
    answer naming that leader (or the leader's own) ends the lapse and a bootstrap server that
    does not know the leader sends it on to the next one (VOTERS-RULE-OBSERVER-FETCH-TIMEOUT).
    The slip of red team voters_scratch5's ``lapse-ends-on-any-answer`` (session 13), in the
    reference replica. VOTERS-DRIVE-LEADERLESS-ANSWER-PROBE ends a guided path with such an
    answer and a fetch due at a bootstrap server that is not the observer's leader."""

    def _still_lapsed(self, following: tuple[str, int, int | None], inp: dict[str, Any]) -> bool:
        if inp["type"] == "FetchResponse" and inp["epoch"] == self.epoch:
            return False
        return super()._still_lapsed(following, inp)


class AddCaughtUpToCommit(VoterReplica):
    """The leader judges an AddVoter's replica caught up when it has fetched everything
    committed (its fetch offset at the high watermark), not the leader's log end: a non-voter
    that fetched to the end is added right after the leader appends, while it is behind
    (VOTERS-RULE-ADD step 7, REQUEST_TIMED_OUT). The slip of red team voters_scratch5's
    ``add-caught-up-to-high-watermark`` (session 13), in the reference replica.
    VOTERS-DRIVE-UNCOMMITTED-ADD-PROBE ends a guided path with the leader's append and an
    AddVoter for each live non-voter."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        replica: int = inp.get("replica", -1)
        if inp["type"] != "AddVoter" or self.role != "leader" or self.high_watermark is None \
                or self.end_offsets.get(replica, -1) < self.high_watermark:
            return super().reconfigure(inp)
        saved = self.end_offsets[replica]
        self.end_offsets[replica] = self.end_offset  # "caught up": it holds what is committed
        try:
            return super().reconfigure(inp)
        finally:
            self.end_offsets[replica] = saved


class AutoJoinSkipsCatchUp(VoterReplica):
    """The leader takes an observer's own AddVoter request (controller auto-join, 4.2+) as
    caught up: the catch-up check is applied to an administrator's AddVoter only, on the reading
    that a replica asking to join is fetching anyway, so a joining observer that is behind the
    leader's log end becomes a voter at once (VOTERS-RULE-AUTO-JOIN: the request is judged as
    any AddVoter, VOTERS-RULE-ADD step 7, REQUEST_TIMED_OUT until caught up).
    VOTERS-DRIVE-JOIN-PROBE ends a guided path with an observer's join timer and its request
    delivered at once."""

    joining = False  # inside the step of an observer's AddVoterRequest

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        self.joining = inp["type"] == "AddVoterRequest"
        try:
            return super().step(inp)
        finally:
            self.joining = False

    def reconfigure(self, inp: dict[str, Any]) -> None:
        replica: int = inp.get("replica", -1)
        if not self.joining or self.role != "leader" or replica not in self.end_offsets:
            return super().reconfigure(inp)
        saved = self.end_offsets[replica]
        self.end_offsets[replica] = self.end_offset  # taken as caught up
        try:
            return super().reconfigure(inp)
        finally:
            self.end_offsets[replica] = saved


class DescribeCommittedVoters(VoterReplica):
    """The leader's DescribeQuorum lists the voters of the last committed voter set, where the
    set in force is the one at its log end, committed or not (RAFT-RULE-DESCRIBE-QUORUM over
    VOTERS-RULE-EFFECT-ON-APPEND: Kafka's ``LeaderState`` switches its voter states when the VotersRecord
    is appended). VOTERS-DRIVE-DESCRIBE ends a guided path with a DescribeQuorum at the leader,
    some paths right after a voter change; the guide graph's own DescribeQuorum inputs reach it too."""

    def on_DescribeQuorumRequest(self, req: dict[str, Any]) -> None:
        history = self.control.voter_history
        if self.role != "leader" or self.high_watermark is None or not history:
            return super().on_DescribeQuorumRequest(req)
        committed = self.control.value_at(history, self.high_watermark - 1)
        if committed is None:
            return super().on_DescribeQuorumRequest(req)
        saved = self.voters
        self.voters = sorted({r for r, _ in committed})
        try:
            return super().on_DescribeQuorumRequest(req)
        finally:
            self.voters = saved


class UnreachableProspectiveDropsLeader(VoterReplica):
    """A prospective that came from the unattached state of an unreachable leader (restarted
    with a persisted leader outside its voter set) and loses its pre-vote goes back to unattached
    in that epoch without the leader id, where it keeps it (VOTERS-RULE-LEADER-UNREACHABLE: "a
    prospective that came from this state and loses returns to it"; Kafka 4.0's
    ``prospectiveTransitionAfterElectionLoss``): the restored election state lost a field.
    VOTERS-DRIVE-UNREACHABLE-RESTART ends pre-vote paths with the rebooted replica's election
    timer twice."""

    def go_back(self, prior: tuple[int, int | None, int | None]) -> None:
        epoch, voted_for, _ = prior
        super().go_back((epoch, voted_for, None) if self.prior_unreachable else prior)


class RestartReachesBootstrapOnly(VoterReplica):
    """On restart a replica takes its persisted leader for reachable only when the leader is
    one of ``controller.quorum.bootstrap.servers`` (the initial voters), where the endpoints come
    from the voter set at its log end (VOTERS-RULE-LEADER-UNREACHABLE): a replica that followed an
    ADDED voter comes back unattached in its epoch instead of its follower (the configuration list
    confused with the live membership, one way). VOTERS-DRIVE-ADDED-LEADER-RESTART elects an added
    voter and reboots one of its followers."""

    def on_restart(self) -> None:
        super().on_restart()
        if self.role == "follower" and self.leader not in self.bootstrap_servers:
            self.role = "voted" if self.voted_for is not None else "unattached"


class AutoJoinByBootstrapList(VoterReplica):
    """Auto-join asks for a replica outside ``controller.quorum.bootstrap.servers`` (the initial
    voters) only, where the rule is the voter set in force: an initial voter that an operator
    removed never asks to join again (VOTERS-RULE-AUTO-JOIN: a replica whose key is not in the
    set asks at every period, a removed voter included; Kafka 4.2+). The join probe's observer
    never was a voter; VOTERS-DRIVE-REJOIN-PROBE removes a voter follower and fires its timer."""

    def joins(self) -> bool:
        return super().joins() and self.id not in self.bootstrap_servers


class UpgradeUpdateByKey(VoterReplica):
    """At kraft.version 0 the leader looks an UpdateVoter's voter up by replica key, as at
    kraft.version 1 (``VoterSet.updateVoter``), against the static voters' assumed directories,
    and answers VOTER_NOT_FOUND for a voter naming another directory, where the static set has no
    directory ids and the voter is found by id alone (VOTERS-RULE-UPGRADE-VOTERS, Kafka 4.1+
    ``updateVoterIgnoringDirectoryId``): the kraft.version-1 rule applied at 0.
    VOTERS-DRIVE-UPGRADE-DIRECTORY sends such an update before the upgrade."""

    def update_voter(self, inp: dict[str, Any]) -> None:
        before = dict(self.upgrade_voters)
        super().update_voter(inp)
        if self.upgrade_voters != before and (inp["replica"], inp["directory"]) not in self.control.voters_now():
            self.upgrade_voters = before
            self.reject("update_voter", inp["replica"], "VOTER_NOT_FOUND")


class AutoJoinIgnoresVersion(VoterReplica):
    """Auto-join whatever the kraft.version: an observer follower of a kraft.version-0 cluster asks
    its leader to add it when its update-voter-set period expires, where a voter change needs
    kraft.version 1 and Kafka's ``shouldSendAddOrRemoveVoterRequest`` sends nothing before the
    upgrade (VOTERS-RULE-AUTO-JOIN). VOTERS-DRIVE-STATIC-JOIN's configuration and timer show it."""

    def joins(self) -> bool:
        return self.auto_join and self.role == "follower" and (self.id, self.id) not in self.voter_set


class UpgradeReportsOutliveEpoch(VoterReplica):
    """The kraft.version-0 leader's voter reports (VOTERS-RULE-UPGRADE-VOTERS) kept beyond its
    epoch: a replica that leads again starts from what the voters told it when it led before, so
    an upgrade is accepted before any voter reported in this epoch (Kafka's ``LeaderState`` is
    made anew at each election). VOTERS-DRIVE-RELEAD-UPGRADE shows it."""

    kept: dict[int, tuple[int, bool]] | None = None

    def track_upgrade_voters(self) -> None:
        epoch = self._upgrade_epoch
        super().track_upgrade_voters()
        if not self.upgrade_voters:
            return
        if self._upgrade_epoch != epoch and self.kept:
            self.upgrade_voters.update({r: v for r, v in self.kept.items() if r in self.upgrade_voters})
        self.kept = dict(self.upgrade_voters)


# ------------------------------------------------------------------------------ share


class LoadSkipsEmptyUpdate(LoadingShard):
    """On load, a ShareUpdate that carries no state batches is replayed as "nothing to merge":
    its start offset (and leader epoch) are taken, but the stored batches are not combined with
    it, so a batch its start offset cuts stays whole below the start offset after a fail-over.
    The live handler cuts it (its write replays through the merge), so the shard that wrote it
    is right and the one that loads it is not (SHARE-RULE-COMBINE-CLIP on replay).
    SHARE-DRIVE-CUT-BATCH's composite step ``CutReload`` writes such a cut and fails over."""

    def replay_update(self, key: tuple[str, str, int], record: dict[str, Any]) -> None:
        current = self.offsets.get(key)
        if not (self.loading and current is not None and not record["state_batches"]):
            super().replay_update(key, record)
            return
        kept = current["state_batches"]
        super().replay_update(key, record)
        self.offsets[key]["state_batches"] = kept


class LoadKeepsStraddlingBatch(LoadingShard):
    """On load, a ShareUpdate's start offset drops the stored batches wholly below it but keeps
    a batch it cuts (first offset below it, last at or above) whole, so after a fail-over the
    offsets of that batch below the start offset are stored again; the live handler clips it
    (SHARE-RULE-COMBINE-CLIP on replay). The slip of red team share_scratch5's
    ``clip-keeps-straddling-batch`` (session 12), on the reference shard's load path alone.
    SHARE-DRIVE-CUT-BATCH's composite step ``CutReload`` stores a multi-offset batch, cuts it
    with a start offset inside it and fails over; the actors' menu moves the start offset only
    past single-offset batches."""

    def replay_update(self, key: tuple[str, str, int], record: dict[str, Any]) -> None:
        current = self.offsets.get(key)
        start = record["start_offset"]
        straddling = [b for b in (current or {}).get("state_batches", []) if b[0] < start <= b[1]]
        super().replay_update(key, record)
        if not (self.loading and straddling):
            return
        stored = self.offsets[key]["state_batches"]
        for first, last, state, count in straddling:
            for b in stored:
                if b[0] == start and b[1] <= last and b[2] == state and b[3] == count:
                    b[0] = first  # kept whole
                    break
        stored.sort()


class DeletedReadUnknown(ShareShard):
    """A read of a share-partition whose tombstone the shard replayed (deleted, not initialized
    again) is refused as an unknown topic-partition, the answer for a share-partition the
    metadata image lacks, where a deleted share-partition has no state and the read is refused
    as uninitialized, as for one never initialized (SHARE-RULE-DELETE, SHARE-WIT-DELETED-REFUSED).
    The composite step ``DeleteThenRead`` initializes, deletes and reads."""

    def reset(self) -> None:
        super().reset()
        self.deleted: set[tuple[str, str, int]] = set()

    def replay_maps(self, record: dict[str, Any]) -> None:
        k = record["key"]
        key = (k["group_id"], k["topic_id"], k["partition"])
        if record["type"] == "ShareTombstone":
            self.deleted.add(key)
        else:
            self.deleted.discard(key)
        super().replay_maps(record)

    def on_ReadRequest(self, key: tuple[str, str, int], req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        if key in self.deleted and key not in self.offsets:
            return [], self.response(req, "UNKNOWN_TOPIC_OR_PARTITION", "The topic-partition was deleted.")
        return super().on_ReadRequest(key, req)


class PrunedLoadFromLogStart(ShareShard):
    """A shard loaded from a coordinator partition pruned below its redundant offset replays
    the records from the log start offset only (what the runtime left), so a leader-epoch fence
    that only a pruned record held is gone, where pruning is invisible: the answers are those of
    the whole log (SHARE-RULE-PRUNE-INVISIBLE; Kafka 4.1-4.4 do this, the catalogued deviation
    ``share-prune-forgets-leader-fence``). The composite step ``ReinitPruneReload``
    (SHARE-DRIVE-PRUNE-RELOAD) reads at a new leader epoch, initializes again and loads pruned."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        start = int(inp.get("log_start_offset", 0)) if inp.get("type") == "Load" else 0
        if start <= 0:
            return super().step(inp)
        self.reset()
        self.log_end = start  # the records keep their offsets
        for record in inp["records"][start:]:
            self.replay(record)
        return []


class ReloadKeepsStartImage(ShareShard):
    """A new shard (a fail-over's load) validates requests against the metadata image the
    coordinator was configured with, not the broker's image as it is now: a topic deleted
    before the fail-over is hosted again (SHARE-STATE-IMAGE; SHARE-RULE-METADATA-UPDATE).
    The composite step ``ReloadWithoutTopic`` (SHARE-WIT-IMAGE-FAILOVER) stores the doomed
    topic's state, deletes the topic, fails over and reads."""

    def __init__(self, snapshot_limit: int, image: list[list[Any]] | None) -> None:
        super().__init__(snapshot_limit, image)
        self.start_image = self.image

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        if inp.get("type") == "Load":
            self.image = self.start_image
        return super().step(inp)


class RemovedLeaderRejoinUnpersisted(VoterReplica):
    """A leader that removed itself and resigned moves to unattached in epoch + 1 when its
    election timer expires (VOTERS-RULE-REMOVED-LEADER-TIMER) in memory only: the quorum-state
    file keeps the old epoch (no PersistElection), as if an observer's state were no election.
    The slip of red team voters_scratch13's ``removed-leader-rejoin-unpersisted`` (session 21);
    VOTERS-DRIVE-REMOVED-LEADER-TIMER reaches it."""

    def on_ElectionTimeout(self, inp: dict[str, Any]) -> None:
        if self.role == "resigned" and not self.is_voter:
            self.become_unattached(self.epoch + 1)
            self._written = self.election()
            return
        super().on_ElectionTimeout(inp)


class PendingChangeAwaitsOwnRecord(VoterReplica):
    """The leader marks a change pending at its append (the offset and epoch of its
    VotersRecord, kept by the replica as Kafka's handlers keep a request's future, not by the
    leadership) and clears the mark only when that very record commits (the high watermark past
    the offset, the log still holding a record of that epoch there), where VOTERS-RULE-ONE-CHANGE
    reads the log alone: a change whose record another leader truncated away is no longer
    pending. So a replica that leads again after such a truncation refuses every change
    REQUEST_TIMED_OUT (until it restarts). VOTERS-DRIVE-TRUNCATED-CHANGE reaches it."""

    _mark: tuple[int, int] | None = None

    def leader_append(self, entries: list[dict[str, Any]]) -> None:
        start = self.end_offset
        super().leader_append(entries)
        for i, entry in enumerate(entries):
            if entry["kind"] == "voters":
                self._mark = (start + i, entry["epoch"])

    def change_pending(self) -> bool:
        if super().change_pending():
            return True
        if self._mark is not None:
            offset, epoch = self._mark
            assert self.high_watermark is not None
            if offset < len(self.log) and self.log[offset]["epoch"] == epoch and self.high_watermark > offset:
                self._mark = None
            else:
                return True
        return False

    def on_Crash(self, inp: dict[str, Any]) -> None:
        self._mark = None  # in memory only
        super().on_Crash(inp)


class ChangeJudgedByKnownCommit(VoterReplica):
    """A leader judges a voter change against the high watermark the replica knew when it was
    elected (the log's, which the leadership does not reset: Kafka's ``log.highWatermark()``),
    not its leadership's, which is unknown until a record of its epoch commits: a new leader
    whose follower days told it that the last VotersRecord committed takes a change before its
    epoch commits, where
    VOTERS-RULE-ADD step 2 (and -REMOVE, -UPDATE step 5) refuses every change REQUEST_TIMED_OUT
    until then. VOTERS-DRIVE-FRESH-LEADER reaches it."""

    _known: int | None = None

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        out = super().step(inp)
        if self.role != "leader":
            self._known = self.high_watermark  # (a leadership's own is never the log's to keep)
        return out

    def on_Crash(self, inp: dict[str, Any]) -> None:
        self._known = None  # in memory only
        super().on_Crash(inp)

    def _judged(self, handler: Any, inp: dict[str, Any]) -> None:
        if self.role != "leader" or self.high_watermark is not None or self._known is None:
            return handler(inp)  # type: ignore[no-any-return]
        self.high_watermark = self._known
        try:
            return handler(inp)  # type: ignore[no-any-return]
        finally:
            self.high_watermark = None

    def reconfigure(self, inp: dict[str, Any]) -> None:
        return self._judged(super().reconfigure, inp)

    def update_voter(self, inp: dict[str, Any]) -> None:
        return self._judged(super().update_voter, inp)


class SnapshotVersionLoadedWithVoters(ControlRecords):
    """A snapshot's KRaftVersionRecord is loaded only with its VotersRecord (the version read
    inside the voter set's branch), so a snapshot holding kraft.version 1 and no voter set
    rebuilds to kraft.version 0 (VOTERS-CTRL-SNAPSHOT, VOTERS-CTRL-REBUILD). The slip of red team
    voters_scratch13's ``rebuild-version-with-voters`` (session 21); VOTERS-DRIVE-FREE-REBUILD
    takes a static quorum's upgrade record into such a snapshot, then a restart."""

    def rebuild(self) -> None:
        snapshot = self.snapshot
        if snapshot is not None and snapshot["voters"] is None:
            self.snapshot = {**snapshot, "kraft_version": 0}
        try:
            super().rebuild()
        finally:
            self.snapshot = snapshot


class UpgradeOwnReportNotFound(VoterReplica):
    """A kraft.version-0 leader (4.1+) looks an UpdateVoter's voter up among its followers' states
    only, so its own UpdateVoter is answered VOTER_NOT_FOUND, where the leader knows itself from
    the start of its epoch and keeps the report (VOTERS-RULE-UPGRADE-VOTERS). The slip of red team
    voters_scratch16's ``upgrade-map-lacks-leader`` (session 27); VOTERS-DRIVE-OWN-REPORT sends
    that update at a path's end."""

    def update_voter(self, inp: dict[str, Any]) -> None:
        if (self.role == "leader" and self.kraft_upgrade and self.control.kraft_version() < 1
                and inp["replica"] == self.id and inp["epoch"] == self.epoch and self.id in self.upgrade_voters):
            mine = self.upgrade_voters.pop(self.id)
            try:
                return super().update_voter(inp)
            finally:
                self.upgrade_voters[self.id] = mine
        return super().update_voter(inp)


class AutoJoinByCommittedSet(VoterReplica):
    """Auto-join reads the replica's membership from the voter set at its high watermark, not at
    its log end (VOTERS-RULE-AUTO-JOIN with VOTERS-RULE-EFFECT-ON-APPEND): a replica that fetched
    the VotersRecord adding it, not yet committed in its log, asks to join again. The slip of red
    team voters_scratch16's ``auto-join-reads-committed-set`` (session 27);
    VOTERS-DRIVE-REJOIN-FETCH fires the rejoined voter's timer right after that fetch."""

    def joins(self) -> bool:
        hw = self.high_watermark
        committed = ControlRecords.value_at(self.control.voter_history, hw - 1) if hw else None
        if committed is None:
            return super().joins()
        saved = self.voter_set
        self.voter_set = committed
        try:
            return super().joins()
        finally:
            self.voter_set = saved


class LapseEndsOnStaleAnswer(VoterReplica):
    """An observer whose fetch timer lapsed ends the lapse on a Fetch answer naming its leader
    whatever the answer's epoch, where only an answer of its own epoch does
    (VOTERS-RULE-OBSERVER-FETCH-TIMEOUT): a bootstrap server still in the older epoch of a
    leader that led it too names that leader, and the observer goes back to fetching from it
    before anyone of its epoch confirmed it. The slip of red team voters_scratch16's
    ``lapse-ends-on-stale-answer`` (session 27); VOTERS-DRIVE-STALE-LAPSE-ANSWER re-elects the
    leader in the next epoch and lets such an answer reach the lapsed observer (session 28)."""

    def _still_lapsed(self, following: tuple[str, int, int | None], inp: dict[str, Any]) -> bool:
        if ((self.role, self.epoch, self.leader) == following and not self.is_voter
                and inp["type"] == "FetchResponse" and inp["epoch"] < self.epoch
                and inp.get("leader") == self.leader):
            return False
        return super()._still_lapsed(following, inp)


class HistorySkipsSnapshotSetAgain(ControlRecords):
    """A VotersRecord at the offset right after a snapshot, read right after that snapshot was
    loaded (a restart's rebuild) and repeating the set it holds, is not added to the history: the
    reader takes it for the snapshot's own copy of its last VotersRecord, so the history keeps the
    snapshot's entry where VOTERS-CTRL-APPEND adds one at the record's own offset. Of the slip of red team
    voters_scratch16's ``history-skips-repeated-set`` (session 27: caught by random run 84 at the
    log level, by an accepted UpdateVoter writing the set again), the case only after a rebuild;
    VOTERS-DRIVE-FREE-REPEATED-SET writes the set in force again right after the free log's
    restart (session 28)."""

    _snapshot_set: VoterSet | None = None

    def rebuild(self) -> None:
        self._snapshot_set = None
        super().rebuild()
        snap = self.snapshot
        if snap is not None and snap["end_offset"] > 0 and self.voter_history \
                and self.voter_history[-1] == (snap["end_offset"] - 1, snap["voters"]):
            self._snapshot_set = snap["voters"]

    def add_voters(self, offset: int, voters: VoterSet) -> None:
        again, self._snapshot_set = self._snapshot_set, None
        if again is not None and voters == again and self.snapshot is not None \
                and offset == self.snapshot["end_offset"]:
            return  # the slip: the snapshot's set read again, right after it, is no new entry
        super().add_voters(offset, voters)


# (name, protocol, class, bug class, caught by the CI run at the default budget, note)
class UpgradeWrittenTwice(VoterReplica):
    """The kraft.version upgrade's "already done?" check reads the version in force at the high
    watermark (the finalized feature as the controller publishes it), not at the log end, and the
    leader keeps no pending-upgrade state (Kafka 4.1+'s ``LeaderState.kraftVersionUpgradeState``,
    whose pending version makes a second upgrade a no-op): a second UpgradeKRaftVersion while the
    first one's batch is uncommitted writes KRaftVersionRecord(1) and a VotersRecord of the set in
    force again, where the protocol writes nothing (VOTERS-RULE-UPGRADE, VOTERS-RULE-EFFECT-ON-APPEND).
    The slip of red team voters_scratch17's ``upgrade-judged-by-committed-version`` (session 29),
    which refuses the second upgrade instead; VOTERS-DRIVE-UPGRADE-AGAIN sends it."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        hw = self.high_watermark
        if (inp["type"] == "UpgradeKRaftVersion" and self.role == "leader" and hw is not None
                and self.control.kraft_version() >= 1
                and (ControlRecords.value_at(self.control.version_history, hw - 1) or 0) < 1):
            voters = [x for k in sorted(self.control.voters_now()) for x in k]
            self.leader_append([_entry(self.epoch, "kraft_version", [1]), _entry(self.epoch, "voters", voters)])
            return None
        return super().reconfigure(inp)


class RemovedLeaderResignsOnCommittedRecord(VoterReplica):
    """A leader that removed itself resigns when the last committed record (the one below its high
    watermark) is the VotersRecord without it, where it resigns once the high watermark is past
    that record, whatever was appended after it (VOTERS-RULE-REMOVED-LEADER; Kafka's
    ``RemoveVoterHandler``: ``highWatermark >= lastOffset + 1``): a client record appended after the
    removal and committed with it in one step keeps the removed leader in office. The slip of red
    team voters_scratch17's ``removed-leader-resigns-at-exact-commit`` (session 29);
    VOTERS-DRIVE-REMOVED-LEADER-APPEND commits both at once."""

    def resign_if_removed(self) -> None:
        hw = self.high_watermark
        if self.role != "leader" or self.is_voter or hw is None:
            return
        if self.control.voter_history and self.control.voter_history[-1][0] == hw - 1:
            self.resign()


ENTRIES: tuple[tuple[str, str, type, str, bool, str], ...] = (
    ("voters-lapse-ends-on-leaderless-answer", "voters", LapseEndsOnLeaderlessAnswer,
     "an answer without information taken for one", True,
     "VOTERS-DRIVE-LEADERLESS-ANSWER-PROBE's: guided run 15 at seeds 0 and 1, escapes the default budget at "
     "seeds 0 and 1 with the probe off (bench/voters_probe_mutants.py)"),
    ("voters-auto-join-skips-catch-up", "voters", AutoJoinSkipsCatchUp,
     "a precondition checked on one path of two", True,
     "VOTERS-DRIVE-JOIN-PROBE's: guided run 27 at seeds 0 and 1 (session 21: the probe puts its observer behind "
     "itself, the check-quorum period declared; 42 before), escapes the default budget at seeds 0 and 1 with the "
     "probe off (bench/voters_probe_mutants.py)"),
    ("share-load-keeps-straddling-batch", "share", LoadKeepsStraddlingBatch,
     "a bound applied to whole items, not cut through one", True,
     "CutReload's (SHARE-DRIVE-CUT-BATCH): guided run 10 at seeds 0 and 1, escapes the default budget at seeds 0 "
     "and 1 with CutReload off (bench/share_probe_mutants.py)"),
    ("share-pruned-load-from-log-start", "share", PrunedLoadFromLogStart,
     "recovery from what is left, not from what it stood for (Kafka 4.1-4.4)", True,
     "ReinitPruneReload's (SHARE-DRIVE-PRUNE-RELOAD): guided run 1 at seeds 0 and 1, escapes the default budget "
     "at seeds 0 and 1 with ReinitPruneReload off (bench/share_probe_mutants.py)"),
    ("voters-unreachable-prospective-drops-leader", "voters", UnreachableProspectiveDropsLeader,
     "state restored without one of its fields", True,
     "VOTERS-DRIVE-UNREACHABLE-RESTART's pre-vote timers (session 16): guided run 6 at seed 0"),
    ("voters-restart-reaches-bootstrap-only", "voters", RestartReachesBootstrapOnly,
     "configuration list confused with the live membership", True,
     "VOTERS-DRIVE-ADDED-LEADER-RESTART's (session 16): guided run 1 at seed 0"),
    ("voters-auto-join-by-bootstrap-list", "voters", AutoJoinByBootstrapList,
     "configuration list confused with the live membership", True,
     "VOTERS-DRIVE-REJOIN-PROBE's (session 16): guided run 7 at seed 0"),
    ("voters-upgrade-update-by-key", "voters", UpgradeUpdateByKey,
     "rule of another version applied", True,
     "VOTERS-DRIVE-UPGRADE-DIRECTORY's (session 16): guided run 3 at seed 0"),
    ("voters-auto-join-ignores-version", "voters", AutoJoinIgnoresVersion,
     "missing precondition check", True,
     "VOTERS-DRIVE-STATIC-JOIN's (session 17): guided run 8 at seed 0 (the configuration's first path)"),
    ("voters-upgrade-reports-outlive-epoch", "voters", UpgradeReportsOutliveEpoch,
     "per-epoch state kept across epochs", True,
     "VOTERS-DRIVE-RELEAD-UPGRADE's (session 17): guided run 3 at seed 0"),
    ("voters-describe-committed-voters", "voters", DescribeCommittedVoters,
     "a view built from the committed state where the current one is meant", True,
     "written for VOTERS-DRIVE-DESCRIBE (guided run 25 at seeds 0 and 1), not its alone: the same guided run "
     "catches it with the probe off (DescribeQuorum is an input of the guide graph too, category request)"),
    # written for a probe and caught by it first, but not its alone (kept: cheap, and a slip)
    ("voters-lapsed-observer-unattached-on-leaderless", "voters", LapsedObserverUnattachedOnLeaderless,
     "an answer without information taken for one", True,
     "written for VOTERS-DRIVE-LEADERLESS-ANSWER-PROBE (guided run 15 at seeds 0 and 1), not its alone: with "
     "it off VOTERS-DRIVE-LAPSE-PROBE catches it at guided run 50 (a path that ends with a voter that knows no "
     "leader in the observer's epoch)"),
    ("voters-add-caught-up-to-commit", "voters", AddCaughtUpToCommit,
     "a condition judged against the wrong bound", True,
     "written for VOTERS-DRIVE-UNCOMMITTED-ADD-PROBE (guided run 1 at seeds 0 and 1), not its alone: with it "
     "off a guide-graph path catches it at guided run 35 (the leader's client append, then an AddVoter of the "
     "observer, in the auto-join configuration)"),
    ("share-load-skips-empty-update", "share", LoadSkipsEmptyUpdate,
     "replay differs from the handlers (an empty delta skipped)", True,
     "written for CutReload (guided run 10 at seeds 0 and 1), not its alone: with it off a guide-graph path "
     "catches it at guided run 117 (a menu write whose start offset passes a single-offset batch stores an "
     "update without batches)"),
    ("share-deleted-read-unknown", "share", DeletedReadUnknown,
     "a removed entry answered with the wrong refusal", True,
     "written for DeleteThenRead (guided run 17 at seeds 0 and 1), not its alone: with it off a guide-graph "
     "path catches it at guided run 26 (initialize, delete, read at snapshot limit 0)"),
    ("share-reload-keeps-start-image", "share", ReloadKeepsStartImage,
     "configuration read where the current state is meant", True,
     "written for ReloadWithoutTopic (SHARE-WIT-IMAGE-FAILOVER; guided run 27 at seeds 0 and 1), not its alone: "
     "with it off random runs catch it (runs 153 and 219 at seeds 0 and 1)"),
    ("voters-add-caught-up-at-last-fetch", "voters", AddCaughtUpAtLastFetch,
     "a condition judged at the wrong time", True,
     "written for VOTERS-DRIVE-UNCOMMITTED-ADD-PROBE (guided run 1 at seeds 0 and 1), not its alone: with it "
     "off a guide-graph path catches it at guided run 32 (a lone leader removes a voter, which commits at "
     "once, then adds it back)"),
    ("voters-removed-leader-rejoin-unpersisted", "voters", RemovedLeaderRejoinUnpersisted,
     "a transition made in memory and not persisted", True,
     "written for VOTERS-DRIVE-REMOVED-LEADER-TIMER (session 21): guided run 7 at seeds 0 and 1; not its "
     "alone: with the probe off random run 303 (seed 1) and the liveness check (seed 0) catch it"),
    ("voters-pending-change-awaits-truncated-record", "voters", PendingChangeAwaitsOwnRecord,
     "per-leadership state kept by the replica", True,
     "VOTERS-DRIVE-TRUNCATED-CHANGE's (session 25): guided run 45 at every seed, escapes the default budget "
     "at seeds 0 and 1 with the probe off (bench/voters_probe_mutants.py; red team voters_scratch15's "
     "pending-change-kept-across-leaderships escaped seeds 0 and 1 before it)"),
    ("voters-change-judged-by-known-commit", "voters", ChangeJudgedByKnownCommit,
     "a bound read from the wrong state (the replica's, not the leadership's)", True,
     "written for VOTERS-DRIVE-FRESH-LEADER (session 25): guided run 42 at every seed; not its alone: with "
     "it off no guided run catches it, random runs 261 and 180 do (seeds 0 and 1), as they caught red team "
     "voters_scratch15's reconfig-before-epoch-commit-by-log-hw before the probe"),
    ("voters-log-snapshot-version-with-voters", "voters", SnapshotVersionLoadedWithVoters,
     "one field restored only together with another", True,
     "written for VOTERS-DRIVE-FREE-REBUILD (session 21; log level: guided run 3 at seeds 0 and 1), not its "
     "alone: random free-log runs also reach it late (the red-team bug at runs 261 and 339 without the probe)"),
    ("voters-upgrade-own-report-not-found", "voters", UpgradeOwnReportNotFound,
     "the local replica left out of a per-replica map", True,
     "VOTERS-DRIVE-OWN-REPORT's (session 27; red team voters_scratch16's upgrade-map-lacks-leader escaped "
     "seeds 0 and 1 before it)"),
    ("voters-auto-join-by-committed-set", "voters", AutoJoinByCommittedSet,
     "a view built from the committed state where the current one is meant", True,
     "VOTERS-DRIVE-REJOIN-FETCH's (session 27; red team voters_scratch16's auto-join-reads-committed-set "
     "escaped seeds 0 and 1 before it)"),
    ("voters-lapse-ends-on-stale-answer", "voters", LapseEndsOnStaleAnswer,
     "an answer of an older epoch taken for a current one", True,
     "VOTERS-DRIVE-STALE-LAPSE-ANSWER's (session 28): guided run 56 at every seed, conforms with the probe off "
     "at seeds 0 and 1 (352 and 339 runs); red team voters_scratch16's lapse-ends-on-stale-answer escaped seeds "
     "0 and 1 before it"),
    ("voters-log-history-skips-snapshot-set-again", "voters", HistorySkipsSnapshotSetAgain,
     "a record taken for a copy of the state it repeats", True,
     "VOTERS-DRIVE-FREE-REPEATED-SET's (session 28; log level): guided run 1 at every seed, conforms with the "
     "probe off at seeds 0 and 1 (353 and 357 runs; the wider slip, any set read again after a rebuild, was "
     "caught by random run 291 at seed 0 with the probe off)"),
    ("voters-upgrade-written-twice", "voters", UpgradeWrittenTwice,
     "a state judged from the committed view where the log end is meant", True,
     "VOTERS-DRIVE-UPGRADE-AGAIN's (session 29; red team voters_scratch17's upgrade-judged-by-committed-version "
     "escaped seeds 0 and 1 before it)"),
    ("voters-removed-leader-resigns-on-committed-record", "voters", RemovedLeaderResignsOnCommittedRecord,
     "a condition checked at one point of a range", True,
     "VOTERS-DRIVE-REMOVED-LEADER-APPEND's (session 29; red team voters_scratch17's "
     "removed-leader-resigns-at-exact-commit escaped seeds 0 and 1 before it)"),
)
