"""``kspec conform mm2|streams``: what the catalogue-wide lockstep tests do not cover.

(Reference conformance and every mutant caught at the default budget and replayed are in
test_conformance_lockstep.py, over the whole catalogue, mm2 and streams included.) Here: the
laws named by the findings, the identity policy's cycle counterexample through the lockstep,
configurations a target takes, the internal-topic rule per configuration, the wire format,
and bad input through the CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kspec.conformance.cli import main
from kspec.conformance.drivers import PROTOCOLS, supported_configs
from kspec.conformance.drivers.mm2 import CONFIGS as MM2_CONFIGS
from kspec.conformance.drivers.mm2 import CheckLaw, Mm2Driver, Query
from kspec.conformance.drivers.streams import GLOBAL_STORE, MetadataForKey, StreamsDriver, widen
from kspec.conformance.harness import Divergence, Lockstep, TargetFailure, replay_steps
from kspec.conformance.targets import mm2_policies, streams_routers
from kspec.conformance.targets.mutants import CATALOGUE
from kspec.conformance.targets.registry import reference_target
from kspec.model.mm2.calls import HeartbeatsTopic, IsInternalTopic, IsMM2InternalTopic
from kspec.model.streams.system import Assign, Finish, Join, Plan, State


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def _law_index(driver: Mm2Driver, law_id: str, alias: str, topic: str) -> int:
    for k, case in enumerate(driver.setup.cases):
        if case.law.id == law_id and case.inp.alias == alias and case.inp.topic == topic:
            return k
    raise AssertionError(f"no case {law_id} {alias} {topic}")


def _step(session: Lockstep, action: object) -> None:
    after = session.driver.resolve(session.state, action)
    assert after is not None, action
    session._step(action, after)


def test_identity_policy_held_to_the_default_contract_breaks_cycle_detection() -> None:
    # spec/mm2.md §3 through the lockstep: the identity policy conforms to its own contract,
    # and held to the default one (config contract=default) the law of cycle detection fails
    # on its answers: "orders" from A is "orders" on B, and B->A cannot tell.
    config = {"policy": "identity", "separator": ".", "internal_rule": "4.x", "contract": "default"}
    driver = Mm2Driver(config)
    session = Lockstep(driver, reference_target("mm2"))
    with pytest.raises(Divergence) as caught:
        _step(session, CheckLaw(_law_index(driver, "MM2-LAW-CYCLE-DETECTABLE", "A", "orders")))
    finding = caught.value.finding
    assert (finding.kind, finding.field) == ("property", "MM2-LAW-CYCLE-DETECTABLE")
    calls = [(s.node, s.input) for s in session.steps]
    assert calls[0] == ("A", {"type": "FormatRemoteTopic", "source": "A", "topic": "orders"})
    assert session.steps[0].target_observation == {"result": "orders"}
    assert ("B", {"type": "TopicSource", "topic": "orders"}) in calls
    # Under its own contract the same answers are no finding.
    own = Mm2Driver({**config, "contract": "identity"})
    assert "MM2-LAW-CYCLE-DETECTABLE" not in {c.law.id for c in own.setup.cases}


def test_mutant_finding_names_the_law() -> None:
    driver = Mm2Driver(MM2_CONFIGS[0])
    session = Lockstep(driver, CATALOGUE["mm2-upstream-self"].target())
    with pytest.raises(Divergence) as caught:
        _step(session, CheckLaw(_law_index(driver, "MM2-LAW-REMOTE-UPSTREAM", "A", "orders")))
    assert caught.value.finding.field == "MM2-LAW-REMOTE-UPSTREAM"
    # The reference gives the same two answers the model does.
    again = replay_steps(Mm2Driver(MM2_CONFIGS[0]), reference_target("mm2"), session.steps)
    assert again.finding is None


@pytest.mark.parametrize(("rule", "internal"), [("4.x", False), ("3.x", True)])
def test_internal_topic_rule_follows_the_configuration(rule: str, internal: bool) -> None:
    # KAFKA-17200: "orders-internal" and "orders.internal" are user topics from Kafka 4.0 on.
    driver = Mm2Driver({"policy": "default", "separator": ".", "internal_rule": rule})
    session = Lockstep(driver, reference_target("mm2"))
    for call in (IsInternalTopic("orders-internal"), IsMM2InternalTopic("orders.internal")):
        first = len(session.steps)
        _step(session, Query("A", call))
        assert session.steps[first].model_observation == {"result": internal}
        # MM2-DRIVE-TRAILING-SEPARATOR: the same test of the name with the separator after it
        # follows, and no rule reads that name as internal (Kafka tests endsWith)
        twin = session.steps[first + 1]
        assert isinstance(twin.input, dict) and twin.input["topic"] == call.topic + "."
        assert twin.model_observation == {"result": False}
    first = len(session.steps)
    _step(session, Query("A", IsMM2InternalTopic("mm2-offset-syncs.B.internal")))
    assert session.steps[first].target_observation == {"result": True}


@pytest.mark.parametrize(("sep", "rule", "internal"), [(".", "4.x", True), ("_", "4.x", False),
                                                     ("-", "4.x", False), ("_", "3.x", True)])
def test_worker_topic_names_follow_an_mm2_internal_test(sep: str, rule: str, internal: bool) -> None:
    # MM2-DRIVE-CONNECT-WORKER-NAMES: an internal test of a name starting with "mm2" is followed
    # by the same test of MirrorMakerConfig's worker topics (dotted whatever the separator):
    # Kafka 4.x with a custom separator (internal separator on) reads them as replicable.
    driver = Mm2Driver({"policy": "default", "separator": sep, "internal_rule": rule})
    session = Lockstep(driver, reference_target("mm2"))
    node = driver.setup.clusters[0]
    first = len(session.steps)
    _step(session, Query(node, IsInternalTopic("mm2orders")))
    twins = session.steps[first + 1:]
    assert [t.input["topic"] for t in twins if isinstance(t.input, dict)] == [
        f"mm2-{kind}.{node}.internal" for kind in ("offsets", "configs", "status")]
    assert all(t.model_observation == {"result": internal} for t in twins)


@pytest.mark.parametrize("sep", ["_", "-"])
def test_dotted_heartbeats_name_node_with_a_custom_separator(sep: str) -> None:
    # MM2-DRIVE-DOTTED-HEARTBEATS-NAME: the node last in the list names "hb.topic" (no separator
    # in it: a heartbeats topic); Kafka keeps the name as given, KIP-949 renames no heartbeats.
    config = {"policy": "default", "separator": sep, "internal_rule": "4.x", "heartbeats_topic_name": True}
    driver = Mm2Driver(config)
    assert driver.nodes()[-1] == "hb-dotted"
    assert driver.node_config("hb-dotted")["props"]["default.replication.policy.heartbeats.topic.name"] == "hb.topic"
    policy = driver.setup.policy_at("hb-dotted")
    assert policy.heartbeats_topic() == "hb.topic" and policy.is_heartbeats_topic("hb.topic")
    # asked after the first cluster's HeartbeatsTopic, as more events of that query
    events = driver.events(driver.init_state(), Query(driver.setup.clusters[0], HeartbeatsTopic()), driver.init_state())
    assert [e.node for e in events] == [driver.setup.clusters[0]] + ["hb-dotted"] * 22
    assert events[1].model_observation == {"result": "hb.topic"}
    assert all(a[1] != Query("hb-dotted", HeartbeatsTopic()) for a in driver.candidates(driver.init_state()))
    # not with ".", nor for a target that does not read KIP-1016's name
    assert "hb-dotted" not in Mm2Driver({**config, "separator": "."}).nodes()
    assert "hb-dotted" not in Mm2Driver({**config, "heartbeats_topic_name": False}).nodes()


def test_connect_names_mutant_conforms_to_3x_and_not_4x() -> None:
    mutant = CATALOGUE["mm2-connect-names-internal"]
    for rule, diverges in (("3.x", False), ("4.x", True)):
        session = Lockstep(Mm2Driver({"policy": "default", "separator": ".", "internal_rule": rule}),
                           mutant.target())
        try:
            _step(session, Query("A", IsInternalTopic("orders-internal")))
        except Divergence:
            assert diverges, rule
        else:
            assert not diverges, rule


def test_targets_take_their_configurations() -> None:
    spec = PROTOCOLS["mm2"]()
    mutant = CATALOGUE["mm2-dotted-alias"].target()
    assert {c["policy"] for c in supported_configs(spec.configs, mutant)} == {"default"}
    # every configuration, each with the reference's KIP-1016 declaration (MM2-DRIVE-HEARTBEATS-NAME)
    # and its defaults declaration (MM2-DRIVE-DEFAULT-PROPS)
    assert supported_configs(spec.configs, reference_target("mm2")) == [
        {**c, "heartbeats_topic_name": True, "default_props": True} for c in spec.configs]
    # A run whose configuration the target lacks is an error at start, naming why.
    with pytest.raises(TargetFailure, match="no identity policy"):
        Lockstep(Mm2Driver(MM2_CONFIGS[2]), mutant)


def test_mm2_configurations_span_policies_rules_and_separators() -> None:
    # Not vacuous: the runs reach the identity policy, both rules and five separators, "-" for
    # MM2-DRIVE-DASH-SEPARATOR and "-." for MM2-DRIVE-DOTTED-SEPARATOR (the reference's conformance
    # over them is test_conformance_lockstep's).
    assert len({json.dumps(c, sort_keys=True) for c in MM2_CONFIGS}) == len(MM2_CONFIGS)
    assert {c["policy"] for c in MM2_CONFIGS} == {"default", "identity"}
    assert {c["internal_rule"] for c in MM2_CONFIGS} == {"3.x", "4.x"}
    assert {c["separator"] for c in MM2_CONFIGS} == {".", "_", "__", "-", "-."}
    for config in MM2_CONFIGS:
        driver = Mm2Driver(config)
        laws = {c.law.id for c in driver.setup.cases}
        assert laws == {law.id for law in driver.setup.laws if law.id != _other_rule_law(config)}, config


def test_streams_lookup_during_rebalance_answers_from_the_last_assignment() -> None:
    # spec/streams.md: Kafka answers from the previous assignment while rebalancing; the
    # forgets-on-rebalance mutant answers NOT_AVAILABLE and is caught at that query.
    driver = StreamsDriver({"instances": 2, "partitions": 3, "standbys": 1})
    for target, diverges in ((reference_target("streams"), False),
                             (CATALOGUE["streams-forgets-on-rebalance"].target(), True)):
        session = Lockstep(StreamsDriver(driver.config), target)
        plan = next(a for c, a in session.driver.candidates(session.state) if c == "assign")
        _step(session, plan)
        _step(session, Finish())
        _step(session, Join(0) if 0 not in session.state.members else _leave(session))
        try:
            _step(session, MetadataForKey("counts", "alice"))
        except Divergence as err:
            # NOT_AVAILABLE although the instance holds an assignment: the key's partition law.
            assert diverges and err.finding.field == "STREAMS-LAW-PARTITION"
        else:
            assert not diverges
            assert session.steps[-1].target_observation["result"]["partition"] == 0


def _other_rule_law(config: dict[str, object]) -> str:
    return "MM2-LAW-INTERNAL-CONNECT-3X" if config["internal_rule"] == "4.x" else "MM2-LAW-INTERNAL-ONLY-4X"


def _leave(session: Lockstep) -> object:
    from kspec.model.streams.system import Leave

    return Leave(max(session.state.members))


def test_streams_not_available_before_the_first_assignment() -> None:
    session = Lockstep(StreamsDriver({}), reference_target("streams"))
    _step(session, MetadataForKey("counts", "bob"))
    assert session.steps[-1].target_observation == {
        "result": {"active": "unavailable:-1", "standbys": [], "partition": -1}}
    bad = Lockstep(StreamsDriver({}), CATALOGUE["streams-available-before-assignment"].target())
    with pytest.raises(Divergence) as caught:
        _step(bad, MetadataForKey("counts", "bob"))
    assert caught.value.finding.field == "STREAMS-LAW-NOT-AVAILABLE"


def test_catalogue_covers_the_target_classes() -> None:
    # The search-power mutants (conformance/targets/mutants_power.py) are registered apart.
    from kspec.conformance.targets.mutants_power import ENTRIES

    power = {e[0] for e in ENTRIES}
    assert ({n.removeprefix("mm2-") for n, m in CATALOGUE.items() if m.protocol == "mm2" and n not in power}
            == set(mm2_policies.MUTANTS))
    assert ({n.removeprefix("streams-") for n, m in CATALOGUE.items() if m.protocol == "streams" and n not in power}
            == set(streams_routers.MUTANTS))


@pytest.mark.parametrize(("target", "inp", "message"), [
    ("mm2", {"type": "Nope"}, "unknown mm2 input 'Nope'"),
    ("mm2", {"type": "TopicSource", "topic": 3}, "topic must be strings"),
    ("streams", {"type": "RebalanceFinished", "assignment": {"stores": []}}, "malformed assignment"),
    ("streams", {"type": "Nope"}, "unknown or malformed streams input"),
])
def test_malformed_inputs_are_target_errors(target: str, inp: dict[str, object], message: str) -> None:
    from kspec.conformance.adapters.base import TargetError

    instance = reference_target(target).start(0, {"policy": "default", "props": {}})
    with pytest.raises(TargetError, match=message):
        instance.step(inp)


@pytest.mark.parametrize("protocol", ["mm2", "streams"])
def test_cli_conform_reference_and_replay_of_a_mutant(protocol: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "conform", protocol, "--target", "reference", "--examples", "20", "--out",
                       str(tmp_path), "--json")
    assert code == 0 and json.loads(out)["verdict"] == "conforms"
    mutant = "mm2-upstream-self" if protocol == "mm2" else "streams-no-standbys"
    code, out, _ = run(capsys, "conform", protocol, "--target", f"mutant:{mutant}", "--out", str(tmp_path), "--json")
    doc = json.loads(out)
    assert code == 1 and doc["verdict"] == "diverges" and doc["counterexample"]
    # mm2: a guided run asks upstreamTopic directly (the answer differs) or completes the law first.
    assert doc["divergence"]["field"] in (("MM2-LAW-REMOTE-UPSTREAM", "observation.result") if protocol == "mm2"
                                          else ("STREAMS-LAW-STANDBYS",))
    code, out, _ = run(capsys, "replay", doc["counterexample"], "--json")
    assert code == 1 and json.loads(out)["reproduced"] is True
    code, out, _ = run(capsys, "replay", doc["counterexample"], "--target", "reference", "--json")
    assert code == 0 and json.loads(out)["verdict"] == "conforms"


@pytest.mark.parametrize(("argv", "message"), [
    (["conform", "mm2", "--target", "mutant:streams-abs-hash"], "is a streams target, not mm2"),
    (["conform", "streams", "--target", "mutant:nope"], "unknown mutant 'nope'"),
    (["conform", "mm2", "--target", "kafka:4.x"], "not a Kafka version"),
])
def test_cli_bad_targets_are_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2
    err = err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err


EXEC_SERVER = '''
import json, sys
from kspec.conformance.targets.mm2_policies import PolicyTarget
from kspec.conformance.targets.streams_routers import RouterTarget
from kspec.conformance.adapters.base import TargetError
targets = {"mm2": PolicyTarget("exec"), "streams": RouterTarget("exec")}
nodes = {}
for line in sys.stdin:
    req = json.loads(line)
    out = {"id": req["id"]}
    try:
        if req["op"] == "hello":
            out.update(version=1, protocols=sorted(targets))
        elif req["op"] == "start":
            nodes[req["node"]] = targets[req["protocol"]].start(req["node"], req["config"])
            out.update(outputs=[], observation={})
        elif req["op"] == "step":
            result = nodes[req["node"]].step(req["input"])
            out.update(outputs=result.outputs, observation=result.observation)
        elif req["op"] == "close" and "node" not in req:
            print(json.dumps(out), flush=True)
            break
    except TargetError as err:
        out["error"] = str(err)
    print(json.dumps(out), flush=True)
'''


@pytest.mark.parametrize("protocol", ["mm2", "streams"])
def test_exec_target_over_the_stdio_protocol(protocol: str, tmp_path: Path) -> None:
    # The JSON wire format of spec/adapter-protocol.md carries both protocols: the reference
    # classes served by a separate process conform, lockstep, over stdin/stdout.
    from kspec.conformance.drivers.runner import run_conformance
    from kspec.conformance.targets.exec import ExecTarget

    server = tmp_path / "server.py"
    server.write_text(EXEC_SERVER)
    import sys

    target = ExecTarget([sys.executable, str(server)], protocol)
    result = run_conformance(protocol, target, examples=15, steps=20, seed_value=2, out_dir=tmp_path)
    assert result.verdict == "conforms", result.finding and result.finding.line()


def _three_by_three_settled() -> tuple[StreamsDriver, Plan, State | None]:
    """The (3 instances, 3 partitions, 1 standby) driver, its first plan, and the state after that
    plan's rebalance finished: where the streams probe tests start."""
    driver = StreamsDriver({"instances": 3, "partitions": 3, "standbys": 1})
    state = driver.init_state()
    plan = driver.model.plans(state.members)[0]
    return driver, plan, driver.resolve(driver.resolve(state, Assign(plan)), Finish())


