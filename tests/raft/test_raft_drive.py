"""The raft driver drives more than a correct cluster sends (spec/raft.md, RAFT-DRIVE): injected
requests of every kind at stale, equal and future epochs, from voters, observers and an unknown
replica id, at every role; their coverage is a role x input-kind matrix in the report."""

from __future__ import annotations

from kspec.conformance.drivers.guide import Coverage
from kspec.conformance.drivers.raft import (
    CONFIGS,
    NO_REPLICA,
    UNKNOWN_REPLICA,
    IdleTimer,
    Inject,
    RaftDriver,
    idle_fetches,
    injected_requests,
    input_cell,
    malformed_requests,
    request_cell,
    well_formed_votes,
)
from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets.reference.raft import RaftTarget
from kspec.model.raft.messages import (
    BeginQuorumEpochRequest,
    ElectionTimeout,
    EndQuorumEpochRequest,
    FetchDue,
    FetchRequest,
    VoteRequest,
    VoteResponse,
)
from kspec.model.raft.node import step
from kspec.model.raft.system import Deliver, Fire


def _elect(driver: RaftDriver) -> object:
    """Replica 1 wins epoch 1 (kip-595, three voters and an observer)."""
    state = driver.init_state()
    state = driver.model.next_state(state, Fire(1, ElectionTimeout()))
    for dst in (2, 3):
        vote = next(m for m in state.network.distinct() if isinstance(m, VoteRequest) and m.dst == dst)
        state = driver.model.next_state(state, Deliver(vote))
    answer = next(m for m in state.network.distinct() if m.dst == 1)
    return driver.model.next_state(state, Deliver(answer))


def test_injected_requests_span_kinds_epochs_and_senders() -> None:
    driver = RaftDriver({"voters": 3, "observers": 1, "pre_vote": False, "kip853": False, "faults": True})
    state = _elect(driver)
    assert state.node(1).role_name == "leader" and state.node(1).epoch == 1
    observers = frozenset({4})
    follower = state.node(2)
    injected = injected_requests(state, follower, observers)
    shapes = {(type(m).__name__, m.epoch - follower.epoch, m.src) for m in injected}
    assert {("FetchRequest", d, s) for d in (-1, 0, 1) for s in (1, 4, UNKNOWN_REPLICA)} <= shapes
    assert ("VoteRequest", 1, UNKNOWN_REPLICA) in shapes and ("VoteRequest", 1, 4) in shapes
    malformed = malformed_requests(state, follower)
    well_formed = [m for m in injected if m not in malformed]
    # leader claims only from the elected leader, or stale
    claims = [m for m in well_formed if isinstance(m, BeginQuorumEpochRequest | EndQuorumEpochRequest)]
    assert claims and all(m.epoch < follower.epoch or (m.epoch, m.src) in state.elected for m in claims)
    # every well-formed injected fetch: its last fetched epoch is not above its epoch
    assert all(m.last_fetched_epoch <= m.epoch for m in well_formed if isinstance(m, FetchRequest))
    # the malformed ones (RAFT-RULE-INVALID-REQUEST, RAFT-DRIVE-SENTINEL) are injected too, and the
    # model answers each INVALID_REQUEST without changing the replica
    assert malformed and all(m in injected for m in malformed)
    assert {m.src for m in malformed} >= {-1}
    consumer = [m for m in malformed if isinstance(m, FetchRequest) and m.src < 0]
    assert consumer  # a fetch from replica -1 is well-formed (RAFT-RULE-FETCH-NO-REPLICA) ...
    for m in malformed:
        after, outputs = step(follower, m)
        wanted = "NOT_LEADER_OR_FOLLOWER" if m in consumer and m.epoch == follower.epoch else "INVALID_REQUEST"
        if m in consumer and m.epoch > follower.epoch:
            wanted = "UNKNOWN_LEADER_EPOCH"
        assert after == follower and [getattr(o, "error", None) for o in outputs] == [wanted], m
    # ... and the leader serves it without recording a position for replica -1
    leader = state.node(1)
    served, outputs = step(leader, FetchRequest(-1, 1, 1, 0, 0, True))
    assert served == leader and [getattr(o, "error", None) for o in outputs] == ["NONE"]
    # an injected request's answer is not put in flight (its sender does not await it)
    assert all(m.orphaned for m in injected_requests(state, follower, observers))


