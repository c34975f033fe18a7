"""The voter-set (KIP-853) conformance suite: the reference conforms at both levels, the voter
mutants are caught and their counterexamples replay, the observation checks catch what they
name, and ``kspec conform voters`` / ``kspec replay`` / ``kspec targets`` behave.

Every voters mutant is also caught from scratch at the default budget by the catalogue test
(test_conformance_lockstep.py). The stored counterexamples (``testdata/voters/``) pin down the
hard ones (a truncated VotersRecord, a second change in flight, a committed self-removal)
independently of how Hypothesis explores: each must still replay to its recorded divergence,
and the reference must conform on it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lockstep_paths import diverges

from kspec.conformance.cli import main
from kspec.conformance.counterexample import read_counterexample
from kspec.conformance.drivers import PROTOCOLS, guide, macros, voters_log
from kspec.conformance.drivers.raft import PROBE
from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.drivers.voters import (
    CONFIGS,
    Ignored,
    StartUp,
    VotersDriver,
    _history_violation,
    _rebuild_violation,
    describe_quorum,
)
from kspec.conformance.harness import replay_steps
from kspec.conformance.targets.mutants import CATALOGUE
from kspec.conformance.targets.reference.voters import VotersTarget
from kspec.conformance.targets.registry import reference_target, resolve_target
from kspec.model.raft.messages import ElectionTimeout, FetchDue, FetchTimeout
from kspec.model.raft.system import Fire
from kspec.model.voters.node import NO_DIRECTORY, AddVoter, RemoveVoter, UpdateVoter, replaced_directory

DATA = Path(__file__).parent / "testdata" / "voters"
# Caught within a few dozen runs at seed 0: run from scratch here.
QUICK = ["voters-change-on-commit", "voters-snapshot-without-voters", "voters-log-restart-ignores-snapshot",
         "voters-first-leader-skips-voters", "voters-observer-stuck-on-bootstrap"]
STORED = sorted(p.name for p in DATA.glob("*.itf.json"))


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


# The replica level (the default) is held at 120 runs by test_conformance_lockstep.py's
# test_reference_conforms[voters]; the log level only here.
@pytest.mark.parametrize("level", ["log"])
def test_reference_conforms(level: str, tmp_path: Path) -> None:
    target = reference_target("voters", level)
    assert target.level == level
    result = run_conformance("voters", target, examples=40, seed_value=5, out_dir=tmp_path)
    assert result.verdict == "conforms", result.finding and result.finding.line()
    assert not list(tmp_path.iterdir())


def test_catalogue_has_both_levels() -> None:
    voters = {n: m for n, m in CATALOGUE.items() if m.protocol == "voters"}
    levels = {n: m.target().level for n, m in voters.items()}
    assert {"voters-history-not-truncated", "voters-two-changes-in-flight", "voters-change-on-commit",
            "voters-snapshot-without-voters"} <= set(voters)
    assert "log" in levels.values() and "replica" in levels.values()
    assert all(m.doc for m in voters.values())


@pytest.mark.parametrize("name", QUICK)
def test_quick_mutant_caught_and_replays(name: str, tmp_path: Path) -> None:
    mutant = CATALOGUE[name]
    result = run_conformance("voters", mutant.target(), out_dir=tmp_path)  # the default budget
    assert result.verdict == "diverges", f"{name} not caught"
    assert result.finding is not None and result.counterexample is not None
    meta, steps = read_counterexample(Path(result.counterexample))
    assert meta["config"]["level"] == mutant.target().level
    driver = PROTOCOLS["voters"]().driver(meta["config"])
    again = replay_steps(driver, mutant.target(), steps)
    assert again.finding is not None and again.finding.same_as(meta["divergence"]), again.finding
    fixed = replay_steps(driver, reference_target("voters", meta["config"]["level"]), steps)
    assert fixed.finding is None, fixed.finding.line() if fixed.finding else ""


@pytest.mark.parametrize("file", STORED)
def test_stored_counterexample_replays(file: str) -> None:
    meta, steps = read_counterexample(DATA / file)
    name = meta["target"].removeprefix("mutant:")
    assert meta["protocol"] == "voters" and name in CATALOGUE
    driver = PROTOCOLS["voters"]().driver(meta["config"])
    again = replay_steps(driver, CATALOGUE[name].target(), steps)
    assert again.finding is not None and again.finding.same_as(meta["divergence"]), again.finding
    fixed = replay_steps(driver, reference_target("voters", meta["config"].get("level", "")), steps)
    assert fixed.finding is None, fixed.finding.line() if fixed.finding else ""


def test_stored_counterexamples_cover_the_slow_mutants() -> None:
    stored = {read_counterexample(DATA / f)[0]["target"].removeprefix("mutant:") for f in STORED}
    assert {"voters-history-not-truncated", "voters-two-changes-in-flight", "voters-removed-leader-stays",
            "voters-voter-only-votes", "voters-restart-follows-unreachable-leader",
            "voters-observer-fetches-voter"} <= stored


def test_log_level_events_follow_the_model() -> None:
    """The log-level inputs of the opening are the leader's and followers' appends, and the
    observation after the last one is the model replica's control state."""
    driver = VotersDriver({"level": "log"})
    start = driver.init_state()
    (category, opening), = driver.candidates(start)
    events = driver.events(start, opening, driver.resolve(start, opening))
    assert category == "opening" and {e.input["type"] for e in events} == {"Append"}
    # The first leader's batch: LeaderChange, then the bootstrap set (VOTERS-RULE-FIRST-LEADER).
    assert events[0].input == {"type": "Append", "base_offset": 0,
                               "entries": [{"epoch": 1, "record": {"type": "LeaderChange"}},
                                           {"epoch": 1, "record": {"type": "KRaftVersion", "version": 1}},
                                           {"epoch": 1, "record": {"type": "Voters",
                                                                   "voters": [[1, 1], [2, 2], [3, 3]]}}]}
    assert all(e.model_observation["voters"] == [[1, 1], [2, 2], [3, 3]] for e in events)
    assert driver.node_config(4) == {"level": "log", "static_voters": [], "pre_vote": False, "kraft_upgrade": True,
                                     "bootstrap": {"kraft_version": 1, "voters": [[1, 1], [2, 2], [3, 3]]}}