def test_streams_probes_move_standbys_alone_then_ask_again() -> None:
    """STREAMS-DRIVE-MOVED-STANDBYS: where a plan over the same members moves standby tasks only
    ((3, 3, 1)), a guided path's probes query the keys of every partition, run that rebalance and
    query them again, before the moved-tasks rebalance; the mutant streams-standby-cache (lookups
    memoised until the active map changes) is caught there (red team, session 14)."""
    driver, plan, state = _three_by_three_settled()
    assert state is not None
    probes = [a for _, a in driver.probes(state, 0)]
    # STREAMS-DRIVE-SUBTOPOLOGY-IN-FLIGHT and STREAMS-DRIVE-ACTIVE-WITHHELD follow
    probes = probes[:len(probes) - len(driver._in_flight_probe(state))
                    - len(driver._active_withheld_probe(state))]
    assigned = [a.plan for a in probes if isinstance(a, Assign)]
    assert len(assigned) == 2
    assert assigned[0].active == plan.active and assigned[0].standby != plan.standby
    assert assigned[1].active != plan.active
    kinds = [type(a).__name__ for a in probes]
    assert kinds[:7] == ["MetadataForKey"] * 3 + ["Leave", "Join", "Assign", "Finish"]
    assert probes[7:10] == probes[:3] and kinds[12:14] == ["Leave", "Join"]
    # STREAMS-DRIVE-MID-REBALANCE-QUERY: the same keys asked inside the moved rebalance, before it ends
    assert probes[14:17] == probes[:3] and kinds[17:19] == ["Assign", "Finish"]
    # STREAMS-DRIVE-MOVED-STORE-METADATA: both sub-topologies' stores asked around the moved rebalance
    assert kinds[10:12] == ["AllMetadataForStore"] * 2 and probes[19:21] == probes[10:12]


