"""Model-guided runs (conformance/drivers/guide.py), the output order (ordering.py), refused
configurations and the report's counts (runner.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lockstep_paths import diverges

from kspec.conformance.adapters.base import JSON, StepResult, Target, TargetError
from kspec.conformance.drivers import PROTOCOLS, RunLog, attach, config_key, guide, macros
from kspec.conformance.drivers.ordering import PERSIST_BEFORE_SEND, SNAPSHOT_LOADED_BEFORE_COMMIT
from kspec.conformance.drivers.raft import CONFIGS as RAFT_CONFIGS
from kspec.conformance.drivers.raft import input_cell
from kspec.conformance.drivers.runner import _guided_plans, run_conformance
from kspec.conformance.drivers.voters import Unstarted
from kspec.conformance.harness import Divergence, Lockstep, order_violation
from kspec.conformance.targets.mutants import CATALOGUE
from kspec.conformance.targets.registry import reference_target
from kspec.model.raft.messages import Crash, EndQuorumEpochRequest, ResendDue
from kspec.model.raft.state import Leader


def test_guided_paths_take_every_transition_of_a_complete_graph() -> None:
    # One streams instance: the whole graph fits, so enough paths take all of it.
    spec = PROTOCOLS["streams"]()
    config = {"instances": 1, "partitions": 2, "standbys": 0}
    driver = spec.driver(config)
    graph = guide.explore(driver, 1000)
    assert graph.complete and len(graph.edges) > 20
    paths = guide.plan(graph, 60, 1000)
    coverage = guide.Coverage()
    coverage.add_graph(config_key(config), graph)
    log = RunLog(coverage=coverage)
    target = reference_target("streams")
    for path in paths:
        session = Lockstep(spec.driver(config), target)
        attach(session, log, config)
        for category, action in path:
            assert session.take(category, action), (category, action)
        session.close()
    doc = coverage.to_json()
    assert doc["edges_covered"] == doc["edges_total"] == len(graph.edges)
    assert doc["witnesses_reached"] == doc["witnesses_total"] == len(graph.witnesses)


def test_guided_paths_go_deep_within_the_bounds() -> None:
    spec = PROTOCOLS["raft"]()
    graph = guide.explore(spec.driver(spec.configs[1]), 360)
    assert max(graph.depth) == guide.DEFAULT_GUIDE_DEPTH
    paths = guide.plan(graph, 60, 20)
    assert len(paths) == 20 and max(len(p) for p in paths) >= guide.DEFAULT_GUIDE_DEPTH


def test_a_deep_mutant_is_caught_by_guided_paths_alone(tmp_path: Path) -> None:
    # A second vote in one epoch needs two candidacies crossing at one voter. (Run 112 at seed 0
    # once the raft configurations gained kip853 shapes; run 251 since the resend witness and
    # category (RAFT-RULE-RESEND) share the guided paths.)
    result = run_conformance("raft", CATALOGUE["raft-vote-twice"].target(), cover="transitions",
                             examples=300, out_dir=tmp_path)
    assert result.verdict == "diverges" and result.finding is not None
    doc = result.to_json()
    assert doc["runs_to_detection"] == result.first_runs and 1 <= result.first_runs <= 300
    assert doc["examples"] == result.first_runs  # generated runs, shrinking not counted
    assert doc["coverage"]["guided_runs"] == result.first_runs and doc["coverage"]["random_runs"] == 0
    assert doc["phase"] == "guided"  # bench/random_only_catches.py tells the phases apart by it


def test_the_report_counts_coverage_and_input_kinds(tmp_path: Path) -> None:
    result = run_conformance("share", reference_target("share"), examples=40, out_dir=tmp_path)
    doc = result.to_json()
    assert doc["verdict"] == "conforms" and doc["runs_to_detection"] is None and doc["phase"] is None
    cov = doc["coverage"]
    assert cov["guided_runs"] == 20 and cov["random_runs"] >= 1
    assert 0 < cov["edges_covered"] <= cov["edges_total"]
    assert {"WriteRequest", "ReadRequest", "InitializeRequest"} <= set(cov["inputs"])


# ---------------------------------------------------------------------------- order


def test_order_violation_is_a_partial_order() -> None:
    persist = {"type": "PersistElection", "epoch": 1}
    vote = {"type": "VoteResponse", "granted": True}
    append = {"type": "AppendLog", "offset": 0}
    key = repr
    rules = (PERSIST_BEFORE_SEND,)
    assert order_violation(rules, [persist, vote], [persist, vote], key) is None
    broken = order_violation(rules, [persist, vote], [vote, persist], key)
    assert broken is not None and broken[0] == "order.PersistElection<VoteResponse"
    assert "RAFT-STATE-PERSIST-BEFORE-SEND" in broken[1]
    # Outputs no rule relates may come in any order.
    assert order_violation(rules, [persist, append, vote], [persist, vote, append], key) is None


class _Reversing(Target):
    """A reference target that emits each step's outputs last to first."""

    def __init__(self, protocol: str) -> None:
        self.inner = reference_target(protocol)
        self.name, self.protocol = f"reversed-{protocol}", protocol

    def start(self, node: int, config: dict[str, JSON]) -> Any:
        inst = self.inner.start(node, config)

        class Inst:
            def step(self, inp: JSON) -> StepResult:
                r = inst.step(inp)
                return StepResult(list(reversed(r.outputs)), r.observation)

            def close(self) -> None:
                inst.close()

        return Inst()

    def close(self) -> None:
        self.inner.close()


def test_outputs_in_the_wrong_order_diverge(tmp_path: Path) -> None:
    for protocol, field in (("raft", "order.PersistElection<"), ("share", "order.Share")):
        result = run_conformance(protocol, _Reversing(protocol), examples=30, out_dir=tmp_path)
        assert result.verdict == "diverges" and result.finding is not None, protocol
        assert result.finding.kind == "order" and result.finding.field.startswith(field), result.finding.line()


# ---------------------------------------------------------------------------- refusals


class _RefusesPreVote(Target):
    """The raft reference, refusing at start the configurations with pre-vote."""

    def __init__(self) -> None:
        self.inner = reference_target("raft")
        self.name, self.protocol = "no-pre-vote", "raft"

    def start(self, node: int, config: dict[str, JSON]) -> Any:
        if config.get("pre_vote"):
            raise TargetError("pre-vote is not implemented")
        return self.inner.start(node, config)

    def close(self) -> None:
        self.inner.close()