def test_free_log_follows_the_control_state() -> None:
    """The free log (node 0, log level) takes a VotersRecord sharing no voter with the last one
    (VOTERS-HIST-ADD-OVERLAP: the reader does not check overlap) and answers reads at every
    offset, refusing the next offset (VOTERS-CTRL-READ)."""
    driver = VotersDriver({"level": "log"})
    assert voters_log.FREE_LOG in driver.nodes() and voters_log.FREE_LOG not in VotersDriver({}).nodes()
    state = driver.resolve(driver.init_state(), StartUp())
    disjoint = [a for c, a in driver.candidates(state) if c == "free_voters"
                and driver.input_cells(state, a) == [("free log", "Voters:disjoint")]]
    assert disjoint, driver.candidates(state)
    after = driver.resolve(state, disjoint[0])
    (event,) = driver.events(state, disjoint[0], after)
    assert event.node == voters_log.FREE_LOG and event.input["type"] == "Append"
    assert event.model_observation["voters"] == [[4, 4], [5, 5], [6, 6]]
    assert event.model_observation["history"] == [[-1, [[1, 1], [2, 2], [3, 3]]], [0, [[4, 4], [5, 5], [6, 6]]]]
    reads = {a.offset: a for c, a in driver.candidates(after) if c == "free_read"}
    assert sorted(reads) == [-1, 0, 1]
    answers = [driver.events(after, reads[o], after)[0].model_outputs for o in (-1, 0, 1)]
    assert answers == [[{"type": "ReadAt", "offset": -1, "kraft_version": 1, "voters": [[1, 1], [2, 2], [3, 3]]}],
                       [{"type": "ReadAt", "offset": 0, "kraft_version": 1, "voters": [[4, 4], [5, 5], [6, 6]]}],
                       [{"type": "ReadRefused", "offset": 1}]]
    # the free log's history may jump; the cluster's replicas' may not
    jump = {"voters": [[4, 4]], "history": [[-1, [[1, 1], [2, 2]]], [0, [[4, 4]]]]}
    assert _history_violation(voters_log.FREE_LOG, jump, 1, [], False) is None
    assert "ONE-VOTER-DIFF" in (_history_violation(1, jump, 1, []) or "")


BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_free_log_probes_end_every_guided_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """VOTERS-DRIVE-FREE-PROBE: a guided log-level path ends with the free log's script: a
    disjoint VotersRecord after a single change, a refused read at the next offset and an
    answered one below it, a truncation and a read at the new log end (refused), a rewrite."""
    driver = VotersDriver({"hosts": 3, "voters": 3, "kraft_version": 1, "pre_vote": False, "level": "log"})
    state = driver.resolve(driver.init_state(), StartUp())
    for k in (0, 1):
        script = driver.probes(state, k)
        after = state
        cells = []
        for _, action in script:
            cells += driver.input_cells(after, action)
            after = driver.resolve(after, action)
            assert after is not None, action
        kinds = [kind for _, kind in cells]
        assert kinds[:2] == ["Voters:one-change", "Voters:disjoint"], kinds
        assert kinds[2:4] == ["Read:refused", "Read"] and "Truncate" in kinds, kinds
        cut = kinds.index("Truncate")
        assert kinds[cut + 1] == "Read:refused", kinds  # at the new log end: K2's reader answers
        # VOTERS-DRIVE-FREE-VERSION-TRIM: the kraft.version written again before the last snapshot
        assert kinds[-9:-7] == ["KRaftVersion", "Snapshot"], kinds
        # VOTERS-DRIVE-FREE-REBUILD: then a restart and reads at the snapshot's last offset and -1
        assert kinds[-5:-2] == ["Restart", "Read", "Read"], kinds
        # VOTERS-DRIVE-FREE-REPEATED-SET: then the set in force written again and read there
        assert kinds[-2:] == ["Voters:repeated", "Read"], kinds
        assert script[-2][0] == "probe"
    assert driver.probes(driver.resolve(driver.init_state(), StartUp()), 0) != driver.probes(state, 1)
    static = VotersDriver({"hosts": 3, "voters": 3, "kraft_version": 0, "pre_vote": False, "level": "log"})
    after = static.resolve(static.init_state(), StartUp())
    kinds = []
    for _, action in static.probes(after, 0):
        kinds += [kind for _, kind in static.input_cells(after, action)]
        after = static.resolve(after, action)
    # a static quorum's upgrade record, then a snapshot ending before it (it holds kraft.version 0)
    assert kinds[:3] == ["LeaderChange", "KRaftVersion", "Snapshot"] and "Truncate" in kinds, kinds
    # VOTERS-DRIVE-FREE-REBUILD: a snapshot holding kraft.version 1 and no voter set, a restart
    assert kinds[3:5] == ["Snapshot", "Restart"], kinds
    replica = VotersDriver({"hosts": 3, "voters": 3, "kraft_version": 1, "pre_vote": False, "level": "replica"})
    # (from the start-up VOTERS-DRIVE-TRUNCATED-CHANGE would come first and leave the removal the
    # epoch bound: test_truncated_change_and_fresh_leader_probes tests it; off here)
    monkeypatch.setattr(VotersDriver, "_truncated_change_probe", lambda self, state: [])
    # the replica level has no free log: with no observer, only VOTERS-DRIVE-DESCRIBE's
    # DescribeQuorum, VOTERS-DRIVE-ODD-KEY-PROBE's and VOTERS-DRIVE-CROSSED-KEY-PROBE's requests
    # at the leader end the path, then VOTERS-DRIVE-REMOVED-LEADER-TIMER: the leader removes
    # itself, the record replicates (it resigns), its election timer, its fetch to a bootstrap server
    script = replica.probes(replica.resolve(replica.init_state(), StartUp()), 0)
    assert script[:5] == [
        ("request", Ignored(1, describe_quorum(1))), ("request", Ignored(1, AddVoter(3, 0))),
        ("request", Ignored(1, RemoveVoter(1, 0))),
        ("request", Ignored(1, UpdateVoter(9, 9, 1, min_version=2, max_version=3))),
        ("request", Ignored(1, RemoveVoter(1, 3)))]
    assert script[5:8] == [("reconfig", Fire(1, RemoveVoter(1, 1))), ("replicate", macros.Replicate(1)),
                           ("timer", Fire(1, ElectionTimeout()))], script[5:]
    assert script[8] == ("fetch", Fire(1, FetchDue(2))), script[8:]