def test_streams_probes_leave_the_first_host_idle_then_ask_a_global_key() -> None:
    """STREAMS-DRIVE-IDLE-FIRST-HOST: on odd paths, where a plan over the same members leaves the
    first host in host order without a task ((3, 2, 0): host0), the probes' moved plan is such a
    plan and the global store's key is asked after it; the mutant streams-global-key-busy-host
    (the first host with a task named) answers another host there (red team, session 16)."""
    from kspec.conformance.targets.streams_routers import GlobalKeyBusyHostRouter, ReferenceRouter
    from kspec.model.streams.metadata import all_metadata
    from kspec.model.streams.system import Assign, to_assignment

    driver = StreamsDriver({"instances": 3, "partitions": 2, "standbys": 0})
    state = driver.init_state()
    plans = driver.model.plans(state.members)
    busy = next(p for p in plans if not driver._first_host_idle(p))
    state = driver.resolve(driver.resolve(state, Assign(busy)), Finish())
    assert state is not None
    probes = [a for _, a in driver.probes(state, 1)]
    plan = next(a.plan for a in probes if isinstance(a, Assign))
    assert driver._first_host_idle(plan)
    # STREAMS-DRIVE-SUBTOPOLOGY-IN-FLIGHT and STREAMS-DRIVE-ACTIVE-WITHHELD follow
    last = probes[-1 - len(driver._in_flight_probe(state)) - len(driver._active_withheld_probe(state))]
    assert isinstance(last, MetadataForKey) and last.store == GLOBAL_STORE
    # after it, the reference names the idle first host, the mutant another
    meta = widen(to_assignment(plan), driver.model.partitions)
    first = all_metadata(meta)[0].host_info
    assert ReferenceRouter().route(meta, GLOBAL_STORE, b"alice").active_host == first  # type: ignore[union-attr]
    assert GlobalKeyBusyHostRouter().route(meta, GLOBAL_STORE, b"alice").active_host != first  # type: ignore[union-attr]
    # on even paths the probes keep the rotation over every moved plan
    assert any(isinstance(a, Assign) for _, a in driver.probes(state, 0))


