"""The state machine's listener (spec/raft.md RAFT-OBS-LISTENER): the model's predictions, the
catalogued Kafka deviation KAFKA-17333 and the mutants only a listener observation catches.
The scenario rules themselves are in testdata/listener.txt."""

from __future__ import annotations

import json
from pathlib import Path

from kspec.conformance.deviations import catalogue
from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets.mutants import CATALOGUE as MUTANTS
from kspec.model.core.codec import encode
from kspec.model.raft.listener import ListenerRules, listening
from kspec.model.raft.messages import CheckQuorumTimeout, ElectionTimeout, HandleLeaderChange, VoteResponse
from kspec.model.raft.node import new_node, step
from kspec.model.raft.state import Listener
from kspec.model.raft.system import RaftModel

ROOT = Path(__file__).resolve().parents[2]
RESIGNED = catalogue("raft")["raft-resigned-told-leader"]


def _resign_early(rules: ListenerRules) -> list[tuple[object, ...]]:
    """Replica 1 wins epoch 1 and resigns before any fetch: its listener has read nothing."""
    from kspec.model.core.evolve import evolve as replace

    node = replace(new_node(1, frozenset({1, 2, 3}), False, True), listener=Listener())
    stepper = listening(step, rules)
    outs = []
    for inp in (ElectionTimeout(), VoteResponse(2, 1, 1, True, None), CheckQuorumTimeout()):
        node, outputs = stepper(node, inp)
        outs.append(outputs)
    return outs


def test_resigned_leader_is_never_told_it_leads() -> None:
    outs = _resign_early(ListenerRules())
    assert outs[0][-1] == HandleLeaderChange(1, None)  # a candidate: its epoch, no leader
    assert not any(isinstance(o, HandleLeaderChange) for o in outs[1])  # not caught up yet
    assert not any(isinstance(o, HandleLeaderChange) for o in outs[2])  # resigned: never


def test_kafka_3_8_counterexample_is_the_deviation() -> None:
    """The catalogued counterexample (kafka:3.8.1, seed 0) is what the deviation's rules
    predict and what the protocol's do not."""
    assert RESIGNED.counterexample is not None
    doc = json.loads((ROOT / RESIGNED.counterexample).read_text())
    last = doc["states"][-1]
    told = [o for o in last["target_outputs"] if o["type"] == "HandleLeaderChange"]
    assert told == [{"type": "HandleLeaderChange", "epoch": 1, "leader": 1}]
    assert last["action"] == "replica 1: CheckQuorumTimeout"
    deviant = [encode(o) for o in _resign_early(ListenerRules(resigned_told=True))[2]
               if isinstance(o, HandleLeaderChange)]
    assert [{k: (None if v == {"#tup": []} else v) for k, v in o.items()} for o in told] == \
        [{k: v for k, v in o.items()} for o in deviant]


def test_lone_voter_starts_told() -> None:
    """The first start is no step: a lone voter's listener has read its LeaderChange record and
    been told it leads before the run begins (both sides discard what start-up tells)."""
    state = RaftModel(voters=1, listener=ListenerRules()).init_states()[0]
    assert state.node(1).listener == Listener(1, 1, 1)


def test_mutant_is_named_after_the_deviation(tmp_path: Path) -> None:
    """The KAFKA-17333 mutant diverges at once, and the divergence names the deviation."""
    result = run_conformance("raft", MUTANTS["raft-listener-resigned-told-leader"].target(), seed_value=0,
                             out_dir=tmp_path, deviations=((RESIGNED.name, RESIGNED.model_variant),))
    assert result.verdict == "diverges"
    assert result.deviation == RESIGNED.name, result.finding


def test_kafka_3_6_counterexample_is_the_new_listener_deviation() -> None:
    """raft-new-listener-untold (KAFKA-16286): the catalogued kafka:3.6.2 counterexample (seed
    0, --accept raft-leader-never-resigns) is what the deviation's rules predict and not what
    the protocol's do: a candidate crashes and restarts; its new listener is told (1, none) by
    the protocol and nothing by Kafka 3.6 until the next transition."""
    from kspec.model.core.evolve import evolve as replace
    from kspec.model.raft.messages import Crash, Restart

    untold = catalogue("raft")["raft-new-listener-untold"]
    assert untold.counterexample is not None and untold.kafka_issue == "KAFKA-16286"
    doc = json.loads((ROOT / untold.counterexample).read_text())
    last = doc["states"][-1]
    assert last["action"].endswith("Restart]")
    assert not [o for o in last["target_outputs"] if o["type"] == "HandleLeaderChange"]

    def restart_told(rules: ListenerRules) -> list[object]:
        node = replace(new_node(2, frozenset({1, 2, 3}), False, False), listener=Listener())
        stepper = listening(step, rules)
        for inp in (ElectionTimeout(), Crash()):
            node, _ = stepper(node, inp)
        node, outputs = stepper(node, Restart())
        return [o for o in outputs if isinstance(o, HandleLeaderChange)]

    assert restart_told(ListenerRules()) == [HandleLeaderChange(1, None)]
    assert restart_told(ListenerRules(told_at_transition=True)) == []


