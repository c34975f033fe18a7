"""The voter-set system model: exhaustive exploration at the defaults, broken variants caught
with short traces, and node-level reconfiguration checks."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

import pytest

from kspec.model.core.explorer import explore, reachable_states, simulate
from kspec.model.raft.messages import (
    BeginQuorumEpochRequest,
    ElectionTimeout,
    FetchResponse,
    Restart,
    TruncateLog,
    VoteRequest,
    VoteResponse,
)
from kspec.model.raft.state import Down, Election, Follower, Leader, Unattached, Voted
from kspec.model.voters import PROTOCOL
from kspec.model.voters.control import handle_records, voters_entry
from kspec.model.voters.node import (
    NO_DIRECTORY,
    AddVoter,
    ReconfigRejected,
    RemoveVoter,
    Rules,
    make_step,
    new_voter_node,
    observe,
    step,
)
from kspec.model.voters.properties import control_state_rebuilds
from kspec.model.voters.system import Voters
from kspec.model.voters.variants import CATALOGUE

V3 = frozenset({(1, 1), (2, 2), (3, 3)})


WITNESSES = ["LeaderElected", "VoterAdded", "AddedVoterVotes", "VoterRemoved", "RemovedLeaderResigns",
             "UncommittedChangeTruncated", "ObserverAsksBootstrap", "ObserverRediscoversLeader", "SnapshotTaken",
             "BootstrapVotersCommitted"]


def test_defaults_hold_every_property_and_reach_every_witness() -> None:
    """One exploration at the defaults (one test, so xdist runs it once)."""
    result = explore(PROTOCOL.make())
    assert result.complete
    assert result.violations == []
    assert result.distinct_states > 10_000
    assert sorted(result.witnesses) == sorted(WITNESSES)
    assert [w for w in WITNESSES if not result.witnesses[w]] == []


@pytest.mark.parametrize("variant", sorted(v for v, (_, prop, _, _) in CATALOGUE.items() if prop))
def test_variant_caught_with_short_trace(variant: str) -> None:
    """Every variant with a property is caught by exploration (K3's has none: a leader that
    never resigns breaks no safety property; test_voters_kafka_variants holds it at the node
    level)."""
    _, prop, _, bounds = CATALOGUE[variant]
    result = explore(PROTOCOL.variants[variant](**bounds))
    names = [v.name for v in result.violations]
    assert prop in names, names
    assert len(next(v.trace for v in result.violations if v.name == prop)) - 1 <= 25


SMALL = {"max_epoch": 1, "max_elections": 0, "max_fetches": 2, "max_snapshots": 0}


# Bounds with an add, a removal and a snapshot, small enough to enumerate every state and all
# six renamings of each (the orbit, by brute force).
ORBIT_BOUNDS = {"max_epoch": 1, "max_elections": 1, "max_fetches": 2, "max_snapshots": 1}
PERMS = [dict(zip((1, 2, 3), q, strict=True)) for q in itertools.permutations((1, 2, 3))]


def _orbit(s: object) -> frozenset[object]:
    from kspec.model.voters.symmetry import permute

    return frozenset(permute(s, p) for p in PERMS)


STATIC = {"kraft_version": 0, "max_adds": 0, "max_removes": 0, "max_epoch": 2}


@pytest.mark.parametrize("extra", [{}, STATIC], ids=["bootstrapped", "static-voters"])
def test_symmetry_reduction_visits_exactly_the_orbits(extra: dict[str, int]) -> None:
    """Brute force against the symmetric exploration: the states of the full exploration
    grouped into orbits (all renamings of the initial voters), counted. The static-voters case
    has replicas with and without a snapshot side by side (their signatures must still sort)."""
    bounds = {**ORBIT_BOUNDS, **extra}
    states = reachable_states(PROTOCOL.make(symmetry=False, **bounds))
    orbits = {_orbit(s) for s in states}
    reduced = explore(PROTOCOL.make(**bounds))
    assert reduced.complete
    assert reduced.distinct_states == len(orbits) < len(states)


def test_canonical_is_an_orbit_invariant_member_of_the_orbit() -> None:
    """The optimised canonical form (signature sort, memoised renaming) picks a member of the
    orbit, the same one from every renaming of the state; renaming round-trips."""
    from kspec.model.voters.symmetry import permute

    canonical = PROTOCOL.make(**ORBIT_BOUNDS).canonical  # type: ignore[attr-defined]
    rng = random.Random(3)
    states = sorted(reachable_states(PROTOCOL.make(symmetry=False, **ORBIT_BOUNDS)), key=repr)
    for s in rng.sample(states, 300):
        rep = canonical(s)
        assert rep in _orbit(s)
        for p in rng.sample(PERMS, 3):
            assert canonical(permute(s, p)) == rep
            assert permute(permute(s, p), {v: k for k, v in p.items()}) == s


def test_renaming_is_a_symmetry_of_the_properties() -> None:
    """A renamed state satisfies exactly the properties the state does."""
    from kspec.model.voters.symmetry import permute

    model = PROTOCOL.make(symmetry=False, **SMALL)
    p = {1: 2, 2: 3, 3: 1}
    for s in list(reachable_states(model))[:300]:
        t = permute(s, p)
        for prop in model.properties():
            if prop.kind in ("always", "sometimes"):
                assert prop.holds(s) == prop.holds(t), prop.name


def test_started_quorum_is_reached_from_formatted() -> None:
    """VOTERS-MODEL-START: the started state is reachable from the formatted one, and the
    formatted start holds every property at small bounds."""
    formatted = PROTOCOL.make(started=False, hosts=3, voters=2, max_epoch=1, max_inflight=1, max_fetches=5,
                              max_elections=1, max_adds=0, max_removes=0, max_snapshots=0, symmetry=False)
    started = PROTOCOL.make(hosts=3, voters=2).init_states()[0]
    assert any(s.nodes == started.nodes and s.network == started.network for s in reachable_states(formatted))
    result = explore(formatted)
    assert result.complete and not result.violations and result.witnesses["LeaderElected"]


def _follower_with_uncommitted_change(rules: Rules):  # type: ignore[no-untyped-def]
    """Replica 2 follows 1 in epoch 1 and holds an uncommitted VotersRecord at offset 1."""
    n = new_voter_node(2, V3, bootstrap=True)
    from kspec.model.raft.messages import Entry

    log = (Entry(1, "leader_change"), voters_entry(1, V3 - {(3, 3)}))
    control = handle_records(n.control, 0, log)
    n = replace(n, log=log, control=control, role=Follower(2, 3), voters=frozenset({1, 2}))
    return n


def test_history_not_truncated_is_caught_at_node_level() -> None:
    """The new leader (3, epoch 2) answers with a diverging epoch: the follower truncates the
    VotersRecord away. Kafka's rules drop it from the history; the broken variant keeps it,
    which ControlStateRebuilds catches."""
    resp = FetchResponse(3, 2, 2, 3, "NONE", 2, (), None, (1, 1))
    for rules, ok in ((Rules(), True), (Rules(truncate_history=False), False)):
        n = _follower_with_uncommitted_change(rules)
        after, outputs = make_step(rules=rules)(n, resp)
        assert TruncateLog(1) in outputs
        assert after.voters == (frozenset({1, 2, 3}) if ok else frozenset({1, 2}))
        state = Voters((after,), initial_voters=frozenset({1, 2, 3}))
        assert control_state_rebuilds.holds(state) is ok


def test_reconfiguration_refused_where_kafka_refuses() -> None:
    n = new_voter_node(1, V3, bootstrap=True)
    _, out = step(n, AddVoter(4, 4))
    assert out == (ReconfigRejected("add_voter", 4, "NOT_LEADER_OR_FOLLOWER"),)
    leader = replace(n, role=Leader(1, 0), log=(), high_watermark=None)
    _, out = step(leader, AddVoter(4, 4))
    assert out == (ReconfigRejected("add_voter", 4, "REQUEST_TIMED_OUT"),)
    static = new_voter_node(1, V3, bootstrap=False)
    _, out = step(replace(static, role=Leader(1, 0), high_watermark=1), RemoveVoter(3, 3))
    assert out == (ReconfigRejected("remove_voter", 3, "UNSUPPORTED_VERSION"),)
    committed = replace(leader, high_watermark=1)
    _, out = step(committed, AddVoter(2, 2))
    assert out == (ReconfigRejected("add_voter", 2, "DUPLICATE_VOTER"),)
    _, out = step(committed, RemoveVoter(4, 4))
    assert out == (ReconfigRejected("remove_voter", 4, "VOTER_NOT_FOUND"),)
    after, out = step(committed, RemoveVoter(3, 3))
    assert after.voters == frozenset({1, 2}) and out[0].entries[0].kind == "voters"  # type: ignore[union-attr]
    # A second change while the first is uncommitted is refused.
    _, out = step(after, AddVoter(3, 3))
    assert out == (ReconfigRejected("add_voter", 3, "REQUEST_TIMED_OUT"),)


def test_observe_adds_voters_and_history() -> None:
    n, _ = step(new_voter_node(1, V3, bootstrap=True), ElectionTimeout())
    obs = observe(n)
    assert obs["voters"] == [1, 2, 3]
    assert obs["history"] == [[-1, [1, 2, 3]]]
    assert obs["role"] == "candidate"


def test_simulate_is_deterministic() -> None:
    a = simulate(PROTOCOL.make(), seed=7, steps=60, traces=3)
    b = simulate(PROTOCOL.make(), seed=7, steps=60, traces=3)
    assert a.violations == [] and a.steps == b.steps and a.traces == b.traces


def test_add_voter_without_endpoint_is_invalid_at_the_leader_only() -> None:
    """VOTERS-RULE-ADD-ENDPOINT: after the leadership check, before the handler's rules."""
    n = new_voter_node(1, V3, bootstrap=True)
    _, out = step(n, AddVoter(4, 4, endpoint=False))
    assert out == (ReconfigRejected("add_voter", 4, "NOT_LEADER_OR_FOLLOWER"),)
    leader = replace(n, role=Leader(1, 0), log=(), high_watermark=None)
    _, out = step(leader, AddVoter(4, 4, endpoint=False))
    assert out == (ReconfigRejected("add_voter", 4, "INVALID_REQUEST"),)