def test_a_refused_configuration_is_skipped_and_counted(tmp_path: Path) -> None:
    # (60 runs: the start paths come first, and every pre-vote configuration must be drawn; 40
    # before RAFT-DRIVE-END-EPOCH-AHEAD and -LEADER-REBOOT added a start path per shape of three voters or more)
    result = run_conformance("raft", _RefusesPreVote(), examples=60, out_dir=tmp_path, liveness=False)
    assert result.verdict == "conforms", result.finding and result.finding.line()
    doc = result.to_json()
    pre_vote = [c for c in RAFT_CONFIGS if c.get("pre_vote")]
    assert pre_vote and doc["configurations"]["refused"] == len(pre_vote)
    assert all(r["reason"].endswith("pre-vote is not implemented") for r in doc["configurations"]["refusals"])
    assert not list(tmp_path.iterdir())


def test_a_target_that_refuses_everything_is_an_error(tmp_path: Path) -> None:
    class Nothing(_RefusesPreVote):
        def start(self, node: int, config: dict[str, JSON]) -> Any:
            raise TargetError("no")

    result = run_conformance("raft", Nothing(), examples=10, out_dir=tmp_path)
    assert result.verdict == "error" and result.finding is not None
    assert "refused every configuration" in result.finding.detail


def _probe_steps_only(driver: Any) -> Any:
    """``driver`` without RAFT-DRIVE-MISSED-ELECTION's steps after its start probes' nor the chained
    probes' after those (the tests of the probes' own steps;
    test_missed_election_steps_end_a_start_path_and_catch_their_mutant and
    test_chained_probes_end_start_paths_and_catch_their_mutants test those)."""
    driver._missed_election_tail = lambda *_: []
    driver._chained_probe_tail = lambda *_: []
    driver._half_refused_tail = lambda *_: []  # (RAFT-DRIVE-HALF-REFUSED: its own test)
    driver._held_across_epoch = lambda *_: False  # (RAFT-DRIVE-HELD-ACROSS-EPOCH: its own test)
    return driver


def test_a_start_probe_runs_on_a_path_of_its_own_where_the_budgets_are_whole() -> None:
    # RAFT-DRIVE-EXPIRED-STEP-DOWN (Driver.start_probes): three election timers and the last
    # epoch, which no planned path's end has left; from the initial state it fits at once (an
    # empty prefix), and the mutant that resets an expired timer on a step-down, caught before
    # only by random run 3460 at seed 0, diverges on that path where the reference does not.
    spec = PROTOCOLS["raft"]()
    config = RAFT_CONFIGS[0]
    driver = _probe_steps_only(spec.driver(config))
    assert [p.id for p in driver.start_probes()] == ["RAFT-DRIVE-EXPIRED-STEP-DOWN", "RAFT-DRIVE-RESEND-BACKOFF",
                                                     "RAFT-DRIVE-END-EPOCH-AHEAD", "RAFT-DRIVE-LEADER-REBOOT",
                                                     "RAFT-DRIVE-PREFERRED-ORDER",
                                                     "RAFT-DRIVE-DIVERGENT-EPOCHS"]
    path, backoff, _, _, ordered, _ = guide.start_paths(driver, guide.explore(driver, 12))
    assert guide.offered(driver, path) and len(path) == 7
    assert not diverges(spec, config, reference_target("raft"), path)
    assert diverges(spec, config, CATALOGUE["raft-step-down-resets-timer"].target(), path)
    # RAFT-DRIVE-RESEND-BACKOFF: stand, back off, lose one vote request, its resend timer fires
    assert [c for c, _ in backoff] == ["timer", "timer", "network", "idle_timer"]
    assert not diverges(spec, config, reference_target("raft"), backoff)
    assert diverges(spec, config, CATALOGUE["raft-backing-off-candidate-resends"].target(), backoff)
    assert not diverges(spec, config, CATALOGUE["raft-backing-off-candidate-resends"].target(), path)
    # RAFT-DRIVE-PREFERRED-ORDER: A fetches twice, B once, the leader resigns; a list that names
    # B before A is out of fetch-offset order (RAFT-RULE-PREFERRED-ORDER)
    assert [c for c, _ in ordered][-4:] == ["round_trip", "round_trip", "round_trip", "resign"]
    assert not diverges(spec, config, reference_target("raft"), ordered)
    assert diverges(spec, config, CATALOGUE["raft-preferred-by-recency"].target(), ordered)
    assert not diverges(spec, config, CATALOGUE["raft-preferred-by-recency"].target(), backoff)
    # a configuration these probes do not fit (pre-vote) has RAFT-DRIVE-HELD-GRANT's instead
    # (stand, a grant held while the candidate's timer makes it prospective, then the grant),
    # then the kip-996 start probes (RAFT-DRIVE-PROSPECTIVE-BEGIN-EPOCH, -ERROR-FETCH-PRE-VOTE,
    # -REFOLLOW-PRE-VOTE)
    pre_vote_config = {**config, "pre_vote": True, "kip853": True}
    pre_vote = _probe_steps_only(spec.driver(pre_vote_config))
    assert [p.id for p in pre_vote.start_probes()] == ["RAFT-DRIVE-HELD-GRANT", "RAFT-DRIVE-PROSPECTIVE-BEGIN-EPOCH",
                                                       "RAFT-DRIVE-ERROR-FETCH-PRE-VOTE",
                                                       "RAFT-DRIVE-PROSPECTIVE-LEADER-VOTE",
                                                       "RAFT-DRIVE-REFOLLOW-PRE-VOTE", "RAFT-DRIVE-END-EPOCH-AHEAD",
                                                       "RAFT-DRIVE-LEADER-REBOOT",
                                                       "RAFT-DRIVE-PREFERRED-ORDER", "RAFT-DRIVE-DIVERGENT-EPOCHS"]
    held = guide.start_paths(pre_vote, guide.explore(pre_vote, 12))[0]
    assert guide.offered(pre_vote, held) and held[-1][0] == "probe"
    assert not diverges(spec, pre_vote_config, reference_target("raft"), held)
    assert diverges(spec, pre_vote_config, CATALOGUE["raft-prospective-counts-standard-answer"].target(), held)
    assert not diverges(spec, config, CATALOGUE["raft-prospective-counts-standard-answer"].target(), path)
    # without faults a held answer is no fault the configuration draws: no start path of it
    quiet = spec.driver({**pre_vote_config, "faults": False})
    assert [p.id for p in quiet.start_probes()] == ["RAFT-DRIVE-REFOLLOW-PRE-VOTE", "RAFT-DRIVE-END-EPOCH-AHEAD"]


