"""A KRaft replica with a dynamic voter set (KIP-853), written the way a user would write it.

Two pieces, as in Kafka: :class:`ControlRecords` is the control-record state machine
(``KRaftControlRecordStateMachine`` over ``VoterSetHistory`` and the kraft.version history):
it reads the log's KRaftVersion and Voters records, drops them on truncation, trims them on a
snapshot and rebuilds them from the latest snapshot and the log on restart.
:class:`VoterReplica` is the reference raft replica
(:class:`~kspec.conformance.targets.reference.raft.RaftReplica`) using the voter set in force
at its log end, plus the leader's AddVoter / RemoveVoter / kraft.version upgrade handlers
(``AddVoterHandler``, ``RemoveVoterHandler``) and snapshots. It never imports
``kspec.model``; it speaks the JSON of ``spec/adapter-protocol.md`` (section voters).

:class:`VotersTarget` serves either level: ``replica`` (a :class:`VoterReplica` per node) or
``log`` (a :class:`ControlRecords` per node fed with log changes). ``reference`` is the replica
level, ``reference:log`` the log level. The voter mutants subclass one of the two classes.
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import JSON, NodeInstance, StepResult, Target, TargetError
from kspec.conformance.targets.reference.raft import RaftReplica

Key = tuple[int, int]  # (replica id, directory id)
VoterSet = frozenset[Key]


def _voter_set(pairs: Any) -> VoterSet:
    return frozenset((int(r), int(d)) for r, d in pairs)


def _show(voters: VoterSet | None) -> list[list[int]] | None:
    return None if voters is None else [[r, d] for r, d in sorted(voters)]


def _ids(voters: VoterSet) -> list[int]:
    return sorted({r for r, _ in voters})


class ControlRecords:
    """The control-record state machine of one replica, with the log and latest snapshot it
    reads from. History entries are ``(offset, value)`` in offset order; offset -1 is the
    bootstrap checkpoint."""

    def __init__(self, static: VoterSet, bootstrap: dict[str, Any] | None) -> None:
        self.static = static
        self.records: list[tuple[int, dict[str, Any]]] = []  # the log: (epoch, record) at each offset
        self.snapshot: dict[str, Any] | None = None
        if bootstrap is not None:
            # The bootstrap checkpoint is a snapshot ending at offset 0.
            self.snapshot = {"end_offset": 0, "kraft_version": int(bootstrap["kraft_version"]),
                             "voters": _voter_set(bootstrap["voters"])}
        self.voter_history: list[tuple[int, VoterSet]] = []
        self.version_history: list[tuple[int, int]] = []
        self.next_offset = 0
        self.rebuild()

    def restart(self) -> None:
        """The replica restarted: its in-memory state is gone, read it all again."""
        self.rebuild()

    # -------------------------------------------------------------- reading the log

    def rebuild(self) -> None:
        """Read everything again: the latest snapshot, then the log after it."""
        self.voter_history, self.version_history, self.next_offset = [], [], 0
        if self.snapshot is not None:
            last = self.snapshot["end_offset"] - 1
            if self.snapshot["kraft_version"] > 0:
                self.version_history.append((last, self.snapshot["kraft_version"]))
            if self.snapshot["voters"] is not None:
                self.voter_history.append((last, self.snapshot["voters"]))
            self.next_offset = self.snapshot["end_offset"]
        self.read(self.next_offset, self.records[self.next_offset:])

    def read(self, base: int, records: list[tuple[int, dict[str, Any]]]) -> None:
        for i, (_, record) in enumerate(records):
            if record["type"] == "Voters":
                self.add_voters(base + i, _voter_set(record["voters"]))
            elif record["type"] == "KRaftVersion":
                self.add_version(base + i, int(record["version"]))
        self.next_offset = base + len(records)

    def add_voters(self, offset: int, voters: VoterSet) -> None:
        if self.voter_history:
            # Any set follows any other: overlap is the leader's rule, not the reader's (KAFKA-17973).
            last_offset = self.voter_history[-1][0]
            if offset <= last_offset:
                raise TargetError(f"voter set at {offset} is not after the last one at {last_offset}")
        self.voter_history.append((offset, voters))

    def add_version(self, offset: int, version: int) -> None:
        if self.version_history and offset <= self.version_history[-1][0]:
            raise TargetError(f"kraft.version at {offset} is not after the last one")
        self.version_history.append((offset, version))

    # -------------------------------------------------------------- log changes

    def append(self, base: int, records: list[tuple[int, dict[str, Any]]]) -> None:
        if base != len(self.records):
            raise TargetError(f"append at {base} but the log ends at {len(self.records)}")
        self.records.extend(records)
        self.read(base, records)

    def truncate(self, offset: int) -> None:
        del self.records[offset:]
        self.voter_history = [(o, v) for o, v in self.voter_history if o < offset]
        self.version_history = [(o, v) for o, v in self.version_history if o < offset]
        self.next_offset = min(self.next_offset, offset)

    def take_snapshot(self, end_offset: int) -> dict[str, Any]:
        """Write a snapshot of the offsets below ``end_offset`` and trim the histories to it."""
        last = end_offset - 1
        version = self.value_at(self.version_history, last)
        self.snapshot = {"end_offset": end_offset, "kraft_version": version or 0,
                         "voters": self.value_at(self.voter_history, last)}
        self.voter_history = self.trim(self.voter_history, last)
        self.version_history = self.trim(self.version_history, last)
        return self.snapshot

    @staticmethod
    def trim(history: list[tuple[int, Any]], last: int) -> list[tuple[int, Any]]:
        """Drop the entries at or before ``last``, except the latest of them."""
        older = [e for e in history if e[0] <= last]
        return older[-1:] + [e for e in history if e[0] > last]

    # -------------------------------------------------------------- answers

    @staticmethod
    def value_at(history: list[tuple[int, Any]], offset: int) -> Any:
        found = None
        for o, v in history:
            if o > offset:
                break
            found = v
        return found

    def read_at(self, offset: int) -> dict[str, JSON]:
        """What the history answers at ``offset``; nothing at or past the next offset to read."""
        if offset >= self.next_offset:
            return {"type": "ReadRefused", "offset": offset}
        return {"type": "ReadAt", "offset": offset, "kraft_version": self.value_at(self.version_history, offset) or 0,
                "voters": _show(self.value_at(self.voter_history, offset))}

    def voters_now(self) -> VoterSet:
        """The voter set in force at the log end (the static one when the log has none)."""
        return self.voter_history[-1][1] if self.voter_history else self.static

    def kraft_version(self) -> int:
        return self.version_history[-1][1] if self.version_history else 0

    def snapshot_json(self) -> dict[str, JSON]:
        assert self.snapshot is not None
        return {"type": "Snapshot", "end_offset": self.snapshot["end_offset"],
                "kraft_version": self.snapshot["kraft_version"], "voters": _show(self.snapshot["voters"])}

    def observation(self, voters: VoterSet | None = None) -> dict[str, JSON]:
        return {"kraft_version": self.kraft_version(),
                "voters": _show(self.voters_now() if voters is None else voters),
                "history": [[o, _show(v)] for o, v in self.voter_history]}


# ------------------------------------------------------------------ the replica


def _record(entry: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """A raft log entry as the record the control state machine reads."""
    kind, payload = entry["kind"], list(entry.get("payload") or [])
    if kind == "voters":
        return entry["epoch"], {"type": "Voters", "voters": [payload[i:i + 2] for i in range(0, len(payload), 2)]}
    if kind == "kraft_version":
        return entry["epoch"], {"type": "KRaftVersion", "version": payload[0]}
    return entry["epoch"], {"type": "Data"}


def _entry(epoch: int, kind: str, payload: list[int]) -> dict[str, Any]:
    return {"type": "Entry", "epoch": epoch, "kind": kind, "payload": payload}


class VoterReplica(RaftReplica):
    """A KRaft replica whose voters come from its log (KIP-853)."""

    def __init__(self, node_id: int, config: dict[str, Any],
                 control_class: type[ControlRecords] = ControlRecords) -> None:
        static = _voter_set(config.get("static_voters") or [])
        bootstrap = config.get("bootstrap")
        self.control = control_class(static, bootstrap)
        initial = _voter_set(bootstrap["voters"]) if bootstrap else static
        # KIP-853's open vote: any replica takes a vote from any replica
        super().__init__(node_id, _ids(initial), bool(config.get("pre_vote", False)), kip853=True)
        self.voter_set = initial
        # controller.quorum.bootstrap.servers: configuration, the initial voters
        # (VOTERS-RULE-OBSERVER-BOOTSTRAP).
        self.bootstrap_servers = set(_ids(initial))
        # VOTERS-RULE-OBSERVER-FETCH-TIMEOUT: an observer follower's fetch timer expired and no
        # answer has named its leader since
        self.fetch_lapsed = False
        # VOTERS-RULE-UPGRADE-VOTERS: the release's upgrade rules (4.1+: true) and a
        # kraft.version-0 leader's in-memory voters, id -> (directory, supports kraft.version 1)
        self.kraft_upgrade = bool(config.get("kraft_upgrade", True))
        self.upgrade_voters: dict[int, tuple[int, bool]] = {}
        self._upgrade_epoch: int | None = None
        # controller.quorum.auto.join.enable (VOTERS-RULE-AUTO-JOIN, 4.2+)
        self.auto_join = bool(config.get("auto_join", False))
        self.check_quorum_period = bool(config.get("check_quorum_period"))  # RAFT-RULE-CHECK-QUORUM-PERIOD
        # VOTERS-RULE-DISK-REPLACED: this disk's directory id (a host's first is its id), and at a
        # leader the directory each replica's recorded fetch offset came from where it is not
        # the replica's first (VOTERS-RULE-FETCH-BY-KEY)
        self.directory = node_id
        self.fetch_dirs: dict[int, int] = {}
        self._fetch_key: tuple[int, bool] | None = None  # the Fetch being handled: (directory, named)

    rediscovers_leader = True  # off: K7 (KAFKA-19354), only the leader's own answer ends a lapse

    def on_FetchTimeout(self, inp: dict[str, Any]) -> None:
        """VOTERS-RULE-OBSERVER-FETCH-TIMEOUT: an observer follower goes back to leader
        discovery; a voter follower stands for election (raft's rule)."""
        if self.role == "follower" and not self.is_voter:
            self.fetch_lapsed = True
            return
        super().on_FetchTimeout(inp)

    def on_ElectionTimeout(self, inp: dict[str, Any]) -> None:
        """VOTERS-RULE-REMOVED-LEADER-TIMER: a resigned leader outside its voter set goes to
        unattached in the next epoch, an observer that asks a bootstrap server for the leader."""
        if self.role == "resigned" and not self.is_voter:
            self.become_unattached(self.epoch + 1)
            self.persist()
            return
        super().on_ElectionTimeout(inp)

    def on_FetchDue(self, inp: dict[str, Any]) -> None:
        """VOTERS-RULE-OBSERVER-BOOTSTRAP: an observer without a leader asks a bootstrap server
        (Kafka's maybeSendAnyVoterFetch), not a voter of the set in force; so does an observer
        whose fetch timer lapsed (VOTERS-RULE-OBSERVER-FETCH-TIMEOUT)."""
        if self.fetch_lapsed or (self.role in ("unattached", "voted") and not self.is_voter):
            if inp["to"] in self.bootstrap_servers:
                self.send("FetchRequest", inp["to"], epoch=self.epoch, fetch_offset=self.end_offset,
                          last_fetched_epoch=self.last_epoch)
            return
        super().on_FetchDue(inp)

    # -------------------------------------------------------------- replica keys (KIP-853)

    # A replaced disk's directory id is at least this (the adapter protocol's convention: a
    # host's first directory is its id; spec/voters.md VOTERS-MODEL-DIRS).
    REPLACED_FROM = 1000

    def replace_disk(self, directory: int) -> None:
        """VOTERS-RULE-DISK-REPLACED: everything on the disk is gone (log, snapshots, quorum-state
        file); the new disk was formatted without initial controllers (kraft.version 1, no
        voters). The configuration stays: id, bootstrap servers, pre-vote, auto-join."""
        keep = (self.bootstrap_servers, self.kraft_upgrade, self.auto_join, type(self.control))
        period = self.check_quorum_period
        RaftReplica.__init__(self, self.id, [], self.pre_vote, kip853=True)
        self.bootstrap_servers, self.kraft_upgrade, self.auto_join = keep[0], keep[1], keep[2]
        self.check_quorum_period = period
        self.control = keep[3](frozenset(), None)
        self.control.snapshot = {"end_offset": 0, "kraft_version": 1, "voters": None}
        self.control.rebuild()
        self.voter_set, self.voters = frozenset(), []
        self.fetch_lapsed, self.upgrade_voters, self._upgrade_epoch = False, {}, None
        self.directory, self.fetch_dirs = directory, {}

    def send(self, kind: str, dst: int, **fields: Any) -> None:
        """A replaced disk's Fetch names its directory (KeyedFetchRequest); a Vote to a voter whose
        directory in this replica's set is a replaced disk's names it (KeyedVoteRequest)."""
        if kind == "FetchRequest" and self.directory != self.id:
            kind, fields = "KeyedFetchRequest", {**fields, "directory": self.directory}
        elif kind == "VoteRequest":
            named = dict(self.voter_set).get(dst, dst)
            if named >= self.REPLACED_FROM:
                kind, fields = "KeyedVoteRequest", {**fields, "voter_directory": named}
        super().send(kind, dst, **fields)

    def on_VoteRequest(self, req: dict[str, Any]) -> None:
        """VOTERS-RULE-VOTE-BY-KEY: a Vote naming another directory than this disk's is refused
        (INVALID_VOTER_KEY) after the malformed and stale-epoch checks and a higher epoch."""
        named = req.get("voter_directory", self.id)
        if (self.directory != self.id or "voter_directory" in req) and named != self.directory:
            pre_vote = bool(req.get("pre_vote"))
            if self.refuse_vote(req, pre_vote=pre_vote) or self.refuse_non_voter(req):
                return
            if req["epoch"] > self.epoch:
                self.become_unattached(req["epoch"])
                self.persist()
            self.answer_vote(req, False, pre_vote=pre_vote, error="INVALID_VOTER_KEY")
            return
        super().on_VoteRequest(req)

    on_KeyedVoteRequest = on_VoteRequest

    def on_FetchRequest(self, req: dict[str, Any]) -> None:
        self._fetch_key = (int(req.get("directory", req["src"])), "directory" in req)
        try:
            super().on_FetchRequest(req)
        finally:
            self._fetch_key = None

    on_KeyedFetchRequest = on_FetchRequest

    def on_valid_fetch(self, replica: int, offset: int) -> None:
        """VOTERS-RULE-FETCH-BY-KEY: a fetch from a voter's id under another directory (where a
        replaced disk is one of the two) is an observer's: served, not counted."""
        directory, named = self._fetch_key or (replica, False)
        mine = dict(self.voter_set).get(replica)
        if mine is not None and mine != directory and (named or mine >= self.REPLACED_FROM):
            return
        if directory == replica:
            self.fetch_dirs.pop(replica, None)
        else:
            self.fetch_dirs[replica] = directory
        super().on_valid_fetch(replica, offset)

    def use_voters(self, voters: VoterSet) -> None:
        """A replaced disk is a voter only under its own key (VOTERS-RULE-DISK-REPLACED)."""
        ids = _ids(voters)
        if self.directory != self.id and (self.id, self.directory) not in voters:
            ids = [i for i in ids if i != self.id]
        self.voter_set = voters
        if ids != self.voters:
            self.voters = ids
            if self.role == "leader":
                self.update_high_watermark()

    def start(self) -> None:
        """The first start: ``KafkaRaftClient.initialize()`` elects a lone voter at once (as a
        first leader it writes the bootstrap set); what it writes then is not compared."""
        self.out = []
        self.initialize()
        self.follow_log(self.out)
        self.use_voters(self.current_voters())
        self.out = []

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        kind = inp["type"]
        if kind in ("AddVoter", "RemoveVoter", "UpgradeKRaftVersion"):
            self.out = []
            self.reconfigure(inp)
        elif kind == "UpdateVoter":
            self.out = []
            self.update_voter(inp)
        elif kind == "TakeSnapshot":
            self.out = []
            self.snapshot()
        elif kind == "UpdateVoterSetDue":
            self.out = []
            self.on_update_voter_set_due()
        elif kind == "ReplaceDisk":
            self.out = []
            self.replace_disk(int(inp["directory"]))
        elif kind in ("AddVoterRequest", "RemoveVoterRequest"):
            # an observer's auto-join request, judged as a client's (AddVoterHandler, RemoveVoterHandler)
            self.out = []
            self.reconfigure({"type": kind.removesuffix("Request"), "replica": inp["replica"],
                              "directory": inp["directory"]})
        else:
            was_down = self.role == "down"
            following = (self.role, self.epoch, self.leader)
            super().step(inp)
            if self.fetch_lapsed and not self._still_lapsed(following, inp):
                self.fetch_lapsed = False
            if was_down and self.role != "down":
                # A lone voter's restart appends its LeaderChange record (it elects itself at
                # once); the restarted replica then reads snapshot and log again.
                self.follow_log(self.out)
                self.control.restart()
            else:
                self.follow_log(self.out)
        self.use_voters(self.current_voters())
        self.resign_if_removed()
        self.track_upgrade_voters()
        return self.out

    def joins(self) -> bool:
        """Whether this replica asks to join when its update-voter-set period expires: auto-join
        on, following a leader, kraft.version 1, its own key (id, directory) not a voter."""
        return (self.auto_join and self.role == "follower" and self.control.kraft_version() >= 1
                and (self.id, self.directory) not in self.voter_set)

    def on_update_voter_set_due(self) -> None:
        """VOTERS-RULE-AUTO-JOIN: first remove a voter with this id under another directory, else
        add this replica (its directory id is its host id), sent to the leader."""
        if not self.joins() or self.leader is None:
            return
        old = sorted(d for r, d in self.voter_set if r == self.id)
        if old:
            self.send("RemoveVoterRequest", self.leader, replica=self.id, directory=old[0])
        else:
            self.send("AddVoterRequest", self.leader, replica=self.id, directory=self.directory)

    def track_upgrade_voters(self) -> None:
        """A kraft.version-0 leader (4.1+) starts its epoch knowing only itself; the record goes
        with the leadership and once kraft.version is 1."""
        if self.role != "leader" or not self.kraft_upgrade or self.control.kraft_version() >= 1:
            self.upgrade_voters, self._upgrade_epoch = {}, None
        elif self._upgrade_epoch != self.epoch:
            self._upgrade_epoch = self.epoch
            self.upgrade_voters = {v: ((v, True) if v == self.id else (-1, False))
                                   for v in _ids(self.control.voters_now())}

    def _still_lapsed(self, following: tuple[str, int, int | None], inp: dict[str, Any]) -> bool:
        """The lapse ends when the replica stops being that leader's observer follower in that
        epoch, or a Fetch answer of its epoch names that leader (or is the leader's success)."""
        if (self.role, self.epoch, self.leader) != following or self.is_voter:
            return False
        if inp["type"] != "FetchResponse" or inp["epoch"] != self.epoch:
            return True
        if inp["src"] == self.leader and inp["error"] == "NONE":
            return False
        return not (self.rediscovers_leader and inp.get("leader") == self.leader)

    def become_leader(self) -> None:
        """VOTERS-RULE-FIRST-LEADER: a leader whose voter set came from the bootstrap checkpoint
        writes KRaftVersionRecord and that VotersRecord in the batch of its LeaderChange."""
        start = self.end_offset
        self.fetch_dirs = {}  # a new leadership knows no replica's fetch yet
        super().become_leader()
        history = self.control.voter_history
        if not history or history[-1][0] != -1 or self.control.kraft_version() < 1:
            return
        extra = [_entry(self.epoch, "kraft_version", [self.control.kraft_version()]),
                 _entry(self.epoch, "voters", [x for k in sorted(history[-1][1]) for x in k])]
        for out in self.out:
            if out["type"] == "AppendLog" and out["offset"] == start:
                out["entries"] = [*out["entries"], *extra]
        self.log.extend(extra)
        self.update_high_watermark()

    def follow_log(self, outputs: list[dict[str, Any]]) -> None:
        """Feed the log changes of this step to the control-record state machine."""
        for out in outputs:
            if out["type"] == "AppendLog":
                self.control.append(out["offset"], [_record(e) for e in out["entries"]])
            elif out["type"] == "TruncateLog":
                self.control.truncate(out["offset"])

    def current_voters(self) -> VoterSet:
        """The voter set this replica uses: the one in force at its log end, committed or not."""
        return self.control.voters_now()

    def resign_if_removed(self) -> None:
        """A leader that removed itself resigns once that VotersRecord commits."""
        if self.role != "leader" or self.is_voter or self.high_watermark is None:
            return
        if self.control.voter_history and self.control.voter_history[-1][0] < self.high_watermark:
            self.resign()

    # -------------------------------------------------------------- leader requests

    def reject(self, request: str, replica: int, error: str) -> None:
        self.out.append({"type": "ReconfigRejected", "request": request, "replica": replica, "error": error})

    def leader_append(self, entries: list[dict[str, Any]]) -> None:
        self.out.append({"type": "AppendLog", "offset": self.end_offset, "entries": entries})
        self.control.append(self.end_offset, [_record(e) for e in entries])
        self.log.extend(entries)

    def change_pending(self) -> bool:
        """A voter change is uncommitted (or there is no voter set in the log at all)."""
        history = self.control.voter_history
        assert self.high_watermark is not None
        return not history or history[-1][0] >= self.high_watermark

    def reconfigure(self, inp: dict[str, Any]) -> None:
        request = {"AddVoter": "add_voter", "RemoveVoter": "remove_voter",
                   "UpgradeKRaftVersion": "upgrade"}[inp["type"]]
        replica = inp.get("replica", self.id)
        if self.role != "leader":
            return self.reject(request, replica, "NOT_LEADER_OR_FOLLOWER")
        if request != "upgrade" and not self.valid_key(inp):
            return self.reject(request, replica, "INVALID_REQUEST")
        if request == "add_voter" and not inp.get("endpoint", True):
            return self.reject(request, replica, "INVALID_REQUEST")  # no address to reach it at
        if self.high_watermark is None:
            return self.reject(request, replica, "REQUEST_TIMED_OUT")
        current = self.control.voters_now()
        if request == "upgrade":
            if self.control.kraft_version() < 1:
                if not self.upgrade_voters or not all(ok for _, ok in self.upgrade_voters.values()):
                    return self.reject(request, replica, "INVALID_UPDATE_VERSION")  # a voter not known to support 1
                # one batch: kraft.version 1 and the voters with the directories they reported
                voters = [x for r in sorted(self.upgrade_voters) for x in (r, self.upgrade_voters[r][0])]
                self.leader_append([_entry(self.epoch, "kraft_version", [1]), _entry(self.epoch, "voters", voters)])
                self.update_high_watermark()  # the set stays: a lone voter commits it at once
            return None
        if self.control.kraft_version() < 1:
            return self.reject(request, replica, "UNSUPPORTED_VERSION")
        if self.change_pending():
            return self.reject(request, replica, "REQUEST_TIMED_OUT")
        key = (inp["replica"], inp["directory"])
        if request == "add_voter":
            if key[0] in _ids(current):
                return self.reject(request, replica, "DUPLICATE_VOTER")
            if key[1] != self.fetch_dirs.get(key[0], key[0]) or self.end_offsets.get(key[0]) != self.end_offset:
                # (a host's one directory is its id: no other (id, directory) ever fetched)
                return self.reject(request, replica, "REQUEST_TIMED_OUT")  # not caught up yet
            new = current | {key}
        else:
            if key not in current or len(current) == 1:
                return self.reject(request, replica, "VOTER_NOT_FOUND")
            new = current - {key}
        self.leader_append([_entry(self.epoch, "voters", [x for k in sorted(new) for x in k])])
        return None

    def update_voter(self, inp: dict[str, Any]) -> None:
        """UpdateRaftVoter: the leader-only checks (epoch, then role), the request's own, then
        the handler's; accepted, the same voter set is written again (endpoints not kept)."""
        replica, epoch = inp["replica"], inp["epoch"]

        def reject(error: str) -> None:
            return self.reject("update_voter", replica, error)

        if epoch != self.epoch:
            return reject("FENCED_LEADER_EPOCH" if epoch < self.epoch else "UNKNOWN_LEADER_EPOCH")
        if self.role != "leader":
            return reject("NOT_LEADER_OR_FOLLOWER")
        low, high = inp.get("min_version", 0), inp.get("max_version", 1)
        if not self.valid_key(inp) or inp.get("listeners", "default") in ("other", "none") or not 0 <= low <= high:
            return reject("INVALID_REQUEST")
        if self.high_watermark is None:
            return reject("REQUEST_TIMED_OUT")
        if self.control.kraft_version() < 1:
            # 3.9/4.0: no upgrade; 4.1+: kept in memory, the voter found by id alone
            if not self.kraft_upgrade:
                return reject("UNSUPPORTED_VERSION")
            if not low <= 0 <= high:
                return reject("INVALID_REQUEST")
            if replica not in self.upgrade_voters:
                return reject("VOTER_NOT_FOUND")
            self.upgrade_voters[replica] = (inp["directory"], low <= 1 <= high)
            return None
        if self.change_pending():
            return reject("REQUEST_TIMED_OUT")
        if not low <= self.control.kraft_version() <= high:
            return reject("INVALID_REQUEST")
        current = self.control.voters_now()
        if (replica, inp["directory"]) not in current:
            return reject("VOTER_NOT_FOUND")
        self.leader_append([_entry(self.epoch, "voters", [x for k in sorted(current) for x in k])])
        self.update_high_watermark()  # the set stays: a lone voter commits it at once
        return None

    @staticmethod
    def valid_key(inp: dict[str, Any]) -> bool:
        """A request names a replica key: an id of 0 or more and a directory id (-1 is none)."""
        return bool(inp["replica"] >= 0 and inp["directory"] != -1)

    def snapshot(self) -> None:
        hw = self.high_watermark
        latest = self.control.snapshot["end_offset"] if self.control.snapshot else 0
        if self.role == "down" or hw is None or hw <= latest:
            return
        self.control.take_snapshot(hw)
        self.out.append({"type": "SnapshotWritten", "snapshot": self.control.snapshot_json()})

    def observation(self) -> dict[str, JSON]:
        return {**super().observation(), **self.control.observation(self.voter_set)}


# ------------------------------------------------------------------ adapters and the target


class LogInstance:
    """The log level: one replica's control-record state machine, fed with its log changes."""

    def __init__(self, control: ControlRecords) -> None:
        self.control = control

    def step(self, inp: JSON) -> StepResult:
        kind = inp["type"]
        outputs: list[JSON] = []
        if kind == "Append":
            self.control.append(inp["base_offset"], [(e["epoch"], e["record"]) for e in inp["entries"]])
        elif kind == "Truncate":
            self.control.truncate(inp["offset"])
        elif kind == "Snapshot":
            self.control.take_snapshot(inp["end_offset"])
            outputs.append({"type": "SnapshotWritten", "snapshot": self.control.snapshot_json()})
        elif kind == "Restart":
            self.control.restart()
        elif kind == "Read":
            outputs.append(self.control.read_at(int(inp["offset"])))
        else:
            raise TargetError(f"unknown log-level input {kind!r}")
        return StepResult(outputs, self.control.observation())

    def close(self) -> None:
        pass


class VotersTarget(Target):
    """A voters target: ``kspec conform`` drives it at ``level``; it serves every level in
    ``serves`` (a replica-level run gets a :class:`VoterReplica` per node, a log-level run a
    :class:`ControlRecords` per node), so a counterexample of either level replays on it."""

    protocol = "voters"

    def __init__(self, name: str = "reference", replica_class: type[VoterReplica] = VoterReplica,
                 control_class: type[ControlRecords] = ControlRecords, level: str = "replica",
                 serves: tuple[str, ...] = ("replica", "log")) -> None:
        if level not in serves or not set(serves) <= {"replica", "log"}:
            raise ValueError(f"level {level!r} must be one it serves ({', '.join(serves)}): replica or log")
        self.name = name
        self.level = level
        self.serves = serves
        self.replica_class = replica_class
        self.control_class = control_class
        # It implements controller auto-join (VOTERS-RULE-AUTO-JOIN; opt-in, as in Kafka).
        # And disk replacement (VOTERS-RULE-DISK-REPLACED; opt-in: ReplaceDisk and the keyed messages).
        # And the check-quorum period (RAFT-RULE-CHECK-QUORUM-PERIOD, declared since session 21:
        # VOTERS-DRIVE-JOIN-PROBE now puts its observer behind itself, which the plan ending
        # there had done before renewed leaders moved it).
        self.model_config: dict[str, JSON] = {"controller_auto_join": True, "disk_replacement": True,
                                              "check_quorum_period": True}

    def start(self, node: int, config: dict[str, JSON]) -> NodeInstance | LogInstance:
        asked = config.get("level", "replica")
        if asked not in self.serves:
            raise TargetError(f"{self.name} serves the {'/'.join(self.serves)} level, the run drives the "
                              f"{asked} level")
        if asked == "log":
            bootstrap = config.get("bootstrap")
            return LogInstance(self.control_class(_voter_set(config.get("static_voters") or []), bootstrap))
        replica = self.replica_class(node, config, self.control_class)
        replica.start()
        return NodeInstance(replica)

    def close(self) -> None:
        pass


def voters_target(name: str, cls: type[VoterReplica] | type[ControlRecords]) -> VotersTarget:
    """The target of a replica class (replica level) or a control-record class (log level)."""
    if issubclass(cls, ControlRecords):
        return VotersTarget(name, control_class=cls, level="log")
    return VotersTarget(name, replica_class=cls)