def test_request_without_a_replica_key_is_invalid_at_the_leader_only() -> None:
    """VOTERS-RULE-KEY-VALID: a negative id or no directory id (NO_DIRECTORY) is INVALID_REQUEST
    after the leadership check, before the endpoint check and the handlers' rules (a voter's id
    without a directory is not DUPLICATE_VOTER, nor VOTER_NOT_FOUND)."""
    n = new_voter_node(1, V3, bootstrap=True)
    _, out = step(n, AddVoter(-1, 4))
    assert out == (ReconfigRejected("add_voter", -1, "NOT_LEADER_OR_FOLLOWER"),)
    leader = replace(n, role=Leader(1, 0), log=(), high_watermark=None)
    for inp, name in [(AddVoter(-1, 4), "add_voter"), (AddVoter(4, NO_DIRECTORY, endpoint=False), "add_voter"),
                      (AddVoter(1, NO_DIRECTORY), "add_voter"), (RemoveVoter(-1, 1), "remove_voter"),
                      (RemoveVoter(2, NO_DIRECTORY), "remove_voter")]:
        _, out = step(leader, inp)
        assert out == (ReconfigRejected(name, inp.replica, "INVALID_REQUEST"),), inp


def test_open_vote_across_voter_sets() -> None:
    """VOTERS-RULE-OPEN-VOTE: a replica grants a vote to a candidate outside its voter set, and
    a replica outside its own set votes too (KIP-853)."""
    n = new_voter_node(3, frozenset({(1, 1), (2, 2)}), bootstrap=True)  # an observer of {1, 2}
    after, out = step(n, VoteRequest(4, 3, 1, 0, 0))
    assert isinstance(after.role, Voted) and after.role.voted_for == 4
    assert any(isinstance(o, VoteResponse) and o.granted for o in out)