def test_free_log_reader_bugs_caught_by_the_first_guided_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The red-team reader bugs (bench/redteam/voters_scratch.py) that escaped seeds or showed
    only after the guided runs, at the default budget, are caught by the first guided path's
    probes (the guided paths do not depend on the seed)."""
    monkeypatch.syspath_prepend(str(BENCH))
    for bug in ("TruncateKeepsNextOffset", "ReadRefusedOffByOne", "NonOverlappingRefused"):
        result = run_conformance("voters", resolve_target(f"python:redteam.voters_scratch:{bug}", "voters"),
                                 out_dir=tmp_path)
        assert result.verdict == "diverges" and result.first_runs == 1, (bug, result.first_runs)
    # session 9's: a snapshot holding the newest kraft.version read (escaped; now the first static
    # quorum's guided path, run 3), a read below the snapshot refused (was run 153)
    for bug, runs in (("SnapshotVersionFromLastTarget", 3), ("ReadBelowSnapshotRefusedTarget", 1)):
        result = run_conformance("voters", resolve_target(f"python:redteam.voters_scratch2:{bug}", "voters"),
                                 out_dir=tmp_path)
        assert result.verdict == "diverges" and result.first_runs is not None and result.first_runs <= runs, \
            (bug, result.first_runs)


def test_observation_checks_name_the_rule() -> None:
    ok = {"voters": [[1, 1], [2, 2]], "history": [[-1, [[1, 1]]], [3, [[1, 1], [2, 2]]]]}
    assert _history_violation(1, ok, 4, []) is None
    assert "HISTORY-ORDER" in (_history_violation(1, ok, 3, []) or "")
    jump = {"voters": [[1, 1], [2, 2], [3, 3]], "history": [[-1, [[1, 1]]], [3, [[1, 1], [2, 2], [3, 3]]]]}
    assert "ONE-VOTER-DIFF" in (_history_violation(1, jump, 4, []) or "")
    stale = {"voters": [[1, 1]], "history": ok["history"]}
    assert "CURRENT-SET" in (_history_violation(1, stale, 4, []) or "")
    assert "CURRENT-SET" in (_history_violation(1, {"voters": [], "history": []}, 0, [[1, 1]]) or "")
    # a restart may move the last set to the snapshot's offset, but must answer the same
    moved = {"kraft_version": 1, "voters": [[1, 1], [2, 2]], "history": [[5, [[1, 1], [2, 2]]]]}
    assert _rebuild_violation(1, {**ok, "kraft_version": 1}, moved) is None
    lost = {"kraft_version": 1, "voters": [[1, 1], [2, 2]], "history": [[-1, [[1, 1]]]]}
    assert "REBUILD" in (_rebuild_violation(1, {**ok, "kraft_version": 1}, lost) or "")


def test_level_mismatch_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    target = VotersTarget("replica-only", serves=("replica",))
    with pytest.raises(Exception, match="serves the replica level, the run drives the log level"):
        target.start(1, {"level": "log", "static_voters": [], "bootstrap": None})
    code, _, err = _cli(capsys, "conform", "voters", "--target", "reference:bogus")
    assert code == 2 and "reference:bogus" in err and len(err.strip().splitlines()) == 1


def test_cli_targets_conform_replay(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = _cli(capsys, "targets", "--protocol", "voters", "--json")
    names = {r["name"] for r in json.loads(out)}
    assert code == 0 and {"reference", "reference:log", "mutant:voters-history-not-truncated"} <= names
    code, out, _ = _cli(capsys, "conform", "voters", "--target", "reference:log", "--examples", "15",
                        "--seed", "0", "--out", str(tmp_path), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["verdict"] == "conforms"
    # Issue #18: the free log writes consecutive VotersRecords sharing no voter, and reads at
    # every offset (refused past the next offset); the run's coverage matrix counts them (the
    # default run at seed 0, 355 runs, counts 384 disjoint pairs; these 15 runs are its first).
    free = doc["coverage"]["matrix"]["free log"]
    assert free["Voters:disjoint"] > 0 and free["Voters:no-majority"] > 0
    assert free["Read"] > 0 and free["Read:refused"] > 0 and free["Truncate"] > 0 and free["Snapshot"] > 0
    code, out, _ = _cli(capsys, "conform", "voters", "--target", "mutant:voters-log-restart-ignores-snapshot",
                        "--out", str(tmp_path), "--json")
    doc = json.loads(out)
    assert code == 1 and doc["verdict"] == "diverges" and Path(doc["counterexample"]).exists()
    code, out, _ = _cli(capsys, "replay", doc["counterexample"], "--json")
    again = json.loads(out)
    assert code == 1 and again["reproduced"] is True and again["steps"] == doc["steps"]
    code, out, _ = _cli(capsys, "replay", doc["counterexample"], "--target", "reference:log", "--json")
    assert code == 0 and json.loads(out)["verdict"] == "conforms"
    # the file records the level: the reference (driven at the replica level by default) replays
    # it at the log level
    code, out, _ = _cli(capsys, "replay", doc["counterexample"], "--target", "reference", "--json")
    assert code == 0 and json.loads(out)["verdict"] == "conforms"


def test_resolve_reference_levels() -> None:
    assert resolve_target("reference", "voters").level == "replica"
    assert resolve_target("reference:log", "voters").level == "log"


def test_leaderless_answer_probe_keeps_the_lapse(monkeypatch: pytest.MonkeyPatch) -> None:
    """VOTERS-DRIVE-LEADERLESS-ANSWER-PROBE: from the started quorum (4 hosts, 3 voters) every
    third guided path's probe brings the observer to a new leader's epoch while a voter there
    knows no leader yet, lets that voter's leaderless answer reach the lapsed observer, and ends
    with a fetch the model sends to another bootstrap server (the lapse goes on). (The last
    path-end probe, VOTERS-DRIVE-FRESH-LEADER, then finds a voter that can still stand: off here,
    test_truncated_change_and_fresh_leader_probes tests it.)"""
    monkeypatch.setattr(VotersDriver, "_fresh_leader_probe", lambda self, state: [])
    driver = VotersDriver({"hosts": 4, "voters": 3, "kraft_version": 1, "pre_vote": False})
    state = driver.resolve(driver.init_state(), StartUp())
    script = driver.probes(state, 2)
    for _, action in script[:-1]:
        state = driver.resolve(state, action)
        assert state is not None, action
    answer = script[-2][1].message
    assert answer.error == "NOT_LEADER_OR_FOLLOWER" and answer.leader is None
    observer = state.node(answer.dst)
    assert observer.fetch_lapsed and answer.epoch == observer.epoch
    last = script[-1][1]
    (event,) = driver.events(state, last, driver.resolve(state, last))
    assert [o["type"] for o in event.model_outputs] == ["FetchRequest"]
    assert event.model_outputs[0]["dst"] != observer.role.leader


def test_malformed_requests_offered_at_a_follower() -> None:
    """VOTERS-RULE-KEY-VALID / -ADD-ENDPOINT at a non-leader: the driver offers the malformed
    AddVoter and RemoveVoter there too, answered NOT_LEADER_OR_FOLLOWER (the role check first)."""
    driver = VotersDriver({"hosts": 4, "voters": 3, "kraft_version": 1, "pre_vote": False})
    state = driver.resolve(driver.init_state(), StartUp())
    offered = [a.input for c, a in driver.candidates(state)
               if c == "request" and isinstance(a, Ignored) and a.node == 2
               and isinstance(a.input, AddVoter | RemoveVoter)]
    malformed = [r for r in offered if r.replica < 0 or r.directory == NO_DIRECTORY or not getattr(r, "endpoint", True)]
    assert len(malformed) == 6
    for request in malformed:
        (event,) = driver.events(state, Ignored(2, request), state)
        assert [o.get("error") for o in event.model_outputs] == ["NOT_LEADER_OR_FOLLOWER"]


def test_uncommitted_add_probe_asks_right_after_an_append() -> None:
    """VOTERS-DRIVE-UNCOMMITTED-ADD-PROBE: a guided path ends with the leader's client append and
    an AddVoter for the observer, which held the log end before it and is not caught up after."""
    driver = VotersDriver({"hosts": 4, "voters": 3, "kraft_version": 1, "pre_vote": False})
    state = driver.resolve(driver.init_state(), StartUp())
    script = driver.probes(state, 0)
    # first VOTERS-DRIVE-DESCRIBE's DescribeQuorum at the leader (it changes nothing)
    assert script[0] == ("request", Ignored(1, describe_quorum(1)))
    # then VOTERS-DRIVE-ODD-KEY-PROBE's three refused requests (directory 0, UpdateVoter(9, [2, 3]))
    assert [c for c, _ in script[1:4]] == ["request"] * 3
    # then VOTERS-DRIVE-CROSSED-KEY-PROBE's RemoveVoter(lowest voter, highest voter's directory)
    assert script[4] == ("request", Ignored(1, RemoveVoter(1, 3)))
    script = script[5:]
    assert [c for c, _ in script[:2]] == ["client", "request"]
    after = driver.resolve(state, script[0][1])
    (event,) = driver.events(after, script[1][1], after)
    assert event.input["type"] == "AddVoter" and event.input["replica"] == 4
    assert [o.get("error") for o in event.model_outputs] == ["REQUEST_TIMED_OUT"]


def test_unreachable_leader_probe_reboots_a_follower_of_a_removed_leader() -> None:
    """VOTERS-DRIVE-UNREACHABLE-RESTART: on every fourth path the leader removes itself, the
    VotersRecord is replicated and a follower whose set no longer holds the leader reboots: it
    comes back unattached, keeping the leader's id (VOTERS-RULE-LEADER-UNREACHABLE); each step
    offered in its category. Nothing on the other paths, nor without faults (no crash offered)."""
    driver = VotersDriver(CONFIGS[0])
    start = driver.resolve(driver.init_state(), StartUp())
    steps = driver._unreachable_leader_probe(start, 1)
    assert [c for c, _ in steps] == ["reconfig", "replicate", "crash"]
    state = start
    for category, action in steps:
        assert (category, action) in driver.candidates(state), (category, action)
        state = driver.resolve(state, action)
    rebooted = state.node(steps[-1][1].node)
    assert type(rebooted.role).__name__ == "Unattached" and rebooted.role.leader == 1 and 1 not in rebooted.voters
    assert driver._unreachable_leader_probe(start, 0) == []
    calm = VotersDriver(next(c for c in CONFIGS if c.get("faults") is False))
    assert calm._unreachable_leader_probe(calm.resolve(calm.init_state(), StartUp()), 1) == []


def _started(config: dict[str, object]) -> tuple[VotersDriver, object]:
    driver = VotersDriver({**config, "controller_auto_join": True})
    return driver, driver.resolve(driver.init_state(), StartUp())


def _take(driver: VotersDriver, state: object, steps: list[tuple[str, object]]) -> object:
    for category, action in steps:
        assert (category, action) in driver.candidates(state), (category, action)  # type: ignore[arg-type]
        state = driver.resolve(state, action)  # type: ignore[arg-type]
        assert state is not None
    return state


def test_unreachable_restart_under_pre_vote_stands_again_from_the_unreachable_state() -> None:
    """VOTERS-DRIVE-UNREACHABLE-RESTART under KIP-996: after the reboot, the replica's election
    timer twice: the lost round returns it to unattached with the removed leader kept, and it
    stands again at once (its prior still names that leader), never the leader's follower. On
    any path of the pre-vote configuration whose end leaves the budget; elsewhere only k % 4 == 1."""
    driver, start = _started(next(c for c in CONFIGS if c["pre_vote"]))
    steps = driver._unreachable_leader_probe(start, 0)  # type: ignore[arg-type]
    assert [c for c, _ in steps] == ["reconfig", "replicate", "crash", "timer", "timer"]
    end = _take(driver, start, steps)
    node = end.node(steps[-1][1].node)  # type: ignore[attr-defined]
    assert type(node.role).__name__ == "Prospective" and node.role.prior.leader == 1
    plain, begun = _started(CONFIGS[0])
    assert plain._unreachable_leader_probe(begun, 0) == []  # type: ignore[arg-type]


def test_rejoin_probe_has_a_removed_voter_ask_again() -> None:
    """VOTERS-DRIVE-REJOIN-PROBE: the leader removes a voter follower, the removal commits, and
    that replica's update-voter-set timer sends AddVoter for itself, delivered to the leader."""
    driver, start = _started(next(c for c in CONFIGS if c.get("auto_join")))
    steps = driver._rejoin_probe(start)  # type: ignore[arg-type]
    assert [c for c, _ in steps][:4] == ["reconfig", "replicate", "timer", "deliver"]
    before_timer = _take(driver, start, steps[:2])
    (event,) = driver.events(before_timer, steps[2][1], driver.resolve(before_timer, steps[2][1]))  # type: ignore[arg-type]
    assert [o["type"] for o in event.model_outputs] == ["AddVoterRequest"]
    assert VotersDriver(CONFIGS[0])._rejoin_probe(start) == []  # type: ignore[arg-type]