def test_streams_probes_take_the_sessions_subtopology_in_flight() -> None:
    """STREAMS-DRIVE-SUBTOPOLOGY-IN-FLIGHT: the probes take an assignment in which no ``sessions``
    task has an active owner while ``input``'s keep theirs (KIP-1071's reconciliation moving every
    ``sessions`` task at once; standbys kept): ``clicks`` has no count, the instance is initialized,
    ``allMetadataForStore('sessions')`` lists its standby holders, and no key of ``sessions`` is
    offered meanwhile. The mutant streams-store-metadata-needs-count (nothing for a store without a
    count) answers nothing there; the deletion of STREAMS-DRIVE-TOPIC-DELETED is no longer sent."""
    from kspec.conformance.drivers.streams import SESSIONS, ActiveWithheld, AllMetadataForStore, WithheldState
    from kspec.conformance.targets.mutants_power import StoreMetadataNeedsCountRouter
    from kspec.conformance.targets.streams_routers import ReferenceRouter
    from kspec.model.streams.metadata import all_metadata_for_store
    from kspec.model.streams.system import Leave

    driver, plan, state = _three_by_three_settled()
    assert state is not None
    probes = [a for _, a in driver.probes(state, 0)]
    assert not any(type(a).__name__ == "TopicDeleted" for a in probes)
    step = ActiveWithheld(False, sessions=True)
    at = probes.index(step)
    assert AllMetadataForStore(SESSIONS) in probes[at:at + 3] and Finish() in probes[at:]
    assert ("topology", step) in driver.candidates(state)
    flight = driver.resolve(state, step)
    assert isinstance(flight, WithheldState) and flight.sessions
    assert not any(isinstance(a, MetadataForKey) and a.store == SESSIONS for _, a in driver.candidates(flight))
    meta = driver._metadata(flight)
    assert meta.initialized() and "clicks" not in dict(meta.partitions)
    holders = all_metadata_for_store(meta, SESSIONS)
    assert holders and all(SESSIONS in m.standby_state_store_names for m in holders)
    assert ReferenceRouter().all_metadata_for_store(meta, SESSIONS) == list(holders)
    assert StoreMetadataNeedsCountRouter().all_metadata_for_store(meta, SESSIONS) == []
    # the same before it: every store has a count
    full = driver._metadata(state)
    assert StoreMetadataNeedsCountRouter().all_metadata_for_store(full, SESSIONS) == list(
        all_metadata_for_store(full, SESSIONS))
    # in flight through a rebalance's start, owned again at its finish
    during = driver.resolve(driver.resolve(flight, Leave(2)), Join(2))
    assert isinstance(during, WithheldState) and during.sessions
    after = driver.resolve(driver.resolve(during, Assign(plan)), Finish())
    assert after is not None and not isinstance(after, WithheldState)


