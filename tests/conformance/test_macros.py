"""The KRaft drivers' macros (conformance/drivers/macros.py): each expands into actions the
model enables one after the other, lands where those actions land, and does what its name
says from the states that need it."""

from __future__ import annotations

import random
import typing
from typing import Any

import pytest

from kspec.conformance.drivers import PROTOCOLS, macros
from kspec.conformance.drivers.voters import CONFIGS, StartUp, VotersDriver
from kspec.conformance.harness import Lockstep
from kspec.conformance.targets.registry import reference_target
from kspec.model.raft.state import Follower, Leader
from kspec.model.raft.system import Deliver, Fire
from kspec.model.voters.control import VOTERS
from kspec.model.voters.node import AddVoter, RemoveVoter, directory_of


def _started(config: dict[str, object] | None = None) -> tuple[VotersDriver, object]:
    driver = VotersDriver({**CONFIGS[0], **(config or {})})
    return driver, driver.resolve(driver.init_state(), StartUp())


def _then(driver: VotersDriver, state: object, action: object) -> object:
    after = driver.resolve(state, action)
    assert after is not None, driver.describe(action)
    return after


def _check_expansion(driver: Any, state: Any, macro: macros.Macro) -> None:
    """Brute force: every action of the expansion is one the model offers (or a delivery of a
    message in flight) in the state before it, and resolving it gives the state after it."""
    expansion = driver.expand(state, macro)
    assert expansion, macro
    before = state
    for action, after in expansion:
        offered = list(driver.model.actions(before))
        assert action in offered or (isinstance(action, Deliver) and action.message in before.network), action
        assert driver.resolve(before, action) == after
        before = after
    assert driver.resolve(state, macro) == expansion[-1][1]


def test_round_trip_is_fetch_request_response() -> None:
    driver, state = _started()
    expansion = driver.expand(state, macros.RoundTrip(2))
    assert expansion is not None
    kinds = [type(a.input if isinstance(a, Fire) else a.message).__name__ for a, _ in expansion]
    assert kinds == ["FetchDue", "FetchRequest", "FetchResponse"]
    _check_expansion(driver, state, macros.RoundTrip(2))


def test_replicate_commits_a_self_removal_and_the_leader_resigns() -> None:
    driver, state = _started()
    state = _then(driver, state, Fire(1, RemoveVoter(1, directory_of(1))))
    after = _then(driver, state, macros.Replicate(1))
    assert not isinstance(after.node(1).role, Leader)  # VOTERS-RULE-REMOVED-LEADER
    assert all(n.log == after.node(1).log for n in after.nodes[1:3])
    _check_expansion(driver, state, macros.Replicate(1))


def test_depose_truncates_the_old_leaders_voter_change() -> None:
    driver, state = _started()
    state = _then(driver, state, Fire(1, AddVoter(4, directory_of(4))))
    assert [c for c, m in macros.candidates(state) if c == "depose"] == ["depose", "depose"]
    after = _then(driver, state, macros.Depose(1, 2))
    assert isinstance(after.node(2).role, Leader)
    old = after.node(1)
    assert isinstance(old.role, Follower) and old.role.leader == 2
    # The AddVoter(4) change is gone; the first leader's bootstrap VotersRecord
    # (VOTERS-RULE-FIRST-LEADER) is in both logs.
    assert all(e.kind != VOTERS or e in after.node(2).log for e in old.log) and old.log[:2] == after.node(2).log[:2]
    _check_expansion(driver, state, macros.Depose(1, 2))
    # The target gets one event per model action, labelled with it (the counterexample's steps).
    events = driver.events(state, macros.Depose(1, 2), after)
    expansion = driver.expand(state, macros.Depose(1, 2)) or []
    assert [e.label for e in events] == [driver.describe(a) for a, _ in expansion]


def test_depose_needs_a_shorter_follower_and_a_win() -> None:
    driver, state = _started()
    assert not [m for c, m in macros.candidates(state) if c == "depose"]  # every log equal
    assert driver.resolve(state, macros.Depose(1, 2)) is None
    # Pre-vote: a follower that hears from its leader refuses the pre-vote, so nobody wins.
    driver, state = _started({"pre_vote": True})
    state = _then(driver, state, Fire(1, AddVoter(4, directory_of(4))))
    assert driver.resolve(state, macros.Depose(1, 2)) is None