def test_rejoin_fetch_tail_fires_the_timer_while_the_own_addition_is_uncommitted() -> None:
    """VOTERS-DRIVE-REJOIN-FETCH: after the rejoin probe's AddVoter, the rejoined voter's fetch
    brings the VotersRecord adding it (its high watermark below it), then its update-voter-set
    timer, where the model sends nothing (it is a voter of the set at its log end)."""
    driver, start = _started(next(c for c in CONFIGS if c.get("auto_join")))
    steps = driver._rejoin_probe(start)  # type: ignore[arg-type]
    assert [c for c, _ in steps][4:] == ["fetch", "deliver", "deliver", "idle"]
    before_timer = _take(driver, start, steps[:-1])
    v = steps[-1][1].node  # type: ignore[attr-defined]
    node = before_timer.node(v)
    assert (v, v) in node.control.last_voter_set()
    assert node.high_watermark is not None and node.high_watermark < len(node.log)
    (event,) = driver.events(before_timer, steps[-1][1], driver.resolve(before_timer, steps[-1][1]))  # type: ignore[arg-type]
    assert event.model_outputs == []


def test_own_report_probe_sends_the_leaders_own_update_at_kraft_version_zero() -> None:
    """VOTERS-DRIVE-OWN-REPORT: at a kraft.version-0 leader that has committed, its own UpdateVoter
    (category PROBE), accepted with no output and no change; nothing at kraft.version 1."""
    driver, start = _started(next(c for c in CONFIGS if c["kraft_version"] == 0))
    steps = driver._own_report_probe(start)  # type: ignore[arg-type]
    assert [c for c, _ in steps] == [PROBE]
    (_, action), = steps
    assert action.input.replica == action.node and start.node(action.node).kraft_version == 0  # type: ignore[attr-defined]
    assert driver.resolve(start, action) == start
    (event,) = driver.events(start, action, start)  # type: ignore[arg-type]
    assert event.model_outputs == []
    plain, begun = _started(CONFIGS[0])
    assert plain._own_report_probe(begun) == []  # type: ignore[arg-type]