def test_a_malformed_fetch_of_a_stale_epoch_is_injected_and_invalid() -> None:
    """RAFT-DRIVE-MALFORMED-STALE-FETCH: the malformed fetch (last fetched epoch above its epoch)
    at the receiver's epoch minus one too, whatever the role: the model answers INVALID_REQUEST
    (the shape before the epoch, RAFT-RULE-INVALID-REQUEST) and changes nothing; a replica that
    fences a stale epoch first (the catalogue's mutant) answers FENCED_LEADER_EPOCH. Its matrix
    cell is ``FetchRequest< malformed``."""
    from kspec.conformance.targets.mutants import CATALOGUE

    driver = RaftDriver({"voters": 3, "observers": 1, "pre_vote": False, "kip853": False, "faults": True})
    state = _elect(driver)
    # replica 1 leads epoch 1, replica 2 follows it; the observer lags in epoch 0 (no stale epoch)
    for replica in (1, 2):
        node = state.node(replica)
        stale = [m for m in malformed_requests(state, node)
                 if isinstance(m, FetchRequest) and m.epoch == node.epoch - 1]
        assert [(m.src, m.last_fetched_epoch) for m in stale] == [(min(v for v in (1, 2, 3) if v != replica), 1)]
        assert stale[0] in injected_requests(state, node, frozenset({4}))
        assert input_cell(node, stale[0]) == (node.role_name, "FetchRequest< malformed")
        after, outputs = step(node, stale[0])
        assert after == node and [getattr(o, "error", None) for o in outputs] == ["INVALID_REQUEST"]
    assert not [m for m in malformed_requests(state, state.node(4)) if isinstance(m, FetchRequest) and m.epoch < 0]
    mutant = CATALOGUE["raft-stale-fetch-fenced-first"].target()
    reference = RaftTarget()
    assert isinstance(mutant, RaftTarget)
    stale = next(m for m in malformed_requests(state, state.node(1)) if isinstance(m, FetchRequest) and m.epoch == 0)
    for target, wanted in ((reference, "INVALID_REQUEST"), (mutant, "FENCED_LEADER_EPOCH")):
        assert _answer_at_epoch_one(target, stale) == wanted


def _answer_at_epoch_one(target: RaftTarget, fetch: FetchRequest) -> str:
    """The error a replica of ``target`` in epoch 1 answers ``fetch`` with."""
    replica = target.replica_class(1, [1, 2, 3], False, False)
    replica.epoch = 1
    out = replica.step({"type": "FetchRequest", "src": fetch.src, "dst": 1, "epoch": fetch.epoch,
                        "fetch_offset": fetch.fetch_offset, "last_fetched_epoch": fetch.last_fetched_epoch})
    return str(next(o["error"] for o in out if o["type"] == "FetchResponse"))


def test_input_cell_names_role_and_epoch_relation() -> None:
    driver = RaftDriver({"voters": 3, "observers": 1, "pre_vote": True, "kip853": True, "faults": True})
    state = driver.init_state()
    observer, voter = state.node(4), state.node(1)
    assert input_cell(observer, VoteRequest(9, 4, 1, 0, 0)) == ("observer unattached", "VoteRequest> log=")
    assert input_cell(voter, VoteRequest(2, 1, 0, 0, 0, True)) == ("unattached", "PreVoteRequest= log=")
    assert input_cell(voter, VoteRequest(2, 1, 0, 0, 1, True)) == ("unattached", "PreVoteRequest= log>")
    assert input_cell(voter, VoteRequest(2, 1, 1, 1, 0)) == ("unattached", "VoteRequest> malformed")
    assert input_cell(voter, ElectionTimeout()) == ("unattached", "ElectionTimeout")


def test_observer_votes_only_under_kip853() -> None:
    for kip853, granted in ((False, False), (True, True)):
        driver = RaftDriver({"voters": 3, "observers": 1, "pre_vote": False, "kip853": kip853, "faults": True})
        observer = driver.init_state().node(4)
        after, outputs = step(observer, VoteRequest(2, 4, 1, 0, 0))
        answer = outputs[-1]
        assert isinstance(answer, VoteResponse) and answer.granted is granted
        assert (after.epoch, answer.error) == ((1, "NONE") if kip853 else (0, "INCONSISTENT_VOTER_SET"))