def test_end_epoch_ahead_start_path_writes_the_new_epoch_before_answering() -> None:
    # RAFT-DRIVE-END-EPOCH-AHEAD (three voters or more, every rule set, with or without faults): a
    # voter elected without F, its EndQuorumEpoch (a resignation's with faults where the in-flight
    # bound allows, else injected) reaches F in the older epoch; F follows it and writes that
    # before it answers. The reference conforms; a write left to the step's end diverges on the
    # order (RAFT-STATE-PERSIST-BEFORE-SEND), and nowhere else on these paths.
    spec = PROTOCOLS["raft"]()
    mutant = CATALOGUE["raft-end-epoch-move-written-after-answer"]
    shapes = [c for c in RAFT_CONFIGS if c["voters"] >= 3]
    assert {(c["faults"], c["voters"]) for c in shapes} >= {(True, 3), (False, 3), (True, 4), (True, 5)}
    for config in shapes:
        driver = spec.driver(config)
        assert "RAFT-DRIVE-END-EPOCH-AHEAD" in [p.id for p in driver.start_probes()], config
        start = driver.init_state()
        path = driver._end_epoch_ahead_probe(start)
        assert guide.offered(driver, path), config
        state, notices = start, []
        for category, action in path:
            after = driver.resolve(state, action)
            message = getattr(action, "message", None)
            if isinstance(message, EndQuorumEpochRequest):
                receiver = message.dst
                assert state.node(receiver).epoch < message.epoch, config
                outputs = [o["type"] for e in driver.events(state, action, after) if e.node == receiver
                           for o in e.model_outputs]
                if receiver in driver.model.voter_ids or config["kip853"]:
                    assert outputs[:2] == ["PersistElection", "EndQuorumEpochResponse"], (config, outputs)
                else:  # a KIP-595 observer refuses it (INCONSISTENT_VOTER_SET), in its own epoch
                    assert outputs == ["EndQuorumEpochResponse"], (config, outputs)
                notices.append((category, state.node(receiver).role_name))
            state = after
        resigned = config["faults"] and config["voters"] == 3
        assert notices[0] == ("deliver" if resigned else "inject", "unattached"), config
        # then the observer, and without faults (three voters) the leader C, deposed by a voter
        # elected without it
        deposed = [("inject", "leader")] if not config["faults"] and config["voters"] == 3 else []
        assert notices[1:] == [("inject", "unattached")] * config["observers"] + deposed, config
        assert not diverges(spec, config, reference_target("raft"), path), config
        assert diverges(spec, config, mutant.target(), path), config
        session = Lockstep(spec.driver(config), mutant.target())
        try:
            for category, action in path:
                session.take(category, action)
        except Divergence as found:
            assert found.finding.kind == "order" and "EndQuorumEpochResponse" in found.finding.field, config
        finally:
            session.close()


def test_the_snapshot_start_probe_loads_a_snapshot_at_a_lagging_replica() -> None:
    # RAFT-DRIVE-SNAPSHOT (KIP-630), only where the target declares snapshots: the leader is asked
    # for a snapshot of an uncommitted record (refused), snapshots at its HW and cleans its log;
    # the lagging voter fetches below the log start, fetches the snapshot and loads it, and its
    # listener is told HandleLoadSnapshot, then the commit after it. The reference conforms on
    # the path; each snapshot mutant diverges on it.
    spec = PROTOCOLS["raft"]()
    assert "RAFT-DRIVE-SNAPSHOT" not in [p.id for p in spec.driver(RAFT_CONFIGS[0]).start_probes()]
    config = {**RAFT_CONFIGS[0], "snapshots": True}
    driver = _probe_steps_only(spec.driver(config))
    ids = [p.id for p in driver.start_probes()]
    snapshot_ids = ["RAFT-DRIVE-SNAPSHOT", "RAFT-DRIVE-SNAPSHOT-LAG", "RAFT-DRIVE-SNAPSHOT-SUPERSEDED",
                    "RAFT-DRIVE-SNAPSHOT-DEPOSED", "RAFT-DRIVE-SNAPSHOT-REBOOT", "RAFT-DRIVE-SNAPSHOT-TABLE"]
    assert ids[-10:] == [*snapshot_ids, "RAFT-DRIVE-END-EPOCH-AHEAD", "RAFT-DRIVE-LEADER-REBOOT",
                         "RAFT-DRIVE-PREFERRED-ORDER", "RAFT-DRIVE-DIVERGENT-EPOCHS"]
    path = guide.start_paths(driver, guide.explore(driver, 12))[ids.index("RAFT-DRIVE-SNAPSHOT")]
    # RAFT-DRIVE-SNAPSHOT-SUPERSEDING (session 27): the lagging voter is named the snapshot, then the
    # leader snapshots again (it holds two) before the catch-up; RAFT-DRIVE-SNAPSHOT-PAIR: a fetch from
    # below the log start last
    assert guide.offered(driver, path) and [c for c, _ in path[-2:]] == ["catch_up", "inject"]
    assert [c for c, _ in path].count("snapshot") == 4
    state, told = driver.init_state(), []
    for _, action in path:
        after = driver.resolve(state, action)
        told += [o["type"] for e in driver.events(state, action, after) if e.node == 3 for o in e.model_outputs
                 if o["type"].startswith("Handle")]
        state = after
    assert state.node(3).log_start > 0 and told[-2:] == ["HandleLoadSnapshot", "HandleCommit"]
    assert not diverges(spec, config, reference_target("raft"), path)
    for name in ("raft-snapshot-fetch-served-as-records", "raft-snapshot-load-untold", "raft-snapshot-above-hw",
                 "raft-snapshot-served-latest-only", "raft-snapshot-id-earliest"):
        assert diverges(spec, config, CATALOGUE[name].target(), path), name