# Every configuration with more than one replica (a lone replica has no one to fetch from).
RANDOM_WALKS = [("voters", k) for k in range(len(CONFIGS))] + [
    ("raft", k) for k, c in enumerate(PROTOCOLS["raft"]().configs) if int(c["voters"]) + int(c["observers"]) > 1]


@pytest.mark.parametrize(("protocol", "config"), RANDOM_WALKS)
def test_every_enabled_macro_expands_into_model_actions(protocol: str, config: int) -> None:
    """Random walks through the lockstep (the reference as target): at every state, every
    macro the driver enables passes the brute-force expansion check."""
    spec = PROTOCOLS[protocol]()
    rng = random.Random(config)
    checked = 0
    # Six walks, and more while none met a macro: with four voters and pre-vote a short random
    # walk rarely elects anyone (three of four must grant), and macros need a leader.
    for walk in range(40):
        if walk >= 6 and checked:
            break
        driver = spec.driver(dict(spec.configs[config]))
        session = Lockstep(driver, reference_target(protocol))
        for category in getattr(driver, "opening", ()):
            session.apply(category, 0)
        # Long enough for a pre-vote election among the injected and idle inputs (raft: 120 since
        # session 22's injected requests; at 60 no walk of four voters with pre-vote elected anyone).
        for _ in range(120 if protocol == "raft" else 60):
            # (raft's redeliver ends with a copy of a response, which is no model action)
            for category in macros.CATEGORIES + (("catch_up", "stray") if protocol == "raft" else ()):
                for macro, _after in session.enabled(category):
                    _check_expansion(driver, session.state, macro)
                    checked += 1
            live = [c for c in driver.categories if session.has_enabled(c)]
            if not live:
                break
            session.apply(rng.choice(live), rng.randrange(256))
        session.close()
    assert checked > 0


def _raft_path(config: dict[str, object], picks: list[tuple[str, Any]]) -> tuple[Any, Any]:
    """The raft driver and the state after ``picks``: (category, predicate on the action), the
    first candidate of the category the predicate accepts and the model enables."""
    from kspec.conformance.drivers.raft import CONFIGS as RAFT_CONFIGS
    from kspec.conformance.drivers.raft import RaftDriver

    driver = RaftDriver({**RAFT_CONFIGS[0], **config})
    state = driver.init_state()
    for category, pred in picks:
        state = next(after for c, a in driver.candidates(state)
                     if c == category and pred(a) and (after := driver.resolve(state, a)) is not None)
    return driver, state


def _delivers(kind: str, dst: int) -> Any:
    return lambda a: isinstance(a, Deliver) and type(a.message).__name__ == kind and a.message.dst == dst


def test_depose_committed_answers_the_old_leader_with_a_known_high_watermark() -> None:
    """RAFT-DRIVE-SHAPES: replica 3 deposes replica 1, replica 2 commits epoch 2 first, and
    replica 1's diverging fetch is answered with HW 1: it truncates its record and keeps HW 1
    capped by its log end (RAFT-RULE-HW-FOLLOWER)."""
    driver, state = _raft_path({"faults": False}, [
        ("timer", lambda a: a.node == 1), ("deliver", _delivers("VoteRequest", 2)),
        ("deliver", _delivers("VoteResponse", 1)), ("deliver", _delivers("BeginQuorumEpochRequest", 3)),
        ("deliver", _delivers("BeginQuorumEpochRequest", 2)), ("client", lambda a: True)])
    macro = macros.DeposeCommitted(1, 3)
    assert ("depose", macro) in driver.candidates(state)
    _check_expansion(driver, state, macro)
    expansion = driver.expand(state, macro) or []
    diverging = [a.message for a, _ in expansion if isinstance(a, Deliver)
                 and type(a.message).__name__ == "FetchResponse" and a.message.dst == 1 and a.message.diverging]
    assert diverging and diverging[0].high_watermark == 1
    after = expansion[-1][1]
    assert after.node(1).high_watermark == 1 and [e.kind for e in after.node(1).log] == ["leader_change"]