def test_upgrade_directory_probe_writes_the_named_directory_last() -> None:
    """VOTERS-DRIVE-UPGRADE-DIRECTORY: at a kraft.version-0 leader an update naming another
    directory (category PROBE: no lockstep rule draws it, the guide graph leaves it out), the
    other voters' updates and the upgrade, whose VotersRecord holds that directory."""
    driver, start = _started(next(c for c in CONFIGS if c["kraft_version"] == 0))
    start = _take(driver, start, [("replicate", next(a for c, a in driver.candidates(start) if c == "replicate"))])
    steps = driver._upgrade_directory_probe(start)  # type: ignore[arg-type]
    assert steps[0][0] == PROBE and steps[-1][0] == "reconfig"
    assert PROBE not in driver.categories and PROBE in driver.unguided
    end = _take(driver, start, steps)
    leader = end.node(steps[0][1].node)  # type: ignore[attr-defined]
    named = steps[0][1].input  # type: ignore[attr-defined]
    assert (named.replica, named.directory) in leader.control.last_voter_set() and leader.kraft_version == 1


def test_relead_upgrade_probe_ends_with_the_upgrade_refused_in_the_new_epoch() -> None:
    """VOTERS-DRIVE-RELEAD-UPGRADE: at a kraft.version-0 leader that heard every voter's report,
    another voter's election and the leader's own again, then the upgrade: refused
    INVALID_UPDATE_VERSION (the reports belonged to the earlier epoch); nothing at kraft.version 1."""
    driver, start = _started(next(c for c in CONFIGS if c["kraft_version"] == 0))
    steps = driver._relead_upgrade_probe(start)  # type: ignore[arg-type]
    assert steps and steps[-1][0] == "request" and [c for c, _ in steps].count("timer") == 2
    before = _take(driver, start, steps[:-1])
    leader = steps[-1][1].node  # type: ignore[attr-defined]
    assert before.node(leader).epoch == start.node(leader).epoch + 2  # type: ignore[attr-defined]
    (event,) = driver.events(before, steps[-1][1], driver.resolve(before, steps[-1][1]))  # type: ignore[arg-type]
    assert [o.get("error") for o in event.model_outputs] == ["INVALID_UPDATE_VERSION"]
    plain, begun = _started(CONFIGS[0])
    assert plain._relead_upgrade_probe(begun) == []  # type: ignore[arg-type]


def test_withdrawn_upgrade_probe_refuses_the_upgrade_after_a_voter_withdrew() -> None:
    """VOTERS-DRIVE-UPGRADE-WITHDRAWN: at a kraft.version-0 leader that has committed, the reports
    it lacks, the lowest other voter's [0, 0] update (taken: kept in memory) and the upgrade,
    refused INVALID_UPDATE_VERSION; nothing at kraft.version 1."""
    driver, start = _started(next(c for c in CONFIGS if c["kraft_version"] == 0))
    steps = driver._withdrawn_upgrade_probe(start)  # type: ignore[arg-type]
    assert steps and steps[-1][0] == "request" and steps[-2][0] == "update"
    assert (steps[-2][1].input.min_version, steps[-2][1].input.max_version) == (0, 0)  # type: ignore[attr-defined]
    before = _take(driver, start, steps[:-1])
    (event,) = driver.events(before, steps[-1][1], driver.resolve(before, steps[-1][1]))  # type: ignore[arg-type]
    assert [o.get("error") for o in event.model_outputs] == ["INVALID_UPDATE_VERSION"]
    plain, begun = _started(CONFIGS[0])
    assert plain._withdrawn_upgrade_probe(begun) == []  # type: ignore[arg-type]