def test_snapshot_lag_superseded_and_refollow_probes_judge_their_mutants() -> None:
    # RAFT-DRIVE-SNAPSHOT-LAG, -SUPERSEDED, -DEPOSED, -REBOOT (snapshots) and RAFT-DRIVE-REFOLLOW-PRE-VOTE (kip-996):
    # each start path replays at the reference and its catalogued mutant diverges on it.
    spec = PROTOCOLS["raft"]()
    snapshots = {**RAFT_CONFIGS[0], "snapshots": True}
    pre_vote = next(c for c in RAFT_CONFIGS if c["pre_vote"] and c["voters"] == 3 and not c["observers"])
    for config, probe, mutant, last in (
            (snapshots, "RAFT-DRIVE-SNAPSHOT-LAG", "raft-clean-log-unbounded", "catch_up"),
            (snapshots, "RAFT-DRIVE-SNAPSHOT-SUPERSEDED", "raft-snapshot-not-found-retried", "catch_up"),
            (snapshots, "RAFT-DRIVE-SNAPSHOT-DEPOSED", "raft-snapshot-load-keeps-tail", "catch_up"),
            (snapshots, "RAFT-DRIVE-SNAPSHOT-DEPOSED", "raft-snapshot-checked-against-latest", "catch_up"),
            (snapshots, "RAFT-DRIVE-SNAPSHOT-REBOOT", "raft-new-listener-loads-oldest", "round_trip"),
            (snapshots, "RAFT-DRIVE-SNAPSHOT-TABLE", "raft-snapshot-answer-records-snapshot-end", "leader_only"),
            (pre_vote, "RAFT-DRIVE-REFOLLOW-PRE-VOTE", "raft-fetched-only-with-records", "inject")):
        driver = _probe_steps_only(spec.driver(config))
        ids = [p.id for p in driver.start_probes()]
        path = guide.start_paths(driver, guide.explore(driver, 12))[ids.index(probe)]
        assert guide.offered(driver, path) and path[-1][0] == last, probe
        assert not diverges(spec, config, reference_target("raft"), path), probe
        assert diverges(spec, config, CATALOGUE[mutant].target(), path), mutant


def test_snapshot_table_probe_describes_the_quorum_after_a_snapshot_answer() -> None:
    # RAFT-DRIVE-SNAPSHOT-TABLE (snapshots, three voters or more): the last voter's first fetch is
    # below the cleaned log's start and answered with the snapshot id, then DescribeQuorum: the
    # model keeps that voter at -1 (nothing recorded) and the reference conforms; a leader that
    # records the snapshot's end (the catalogue's mutant) diverges there.
    spec = PROTOCOLS["raft"]()
    config = {**RAFT_CONFIGS[0], "snapshots": True}
    driver = _probe_steps_only(spec.driver(config))
    ids = [p.id for p in driver.start_probes()]
    path = guide.start_paths(driver, guide.explore(driver, 12))[ids.index("RAFT-DRIVE-SNAPSHOT-TABLE")]
    state = driver.init_state()
    for _, action in path[:-2]:
        state = driver.resolve(state, action)
    assert state.node(1).log_start > 0 and state.node(3).end_offset == 0
    fetched = driver.resolve(state, path[-2][1])
    told = [o for e in driver.events(state, path[-2][1], fetched) if e.node == 1 for o in e.model_outputs
            if o["type"] == "FetchResponse"]
    assert [o["snapshot_id"] for o in told] == [[state.node(1).log_start, 1]], told
    described = driver.resolve(fetched, path[-1][1])
    table = [o for e in driver.events(fetched, path[-1][1], described) for o in e.model_outputs
             if o["type"] == "DescribeQuorumResponse"]
    assert len(table) == 1 and dict(map(tuple, table[0]["voters"]))[3] == -1, table
    assert not diverges(spec, config, reference_target("raft"), path)
    assert diverges(spec, config, CATALOGUE["raft-snapshot-answer-records-snapshot-end"].target(), path)
    # a target without snapshots has no such path
    assert "RAFT-DRIVE-SNAPSHOT-TABLE" not in [p.id for p in spec.driver(RAFT_CONFIGS[0]).start_probes()]


def test_divergent_epochs_start_path_truncates_past_the_epoch_bound() -> None:
    # RAFT-DRIVE-DIVERGENT-EPOCHS (three voters, no observer, with faults; each rule set): A holds
    # epochs {1, 3}, B {1, 2}; B is elected in epoch 4, one past max_epoch (macros.PastBound, the
    # path's last step), and A, told the diverging epoch (2, 2) it never held, truncates to 3, the
    # end of its epoch 1: the reference conforms, a truncation to min(3, 2) diverges there.
    spec = PROTOCOLS["raft"]()
    shapes = [c for c in RAFT_CONFIGS if c["voters"] == 3 and not c["observers"] and c["faults"]]
    assert {(c["pre_vote"], c["kip853"]) for c in shapes} == {(False, False), (False, True), (True, True)}
    for config in shapes:
        driver = _probe_steps_only(spec.driver(config))
        ids = [p.id for p in driver.start_probes()]
        path = guide.start_paths(driver, guide.explore(driver, 12))[ids.index("RAFT-DRIVE-DIVERGENT-EPOCHS")]
        assert guide.offered(driver, path) and path[-1][0] == "probe", config
        state = driver.init_state()
        for _, action in path[:-1]:
            state = driver.resolve(state, action)
        bound = int(driver.model.bounds["max_epoch"])
        assert max(n.epoch for n in state.nodes) == bound and [e.epoch for e in state.node(1).log] == [1, 1, 1, 3]
        last = path[-1][1]
        assert isinstance(last, macros.PastBound)
        # its steps run one epoch past the bound, and only as its own: the same election alone is
        # not enabled there
        assert driver.resolve(state, last.steps[0]) is None
        after = driver.resolve(state, last)
        assert after is not None and max(n.epoch for n in after.nodes) == bound + 1
        truncated = [o["offset"] for e in driver.events(state, last, after) if e.node == 1
                     for o in e.model_outputs if o["type"] == "TruncateLog"]
        assert truncated == [3, 1] and after.node(1).log == after.node(2).log
        assert not diverges(spec, config, reference_target("raft"), path), config
        assert diverges(spec, config, CATALOGUE["raft-truncate-min-any-epoch"].target(), path), config
    # below the bound no deposition past it is offered
    driver = spec.driver(shapes[0])
    assert not any(isinstance(a, macros.PastBound) for _, a in driver.candidates(driver.init_state()))


def test_check_quorum_ack_start_path_resigns_where_an_acknowledgement_is_counted_as_a_fetch() -> None:
    # RAFT-DRIVE-CHECK-QUORUM-ACK (four or more voters, with faults): elected, B's answer to the
    # BeginQuorumEpoch, A's fetch, then CheckQuorumTimeout: the reference resigns with the
    # model (RAFT-RULE-CHECK-QUORUM-PERIOD); the leader that counts B's answer leads on. Only
    # where the target declares the period (model_config {"check_quorum_period": true}).
    spec = PROTOCOLS["raft"]()
    plain = next(c for c in RAFT_CONFIGS if c["voters"] == 4 and not c["pre_vote"])
    undeclared = spec.driver(plain)
    assert "RAFT-DRIVE-CHECK-QUORUM-ACK" not in [p.id for p in undeclared.start_probes()]
    # (and the model it runs renews no leader: Node.check_quorum_period off)
    assert not any(n.check_quorum_period for n in undeclared.init_state().nodes)
    assert "check_quorum_period" not in undeclared.node_config(1)
    config = {**plain, "check_quorum_period": True}
    driver = _probe_steps_only(spec.driver(config))
    assert [p.id for p in driver.start_probes()][-3:] == ["RAFT-DRIVE-CHECK-QUORUM-ACK", "RAFT-DRIVE-END-EPOCH-AHEAD",
                                                          "RAFT-DRIVE-LEADER-REBOOT"]
    *_, acked, _, reboot = guide.start_paths(driver, guide.explore(driver, 12))
    assert "crash" in [c for c, _ in reboot]
    assert guide.offered(driver, acked) and [c for c, _ in acked[-3:]] == ["probe", "round_trip", "resign"]
    assert not diverges(spec, config, reference_target("raft"), acked)
    assert diverges(spec, config, CATALOGUE["raft-begin-epoch-ack-counts-for-check-quorum"].target(), acked)