def test_stray_campaign_of_a_voter_behind_loses() -> None:
    """A voter that voted in epoch 1 and never heard of its leader, behind the others' logs
    once they replicated a record, stands (pre-vote) and is rejected: macros.StrayCampaign."""
    driver, state = _raft_path({"pre_vote": True, "kip853": True, "faults": False}, [
        ("timer", lambda a: a.node == 1), ("deliver", _delivers("VoteRequest", 2)),
        ("deliver", _delivers("VoteResponse", 1)), ("deliver", _delivers("VoteRequest", 2)),
        ("deliver", _delivers("VoteResponse", 1)), ("deliver", _delivers("BeginQuorumEpochRequest", 3)),
        ("round_trip", lambda a: a.node == 3)])
    macro = macros.StrayCampaign(2)
    assert ("stray", macro) in driver.candidates(state)
    _check_expansion(driver, state, macro)
    assert not isinstance((driver.expand(state, macro) or [])[-1][1].node(2).role, Leader)


def test_canvass_then_stray_campaign_loses_and_keeps_the_vote() -> None:
    """RAFT-KIP996-LOSS reached in four macros: replica 1 leads epoch 1 (replica 2 follows it
    but never fetched), replica 3 catches up; replica 3 canvasses replica 2 alone, which votes
    for it in epoch 2 (macros.Canvass); replica 2's own campaign is rejected on the log check
    by the candidate and by the old leader, neither naming a leader, so it loses and keeps its
    vote for replica 3 (the red-team's prospective-loss-forgets-vote forgets it)."""
    from kspec.model.raft.state import Prospective, Voted

    driver, state = _raft_path({"pre_vote": True, "kip853": True, "faults": False, "voters": 3}, [
        ("timer", lambda a: a.node == 1), ("deliver", _delivers("VoteRequest", 2)),
        ("deliver", _delivers("VoteResponse", 1)), ("deliver", _delivers("VoteRequest", 2)),
        ("deliver", _delivers("VoteResponse", 1)), ("deliver", _delivers("BeginQuorumEpochRequest", 2)),
        ("deliver", _delivers("BeginQuorumEpochRequest", 3)),
        # (their acknowledgements are in flight while a resend may follow: RAFT-RULE-RESEND)
        ("deliver", _delivers("BeginQuorumEpochResponse", 1)), ("deliver", _delivers("BeginQuorumEpochResponse", 1)),
        ("round_trip", lambda a: a.node == 3)])
    canvass = macros.Canvass(3, 2)
    assert ("stray", canvass) in driver.candidates(state)
    _check_expansion(driver, state, canvass)
    expansion = driver.expand(state, canvass) or []
    roles = [after.node(2).role for _, after in expansion]
    voted = next(r for r in roles if isinstance(r, Voted))
    assert voted.voted_for == 3 and voted.epoch == 2
    assert any(isinstance(r, Prospective) for r in roles[roles.index(voted):])  # it stood
    assert roles[-1] == voted  # and lost, keeping its vote


def test_late_copy_of_a_fetch_answer_arrives_after_the_high_watermark_moved() -> None:
    """RAFT-DRIVE-LATE-COPY: with an observer caught up alone past the voters, its answer at the
    log end carries the old high watermark; the voters then commit, the observer's next answer
    raises its HW, and the first answer's copy arrives last and changes nothing."""
    from kspec.model.raft.messages import ClientAppend, FetchResponse

    driver, state = _raft_path({"observers": 1, "faults": True}, [
        ("timer", lambda a: a.node == 1), ("deliver", _delivers("VoteRequest", 2)),
        ("deliver", _delivers("VoteResponse", 1)), ("deliver", _delivers("BeginQuorumEpochRequest", 2)),
        ("deliver", _delivers("BeginQuorumEpochRequest", 3)), ("replicate", lambda a: True),
        ("client", lambda a: isinstance(a.input, ClientAppend))])
    macro = macros.DeliverLate(4)
    assert ("redeliver", macro) in driver.candidates(state)
    expansion = driver.expand(state, macro) or []
    last, after = expansion[-1]
    assert isinstance(last, macros.Redeliver) and isinstance(last.message, FetchResponse)
    before = expansion[-2][1]
    assert last.message.high_watermark is not None and last.message.high_watermark < before.node(4).high_watermark
    assert after == before  # the copy changes nothing
    for action, later in expansion[:-1]:  # the rest are model actions (as _check_expansion)
        assert action in list(driver.model.actions(state)) or (
            isinstance(action, Deliver) and action.message in state.network), action
        assert driver.resolve(state, action) == later
        state = later