def test_restart_with_leader_outside_the_set_is_unattached_with_that_leader() -> None:
    """VOTERS-RULE-LEADER-UNREACHABLE: Kafka's QuorumState.initialize; the leader is kept, no
    vote of its epoch is granted, and the leader's BeginQuorumEpoch makes it a follower."""
    n = new_voter_node(2, frozenset({(2, 2), (3, 3)}), bootstrap=True)
    down = replace(n, role=Down(Election(1, leader=1)))
    up, _ = step(down, Restart())
    assert up.role == Unattached(1, leader=1) and observe(up)["leader"] == 1
    refused, out = step(up, VoteRequest(3, 2, 1, 0, 0))
    assert refused.role == up.role and not any(isinstance(o, VoteResponse) and o.granted for o in out)
    followed, _ = step(up, BeginQuorumEpochRequest(1, 2, 1))
    assert isinstance(followed.role, Follower) and followed.role.leader == 1
    # A leader inside the set is followed at once, as before.
    inside, _ = step(replace(down, role=Down(Election(1, leader=3))), Restart())
    assert isinstance(inside.role, Follower) and inside.role.leader == 3


def test_lone_voter_is_elected_at_its_first_start() -> None:
    """VOTERS-MODEL-LONE-VOTER: Kafka's initialize() elects a lone voter, which writes the
    bootstrap set as a first leader."""
    formatted = PROTOCOL.make(hosts=2, voters=1, started=False).init_states()[0]
    lone = formatted.node(1)
    assert isinstance(lone.role, Leader) and [e.kind for e in lone.log] == ["leader_change", "kraft_version", "voters"]


def test_observer_without_leader_asks_a_bootstrap_server() -> None:
    """VOTERS-RULE-OBSERVER-BOOTSTRAP: an observer without a leader fetches from a server of
    controller.quorum.bootstrap.servers (the initial voters), not from the set in force: after
    voter 2 is added, replica 3 still asks replica 1 only (Kafka's maybeSendAnyVoterFetch)."""
    from kspec.model.raft.messages import FetchDue, FetchRequest
    from kspec.model.raft.system import Fire

    n = new_voter_node(3, frozenset({(1, 1)}), bootstrap=True)
    grown = replace(n, voters=frozenset({1, 2}))
    assert isinstance(grown.role, Unattached) and grown.bootstrap_servers == {1}
    assert step(grown, FetchDue(2))[1] == ()
    assert step(grown, FetchDue(1))[1] == (FetchRequest(3, 1, 0, 0, 0),)
    # A removed bootstrap server is still asked.
    gone = replace(n, voters=frozenset({2}))
    assert step(gone, FetchDue(1))[1] == (FetchRequest(3, 1, 0, 0, 0),)
    # The system offers the bootstrap servers as targets, once each.
    model = PROTOCOL.make(hosts=3, voters=1, started=False)
    s = model.init_states()[0]
    s = replace(s, nodes=tuple(replace(x, voters=frozenset({1, 2})) if x.id == 3 else x for x in s.nodes))
    targets = [a.input.to for a in model.actions(s) if isinstance(a, Fire) and a.node == 3
               and isinstance(a.input, FetchDue)]
    assert targets == [1]
