"""The ReplicationPolicy laws (spec/mm2.md) against Kafka's own DefaultReplicationPolicy and
IdentityReplicationPolicy, through the ``kafka:VERSION`` target (JPype, jars from Maven).

One Kafka version per process: KSPEC_KAFKA_TEST_VERSION (default 4.0.0, which also has the
share coordinator, so tests/kafka runs in one process). The first run downloads the jars into
the kspec cache; without Maven or network the target fails and so do these tests, with the
one-line reason.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from kspec.conformance.adapters.base import TargetError
from kspec.conformance.drivers.mm2 import CheckLaw, Mm2Driver
from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.harness import Divergence, Lockstep
from kspec.conformance.targets import registry
from kspec.conformance.targets.kafka.mm2 import KafkaMm2Target
from kspec.model.mm2 import laws as L
from kspec.model.mm2.policy import (
    INTERNAL_RULE_4X,
    DefaultReplicationPolicy,
    IdentityReplicationPolicy,
    internal_rule_for,
)

VERSION = os.environ.get("KSPEC_KAFKA_TEST_VERSION", "4.0.0")
SEPARATORS = [".", "_", "-", "__", "--", ".."]
SETTINGS = settings(max_examples=100, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
NO_SHRINK = settings(max_examples=2000, database=None, phases=[Phase.generate])


# KAFKA-17200 (Kafka 4.0): user topics ending in ".internal" / "-internal" are no longer
# internal. The model has both rules (MM2-RULE-INTERNAL-3X / -4X); each release is held to its own.
RULE = internal_rule_for(VERSION)
KAFKA_17200 = RULE == INTERNAL_RULE_4X


@st.composite
def law_inputs(draw: st.DrawFn) -> L.LawInput:
    sep = draw(st.sampled_from(SEPARATORS))

    # Half the names are pieces joined by the separator: the edge cases the laws are about.
    def name() -> str:
        if draw(st.booleans()):
            return draw(st.text(alphabet="abcz09._-", min_size=1, max_size=12))
        pieces = draw(st.lists(st.text(alphabet="abc09", max_size=4), min_size=1, max_size=3))
        return sep.join(pieces) or "t"
    return L.LawInput(alias=name(), other_alias=name(), topic=name(), separator=sep, internal_rule=RULE)


@pytest.fixture(scope="module")
def kafka() -> KafkaMm2Target:
    target = registry.resolve_target(f"kafka:{VERSION}", "mm2")
    assert isinstance(target, KafkaMm2Target)
    return target


def test_target_is_kafkas_own_class(kafka: KafkaMm2Target) -> None:
    p = kafka.policy("default")
    assert str(p.java.getClass().getName()) == "org.apache.kafka.connect.mirror.DefaultReplicationPolicy"
    assert kafka.name == f"kafka:{VERSION}"
    # Java null comes back as None, not the string "None".
    assert p.topic_source("orders") is None
    assert p.format_remote_topic("A", "orders") == "A.orders"


@pytest.mark.parametrize("law", L.LAWS, ids=lambda law: law.id)
@SETTINGS
@given(inp=law_inputs())
def test_kafka_default_policy_meets_every_law(kafka: KafkaMm2Target, law: L.Law, inp: L.LawInput) -> None:
    assert law.holds(kafka.policy_for("default", inp.separator), inp), (law.id, inp)


@pytest.mark.parametrize("law", [law for law in L.LAWS if law.identity_meets],
                         ids=lambda law: law.id)
@SETTINGS
@given(inp=law_inputs())
def test_kafka_identity_policy_meets_its_laws(kafka: KafkaMm2Target, law: L.Law, inp: L.LawInput) -> None:
    assert law.holds(kafka.policy_for("identity", inp.separator), inp), (law.id, inp)


@pytest.mark.parametrize("law", [law for law in L.LAWS if not law.identity_meets], ids=lambda law: law.id)
def test_kafka_identity_policy_breaks_the_laws_the_spec_says(kafka: KafkaMm2Target, law: L.Law) -> None:
    # Hypothesis finds the counterexample on Kafka's class; none found fails the test.
    found = find(law_inputs(), lambda i: not law.holds(kafka.policy_for("identity", i.separator), i),
                 settings=NO_SHRINK)
    assert law.precondition(found)


def test_internal_topic_rule_follows_the_version(kafka: KafkaMm2Target) -> None:
    # Each release meets its own rule's law and breaks the other's, on Connect-style names.
    p = kafka.policy_for("default", ".")
    for rule, law_id in (("3.x", "MM2-LAW-INTERNAL-CONNECT-3X"), ("4.x", "MM2-LAW-INTERNAL-ONLY-4X")):
        inp = L.LawInput(alias="A", other_alias="B", topic="orders", internal_rule=rule)
        assert L.LAWS_BY_ID[law_id].holds(p, inp) is (rule == RULE), (rule, law_id)
    assert L.LAWS_BY_ID["MM2-LAW-INTERNAL-TOPICS"].holds(p, L.LawInput("A", "B", "orders"))
    assert kafka.internal_rule == RULE
    # 4.0 also narrowed isMM2InternalTopic to "mm2"-prefixed names and checkpoints topics.
    assert p("A").is_mm2_internal_topic("orders.internal") is not KAFKA_17200
    assert p("A").is_mm2_internal_topic("A.checkpoints.internal")
    assert p("A").is_internal_topic("orders.internal") is not KAFKA_17200
    assert p("A").is_internal_topic("orders-internal") is not KAFKA_17200
    assert p("A").is_internal_topic("__orders") and p("A").is_internal_topic(".orders")
    assert p("A").is_internal_topic("mm2-offset-syncs.A.internal")


def test_kafka_identity_policy_cannot_detect_cycles(kafka: KafkaMm2Target) -> None:
    # spec/mm2.md's counterexample: "orders" from A sits on B under the same name.
    pf = kafka.policy_for("identity", ".")
    inp = L.LawInput(alias="A", other_alias="B", topic="orders")
    assert not L.LAWS_BY_ID["MM2-LAW-CYCLE-DETECTABLE"].holds(pf, inp)
    assert pf("A").format_remote_topic("A", "orders") == "orders"
    assert pf("B").topic_source("orders") == "B"
    assert L.LAWS_BY_ID["MM2-LAW-CYCLE-DETECTABLE"].holds(kafka.policy_for("default", "."), inp)


@SETTINGS
@given(inp=law_inputs(), identity=st.booleans())
def test_kafka_and_model_policies_agree(kafka: KafkaMm2Target, inp: L.LawInput, identity: bool) -> None:
    sep = inp.separator
    model: Any = (IdentityReplicationPolicy(separator=sep, source_cluster_alias=inp.alias, internal_rule=RULE)
                  if identity else DefaultReplicationPolicy(separator=sep, internal_rule=RULE))
    real = kafka.policy_for("identity" if identity else "default", sep)(inp.alias)
    for t in (inp.topic, inp.alias + sep + inp.topic, inp.topic + "heartbeats", inp.topic + ".internal",
              inp.topic + "-internal", "mm2" + inp.topic + sep + "internal"):
        for method in ("topic_source", "upstream_topic", "original_topic", "is_internal_topic",
                       "is_heartbeats_topic", "is_checkpoints_topic", "is_mm2_internal_topic"):
            expected = getattr(model, method)(t)
            assert getattr(real, method)(t) == expected, (method, t)
    assert real.format_remote_topic(inp.alias, inp.topic) == model.format_remote_topic(inp.alias, inp.topic)
    assert real.checkpoints_topic(inp.alias) == model.checkpoints_topic(inp.alias)
    assert real.offset_syncs_topic(inp.alias) == model.offset_syncs_topic(inp.alias)


def test_node_interface_answers_json(kafka: KafkaMm2Target) -> None:
    node = kafka.start("A", {"policy": "default", "props": {"replication.policy.separator": "_"}})
    assert node.step({"type": "FormatRemoteTopic", "source": "A", "topic": "t"}).observation == {"result": "A_t"}
    assert node.step({"type": "TopicSource", "topic": "t"}).observation == {"result": None}
    with pytest.raises(TargetError, match="unknown mm2 input 'formatRemoteTopic'"):
        node.step({"type": "formatRemoteTopic", "source": "A", "topic": "t"})
    with pytest.raises(TargetError, match="unknown policy"):
        kafka.start("A", {"policy": "fancy"})
    other = "3.x" if KAFKA_17200 else "4.x"
    with pytest.raises(TargetError, match=f"follows the {RULE} internal-topic rule"):
        kafka.start("A", {"policy": "default", "internal_rule": other})
    assert kafka.supports({"policy": "identity", "internal_rule": RULE})
    assert not kafka.supports({"policy": "default", "internal_rule": other})


def test_conform_lockstep_against_kafka(kafka: KafkaMm2Target, tmp_path: Any) -> None:
    # `kspec conform mm2 --target kafka:VERSION` at a small budget (the full one is in
    # docs/kafka-matrix.md): both policies, this release's rule, conforms.
    result = run_conformance("mm2", kafka, examples=30, steps=30, seed_value=1, out_dir=tmp_path)
    assert result.verdict == "conforms", result.finding and result.finding.line()


def test_identity_held_to_the_default_contract_cycle(kafka: KafkaMm2Target) -> None:
    # spec/mm2.md §3 through the lockstep on Kafka's own IdentityReplicationPolicy.
    driver = Mm2Driver({"policy": "identity", "separator": ".", "internal_rule": RULE, "contract": "default"})
    index = next(k for k, c in enumerate(driver.setup.cases)
                 if c.law.id == "MM2-LAW-CYCLE-DETECTABLE" and (c.inp.alias, c.inp.topic) == ("A", "orders"))
    session = Lockstep(driver, kafka)
    with pytest.raises(Divergence) as caught:
        session._step(CheckLaw(index), session.state)
    assert caught.value.finding.field == "MM2-LAW-CYCLE-DETECTABLE"
    assert session.steps[0].target_observation == {"result": "orders"}


def test_a_second_version_in_the_process_is_a_clear_error(kafka: KafkaMm2Target) -> None:
    other = "3.8.1" if VERSION != "3.8.1" else "3.9.0"
    with pytest.raises(registry.UnknownTarget, match=f"kafka:{other}: .*already runs a JVM with Kafka {VERSION}"):
        registry.resolve_target(f"kafka:{other}", "mm2")


def test_kafka_target_for_an_uncovered_protocol_is_one_line() -> None:
    # Every protocol conform covers has a Kafka target now (streams last): a made-up one.
    with pytest.raises(registry.UnknownTarget, match="no Kafka target for protocol 'gossip'"):
        registry.resolve_target(f"kafka:{VERSION}", "gossip")


@pytest.mark.parametrize("version", ["2.8.2", "3.0.2"])
def test_releases_before_kip_690_are_refused_up_front(version: str) -> None:
    # No Maven, no JVM: the version alone says the suite's calls do not exist there (spec/mm2.md §1.4).
    with pytest.raises(TargetError, match=rf"kafka:{version}: not supported for mm2 \(ReplicationPolicy before 3.1"):
        KafkaMm2Target(version)