def test_elect_without_moves_the_old_leader_straight_to_the_next_epochs_follower() -> None:
    """RAFT-DRIVE-ELECT-WITHOUT: replica 2 wins epoch 2 with replica 3's vote alone; replica 1,
    which led epoch 1 and knows a high watermark, hears of it first by BeginQuorumEpoch."""
    driver, state = _raft_path({"faults": False}, [
        ("timer", lambda a: a.node == 1), ("deliver", _delivers("VoteRequest", 2)),
        ("deliver", _delivers("VoteResponse", 1)), ("deliver", _delivers("BeginQuorumEpochRequest", 2)),
        ("deliver", _delivers("BeginQuorumEpochRequest", 3)), ("replicate", lambda a: True)])
    assert state.node(1).high_watermark
    macro = macros.ElectWithout(2, 1)
    assert ("stray", macro) in driver.candidates(state)
    _check_expansion(driver, state, macro)
    expansion = driver.expand(state, macro) or []
    roles = [after.node(1).role for _, after in expansion]
    assert all(isinstance(r, Leader) and r.epoch == 1 for r in roles[:-1])
    assert isinstance(roles[-1], Follower) and roles[-1].epoch == 2 and roles[-1].leader == 2


def test_late_fetch_copy_reaches_the_leader_after_the_follower_caught_up() -> None:
    """RAFT-DRIVE-LATE-COPY, request side: replica 2's duplicated fetch at offset 1 reaches the
    leader after replica 2 caught up to 2 and the leader's high watermark moved to 2; the
    leader answers it and keeps its high watermark (RAFT-RULE-HW)."""
    from kspec.model.raft.messages import ClientAppend, FetchRequest

    driver, state = _raft_path({"faults": True}, [
        ("timer", lambda a: a.node == 1), ("deliver", _delivers("VoteRequest", 2)),
        ("deliver", _delivers("VoteResponse", 1)), ("deliver", _delivers("BeginQuorumEpochRequest", 2)),
        ("deliver", _delivers("BeginQuorumEpochRequest", 3)), ("replicate", lambda a: True),
        ("client", lambda a: isinstance(a.input, ClientAppend))])
    macro = macros.LateFetch(2)
    assert ("redeliver", macro) in driver.candidates(state)
    _check_expansion(driver, state, macro)
    expansion = driver.expand(state, macro) or []
    (last, after), before = expansion[-1], expansion[-2][1]
    assert isinstance(last, Deliver) and isinstance(last.message, FetchRequest) and last.message.fetch_offset == 1
    assert before.node(1).high_watermark == after.node(1).high_watermark == 2


def test_stale_vote_answer_arrives_after_the_candidate_stood_again() -> None:
    """RAFT-DRIVE-STALE-ANSWER: replica 2's grant of epoch 1 is held while candidate 1 backs off
    and stands in epoch 2; its copy then changes nothing (RAFT-RULE-STALE-EPOCH)."""
    from kspec.model.raft.messages import VoteResponse
    from kspec.model.raft.state import Candidate

    driver, state = _raft_path({"faults": True}, [
        ("timer", lambda a: a.node == 1), ("deliver", _delivers("VoteRequest", 2))])
    grant = next(m for m in state.network.distinct() if isinstance(m, VoteResponse))
    macro = macros.Stale(grant)
    assert ("redeliver", macro) in driver.candidates(state)
    expansion = driver.expand(state, macro) or []
    (last, after), before = expansion[-1], expansion[-2][1]
    assert isinstance(last, macros.Redeliver) and last.message == grant and after == before
    role = after.node(1).role
    assert isinstance(role, Candidate) and role.epoch == 2 and role.granted == {1}


def test_every_macro_has_a_row_in_the_table() -> None:
    """macros.MACROS (expander, description) has a row for every macro of the union and no
    other: ``expand`` and ``describe`` read it (a session-11 isinstance chain sent an unlisted
    macro to the campaign expander)."""
    assert set(macros.MACRO_TYPES) == set(typing.get_args(macros.Macro))
    assert macros.describe(macros.ElectWithout(2, 1)) == \
        "replica 2: campaign and win without replica 1, which then hears of it"