def test_conform_report_has_the_role_input_matrix() -> None:
    # (24 runs reached every cell below at seed 0 until category idle_fetch joined the draw: 32)
    result = run_conformance("raft", RaftTarget(), examples=32, seed_value=0, out_dir=None, cover="random",
                             liveness=False)
    assert result.verdict == "conforms", result.finding and result.finding.line()
    assert result.coverage is not None
    doc = result.coverage.to_json()
    matrix = doc["matrix"]
    assert {"unattached", "leader", "follower"} <= set(matrix)
    injected = {kind.split()[0] for row in matrix.values() for kind in row
                if kind.split()[0].rstrip("<=>") in ("VoteRequest", "FetchRequest", "BeginQuorumEpochRequest")}
    assert {"VoteRequest<", "VoteRequest=", "VoteRequest>", "FetchRequest<", "FetchRequest=",
            "FetchRequest>", "BeginQuorumEpochRequest<"} <= injected
    assert "role x input" in result.coverage.line()
    # RAFT-DRIVE-FETCH-ELSEWHERE: a follower asked to fetch from a voter other than its leader
    assert "FetchDue elsewhere" in matrix.get("follower", {}), matrix.get("follower")


def test_request_grid_counts_a_cell_reached_only_by_a_replica_of_the_cluster() -> None:
    # RAFT-DRIVE-REQUEST-GRID: every request kind with an epoch x every role x <, =, >; a cell
    # reached only by replica -1 (or 9) is listed empty, with who reached it
    driver = RaftDriver({"voters": 3, "observers": 1, "pre_vote": True, "kip853": True, "faults": True})
    grid = driver.request_grid()
    assert len(grid) == 6 * 10 * 3
    assert {("EndQuorumEpochRequest", "unattached", ">"), ("PreVoteRequest", "prospective", "<"),
            ("VoteRequest", "observer voted", "=")} <= grid
    kip595 = RaftDriver({"voters": 3, "observers": 0, "pre_vote": False, "kip853": False,
                         "faults": True}).request_grid()
    assert len(kip595) == 5 * 6 * 3 and not any(kind == "PreVoteRequest" for kind, _, _ in kip595)
    start = driver.init_state()
    behind = start.node(2)
    assert request_cell(behind, EndQuorumEpochRequest(NO_REPLICA, 2, 1, ())) == (
        "EndQuorumEpochRequest", "unattached", ">", "-1")
    assert request_cell(behind, VoteRequest(UNKNOWN_REPLICA, 2, 1, 0, 0)) == (
        "VoteRequest", "unattached", ">", "unknown")
    assert request_cell(behind, ElectionTimeout()) is None
    coverage = Coverage()
    sentinel = Inject(EndQuorumEpochRequest(NO_REPLICA, 2, 1, (), True))
    coverage.on_step(driver, "c", start, "inject", sentinel, driver.resolve(start, sentinel))
    doc = coverage.to_json()["requests"]
    assert doc["total"] == len(grid) and doc["cells"] == 0
    assert doc["empty"]["EndQuorumEpochRequest > @ unattached"] == "-1"
    assert doc["empty"]["EndQuorumEpochRequest > @ leader"] == "-"
    # RAFT-DRIVE-END-EPOCH-AHEAD's path reaches the cell with a replica's request
    state = start
    for category, action in driver._end_epoch_ahead_probe(start):
        after = driver.resolve(state, action)
        coverage.on_step(driver, "c", state, category, action, after)
        state = after
    doc = coverage.to_json()["requests"]
    assert "EndQuorumEpochRequest > @ unattached" not in doc["empty"]
    assert "EndQuorumEpochRequest > @ observer unattached" not in doc["empty"]
    assert doc["cells"] == len(grid) - len(doc["empty"])
    assert "request x role x epoch" in coverage.line()


def _elect_pre_vote(driver: RaftDriver) -> object:
    """Replica 1 wins epoch 1 through a pre-vote (kip-996): every message delivered in turn."""
    state = driver.model.next_state(driver.init_state(), Fire(1, ElectionTimeout()))
    while state.node(1).role_name != "leader":
        state = driver.model.next_state(state, Deliver(min(state.network.distinct(), key=repr)))
    return state