def test_crossed_key_probe_pairs_a_voter_with_another_voters_directory() -> None:
    """VOTERS-DRIVE-CROSSED-KEY-PROBE: where a replica leads, RemoveVoter of the lowest voter under
    the highest voter's directory, which the model refuses (VOTER_NOT_FOUND) and which changes
    nothing."""
    driver, start = _started(CONFIGS[0])
    (step,) = driver._crossed_key_probe(start)  # type: ignore[arg-type]
    request = step[1].input  # type: ignore[attr-defined]
    voters = sorted(start.node(step[1].node).voters)  # type: ignore[attr-defined]
    assert (request.replica, request.directory) == (voters[0], voters[-1])
    assert driver.resolve(start, step[1]) == start
    (event,) = driver.events(start, step[1], start)  # type: ignore[arg-type]
    assert [o.get("error") for o in event.model_outputs] == ["VOTER_NOT_FOUND"]


def test_static_join_probe_fires_the_timer_of_an_observer_at_kraft_version_zero() -> None:
    """VOTERS-DRIVE-STATIC-JOIN: the auto-join configuration at kraft.version 0 exists, and where
    an observer follows a leader its update-voter-set timer is offered (idle) and sends nothing;
    nothing in a configuration without auto-join."""
    config = next(c for c in CONFIGS if c.get("auto_join") and c["kraft_version"] == 0)
    driver, start = _started(config)
    state = _take(driver, start, [("replicate", next(a for c, a in driver.candidates(start) if c == "replicate"))])
    steps = driver._static_join_probe(state)  # type: ignore[arg-type]
    assert [c for c, _ in steps] == ["idle"] and driver.resolve(state, steps[0][1]) == state  # type: ignore[arg-type]
    plain, begun = _started(next(c for c in CONFIGS if c["kraft_version"] == 0 and not c.get("auto_join")))
    assert plain._static_join_probe(begun) == []  # type: ignore[arg-type]


def test_added_leader_restart_probe_follows_the_added_leader_again() -> None:
    """VOTERS-DRIVE-ADDED-LEADER-RESTART: the observer is added and elected; a follower of it
    that reboots follows it again (its endpoint is in the voter set at the log end, though it is
    not a bootstrap server)."""
    driver, start = _started(CONFIGS[0])
    steps = driver._added_leader_restart_probe(start)  # type: ignore[arg-type]
    assert steps and steps[-1][0] == "crash"
    end = _take(driver, start, steps)
    rebooted = end.node(steps[-1][1].node)  # type: ignore[attr-defined]
    assert type(rebooted.role).__name__ == "Follower" and rebooted.role.leader not in rebooted.bootstrap_servers


def test_outsider_vote_probe_reboots_a_voter_outside_its_set() -> None:
    """VOTERS-DRIVE-OUTSIDER-VOTE-RESTART: the leader adds the observer, one voter alone fetches
    the VotersRecord and stands, the observer (outside its own set) grants the vote, reboots and
    comes back voted (VOTERS-RULE-OPEN-VOTE: a vote is a vote), then its fetch timer asks a
    bootstrap server; each step offered in its category. A start probe (a path of its own, where
    the crash budget is whole), with VOTERS-DRIVE-ADDED-LEADER-RESTART; nothing without faults
    (no crash) nor under KIP-996 (the pre-vote comes first)."""
    driver = VotersDriver(CONFIGS[0])
    assert [p.id for p in driver.start_probes()][:2] == ["VOTERS-DRIVE-ADDED-LEADER-RESTART",
                                                         "VOTERS-DRIVE-OUTSIDER-VOTE-RESTART"]
    start = driver.resolve(driver.init_state(), StartUp())
    assert driver.start_probes()[1].script(driver.init_state()) == []  # nothing before the start-up
    steps = driver.start_probes()[1].script(start)
    assert [c for c, _ in steps][-6:] == ["reconfig", "round_trip", "timer", "deliver", "crash", "fetch"]
    state = start
    for category, action in steps[:-1]:
        assert (category, action) in driver.candidates(state), (category, action)
        state = driver.resolve(state, action)
    observer = state.node(4)
    assert type(observer.role).__name__ == "Voted" and observer.role.voted_for == 2 and 4 not in observer.voters
    assert steps[-1] in driver.candidates(state)
    (event,) = driver.events(state, steps[-1][1], driver.resolve(state, steps[-1][1]))
    assert [o["type"] for o in event.model_outputs] == ["FetchRequest"]
    calm = VotersDriver(next(c for c in CONFIGS if c.get("faults") is False))
    assert calm.start_probes() == ()
    pre = VotersDriver(next(c for c in CONFIGS if c.get("pre_vote")))
    assert pre._outsider_vote_probe(pre.resolve(pre.init_state(), StartUp())) == [] and pre.start_probes() == ()


def test_stale_disk_fetch_probe_delivers_the_old_disks_fetch_after_the_rejoin() -> None:
    """VOTERS-DRIVE-STALE-DISK-FETCH: V's plain Fetch to the leader goes out just before its disk
    is replaced, outlives the swap, the removal of the old key and the addition of the new one,
    and is delivered then; an administrator's DescribeQuorum at the leader ends the path. Only
    for a target that declares disk replacement."""
    driver = VotersDriver({**CONFIGS[0], "disk_replacement": True, "controller_auto_join": True})
    assert "VOTERS-DRIVE-STALE-DISK-FETCH" in [p.id for p in driver.start_probes()]
    start = driver.resolve(driver.init_state(), StartUp())
    steps = driver._stale_disk_fetch_probe(start)  # type: ignore[arg-type]
    assert steps and steps[-1][0] == "request" and steps[-2][0] == "deliver"
    stale = steps[-2][1].message  # type: ignore[attr-defined]
    assert type(stale).__name__ == "FetchRequest" and stale.orphaned
    state = _take(driver, start, steps[:-1])
    leader = state.node(stale.dst)  # type: ignore[attr-defined]
    assert (stale.src, replaced_directory(stale.src, 1)) in leader.control.last_voter_set()
    assert VotersDriver(CONFIGS[0])._disk_start_probes() == ()


