"""The voter-set system model: the KRaft system model with reconfiguration folded in.

Built on :class:`~kspec.model.raft.system.RaftModel`: the replicas are
:class:`~kspec.model.voters.node.VoterNode` values stepped by the voter-set step function, so
each replica's elections and high watermark use its own current voter set. The leader also
takes AddVoter and RemoveVoter requests (and the kraft.version upgrade), and every replica may
take a snapshot at its high watermark. Rule IDs refer to ``spec/voters.md``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kspec.model.core.evolve import evolve as replace
from kspec.model.core.protocol import Property
from kspec.model.raft import node as raft_node
from kspec.model.raft.messages import (
    CheckQuorumTimeout,
    ElectionTimeout,
    FetchDue,
    FetchTimeout,
    Restart,
)
from kspec.model.raft.state import Down, Leader, election_of
from kspec.model.raft.system import Action, Deliver, Fire, Raft, RaftModel, describe_state, fetch_in_flight
from kspec.model.voters import node as vnode
from kspec.model.voters.history import voter_ids
from kspec.model.voters.node import (
    AddVoter,
    AddVoterRequest,
    RemoveVoter,
    ReplaceDisk,
    Rules,
    TakeSnapshot,
    UpdateVoter,
    UpdateVoterSetDue,
    UpgradeKRaftVersion,
    VoterNode,
    directory_of,
    make_step,
    new_voter_node,
)
from kspec.model.voters.properties import voters_properties


@dataclass(frozen=True, slots=True)
class Voters(Raft):
    """The raft system state plus the reconfiguration counters and ``initial_voters`` (ghost:
    the ids the properties compare against)."""

    initial_voters: frozenset[int] = frozenset()
    adds: int = 0
    removes: int = 0
    snapshots: int = 0
    upgrades: int = 0
    joins: int = 0  # auto-join requests a leader accepted (VOTERS-RULE-AUTO-JOIN; ghost, for the witness)
    disk_swaps: int = 0  # ReplaceDisk inputs taken (VOTERS-MODEL-DISK-SWAP)


class VotersModel(RaftModel):
    """KRaft with a voter set kept in the log (see ``BOUNDS`` in ``kspec.model.voters``)."""

    name = "voters"

    def __init__(self, *, hosts: int = 4, voters: int = 3, max_adds: int = 1, max_removes: int = 1,
                 max_snapshots: int = 1, kraft_version: int = 1, max_epoch: int = 2, max_elections: int = 1,
                 max_appends: int = 0, max_crashes: int = 0, max_inflight: int = 2, max_duplicates: int = 0,
                 max_fetches: int = 4, pre_vote: bool = False, symmetry: bool = True, started: bool = True,
                 rules: Rules | None = None, raft_step: vnode.RaftStep | None = None, kraft_upgrade: bool = True,
                 auto_join: bool = False, max_disk_swaps: int = 0, **raft_bounds: Any) -> None:
        if voters > hosts:
            raise ValueError(f"voters={voters} is more than hosts={hosts}")
        self._vstep = make_step(raft_step or raft_node.step, rules or Rules())
        super().__init__(voters=voters, observers=hosts - voters, max_epoch=max_epoch, max_appends=max_appends,
                         max_crashes=max_crashes, max_inflight=max_inflight, max_duplicates=max_duplicates,
                         max_fetches=max_fetches, max_elections=max_elections, pre_vote=pre_vote,
                         step=self._vstep, symmetry=False, **raft_bounds)  # type: ignore[arg-type]
        # Raft's own bounds (whatever RaftModel takes) and the voter-set ones.
        raft_only = {k: v for k, v in self.bounds.items() if k not in ("voters", "observers")}
        self.bounds = {"hosts": hosts, "voters": voters, "started": started, "max_adds": max_adds,
                       "max_removes": max_removes, "max_snapshots": max_snapshots, "kraft_version": kraft_version,
                       "auto_join": auto_join, **raft_only, "max_disk_swaps": max_disk_swaps,
                       "symmetry": symmetry}
        self.started = started
        self.kraft_version = kraft_version
        # The upgrade's rule set (VOTERS-RULE-UPGRADE-VOTERS): not a bound, a release's rules
        # (the conformance driver sets it from the target's model_config; 4.1+ by default).
        self.kraft_upgrade = kraft_upgrade
        # controller.quorum.auto.join.enable at every host (VOTERS-RULE-AUTO-JOIN): a bound, as
        # the configuration is the operator's (Kafka 4.2+; off by default, as Kafka's)
        self.auto_join = auto_join
        if symmetry and voters > 1 and not max_disk_swaps:
            # (VOTERS-MODEL-SYMMETRY renames first directories only: not with replaced disks)
            from kspec.model.voters.symmetry import make_canonical

            # The initial voters are interchangeable (VOTERS-MODEL-SYMMETRY).
            self.canonical = make_canonical(frozenset(self.voter_ids))
        # VOTERS-WIT-OPEN-VOTE needs a change fetched by two replicas before an election: with
        # three initial voters that takes five fetches (not reached at the default four: the
        # defaults have the same 77,817 states with and without the open vote).
        open_vote = voters <= 2 or int(self.bounds["max_fetches"]) >= 5
        # VOTERS-WIT-REMOVED-LEADER-REJOINS needs the resigned leader's state expanded: with three
        # or more initial voters its resignation leaves three messages in flight (the last
        # FetchResponse, an EndQuorumEpoch to each remaining voter), past the default max_inflight.
        rejoin = 2 <= voters <= int(self.bounds["max_inflight"])
        self._props = voters_properties(upgrade=kraft_version == 0, crashes=int(self.bounds["max_crashes"]) > 0,
                                        open_vote=open_vote, rejoin=rejoin, auto_join=auto_join,
                                        disk_swaps=max_disk_swaps > 0)

    def init_states(self) -> Sequence[Voters]:
        initial = frozenset((v, directory_of(v)) for v in sorted(self.voter_ids))
        nodes = tuple(new_voter_node(i, initial, bootstrap=self.kraft_version >= 1, pre_vote=self.pre_vote,
                                     kraft_upgrade=self.kraft_upgrade, auto_join=self.auto_join,
                                     check_quorum_period=self.check_quorum_period)
                      for i in self.replica_ids)
        formatted = Voters(nodes, initial_voters=frozenset(self.voter_ids))
        if len(self.voter_ids) == 1:
            # RAFT-RULE-LONE-VOTER at the first start (VOTERS-MODEL-LONE-VOTER): Kafka's
            # initialize() elects a lone voter at once, and as a first leader it writes the
            # bootstrap set (VOTERS-RULE-FIRST-LEADER). The first start is the voters step's
            # restart from the empty election state (the same rebuild, then initialize).
            lone = min(self.voter_ids)
            n = formatted.node(lone)
            down = replace(formatted, nodes=tuple(replace(x, role=Down(election_of(x))) if x.id == lone else x
                                                  for x in formatted.nodes))
            started = self._apply(down, lone, Restart())
            assert isinstance(started, Voters) and isinstance(started.node(lone).role, Leader), n
            formatted = started
        return [self.start_up(formatted) if self.started else formatted]

    def start_up(self, state: Voters) -> Voters:
        """VOTERS-MODEL-START: the quorum the operator brings up before reconfiguring it.

        From the formatted state, by the model's own steps: replica 1's election timer fires
        and every message is delivered (it wins epoch 1); then every other host fetches from
        it until the leader has seen each one at its log end (an observer first discovers the
        leader). The network ends empty and the budgets start from zero; the ghost history
        (votes, leader, committed LeaderChange record) is kept. Only reachable states are
        visited, so a violation found from here is one from the formatted state.
        """
        def drain(s: Raft) -> Raft:
            while len(s.network):
                msg = min(s.network.distinct(), key=repr)
                nxt = super(VotersModel, self).next_state(s, Deliver(msg))
                assert nxt is not None
                s = nxt
            return s

        leader = min(self.voter_ids)
        s: Raft | None = state
        if not isinstance(state.node(leader).role, Leader):  # (a lone voter leads from its start)
            s = self._apply(state, leader, ElectionTimeout())
        assert s is not None
        s = drain(s)
        for h in self.replica_ids:
            if h == leader:
                continue
            for _ in range(3):
                lead = s.node(leader)
                assert isinstance(lead.role, Leader)
                if lead.role.end_offset_of(h) == lead.end_offset:
                    break
                nxt = self._apply(s, h, FetchDue(leader))
                assert nxt is not None
                s = drain(nxt)
        lead = s.node(leader)
        assert isinstance(lead.role, Leader) and lead.high_watermark == lead.end_offset, describe_state(s)
        assert isinstance(s, Voters)
        return s

    def actions(self, state: Raft) -> Iterator[Action]:
        assert isinstance(state, Voters)
        b = self.bounds
        spent = state.elections >= int(b["max_elections"])
        asked: set[int] = set()
        for act in super().actions(state):
            if spent and isinstance(act, Fire) and isinstance(act.input, CheckQuorumTimeout):
                continue  # VOTERS-MODEL-ELECTIONS
            if isinstance(act, Fire) and isinstance(act.input, FetchDue):
                n = state.node(act.node)
                if vnode.seeks_leader(n) or (isinstance(n, VoterNode) and n.fetch_lapsed):
                    # VOTERS-RULE-OBSERVER-BOOTSTRAP: raft offers the voters (its bootstrap
                    # servers are its static voters); here the configured servers, once each
                    # (and so after an observer's fetch timeout, -OBSERVER-FETCH-TIMEOUT)
                    if act.node not in asked:
                        asked.add(act.node)
                        assert isinstance(n, VoterNode)
                        yield from (Fire(act.node, FetchDue(b)) for b in sorted(n.bootstrap_servers))
                    continue
            yield act
        for n in state.nodes:
            if isinstance(n.role, Down):
                continue
            assert isinstance(n, VoterNode)
            if n.replaced and not n.voters and vnode.seeks_leader(n) and n.id not in asked \
                    and state.fetches < int(b["max_fetches"]) and not fetch_in_flight(state, n.id):
                # VOTERS-RULE-DISK-REPLACED: a new disk knows no voter set (raft offers a fetch
                # to none); it asks the configured bootstrap servers (-OBSERVER-BOOTSTRAP)
                yield from (Fire(n.id, FetchDue(b)) for b in sorted(n.bootstrap_servers) if b != n.id)
            if isinstance(n.role, Leader):
                if state.upgrades < 1 and n.kraft_version == 0:
                    yield Fire(n.id, UpgradeKRaftVersion())  # type: ignore[arg-type]
                    # VOTERS-RULE-UPGRADE-VOTERS: a voter tells the leader it supports
                    # kraft.version 1 (Kafka 4.1+ followers send UpdateRaftVoter on their own)
                    for v, _, known in n.upgrade_voters:
                        if not known:
                            yield Fire(n.id, UpdateVoter(v, directory_of(v), n.epoch))  # type: ignore[arg-type]
                if state.adds < int(b["max_adds"]):
                    for h in self.replica_ids:
                        if h not in n.voters:
                            # the operator adds the host's current disk (VOTERS-RULE-DISK-REPLACED)
                            disk = state.node(h)
                            assert isinstance(disk, VoterNode)
                            yield Fire(n.id, AddVoter(h, disk.directory))  # type: ignore[arg-type]
                if state.removes < int(b["max_removes"]):
                    for r, d in sorted(n.control.last_voter_set()):
                        yield Fire(n.id, RemoveVoter(r, d))  # type: ignore[arg-type]
            if vnode.observer_follower(n) and not n.fetch_lapsed and not fetch_in_flight(state, n.id):
                # VOTERS-RULE-OBSERVER-FETCH-TIMEOUT (VOTERS-MODEL-OBSERVER-TIMER: the timer fires
                # only with no fetch of the observer, nor an answer to one, in flight)
                yield Fire(n.id, FetchTimeout())
            if self.auto_join and _may_join(state, n, b):
                yield Fire(n.id, UpdateVoterSetDue())  # type: ignore[arg-type]
            if state.snapshots < int(b["max_snapshots"]) and _snapshot_worth_taking(n) and not _new_disk_empty(state):
                yield Fire(n.id, TakeSnapshot())  # type: ignore[arg-type]
            if state.disk_swaps < int(b["max_disk_swaps"]) and _disk_replaceable(n) and not _snapshot_taken(state):
                yield Fire(n.id, ReplaceDisk(vnode.replaced_directory(n.id, n.replaced + 1)))  # type: ignore[arg-type]

    def next_state(self, state: Raft, action: Action) -> Raft | None:
        assert isinstance(state, Voters)
        if isinstance(action, Fire) and isinstance(action.input, TakeSnapshot) \
                and (not _snapshot_worth_taking(state.node(action.node)) or _new_disk_empty(state)):
            return None
        if isinstance(action, Fire) and isinstance(action.input, (*vnode.VOTER_INPUT_TYPES,)):
            counter = {AddVoter: "adds", RemoveVoter: "removes", TakeSnapshot: "snapshots",
                       UpgradeKRaftVersion: "upgrades"}[type(action.input)]
            limit = 1 if counter == "upgrades" else int(self.bounds["max_" + counter])
            if getattr(state, counter) >= limit:
                return None
            nxt = self._apply(state, action.node, action.input)
            # A refused request changes no state: it is not an enabled action of the system
            # model (its error responses are exercised at the node level).
            if nxt is None or nxt.node(action.node) == state.node(action.node):
                return None
            return replace(nxt, **{counter: getattr(state, counter) + 1})
        if isinstance(action, Fire) and isinstance(action.input, ReplaceDisk):
            # VOTERS-MODEL-DISK-SWAP: within the budget, at a replica the guard allows
            if state.disk_swaps >= int(self.bounds["max_disk_swaps"]) or not _disk_replaceable(
                    state.node(action.node)) or _snapshot_taken(state):
                return None
            nxt = self._apply(state, action.node, action.input)
            return None if nxt is None else replace(nxt, disk_swaps=state.disk_swaps + 1)
        if isinstance(action, Fire) and isinstance(action.input, UpdateVoterSetDue):
            # VOTERS-RULE-AUTO-JOIN: the request goes out; the observer's state does not change
            if not isinstance(state.node(action.node), VoterNode) or not _may_join(state, state.node(action.node),
                                                                                   self.bounds):
                return None
            _, outputs = self._step(state.node(action.node), action.input)
            sent = [o for o in outputs if isinstance(o, vnode.JOIN_REQUEST_TYPES)]
            return replace(state, network=state.network.add_all(sent)) if sent else None
        if isinstance(action, Deliver) and isinstance(action.message, vnode.JOIN_REQUEST_TYPES):
            # The leader judges it as a client's request (VOTERS-RULE-ADD, -REMOVE), within the
            # same budgets; a refused one is consumed with no other change.
            nxt = super().next_state(state, action)
            if nxt is None or nxt.node(action.message.dst) == state.node(action.message.dst):
                return nxt
            counter = "adds" if isinstance(action.message, AddVoterRequest) else "removes"
            if getattr(state, counter) >= int(self.bounds["max_" + counter]):
                return None
            return replace(nxt, **{counter: getattr(state, counter) + 1, "joins": state.joins + 1})
        if isinstance(action, Fire) and isinstance(action.input, UpdateVoter):
            # VOTERS-RULE-UPGRADE-VOTERS: kept in the leader's memory; refused, no state changes
            nxt = self._apply(state, action.node, action.input)
            return None if nxt is None or nxt.node(action.node) == state.node(action.node) else nxt
        if isinstance(action, Fire) and isinstance(action.input, CheckQuorumTimeout):
            # VOTERS-MODEL-ELECTIONS: a leader's check-quorum resignation spends the election
            # budget too (it starts an election at the voters it tells); one that ends a
            # renewed period (RAFT-RULE-CHECK-QUORUM-PERIOD) starts nothing.
            if state.elections >= int(self.bounds["max_elections"]):
                return None
            nxt = super().next_state(state, action)
            if nxt is None or isinstance(nxt.node(action.node).role, Leader):
                return nxt
            return replace(nxt, elections=state.elections + 1)
        return super().next_state(state, action)

    def properties(self) -> Sequence[Property[Raft, Action]]:
        return self._props

    def events_of(self, before: Raft, action: Action, after: Raft) -> list[dict[str, Any]]:
        events = super().events_of(before, action, after)
        for ev in events:
            if ev["node"] is not None:
                ev["observation"] = vnode.observe(after.node(ev["node"]))  # type: ignore[arg-type]
        return events

    def describe_state(self, state: Raft) -> str:
        rows = describe_state(state).split("\n")
        out = []
        for row in rows:
            out.append(row)
            if row.startswith("r") and row[1:2].isdigit():
                n = state.node(int(row[1:].split()[0]))
                assert isinstance(n, VoterNode)
                hist = " ".join(f"{o}:{sorted(voter_ids(v))}" for o, v in n.control.voters.entries)
                snap = "-" if n.snapshot is None else n.snapshot.end_offset
                out.append(f"   voters={sorted(n.voters)} kraft.version={n.kraft_version} history=[{hist}] "
                           f"snapshot={snap}")
        return "\n".join(out)


def _may_join(state: Voters, n: object, bounds: dict[str, Any]) -> bool:
    """VOTERS-RULE-AUTO-JOIN's timer at ``n`` is worth firing: the replica would send a request
    within the budget of its kind, and (VOTERS-MODEL-AUTO-JOIN-TIMER) it has no fetch out nor an
    answer to one on its way (Kafka keeps one request in flight per peer, and the observer's peer
    is its leader) and no auto-join request in flight."""
    assert isinstance(n, VoterNode)
    request = vnode.auto_join_request(n)
    if not request or fetch_in_flight(state, n.id):
        return False
    kind = "adds" if isinstance(request[0], AddVoterRequest) else "removes"
    if getattr(state, kind) >= int(bounds["max_" + kind]):
        return False
    return not any(isinstance(m, vnode.JOIN_REQUEST_TYPES) and m.src == n.id for m in state.network.distinct())


def _disk_replaceable(n: object) -> bool:
    """VOTERS-MODEL-DISK-SWAP's guard: a running replica (a stopped one restarts first) that is not
    the leader (a leader's lost disk is a crash plus the same replacement: left to max_crashes),
    in a cluster at kraft.version 1 (replica keys exist only there: KIP-853), on its first disk."""
    assert isinstance(n, VoterNode)
    return not isinstance(n.role, Down | Leader) and n.kraft_version >= 1 and n.replaced == 0


def _snapshot_taken(state: Voters) -> bool:
    """VOTERS-MODEL-DISK-SWAP: a replica holds a snapshot past the bootstrap checkpoint. A new
    disk's first fetch (offset 0) at a leader holding one is answered with the snapshot's id
    (KIP-630's FetchSnapshot; Kafka 3.6+ sends it for offset 0 too, KAFKA-15078), which the voter
    model does not follow: no disk is replaced then."""
    return any(isinstance(n, VoterNode) and n.snapshot is not None and n.snapshot.end_offset > 0
               for n in state.nodes)


def _new_disk_empty(state: Voters) -> bool:
    """VOTERS-MODEL-DISK-SWAP: a replaced disk holds no record yet; no snapshot is taken until it
    has fetched some (the same reason as :func:`_snapshot_taken`)."""
    return any(isinstance(n, VoterNode) and n.replaced and not n.log for n in state.nodes)


def _snapshot_worth_taking(n: object) -> bool:
    """VOTERS-MODEL-SNAPSHOT: the system model spends its snapshot budget only on a snapshot
    whose control records (the kraft.version and the voter set in force at its last offset,
    below the high watermark) differ from those of the replica's latest snapshot (kraft.version
    0 and no voters without one). A snapshot that carries the same ones as the snapshot before
    it (of data and LeaderChange records, or of the first leader's copy of the bootstrap set,
    VOTERS-RULE-FIRST-LEADER) changes no answer of the control state."""
    assert isinstance(n, VoterNode)
    hw = n.high_watermark
    if hw is None or hw <= 0 or (n.snapshot is not None and hw <= n.snapshot.end_offset):
        return False
    before = (0, None) if n.snapshot is None else (n.snapshot.kraft_version, n.snapshot.voters)
    return (n.control.kraft_version_at(hw - 1), n.control.voter_set_at(hw - 1)) != before