def test_disk_replaced_vote_probe_delivers_the_error_answer_which_is_no_refusal() -> None:
    # VOTERS-DRIVE-DISK-REPLACED-VOTE (a target that declares disk replacement), the pre-vote
    # shape: W's pre-vote reaches V's new disk (INVALID_VOTER_KEY), the answer reaches W, then
    # the leader's refusal: one refusal of three, W stays prospective (RAFT-RULE-VOTE-ERROR).
    # The reference conforms; the port that reads the error answer as a refusal returns to
    # following the leader.
    spec = PROTOCOLS["voters"]()
    config = {**next(c for c in spec.configs if c["pre_vote"]), "disk_replacement": True}
    driver = spec.driver(config)
    ids = [p.id for p in driver.start_probes()]
    path = guide.start_paths(driver, guide.graph_for(driver))[ids.index("VOTERS-DRIVE-DISK-REPLACED-VOTE")]
    assert guide.offered(driver, path) and [c for c, _ in path][-4:] == ["deliver"] * 4
    state = driver.init_state()
    for _, action in path:
        state = driver.resolve(state, action)
    prospective = next(n for n in state.nodes if n.role_name == "prospective")
    assert len(prospective.role.rejected) == 1 and prospective.role.granted == {prospective.id}
    assert not diverges(spec, config, reference_target("voters"), path)
    assert diverges(spec, config, CATALOGUE["voters-error-answer-counts-as-refusal"].target(), path)


def test_start_paths_come_first_and_leave_the_planned_paths_their_index() -> None:
    # The voters faults configuration: VOTERS-DRIVE-ADDED-LEADER-RESTART and
    # -OUTSIDER-VOTE-RESTART each take the run's one crash, on a path of their own before the
    # configuration's planned paths (which end with the path-end probes of their own index k).
    spec = PROTOCOLS["voters"]()
    config = spec.configs[0]
    driver = spec.driver(config)
    assert [p.id for p in driver.start_probes()] == ["VOTERS-DRIVE-ADDED-LEADER-RESTART",
                                                     "VOTERS-DRIVE-OUTSIDER-VOTE-RESTART",
                                                     "VOTERS-DRIVE-FIRST-LEADER-AGAIN"]
    graph = guide.graph_for(driver)
    starts = guide.start_paths(driver, graph)
    assert len(starts) == 3 and all(p[-1][0] == "crash" or p[-2][0] == "crash" for p in starts[:2])
    # VOTERS-DRIVE-FIRST-LEADER-AGAIN starts from the formatted state: no start-up, no crash
    assert starts[2][0] == ("probe", Unstarted()) and all(c != "crash" for c, _ in starts[2])
    given = [path for _, path in _guided_plans(spec, [config], frozenset(), 60, 5, guide.Coverage(), {})]
    planned = guide.plan(graph, 60, 5)
    assert given == [*starts, *(guide.with_probes(driver, planned[k], k) for k in range(2))]


def test_the_kip996_start_probes_meet_a_follower_its_leader_never_heard_from() -> None:
    # RAFT-DRIVE-PROSPECTIVE-BEGIN-EPOCH, RAFT-DRIVE-ERROR-FETCH-PRE-VOTE and (session 20)
    # RAFT-DRIVE-PROSPECTIVE-LEADER-VOTE, its prospective asked an up-to-date vote (kip-996, with
    # faults; red team raft_scratch11's escapes): a leader is elected and one voter follows it
    # after its BeginQuorumEpoch. Then its answer is lost, its fetch timer makes it prospective
    # and the leader's resend reaches it (it stays prospective); or the leader resigns, the
    # follower's fetch is answered NOT_LEADER_OR_FOLLOWER and another voter asks it for a
    # pre-vote (it grants). The reference conforms on both paths; each mutant diverges on its
    # own path only. A kip-595 shape or one without faults has neither probe.
    spec = PROTOCOLS["raft"]()
    config = next(c for c in RAFT_CONFIGS if c["pre_vote"] and c["faults"] and c["voters"] == 3)
    driver = _probe_steps_only(spec.driver(config))
    ids = [p.id for p in driver.start_probes()]
    assert ids[-8:-5] == ["RAFT-DRIVE-PROSPECTIVE-BEGIN-EPOCH", "RAFT-DRIVE-ERROR-FETCH-PRE-VOTE",
                          "RAFT-DRIVE-PROSPECTIVE-LEADER-VOTE"]
    begin, error, vote = guide.start_paths(driver, guide.explore(driver, 12))[-8:-5]
    assert guide.offered(driver, begin) and guide.offered(driver, error) and guide.offered(driver, vote)
    assert [c for c, _ in begin][-4:] == ["network", "timer", "resend", "deliver"]
    assert [c for c, _ in error][-4:] == ["fetch", "deliver", "deliver", "inject"]
    assert [c for c, _ in vote][-2:] == ["timer", "inject"] and not vote[-1][1].message.pre_vote
    for path in (begin, vote):  # the last step meets a prospective that knows its leader
        state = driver.init_state()
        for _, action in path:
            state = driver.resolve(state, action)
        assert state.node(path[-1][1].message.dst).role_name == "prospective"
    mutants = {"raft-prospective-follows-known-leader-again": begin, "raft-error-fetch-marks-fetched": error,
               "raft-prospective-votes-past-leader": vote}
    for path in (begin, error, vote):
        assert not diverges(spec, config, reference_target("raft"), path)
        for name, own in mutants.items():
            assert diverges(spec, config, CATALOGUE[name].target(), path) == (path is own), name
    for other in RAFT_CONFIGS:
        if not (other["pre_vote"] and other["faults"]):
            assert "RAFT-DRIVE-ERROR-FETCH-PRE-VOTE" not in [p.id for p in spec.driver(other).start_probes()]