def test_every_role_is_probed_with_well_formed_votes_of_its_own_epoch() -> None:
    """RAFT-DRIVE-WELL-FORMED: a leader gets a pre-vote of its epoch behind, equal to and ahead of
    its log (a vote of its epoch can only be behind: its log holds its LeaderChange), refuses
    each, and a guided path ending there probes it with one (RAFT-DRIVE-PROBE)."""
    driver = RaftDriver({"voters": 3, "observers": 0, "pre_vote": True, "kip853": True, "faults": False})
    state = _elect_pre_vote(driver)
    leader = state.node(1)
    own = [m for m in well_formed_votes(state, leader) if m.epoch == leader.epoch]
    assert {input_cell(leader, m)[1] for m in own} == {
        "PreVoteRequest= log<", "PreVoteRequest= log=", "PreVoteRequest= log>", "VoteRequest= log<"}
    for m in own:
        after, outputs = step(leader, m)
        assert after == leader and [(o.granted, o.error) for o in outputs] == [(False, "NONE")], m
    # a voter that voted for it and has not heard of its win grants the up-to-date pre-votes
    voter = state.node(2)
    assert voter.role_name == "voted" and voter.end_offset == 0
    answers = {input_cell(voter, m)[1]: step(voter, m)[1][-1].granted
               for m in well_formed_votes(state, voter) if m.pre_vote and m.epoch == voter.epoch}
    assert answers == {"PreVoteRequest= log=": True, "PreVoteRequest= log>": True}
    probed = [a.message for k in range(6) for c, a in driver.probes(state, k)
              if isinstance(a, Inject) and isinstance(a.message, VoteRequest) and a.message.dst == 1
              and a.message.pre_vote and a.message.epoch == leader.epoch]
    assert {input_cell(leader, m)[1] for m in probed} >= {"PreVoteRequest= log=", "PreVoteRequest= log>"}


def test_one_shape_per_rule_set_numbers_replicas_from_zero() -> None:
    """RAFT-DRIVE-ID-ZERO: replica 0 is a voter (and may lead) in a shape of every rule set."""
    zero = [c for c in CONFIGS if c.get("first_id") == 0]
    assert {(c["pre_vote"], c["kip853"]) for c in zero} == {(False, False), (False, True), (True, True)}
    driver = RaftDriver(zero[0])
    assert driver.nodes() == [0, 1, 2, 3] and driver.node_config(0)["voters"] == [0, 1, 2]
    state = driver.model.next_state(driver.init_state(), Fire(0, ElectionTimeout()))
    assert state.node(0).role_name == "candidate" and state.node(3).id == 3


def test_probes_make_an_observer_follow_and_fire_its_idle_timers() -> None:
    """RAFT-DRIVE-PROBE: at a path's end an observer that follows no one catches up with the
    leader first, then gets every timer its role ignores (a fetch timeout at an observer
    following the leader: it must not stand)."""
    config = next(c for c in CONFIGS if c["observers"] and not c["kip853"] and c["faults"])
    driver = RaftDriver(config)
    state = driver.model.next_state(driver.init_state(), Fire(0, ElectionTimeout()))
    while state.node(0).role_name != "leader":
        state = driver.model.next_state(state, Deliver(min(state.network.distinct(), key=repr)))
    probes = driver.probes(state, 0)
    observer = config["voters"]
    assert probes[0][0] == "catch_up"
    timers = [type(a.input).__name__ for c, a in probes if c == "idle_timer" and a.node == observer]
    assert {"FetchTimeout", "ElectionTimeout", "CheckQuorumTimeout"} <= set(timers), timers