def test_coverage_matrix_names_the_metadata_and_the_input() -> None:
    """STREAMS-DRIVE-COVERAGE: ``input_cells`` files each input under the instance's metadata and the
    input's kind (``kspec conform streams --json``: ``coverage.matrix``)."""
    from kspec.conformance.drivers.streams import GLOBAL_STORE, SESSIONS, ActiveWithheld, AllMetadataForStore
    from kspec.model.streams.system import STORE

    driver, plan, state = _three_by_three_settled()
    assert state is not None
    start = driver.init_state()
    assert driver.input_cells(start, Join(0)) == [("uninitialized", "RebalanceStarted")]
    assert driver.input_cells(start, Assign(plan)) == []
    assert ("assigned", "MetadataForKey counts empty key") in driver.input_cells(state, MetadataForKey(STORE, ""))
    assert driver.input_cells(state, MetadataForKey("missing", "k")) == [("assigned", "MetadataForKey unknown")]
    assert driver.input_cells(state, AllMetadataForStore(GLOBAL_STORE)) == [("assigned", "AllMetadataForStore global")]
    cells = driver.input_cells(state, ActiveWithheld(True))
    assert ("assigned", "RebalanceFinished no counts") in cells
    assert ("assigned", "RebalanceFinished same members") in cells
    flight = driver.resolve(state, ActiveWithheld(False, sessions=True))
    assert driver.input_cells(flight, AllMetadataForStore(SESSIONS)) == [
        ("sessions in flight", "AllMetadataForStore sessions")]
    one = driver.resolve(state, ActiveWithheld(False))
    keys = [driver.input_cells(one, MetadataForKey(STORE, k)) for k in ("alice", "dave", "carol", "bob")]
    assert any(("task 0 withheld", "MetadataForKey counts no active") in c for c in keys)