def test_first_answer_leaves_a_prospective_mid_round() -> None:
    """RAFT-DRIVE-MID-ROUND: with four voters and pre-vote, replica 1 stands and only replica
    2's grant arrives: two of four is no majority, so it is still prospective, the grant
    counted and its requests to 3 and 4 on the wire."""
    from kspec.model.raft.messages import VoteRequest
    from kspec.model.raft.state import Prospective

    driver, state = _raft_path({"voters": 4, "pre_vote": True, "kip853": True}, [])
    macro = macros.FirstAnswer(1, 2)
    assert ("stray", macro) in macros.mid_round_candidates(state)
    _check_expansion(driver, state, macro)
    after = driver.resolve(state, macro)
    role = after.node(1).role
    assert isinstance(role, Prospective) and role.granted == {1, 2}
    assert {m.dst for m in after.network.distinct() if isinstance(m, VoteRequest)} == {3, 4}
    # with three voters one grant decides: not a first answer
    driver, state = _raft_path({"voters": 3, "pre_vote": True, "kip853": True}, [])
    assert driver.resolve(state, macros.FirstAnswer(1, 2)) is None


def test_abandon_round_counts_the_next_round_afresh() -> None:
    """RAFT-DRIVE-MID-ROUND: four voters with pre-vote; replica 1's first round counts replica
    2's grant, its timer expires (no leader known: it asks again) and the new round's requests
    and answers are delivered: it needs three grants of the new round, not two."""
    from kspec.model.raft.state import Candidate, Leader

    driver, state = _raft_path({"voters": 4, "pre_vote": True, "kip853": True}, [])
    macro = macros.AbandonRound(1, 2)
    _check_expansion(driver, state, macro)
    expansion = driver.expand(state, macro) or []
    kinds = [type(a.input if isinstance(a, Fire) else a.message).__name__ for a, _ in expansion]
    assert kinds[:4] == ["ElectionTimeout", "VoteRequest", "VoteResponse", "ElectionTimeout"]
    assert "VoteRequest" in kinds[4:]
    assert isinstance(expansion[-1][1].node(1).role, Candidate | Leader)


def test_late_vote_arrives_after_the_candidate_stood_again() -> None:
    """RAFT-DRIVE-MID-ROUND, a held answer: candidate 1's request to 2 is granted in epoch 1;
    the grant is held while 1 backs off and stands in epoch 2, then its copy arrives and
    changes nothing (RAFT-RULE-STALE-EPOCH)."""
    from kspec.model.raft.messages import VoteResponse
    from kspec.model.raft.state import Candidate

    driver, state = _raft_path({"faults": True}, [])
    expansion = driver.expand(state, macros.LateVote(1, 2)) or []
    (last, after), before = expansion[-1], expansion[-2][1]
    assert isinstance(last, macros.Redeliver) and isinstance(last.message, VoteResponse)
    assert last.message.granted and last.message.epoch == 1 and after == before
    role = after.node(1).role
    assert isinstance(role, Candidate) and role.epoch == 2 and role.granted == {1}


def test_held_fetch_answer_arrives_after_its_leader_won_again() -> None:
    """RAFT-DRIVE-STALE-ANSWER at a path's end: replica 2's answer from leader 1 (epoch 1, the
    client record in it) is held while 1 resigns and wins epoch 2, which 2 follows again; the
    copy then changes nothing (RAFT-RULE-STALE-EPOCH: older records are not appended)."""
    from kspec.model.raft.messages import ClientAppend, FetchResponse

    driver, state = _raft_path({"faults": True}, [
        ("timer", lambda a: a.node == 1), ("deliver", _delivers("VoteRequest", 2)),
        ("deliver", _delivers("VoteResponse", 1)), ("deliver", _delivers("BeginQuorumEpochRequest", 2)),
        ("deliver", _delivers("BeginQuorumEpochRequest", 3)), ("replicate", lambda a: True),
        ("client", lambda a: isinstance(a.input, ClientAppend))])
    expansion = driver.expand(state, macros.HeldFetch(2)) or []
    (last, after), before = expansion[-1], expansion[-2][1]
    assert isinstance(last, macros.Redeliver) and isinstance(last.message, FetchResponse)
    assert last.message.epoch == 1 and last.message.entries and after == before
    role = after.node(2).role
    assert isinstance(role, Follower) and role.epoch == 2 and role.leader == 1