def test_every_probe_is_offered_where_it_is_taken() -> None:
    """RAFT-DRIVE-PROBE: a guided run takes a step only if the driver offers it in its category
    (Lockstep.take), so every probe must be a candidate of its category in the state before it;
    one that is not ends the run there and drops the probes after it (session 12's mid-round
    and held-fetch probes, category ``stray``/``redeliver`` but offered in none, never ran)."""
    from kspec.conformance.drivers.macros import HeldFetch, LateVote, Retry

    seen: set[type] = set()
    for config, elect in (({"voters": 3, "observers": 0, "pre_vote": False, "kip853": False, "faults": True}, _elect),
                          ({"voters": 4, "observers": 0, "pre_vote": True, "kip853": True, "faults": True},
                           _elect_pre_vote),
                          # with an observer (test_fetches_due_elsewhere_... meets RAFT-DRIVE-OBSERVER-EPOCH)
                          ({"voters": 3, "observers": 1, "pre_vote": True, "kip853": True, "faults": False},
                           _elect_pre_vote)):
        driver = RaftDriver(config)
        for start in (driver.init_state(), elect(driver)):
            for k in range(6):
                state = start
                for category, action in driver.probes(start, k):
                    assert (category, action) in driver.candidates(state), (k, category, action)
                    state = driver.resolve(state, action)
                    assert state is not None
                    seen.add(type(action))
    assert {LateVote, Retry} <= seen, seen
    # the held fetch answer of the late-copy probe: a follower, its leader's record in flight
    driver = RaftDriver(CONFIGS[0])
    state = _elect(driver)
    begin = next(m for m in state.network.distinct() if isinstance(m, BeginQuorumEpochRequest) and m.dst == 2)
    state = driver.model.next_state(state, Deliver(begin))
    held = [(c, a) for k in range(6) for c, a in driver.probes(state, k) if isinstance(a, HeldFetch)]
    assert held and all(c == "probe" for c, _ in held)


def test_resend_probe_resigns_a_leader_and_retries() -> None:
    """RAFT-DRIVE-RESEND at a path's end: on an even path a leader resigns (check quorum), its
    EndQuorumEpoch to a voter is lost and its resend timer fires: the EndQuorumEpoch again."""
    from kspec.conformance.drivers.macros import Retry
    from kspec.model.raft.messages import CheckQuorumTimeout, ResendDue

    driver = RaftDriver(CONFIGS[0])
    state = _elect(driver)
    probes = driver.probes(state, 0)
    # the retry and the resignation before it (probes that start elections may follow them)
    at = next(i for i, (_, a) in enumerate(probes) if isinstance(a, Retry))
    (resign_category, resign), (retry_category, retry) = probes[at - 1:at + 1]
    assert (resign_category, retry_category) == ("resign", "probe")
    assert resign == Fire(1, CheckQuorumTimeout()) and isinstance(retry, Retry) and retry.node == 1
    before = state
    for _, action in probes[:at]:
        before = driver.resolve(before, action)
    assert before.node(1).role_name == "resigned"
    expansion = driver.expand(before, retry) or []
    fired, after = expansion[-1]
    assert isinstance(fired, Fire) and fired.input == ResendDue(retry.to)
    sent = [m for m in after.network.distinct() if m not in expansion[-2][1].network]
    assert [type(m).__name__ for m in sent] == ["EndQuorumEpochRequest"] and sent[0].dst == retry.to


def test_fetches_due_elsewhere_reach_followers_and_observers() -> None:
    """RAFT-DRIVE-FETCH-ELSEWHERE: FetchDue at every voter a replica must not fetch from (a
    follower's, observer's too, other than its leader; any at a leader, resigned leader,
    candidate or prospective),
    each ignored by the model; none at an observer without a leader (it may ask any voter) nor
    at an unattached voter (Kafka 3.9.1+ asks a bootstrap voter, KAFKA-17030).
    A guided path ends with one at the observer once it follows (red team
    observer-keeps-asking-voters), with or without faults."""
    config = next(c for c in CONFIGS if c["observers"] and c["kip853"] and not c["faults"])
    driver = RaftDriver(config)
    first, observer = driver.nodes()[0], driver.nodes()[-1]
    state = driver.init_state()
    assert idle_fetches(state.node(observer)) == []
    assert idle_fetches(state.node(first)) == []  # unattached voter: Kafka 3.9.1+ asks a bootstrap voter
    state = driver.model.next_state(state, Fire(first, ElectionTimeout()))
    while state.node(first).role_name != "leader":
        state = driver.model.next_state(state, Deliver(min(state.network.distinct(), key=repr)))
    assert state.node(observer).role_name == "unattached"
    at_observer = []
    for k in range(6):
        probes, now = driver.probes(state, k), state
        for category, action in probes:
            assert (category, action) in driver.candidates(now), (k, category, action)
            if category == "idle_fetch":
                assert isinstance(action, IdleTimer) and isinstance(action.input, FetchDue)
                node = now.node(action.node)
                assert step(node, action.input) == (node, ()), action  # ignored by the model
                if action.node == observer:
                    assert node.role_name == "follower" and action.input.to != node.role.leader, action
                    at_observer.append(action.input.to)
            now = driver.resolve(now, action)
            assert now is not None
    assert sorted(set(at_observer)) == driver.nodes()[1:3], at_observer  # the voters but its leader, in turn