def test_streams_probes_withhold_actives_then_own_them_again() -> None:
    """STREAMS-DRIVE-ACTIVE-WITHHELD: the probes end with an assignment in which ``input``'s task 0
    has no active owner (its standby kept, the counts one fewer: KIP-1071's reconciliation), then
    one in which no task has (counts empty: NOT_AVAILABLE again), then the tasks owned again. The
    reference answers as the model; the mutants streams-standbys-need-active (no standbys without
    an active) and streams-initialized-once ("initialized" a flag of the first assignment) do not
    (red team, session 21)."""
    from kspec.conformance.drivers.streams import ActiveWithheld, WithheldState
    from kspec.conformance.targets.mutants_power import InitializedOnceRouter, StandbysNeedActiveRouter
    from kspec.conformance.targets.streams_routers import ReferenceRouter
    from kspec.model.streams.metadata import NOT_AVAILABLE, UNKNOWN_HOST, all_metadata, all_metadata_for_store, route
    from kspec.model.streams.system import STORE, Leave

    driver, plan, state = _three_by_three_settled()
    assert state is not None
    probes = [a for _, a in driver.probes(state, 0)]
    tail = probes[len(probes) - len(driver._active_withheld_probe(state)):]
    assert tail[0] == ActiveWithheld(False) and ActiveWithheld(True) in tail and tail.count(Finish()) == 1
    one = driver.resolve(state, ActiveWithheld(False))
    assert isinstance(one, WithheldState)
    meta = driver._metadata(one)
    assert dict(meta.partitions)["input"] == 2  # input 0 has no active owner
    keys = ("alice", "dave", "carol", "bob", "grace", "judy", "erin", "ivan")
    answers = [route(meta, STORE, k.encode()) for k in keys]
    orphan = [a for a in answers if a is not None and a.active_host == UNKNOWN_HOST]
    assert orphan and all(a.standby_hosts and a.partition == 0 for a in orphan)
    key = next(k for k in ("alice", "dave", "carol", "bob") if route(meta, STORE, k.encode()) in orphan).encode()
    assert ReferenceRouter().route(meta, STORE, key) == route(meta, STORE, key)
    assert StandbysNeedActiveRouter().route(meta, STORE, key).standby_hosts == frozenset()  # type: ignore[union-attr]
    # every active withheld: uninitialized again, the members still listed
    every = driver._metadata(driver.resolve(one, ActiveWithheld(True)))
    assert not every.initialized() and route(every, STORE, b"alice") == NOT_AVAILABLE
    assert all_metadata(every) and not all_metadata_for_store(every, STORE)
    once = InitializedOnceRouter()
    assert once.route(meta, STORE, key) == route(meta, STORE, key)  # initialized: as Kafka
    assert once.all_metadata_for_store(every, STORE) and not ReferenceRouter().all_metadata_for_store(every, STORE)
    # withholding lasts through a rebalance's start and ends with its finish
    during = driver.resolve(driver.resolve(one, Leave(2)), Join(2))
    assert isinstance(during, WithheldState)
    after = driver.resolve(driver.resolve(during, Assign(plan)), Finish())
    assert after is not None and not isinstance(after, WithheldState)