def test_truncated_change_and_fresh_leader_probes() -> None:
    """VOTERS-DRIVE-TRUNCATED-CHANGE (three voters, no observer, from the start-up): L's client
    append and RemoveVoter(W) stay uncommitted, V is elected without them, L truncates them, is
    elected again, commits its epoch and changes the set again: the reference conforms, a leader
    that keeps the first change pending refuses it (the catalogue's mutant and red team
    voters_scratch15's). VOTERS-DRIVE-FRESH-LEADER (the faults configuration, from the start-up):
    a voter elected and asked RemoveVoter at once, before any fetch of its epoch."""
    import sys

    from kspec.model.raft.state import Leader
    spec = PROTOCOLS["voters"]()

    sys.path.insert(0, str(BENCH))
    try:
        from redteam import voters_scratch15 as scratch
    finally:
        sys.path.pop(0)
    config = {"hosts": 3, "voters": 3, "kraft_version": 1, "pre_vote": False, "level": "replica"}
    driver = VotersDriver(config)
    start = driver.resolve(driver.init_state(), StartUp())
    script = driver._truncated_change_probe(start)
    assert [c for c, _ in script] == ["replicate", "client", "reconfig", "timer", "deliver", "deliver", "deliver",
                                      "round_trip", "timer", "deliver", "deliver", "deliver", "replicate", "reconfig"]
    assert script[2] == script[-1] == ("reconfig", Fire(1, RemoveVoter(3, 3)))
    path = [("opening", StartUp()), *script]
    assert guide.offered(driver, path)
    state = driver.init_state()
    for _, action in path[:-1]:
        state = driver.resolve(state, action)
    leader = state.node(1)
    assert isinstance(leader.role, Leader) and leader.epoch == 3 and leader.high_watermark == leader.end_offset
    assert not diverges(spec, config, reference_target("voters"), path)
    kept = getattr(scratch, scratch.TARGETS["pending-change-kept-across-leaderships"])
    for target in (CATALOGUE["voters-pending-change-awaits-truncated-record"].target(), kept()):
        assert diverges(spec, config, target, path)
        assert not diverges(spec, config, target, path[:-1])  # the last change only
    # VOTERS-DRIVE-FRESH-LEADER: where a follower can still stand, its election and requests at once
    faults = CONFIGS[0]
    driver = VotersDriver({**faults, "level": "replica"})
    start = driver.resolve(driver.init_state(), StartUp())
    fresh = driver._fresh_leader_probe(start)
    assert fresh[0] == ("timer", Fire(2, FetchTimeout())) and fresh[-1][0] == "request"
    path = [("opening", StartUp()), *fresh]
    assert guide.offered(driver, path)
    state = driver.init_state()
    for _, action in path:
        state = driver.resolve(state, action)
    assert isinstance(state.node(2).role, Leader) and state.node(2).high_watermark is None
    assert not diverges(spec, faults, reference_target("voters"), path)
    by_log = getattr(scratch, scratch.TARGETS["reconfig-before-epoch-commit-by-log-hw"])
    for target in (CATALOGUE["voters-change-judged-by-known-commit"].target(), by_log()):
        assert diverges(spec, faults, target, path)


def test_free_log_repeated_set_is_added_at_its_own_offset() -> None:
    """VOTERS-DRIVE-FREE-REPEATED-SET: the free-log script ends, after the restart, with the set in
    force written again (category PROBE, offered only to the script) and a read there: the
    reference conforms, a reader that takes the set read right after a rebuild for the snapshot's
    copy diverges there (the catalogue's mutant, and red team voters_scratch16's reader that drops
    any repeated set), and not without those two steps."""
    import sys

    spec = PROTOCOLS["voters"]()
    config = {"hosts": 4, "voters": 3, "kraft_version": 1, "pre_vote": False, "level": "log"}
    driver = VotersDriver(config)
    start = driver.resolve(driver.init_state(), StartUp())
    script = driver.probes(start, 0)
    assert [c for c, _ in script[-2:]] == ["probe", "free_read"]
    before = start
    for _, action in script[:-2]:
        before = driver.resolve(before, action)
    again = script[-2][1]
    assert voters_log._payload_set(again.entry) == before.free.control.last_voter_set()
    (event,) = driver.events(before, again, driver.resolve(before, again))
    assert len(event.model_observation["history"]) == len(before.free.control.voters.entries) + 1
    path = [("opening", StartUp()), *script]
    assert not diverges(spec, config, reference_target("voters", "log"), path)
    sys.path.insert(0, str(BENCH))
    try:
        from redteam import voters_scratch16 as scratch
    finally:
        sys.path.pop(0)
    skips = getattr(scratch, scratch.TARGETS["history-skips-repeated-set"])
    for target in (CATALOGUE["voters-log-history-skips-snapshot-set-again"].target(), skips()):
        assert diverges(spec, config, target, path)
        assert not diverges(spec, config, target, path[:-2])
    # random runs never draw it: no lockstep rule has the category
    assert "probe" not in driver.categories