def test_crossed_vote_claims_and_a_diverging_fetch_are_injected() -> None:
    """RAFT-DRIVE-WELL-FORMED's crossed claims and RAFT-DRIVE-DIVERGING-FETCH. At a voter of
    epoch 3 whose log ends in epoch 2: a vote of epoch 4 claiming a newer last epoch on a shorter
    log is granted (lexicographic: a log check made field by field refuses it), one claiming an
    older last epoch on a longer log refused. At a leader of epoch 3 that kept a record of epoch
    1: a fetch from replica 9 of epoch 1, one record past that epoch's end, is answered with a
    diverging epoch and changes nothing (a leader bounding the offset by its log end serves it)."""
    from dataclasses import replace as _replace

    from kspec.model.raft.messages import Entry, FetchResponse
    from kspec.model.raft.node import new_node
    from kspec.model.raft.state import Leader, Unattached

    log = (Entry(1, "leader_change"), Entry(1, "data"), Entry(2, "leader_change"))
    voter = _replace(new_node(2, frozenset({1, 2, 3}), kip853=True), log=log, role=Unattached(3))
    driver = RaftDriver({"voters": 3, "observers": 0, "pre_vote": False, "kip853": True, "faults": False})
    state = driver.init_state()
    claims = {(m.last_epoch, m.end_offset): m for m in well_formed_votes(state, voter) if m.epoch == 4}
    assert (3, 2) in claims and (1, 4) in claims  # newer-shorter, older-longer
    assert step(voter, claims[(3, 2)])[1][-1].granted
    assert not step(voter, claims[(1, 4)])[1][-1].granted
    leader = _replace(voter, log=(*log[:2], Entry(3, "leader_change")), role=Leader(3, 2))
    fetches = [m for m in injected_requests(state, leader, frozenset()) if isinstance(m, FetchRequest)
               and m.src == UNKNOWN_REPLICA and m.epoch == 3 and m.fetch_offset > 0]
    assert [(m.fetch_offset, m.last_fetched_epoch) for m in fetches] == [(3, 1)]
    after, outputs = step(leader, fetches[0])
    answer = outputs[-1]
    assert after == leader and isinstance(answer, FetchResponse) and answer.diverging == (1, 2)


def test_new_leader_pre_vote_probe_meets_a_follower_before_its_first_fetch() -> None:
    """RAFT-DRIVE-NEW-LEADER-PRE-VOTE (kip-996, faults), first on paths k % 4 == 2: the followers
    catch up, the leader resigns, a follower that fetched is moved straight to the next epoch's
    follower by an election it does not hear, and is asked an up-to-date pre-vote of that epoch
    before it fetches: the model grants it (a replica that keeps the fetched flag across its
    followings refuses: red team raft_scratch8:pre-vote-fetched-flag-survives-new-epoch)."""
    from kspec.conformance.drivers.macros import ElectWithout
    from kspec.model.raft.state import Follower

    driver = RaftDriver({"voters": 3, "observers": 0, "pre_vote": True, "kip853": True, "faults": True})
    state = _elect_pre_vote(driver)
    for begin in sorted(state.network.distinct(), key=repr):  # both voters follow replica 1
        state = driver.model.next_state(state, Deliver(begin))
    assert not any(isinstance(a, ElectWithout) for _, a in driver.probes(state, 0))
    probes = driver.probes(state, 2)
    at = next(i for i, (_, a) in enumerate(probes) if isinstance(a, ElectWithout))
    assert [c for c, _ in probes[:at]][-3:] == ["resign", "network", "network"]
    moved, vote = probes[at][1], probes[at + 1][1]
    before = state
    for _, action in probes[:at + 1]:
        before = driver.resolve(before, action)
    role = before.node(moved.absent).role
    assert isinstance(role, Follower) and role.epoch == 2 and not role.fetched
    assert isinstance(vote, Inject) and vote.message.pre_vote and vote.message.dst == moved.absent
    assert vote.message.epoch == 2
    answer = step(before.node(moved.absent), vote.message)[1][-1]
    assert isinstance(answer, VoteResponse) and answer.granted


