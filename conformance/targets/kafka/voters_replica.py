"""``kafka:VERSION`` for voters at the **replica** level: Kafka's own ``KafkaRaftClient`` per
replica (kafka-raft 3.9 and later, KIP-853), driven as the raft target drives it
(``kspec.conformance.targets.kafka.raft``: Kafka's test doubles, timers as clock jumps, Fetch
held until ``FetchDue``) plus the voter-set inputs (spec/adapter-protocol.md, section voters):

- **start**: with a bootstrap configuration (kraft.version 1) the replica's ``MockLog`` gets the
  bootstrap checkpoint ``0-0`` that ``kafka-storage format --initial-controllers`` writes
  (KRaftVersionRecord(1) and the initial VotersRecord, written by Kafka's
  ``RecordsSnapshotWriter``) and the client starts with no static voters; without, the static
  voters are ``controller.quorum.voters``. Every replica's directory id is
  ``Uuid(KSPEC, host id)`` (VOTERS-MODEL-DIRS) and it listens on ``localhost:9990+id``; the
  VotersRecords the adapter builds use that endpoint and kraft.version support 0-1, as the
  model's hosts all support kraft.version 1.
- **AddVoter(replica, directory)** is an ``AddRaftVoter`` request (the replica's endpoint as its
  listener) handed to this replica; **RemoveVoter** a ``RemoveRaftVoter`` request. Kafka's
  leader asks the new voter for its ``ApiVersions``: the adapter answers at once with
  kraft.version 0-1 (the model does not model that round trip, VOTERS-MODEL-…). A request
  Kafka answers inside the step with an error is the output ``ReconfigRejected(request,
  replica, error)``. The answer to an accepted request comes when its VotersRecord commits
  (or the leader steps down): the model emits no such reply, so the adapter does not report
  answers that come after the step (not compared; spec/voters.md §7).
- **UpdateVoter(replica, directory, epoch, listeners, min_version, max_version)** is an
  ``UpdateRaftVoter`` request with that current leader epoch, the listener shape the input names
  (``LISTENER_SHAPES``) and that kraft.version range; Kafka answers it in the step (an accepted
  one with NONE, not reported).
- **UpgradeKRaftVersion**: Kafka has no raft RPC for it (``kafka-features`` goes through the
  controller's ``UpdateFeatures``), so the adapter answers from Kafka's own state what the
  controller would be told: ``NOT_LEADER_OR_FOLLOWER`` at a non-leader, ``REQUEST_TIMED_OUT``
  before the high watermark is known (the controller is not active before), nothing once the
  finalized kraft.version is 1; at kraft.version 0, from 4.1, the raft client's own
  ``upgradeKRaftVersion(epoch, KRAFT_VERSION_1, false)`` (KAFKA-16538), whose
  ``InvalidUpdateVersionException`` is ``INVALID_UPDATE_VERSION`` (VOTERS-RULE-UPGRADE-VOTERS);
  3.9 and 4.0 have no such method, and their controller refuses the feature change
  (``INVALID_UPDATE_VERSION``, answered by the adapter: nothing of Kafka's raft code is compared).
- **kraft.version 0** (static voters, ``controller.quorum.voters``): Kafka's static voters carry
  no directory id; the observation reports the static set's voters under their hosts' directory
  ids, as the model's static set has them (VOTERS-MODEL-DIRS). Only the static set is so read: a
  VotersRecord's directories are Kafka's own.
- **Auto-join** (VOTERS-RULE-AUTO-JOIN, 4.2+): with ``auto_join`` in the replica's configuration
  the client is built as a controller (``canBecomeVoter``) with
  ``controller.quorum.auto.join.enable=true``. ``UpdateVoterSetDue`` at an observer follower
  expires its ``FollowerState`` update-voter-set timer (the clock jumps restart it otherwise,
  ``raft_timers.Timers.elapse``), after failing a Fetch Kafka still awaits (as ``FetchDue`` does:
  the model fires the timer only with no fetch in flight); elsewhere it does nothing. The
  ``AddRaftVoter`` / ``RemoveRaftVoter`` Kafka then sends its leader is the output
  ``AddVoterRequest`` / ``RemoveVoterRequest``, and is at once completed as a lost connection:
  the model does not answer it (VOTERS-MODEL-AUTO-JOIN-ANSWER). Delivered to the leader, it is
  the same request with ``AckWhenCommitted`` false (KIP-1186, as Kafka's observer builds it),
  handled as AddVoter / RemoveVoter above.
- **TakeSnapshot** is ``KafkaRaftClient.createSnapshot`` at the high watermark (only forward),
  frozen at once; output ``SnapshotWritten`` read back with Kafka's ``RecordsSnapshotReader``.

Observation: the raft target's (role, epoch, election, log, high watermark) plus the client's
control-record state machine (``partitionState``): ``lastKraftVersion()``, ``lastVoterSet()``
and the voter-set history's entries, as the log-level target reads them.
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import JSON, StepResult, Target, TargetError
from kspec.conformance.targets.kafka import artifacts, jvm
from kspec.conformance.targets.kafka import raft as kraft
from kspec.conformance.targets.kafka.raft_client import REQUEST_TIMEOUT_MS
from kspec.conformance.targets.kafka.raft_java import MSG, RAFT
from kspec.conformance.targets.kafka.raft_java import Java as _RaftJava
from kspec.conformance.targets.kafka.raft_wire import (
    CLUSTER_ID,
    DIRECTORY_UUID_HIGH,
    PORT_BASE,
    _api_name,
    _first_partition,
    make_log_proxy,
    make_store_proxy,
    voters_record,
)
from kspec.conformance.targets.kafka.voters import _Java as _LogJava
from kspec.conformance.targets.kafka.voters import _java_error, _offset, snapshot_output
from kspec.model.raft.rule_sets import rule_set_for

MIN_VERSION = (3, 9)
# A replaced disk's directory id is at least this (VOTERS-MODEL-DIRS): a Vote names such a voter's
# directory on the wire (KeyedVoteRequest).
REPLACED_FROM = 1000

REQUESTS = {"AddVoter": ("add_voter", "ADD_RAFT_VOTER"), "RemoveVoter": ("remove_voter", "REMOVE_RAFT_VOTER"),
            "UpdateVoter": ("update_voter", "UPDATE_RAFT_VOTER")}
# Auto-join's requests (VOTERS-RULE-AUTO-JOIN), delivered to the leader as these client requests.
JOIN_REQUESTS = {"AddVoterRequest": "AddVoter", "RemoveVoterRequest": "RemoveVoter"}
# An UpdateVoter's listener shapes (model/voters/node.py Listeners) as (name, host, port offset)
# entries; None is the cluster's listener name, the port is PORT_BASE + replica + offset, or 0.
LISTENER_SHAPES: dict[str, list[tuple[str | None, str, int | None]]] = {
    "default": [(None, "localhost", 0)],
    "other": [("KSPEC_OTHER", "localhost", 0)],
    "none": [],
    "duplicate": [(None, "localhost", 100), (None, "localhost", 0)],
    "empty-host": [(None, "", 0)],
    "port-0": [(None, "localhost", None)],
}


class _Voters:
    """What the replicas of one version share: the log-level classes (snapshots, the history's
    private fields) and ``KafkaRaftClient.partitionState`` (by reflection)."""

    def __init__(self, java: _RaftJava, log_java: _LogJava, partition_state: Any) -> None:
        self.java, self.lj, self.partition_state = java, log_java, partition_state

    def uuid(self, directory: int) -> Any:
        """A model directory id as a Uuid; -1 (the model's NO_DIRECTORY) is Uuid.ZERO_UUID."""
        if int(directory) == -1:
            return self.java.Uuid.ZERO_UUID
        return self.java.Uuid(DIRECTORY_UUID_HIGH, int(directory))


class KafkaVoterReplica(kraft.KafkaRaftNode):
    """One replica: the raft target's ``KafkaRaftClient`` with a bootstrap checkpoint or static
    voters, its directory id, and the reconfiguration requests (the module docstring)."""

    def __init__(self, java: _RaftJava, values: _Voters, node: int, config: dict[str, Any]) -> None:
        self.values = values
        self.bootstrap = config.get("bootstrap")
        self.static = [list(p) for p in config.get("static_voters") or []]
        initial = self.bootstrap["voters"] if self.bootstrap else self.static
        self._booted = False
        self._late = False  # whether answers to inbound requests are still reported
        self.auto_join = bool(config.get("auto_join", False))  # VOTERS-RULE-AUTO-JOIN (4.2+)
        self.check_quorum_period = bool(config.get("check_quorum_period"))  # RAFT-RULE-CHECK-QUORUM-PERIOD
        # VOTERS-RULE-DISK-REPLACED: this disk's directory id (the host's first is its id), and the
        # directories the inbound request being handled names (KeyedFetchRequest, KeyedVoteRequest)
        self.disk_directory = node
        # configuration, so kept across a disk replacement (which empties ``bootstrap``)
        self._servers = frozenset(int(r) for r, _ in initial)
        self._inbound_dirs: tuple[int | None, int | None] = (None, None)  # (fetcher's, voter's)
        super().__init__(java, node, [int(r) for r, _ in initial])

    # -------------------------------------------------------------- construction

    def directory_id(self) -> Any:
        return self.values.uuid(self.disk_directory)

    def flag_argument(self) -> bool:
        """``canBecomeVoter`` (4.2+) where auto-join is on: every host is a controller."""
        return self.auto_join

    def quorum_settings(self) -> list[tuple[Any, Any]]:
        if not self.auto_join:
            return []
        cls = jvm.jclass(self.java.version, f"{RAFT}.QuorumConfig")
        return [(cls.QUORUM_AUTO_JOIN_ENABLE_CONFIG, "true")]

    def bootstrap_servers(self) -> Any:
        servers = self.java.ArrayList()
        if not self.static:  # formatted with --initial-controllers: bootstrap from the initial voters
            for v in self.voters:
                servers.add(self._address(v))
        return servers

    def _boot(self) -> None:
        if not self._booted:
            self._booted = True
            self.is_voter = True  # every host listens (an observer may be added)
            if self.bootstrap is not None:
                self._write_bootstrap()
        super()._boot()

    def _crash_may_lose(self) -> bool:
        # ``is_voter`` holds for every host here (``_boot``): which replicas are observers is the
        # voter set's, which changes, so a Crash keeps every replica's log (``_stop_log``)
        return False

    def _write_bootstrap(self) -> None:
        """The checkpoint ``0-0`` of ``kafka-storage format --initial-controllers``."""
        lj, j, bootstrap = self.values.lj, self.java, self.bootstrap
        assert bootstrap is not None
        writer = self.inner_log.createNewSnapshotUnchecked(lj.OffsetAndEpoch(0, 0)).get()
        flat = [int(x) for pair in sorted(bootstrap["voters"]) for x in pair]
        # --no-initial-controllers (a replaced disk, VOTERS-RULE-DISK-REPLACED): kraft.version alone
        voter_set = j.Optional.of(lj.VoterSet.fromVotersRecord(voters_record(j, flat))) if flat else j.Optional.empty()
        builder = lj.SnapshotBuilder().setLastContainedLogTimestamp(0).setTime(lj.Time.SYSTEM)
        builder = (builder.setMaxBatchSizeBytes(8192) if hasattr(builder, "setMaxBatchSizeBytes")
                   else builder.setMaxBatchSize(8192))
        snap = (builder.setMemoryPool(lj.MemoryPool.NONE).setRawSnapshotWriter(writer)
                .setKraftVersion(lj.kraft_version_value(int(bootstrap["kraft_version"])))
                .setVoterSet(voter_set).build(j.serde))
        try:
            snap.freeze()
        finally:
            snap.close()

    def _initialize(self) -> None:
        """``initialize`` with the static voters (none after a bootstrap checkpoint)."""
        voters = self.voters
        self.voters = [int(r) for r, _ in self.static]
        try:
            super()._initialize()
        finally:
            self.voters = voters

    def _settle(self) -> None:
        """As the raft target's, then one more poll: a record Kafka's leader appends while it
        handles a response (the VotersRecord after the ApiVersions answer) waits in its batch
        accumulator for the next poll, which the raft target's quiet test does not wait for."""
        self._hold_join_timer()
        for _ in range(kraft.MAX_POLLS):
            super()._settle()
            end = _offset(self.inner_log.endOffset())
            self.client.poll()
            sent = list(self.channel.drainSendQueue())
            for req in sent:
                self._sent(req)
            if not sent and self.queue.isEmpty() and _offset(self.inner_log.endOffset()) == end:
                return
        raise TargetError(f"replica {self.id}: KafkaRaftClient did not settle")

    # -------------------------------------------------------------- the log, read once

    # The log's entries as last read, while nothing of Kafka's has run since (see log_entries).
    _log_read: list[dict[str, Any]] | None = None

    def log_entries(self) -> list[dict[str, Any]]:
        """As the raft target's, read once between Kafka's activity: a step reads the whole log
        before (its effects' start), after (its effects) and for its observation, and between
        two steps of this replica nothing of its Kafka runs, so the first and last reads of the
        three equal the neighbouring step's (decoding every record through JPype was a quarter
        of a kafka:4.4.0 step's time). ``_dispatch`` and the voters inputs forget it before
        Kafka runs."""
        if self._log_read is None:
            self._log_read = super().log_entries()
        return list(self._log_read)

    def _dispatch(self, inp: JSON) -> None:
        self._log_read = None
        try:
            super()._dispatch(inp)
        finally:
            self._log_read = None

    # -------------------------------------------------------------- requests

    def _leader_endpoints(self, data: Any) -> None:
        """What a KIP-853 peer sends besides the model's fields: the leader's endpoint
        (``LeaderEndpoints`` of Begin/EndQuorumEpoch requests, ``NodeEndpoints`` of the
        responses naming a leader), so a replica whose voter set lacks the leader can reach it."""
        j = self.java
        cls = str(data.getClass().getName())
        if not (hasattr(data, "topics") or hasattr(data, "responses")):
            return  # AddRaftVoter, RemoveRaftVoter, ApiVersions: no partitions
        part = _first_partition(data)
        if part is None:
            return
        leader = int(part.currentLeader().leaderId()) if hasattr(part, "currentLeader") else (
            int(part.leaderId()) if hasattr(part, "leaderId") else -1)
        if leader < 0:
            return
        if cls.endswith("RequestData") and hasattr(data, "leaderEndpoints"):
            ep = jvm.jclass(j.version, f"{cls}$LeaderEndpoint")()
            ep.setName(j.listener.value()).setHost("localhost").setPort(PORT_BASE + leader)
            data.leaderEndpoints().add(ep)
        elif cls.endswith("ResponseData") and hasattr(data, "nodeEndpoints"):
            ep = jvm.jclass(j.version, f"{cls}$NodeEndpoint")()
            ep.setNodeId(leader).setHost("localhost").setPort(PORT_BASE + leader)
            data.nodeEndpoints().add(ep)

    def _response(self, correlation: int, data: Any, source: Any) -> Any:
        self._leader_endpoints(data)
        return super()._response(correlation, data, source)

    def _request(self, data: Any) -> Any:
        """A Fetch names the fetching replica's directory (Kafka's leader tracks replicas by
        key; AddVoter needs the key's fetch state)."""
        self._leader_endpoints(data)
        fetcher, voter = self._inbound_dirs
        if _api_name(self.java, data) == "FETCH":  # FetchPartition.ReplicaDirectoryId (v17, KIP-853)
            replica = int(data.replicaState().replicaId())
            for topic in data.topics():
                for part in topic.partitions():
                    part.setReplicaDirectoryId(self.values.uuid(replica if fetcher is None else fetcher))
        elif _api_name(self.java, data) == "VOTE" and voter is not None:
            # Vote v1's VoterDirectoryId, where a replaced disk is involved (VOTERS-RULE-VOTE-BY-KEY)
            for topic in data.topics():
                for part in topic.partitions():
                    part.setVoterDirectoryId(self.values.uuid(voter))
        return super()._request(data)

    # -------------------------------------------------------------- disk replacement (KIP-853)

    def _replace_disk(self, directory: int) -> None:
        """VOTERS-RULE-DISK-REPLACED: the process stops, the disk is replaced by one formatted
        with ``--no-initial-controllers`` (a new directory id, a bootstrap checkpoint holding
        kraft.version 1 and no voters, no quorum-state file) and the replica starts again with
        its configuration: a fresh ``MockLog``, a fresh quorum-state store, a new client."""
        import weakref

        j = self.java
        self.client, self.down = None, False
        self.disk_directory = directory
        self.inner_log = j.MockLog(j.tp, j.topic_id, j.log_context)
        self.log = make_log_proxy(j, self.inner_log)
        self.store = j.MockStore()
        on_write = weakref.WeakMethod(self._on_write)

        def wrote() -> None:
            method = on_write()
            if method is not None:
                method()

        self.store_proxy = make_store_proxy(j, self.store, wrote)
        self._written = (0, None, None)
        self.static, self.bootstrap = [], {"kraft_version": 1, "voters": []}
        self._lapsed, self._last_control, self._log_read = None, {}, None
        self._write_bootstrap()
        self._boot()

    def _keyed(self, outputs: list[dict[str, Any]], sent: dict[int, Any]) -> list[dict[str, Any]]:
        """The requests this replica sent, with the directory ids Kafka put in them where a
        replaced disk is one of the keys (KeyedFetchRequest, KeyedVoteRequest; spec/adapter-protocol.md)."""
        out = []
        for o in outputs:
            req = sent.get(int(o.get("dst", -1))) if o.get("src") == self.id else None
            if o.get("type") == "FetchRequest" and self.disk_directory != self.id:
                o = {**o, "type": "KeyedFetchRequest", "directory": self.disk_directory}
                if req is not None:
                    part = _first_partition(req.data())
                    u = part.replicaDirectoryId()
                    o["directory"] = int(u.getLeastSignificantBits()) \
                        if int(u.getMostSignificantBits()) == DIRECTORY_UUID_HIGH else -1
            elif o.get("type") == "VoteRequest" and o.get("src") == self.id:
                voter = self._voter_directory(int(o["dst"]))
                if voter is not None and voter >= REPLACED_FROM:
                    o = {**o, "type": "KeyedVoteRequest", "voter_directory": voter}
            out.append(o)
        return out

    def _voter_directory(self, voter: int) -> int | None:
        """The directory the voter set in force gives ``voter`` (Kafka puts it in its Vote)."""
        if self.client is None:
            return None
        for r, d in self.values.lj.pairs(self._state_machine().lastVoterSet()):
            if int(r) == voter:
                return int(d)
        return None

    @staticmethod
    def _peer(node: Any) -> int:
        """A destination's replica id: a bootstrap server (``controller.quorum.bootstrap.servers``)
        has a negative id; its port says which replica it is."""
        ident = int(node.id())
        return ident if ident >= 0 else int(node.port()) - PORT_BASE

    def _start_index(self) -> int:
        """As the raft target's, over bootstrap servers named by port."""
        if self._pick is None or self.client is None:
            return 0
        order = [self._peer(v) for v in self.java.f_voters.get(self.java.f_requests.get(self.client))]
        return order.index(self._pick) % len(order) if self._pick in order else 0

    def _successors(self, leader: int) -> list[int]:
        """As the raft target's (this replica last, so its fetch timer stays positive); with no
        other voter to put first (two voters, or a changed set), the old leader goes first."""
        out = super()._successors(leader)
        return out if len(out) > 1 else [leader, *out]

    def _remaining(self, kind: str) -> int | None:
        """As the raft target's, and the election timer of a resigned leader outside its voter set
        (VOTERS-RULE-REMOVED-LEADER-TIMER: Kafka's ``pollResigned`` runs it at every replica; the
        raft target runs it at voters only)."""
        q = self.quorum
        if kind == "ElectionTimeout" and q.isResigned() and not q.isVoter():
            return int(q.resignedStateOrThrow().remainingElectionTimeMs(int(self.time.milliseconds())))
        return super()._remaining(kind)

    # VOTERS-RULE-OBSERVER-FETCH-TIMEOUT: (epoch, leader) of the observer follower whose fetch
    # timer the model fired, until an answer names that leader and Kafka asks the leader again
    # (_asks_bootstrap_on_timer; the model's lapse; see _fetch_due)
    _lapsed: tuple[int, int] | None = None

    def _observer_follower(self) -> bool:
        q = self.quorum
        return not self.down and q is not None and bool(q.isObserver()) and bool(q.isFollower())

    def _following(self) -> tuple[int, int] | None:
        """(epoch, leader) of an observer follower, else None."""
        if not self._observer_follower():
            return None
        return int(self.quorum.epoch()), int(self.quorum.followerStateOrThrow().leaderId())

    def _fetch_expired(self) -> bool:
        return bool(self.quorum.followerStateOrThrow().hasFetchTimeoutExpired(self.time.milliseconds()))

    def _asks_bootstrap_on_timer(self) -> bool:
        """Whether Kafka still sends this observer follower's every Fetch to a random bootstrap
        server: 3.9-4.1's ``pollFollowerAsObserver`` does so while the fetch timer is expired
        (``hasFetchTimeoutExpired`` -> ``maybeSendAnyVoterFetch`` / ``maybeSendFetchToAnyBootstrap``),
        and only a successful fetch from the leader resets that timer: an answer naming the
        leader does not (KAFKA-19354). 4.2+ asks the leader unless its request timed out
        (``maybeSendFetchToBestNode``). While it does, the lapse stays the adapter's: the pick
        is steered (``_fetch_due``), as at the first lapse, whatever the model predicts (the
        reference model, which asks the leader again, then diverges only on a pick of another
        bootstrap server, K7; the K7 variant predicts Fetches to the servers it picks)."""
        return self.java.vt < (4, 2) and self._observer_follower() and self._fetch_expired()

    def _fetch_due(self, to: int) -> None:
        """As the raft target's, except at an observer. Without a leader, a pick outside its
        bootstrap servers: Kafka asks only those (VOTERS-RULE-OBSERVER-BOOTSTRAP), so nothing is
        due and the fetch in flight stays awaited (the raft target's rule would take it as lost
        and fail it, and the answer the model then delivers would find no request). As a
        follower whose fetch timer the model fired (VOTERS-RULE-OBSERVER-FETCH-TIMEOUT), until an
        answer names the leader (on 3.9-4.1: until Kafka's fetch timer is reset), a pick of a
        bootstrap server moves the clock past the fetch timeout and the request timeout of the
        fetch in flight (what a leader that stopped answering looks like: 3.9-4.1 go to a
        bootstrap server on the expired fetch timer, 4.2+ on the timed-out request), with Kafka's
        random pick steered to ``to``. (No fetch of the replica is in flight in the model then,
        VOTERS-MODEL-OBSERVER-TIMER.) As a follower, a
        pick other than the leader reports only a Fetch Kafka already sent there while its fetch
        timer is expired (Kafka 3.9-4.1 after a bootstrap server named the leader: KAFKA-19354),
        and fails nothing."""
        q = self.quorum
        servers = self._bootstrap_ids()
        if (not self.down and q is not None and to not in servers
                and q.isObserver() and not q.isFollower()):
            return
        following = self._following()
        if following is not None and self._lapsed == following and to in servers:
            self._pick = to
            left = max(int(q.followerStateOrThrow().remainingFetchTimeMs(self.time.milliseconds())), 0)
            self.time.sleep(left + REQUEST_TIMEOUT_MS + 1)
            self._settle()
            for _ in range(2):
                # 4.2+ retries its leader once the request to a bootstrap server timed out (the
                # leader's connection is ready again): that request times out too, as the
                # leader's did, so the pick goes to ``to``
                lead = self.held.get(following[1])
                if to == following[1] or lead is None or not self._expected(lead) or self.held.get(to) is not None:
                    break
                self.time.sleep(REQUEST_TIMEOUT_MS + 1)
                self._settle()
        elif following is not None and to != following[1]:
            req = self.held.get(to)
            if req is None or not self._expected(req) or not self._fetch_expired():
                return
        super()._fetch_due(to)

    def _fetches_from(self, to: int) -> bool:
        """Always: ``_fetch_due`` above decides where a Fetch is due (the voter set changes)."""
        return True

    def _bootstrap_ids(self) -> set[int]:
        """The replicas an observer asks for the leader: ``controller.quorum.bootstrap.servers``
        (the initial voters) or, with static voters, ``controller.quorum.voters``."""
        return set(self._servers)

    def _sent(self, req: Any) -> None:
        """A Fetch to a bootstrap server is held under the replica it names; Kafka's
        ApiVersions to a voter being added is answered at once (kraft.version 0-1)."""
        api = _api_name(self.java, req.data())
        if api == "FETCH":
            self.held[self._peer(req.destination())] = req
            return
        if api in ("ADD_RAFT_VOTER", "REMOVE_RAFT_VOTER"):
            # auto-join (VOTERS-RULE-AUTO-JOIN): the request is the output; its answer is lost
            data = req.data()
            kind = "AddVoterRequest" if api == "ADD_RAFT_VOTER" else "RemoveVoterRequest"
            u = data.voterDirectoryId()
            directory = int(u.getLeastSignificantBits()) if int(u.getMostSignificantBits()) == DIRECTORY_UUID_HIGH \
                else -1
            self.outputs.append({"type": kind, "src": self.id, "dst": self._peer(req.destination()),
                                 "replica": int(data.voterId()), "directory": directory})
            self._fail(req)
            return
        if api == "API_VERSIONS":
            j = self.java
            data = jvm.jclass(j.version, f"{MSG}.ApiVersionsResponseData")()
            key = jvm.jclass(j.version, f"{MSG}.ApiVersionsResponseData$SupportedFeatureKey")()
            key.setName("kraft.version").setMinVersion(j.jpype.JShort(0)).setMaxVersion(j.jpype.JShort(1))
            data.supportedFeatures().add(key)
            self._complete(req, self._response(req.correlationId(), data, req))
            return
        super()._sent(req)

    _join_due = False  # the model fired the update-voter-set timer (_update_voter_set_due)

    def _hold_join_timer(self) -> None:
        """With auto-join on, the update-voter-set period restarts before every poll unless the
        model fired it: the adapter's own clock jumps (a timer's deadline, a lapsed observer's
        request timeout in ``_fetch_due``) would expire it and Kafka would ask to join on its own
        (``raft_timers.Timers.elapse`` restarts it for the driver's clock runs)."""
        q = self.quorum
        if not self.auto_join or self._join_due or self.down or q is None or not q.isFollower():
            return
        q.followerStateOrThrow().resetUpdateVoterSetPeriod(self.time.milliseconds())

    def _update_voter_set_due(self) -> None:
        """VOTERS-RULE-AUTO-JOIN's timer (the module docstring): at an observer follower only (a
        voter follower's expired period would send UpdateRaftVoter, which the model does not
        drive)."""
        if self._following() is None:
            return
        stale = [r for r in [*self.held.values(), *[r for (_, a), r in self.reported.items() if a == "FETCH"]]
                 if self._expected(r)]
        self.held = {}
        for r in stale:
            self._fail(r)
        timer = self.java.field(f"{RAFT}.FollowerState", "updateVoterSetPeriodTimer").get(
            self.quorum.followerStateOrThrow())
        timer.update(self.time.milliseconds())
        timer.reset(0)
        self._join_due = True
        try:
            self._settle()
        finally:
            self._join_due = False

    def _reconfig(self, inp: dict[str, Any]) -> None:
        j, kind = self.java, str(inp["type"])
        name, _ = REQUESTS[kind]
        replica, directory = int(inp["replica"]), int(inp["directory"])
        if kind == "AddVoter":
            data = jvm.jclass(j.version, f"{MSG}.AddRaftVoterRequestData")()
            listeners = data.listeners()
            listener = jvm.jclass(j.version, f"{MSG}.AddRaftVoterRequestData$Listener")()
            # Without an endpoint (the request's "endpoint": false) the only listener is one the
            # cluster does not use (VOTERS-RULE-ADD-ENDPOINT).
            name_ = j.listener.value() if inp.get("endpoint", True) else "KSPEC_OTHER"
            listener.setName(name_).setHost("localhost").setPort(PORT_BASE + replica)
            listeners.add(listener)
            data.setClusterId(CLUSTER_ID).setTimeoutMs(REQUEST_TIMEOUT_MS).setVoterId(replica) \
                .setVoterDirectoryId(self.values.uuid(directory))
            if inp.get("auto"):  # an observer's own request (VOTERS-RULE-AUTO-JOIN): KIP-1186's
                data.setAckWhenCommitted(False)
        elif kind == "UpdateVoter":
            data = jvm.jclass(j.version, f"{MSG}.UpdateRaftVoterRequestData")()
            for lname, host, offset in LISTENER_SHAPES[str(inp.get("listeners", "default"))]:
                listener = jvm.jclass(j.version, f"{MSG}.UpdateRaftVoterRequestData$Listener")()
                listener.setName(lname or j.listener.value()).setHost(host) \
                    .setPort(0 if offset is None else PORT_BASE + replica + offset)
                data.listeners().add(listener)
            data.kRaftVersionFeature().setMinSupportedVersion(j.jpype.JShort(int(inp.get("min_version", 0)))) \
                .setMaxSupportedVersion(j.jpype.JShort(int(inp.get("max_version", 1))))
            data.setClusterId(CLUSTER_ID).setCurrentLeaderEpoch(int(inp["epoch"])).setVoterId(replica) \
                .setVoterDirectoryId(self.values.uuid(directory))
        else:
            data = jvm.jclass(j.version, f"{MSG}.RemoveRaftVoterRequestData")()
            data.setClusterId(CLUSTER_ID).setVoterId(replica).setVoterDirectoryId(self.values.uuid(directory))
        if kind == "AddVoter":
            self._free_connection(replica)
        req = self._request(data)
        outputs = self.outputs
        done: list[Any] = []

        @j.jpype.JImplements("java.util.function.BiConsumer")
        class Answered:
            @j.jpype.JOverride
            def accept(self, resp: Any, error: Any) -> None:
                done.append(resp)
                if resp is not None and not late[0]:
                    code = str(j.Errors.forCode(resp.data().errorCode()).name())
                    if code != "NONE":
                        outputs.append({"type": "ReconfigRejected", "request": name, "replica": replica,
                                        "error": code})

        late = [False]
        self._callbacks.append(Answered())
        if self.java.line.futures:  # 4.4: handle returns the completion (KAFKA-20714), as raft's
            self.client.handle(req).whenComplete(self._callbacks[-1])
        else:
            req.completion.whenComplete(self._callbacks[-1])
            self.client.handle(req)
        self._settle()
        late[0] = True  # an answer after this step is the accepted request's (not compared)

    def _free_connection(self, replica: int) -> None:
        """Kafka keeps one request in flight per peer, and the ApiVersions to a voter being added
        is refused (REQUEST_TIMED_OUT, "not ready") while another waits. With the adapter's
        endless request timeout, a request the model's network never answers (a response the
        model drops or ignores) would wait forever; in a cluster it times out. So a request
        still awaited from ``replica`` is completed as a lost connection (BROKER_NOT_AVAILABLE),
        as the raft target does for a Fetch at ``FetchDue``."""
        if not self.quorum.isLeader():
            return  # refused before any ApiVersions (NOT_LEADER_OR_FOLLOWER)
        stale = [r for (dst, api), r in self.reported.items()
                 if dst == replica and api == "BEGIN_QUORUM_EPOCH" and self._expected(r)]
        for r in stale:
            self._fail(r)
        if stale:
            super()._settle()

    def _upgrade(self) -> None:
        """See the module docstring: no raft RPC; the state the controller would be told of."""
        q = self.quorum
        if not q.isLeader():
            self.outputs.append({"type": "ReconfigRejected", "request": "upgrade", "replica": self.id,
                                 "error": "NOT_LEADER_OR_FOLLOWER"})
        elif not self.client.highWatermark().isPresent():
            self.outputs.append({"type": "ReconfigRejected", "request": "upgrade", "replica": self.id,
                                 "error": "REQUEST_TIMED_OUT"})
        elif self._kraft_version() < 1:
            # VOTERS-RULE-UPGRADE-VOTERS: 4.1+ the raft client's upgrade (KAFKA-16538); 3.9/4.0
            # have none, and the controller refuses the feature change
            upgrade = getattr(self.client, "upgradeKRaftVersion", None)
            if upgrade is None:
                self.outputs.append({"type": "ReconfigRejected", "request": "upgrade", "replica": self.id,
                                     "error": "INVALID_UPDATE_VERSION"})
                return
            j = self.java
            version = jvm.jclass(j.version, "org.apache.kafka.server.common.KRaftVersion").KRAFT_VERSION_1
            try:
                upgrade(int(q.epoch()), version, False)
            except j.jpype.JException as err:
                if "InvalidUpdateVersionException" not in str(err.getClass().getName()):
                    raise
                self.outputs.append({"type": "ReconfigRejected", "request": "upgrade", "replica": self.id,
                                     "error": "INVALID_UPDATE_VERSION"})
                return
            self._settle()

    def _snapshot(self) -> None:
        """``createSnapshot`` at the high watermark, only forward (VOTERS-SNAP-TAKE)."""
        lj = self.values.lj
        opt = self.client.highWatermark()
        if not opt.isPresent():
            return
        hw = int(opt.getAsLong())
        latest = self.inner_log.latestSnapshotId()
        last_end = _offset(latest.get()) if latest.isPresent() else 0
        if hw <= 0 or hw <= last_end:
            return
        entries = self.log_entries()
        snapshot_id = lj.OffsetAndEpoch(hw, int(entries[hw - 1]["epoch"]))
        writer = self.client.createSnapshot(snapshot_id, 0)
        if not writer.isPresent():
            raise TargetError(f"replica {self.id}: createSnapshot({hw}) made no writer")
        w = writer.get()
        try:
            w.freeze()
        finally:
            w.close()
        snapshot = snapshot_output(self.values.lj, self.inner_log, snapshot_id)
        self.outputs.append({"type": "SnapshotWritten", "snapshot": snapshot})

    # -------------------------------------------------------------- the step

    def step(self, inp: JSON) -> StepResult:
        if not isinstance(inp, dict):
            raise TargetError(f"voters input must be an object, got {inp!r}")
        kind = inp.get("type")
        try:
            if kind in REQUESTS or kind in ("UpgradeKRaftVersion", "TakeSnapshot", *JOIN_REQUESTS, "UpdateVoterSetDue"):
                before_log = self.log_entries()
                self.outputs, self.inbound, self._callbacks = [], [], []
                if not self.down:
                    self._log_read = None
                    try:
                        if kind in REQUESTS:
                            self._reconfig(inp)
                        elif kind in JOIN_REQUESTS:
                            self._reconfig({"type": JOIN_REQUESTS[kind], "replica": inp["replica"],
                                            "directory": inp["directory"], "auto": True})
                        elif kind == "UpdateVoterSetDue":
                            self._update_voter_set_due()
                        elif kind == "UpgradeKRaftVersion":
                            self._upgrade()
                        else:
                            self._snapshot()
                    finally:
                        self._log_read = None
                outputs = self._effects(before_log) + self.outputs
                # RAFT-RULE-CHECK-QUORUM-PERIOD: an AddVoter that makes a lone voter's set two
                # starts Kafka's check-quorum timer (LeaderState.timeUntilCheckQuorumExpires runs
                # none for one voter): the leader's period begins here, as after a raft step,
                # not at the next raft step, which may be the new voter's Fetch that renews it
                self._note_check_period()
                return StepResult(outputs, self.observation())
            if kind == "ReplaceDisk":
                self.outputs, self.inbound, self._callbacks = [], [], []
                self._replace_disk(int(inp["directory"]))
                self.outputs = []  # what a replica does while it starts is no step of the model
                return StepResult([], self.observation())
            if kind in ("KeyedFetchRequest", "KeyedVoteRequest") or (
                    kind == "VoteRequest" and self.disk_directory != self.id):
                # the directory ids the wire carries (VOTERS-RULE-FETCH-BY-KEY, -VOTE-BY-KEY)
                plain = {k: v for k, v in inp.items() if k not in ("directory", "voter_directory")}
                plain["type"] = kind.removeprefix("Keyed")
                self._inbound_dirs = (inp.get("directory"), inp.get("voter_directory", int(inp["dst"])))
                try:
                    result = super().step(plain)
                finally:
                    self._inbound_dirs = (None, None)
                return StepResult(self._keyed(result.outputs, {}), result.observation)
            if kind == "FetchTimeout":
                # VOTERS-RULE-OBSERVER-FETCH-TIMEOUT: Kafka runs an observer follower's fetch
                # timer, the raft target moves only a voter's: noted here, acted on at the next
                # Fetch to a bootstrap server (_fetch_due)
                self._lapsed = self._following()
            held = dict(self.held)  # the Fetches Kafka sent, which FetchDue reports
            result = super().step(inp)
            if self.disk_directory != self.id or any(o.get("type") == "VoteRequest" for o in result.outputs):
                result = StepResult(self._keyed(result.outputs, held), result.observation)
            if self._lapsed is not None and (self._lapsed != self._following() or (
                    kind == "FetchResponse" and (inp.get("epoch"), inp.get("leader")) == self._lapsed
                    and not self._asks_bootstrap_on_timer())):
                # another role or leader, or an answer named the leader: Kafka asks the leader
                # again (4.2+, or 3.9-4.1 once the leader's own answer reset the fetch timer)
                self._lapsed = None
            return result
        except TargetError:
            raise
        except Exception as err:  # a Java exception: one line naming the step
            raise TargetError(f"kafka:{self.java.version} voters: {kind} threw {_java_error(err)}") from None

    # -------------------------------------------------------------- observation

    def _state_machine(self) -> Any:
        return self.values.partition_state.get(self.client)

    def _kraft_version(self) -> int:
        return int(self.values.lj.kraft_version_int(self._state_machine().lastKraftVersion()))

    def observation(self) -> dict[str, JSON]:
        out = super().observation()
        if self.down or self.client is None:
            out.update(self._last_control)
            return out
        lj = self.values.lj
        sm = self._state_machine()
        tree = lj.f_map.get(lj.f_voters.get(lj.f_history.get(sm)))
        history = [[int(e.getKey()), lj.pairs(e.getValue())] for e in tree.entrySet()]
        voters = lj.pairs(sm.lastVoterSet())
        if not history and self.static:
            # controller.quorum.voters has no directory ids: the hosts' own (VOTERS-MODEL-DIRS)
            voters = sorted([r, r if d == -1 else d] for r, d in voters)
        control = {"kraft_version": int(lj.kraft_version_int(sm.lastKraftVersion())),
                   "voters": voters,
                   "history": history}
        self._last_control = control
        out.update(control)
        return out

    _last_control: dict[str, JSON] = {}


class KafkaVotersReplicaTarget(Target):
    """The voters target of one Kafka version (3.9.0 or later), at the replica level."""

    protocol = "voters"
    level: str | None = "replica"

    def __init__(self, version: str) -> None:
        vt = artifacts.supported_version(version, "voters", MIN_VERSION, "the replica level drives KIP-853's "
                                         "AddRaftVoter/RemoveRaftVoter and bootstrap checkpoint, Kafka 3.9.0+")
        kraft.check_supported(version)
        jvm.check(version)
        jars = artifacts.resolve(version, kraft.ARTIFACTS)
        jvm.ensure(version, jars)
        self.version = version
        self.name = f"kafka:{version}"
        self.java = _RaftJava(version, vt)
        self.values = _Voters(self.java, _LogJava(version, vt),
                              self.java.field(f"{RAFT}.KafkaRaftClient", "partitionState"))
        # The release's raft rule set (pre-vote from 4.0, spec/raft.md "Rule sets") and its
        # kraft.version upgrade rules (VOTERS-RULE-UPGRADE-VOTERS: KAFKA-16538, from 4.1).
        release = tuple(int(x) for x in version.split(".")[:2])
        self.model_config = {**dict(rule_set_for(version).bounds), "kraft_upgrade": release >= (4, 1),
                             "controller_auto_join": release >= (4, 2),  # KAFKA-19078
                             "disk_replacement": True,  # VOTERS-RULE-DISK-REPLACED (KIP-853, 3.9+)
                             # RAFT-RULE-CHECK-QUORUM-PERIOD: LeaderState's check-quorum timer
                             # (3.7+, as the raft level), declared for every voters release
                             # (3.9 too since session 22: what kept it off, a lone voter's
                             # leader resigning after its added voter's Fetch, was this
                             # adapter's: the period began after that Fetch, step())
                             "check_quorum_period": True}
        # the raft client's 3.9+ heartbeat timer is restarted whenever time passes (raft_timers)
        self.unjudged = kraft.unjudged_for(version)

    def supports(self, config: dict[str, JSON]) -> bool:
        """The release's raft rule set and upgrade rules, with a bootstrap checkpoint
        (kraft.version 1) or static voters (kraft.version 0). A lone
        initial voter elects itself inside ``initialize()``, as the model's does at its first
        start (VOTERS-MODEL-LONE-VOTER); its observers ask the one bootstrap server, replica 1,
        whatever voters are added later, as the model's (VOTERS-RULE-OBSERVER-BOOTSTRAP)."""
        wanted = self.model_config
        if config.get("auto_join") and self.java.vt < (4, 2):
            return False  # controller.quorum.auto.join.enable is 4.2's (KAFKA-19078)
        return all(config.get(k) == v for k, v in wanted.items())

    def start(self, node: int, config: dict[str, JSON]) -> KafkaVoterReplica:
        asked = config.get("level", "replica")
        if asked != self.level:
            raise TargetError(f"{self.name} serves the voters replica level (KafkaRaftClient); the run drives the "
                              f"{asked} level (kafka:{self.version}:log is the log level)")
        try:
            return KafkaVoterReplica(self.java, self.values, int(node), dict(config))
        except TargetError:
            raise
        except Exception as err:
            raise TargetError(f"{self.name} voters: start of replica {node} threw {_java_error(err)}") from None

    def close(self) -> None:
        """Nothing to release: the JVM lives as long as the process (JPype cannot restart it)."""


def make_voters_target(version: str) -> Target:
    """``kafka:VERSION`` for voters: the replica level, or the log level as ``kafka:VERSION:log``
    (``conformance/targets/kafka/voters.py``); TargetError (one line) for another level."""
    release, _, level = version.partition(":")
    if level == "log":
        from kspec.conformance.targets.kafka.voters import KafkaVotersTarget

        return KafkaVotersTarget(release)
    if level in ("", "replica"):
        return KafkaVotersReplicaTarget(release)
    raise TargetError(f"kafka:{version}: no voters level {level!r} (kafka:VERSION is the replica level, "
                      "kafka:VERSION:log the log level)")