def test_stale_answer_probe_keeps_the_lapse() -> None:
    """VOTERS-DRIVE-STALE-LAPSE-ANSWER: from the started quorum (4 hosts, 3 voters, kip-595) the
    leader resigns and leads the next epoch, its BeginQuorumEpoch to a voter B withheld; the
    observer follows it there, lapses, and B's answer of the older epoch naming the same leader
    leaves the lapse on, so the model sends the next fetch to another bootstrap server. The
    reference conforms, a replica that ends the lapse on that answer diverges at the last step.
    Not on a configuration's first path (k == 0), not at kraft.version 0, not under KIP-996."""
    import sys

    spec = PROTOCOLS["voters"]()
    config = {"hosts": 4, "voters": 3, "kraft_version": 1, "pre_vote": False, "level": "replica"}
    driver = VotersDriver(config)
    start = driver.resolve(driver.init_state(), StartUp())
    script = driver._stale_answer_probe(start, 1)
    assert [c for c, _ in script[:3]] == ["timer", "timer", "deliver"], script
    state = start
    for _, action in script[:-1]:
        state = driver.resolve(state, action)
        assert state is not None, action
    answer = script[-2][1].message
    observer = state.node(answer.dst)
    assert answer.error == "UNKNOWN_LEADER_EPOCH" and answer.leader == observer.role.leader
    assert observer.fetch_lapsed and answer.epoch < observer.epoch
    last = script[-1][1]
    (event,) = driver.events(state, last, driver.resolve(state, last))
    assert [o["type"] for o in event.model_outputs] == ["FetchRequest"]
    assert event.model_outputs[0]["dst"] not in (observer.role.leader, answer.src)
    path = [("opening", StartUp()), *script]
    assert guide.offered(driver, path)
    assert not diverges(spec, config, reference_target("voters"), path)
    sys.path.insert(0, str(BENCH))
    try:
        from redteam import voters_scratch16 as scratch
    finally:
        sys.path.pop(0)
    stale = getattr(scratch, scratch.TARGETS["lapse-ends-on-stale-answer"])
    for target in (CATALOGUE["voters-lapse-ends-on-stale-answer"].target(), stale()):
        assert diverges(spec, config, target, path)
        assert not diverges(spec, config, target, path[:-1])
    assert driver._stale_answer_probe(start, 0) == []
    static, begun = _started(next(c for c in CONFIGS if c["kraft_version"] == 0))
    assert static._stale_answer_probe(begun, 1) == []  # type: ignore[arg-type]
    pre, begun = _started(next(c for c in CONFIGS if c["pre_vote"]))
    assert pre._stale_answer_probe(begun, 1) == []  # type: ignore[arg-type]


def _scratch17(bug: str) -> object:
    import sys

    sys.path.insert(0, str(BENCH))
    try:
        from redteam import voters_scratch17 as scratch
    finally:
        sys.path.pop(0)
    return getattr(scratch, scratch.TARGETS[bug])()


def test_upgrade_again_probe_sends_the_upgrade_while_the_first_is_uncommitted() -> None:
    """VOTERS-DRIVE-UPGRADE-AGAIN (session 29): where a kraft.version-0 leader holds its upgrade
    batch above its high watermark (VOTERS-DRIVE-UPGRADE-DIRECTORY leaves one), the upgrade again:
    the model changes nothing and answers nothing. The reference conforms; the catalogue's mutant
    (the batch written twice) and red team voters_scratch17's upgrade-judged-by-committed-version
    (refused INVALID_UPDATE_VERSION) diverge at that step only. Nothing where no upgrade is
    uncommitted (kraft.version 1 from the start)."""
    spec = PROTOCOLS["voters"]()
    config = {**next(c for c in CONFIGS if c["kraft_version"] == 0), "level": "replica"}
    driver, start = _started(config)
    start = _take(driver, start, [("replicate", next(a for c, a in driver.candidates(start) if c == "replicate"))])
    upgrade = driver._upgrade_directory_probe(start)  # type: ignore[arg-type]
    state = _take(driver, start, upgrade)
    again = driver._upgrade_again_probe(state)  # type: ignore[arg-type]
    assert again and [c for c, _ in again] == ["request"], again
    ((_, action),) = again
    leader = state.node(action.node)  # type: ignore[attr-defined]
    assert leader.kraft_version == 1 and leader.control.kraft_versions.last_entry()[0] >= leader.high_watermark
    assert driver.resolve(state, action) == state  # type: ignore[arg-type]
    (event,) = driver.events(state, action, state)  # type: ignore[arg-type]
    assert event.model_outputs == []
    path = [("opening", StartUp()), ("replicate", macros.Replicate(leader.id)), *upgrade, *again]
    assert guide.offered(driver, path)
    assert not diverges(spec, config, reference_target("voters"), path)
    for target in (CATALOGUE["voters-upgrade-written-twice"].target(),
                   _scratch17("upgrade-judged-by-committed-version")):
        assert diverges(spec, config, target, path)
        assert not diverges(spec, config, target, path[:-1])
    plain, begun = _started(CONFIGS[0])
    assert plain._upgrade_again_probe(begun) == []  # type: ignore[arg-type]


def test_first_leader_again_start_path_ends_with_a_removal_committed_past_its_end() -> None:
    """VOTERS-DRIVE-REMOVED-LEADER-APPEND (session 29): VOTERS-DRIVE-FIRST-LEADER-AGAIN's start
    path goes on with A's BeginQuorumEpoch delivered, a replication, RemoveVoter(A), A's client
    append and a replication, after which A has resigned (its high watermark jumped past the
    removal). The reference conforms; the catalogue's mutant (resigns only when the removal is the
    last committed record) and red team voters_scratch17's removed-leader-resigns-at-exact-commit
    stay leader, and diverge only with the last replication."""
    spec = PROTOCOLS["voters"]()
    config = {**CONFIGS[0], "level": "replica", "controller_auto_join": True, "disk_replacement": True,
              "check_quorum_period": True}
    driver = spec.driver(config)
    ids = [p.id for p in driver.start_probes()]
    path = guide.start_paths(driver, guide.graph_for(driver))[ids.index("VOTERS-DRIVE-FIRST-LEADER-AGAIN")]
    cats = [c for c, _ in path]
    assert cats[-4:] == ["replicate", "reconfig", "client", "replicate"], cats
    state = driver.init_state()
    for _, action in path:
        state = driver.resolve(state, action)
    removed = path[-3][1].node
    assert state.node(removed).role_name == "resigned" and removed not in state.node(removed).voters
    assert not diverges(spec, config, reference_target("voters"), path)
    for target in (CATALOGUE["voters-removed-leader-resigns-on-committed-record"].target(),
                   _scratch17("removed-leader-resigns-at-exact-commit")):
        assert diverges(spec, config, target, path)
        assert not diverges(spec, config, target, path[:-1])
