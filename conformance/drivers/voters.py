"""The voter-set (KIP-853) lockstep driver: VotersModel at small bounds, one target instance
per replica, at one of two levels (``spec/adapter-protocol.md``, section voters).

* **replica** (the default): the whole KRaft replica — raft inputs plus AddVoter, RemoveVoter,
  the kraft.version upgrade and TakeSnapshot; the observation is raft's plus ``kraft_version``,
  ``voters`` and ``history``.
* **log**: only the control-record state machine (Kafka's ``KRaftControlRecordStateMachine``
  over ``VoterSetHistory``), fed with one replica's log changes — Append, Truncate, Snapshot,
  Restart — derived from the model replica's node steps (its ``AppendLog``, ``TruncateLog`` and
  ``SnapshotWritten`` effects, and a restart after a crash).

The level is part of the run's configuration (``config["level"]``): the lockstep machine puts a
target's declared ``level`` there, and a counterexample file records it, so replay drives the
same level.

Every run opens with the quorum's start-up (VOTERS-MODEL-START): the driver records the node
steps ``VotersModel.start_up`` takes from the formatted state and feeds them as one forced
action (category ``opening``, which no rule draws). Besides the model's enabled actions the
driver offers, as the raft driver does, inputs the model's replica refuses or ignores: timer
expiries with nothing due (``idle``) and reconfiguration requests a replica refuses
(``request``: a second change while one is uncommitted, a request at a follower, a duplicate
voter ...), whose error responses the system model never enables. Snapshots are the node-level
ones (any high watermark past the last snapshot), not only those VOTERS-MODEL-SNAPSHOT keeps.

``config["model_variant"]`` (optional: names from ``kspec.model.voters.variants`` joined by
``+``) runs a broken variant of the model instead, e.g. Kafka 3.8-4.4's own behaviour
(``kafka-trim-at-snapshot-end+kafka-truncate-keeps-next-offset``, spec/voters.md K1 and K2). Such
a run asks only whether the target behaves as that variant step for step: the variant breaks
properties on purpose, so neither the model's properties nor the safety checks on the target's
observations are checked. ``kspec conform --model-variant`` sets it; the counterexample file
records it, so replay runs the same variant.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Any

from kspec.conformance.driver import StartProbe
from kspec.conformance.drivers import guide, macros, voters_log
from kspec.conformance.drivers.raft import IDLE_TIMERS, NO_REPLICA, PROBE, by_category, comparable_output, wire
from kspec.conformance.harness import JSON, Event
from kspec.model.core.codec import encode
from kspec.model.core.evolve import evolve
from kspec.model.core.protocol import first_violated
from kspec.model.raft import node as raft_node
from kspec.model.raft.messages import (
    AppendLog,
    BeginQuorumEpochRequest,
    CheckQuorumTimeout,
    ClientAppend,
    Crash,
    DescribeQuorumRequest,
    ElectionTimeout,
    FetchDue,
    FetchRequest,
    FetchResponse,
    FetchTimeout,
    Input,
    Restart,
    TruncateLog,
    VoteRequest,
    VoteResponse,
)
from kspec.model.raft.state import Down, Follower, Leader
from kspec.model.raft.system import Deliver, Drop, Fire, Reboot, describe_action, fetch_in_flight
from kspec.model.voters.control import (
    KRAFT_VERSION,
    VOTERS,
    ControlState,
    handle_records,
    read_log,
    rebuild,
    trim_to,
    truncate_to,
)
from kspec.model.voters.history import LogHistory, VoterSet
from kspec.model.voters.node import (
    JOIN_REQUEST_TYPES,
    NO_DIRECTORY,
    AddVoter,
    ReconfigRejected,
    RemoveVoter,
    ReplaceDisk,
    Rules,
    SnapshotWritten,
    TakeSnapshot,
    UpdateVoter,
    UpdateVoterSetDue,
    UpgradeKRaftVersion,
    VoterNode,
    auto_join_request,
    directory_of,
    observer_follower,
    replaced_directory,
    seeks_leader,
)
from kspec.model.voters.system import Voters, VotersModel
from kspec.model.voters.variants import rules_for

LEVELS = ("replica", "log")

# A replica id no host has, and how far off a wrong directory id is (the request category).
UNKNOWN_REPLICA = 9
WRONG_DIRECTORY = 100

# The composite actions (conformance/drivers/macros.py): a voter change replicated to every
# voter, or lost to a replica that wins an election without it, in one step of the run.
MACRO_CATEGORIES = macros.CATEGORIES

# Cluster shapes a run starts from (Hypothesis draws one; shrinking prefers the first).
CONFIGS: list[dict[str, JSON]] = [
    {"hosts": 4, "voters": 3, "kraft_version": 1, "pre_vote": False},
    {"hosts": 4, "voters": 3, "kraft_version": 1, "pre_vote": False, "faults": False},
    {"hosts": 4, "voters": 3, "kraft_version": 0, "pre_vote": False},
    {"hosts": 3, "voters": 2, "kraft_version": 1, "pre_vote": False},
    {"hosts": 3, "voters": 1, "kraft_version": 1, "pre_vote": False},
    {"hosts": 4, "voters": 3, "kraft_version": 1, "pre_vote": True},
    # controller.quorum.auto.join.enable at every host (VOTERS-RULE-AUTO-JOIN, Kafka 4.2+): last,
    # so that a target without the setting draws its configurations as before
    {"hosts": 4, "voters": 3, "kraft_version": 1, "pre_vote": False, "auto_join": True},
    # VOTERS-DRIVE-STATIC-JOIN: auto-join in a kraft.version-0 cluster, where its timer sends
    # nothing until the upgrade (a target without the setting runs it as the static quorum above)
    {"hosts": 4, "voters": 3, "kraft_version": 0, "pre_vote": False, "auto_join": True},
]

# The model's cluster shape (what a configuration says beyond the fault profile).
SHAPE = ("hosts", "voters", "kraft_version", "pre_vote")

# As in the raft driver, a run may draw the fault-free profile (``faults`` false): no message
# loss or duplication, no crash, no idle timer or refused request. A voter change that a new
# leader truncates away needs the change appended, an election won without it and a fetch, in
# that order; faults almost always break the sequence up.
FAULTS = frozenset({"network", "crash", "idle", "request", "pending"})

BOUNDS: dict[str, Any] = {"max_adds": 2, "max_removes": 2, "max_snapshots": 2, "max_epoch": 3,
                          "max_elections": 3, "max_fetches": 16, "max_appends": 1, "max_crashes": 1,
                          "max_inflight": 6, "max_duplicates": 0}


def pairs(voters: VoterSet | None) -> list[list[int]] | None:
    """A voter set as the adapter protocol writes it: ``[[id, directory], ...]`` sorted."""
    return None if voters is None else [list(k) for k in sorted(voters)]


def control_observation(control: ControlState) -> dict[str, JSON]:
    """The log-level observation: ``{kraft_version, voters, history}`` (VOTERS-OBS)."""
    return {"kraft_version": control.last_kraft_version(), "voters": pairs(control.last_voter_set()),
            "history": [[o, pairs(v)] for o, v in control.voters.entries]}


def replica_observation(node: VoterNode) -> dict[str, JSON]:
    """The replica-level observation: raft's plus the control-record state."""
    return {**raft_node.observe(node), **control_observation(node.control)}


def log_record(kind: str, payload: tuple[int, ...]) -> dict[str, JSON]:
    """A raft log entry as a log-level record."""
    if kind == VOTERS:
        return {"type": "Voters", "voters": [[payload[i], payload[i + 1]] for i in range(0, len(payload), 2)]}
    if kind == KRAFT_VERSION:
        return {"type": "KRaftVersion", "version": payload[0]}
    return {"type": "LeaderChange" if kind == "leader_change" else "Data"}


@dataclass(frozen=True, slots=True)
class WithFreeLog(Voters):
    """The log level's state: the system's, plus the free log (``voters_log``), a log the
    driver writes alone. The model's steps keep the field (they copy states with ``evolve``)."""

    free: voters_log.FreeLog | None = None


@dataclass(frozen=True)
class Formatted:
    """The driver's state before the opening: every host just formatted."""

    state: Voters


@dataclass(frozen=True)
class StartUp:
    """The opening action: the quorum's start-up (VOTERS-MODEL-START)."""


@dataclass(frozen=True)
class Unstarted:
    """The opening without the start-up: the formatted state itself (VOTERS-MODEL-START's
    ``started=false``), taken only by VOTERS-DRIVE-FIRST-LEADER-AGAIN's start probe (category
    PROBE: no lockstep rule draws it, the guide's graph leaves it out)."""


@dataclass(frozen=True)
class Ignored:
    """An input the model's replica ignores or refuses: a timer with nothing due, or a
    reconfiguration request answered with an error. The system state does not change."""

    node: int
    input: Any


@dataclass(frozen=True)
class _Msg:
    """A step of a scripted walk (``VotersDriver._walk``): the first message (in repr order) of
    class ``kind`` from ``src`` to ``dst`` in flight, delivered (with ``drop``, dropped); with
    ``optional``, left out where none is in flight (else the walk stops there)."""

    src: int
    dst: int
    kind: type
    drop: bool = False
    optional: bool = False


@dataclass(frozen=True)
class _Maybe:
    """A step of a scripted walk (``VotersDriver._walk``) left out where the driver does not offer it."""

    step: tuple[str, Any]


@dataclass(frozen=True)
class _Setup:
    model: VotersModel
    formatted: Voters
    started: Voters
    opening: tuple[tuple[int, Input, tuple[Any, ...], VoterNode, VoterNode], ...]
    # How many of the opening's steps are the first start itself (a lone voter's election in
    # Kafka's initialize(), VOTERS-MODEL-LONE-VOTER): the replica level's target does them when
    # it starts; the log level's gets their log changes.
    at_start: int = 0


_SETUPS: dict[str, _Setup] = {}


def _setup(config: dict[str, JSON], bounds: dict[str, Any], variant: str = "") -> _Setup:
    """The model (of ``variant``'s rules, the reference's when empty), the formatted and the
    started state, and the start-up's node steps (cached: every run of a configuration starts
    the same way)."""
    key = json.dumps([config, bounds, variant], sort_keys=True)
    found = _SETUPS.get(key)
    if found is not None:
        return found
    model = VotersModel(hosts=int(config["hosts"]), voters=int(config["voters"]),
                        kraft_version=int(config["kraft_version"]), pre_vote=bool(config["pre_vote"]),
                        started=False, symmetry=False, rules=rules_for(variant),
                        kraft_upgrade=bool(config.get("kraft_upgrade", True)),
                        auto_join=bool(config.get("auto_join", False)),
                        check_quorum_period=bool(config.get("check_quorum_period", False)), **bounds)
    recorded: list[tuple[int, Input, tuple[Any, ...], VoterNode, VoterNode]] = []
    inner: Any = model._step

    def recording(node: Any, inp: Any) -> Any:
        after, outputs = inner(node, inp)
        recorded.append((node.id, inp, outputs, node, after))
        return after, outputs

    model._step = recording
    try:
        formatted = model.init_states()[0]
        at_start = len(recorded)
        started = model.start_up(formatted)
    finally:
        model._step = inner
    assert isinstance(formatted, Voters) and isinstance(started, Voters)
    found = _Setup(model, formatted, started, tuple(recorded), at_start)
    _SETUPS[key] = found
    return found


def _input_category(inp: Input) -> str | None:
    if isinstance(inp, ReplaceDisk):
        return PROBE  # only VOTERS-DRIVE-DISK-REPLACED's start probes take it (random runs draw no PROBE)
    if isinstance(inp, TakeSnapshot):
        return None  # offered at every replica (VotersDriver.candidates)
    if isinstance(inp, AddVoter | RemoveVoter | UpgradeKRaftVersion):
        return "reconfig"  # accepted by the leader
    if isinstance(inp, UpdateVoter):
        return "update"  # at a kraft.version-0 leader, kept in memory (VOTERS-RULE-UPGRADE-VOTERS)
    if isinstance(inp, ClientAppend):
        return "client"
    if isinstance(inp, FetchDue):
        return "fetch"
    return "timer"  # election, fetch, check-quorum, backoff timers