def test_leader_reboot_start_path_resigns_resends_and_truncates() -> None:
    # RAFT-DRIVE-LEADER-REBOOT (three voters or more, with faults): the first voter L leads with
    # an uncommitted record, reboots and restarts resigned, sending EndQuorumEpoch to every other
    # voter at once; the one to F is lost and L's resend timer sends it again; F is elected
    # and L follows it and truncates its uncommitted record. The reference conforms; a crash
    # that keeps the leader's acknowledgements (no resend to F) diverges at the resend, and the
    # red team's restart that leaves the first sends to the resend timer (raft_scratch16)
    # diverges at the reboot. The coverage matrix counts the crash as "Crash voters>1".
    import sys
    spec = PROTOCOLS["raft"]()
    shapes = [c for c in RAFT_CONFIGS if c["faults"] and c["voters"] == 3]
    assert not any("RAFT-DRIVE-LEADER-REBOOT" in [p.id for p in spec.driver(c).start_probes()]
                   for c in RAFT_CONFIGS if not c["faults"] or c["voters"] < 3)
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    try:
        from redteam import raft_scratch16 as scratch
    finally:
        sys.path.pop(0)
    waits = getattr(scratch, scratch.TARGETS["restarted-leader-waits-to-resign"])
    for config in shapes:
        driver = spec.driver(config)
        ids = [p.id for p in driver.start_probes()]
        ordered = ["RAFT-DRIVE-PREFERRED-ORDER", "RAFT-DRIVE-DIVERGENT-EPOCHS"] if not config["observers"] else []
        assert ids[len(ids) - len(ordered) - 1:] == ["RAFT-DRIVE-LEADER-REBOOT", *ordered], config
        path = driver._leader_reboot_probe(driver.init_state())
        assert guide.offered(driver, path) and path[-1][0] == "round_trip", config
        categories = [c for c, _ in path]
        crash = categories.index("crash")
        assert categories[crash + 1:crash + 5] == ["network", "deliver", "resend", "deliver"], config
        state, cells, leader = driver.init_state(), [], min(driver.model.voter_ids)
        for _, action in path:
            cells += driver.input_cells(state, action)
            state = driver.resolve(state, action)
        assert ("leader", "Crash voters>1") in cells and ("leader", "Crash") not in cells
        follower = sorted(driver.model.voter_ids)[1]
        assert isinstance(state.node(follower).role, Leader) and state.node(leader).log == state.node(follower).log
        assert state.node(leader).end_offset == 2  # the uncommitted record truncated, epoch 2's LeaderChange
        assert not diverges(spec, config, reference_target("raft"), path), config
        assert diverges(spec, config, CATALOGUE["raft-crash-keeps-acknowledgements"].target(), path), config
        assert diverges(spec, config, waits(), path), config
    # a lone voter's leader crash keeps its own cell (it has no one to tell)
    lone = spec.driver(next(c for c in RAFT_CONFIGS if c["voters"] == 1))
    node = lone.init_state().nodes[0]
    assert isinstance(node.role, Leader)
    assert input_cell(node, Crash()) == ("leader", "Crash")


def _start_path(driver: Any, probe: Any) -> list[guide.Step]:
    """A start probe's path as guide.start_paths finds it: the graph's shortest path to the
    first state, breadth first, where the script fits, then the script."""
    graph = guide.graph_for(driver)
    for i in sorted(range(len(graph.states)), key=lambda i: (graph.depth[i], i)):
        script = probe.script(graph.states[i])
        if script and guide.offered(driver, path := graph.path_to(i) + script):
            return path
    raise AssertionError(f"{probe.id} fits nowhere")


def test_missed_election_steps_end_a_start_path_and_catch_their_mutant() -> None:
    # RAFT-DRIVE-MISSED-ELECTION (session 24): no start path of its own (the probes are the same
    # as without it), steps after a start probe's where they fit. At the fault-free pre-vote
    # shape RAFT-DRIVE-REFOLLOW-PRE-VOTE leaves a follower; it misses C's election and meets C's
    # EndQuorumEpoch (injected: without faults C does not resign), an epoch ahead, from a replica
    # of the cluster: the reference conforms, a follower that keeps its old leader diverges; the
    # path without those steps (the probe's alone) does not tell them apart.
    spec = PROTOCOLS["raft"]()
    config = next(c for c in RAFT_CONFIGS if c["voters"] == 3 and c["pre_vote"] and not c["faults"]
                  and not c["observers"])
    driver = spec.driver(config)
    driver._refetch_tail = lambda *_: []  # (RAFT-DRIVE-REFETCH's round trip after it: its own test)
    probe = next(p for p in driver.start_probes() if p.id == "RAFT-DRIVE-REFOLLOW-PRE-VOTE")
    path = _start_path(driver, probe)
    alone = driver._refollow_pre_vote_probe(driver.init_state())
    end = driver._replay(driver.init_state(), alone)
    assert end is not None
    tail = driver._missed_election_tail(end)
    assert tail and alone + tail == probe.script(driver.init_state())
    assert guide.offered(driver, path) and isinstance(path[-1][1].message, EndQuorumEpochRequest)
    state, cells = driver.init_state(), set()
    for _, action in path:
        cells |= {c[:3] for c in driver.request_cells(state, action) if c[3] == "replica"}
        state = driver.resolve(state, action)
    assert ("EndQuorumEpochRequest", "follower", ">") in cells
    mutant = CATALOGUE["raft-follower-keeps-leader-on-end-epoch-ahead"].target
    assert not diverges(spec, config, reference_target("raft"), path)
    assert diverges(spec, config, mutant(), path)
    assert not diverges(spec, config, mutant(), path[:len(path) - len(tail)])


# session 25: session 24's three start probes, chained after the start paths instead
# (RaftDriver._chained_probe_tail): the probe, its script, its mutant, the field it diverges on
CHAINED = (("RAFT-DRIVE-HELD-BEGIN-ANSWER", "_held_begin_answer_probe", "raft-stale-begin-answer-ends-round",
            "outputs.BeginQuorumEpochRequest"),
           ("RAFT-DRIVE-CHECK-QUORUM-OBSERVER", "_check_quorum_observer_probe", "raft-observer-fetch-renews-period",
            "outputs.EndQuorumEpochRequest"),
           ("RAFT-DRIVE-PRE-VOTE-UNCOMMITTED", "_pre_vote_uncommitted_probe",
            "raft-pre-vote-end-against-high-watermark", "outputs.VoteResponse"),
           # session 26: a split vote (five voters), a held fetch answer then a pre-vote (kip-996)
           ("RAFT-DRIVE-SPLIT-VOTE", "_split_vote_probe", "raft-voted-ignores-other-leader",
            "outputs.BeginQuorumEpochResponse|HandleLeaderChange|PersistElection"),
           ("RAFT-DRIVE-HELD-FETCH", "_held_fetch_probe", "raft-stale-answer-marks-fetched", "outputs.VoteResponse"))