@pytest.mark.parametrize("mutant", ["streams-initialized-once", "streams-standbys-need-active",
                                    "streams-partition-counts-merged"])
def test_active_withheld_mutants_are_caught_by_that_probe_alone(mutant: str, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from kspec.conformance.drivers import guide
    from kspec.conformance.drivers.runner import run_conformance
    from kspec.conformance.targets.registry import resolve_target

    target = resolve_target(f"mutant:{mutant}", "streams")
    found = run_conformance("streams", target, seed_value=0, out_dir=tmp_path)
    assert found.verdict == "diverges"
    # STREAMS-DRIVE-ACTIVE-WITHHELD off (never enabled, never probed): the rest of the suite conforms
    monkeypatch.setattr(StreamsDriver, "_resolve_withheld", lambda *_: None)
    monkeypatch.setattr(StreamsDriver, "_active_withheld_probe", lambda *_: [])
    monkeypatch.setattr(guide, "_GRAPHS", {})
    missed = run_conformance("streams", target, seed_value=0, out_dir=tmp_path)
    assert missed.verdict == "conforms", missed.finding and missed.finding.line()


def test_in_flight_mutant_is_caught_by_that_probe_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """streams-store-metadata-needs-count diverges at seed 0; with STREAMS-DRIVE-SUBTOPOLOGY-IN-FLIGHT
    off (neither offered nor probed) the rest of the suite conforms."""
    from kspec.conformance.drivers import guide
    from kspec.conformance.drivers.runner import run_conformance
    from kspec.conformance.targets.registry import resolve_target

    target = resolve_target("mutant:streams-store-metadata-needs-count", "streams")
    found = run_conformance("streams", target, seed_value=0, out_dir=tmp_path)
    assert found.verdict == "diverges"
    monkeypatch.setattr(StreamsDriver, "_in_flight_enabled", lambda *_: False)
    monkeypatch.setattr(guide, "_GRAPHS", {})
    missed = run_conformance("streams", target, seed_value=0, out_dir=tmp_path)
    assert missed.verdict == "conforms", missed.finding and missed.finding.line()