class VotersDriver(macros.MacroSteps[VotersModel]):
    """Lockstep driver for ``voters`` (see the module docstring)."""

    protocol = "voters"
    takes_model_variant = True  # config["model_variant"] (the module docstring)

    def __init__(self, config: dict[str, JSON], bounds: dict[str, int] | None = None) -> None:
        self.config = {**CONFIGS[0], "level": "replica", **config}
        self.level = str(self.config["level"])
        if self.level not in LEVELS:
            raise ValueError(f"voters: unknown level {self.level!r} (one of {', '.join(LEVELS)})")
        self.variant = str(self.config.get("model_variant") or "")
        self.rules = rules_for(self.variant)  # ValueError naming an unknown variant
        self.faults = bool(self.config.get("faults", True))
        # kraft_upgrade: the release's upgrade rules (VOTERS-RULE-UPGRADE-VOTERS; a Kafka target's
        # model_config sets it, 4.1+ when none does)
        shape = {**{k: self.config[k] for k in SHAPE}, "kraft_upgrade": bool(self.config.get("kraft_upgrade", True))}
        # Auto-join (VOTERS-RULE-AUTO-JOIN) only for a target that implements it
        # (model_config {"controller_auto_join": true}: the reference, kafka:4.2+), as Kafka's
        # controller.quorum.auto.join.enable is off by default: another target runs that
        # configuration without it, never told auto_join. (Only where set: the other shapes'
        # cached setups stay as they were.)
        if self.config.get("auto_join") and self.config.get("controller_auto_join"):
            shape["auto_join"] = True
        # RAFT-RULE-CHECK-QUORUM-PERIOD only for a target that declares it (model_config
        # {"check_quorum_period": true}), as raft's driver: for another, no leader is ever renewed.
        if self.config.get("check_quorum_period"):
            shape["check_quorum_period"] = True
        # VOTERS-RULE-DISK-REPLACED only for a target that declares it (model_config
        # {"disk_replacement": true}): another target is never sent ReplaceDisk nor a keyed message.
        disk = {"max_disk_swaps": 1} if self.config.get("disk_replacement") and self.level == "replica" else {}
        setup = _setup(shape, {**BOUNDS, **disk, **(bounds or {})}, self.variant)
        self.model = setup.model
        self._setup = setup
        self._step = setup.model._vstep
        props = self.model.properties()
        self._always = [p for p in props if p.kind == "always"]
        self._always_step = [p for p in props if p.kind == "always_step"]
        # Inputs the log level cannot see (no log change) are not offered there.
        self.categories = ("deliver", "fetch", "timer", "reconfig", "update", "snapshot", "client", "network",
                           "crash", *MACRO_CATEGORIES) + (("idle", "request", "pending") if self.level == "replica"
                                                 else voters_log.CATEGORIES)

    weights = {"deliver": 4, "timer": 2, "reconfig": 3, "fetch": 2, "replicate": 3, "depose": 3, "pending": 3,
               "free_voters": 2}
    # The free log's actions lead the cluster's graph nowhere; PROBE (raft's: no lockstep rule
    # draws it, the guided paths' probes take it) holds VOTERS-DRIVE-UPGRADE-DIRECTORY's update.
    unguided = (*voters_log.CATEGORIES, PROBE)
    guide_states = 240  # guided runs (guide.py): a voters state costs several raft steps to expand
    opening = ("opening",)  # the start-up, forced at the start of every run

    # ------------------------------------------------------------------ configuration

    def nodes(self) -> list[int]:
        return list(self.model.replica_ids) + ([voters_log.FREE_LOG] if self.level == "log" else [])

    def node_config(self, node: int) -> dict[str, JSON]:
        """Every replica's, and the free log's (log level), configuration: as formatted."""
        initial = frozenset((v, directory_of(v)) for v in sorted(self.model.voter_ids))
        bootstrap = self.model.kraft_version >= 1
        return {"level": self.level, "static_voters": [] if bootstrap else pairs(initial),
                "bootstrap": {"kraft_version": 1, "voters": pairs(initial)} if bootstrap else None,
                "pre_vote": self.model.pre_vote, "kraft_upgrade": self.model.kraft_upgrade,
                **({"auto_join": True} if self.model.auto_join else {}),
                # RAFT-RULE-CHECK-QUORUM-PERIOD (absent for a target that does not declare it)
                **({"check_quorum_period": True} if self.model.check_quorum_period else {})}

    def init_state(self) -> Formatted:
        started = self._setup.started
        if self.level == "log":
            initial = frozenset((v, directory_of(v)) for v in sorted(self.model.voter_ids))
            bootstrap = self.model.kraft_version >= 1
            free = voters_log.start(frozenset() if bootstrap else initial, initial if bootstrap else None)
            started = WithFreeLog(**{f: getattr(started, f) for f in Voters.__dataclass_fields__}, free=free)
        return Formatted(started)

    def guide_key(self, state: Any) -> Any:
        """The system state without the free log (guided runs leave the free log alone)."""
        return evolve(state, free=None) if isinstance(state, WithFreeLog) else state

    def input_cells(self, before: Any, action: Any) -> list[tuple[str, str]]:
        """The free log's actions by kind (a VotersRecord by how its set relates to the last);
        at the replica level, a leaderless observer's fetch by where it goes
        (VOTERS-RULE-OBSERVER-BOOTSTRAP) and a reconfiguration request by its answer (role x
        request and error code: VOTERS-RULE-ADD, -REMOVE, -UPDATE, -KEY-VALID)."""
        if isinstance(action, voters_log.FREE_TYPES) and isinstance(before, WithFreeLog) and before.free:
            return voters_log.cells(before.free, action)
        if isinstance(action, Deliver) and isinstance(action.message, JOIN_REQUEST_TYPES) \
                and isinstance(before, Voters):
            # VOTERS-RULE-AUTO-JOIN at the leader: the request by its answer
            msg = action.message
            _, outputs = self._step(before.node(msg.dst), msg)  # type: ignore[arg-type]
            answer = next((o.error for o in outputs if isinstance(o, ReconfigRejected)), "accepted")
            return [(type(before.node(msg.dst).role).__name__.lower(), f"{type(msg).__name__} {answer}")]
        if not isinstance(action, Ignored | Fire) or not isinstance(before, Voters):
            return []
        node, inp = before.node(action.node), action.input
        if not isinstance(node, VoterNode):
            return []
        if isinstance(inp, FetchDue) and seeks_leader(node):
            where = ("bootstrap voter" if inp.to in node.voters else "removed bootstrap server") \
                if inp.to in node.bootstrap_servers else ("added voter" if inp.to in node.voters else "other host")
            return [("observer without leader", f"fetch to {where}")]
        if isinstance(inp, UpdateVoterSetDue):
            # VOTERS-RULE-AUTO-JOIN: the timer by the replica's role and what it sends
            sent = [type(o).__name__ for o in self._step(node, inp)[1]]
            row = "observer follower" if observer_follower(node) else type(node.role).__name__.lower()
            return [(row, f"update-voter-set timer: {' '.join(sent) or 'nothing sent'}")]
        if isinstance(node.role, Follower) and observer_follower(node) and isinstance(inp, FetchDue | FetchTimeout):
            # VOTERS-RULE-OBSERVER-FETCH-TIMEOUT: an observer follower's timer, and its fetches by
            # where they go, lapsed or not
            row = "observer follower, lapsed" if node.fetch_lapsed else "observer follower"
            if isinstance(inp, FetchTimeout):
                return [(row, "fetch timeout")]
            where = "leader" if inp.to == node.role.leader else (
                "bootstrap server" if inp.to in node.bootstrap_servers else "other host")
            return [(row, f"fetch to {where}")]
        if isinstance(inp, AddVoter | RemoveVoter | UpdateVoter):
            _, outputs = self._step(node, inp)
            answer = next((o.error for o in outputs if isinstance(o, ReconfigRejected)), "accepted")
            return [(type(node.role).__name__.lower(), f"{type(inp).__name__} {answer}")]
        return []

    # ------------------------------------------------------------------ actions

    def candidates(self, state: Voters | Formatted) -> list[tuple[str, Any]]:
        """The opening first; then the model's actions by category, the node-level snapshots,
        and (replica level) the ignored timers and refused requests of the live replicas."""
        if isinstance(state, Formatted):
            # (the opening's one rule draws the first of its category: StartUp, as before)
            unstarted = [(PROBE, Unstarted())] if self.level == "replica" else []
            return [("opening", StartUp()), *unstarted]
        out = by_category(self.model.actions(state), _input_category)
        hosts = self.model.replica_ids
        for n in state.nodes:
            if isinstance(n.role, Down):
                continue
            out.append(("snapshot", Fire(n.id, TakeSnapshot())))  # type: ignore[arg-type]
            if isinstance(n, VoterNode) and isinstance(n.role, Leader):
                out += [("update", Fire(n.id, u)) for u in _updates(n, self.rules)]  # type: ignore[arg-type]
            if self.level != "replica":
                continue
            if isinstance(n, VoterNode) and isinstance(n.role, Leader):
                # VOTERS-DRIVE-UPGRADE-DIRECTORY: a voter's update naming another directory, which a
                # kraft.version-0 leader keeps (only the guided paths' probes take it)
                out += [(PROBE, Fire(n.id, u)) for u in _foreign_updates(n)]  # type: ignore[arg-type]
                # VOTERS-DRIVE-OWN-REPORT: its own update, accepted and changing nothing at kraft.version 0
                out += [(PROBE, Ignored(n.id, u)) for u in _own_reports(n, self.rules)]
            out += [("idle", Ignored(n.id, timer)) for timer in IDLE_TIMERS]
            if self.model.auto_join:
                # VOTERS-RULE-AUTO-JOIN's timer where the rule sends nothing (a voter, a replica
                # without a leader, one with a request or a fetch out): offered in the auto-join
                # configuration only (a release before 4.2 has no such setting)
                out.append(("idle", Ignored(n.id, UpdateVoterSetDue())))
            if isinstance(n, VoterNode) and seeks_leader(n):
                # An observer without a leader asks a bootstrap server, and only one
                # (VOTERS-RULE-OBSERVER-BOOTSTRAP): its fetch timer firing with any other host
                # as the pick is answered with no Fetch. The model offers the bootstrap servers;
                # after AddVoter a voter outside them is where a replica that confuses the two
                # lists sends.
                out += [("fetch", Ignored(n.id, FetchDue(h))) for h in hosts
                        if h != n.id and h not in n.bootstrap_servers]
            if isinstance(n, VoterNode) and isinstance(n.role, Follower) and observer_follower(n):
                # An observer follower fetches from its leader only, also after its fetch timer
                # lapsed once an answer named the leader (VOTERS-RULE-OBSERVER-FETCH-TIMEOUT): a
                # pick of another bootstrap server is answered with no Fetch (Kafka 3.9-4.1 send
                # it there: KAFKA-19354). (While it lapses the model sends one: not offered then,
                # resolve; under K7's variant, taken as the variant's step.)
                leader = n.role.leader
                out += [("fetch", Ignored(n.id, FetchDue(h))) for h in sorted(n.bootstrap_servers)
                        if h not in (n.id, leader)]
            # Refused requests: every one at a leader; one of each kind elsewhere
            # (NOT_LEADER_OR_FOLLOWER).
            for h in hosts if isinstance(n.role, Leader) else hosts[-1:]:
                out += [("request", Ignored(n.id, AddVoter(h, directory_of(h)))),
                        ("request", Ignored(n.id, RemoveVoter(h, directory_of(h))))]
            if isinstance(n, VoterNode) and isinstance(n.role, Leader) and _change_pending(n):
                # A second change while one is uncommitted (VOTERS-RULE-ONE-CHANGE), the upgrade's
                # VotersRecord included: its own category, so that a run tries it in the few
                # steps before the change commits (a leader that checks only later records, or
                # counts the upgrade's as committed, accepts it).
                out += [("pending", Ignored(n.id, AddVoter(h, directory_of(h)))) for h in hosts
                        if h not in n.voters]
                out += [("pending", Ignored(n.id, RemoveVoter(h, directory_of(h)))) for h in sorted(n.voters)]
            if isinstance(n.role, Leader):
                # Off-protocol requests: a replica id no host has, and a voter named with a
                # directory it does not have (only offered while the model refuses them).
                out += [("request", Ignored(n.id, AddVoter(UNKNOWN_REPLICA, directory_of(UNKNOWN_REPLICA)))),
                        ("request", Ignored(n.id, RemoveVoter(UNKNOWN_REPLICA, directory_of(UNKNOWN_REPLICA))))]
                out += [("request", Ignored(n.id, RemoveVoter(h, directory_of(h) + WRONG_DIRECTORY)))
                        for h in hosts[:1]]
                # AddVoter naming a directory the host does not have: a voter's id under another
                # directory (DUPLICATE_VOTER: ids are compared), a non-voter's (never caught up).
                out += [("request", Ignored(n.id, AddVoter(h, directory_of(h) + WRONG_DIRECTORY)))
                        for h in (hosts[0], hosts[-1])]
                # VOTERS-DRIVE-CROSSED-KEY-PROBE: a voter's id with another voter's directory
                out += [("request", Ignored(n.id, r)) for r in _crossed_key_requests(n)]
            # Malformed requests (VOTERS-RULE-KEY-VALID, -ADD-ENDPOINT): at a leader every one;
            # elsewhere too, where the role check comes first (NOT_LEADER_OR_FOLLOWER), so a
            # replica that validates the request before it checks its role is seen.
            out += [("request", Ignored(n.id, r)) for r in _malformed_requests(hosts)]
            out.append(("request", Ignored(n.id, UpgradeKRaftVersion())))
            # VOTERS-DRIVE-DESCRIBE: an administrator's DescribeQuorum (RAFT-RULE-DESCRIBE-QUORUM),
            # whose answer at the leader is each voter of the set in force with its log end as the
            # leader knows it: how a target keeps its replica states across a voter-set change
            # shows there (an added voter carries the offset it fetched to as an observer).
            out.append(("request", Ignored(n.id, describe_quorum(n.id))))
            if isinstance(n, VoterNode) and isinstance(n.role, Leader):
                # VOTERS-DRIVE-ODD-KEY-PROBE: directory id 0, and an UpdateVoter failing two checks
                # (the guided paths end with them; a guided run takes only what is offered)
                out += [("request", Ignored(n.id, r)) for r in _odd_key_requests(n, hosts)]
            if isinstance(n, VoterNode):
                bad = _bad_updates(n, hosts)
                if not self.rules.update_names_leader and isinstance(n.role, Leader) and n.kraft_version < 1:
                    # K6: at kraft.version 0 (4.1+) some of these are accepted (the voter found by id
                    # alone, VOTERS-RULE-UPGRADE-VOTERS); one naming the leader would crash it
                    bad = [u for u in bad if u.replica != n.id]
                out += [("request", Ignored(n.id, u)) for u in bad]
                if isinstance(n.role, Leader) and _change_pending(n):
                    v = min(n.voters)
                    out.append(("pending", Ignored(n.id, UpdateVoter(v, directory_of(v), n.epoch))))
        out += macros.candidates(state)
        if isinstance(state, WithFreeLog) and state.free is not None:
            out += voters_log.candidates(state.free, self.rules)
        if not self.faults:
            out = [(category, action) for category, action in out if category not in FAULTS]
        return out

    def probes(self, state: Any, k: int) -> list[tuple[str, Any]]:
        """At the log level, the free log's script (VOTERS-DRIVE-FREE-PROBE,
        ``voters_log.probes``): guided runs leave the free log alone (``unguided``), so every
        guided path ends with a few writes, a truncation and reads there. At the replica level,
        one fold over the path-end probes (``_end_probes``), each from the state the ones
        before it leave (their steps kept where the model enables them, as
        ``guide.with_probes`` keeps them). The probes that need the run's one crash with the
        election budget whole run at the start of paths of their own (``start_probes``)."""
        if isinstance(state, WithFreeLog) and state.free is not None:
            return list(voters_log.probes(state.free, self.rules, k))
        if self.level != "replica" or not isinstance(state, Voters):
            return []
        out: list[tuple[str, Any]] = []
        for probe in self._end_probes(state, k):
            steps = probe(state)
            out += steps
            state = self._after_probes(state, steps)
        return out

    def _end_probes(self, state: Voters, k: int) -> list[Callable[[Voters], list[tuple[str, Any]]]]:
        """The path-end probes in their order, for the ``k``-th path ending in ``state``. The
        crash budget (one a run) is VOTERS-DRIVE-UNREACHABLE-RESTART's alone at a path's end
        (``k % 4 == 1``, and the pre-vote configuration's paths that leave it): the other
        crashing probes are start probes (``start_probes``). The lapse probes spend the
        observer's fetch timer, so the uncommitted-add probe comes before them; the upgrade ends
        the path (nothing may follow it, its docstring)."""
        head: list[Callable[[Voters], list[tuple[str, Any]]]]
        if self._join_probe(state):
            # the auto-join configuration: the observer's request, then the lapse probes
            head = [self._join_probe, lambda s: self._replica_probes(s, k)]
        else:
            head = [self._static_join_probe, self._describe_probe, self._odd_key_probe, self._crossed_key_probe,
                    lambda s: self._uncommitted_add_probe(s)[0],
                    lambda s: self._replica_probes(s, k), lambda s: self._unreachable_leader_probe(s, k)]
        # the removed leader's script ends the leadership: last, where the path's leader is left
        # (the truncated-change and fresh-leader probes only append where the budgets allow them,
        # so that every probe before them keeps the state it had: VOTERS-DRIVE-TRUNCATED-CHANGE,
        # VOTERS-DRIVE-FRESH-LEADER)
        return [*head, self._rejoin_probe, self._own_report_probe, self._withdrawn_upgrade_probe,
                self._relead_upgrade_probe,
                self._upgrade_directory_probe, lambda s: self._stale_answer_probe(s, k),
                self._uncommitted_set_election_probe,
                self._truncated_change_probe, self._removed_leader_timer_probe, self._fresh_leader_probe,
                # session 29 (red team voters_scratch17's upgrade-judged-by-committed-version):
                # appended, so that every probe before it keeps the state it had
                self._upgrade_again_probe]

    def start_probes(self) -> Sequence[StartProbe]:
        """VOTERS-DRIVE-ADDED-LEADER-RESTART and VOTERS-DRIVE-OUTSIDER-VOTE-RESTART (replica
        level, with faults, no pre-vote): each takes the run's
        one crash after two or three elections' worth of steps, which at the defaults only the
        first path's end left (the two contended for it), so each runs on a path of its own."""
        if self.level != "replica" or not self.faults:
            return ()
        if self.model.pre_vote:
            return self._disk_start_probes()  # (the disk probes run under KIP-996 too: Kafka 4.0+)
        return (StartProbe("VOTERS-DRIVE-ADDED-LEADER-RESTART", self._started(self._added_leader_restart_probe)),
                StartProbe("VOTERS-DRIVE-OUTSIDER-VOTE-RESTART", self._started(self._outsider_vote_probe)),
                *self._disk_start_probes(),
                StartProbe("VOTERS-DRIVE-FIRST-LEADER-AGAIN", self._first_leader_again_then_removal))

    def _first_leader_again_then_removal(self, state: Any) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-FIRST-LEADER-AGAIN's start path, then VOTERS-DRIVE-REMOVED-LEADER-APPEND's
        tail where it fits (session 29): the path ends with a leader elected in a fresh epoch and
        the append and fetch budgets whole, which no planned path's end leaves."""
        script = self._first_leader_again_probe(state)
        after = self._offered_route(state, script) if script else None
        return script if after is None else [*script, *self._removed_leader_append_tail(after)]

    def _disk_start_probes(self) -> tuple[StartProbe, ...]:
        """VOTERS-DRIVE-DISK-REPLACED and VOTERS-DRIVE-DISK-REPLACED-VOTE, for a target that
        declares disk replacement (``max_disk_swaps`` set from its model_config)."""
        if not int(self.model.bounds.get("max_disk_swaps", 0)):
            return ()
        return (StartProbe("VOTERS-DRIVE-DISK-REPLACED", self._started(self._disk_replaced_probe)),
                StartProbe("VOTERS-DRIVE-DISK-REPLACED-VOTE", self._started(self._disk_replaced_vote_probe)),
                StartProbe("VOTERS-DRIVE-REJOINED-DISK-VOTE", self._started(self._rejoined_disk_vote_probe)),
                StartProbe("VOTERS-DRIVE-STALE-DISK-FETCH", self._started(self._stale_disk_fetch_probe)))

    def _disk_victim(self, state: Voters) -> tuple[VoterNode, int] | None:
        """The leader and the last voter following it, where a disk replacement fits: a quorum at
        kraft.version 1 whose leader's high watermark is its log end (the voter has fetched
        everything), no disk replaced yet, nothing in flight."""
        leader = next((n for n in state.nodes if isinstance(n.role, Leader)), None)
        if not isinstance(leader, VoterNode) or leader.kraft_version < 1 or state.disk_swaps or len(state.network) \
                or leader.high_watermark != leader.end_offset:
            return None
        voters = [n.id for n in state.nodes if isinstance(n.role, Follower) and n.role.leader == leader.id
                  and n.id in leader.voters and leader.role.end_offset_of(n.id) == leader.end_offset]  # type: ignore[union-attr]
        return (leader, voters[-1]) if voters else None

    def _disk_script(self, state: Voters, steps: list[Callable[[Voters], tuple[str, Any] | None]]) -> \
            tuple[list[tuple[str, Any]], int]:
        """The steps each ``make`` gives from the state the ones before left, as far as the driver
        offers them (``_offered_route``); the script and how many were taken."""
        script: list[tuple[str, Any]] = []
        s = state
        for make in steps:
            step = make(s)
            after = None if step is None else self._offered_route(s, [step])
            if step is None or after is None:
                break
            script.append(step)
            s = after
        return script, len(script)

    @staticmethod
    def _delivery(src: int, dst: int, kind: str) -> Callable[[Voters], tuple[str, Any] | None]:
        """The delivery of a message ``kind`` (its class name ends so) from ``src`` to ``dst`` in flight."""
        def make(s: Voters) -> tuple[str, Any] | None:
            found = sorted((m for m in s.network.distinct() if m.src == src and m.dst == dst
                            and type(m).__name__.endswith(kind)), key=repr)
            return ("deliver", Deliver(found[0])) if found else None
        return make

    def _disk_replaced_probe(self, state: Voters, stale_fetch: bool = False) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-DISK-REPLACED (replica level, a target that declares disk replacement; a
        start probe): KIP-853's motivating example. Where a leader L has every voter caught up,
        L's client append, then the disk of a voter follower V that fetched everything is replaced
        (VOTERS-RULE-DISK-REPLACED: a new directory, an empty log, no election state); V asks L
        (a bootstrap server) and learns L's epoch, then fetches as an observer until it holds L's
        log and once more at its end (VOTERS-RULE-FETCH-BY-KEY: L serves it and counts none of it:
        the high watermark stays below the append, which L and the new disk alone hold). Then the
        operator's RemoveVoter(V, old directory), a replication, AddVoter(V, new directory) and a
        replication (V is a voter again, under its new key); in the auto-join configuration V's
        update-voter-set timer asks L for the two changes itself (VOTERS-RULE-AUTO-JOIN). All of
        the fetches or nothing; the rest as far as offered."""
        found = self._disk_victim(state)
        if found is None:
            return []
        leader, v = found
        lead, new = leader.id, replaced_directory(v, 1)

        def append(s: Voters) -> tuple[str, Any] | None:
            return next(((c, a) for c, a in self.candidates(s) if c == "client" and isinstance(a, Fire)
                         and a.node == lead), None)

        fetch: Callable[[Voters], tuple[str, Any] | None] = lambda s: ("fetch", Fire(v, FetchDue(lead)))
        # (with ``stale_fetch``, the old disk's plain Fetch stays in flight: the new disk's are keyed)
        request = "KeyedFetchRequest" if stale_fetch else "FetchRequest"
        exchange = [fetch, self._delivery(v, lead, request), self._delivery(lead, v, "FetchResponse")]
        steps: list[Callable[[Voters], tuple[str, Any] | None]] = [
            append, *([fetch] if stale_fetch else []),
            lambda s: (PROBE, Fire(v, ReplaceDisk(new))),  # type: ignore[arg-type]
            *exchange, *exchange, *exchange, *exchange]
        script, taken = self._disk_script(state, steps)
        if taken < len(steps):
            return []
        s = self._after_probes(state, script)
        replicate: Callable[[Voters], tuple[str, Any] | None] = lambda s: ("replicate", macros.Replicate(lead))
        rejoin: list[Callable[[Voters], tuple[str, Any] | None]]
        if self.model.auto_join:
            timer: Callable[[Voters], tuple[str, Any] | None] = \
                lambda s: ("timer", Fire(v, UpdateVoterSetDue()))  # type: ignore[arg-type]
            rejoin = [timer, self._delivery(v, lead, "RemoveVoterRequest"), replicate,
                      timer, self._delivery(v, lead, "AddVoterRequest"), replicate]
        else:
            rejoin = [lambda s: ("reconfig", Fire(lead, RemoveVoter(v, directory_of(v)))),  # type: ignore[arg-type]
                      replicate,
                      lambda s: ("reconfig", Fire(lead, AddVoter(v, new))),  # type: ignore[arg-type]
                      replicate]
        more, _ = self._disk_script(s, rejoin)
        return script + more

    def _stale_disk_fetch_probe(self, state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-STALE-DISK-FETCH (a start probe, as VOTERS-DRIVE-DISK-REPLACED): the path of
        VOTERS-DRIVE-DISK-REPLACED where the voter V has sent L a Fetch just before its disk is
        replaced; that Fetch of the old disk (a plain one: it names V's first directory) stays in
        flight while the new disk catches up, the old key is removed and the new one added. Then
        it is delivered (VOTERS-RULE-FETCH-BY-KEY: the old disk's fetch after the new key was
        added is an observer's, V's fetch offset stays the new disk's), and an administrator's
        DescribeQuorum at L shows the offset L keeps for V. All or nothing: only where the path
        added V's new key at L."""
        found = self._disk_victim(state)
        if found is None:
            return []
        leader, v = found
        script = self._disk_replaced_probe(state, stale_fetch=True)
        if not script:
            return []
        s = self._after_probes(state, script)
        lead = s.node(leader.id)
        if not isinstance(lead, VoterNode) or not isinstance(lead.role, Leader) \
                or (v, replaced_directory(v, 1)) not in (lead.control.last_voter_set() or ()):
            return []

        def stale(s: Voters) -> tuple[str, Any] | None:
            found = sorted((m for m in s.network.distinct() if m.src == v and m.dst == leader.id
                            and type(m) is FetchRequest), key=repr)
            return ("deliver", Deliver(found[0])) if found else None

        more, taken = self._disk_script(s, [stale])
        if not taken:
            return []
        return script + more + [("request", Ignored(leader.id, describe_quorum(leader.id)))]

    def _disk_trio(self, state: Voters) -> tuple[VoterNode, int, int] | None:
        """The leader, the disk victim V (:meth:`_disk_victim`) and the lowest other voter W that
        stands in the disk vote probes; None where there is no such W."""
        found = self._disk_victim(state)
        if found is None:
            return None
        leader, v = found
        others = [n for n in sorted(leader.voters) if n not in (leader.id, v)]
        return (leader, v, others[0]) if others else None

    def _disk_replaced_vote_probe(self, state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-DISK-REPLACED-VOTE (a start probe, as VOTERS-DRIVE-DISK-REPLACED): the disk
        of a voter follower V is replaced, another voter W's fetch timer fires (it stands), and
        W's Vote, which names V's old directory, is delivered to V (VOTERS-RULE-VOTE-BY-KEY:
        INVALID_VOTER_KEY, not granted; a wiped voter's empty log must not elect a candidate);
        under KIP-996 W stands as a prospective and its pre-vote gets the same answer. Then, as far
        as offered, V's answer reaches W (RAFT-RULE-VOTE-ERROR: an answer with an error is no
        vote, W counts V neither way), and W's request to the leader L and L's answer: a pre-vote
        L refuses (a leader grants none), so W has one refusal of three and stays prospective
        where a replica that took V's error for a refusal too has lost (a majority of refusals)
        and returned to following L; a Vote L grants or refuses by the log check. The first three
        steps or nothing."""
        trio = self._disk_trio(state)
        if trio is None:
            return []
        leader, v, w = trio
        steps: list[Callable[[Voters], tuple[str, Any] | None]] = [
            lambda s: (PROBE, Fire(v, ReplaceDisk(replaced_directory(v, 1)))),  # type: ignore[arg-type]
            lambda s: ("timer", Fire(w, FetchTimeout())),
            self._delivery(w, v, "VoteRequest")]
        script, taken = self._disk_script(state, steps)
        if taken < len(steps):
            return []
        answers = [self._delivery(v, w, "VoteResponse"), self._delivery(w, leader.id, "VoteRequest"),
                   self._delivery(leader.id, w, "VoteResponse")]
        more, _ = self._disk_script(self._after_probes(state, script), answers)
        return script + more

    def _rejoined_disk_vote_probe(self, state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-REJOINED-DISK-VOTE (a start probe, as VOTERS-DRIVE-DISK-REPLACED): the path
        of VOTERS-DRIVE-DISK-REPLACED (V's disk replaced, V removed under its old key and added
        under its new one, each replicated), then another voter W's fetch timer (it stands) and
        its Vote to V, which now names V's new directory (VOTERS-RULE-VOTE-BY-KEY, the sending
        side: a KeyedVoteRequest), delivered. The two disk probes stop before any election over
        the set that holds the new key, so a candidate that asks a replaced disk by id alone (and
        is refused INVALID_VOTER_KEY) was never reached. All or nothing: only where the rejoin
        reached W (its Vote to V is keyed)."""
        trio = self._disk_trio(state)
        if trio is None:
            return []
        _, v, w = trio
        script = self._disk_replaced_probe(state)
        if not script:
            return []
        steps: list[Callable[[Voters], tuple[str, Any] | None]] = [
            lambda s: ("timer", Fire(w, FetchTimeout())), self._delivery(w, v, "KeyedVoteRequest")]
        more, taken = self._disk_script(self._after_probes(state, script), steps)
        return script + more if taken == len(steps) else []

    @staticmethod
    def _started(probe: Callable[[Voters], list[tuple[str, Any]]]) -> Callable[[Any], list[tuple[str, Any]]]:
        """``probe`` over any state of the graph: nothing before the start-up (``Formatted``)."""
        return lambda state: probe(state) if isinstance(state, Voters) else []

    def _outsider_vote_probe(self, state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-OUTSIDER-VOTE-RESTART (replica level, kip-595, with faults; a start probe):
        a replica outside its own voter set that granted a vote (VOTERS-RULE-OPEN-VOTE) has voted
        like any other: the vote is persisted and survives a restart (one vote per epoch). The
        vote needs a change replicated to the candidate and not to the voter, then the
        candidate's election and the crash of the voter before the epoch moves on, which random
        runs do not put together (and the guided graph of a configuration with faults does not
        reach). So a guided path of its own (``start_probes``) goes to where a leader L with no
        change pending has a voter follower V and an observer O following it, then O's fetch
        exchange in flight with L is delivered, a replication (``macros.Replicate``: O catches
        up to L's log end), L's AddVoter(O), a round trip of V alone (V's set now holds O, O's
        does not), V's fetch timer (it stands in epoch + 1), its VoteRequest delivered to O (O
        grants, outside its own set), O's reboot (it comes back voted for V) and O's fetch timer
        (a voted observer asks a bootstrap server, VOTERS-RULE-OBSERVER-BOOTSTRAP). Each step only
        where the driver offers it and the model enables it; nothing where the vote and the
        reboot are not. kip-595 configurations only: under KIP-996 V's pre-vote comes first."""
        if self.model.pre_vote:
            return []
        leader = next((n for n in state.nodes if isinstance(n.role, Leader)), None)
        if leader is None:
            return []
        followers = [n.id for n in state.nodes if isinstance(n.role, Follower) and n.role.leader == leader.id]
        voters = [f for f in followers if f in leader.voters]
        observers = [f for f in followers if f not in leader.voters]
        if not voters or not observers:
            return []
        v, o = voters[0], observers[0]
        script: list[tuple[str, Any]] = []
        s: Any = state
        # O's fetch exchange in flight with L is delivered, then the followers fetch to L's log end
        for _ in range(2):
            pending = next((m for m in sorted(s.network.distinct(), key=repr)
                            if {m.src, m.dst} == {o, leader.id} and type(m).__name__.startswith("Fetch")), None)
            if pending is None or (after := self.resolve(s, Deliver(pending))) is None:
                break
            script.append(("deliver", Deliver(pending)))
            s = after
        replicate = ("replicate", macros.Replicate(leader.id))
        if replicate in self.candidates(s) and (caught_up := self.resolve(s, replicate[1])) is not None:
            script.append(replicate)
            s = caught_up
        steps: list[tuple[str, Any]] = [
            ("reconfig", lambda: Fire(leader.id, AddVoter(o, directory_of(o)))),  # type: ignore[arg-type]
            ("round_trip", lambda: macros.RoundTrip(v)),
            ("timer", lambda: Fire(v, FetchTimeout())),
            ("deliver", lambda: next((Deliver(m) for m in sorted(s.network.distinct(), key=repr)
                                      if type(m).__name__ == "VoteRequest" and m.src == v and m.dst == o), None)),
            ("crash", lambda: Reboot(o)),
            # voted, it still asks a bootstrap server for the leader (VOTERS-RULE-OBSERVER-BOOTSTRAP)
            ("fetch", lambda: next((a for c, a in self.candidates(s) if c == "fetch" and isinstance(a, Fire)
                                    and a.node == o and isinstance(a.input, FetchDue)), None)),
        ]
        taken = 0
        for category, make in steps:
            action = make()
            if action is None or (category, action) not in self.candidates(s):
                break
            after = self.resolve(s, action)
            if after is None:
                break
            script.append((category, action))
            s = after
            taken += 1
        return script if taken >= len(steps) - 1 else []  # the vote and the reboot at least

    def _after_probes(self, state: Voters, steps: list[tuple[str, Any]]) -> Voters:
        """The state after ``steps``, each kept only where the model enables it (as
        ``guide.with_probes`` keeps a driver's probes)."""
        for _category, action in steps:
            after = self.resolve(state, action)
            state = state if after is None else after
        return state

    def _unreachable_leader_probe(self, state: Voters, k: int) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-UNREACHABLE-RESTART (replica level, with faults): guided paths end, where a
        leader L can remove itself, with its RemoveVoter(L) (after a replication where a change
        the path left uncommitted would refuse it), a replication (``macros.Replicate``: its
        followers take the VotersRecord, which commits, and L resigns) and a reboot of the first
        live follower F of L whose voter set no longer holds L (VOTERS-RULE-LEADER-UNREACHABLE: it
        comes back unattached in L's epoch, keeping L's id, and fetches from no one); under
        KIP-996 (the pre-vote configuration) then F's election timer twice
        (``_unreachable_prospective``). Every fourth path (``k % 4 == 1``); in the pre-vote
        configuration also every other path whose end leaves the crash and election budgets for
        the whole route, timers included (few do: most paths there end at the epoch or election
        bound, where the model offers no more election timers). Random runs need the removal, its
        replication and the crash of such a follower before its next election, in that order
        (session 14: one input moved category and the only catch, a random run's, went). Each
        step only where the driver offers it (a guided run takes nothing else); nothing where
        one is not offered."""
        if k % 4 != 1 and not self.model.pre_vote:
            return []
        leader = next((n for n in state.nodes if isinstance(n.role, Leader)), None)
        if leader is None:
            return []
        remove = ("reconfig", Fire(leader.id, RemoveVoter(leader.id, directory_of(leader.id))))  # type: ignore[arg-type]
        replicate = ("replicate", macros.Replicate(leader.id))
        for route in ([remove, replicate], [replicate, remove, replicate]):
            s = self._offered_route(state, route)
            if s is None:
                continue
            for n in s.nodes:
                if isinstance(n.role, Follower) and n.role.leader == leader.id and leader.id not in n.voters:
                    reboot = ("crash", Reboot(n.id))
                    back = self._offered_route(s, [reboot])
                    if back is None:
                        continue
                    timers = self._unreachable_prospective(back, n.id)
                    # off the fourth-path cadence, only the whole pre-vote route
                    return [*route, reboot, *timers] if k % 4 == 1 or len(timers) == 2 else []
            return []
        return []

    def _added_leader_restart_probe(self, state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-ADDED-LEADER-RESTART (replica level, with faults, no pre-vote): a leader's
        endpoint comes from the voter set at the restarting replica's log end, not from
        ``controller.quorum.bootstrap.servers`` (VOTERS-RULE-LEADER-UNREACHABLE): a replica that
        restarts following an ADDED voter follows it again. No path's end has an added voter
        leading (the guide graph does not get that deep), so a guided path of its own
        (``start_probes``) goes to where a leader L has an observer O following it and the crash,
        election and epoch budgets allow the whole route, then O's fetch in flight answered, a
        replication (O catches up; a change left uncommitted commits), L's AddVoter(O), a
        replication (it commits: O is a voter follower), O's fetch timer (it stands), its
        VoteRequests to two other voters V1, V2 and
        their grants delivered (O leads the next epoch), O's BeginQuorumEpoch to V1 delivered, and
        V1's reboot. All or nothing (few planned paths end with the budgets left: at the
        defaults only the first of the faults configuration, which
        VOTERS-DRIVE-OUTSIDER-VOTE-RESTART's crash also wanted)."""
        if self.model.pre_vote or not self.faults:
            return []
        leader = next((n for n in state.nodes if isinstance(n.role, Leader)), None)
        observer = next((n for n in state.nodes if isinstance(n, VoterNode) and observer_follower(n)
                         and isinstance(n.role, Follower) and leader is not None and n.role.leader == leader.id), None)
        if leader is None or observer is None:
            return []
        o = observer.id
        voters = sorted(v for v in leader.voters if v != leader.id)
        if len(voters) < 2:
            return []
        v1, v2 = voters[:2]
        replicate = ("replicate", macros.Replicate(leader.id))
        add = ("reconfig", Fire(leader.id, AddVoter(o, directory_of(o))))  # type: ignore[arg-type]
        # O's fetch left in flight (the lapse probe ends with one) is answered first.
        walked = self._walk(state, [
            _Msg(o, leader.id, FetchRequest, optional=True), _Msg(leader.id, o, FetchResponse, optional=True),
            replicate, add, replicate,
            ("timer", Fire(o, FetchTimeout())), _Msg(o, v1, VoteRequest), _Msg(v1, o, VoteResponse),
            _Msg(o, v2, VoteRequest), _Msg(v2, o, VoteResponse), _Msg(o, v1, BeginQuorumEpochRequest),
            ("crash", Reboot(v1))])
        return walked[0] if walked is not None else []

    def _first_leader_again_probe(self, state: Any) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-FIRST-LEADER-AGAIN (replica level, kip-595, with faults, kraft.version 1,
        three voters or more; a start probe from the formatted state): VOTERS-RULE-FIRST-LEADER's
        second half, a leader that finds the bootstrap records truncated away writes them again.
        Every run opens with the start-up (VOTERS-MODEL-START), where the first leader's copy of
        the bootstrap set commits, so no run met it. The path leaves the start-up out
        (``Unstarted``, category PROBE): voter A's election timer, its Vote to B and B's grant
        delivered (A leads epoch 1 and appends LeaderChange, KRaftVersionRecord and VotersRecord),
        B's election timer, its Vote to C and C's grant delivered (B leads epoch 2, writing its own
        copy), B's BeginQuorumEpoch to A, A's fetch from B and its answer (A truncates its epoch-1
        records: its voter set is the bootstrap checkpoint's again), the messages of the epochs
        before dropped (``max_inflight``), A's fetch timer, its Vote to C and C's grant (A leads
        epoch 3 and writes the bootstrap records again). All or nothing; within the default
        bounds (three elections, epoch 3)."""
        if not isinstance(state, Formatted) or self.level != "replica" or self.model.pre_vote \
                or self.model.kraft_version < 1 or len(self.model.voter_ids) < 3:
            return []
        a, b, c = sorted(self.model.voter_ids)[:3]
        walked = self._walk(state, [
            (PROBE, Unstarted()), ("timer", Fire(a, ElectionTimeout())),
            _Msg(a, b, VoteRequest), _Msg(b, a, VoteResponse),
            ("timer", Fire(b, ElectionTimeout())),
            _Msg(b, c, VoteRequest), _Msg(c, b, VoteResponse),
            _Msg(b, a, BeginQuorumEpochRequest),
            ("fetch", Fire(a, FetchDue(b))),
            _Msg(a, b, FetchRequest), _Msg(b, a, FetchResponse),
            _Msg(a, b, BeginQuorumEpochRequest, drop=True), _Msg(a, c, BeginQuorumEpochRequest, drop=True),
            _Msg(a, c, VoteRequest, drop=True), _Msg(b, a, VoteRequest, drop=True),
            ("timer", Fire(a, FetchTimeout())),
            _Msg(a, c, VoteRequest), _Msg(c, a, VoteResponse)])
        return walked[0] if walked is not None else []

    def _uncommitted_set_election_probe(self, state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-UNCOMMITTED-SET-ELECTION (replica level, kip-595, kraft.version 1): a
        replica's elections count votes over the voter set in force at its log end, committed or
        not (VOTERS-RULE-EFFECT-ON-APPEND), and the sets differ only while a change is
        uncommitted at the candidate; no guided path stood a replica for election then, and
        random runs need the change, its fetch by a voter before it commits, that voter's timer
        and a grant delivered, in that order. So a guided path ends, where a leader L with no
        change pending (after a replication) has voter followers V and W and an observer O
        following it, with L's AddVoter(O), a round trip of V alone (V's set now holds O, its
        high watermark below the record), V's fetch timer (it stands in epoch + 1), its
        VoteRequest to W and W's grant delivered: V has two votes of four (the model keeps it a
        candidate), two of the three committed voters. A run where O's fetch exchange is still in
        flight has it delivered first. All or nothing; kip-595 only (under KIP-996 W, having
        fetched from L, refuses V's pre-vote). Last of a path's probes (at kraft.version 0,
        where the upgrade probes run, there is no AddVoter)."""
        if self.model.pre_vote:
            return []
        leader = next((n for n in state.nodes if isinstance(n, VoterNode) and isinstance(n.role, Leader)), None)
        if leader is None:
            return []
        followers = sorted(n.id for n in state.nodes
                           if isinstance(n.role, Follower) and n.role.leader == leader.id)
        voters = [f for f in followers if f in leader.voters]
        observers = [f for f in followers if f not in leader.voters]
        if len(voters) < 2 or not observers:
            return []
        (v, w), o = voters[:2], observers[0]
        walked = self._walk(state, [
            _Msg(o, leader.id, FetchRequest, optional=True), _Msg(leader.id, o, FetchResponse, optional=True),
            _Maybe(("replicate", macros.Replicate(leader.id))),  # (nothing left to replicate: left out)
            ("reconfig", Fire(leader.id, AddVoter(o, directory_of(o)))),  # type: ignore[arg-type]
            ("round_trip", macros.RoundTrip(v)), ("timer", Fire(v, FetchTimeout())),
            _Msg(v, w, VoteRequest), _Msg(w, v, VoteResponse)])
        return walked[0] if walked is not None else []

    def _truncated_change_probe(self, state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-TRUNCATED-CHANGE (replica level, kip-595, kraft.version 1, three voters or
        more): VOTERS-RULE-ONE-CHANGE reads the log alone (the last VotersRecord against the
        leader's high watermark), so a change whose record another leader truncated away is no
        longer pending, and a replica that leads again may change the set once its epoch commits.
        No path had a leader's uncommitted change truncated and that replica leading again. So a
        guided path ends, where a leader L has voter followers V and W (and the election and epoch
        budgets for two elections), with a replication (where anything is left to replicate), a
        client append at L where offered, a change at L (RemoveVoter(W), else L's own UpdateVoter,
        else an observer's AddVoter: the first offered), V's fetch timer, its VoteRequest to W and
        W's grant (V leads epoch + 1 without the record), V's BeginQuorumEpoch to L, a round trip
        of L (it truncates its uncommitted records), L's fetch timer, its VoteRequest to W and
        W's grant (L leads epoch + 2), L's BeginQuorumEpoch to W and a replication (L's epoch
        commits), then a change at L again (the model accepts it). A leader that keeps the first
        change pending past the truncation (a mark outside the leadership, or one cleared only when
        that very record commits) refuses it REQUEST_TIMED_OUT. The steps up to the second
        election all or nothing; the last change where offered."""
        if self.model.pre_vote or self.model.kraft_version < 1:
            return []
        leader = next((n for n in state.nodes if isinstance(n, VoterNode) and isinstance(n.role, Leader)), None)
        if leader is None or leader.kraft_version < 1:
            return []
        lid = leader.id
        voters = sorted(n.id for n in state.nodes if n.id in leader.voters and n.id != lid
                        and isinstance(n.role, Follower) and n.role.leader == lid)
        if len(voters) < 2 or len(leader.voters) != 3:
            return []
        v, w = voters[:2]
        replicate = ("replicate", macros.Replicate(lid))
        s = state
        out: list[tuple[str, Any]] = []
        walked = self._walk(s, [_Maybe(replicate)])
        if walked is not None:
            out, s = walked[0], walked[1]
        client = next(((c, a) for c, a in self.candidates(s)
                       if c == "client" and getattr(a, "node", None) == lid), None)
        if client is not None and (after := self._offered_route(s, [client])) is not None:
            out.append(client)
            s = after
        change = self._change_at(s, lid, w)
        if change is None:
            return []
        s = self._offered_route(s, [change]) or s
        walked = self._walk(s, [
            ("timer", Fire(v, FetchTimeout())), _Msg(v, w, VoteRequest), _Msg(w, v, VoteResponse),
            _Msg(v, lid, BeginQuorumEpochRequest), ("round_trip", macros.RoundTrip(lid)),
            ("timer", Fire(lid, FetchTimeout())), _Msg(lid, w, VoteRequest), _Msg(w, lid, VoteResponse),
            _Msg(lid, w, BeginQuorumEpochRequest), replicate])
        if walked is None:
            return []
        steps, s = walked
        node = s.node(lid)
        if not isinstance(node.role, Leader) or node.high_watermark is None:
            return []
        again = self._change_at(s, lid, w)
        return [*out, change, *steps, *([again] if again is not None else [])]

    def _change_at(self, state: Voters, leader: int, voter: int) -> tuple[str, Any] | None:
        """The first of RemoveVoter(``voter``), the leader's own UpdateVoter and an observer's
        AddVoter that the driver offers at ``leader`` and the model accepts; None if none is."""
        node = state.node(leader)
        wanted: list[tuple[str, Any]] = [("reconfig", Fire(leader, RemoveVoter(voter, directory_of(voter))))]  # type: ignore[arg-type]
        if isinstance(node, VoterNode):
            wanted.append(("update", Fire(leader, UpdateVoter(leader, directory_of(leader), node.epoch))))  # type: ignore[arg-type]
        wanted += [("reconfig", Fire(leader, AddVoter(o.id, directory_of(o.id))))  # type: ignore[arg-type]
                   for o in state.nodes if o.id not in node.voters]
        return next((step for step in wanted if self._offered_route(state, [step]) is not None), None)

    def _fresh_leader_probe(self, state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-FRESH-LEADER (replica level, kraft.version 1): a leader refuses every
        voter change REQUEST_TIMED_OUT until a record of its own epoch commits (VOTERS-RULE-ADD
        step 2, -REMOVE, -UPDATE step 5: before that, an earlier leader's change may be
        uncommitted and unfenced); the window is the few steps between the election and the
        first fetches of the epoch, and the guided paths' requests meet leaders that committed.
        So a guided path ends, where some voter V other than a leader can still stand (the
        election and epoch budgets), with V's timer (its fetch timer as a follower, else its
        election timer), its vote (or pre-vote) requests and the answers to it delivered until it
        leads, then at once, before any Fetch of the epoch, RemoveVoter of another voter, an
        observer's AddVoter and V's own UpdateVoter (each where the driver offers it as a refused
        request). A leader that reads the high watermark it knew as a follower, or takes the
        records before its LeaderChange as committed, accepts one. The election all or nothing;
        each request where offered."""
        if self.model.kraft_version < 1:
            return []
        for node in sorted(state.nodes, key=lambda n: n.id):
            if not isinstance(node, VoterNode) or isinstance(node.role, Leader | Down) or node.id not in node.voters:
                continue
            f = node.id
            timer = ("timer", Fire(f, FetchTimeout() if isinstance(node.role, Follower) else ElectionTimeout()))
            s = self._offered_route(state, [timer])
            if s is None:
                continue
            steps: list[tuple[str, Any]] = [timer]
            for _ in range(12):
                if isinstance(s.node(f).role, Leader):
                    break
                msgs = sorted((m for m in s.network.distinct() if (isinstance(m, VoteRequest) and m.src == f)
                               or (isinstance(m, VoteResponse) and m.dst == f)), key=repr)
                nxt = next(((("deliver", Deliver(m)), after) for m in msgs
                            if (after := self._offered_route(s, [("deliver", Deliver(m))])) is not None), None)
                if nxt is None:
                    break
                steps.append(nxt[0])
                s = nxt[1]
            won = s.node(f)
            if not isinstance(won, VoterNode) or not isinstance(won.role, Leader) or won.high_watermark is not None:
                continue
            others = sorted(x for x in won.voters if x != f)
            requests: list[tuple[str, Any]] = [("request", Ignored(f, RemoveVoter(x, directory_of(x))))
                                               for x in others[:1]]
            requests += [("request", Ignored(f, AddVoter(o.id, directory_of(o.id)))) for o in s.nodes
                         if o.id not in won.voters][:1]
            requests.append(("request", Ignored(f, UpdateVoter(f, directory_of(f), won.epoch))))
            for request in requests:
                if self._offered_route(s, [request]) is not None:
                    steps.append(request)
            return steps
        return []

    @staticmethod
    def _upgrade_again_probe(state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-UPGRADE-AGAIN (replica level, kraft.version 0, 4.1+ rules; a path-end probe,
        session 29): the upgrade is a no-op once kraft.version 1 is in the leader's log, committed
        or not (VOTERS-RULE-UPGRADE, VOTERS-RULE-EFFECT-ON-APPEND; Kafka 4.1+'s
        ``LeaderState.maybeAppendUpgradedKRaftVersion``: a pending upgrade to the same version is a
        no-op). Every upgrade the driver sent met a leader whose version was 0, or 1 and committed,
        so a leader that asks the committed version, and so judges a second upgrade again while the
        first one's batch is uncommitted (red team voters_scratch17's
        upgrade-judged-by-committed-version: INVALID_UPDATE_VERSION, the in-memory voters gone with
        the append), conformed. A guided path therefore ends, where a leader holds a
        KRaftVersionRecord above its high watermark (at kraft.version 0 the paths' last probe,
        VOTERS-DRIVE-UPGRADE-DIRECTORY, leaves one), with the upgrade again, which changes nothing
        and is answered nothing."""
        for n in state.nodes:
            if not isinstance(n, VoterNode) or not isinstance(n.role, Leader) or n.high_watermark is None:
                continue
            last = n.control.kraft_versions.last_entry()
            if last is None or last[0] < n.high_watermark or last[1] < 1:
                continue
            return [("request", Ignored(n.id, UpgradeKRaftVersion()))]
        return []

    def _removed_leader_append_tail(self, state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-REMOVED-LEADER-APPEND (replica level, kip-595, with faults, kraft.version 1,
        three voters or more; the tail of VOTERS-DRIVE-FIRST-LEADER-AGAIN's start path, session
        29): a leader that removed itself resigns once its high watermark passes the VotersRecord
        (VOTERS-RULE-REMOVED-LEADER; Kafka's ``RemoveVoterHandler`` completes on ``highWatermark >=
        lastOffset + 1``). In every route that removed a leader the high watermark reached the
        record's end exactly (nothing was appended after it), so a leader that resigns only when the
        high watermark *equals* that end (red team voters_scratch17's
        removed-leader-resigns-at-exact-commit) conformed. The planned paths' ends have the append
        budget (one) or the fetch budget spent; the first-leader-again start path ends with both
        whole, A just elected in epoch 3. So it goes on with A's BeginQuorumEpoch to the other
        voters delivered, a replication (A commits its epoch: the bootstrap records written again
        commit), RemoveVoter(A), A's client append and a replication: the followers fetch both
        records at once, the high watermark jumps past the removal, and A resigns. All or nothing."""
        leader = max((n for n in state.nodes if isinstance(n, VoterNode) and isinstance(n.role, Leader)),
                     key=lambda n: n.epoch, default=None)
        if leader is None or leader.kraft_version < 1 or len(leader.voters) < 3 or leader.id not in leader.voters:
            return []
        ld = leader.id
        replicate = ("replicate", macros.Replicate(ld))
        begins = [_Msg(ld, v, BeginQuorumEpochRequest, optional=True) for v in sorted(leader.voters) if v != ld]
        walked = self._walk(state, [*begins, replicate,
                                    ("reconfig", Fire(ld, RemoveVoter(ld, directory_of(ld))))])  # type: ignore[arg-type]
        if walked is None:
            return []
        out, s = walked
        client = next(((c, a) for c, a in self.candidates(s) if c == "client" and getattr(a, "node", None) == ld), None)
        tail = None if client is None else self._walk(s, [client, replicate])
        if tail is None or isinstance(tail[1].node(ld).role, Leader):
            return []
        return [*out, *tail[0]]

    def _walk(self, state: Any, wanted: Sequence[tuple[str, Any] | _Msg | _Maybe]) \
            -> tuple[list[tuple[str, Any]], Any] | None:
        """A scripted walk from ``state`` (a system state, or ``Formatted`` where a start probe
        leaves the start-up out): each of ``wanted`` in turn, a (category, action) step as
        it is, a :class:`_Msg` as the delivery (or drop) of the message it names in flight, a
        :class:`_Maybe` as its step; each taken only where the driver offers it after the ones
        before (``_offered_route``). The steps and the state after, or None where a wanted
        message is not in flight (unless ``optional``) or a step other than a :class:`_Maybe`'s is
        not offered (a :class:`_Maybe` or an optional message is then left out)."""
        script: list[tuple[str, Any]] = []
        s: Any = state
        for want in wanted:
            if isinstance(want, _Msg):
                found: Any = next((m for m in s.network.distinct()  # (in repr order)
                              if (m.src, m.dst) == (want.src, want.dst) and isinstance(m, want.kind)), None)
                if found is None:
                    if want.optional:
                        continue
                    return None
                step: tuple[str, Any] = ("network", Drop(found)) if want.drop else ("deliver", Deliver(found))
            else:
                step = want.step if isinstance(want, _Maybe) else want
            after = self._offered_route(s, [step])
            if after is None:
                if isinstance(want, _Maybe):
                    continue
                return None
            script.append(step)
            s = after
        return script, s

    def _removed_leader_timer_probe(self, state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-REMOVED-LEADER-TIMER (replica level, kraft.version 1): a leader L that
        removes itself resigns once the record commits (VOTERS-RULE-REMOVED-LEADER), and when its
        election timer expires it becomes unattached in epoch + 1, persisted, an observer asking a
        bootstrap server for the leader (VOTERS-RULE-REMOVED-LEADER-TIMER). Random runs need the
        removal, its replication and L's timer before any candidate's Vote reaches L, in that
        order; VOTERS-DRIVE-UNREACHABLE-RESTART stops at the replication (its reboot is a
        follower's). So a guided path ends, where L leads a set of two voters or more at
        kraft.version 1 with nothing else in the way, with RemoveVoter(L) (after a replication
        where a change the path left uncommitted would refuse it), a replication, L's election
        timer, then L's fetch timer picking a bootstrap server B other than itself and the Fetch
        and its answer delivered. The steps up to the timer all or nothing; the fetch steps where
        offered."""
        leader = next((n for n in state.nodes if isinstance(n, VoterNode) and isinstance(n.role, Leader)), None)
        # (not in a kraft.version-0 configuration: its upgrade probes end the path, nothing follows them)
        if leader is None or self.model.kraft_version < 1 or leader.kraft_version < 1 or len(leader.voters) < 2:
            return []
        remove = ("reconfig", Fire(leader.id, RemoveVoter(leader.id, directory_of(leader.id))))  # type: ignore[arg-type]
        replicate = ("replicate", macros.Replicate(leader.id))
        timer = ("timer", Fire(leader.id, ElectionTimeout()))
        for route in ([remove, replicate, timer], [replicate, remove, replicate, timer]):
            s = self._offered_route(state, route)
            if s is None:
                continue
            out = list(route)
            node = next(n for n in s.nodes if n.id == leader.id)
            servers = sorted(b for b in getattr(node, "bootstrap_servers", ()) if b != leader.id)
            if not servers:
                return out
            b = servers[0]
            fetch = ("fetch", Fire(leader.id, FetchDue(b)))
            after = self._offered_route(s, [fetch])
            if after is None:
                return out
            out.append(fetch)
            s = after
            for src, dst in ((leader.id, b), (b, leader.id)):
                msg = next((m for m in sorted(s.network.distinct(), key=repr) if m.src == src and m.dst == dst), None)
                if msg is None or (after := self._offered_route(s, [("deliver", Deliver(msg))])) is None:
                    return out
                out.append(("deliver", Deliver(msg)))
                s = after
            return out
        return []

    def _offered_route(self, state: Voters, route: list[tuple[str, Any]]) -> Voters | None:
        """The state after ``route``, where the driver offers each step after the ones before;
        else None (``guide.replay``)."""
        after: Voters | None = guide.replay(self, state, route)
        return after

    def _unreachable_prospective(self, state: Voters, node: int) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-UNREACHABLE-RESTART under KIP-996: the rebooted replica, unattached with a
        leader it cannot reach, stands (its election timer: prospective, RAFT-KIP996) and the
        round times out (the timer again): it goes back to that unattached state, the leader
        kept, and stands again at once (RAFT-KIP996-TIMEOUT), never the leader's follower
        (VOTERS-RULE-LEADER-UNREACHABLE: "a prospective that came from this state and loses
        returns to it"). Each timer only where offered."""
        if not self.model.pre_vote:
            return []
        out: list[tuple[str, Any]] = []
        timer = ("timer", Fire(node, ElectionTimeout()))
        for _ in range(2):
            after = self._offered_route(state, [timer])
            if after is None:
                break
            out.append(timer)
            state = after
        return out

    def _rejoin_probe(self, state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-REJOIN-PROBE: in the auto-join configuration a guided path (replica level)
        ends, where a leader L has a voter follower V, with L's RemoveVoter(V) (after a
        replication where a change the path left uncommitted would refuse it), a replication
        (V takes the VotersRecord, which commits: V is now an observer that follows L), V's
        update-voter-set timer and its AddVoter delivered to L. VOTERS-RULE-AUTO-JOIN: a replica
        whose key is not in the set asks to join at every period, a removed voter included
        (KIP-853; Kafka 4.2+, KAFKA-19850's fix closed). Random runs need the removal, its
        replication, the timer and the delivery in that order, before another change or
        election; the join probe's observer never was a voter. Each step only where offered."""
        if not self.model.auto_join:
            return []
        leader = next((n for n in state.nodes if isinstance(n.role, Leader)), None)
        if leader is None:
            return []
        followers = [n.id for n in state.nodes if n.id in leader.voters and n.id != leader.id
                     and isinstance(n.role, Follower) and n.role.leader == leader.id]
        if not followers:
            return []
        v = followers[0]
        remove = ("reconfig", Fire(leader.id, RemoveVoter(v, directory_of(v))))  # type: ignore[arg-type]
        replicate = ("replicate", macros.Replicate(leader.id))
        for route in ([remove, replicate], [replicate, remove, replicate]):
            s = self._offered_route(state, route)
            if s is None:
                continue
            timer = ("timer", Fire(v, UpdateVoterSetDue()))  # type: ignore[arg-type]
            after = self._offered_route(s, [timer])
            node = s.node(v)
            request = auto_join_request(node) if isinstance(node, VoterNode) else ()
            if after is None or not request:
                return route
            deliver = ("deliver", Deliver(request[0]))  # type: ignore[arg-type]
            delivered = self._offered_route(after, [deliver])
            if delivered is None:
                return [*route, timer]
            return [*route, timer, deliver, *self._rejoin_fetch_tail(delivered, v, leader.id)]
        return []

    def _rejoin_fetch_tail(self, state: Voters, v: int, leader: int) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-REJOIN-FETCH (after VOTERS-DRIVE-REJOIN-PROBE's AddVoter, session 27): V's
        next fetch from L (its request and L's answer delivered), which brings the VotersRecord
        adding V but not its commit (L's answer carries the high watermark below it), then V's
        update-voter-set timer. VOTERS-RULE-AUTO-JOIN with VOTERS-RULE-EFFECT-ON-APPEND: V is a
        voter of the set at its log end, so it asks nothing; a replica that reads its membership
        from the committed set asks to join again (red team voters_scratch16's
        auto-join-reads-committed-set: no path let an auto-joining replica's timer fire while its
        own change was uncommitted in its log). Each step only where offered."""
        walked = self._walk(state, [_Maybe(("fetch", Fire(v, FetchDue(leader)))),
                                    _Msg(v, leader, FetchRequest), _Msg(leader, v, FetchResponse),
                                    _Maybe(("timer", Fire(v, UpdateVoterSetDue()))),  # type: ignore[arg-type]
                                    _Maybe(("idle", Ignored(v, UpdateVoterSetDue())))])
        return [] if walked is None else walked[0]

    def _static_join_probe(self, state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-STATIC-JOIN: in the auto-join configuration at kraft.version 0 a guided
        path (replica level) starts its probes, where an observer follows a leader, with that
        observer's update-voter-set timer, answered with nothing: a voter change needs
        kraft.version 1 (VOTERS-RULE-AUTO-JOIN; Kafka's ``shouldSendAddOrRemoveVoterRequest``
        checks ``isReconfigSupported`` first), so a replica that asks anyway is seen. Only where
        offered (the timer is an idle input: not in the fault-free profile)."""
        if not self.model.auto_join:
            return []
        for n in state.nodes:
            if isinstance(n, VoterNode) and n.kraft_version < 1 and isinstance(n.role, Follower) \
                    and observer_follower(n):
                step = ("idle", Ignored(n.id, UpdateVoterSetDue()))
                return [step] if self._offered_route(state, [step]) is not None else []
        return []

    def _own_report_probe(self, state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-OWN-REPORT (replica level, kraft.version 0, 4.1+ rules, session 27): a
        kraft.version-0 leader knows itself from the start of its epoch (VOTERS-RULE-UPGRADE-VOTERS:
        the static set updated with the local node), so its own UpdateVoter is accepted and changes
        nothing. The driver offers accepted updates only where the model changes state (category
        ``update``) and refused ones as requests, so no run sent it: a leader that looks voters up
        among its followers' states alone (VOTER_NOT_FOUND for itself; red team voters_scratch16's
        upgrade-map-lacks-leader) conformed. A guided path therefore ends, where such a leader has
        committed in its epoch, with its own UpdateVoter (category PROBE, as
        VOTERS-DRIVE-UPGRADE-DIRECTORY's update: offered, drawn by no lockstep rule; nothing changes,
        nothing is answered but NONE); before VOTERS-DRIVE-UPGRADE-WITHDRAWN's, whose state it leaves as it
        was. Not under K6 (``rules.update_names_leader`` off: the release throws)."""
        leader = next((n for n in state.nodes if isinstance(n, VoterNode) and isinstance(n.role, Leader)), None)
        if leader is None:
            return []
        route: list[tuple[str, Any]] = [(PROBE, Ignored(leader.id, u)) for u in _own_reports(leader, self.rules)]
        return route if route and self._offered_route(state, route) is not None else []

    def _withdrawn_upgrade_probe(self, state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-UPGRADE-WITHDRAWN (replica level, kraft.version 0, 4.1+ rules): a
        kraft.version-0 leader keeps what each voter told it *last* (VOTERS-RULE-UPGRADE-VOTERS:
        the voter's node replaced by its latest UpdateVoter), so a voter that reported [0, 1] and
        then [0, 0] (rolled back to a binary without kraft.version 1) no longer supports the
        upgrade. The driver's only [0, 0] update was offered as a refused request, which at such
        a leader it is not, so no run withdrew a voter's support. A guided path therefore ends,
        where a kraft.version-0 leader has committed in its epoch and has another voter, with the
        reports it lacks (each voter's own UpdateVoter), the lowest other voter's [0, 0] update,
        and the upgrade, which the leader refuses (INVALID_UPDATE_VERSION). All or nothing."""
        leader = next((n for n in state.nodes if isinstance(n, VoterNode) and isinstance(n.role, Leader)), None)
        if leader is None or leader.kraft_version >= 1 or not leader.kraft_upgrade or leader.high_watermark is None:
            return []
        others = sorted(v for v in leader.voters if v != leader.id)
        if not others:
            return []
        e = leader.epoch
        route: list[tuple[str, Any]] = [("update", Fire(leader.id, UpdateVoter(r, directory_of(r), e)))  # type: ignore[arg-type]
                                        for r, _, known in leader.upgrade_voters if not known and r != leader.id]
        route += [("update", Fire(leader.id, UpdateVoter(others[0], directory_of(others[0]), e,  # type: ignore[arg-type]
                                                         min_version=0, max_version=0))),
                  ("request", Ignored(leader.id, UpgradeKRaftVersion()))]
        return route if self._offered_route(state, route) is not None else []

    def _relead_upgrade_probe(self, state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-RELEAD-UPGRADE (replica level, kraft.version 0, 4.1+ rules): a leader's
        view of its voters for the upgrade (VOTERS-RULE-UPGRADE-VOTERS: each voter's directory and
        whether it supports kraft.version 1, from its UpdateVoter) belongs to its epoch (Kafka's
        ``LeaderState``, made anew at each election): the same replica leading again knows only
        itself until the voters report again. No guided path had one replica lead twice at
        kraft.version 0, so state kept across its epochs conformed. A guided path therefore ends,
        where a kraft.version-0 leader L with two other voters V, W and the epoch and election
        budgets for two more elections, with a replication (where L has not committed all it
        holds), the reports L lacks (each voter's own UpdateVoter), V's fetch timer and its
        election won with L's vote, L's fetch timer and its election won with W's vote (W took
        nothing of V's epoch), a replication from L (it commits in its new epoch), and the
        upgrade at L, which L refuses (INVALID_UPDATE_VERSION: no voter reported in this epoch).
        Each message delivered where it is in flight; all or nothing."""
        leader = next((n for n in state.nodes if isinstance(n, VoterNode) and isinstance(n.role, Leader)), None)
        if leader is None or leader.kraft_version >= 1 or not leader.kraft_upgrade:
            return []
        ld = leader.id
        others = sorted(v for v in leader.voters if v != ld)
        if len(others) < 2:
            return []
        v, w = others[:2]
        reports = [("update", Fire(ld, UpdateVoter(r, directory_of(r), leader.epoch)))  # type: ignore[arg-type]
                   for r, _, known in leader.upgrade_voters if not known and r != ld]
        # (a replication first only where L has not committed all it holds; W, which took no
        # record of V's epoch, elects L back, so that the fetch budget is left for L's commit)
        first = [("replicate", macros.Replicate(ld))] if leader.high_watermark != leader.end_offset else []
        # (a message not in flight is left out: a vote the winner no longer waits for is not sent)
        walked = self._walk(state, [
            *first, *reports,
            ("timer", Fire(v, FetchTimeout())), _Msg(v, ld, VoteRequest, optional=True),
            _Msg(ld, v, VoteResponse, optional=True), _Msg(v, ld, BeginQuorumEpochRequest, optional=True),
            ("timer", Fire(ld, FetchTimeout())), _Msg(ld, w, VoteRequest, optional=True),
            _Msg(w, ld, VoteResponse, optional=True), _Msg(ld, v, BeginQuorumEpochRequest, optional=True),
            _Msg(ld, w, BeginQuorumEpochRequest, optional=True), ("replicate", macros.Replicate(ld)),
            ("request", Ignored(ld, UpgradeKRaftVersion()))])
        if walked is None:
            return []
        script, s = walked
        last = s.node(ld)
        # the route counts only where L leads again, in a later epoch, and has committed in it
        # (else the upgrade is refused for the unknown high watermark first)
        return script if isinstance(last.role, Leader) and last.epoch > leader.epoch \
            and last.high_watermark is not None else []

    def _upgrade_directory_probe(self, state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-UPGRADE-DIRECTORY: the kraft.version upgrade writes each static voter with
        the directory its UpdateVoter named (VOTERS-RULE-UPGRADE-VOTERS; Kafka 4.1+:
        ``VoterSet.updateVoterIgnoringDirectoryId``, then the upgrade's VotersRecord of those
        voters), but every update the driver otherwise sends names the voter's own directory,
        which is also the one a leader that writes the configured voters would assume. So a
        guided path (replica level, kraft.version 0, 4.1+ rules) ends, where a leader has
        committed in its epoch, with an UpdateVoter of its lowest other voter naming another
        directory (category PROBE), the updates of the other voters not yet known to support
        kraft.version 1, and the upgrade: its VotersRecord names that directory. Nothing may
        follow: the voter written is no longer its host (VOTERS-KEY; Kafka's ``VoterSet.isVoter``
        compares directory ids, so that host is an observer there), which the model, one
        directory per host (VOTERS-MODEL-DIRS), does not represent; so the update is offered in
        no lockstep rule (PROBE), and this probe is the last of a path's. All or nothing."""
        leader = next((n for n in state.nodes if isinstance(n, VoterNode) and isinstance(n.role, Leader)), None)
        foreign = _foreign_updates(leader) if leader is not None else []
        if leader is None or not foreign:
            return []
        own = [UpdateVoter(v, directory_of(v), leader.epoch) for v, _, known in leader.upgrade_voters
               if not known and v != foreign[0].replica]
        route: list[tuple[str, Any]] = [(PROBE, Fire(leader.id, foreign[0]))]  # type: ignore[arg-type]
        route += [("update", Fire(leader.id, u)) for u in own]  # type: ignore[arg-type]
        route.append(("reconfig", Fire(leader.id, UpgradeKRaftVersion())))  # type: ignore[arg-type]
        return route if self._offered_route(state, route) is not None else []

    @staticmethod
    def _odd_key_probe(state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-ODD-KEY-PROBE: a guided path (replica level) ends, where a replica leads,
        with requests whose replica key is odd in a way no other input is: directory id 0 (a
        directory like any other; the adapter protocol's "none" is -1, so a target that takes 0
        for Kafka's ``Uuid.ZERO_UUID`` answers INVALID_REQUEST where the leader answers by its
        handlers: AddVoter of the last host, RemoveVoter of the lowest voter), and an UpdateVoter
        that fails two checks at once, an unknown replica (9) with the range [2, 3] that leaves out
        the finalized kraft.version (VOTERS-RULE-UPDATE: check 8, INVALID_REQUEST, before check 9,
        VOTER_NOT_FOUND). Each is refused and changes nothing."""
        hosts = sorted(n.id for n in state.nodes)
        return [("request", Ignored(n.id, r)) for n in state.nodes
                if isinstance(n, VoterNode) and isinstance(n.role, Leader) for r in _odd_key_requests(n, hosts)]

    @staticmethod
    def _crossed_key_probe(state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-CROSSED-KEY-PROBE: a guided path (replica level) ends, where a replica
        leads, with a RemoveVoter whose replica key pairs the lowest voter's id with the highest
        voter's directory: both parts name a voter, the key names none (VOTERS-KEY: VOTER_NOT_FOUND
        at a leader that may change its voters). Refused; it changes nothing."""
        return [("request", Ignored(n.id, r)) for n in state.nodes
                if isinstance(n, VoterNode) and isinstance(n.role, Leader) for r in _crossed_key_requests(n)]

    @staticmethod
    def _describe_probe(state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-DESCRIBE: a guided path (replica level) ends, where a replica leads, with
        an administrator's DescribeQuorum at the leader: the voters of the set in force the path
        left it with, each with the log end the leader knows (a voter added on the path carries
        the offset it fetched to as an observer, Kafka's ``updateVoterAndObserverStates``)."""
        return [("request", Ignored(n.id, describe_quorum(n.id))) for n in state.nodes if isinstance(n.role, Leader)]

    def _join_probe(self, state: Voters) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-JOIN-PROBE: in the auto-join configuration, a guided path (replica level)
        ends, where an observer follows a leader, with its update-voter-set timer and its request
        delivered at once (VOTERS-RULE-AUTO-JOIN): random runs seldom deliver it before the
        leader's state moves on, so the leader's answers (accepted, or which refusal) stay rare.
        The request is judged as any AddVoter (VOTERS-RULE-ADD step 7: REQUEST_TIMED_OUT until
        the observer has fetched the leader's whole log), so where the observer has (the plan
        ended with it caught up), the leader first appends a record, where the driver offers it
        (the append budget), and the request meets an observer behind: the probe builds that
        precondition itself rather than rely on where the plan ends (a leader renewed by
        RAFT-RULE-CHECK-QUORUM-PERIOD moves the plan). Where it cannot, the request is accepted."""
        if not self.model.auto_join:
            return []
        for n in state.nodes:
            request = auto_join_request(n) if isinstance(n, VoterNode) else ()
            if request:
                join: list[tuple[str, Any]] = [("timer", Fire(n.id, UpdateVoterSetDue())),  # type: ignore[arg-type]
                                               ("deliver", Deliver(request[0]))]  # type: ignore[arg-type]
                return [*self._put_behind(state, n.id, request[0].dst), *join]
        return []

    def _put_behind(self, state: Voters, observer: int, leader: int) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-JOIN-PROBE's precondition: ``leader``'s client append where ``observer``
        has fetched its whole log and the driver offers the append; else nothing."""
        lead = state.node(leader)
        if not isinstance(lead, VoterNode) or not isinstance(lead.role, Leader) \
                or lead.role.end_offset_of(observer) != lead.end_offset:
            return []
        for category, action in by_category(self.model.actions(state), _input_category):
            if category == "client" and isinstance(action, Fire) and action.node == leader:
                step = (category, action)
                return [step] if self._offered_route(state, [step]) is not None else []
        return []

    def _replica_probes(self, state: Voters, k: int) -> list[tuple[str, Any]]:
        """The observer's lapse probes (replica level), from ``state``: every third path the
        lapse meeting an answer that names no leader, where the path's state allows it; the
        plain lapse probe otherwise."""
        if k % 3 == 2:
            return self._leaderless_answer_probe(state, k) or self._lapse_probe(state, k)
        return self._lapse_probe(state, k)

    def _uncommitted_add_probe(self, state: Voters) -> tuple[list[tuple[str, Any]], Voters]:
        """VOTERS-DRIVE-UNCOMMITTED-ADD-PROBE: "caught up" is the leader's log end, not its high
        watermark (VOTERS-RULE-ADD step 7). A non-voter that fetched up to the end of the log
        stops being caught up the moment the leader appends, while it still holds everything
        committed; only an AddVoter for it right then tells the two readings apart, and runs
        seldom put the two steps together. So a guided path ends (before the lapse probes) with
        the leader's client append, where one is enabled, then an AddVoter for each live
        non-voter the model refuses (REQUEST_TIMED_OUT); the state after."""
        leader = next((n for n in state.nodes if isinstance(n.role, Leader)), None)
        if leader is None or not any(n.id not in leader.voters and not isinstance(n.role, Down) for n in state.nodes):
            return [], state
        out: list[tuple[str, Any]] = []
        appends = [a for c, a in by_category(self.model.actions(state), _input_category)
                   if c == "client" and isinstance(a, Fire) and a.node == leader.id]
        if appends and (after := self.resolve(state, appends[0])) is not None:
            out.append(("client", appends[0]))
            state = after
        for n in state.nodes:
            if n.id in leader.voters or isinstance(n.role, Down):
                continue
            request = Ignored(leader.id, AddVoter(n.id, directory_of(n.id)))
            if self.resolve(state, request) is state:
                out.append(("request", request))
        return out, state

    def _leaderless_answer_probe(self, state: Voters, k: int) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-LEADERLESS-ANSWER-PROBE: an observer's fetch lapse ends only with an
        answer that names its leader (VOTERS-RULE-OBSERVER-FETCH-TIMEOUT). A bootstrap server
        answers in the observer's epoch without naming a leader only when it has not learned
        the epoch's leader yet, which the lapse probe never meets (at a path's end every voter
        knows the leader). Where a voter follows the leader L with an observer O behind it
        (kip-595: a pre-vote would be refused by L's followers), a voter V stands (its fetch
        timer) and wins with W's vote; L hears V's BeginQuorumEpoch, so O's fetch to L brings O
        to V's epoch as V's follower while W, voted, still knows no leader; then O's fetch timer,
        O's Fetch to W, W's NOT_LEADER_OR_FOLLOWER naming no one (still lapsed), and O's fetch
        due at L, another bootstrap server, which the model sends and a replica that took any
        answer for the leader's does not. Steps the model does not enable end the probe."""
        if self.model.pre_vote:
            return []
        nodes = state.nodes
        leaders = [n for n in nodes if isinstance(n.role, Leader)]
        observers = [n for n in nodes if isinstance(n, VoterNode) and observer_follower(n) and not n.fetch_lapsed]
        if not leaders or not observers:
            return []
        lead = leaders[0]
        others = [n.id for n in nodes if n.id in lead.voters and n.id != lead.id and isinstance(n.role, Follower)]
        if len(others) < 2:
            return []
        o = observers[0]
        if o.role.leader != lead.id or not {lead.id, *others} <= o.bootstrap_servers:  # type: ignore[union-attr]
            return []
        v, w = (others[0], others[1]) if k % 2 == 0 else (others[1], others[0])
        script: list[tuple[str, Any]] = []
        s: Any = state

        def take(category: str, action: Any) -> bool:
            nonlocal s
            after = None if action is None else self.resolve(s, action)
            if after is None:
                return False
            script.append((category, action))
            s = after
            return True

        def message(src: int, dst: int, kind: str) -> Any:
            found = next((m for m in s.network.distinct() if m.src == src and m.dst == dst
                          and type(m).__name__ == kind), None)
            return None if found is None else Deliver(found)

        steps: list[tuple[str, Any]] = [
            ("timer", lambda: Fire(v, FetchTimeout())),
            ("deliver", lambda: message(v, w, "VoteRequest")),
            ("deliver", lambda: message(w, v, "VoteResponse")),
            ("deliver", lambda: message(v, lead.id, "BeginQuorumEpochRequest")),
            ("fetch", lambda: Fire(o.id, FetchDue(lead.id))),
            ("deliver", lambda: message(o.id, lead.id, "FetchRequest")),
            ("deliver", lambda: message(lead.id, o.id, "FetchResponse")),
            ("timer", lambda: Fire(o.id, FetchTimeout())),
            ("fetch", lambda: Fire(o.id, FetchDue(w))),
            ("deliver", lambda: message(o.id, w, "FetchRequest")),
            ("deliver", lambda: message(w, o.id, "FetchResponse")),
            ("fetch", lambda: Fire(o.id, FetchDue(lead.id))),
        ]
        for category, make in steps:
            if not take(category, make()):
                break
        return script

    def _stale_answer_probe(self, state: Voters, k: int) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-STALE-LAPSE-ANSWER (replica level, kip-595, session 28): an observer's
        fetch lapse ends only with an answer *of its epoch* naming its leader
        (VOTERS-RULE-OBSERVER-FETCH-TIMEOUT). An answer of an older epoch naming the same leader
        needs that leader to lead two epochs in a row while a bootstrap server stays in the
        first, which neither the lapse probes (the leader's own epoch) nor the leaderless-answer
        probe (another leader's) meet. So a guided path ends, where a leader L has a voter
        follower B in its epoch e, another voter C and an observer O following L (no fetch
        lapse), with L's check-quorum timer (twice where the first finds L renewed: it resigns),
        L's election timer (candidate in e + 1), its Vote to C and C's grant delivered (L leads
        e + 1; its BeginQuorumEpoch to B stays in flight); O's Fetch to L, answered
        FENCED_LEADER_EPOCH naming L in e + 1 (O follows L there); O's fetch timer (lapsed), its
        Fetch to B, B's UNKNOWN_LEADER_EPOCH answer in e naming L (stale: the lapse goes on);
        then O's fetch due at C, which the model sends and a replica that took the stale answer
        for a current one does not (red team voters_scratch16's lapse-ends-on-stale-answer). All
        or nothing."""
        # Not on a configuration's first planned path (k == 0), whose end the budgets leave to
        # VOTERS-DRIVE-UNCOMMITTED-SET-ELECTION (both need two elections; session 28's replay:
        # taking it there moved that probe's catches), nor in a kraft.version-0 configuration.
        if k == 0 or self.model.pre_vote or self.model.kraft_version < 1:
            return []
        lead = next((n for n in state.nodes if isinstance(n, VoterNode) and isinstance(n.role, Leader)), None)
        if lead is None:
            return []
        followers = [n.id for n in state.nodes if n.id in lead.voters and n.id != lead.id
                     and isinstance(n.role, Follower) and n.role.leader == lead.id and n.epoch == lead.epoch]
        observers = [n for n in state.nodes if isinstance(n, VoterNode) and observer_follower(n)
                     and not n.fetch_lapsed and n.role.leader == lead.id]  # type: ignore[union-attr]
        if not followers or not observers:
            return []
        b, o, ell = followers[0], observers[0], lead.id
        others = sorted(v for v in lead.voters if v not in (ell, b))
        if not others or not {b, others[0]} <= o.bootstrap_servers:
            return []
        c = others[0]
        rest: list[tuple[str, Any] | _Msg | _Maybe] = [
                ("timer", Fire(ell, ElectionTimeout())), _Msg(ell, c, VoteRequest), _Msg(c, ell, VoteResponse),
                _Maybe(("fetch", Fire(o.id, FetchDue(ell)))), _Msg(o.id, ell, FetchRequest),
                _Msg(ell, o.id, FetchResponse), ("timer", Fire(o.id, FetchTimeout())),
                ("fetch", Fire(o.id, FetchDue(b))), _Msg(o.id, b, FetchRequest), _Msg(b, o.id, FetchResponse),
                ("fetch", Fire(o.id, FetchDue(c)))]
        resign = _Maybe(("timer", Fire(ell, CheckQuorumTimeout())))
        routes: list[list[tuple[str, Any] | _Msg | _Maybe]] = [[resign, resign], [("crash", Reboot(ell))]]
        walked = None
        for route in routes:
            walked = self._walk(state, [*route, *rest])
            if walked is not None:
                break
        if walked is None:
            return []
        script, end = walked
        # the answer that reached O: of the older epoch, naming L; O still lapsed in e + 1
        answer = script[-2][1].message
        after = end.node(o.id)
        if not (isinstance(after, VoterNode) and after.fetch_lapsed and answer.leader == ell
                and answer.epoch < after.epoch and isinstance(end.node(ell).role, Leader)):
            return []
        return script

    def _lapse_probe(self, state: Voters, k: int) -> list[tuple[str, Any]]:
        """VOTERS-DRIVE-LAPSE-PROBE: a guided path (replica level) ends, where an observer
        follows a leader, with its fetch timer firing (VOTERS-RULE-OBSERVER-FETCH-TIMEOUT), a
        Fetch to a bootstrap server other than the leader (the ``k``-th, rotating), its
        NOT_LEADER_OR_FOLLOWER answer naming the leader delivered, then a pick of that server
        again (no Fetch: KAFKA-19354's observer sends one) and the Fetch to the leader. The lapse
        needs four steps in a row, which random runs seldom take."""
        out: list[tuple[str, Any]] = []
        for n in state.nodes:
            if not (isinstance(n, VoterNode) and isinstance(n.role, Follower) and observer_follower(n)) \
                    or n.fetch_lapsed:
                continue
            leader = n.role.leader
            servers = [b for b in sorted(n.bootstrap_servers) if b not in (n.id, leader)]
            if not servers:
                continue
            b = servers[k % len(servers)]
            s: Any = state
            for category, action in (("timer", Fire(n.id, FetchTimeout())), ("fetch", Fire(n.id, FetchDue(b)))):
                after = self.resolve(s, action)
                if after is None:
                    return []
                out.append((category, action))
                s = after
            for src, dst in ((n.id, b), (b, n.id)):
                msg = next((m for m in s.network.distinct() if m.src == src and m.dst == dst), None)
                if msg is None or (after := self.resolve(s, Deliver(msg))) is None:
                    return out
                out.append(("deliver", Deliver(msg)))
                s = after
            out += [("fetch", Ignored(n.id, FetchDue(b))), ("fetch", Fire(n.id, FetchDue(leader)))]
            return out
        return out

    def resolve(self, state: Voters | Formatted, action: Any) -> Any:
        """The state after ``action``, or None when the model does not enable it within bounds."""
        if isinstance(state, Formatted):
            if isinstance(action, Unstarted) and self.level == "replica":
                return self._setup.formatted
            return state.state if isinstance(action, StartUp) else None
        if isinstance(action, macros.MACRO_TYPES):
            return self.resolve_macro(state, action)
        if isinstance(action, voters_log.FREE_TYPES):
            free = state.free if isinstance(state, WithFreeLog) else None
            if free is None or all(a != action for _, a in voters_log.candidates(free)):
                return None
            return evolve(state, free=voters_log.step(free, action, self.rules)[0])
        if isinstance(action, Ignored):
            node = state.node(action.node)
            stepped, outputs = self._step(node, action.input)  # type: ignore[arg-type]
            request = isinstance(action.input, AddVoter | RemoveVoter | UpgradeKRaftVersion | UpdateVoter
                                 | DescribeQuorumRequest)
            if stepped == node and (request or not outputs):
                return state
            if self.variant and isinstance(action.input, FetchDue):
                # A Fetch the reference does not send and a variant's does (K7: an observer stuck
                # on bootstrap servers): the variant's fetch, as the system model would fire it
                # (no fetch of the replica in flight, within max_fetches), so that replaying a run
                # under a catalogued deviation's variant (explained_by, --accept) can follow it.
                if fetch_in_flight(state, action.node):
                    return None
                return self.model.next_state(state, Fire(action.node, action.input))
            if self.variant and request:
                # A request the reference refuses that a variant's model accepts (K4: a replica
                # caught up once): taken as the variant's step, as above.
                return self.model._apply(state, action.node, action.input)
            return None
        if isinstance(action, Fire) and isinstance(action.input, UpdateVoter):
            # An accepted update (VOTERS-RULE-UPDATE) at the node level: the system model has no
            # action for it; a refused one is offered as a request (Ignored).
            after = self.model._apply(state, action.node, action.input)
            if after is None or after.node(action.node) == state.node(action.node):
                return None
            return after if self.model.within_bounds(after) else None
        if isinstance(action, Fire) and isinstance(action.input, TakeSnapshot):
            # Any snapshot the replica would take (VOTERS-SNAP-TAKE), within the budget.
            if state.snapshots >= int(self.model.bounds["max_snapshots"]):
                return None
            after = self.model._apply(state, action.node, action.input)
            return None if after is None else replace(after, snapshots=state.snapshots + 1)
        after = self.model.next_state(state, action)
        if after is None and self.variant and isinstance(action, Fire):
            # An input the correct model acts on and a deviation's variant ignores (K3: a
            # check-quorum expiry with one voter): a step that changes nothing, so a run the
            # correct model took replays under the variant (runner.explained_by, --accept)
            # instead of stopping there (as the raft driver, 22dc476).
            node = state.node(action.node)
            if self._step(node, action.input) == (node, ()):  # type: ignore[arg-type]
                return state
        if after is None and isinstance(action, Reboot):
            after = self._quiet_reboot(state, action.node)
        if after is None or not self.model.within_bounds(after):
            return None
        return after

    def _quiet_reboot(self, state: Voters, replica: int) -> Voters | None:
        """A reboot that loses nothing: the explorer skips it, but the target must rebuild its
        control state from snapshot and log to the same answers (VOTERS-CTRL-REBUILD)."""
        if state.crashes >= int(self.model.bounds["max_crashes"]) or isinstance(state.node(replica).role, Down):
            return None
        down = self.model._apply(state, replica, Crash())
        up = None if down is None else self.model._apply(down, replica, Restart())
        return None if up is None else replace(up, crashes=state.crashes + 1)  # type: ignore[return-value]

    # ------------------------------------------------------------------ events

    def _node_steps(self, before: Any, action: Any) -> list[tuple[int, Input, tuple[Any, ...], VoterNode, VoterNode]]:
        """The node steps of ``action``: (replica, input, outputs, node before, node after)."""
        if isinstance(action, Unstarted):
            return []  # the targets started formatted: nothing more to feed
        if isinstance(action, StartUp):
            # The replica level's targets did the first start's steps when they started.
            skip = self._setup.at_start if self.level == "replica" else 0
            return list(self._setup.opening[skip:])
        pairs_: list[tuple[int, Any]]
        if isinstance(action, Ignored | Fire):
            pairs_ = [(action.node, action.input)]
        elif isinstance(action, Deliver):
            pairs_ = [(action.message.dst, action.message)]
        elif isinstance(action, Reboot):
            pairs_ = [(action.node, Crash()), (action.node, Restart())]
        else:
            pairs_ = []
        nodes = {n.id: n for n in before.nodes}
        out = []
        for replica, inp in pairs_:
            node = nodes[replica]
            nodes[replica], outputs = self._step(node, inp)
            out.append((replica, inp, outputs, node, nodes[replica]))
        return out

    def events(self, before: Any, action: Any, after: Any) -> list[Event]:
        """The node-level inputs of ``action`` (replica level), or the log changes they make
        (log level), each with the model's outputs and observation after it."""
        if isinstance(action, macros.MACRO_TYPES):
            return self.macro_events(before, action)
        if isinstance(action, voters_log.FREE_TYPES):
            free, inp, outputs = voters_log.step(before.free, action, self.rules)
            return [Event(voters_log.FREE_LOG, inp, outputs, control_observation(free.control))]
        out: list[Event] = []
        for replica, inp, outputs, node_before, node_after in self._node_steps(before, action):
            if self.level == "replica":
                others = tuple(wire(encode(o)) for o in raft_node.other_answers(node_before, inp, outputs))
                out.append(Event(replica, wire(encode(inp)), wire(encode(outputs)), replica_observation(node_after),
                                 alternatives=others))
            else:
                out += [Event(replica, i, o, obs)
                        for i, o, obs in log_events(inp, outputs, node_before, node_after, self.rules)]
        return out

    comparable = staticmethod(comparable_output)

    def describe(self, action: Any) -> str:
        if isinstance(action, StartUp):
            return "start-up: replica 1 elected, every host caught up (VOTERS-MODEL-START)"
        if isinstance(action, Unstarted):
            return "no start-up: every host formatted (VOTERS-DRIVE-FIRST-LEADER-AGAIN)"
        if isinstance(action, macros.MACRO_TYPES):
            return macros.describe(action)
        if isinstance(action, voters_log.FREE_TYPES):
            return f"free log (node {voters_log.FREE_LOG}): {action}"
        if isinstance(action, Ignored):
            inp = action.input
            what = type(inp).__name__ + (f"({inp.replica})" if hasattr(inp, "replica") else "")
            return f"replica {action.node}: {what} (ignored or refused)"
        return describe_action(action)

    # ------------------------------------------------------------------ checks

    def model_violation(self, before: Any, action: Any, after: Any) -> str | None:
        if isinstance(action, (Ignored, StartUp, Unstarted, *voters_log.FREE_TYPES)) or self.variant:
            return None  # a broken variant breaks properties on purpose; the free log has none
        if isinstance(action, macros.MACRO_TYPES):
            return self.violated_within(before, action, self._always + self._always_step)
        return first_violated(self._always + self._always_step, before, action, after)

    def observed_violation(self, node: Any, inp: JSON, observations: dict[Any, JSON],
                           memory: dict[str, Any]) -> str | None:
        """Safety checks on the target's observations alone (spec/adapter-protocol.md); none
        against a broken variant (the module docstring)."""
        if self.variant:
            return None
        obs = observations[node]
        kind = inp.get("type") if isinstance(inp, dict) else None
        ends: dict[Any, int] = memory.setdefault("ends", {})
        if self.level == "replica":
            ends[node] = len(obs.get("log") or [])
        elif kind == "Append":
            ends[node] = int(inp["base_offset"]) + len(inp["entries"])
        elif kind == "Truncate":
            ends[node] = min(ends.get(node, 0), int(inp["offset"]))
        last: dict[Any, JSON] = memory.setdefault("last", {})
        previous, last[node] = last.get(node), obs
        static = self.node_config(node)["static_voters"]
        if kind == "Read":
            return None  # answers only (compared with the model's); the observation is as before
        return (_history_violation(node, obs, ends.get(node, 0), static, node != voters_log.FREE_LOG)
                or (_rebuild_violation(node, previous, obs) if kind == "Restart" and previous is not None else None)
                or (_raft_violation(node, observations, memory) if self.level == "replica" else None))


def _updates(leader: VoterNode, rules: Rules) -> list[UpdateVoter]:
    """UpdateVoter requests the leader accepts while no change is uncommitted (VOTERS-RULE-UPDATE):
    each voter's own, and for the lowest voter the listener shapes no check refuses (two under the
    cluster's name, an empty host, port 0) and a range that supports only kraft.version 1. Under
    K6 (``rules.update_names_leader`` off) none names the leader itself: the release throws.

    The odd listener shapes and the range [1, 1] never name the leader itself: a leader whose own
    recorded endpoints or supported range differ from its configuration writes a new VotersRecord
    with them at the start of its next epoch (Kafka's ``LeaderState.appendStartOfEpochControlRecords``,
    ``voterNodeNeedsUpdate``), and the model carries no endpoints (spec/voters.md, "Endpoints").
    Another voter's odd endpoints never reach that voter: every replica rebuilds a replicated
    VotersRecord from its (id, directory) pairs."""
    voters = [v for v in sorted(leader.voters) if rules.update_names_leader or v != leader.id]
    if not voters or leader.high_watermark is None or _change_pending(leader):
        return []
    e = leader.epoch
    out = [UpdateVoter(r, directory_of(r), e) for r in voters]
    others = [r for r in voters if r != leader.id][:1]
    out += [UpdateVoter(o, directory_of(o), e, listeners=shape) for o in others
            for shape in ("duplicate", "empty-host", "port-0")]
    out += [UpdateVoter(o, directory_of(o), e, min_version=1, max_version=1) for o in others]
    # VOTERS-DRIVE-UPGRADE-WITHDRAWN: at kraft.version 0 (4.1+) a voter's support for 1 withdrawn
    # (kept in memory, so offered here; at 1 it is refused, a request of _bad_updates)
    out += [UpdateVoter(o, directory_of(o), e, min_version=0, max_version=0) for o in others]
    return out


def _foreign_updates(leader: VoterNode) -> list[UpdateVoter]:
    """VOTERS-DRIVE-UPGRADE-DIRECTORY's update at a kraft.version-0 leader under 4.1+ rules that
    has committed in its epoch: its lowest other voter under another directory, which the leader
    keeps (the voter found by id alone, VOTERS-RULE-UPGRADE-VOTERS). None elsewhere."""
    if leader.kraft_version >= 1 or not leader.kraft_upgrade or leader.high_watermark is None:
        return []
    others = sorted(v for v in leader.voters if v != leader.id)
    return [UpdateVoter(v, directory_of(v) + WRONG_DIRECTORY, leader.epoch) for v in others[:1]]


def _own_reports(leader: VoterNode, rules: Rules) -> list[UpdateVoter]:
    """VOTERS-DRIVE-OWN-REPORT's update at a kraft.version-0 leader under 4.1+ rules that has
    committed in its epoch: its own, which it accepts and which changes nothing (it knows itself
    from the start of its epoch). None under K6 (``rules.update_names_leader`` off) or elsewhere."""
    if leader.kraft_version >= 1 or not leader.kraft_upgrade or leader.high_watermark is None \
            or not rules.update_names_leader:
        return []
    return [UpdateVoter(leader.id, directory_of(leader.id), leader.epoch)]


def _bad_updates(node: VoterNode, hosts: tuple[int, ...] | list[int]) -> list[UpdateVoter]:
    """UpdateVoter requests every replica refuses (VOTERS-RULE-UPDATE-INPUT): a stale and a future
    leader epoch; at a non-leader its own epoch (NOT_LEADER_OR_FOLLOWER); at the leader no replica
    key, an unknown replica, a non-voter, a voter under another directory, no address on the
    cluster's listener, a version range that is none or leaves out the finalized version."""
    voters = sorted(node.voters) or [hosts[0]]
    v, e = voters[0], node.epoch
    out = [UpdateVoter(v, directory_of(v), e - 1), UpdateVoter(v, directory_of(v), e + 1)]
    if not isinstance(node.role, Leader):
        return [*out, UpdateVoter(v, directory_of(v), e)]
    outsiders = [h for h in hosts if h not in node.voters][:1]
    out += [UpdateVoter(-1, directory_of(v), e), UpdateVoter(v, NO_DIRECTORY, e),
            UpdateVoter(UNKNOWN_REPLICA, directory_of(UNKNOWN_REPLICA), e),
            UpdateVoter(v, directory_of(v) + WRONG_DIRECTORY, e),
            *(UpdateVoter(h, directory_of(h), e) for h in outsiders),
            UpdateVoter(v, directory_of(v), e, listeners="other"), UpdateVoter(v, directory_of(v), e, listeners="none"),
            UpdateVoter(v, directory_of(v), e, min_version=1, max_version=0),
            UpdateVoter(v, directory_of(v), e, min_version=-1, max_version=1),
            UpdateVoter(v, directory_of(v), e, min_version=0, max_version=0),
            UpdateVoter(v, directory_of(v), e, min_version=2, max_version=3)]
    return out


def _malformed_requests(hosts: tuple[int, ...] | list[int]) -> list[AddVoter | RemoveVoter]:
    """AddVoter and RemoveVoter requests that name no replica key (VOTERS-RULE-KEY-VALID: a
    negative id, -1 the "none" of Kafka's ids, or no directory id, Uuid.ZERO_UUID; for a voter
    and a non-voter) or, for AddVoter, no endpoint on the cluster's listener
    (VOTERS-RULE-ADD-ENDPOINT). A leader answers INVALID_REQUEST, any other replica
    NOT_LEADER_OR_FOLLOWER before it looks at the request."""
    return [AddVoter(-1, directory_of(hosts[-1])), AddVoter(hosts[-1], NO_DIRECTORY), AddVoter(hosts[0], NO_DIRECTORY),
            RemoveVoter(-1, directory_of(hosts[0])), RemoveVoter(hosts[0], NO_DIRECTORY),
            AddVoter(hosts[-1], directory_of(hosts[-1]), endpoint=False)]


def _odd_key_requests(leader: VoterNode,
                      hosts: tuple[int, ...] | list[int]) -> list[AddVoter | RemoveVoter | UpdateVoter]:
    """VOTERS-DRIVE-ODD-KEY-PROBE's requests at ``leader``: AddVoter of the last host and
    RemoveVoter of the lowest voter under directory id 0 (a directory like any other: the
    adapter protocol's none is -1), and UpdateVoter of an unknown replica with the range [2, 3]
    (VOTERS-RULE-UPDATE: the range, check 8, before the voter, check 9). Each is refused."""
    v = min(leader.voters) if leader.voters else leader.id
    return [AddVoter(hosts[-1], 0), RemoveVoter(v, 0),
            UpdateVoter(UNKNOWN_REPLICA, directory_of(UNKNOWN_REPLICA), leader.epoch, min_version=2, max_version=3)]


def _crossed_key_requests(leader: Any) -> list[RemoveVoter]:
    """VOTERS-DRIVE-CROSSED-KEY-PROBE's request at ``leader``: RemoveVoter of the lowest voter
    under the highest voter's directory (none with fewer than two voters). A target that finds
    the voter by its directory id alone removes the highest voter."""
    voters = sorted(leader.voters)
    return [RemoveVoter(voters[0], directory_of(voters[-1]))] if len(voters) > 1 else []


def describe_quorum(node: int) -> DescribeQuorumRequest:
    """VOTERS-DRIVE-DESCRIBE: an administrator's DescribeQuorum at ``node`` (replica id -1, its
    answer to no one, RAFT-MODEL-IGNORED-RESPONSES); it changes nothing."""
    return DescribeQuorumRequest(NO_REPLICA, node, True)


def _change_pending(node: VoterNode) -> bool:
    """The leader's last VotersRecord is at or above its high watermark (uncommitted)."""
    last = node.control.voters.last_entry()
    hw = node.high_watermark
    return last is not None and last[0] >= 0 and hw is not None and last[0] >= hw


# ---------------------------------------------------------------------- the log level


def log_events(inp: Input, outputs: tuple[Any, ...], before: VoterNode, after: VoterNode,
               rules: Rules | None = None) -> list[tuple[JSON, JSON, JSON]]:
    """The log-level inputs one node step makes, with outputs and observation after each:
    a restart after a crash, then one per AppendLog, TruncateLog or SnapshotWritten effect
    (the control functions under ``rules``: a Kafka variant trims and truncates as Kafka does)."""
    rules = rules or Rules()
    k2 = not rules.truncate_moves_next_offset
    events: list[tuple[JSON, JSON, JSON]] = []
    control = before.control
    if isinstance(inp, Restart) and isinstance(before.role, Down) and not isinstance(after.role, Down):
        # Rebuilt from snapshot and log (VOTERS-CTRL-REBUILD) as the log was at the restart: a
        # sole voter becomes leader in the same step and appends its LeaderChange after it.
        appended = [out.offset for out in outputs if isinstance(out, AppendLog)]
        control = rebuild(after.static, after.snapshot, after.log[:min(appended)] if appended else after.log)
        events.append(({"type": "Restart"}, [], control_observation(control)))
    for out in outputs:
        if isinstance(out, AppendLog):
            control = read_log(control, out.offset, out.entries) if k2 else handle_records(
                control, out.offset, out.entries)
            entries = [{"epoch": e.epoch, "record": log_record(e.kind, e.payload)} for e in out.entries]
            events.append(({"type": "Append", "base_offset": out.offset, "entries": entries}, [],
                           control_observation(control)))
        elif isinstance(out, TruncateLog):
            control = truncate_to(control, out.offset, keep_next_offset=k2)
            events.append(({"type": "Truncate", "offset": out.offset}, [], control_observation(control)))
        elif isinstance(out, SnapshotWritten):
            control = trim_to(control, out.snapshot, at_end_offset=not rules.trim_before_snapshot_end)
            events.append(({"type": "Snapshot", "end_offset": out.snapshot.end_offset},
                           voters_log.snapshot_written(out.snapshot),
                           control_observation(control)))
    # The derivation must land where the model's replica is (else the driver is wrong).
    assert control_observation(control) == control_observation(after.control), (inp, outputs)
    return events


# ---------------------------------------------------------------------- observation checks


def _sets(history: JSON) -> list[tuple[int, frozenset[tuple[int, int]]]]:
    return [(int(o), frozenset((int(r), int(d)) for r, d in v)) for o, v in history or []]


def _at(history: list[tuple[int, frozenset[tuple[int, int]]]], offset: int) -> frozenset[tuple[int, int]] | None:
    return LogHistory(tuple(history)).value_at_or_before(offset)  # VOTERS-HIST-AT, the model's own floor


def _history_violation(node: Any, obs: JSON, end: int, static: JSON, from_leaders: bool = True) -> str | None:
    """VOTERS-INV-HISTORY-ORDER and -CURRENT-SET; VOTERS-INV-ONE-VOTER-DIFF only for a log that
    correct leaders wrote (``from_leaders``: not the free log's, whose sets are any)."""
    try:
        history = _sets(obs.get("history"))
        voters = frozenset((int(r), int(d)) for r, d in obs.get("voters") or [])
    except (TypeError, ValueError):
        return None  # a malformed observation shows as an observation divergence
    offsets = [o for o, _ in history]
    if any(a >= b for a, b in pairwise(offsets)) or (offsets and (offsets[0] < -1 or offsets[-1] >= end)):
        return (f"VOTERS-INV-HISTORY-ORDER: replica {node}'s history offsets {offsets} do not strictly increase "
                f"within [-1, {end})")
    for (o1, a), (o2, b) in pairwise(history if from_leaders else []):
        if len(a - b) > 1 or len(b - a) > 1:
            return (f"VOTERS-INV-ONE-VOTER-DIFF: replica {node}'s voter sets at {o1} and {o2} differ by more "
                    f"than one voter")
    expected = history[-1][1] if history else frozenset((int(r), int(d)) for r, d in static)
    if voters != expected:
        return (f"VOTERS-INV-CURRENT-SET: replica {node} uses voters {sorted(voters)}, the set in force at its "
                f"log end is {sorted(expected)}")
    return None


def _rebuild_violation(node: Any, before: JSON, after: JSON) -> str | None:
    """VOTERS-INV-REBUILD: the restarted replica answers as it did before the restart, at every
    offset from its rebuilt history's first one (the snapshot's last offset) to the log end."""
    for key in ("kraft_version", "voters"):
        if before.get(key) != after.get(key):
            return f"VOTERS-INV-REBUILD: replica {node}'s {key} changed on restart"
    try:
        old, new = _sets(before.get("history")), _sets(after.get("history"))
    except (TypeError, ValueError):
        return None
    offsets = sorted({o for o, _ in old} | {o for o, _ in new})
    start = new[0][0] if new else (old[0][0] if old else 0)
    for o in (o for o in offsets if o >= start):
        if _at(old, o) != _at(new, o):
            return f"VOTERS-INV-REBUILD: replica {node}'s voter set at offset {o} changed on restart"
    return None


def _raft_violation(node: Any, observations: dict[Any, JSON], memory: dict[str, Any]) -> str | None:
    """KRaft's safety under reconfiguration, on the replicas' observations."""
    leaders: dict[Any, Any] = memory.setdefault("leaders", {})
    obs = observations[node]
    if obs.get("role") == "leader":
        other = leaders.setdefault(obs.get("epoch"), node)
        if other != node:
            return f"VOTERS-INV-ELECTION-SAFETY: replicas {other} and {node} both lead epoch {obs.get('epoch')}"
    hw, log = obs.get("high_watermark"), obs.get("log") or []
    if isinstance(hw, int):
        for other, o in observations.items():
            ohw, olog = o.get("high_watermark"), o.get("log") or []
            upto = min(hw, ohw) if isinstance(ohw, int) else 0
            if other != node and log[:upto] != olog[:upto]:
                return (f"VOTERS-INV-COMMITTED-UNIQUE: replicas {node} and {other} disagree below their high "
                        f"watermarks ({hw}, {ohw})")
    return None