def test_chained_probes_end_start_paths_and_catch_their_mutants() -> None:
    # RAFT-DRIVE-HELD-BEGIN-ANSWER, -CHECK-QUORUM-OBSERVER, -PRE-VOTE-UNCOMMITTED (session 25),
    # -SPLIT-VOTE, -HELD-FETCH (session 26): no
    # start path of their own (session 24's cut the last planned guided paths, and three catalogue
    # catches with them): at every reference shape the start probes are the same, and each start
    # path is the one without them with steps appended, the first of the three scripts that fits
    # where it ends. The reference conforms on every lengthened path; each script fits at least
    # one, where its mutant diverges on the expected output and not on the path without it.
    spec = PROTOCOLS["raft"]()
    target = reference_target("raft")
    first: dict[str, tuple[dict[str, JSON], list[guide.Step], list[guide.Step]]] = {}
    for config in [{**c, **target.model_config} for c in RAFT_CONFIGS]:
        driver, plain = spec.driver(config), spec.driver(config)
        plain._chained_probe_tail = lambda *_: []
        # (RAFT-DRIVE-REFETCH's steps come last, after these: off on both, its own test below)
        driver._refetch_tail = plain._refetch_tail = lambda *_: []
        driver._half_refused_tail = plain._half_refused_tail = lambda *_: []
        ids = [p.id for p in driver.start_probes()]
        assert ids == [p.id for p in plain.start_probes()] and not {c[0] for c in CHAINED} & set(ids), config
        graph = guide.graph_for(driver)
        paths, shorter = guide.start_paths(driver, graph), guide.start_paths(plain, graph)
        assert len(paths) == len(shorter), config
        for path, alone in zip(paths, shorter, strict=True):
            assert path[:len(alone)] == alone, config
            if len(path) == len(alone):
                continue
            assert guide.offered(driver, path) and not diverges(spec, config, target, path), config
            state = driver.init_state()
            for _, action in alone:
                state = driver.resolve(state, action)
            probe = next(c[0] for c in CHAINED if getattr(driver, c[1])(state) == path[len(alone):])
            first.setdefault(probe, (config, path, alone))
    assert sorted(first) == sorted(c[0] for c in CHAINED)
    for probe, _, name, field in CHAINED:
        config, path, alone = first[probe]
        mutant = CATALOGUE[name].target
        assert not diverges(spec, config, mutant(), alone), probe
        session = Lockstep(spec.driver(config), mutant())
        try:
            for category, action in path:
                assert session.take(category, action), (probe, category, action)
            raise AssertionError(f"{probe}: the mutant conformed")
        except Divergence as found:
            assert found.finding.field == field, (probe, found.finding)
        finally:
            session.close()


def _lengthened(spec: Any, target: Any, tail: str, also_off: tuple[str, ...] = ()
                ) -> Iterator[tuple[dict[str, JSON], Any, list[guide.Step], list[guide.Step]]]:
    """Each raft start path the driver's ``tail`` lengthens, as (config, driver, path, the path
    without the tail), after checking that the start paths are the same ones with the tail and
    without it, each the shorter with steps appended. ``also_off``: tails switched off on both."""
    for config in [{**c, **target.model_config} for c in RAFT_CONFIGS]:
        driver, plain = spec.driver(config), spec.driver(config)
        setattr(plain, tail, lambda *_: [])
        for other in also_off:
            setattr(driver, other, lambda *_: [])
            setattr(plain, other, lambda *_: [])
        graph = guide.graph_for(driver)
        paths, shorter = guide.start_paths(driver, graph), guide.start_paths(plain, graph)
        assert len(paths) == len(shorter), config
        for path, alone in zip(paths, shorter, strict=True):
            assert path[:len(alone)] == alone, config
            if len(path) != len(alone):
                yield config, driver, path, alone


def test_refetch_ends_start_paths_and_catches_its_mutant() -> None:
    # RAFT-DRIVE-REFETCH (session 26): last on the start paths, after the missed-election tail and
    # the chained scripts, each voter that tail moved and that follows a leader fetches once more
    # (macros.RoundTrip). The start paths are the same, each the one without it with round trips
    # appended; the reference conforms on every lengthened path, and the mutant that keeps a
    # snapshot id across role changes diverges on one (a FetchSnapshot where a Fetch is due) and
    # not on that path without the round trips.
    spec = PROTOCOLS["raft"]()
    target = reference_target("raft")
    mutant = CATALOGUE["raft-snapshot-id-kept-across-roles"].target
    lengthened = 0
    caught: list[Any] = []
    # (RAFT-DRIVE-HELD-ACROSS-EPOCH off as well: its own refetch at RAFT-DRIVE-SNAPSHOT-TABLE's end
    # catches the mutant before this tail; its own test below)
    for config, driver, path, alone in _lengthened(spec, target, "_refetch_tail",
                                                   also_off=("_half_refused_tail", "_held_across_epoch")):
        lengthened += 1
        assert all(c == "round_trip" and isinstance(a, macros.RoundTrip) for c, a in path[len(alone):]), config
        assert guide.offered(driver, path) and not diverges(spec, config, target, path), config
        if not caught and diverges(spec, config, mutant(), path):
            caught = [config, alone]
    assert lengthened and caught
    assert not diverges(spec, caught[0], mutant(), caught[1])


def test_half_refused_ends_start_paths_and_catches_its_mutant() -> None:
    # RAFT-DRIVE-HALF-REFUSED (session 27): last on the start paths (kip-595, four voters), a
    # candidate refused by two of the four voters, then its resend timer towards the fourth. The start paths are
    # the same, each the one without it with its steps appended (only at an even voter set
    # without pre-vote); the reference conforms on every lengthened path, and the mutant that
    # counts a round lost only once the refusals are a majority diverges on one (it resends its
    # VoteRequest) and not on that path without those steps.
    spec = PROTOCOLS["raft"]()
    target = reference_target("raft")
    mutant = CATALOGUE["raft-candidate-loss-needs-majority-refusals"].target
    lengthened = 0
    caught: list[Any] = []
    for config, driver, path, alone in _lengthened(spec, target, "_half_refused_tail"):
        assert config["voters"] % 2 == 0 and not config["pre_vote"], config
        lengthened += 1
        assert path[-1][0] == "idle_timer" and isinstance(path[-1][1].input, ResendDue), config
        assert guide.offered(driver, path) and not diverges(spec, config, target, path), config
        if not caught and diverges(spec, config, mutant(), path):
            caught = [config, alone]
    assert lengthened and caught
    assert not diverges(spec, caught[0], mutant(), caught[1])