def _elected_with_record(rules: ListenerRules) -> list[tuple[object, ...]]:
    """Replica 1 wins epoch 1 (empty log), appends a record, 2 fetches everything: the HW
    covers its LeaderChange record and the record."""
    from kspec.model.core.evolve import evolve as replace
    from kspec.model.raft.messages import ClientAppend, FetchRequest

    node = replace(new_node(1, frozenset({1, 2, 3}), False, False), listener=Listener())
    stepper = listening(step, rules)
    outs = []
    for inp in (ElectionTimeout(), VoteResponse(2, 1, 1, True, None), ClientAppend((7,)),
                FetchRequest(2, 1, 1, 2, 1)):
        node, outputs = stepper(node, inp)
        outs.append(outputs)
    return outs


def test_leader_told_at_epoch_start_is_the_kafka_15345_deviation() -> None:
    """RAFT-OBS-LISTENER-LEADER: a leader is told it leads only once its LeaderChange record is
    committed and delivered; Kafka 3.3-3.5 tell it as soon as its listener read *to* the epoch
    start, at once for an empty log (raft-leader-told-before-epoch-commits)."""
    from kspec.model.raft.variants import DEVIATIONS

    protocol = _elected_with_record(ListenerRules())
    assert not [o for o in protocol[1] if isinstance(o, HandleLeaderChange)]
    assert HandleLeaderChange(1, 1) in protocol[3]
    kafka = _elected_with_record(ListenerRules(leader_told_at_epoch_start=True))
    assert [o for o in kafka[1] if isinstance(o, HandleLeaderChange)] == [HandleLeaderChange(1, 1)]
    entry = catalogue("raft")["raft-leader-told-before-epoch-commits"]
    assert entry.kafka_issue == "KAFKA-15345" and entry.fixed_in == "3.6.0"
    assert DEVIATIONS[entry.model_variant].listener == ListenerRules(leader_told_at_epoch_start=True)
    # the catalogued kafka:3.3.2 counterexample (seed 0): told at the winning VoteResponse
    assert entry.counterexample is not None
    last = json.loads((ROOT / entry.counterexample).read_text())["states"][-1]
    assert last["action"].startswith("deliver VoteResponse 2->1")
    told = [o for o in last["target_outputs"] if o["type"] == "HandleLeaderChange"]
    assert told == [{"type": "HandleLeaderChange", "epoch": 1, "leader": 1}]


def test_data_only_listener_api_leaves_control_records_out() -> None:
    """Kafka 3.3-3.5's listener API (ListenerRules.data_only): HandleCommit names the committed
    range's start and its data records only; 3.6+ deliver the LeaderChange record too."""
    from kspec.model.raft.messages import HandleCommit

    def commits(rules: ListenerRules) -> list[object]:
        return [o for outs in _elected_with_record(rules) for o in outs if isinstance(o, HandleCommit)]

    assert commits(ListenerRules()) == [HandleCommit(0, ((1, "leader_change"), (1, "data")))]
    assert commits(ListenerRules(data_only=True)) == [HandleCommit(0, ((1, "data"),))]


def test_kafka_3_3_to_3_5_declare_the_data_only_listener() -> None:
    """The driver takes "listener": "data" (the kafka:3.3-3.5 model_config) as the data-only
    listener API, and still tells the target to register a listener."""
    from kspec.conformance.drivers.raft import RaftDriver

    driver = RaftDriver({"voters": 3, "observers": 0, "pre_vote": False, "kip853": False, "listener": "data"})
    assert driver.model.listener == ListenerRules(data_only=True)
    assert driver.node_config(1)["listener"] is True
    both = RaftDriver({"voters": 3, "observers": 0, "pre_vote": False, "kip853": False, "listener": "data",
                       "model_variant": "kafka-leader-told-at-epoch-start+kafka-new-listener-untold"})
    assert both.model.listener == ListenerRules(told_at_transition=True, leader_told_at_epoch_start=True,
                                                data_only=True)