def test_duplicate_vote_probe_delivers_one_grant_twice() -> None:
    """RAFT-DRIVE-DUPLICATE-VOTE: with five voters a guided path ends with a voter standing, one
    grant and a copy of it, each step offered in its category; the candidate holds two votes of
    five and stays a candidate. Nothing with three voters, where a copy cannot decide a majority."""
    from kspec.conformance.drivers.macros import DeliverTwice

    driver = RaftDriver(next(c for c in CONFIGS if c["voters"] == 5))
    start = driver.init_state()
    steps, after = driver._duplicate_vote_probe(start, 0)
    assert [c for c, _ in steps] == ["timer", "deliver", "redeliver"]
    state = start
    for category, action in steps:
        assert (category, action) in driver.candidates(state), (category, action)
        state = driver.resolve(state, action)
    copy = steps[-1][1]
    assert state == after and isinstance(copy, DeliverTwice) and copy.message.granted
    assert state.node(copy.message.dst).role_name == "candidate"
    three = RaftDriver(CONFIGS[0])
    assert three._duplicate_vote_probe(three.init_state(), 0)[0] == []


def test_acked_resend_probe_fires_the_timer_after_a_fetch_acknowledges() -> None:
    """RAFT-DRIVE-RESEND-ACKED: on an odd guided path with faults the leader's voter gets its
    BeginQuorumEpoch, the answer is lost, the voter fetches once, and the leader's resend timer
    for it fires: each step offered in its category; the voter is acknowledged by the fetch
    alone and the model sends nothing at that ResendDue (a leader that counted only the answer
    resends: red team raft_scratch8:resend-ignores-fetch-ack). Nothing on even paths."""
    from kspec.conformance.drivers.raft import idle_resends
    from kspec.model.raft.messages import BeginQuorumEpochResponse, ResendDue
    from kspec.model.raft.state import Leader

    driver = RaftDriver(CONFIGS[0])
    start = _elect(driver)
    assert driver._acked_resend_probe(start, 0) == ([], start)
    steps, after = driver._acked_resend_probe(start, 1)
    assert [c for c, _ in steps][-2:] == ["round_trip", "idle_timer"]
    state = start
    for category, action in steps:
        assert (category, action) in driver.candidates(state), (category, action)
        state = driver.resolve(state, action)
    idle = steps[-1][1]
    assert state == after and isinstance(idle, IdleTimer) and idle.input == ResendDue(idle.input.to)
    leader = state.node(idle.node).role
    assert isinstance(leader, Leader) and idle.input.to in leader.acknowledged
    assert not any(isinstance(m, BeginQuorumEpochResponse) and m.src == idle.input.to
                   for m in after.network.distinct())
    assert step(state.node(idle.node), idle.input)[1] == ()  # RAFT-STEP-RESEND: nothing to send
    # never offered towards a voter that has not answered (the model's own ResendDue is there)
    assert all(i.input.to in leader.acknowledged for i in idle_resends(state, state.node(idle.node)))


def test_snapshots_only_for_a_target_that_declares_them() -> None:
    """RAFT-DRIVE-SNAPSHOT is opt-in (BRIEF compatibility): a target without ``"snapshots"`` in
    its model_config gets the model without snapshots, the categories, node config and start
    probes it always had, and messages without KIP-630's fields; one that declares them gets
    all of it."""
    from kspec.conformance.drivers.raft import wire
    from kspec.model.core.codec import encode
    from kspec.model.raft.messages import FetchResponse

    plain, snapshots = RaftDriver(CONFIGS[0]), RaftDriver({**CONFIGS[0], "snapshots": True})
    assert plain.model.max_log_snapshots == 0 and snapshots.model.max_log_snapshots == 2
    assert "snapshot" not in plain.categories and "snapshot" in snapshots.categories
    assert "snapshots" not in plain.node_config(1) and snapshots.node_config(1)["snapshots"] is True
    assert "RAFT-DRIVE-SNAPSHOT" not in [p.id for p in plain.start_probes()]
    assert "snapshot_id" not in wire(encode(FetchResponse(1, 2, 1, 1, "NONE", 0)))
    assert wire(encode(FetchResponse(1, 2, 1, 1, "NONE", 0, snapshot_id=(2, 1))))["snapshot_id"] == [2, 1]