def test_check_quorum_carry_and_held_across_epoch_catch_their_mutants() -> None:
    # Session 28, steps within two start probes (no start path added): RAFT-DRIVE-CHECK-QUORUM-CARRY
    # before RAFT-DRIVE-CHECK-QUORUM-ACK's core (four voters: a voter counted across a renewed
    # period's end, a second voter's fetch, a second timeout, at which the leader leads on) and
    # RAFT-DRIVE-HELD-ACROSS-EPOCH at RAFT-DRIVE-SNAPSHOT-TABLE's end (three voters, kip-595: the
    # lagging voter's FetchSnapshot held while another voter is elected, then answered in the new
    # epoch). The reference conforms on each path; each mutant diverges on it, not on the path
    # with those steps switched off.
    spec = PROTOCOLS["raft"]()
    target = reference_target("raft")
    four = {**next(c for c in RAFT_CONFIGS if c["voters"] == 4 and not c["pre_vote"]), **target.model_config}
    three = {**RAFT_CONFIGS[0], **target.model_config}
    for config, probe, mutant, switch, off in (
            (four, "RAFT-DRIVE-CHECK-QUORUM-ACK", "raft-renewed-period-restarts-count", "_check_quorum_carry",
             lambda state, _leader: ([], state)),
            (three, "RAFT-DRIVE-SNAPSHOT-TABLE", "raft-snapshot-answer-error-first", "_held_across_epoch",
             lambda *_: False)):
        paths = []
        for switched in (False, True):
            driver = _probe_steps_only(spec.driver(config))
            driver._held_across_epoch = type(driver)._held_across_epoch.__get__(driver)
            if switched:
                setattr(driver, switch, off)
            paths.append(_start_path(driver, next(p for p in driver.start_probes() if p.id == probe)))
        path, alone = paths
        assert len(path) > len(alone), probe
        assert guide.offered(spec.driver(config), path) and not diverges(spec, config, target, path), probe
        assert diverges(spec, config, CATALOGUE[mutant].target(), path), mutant
        assert not diverges(spec, config, CATALOGUE[mutant].target(), alone), mutant
    # the carry's steps: three fetches, a timeout, a fetch, a timeout (four voters), then the core's
    driver = spec.driver(four)
    acked = _start_path(driver, next(p for p in driver.start_probes() if p.id == "RAFT-DRIVE-CHECK-QUORUM-ACK"))
    resigns = [i for i, (c, _) in enumerate(acked) if c == "resign"]
    assert len(resigns) >= 3 and [c for c, _ in acked[resigns[0] - 1:resigns[1] + 1]] == [
        "round_trip", "resign", "round_trip", "resign"]
    # the held FetchSnapshot is delivered after the election, and its answer after it
    driver = spec.driver(three)
    table = _start_path(driver, next(p for p in driver.start_probes() if p.id == "RAFT-DRIVE-SNAPSHOT-TABLE"))
    kinds = [type(a.message).__name__ for c, a in table if c == "deliver"]
    assert kinds.index("FetchSnapshotRequest") + 1 == kinds.index("FetchSnapshotResponse")
    assert kinds.index("VoteResponse") < kinds.index("FetchSnapshotRequest")


def test_snapshot_fetched_pre_vote_catches_its_mutant() -> None:
    # Session 29 (blindraft), RAFT-DRIVE-SNAPSHOT-FETCHED: at RAFT-DRIVE-SNAPSHOT-TABLE's end in a
    # kip-996 shape (where RAFT-DRIVE-HELD-ACROSS-EPOCH does not fit), the lagging voter, named the
    # leader's snapshot by its fetch answer, is asked an up-to-date pre-vote of its epoch: it has
    # fetched, so it refuses. The reference conforms on the path; the mutant that counts only
    # records and truncations as fetches diverges on it, not on the path with the step off; a
    # kip-595 shape's path has no such step.
    spec = PROTOCOLS["raft"]()
    target = reference_target("raft")
    pre_vote = {**next(c for c in RAFT_CONFIGS if c["pre_vote"] and c["voters"] == 3 and not c["observers"]),
                **target.model_config}
    paths = []
    for switched in (False, True):
        driver = _probe_steps_only(spec.driver(pre_vote))
        if switched:
            driver._snapshot_fetched_pre_vote = lambda *_: False
        paths.append(_start_path(driver, next(p for p in driver.start_probes() if p.id == "RAFT-DRIVE-SNAPSHOT-TABLE")))
    path, alone = paths
    assert len(path) == len(alone) + 1 and path[-1][0] == "inject" and path[-1][1].message.pre_vote
    assert guide.offered(spec.driver(pre_vote), path) and not diverges(spec, pre_vote, target, path)
    mutant = CATALOGUE["raft-snapshot-id-answer-not-fetched"].target()
    assert diverges(spec, pre_vote, mutant, path)
    assert not diverges(spec, pre_vote, mutant, alone)
    three = {**RAFT_CONFIGS[0], **target.model_config}
    driver = _probe_steps_only(spec.driver(three))
    table = _start_path(driver, next(p for p in driver.start_probes() if p.id == "RAFT-DRIVE-SNAPSHOT-TABLE"))
    assert not any(c == "inject" for c, _ in table)


def test_a_snapshot_load_is_ordered_before_the_commit_after_it() -> None:
    # Session 29 (blindraft), RAFT-OBS-LISTENER-SNAPSHOT: the KRaft drivers order a step's
    # HandleLoadSnapshot before its HandleCommit (red team raft_scratch20:listener-commit-before-
    # snapshot-load escaped seeds 0 and 1 as a multiset; mutant raft-commit-before-snapshot-load is
    # caught at run 49 at seed 0, a lone voter's reboot with a snapshot, by this rule).
    for protocol in ("raft", "voters"):
        spec = PROTOCOLS[protocol]()
        assert SNAPSHOT_LOADED_BEFORE_COMMIT in spec.driver(spec.configs[0]).output_order, protocol
    assert SNAPSHOT_LOADED_BEFORE_COMMIT[:2] == (frozenset({"HandleLoadSnapshot"}), frozenset({"HandleCommit"}))
