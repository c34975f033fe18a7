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
from kspec.conformance.targets import registry
from kspec.conformance.targets.kafka.mm2 import KafkaMm2Target
from kspec.model.mm2 import laws as L
from kspec.model.mm2.policy import DefaultReplicationPolicy, IdentityReplicationPolicy

VERSION = os.environ.get("KSPEC_KAFKA_TEST_VERSION", "4.0.0")
SEPARATORS = [".", "_", "-", "__", "--", ".."]
SETTINGS = settings(max_examples=100, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
NO_SHRINK = settings(max_examples=2000, database=None, phases=[Phase.generate])


def _release(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


# KAFKA-17200 (Kafka 4.0): ReplicationPolicy.isInternalTopic no longer treats user topics
# ending in ".internal" / "-internal" as internal (only "__", "." and MM2's own topics), so
# MM2-LAW-INTERNAL-TOPICS, which states the 3.x rule, fails from 4.0 on. The model follows 3.x.
KAFKA_17200 = _release(VERSION) >= (4, 0)
BROKEN_BY_VERSION = {"MM2-LAW-INTERNAL-TOPICS"} if KAFKA_17200 else set()


@st.composite
def law_inputs(draw: st.DrawFn) -> L.LawInput:
    sep = draw(st.sampled_from(SEPARATORS))

    # Half the names are pieces joined by the separator: the edge cases the laws are about.
    def name() -> str:
        if draw(st.booleans()):
            return draw(st.text(alphabet="abcz09._-", min_size=1, max_size=12))
        pieces = draw(st.lists(st.text(alphabet="abc09", max_size=4), min_size=1, max_size=3))
        return sep.join(pieces) or "t"
    return L.LawInput(alias=name(), other_alias=name(), topic=name(), separator=sep)


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


@pytest.mark.parametrize("law", [law for law in L.LAWS if law.id not in BROKEN_BY_VERSION], ids=lambda law: law.id)
@SETTINGS
@given(inp=law_inputs())
def test_kafka_default_policy_meets_every_law(kafka: KafkaMm2Target, law: L.Law, inp: L.LawInput) -> None:
    assert law.holds(kafka.policy_for("default", inp.separator), inp), (law.id, inp)


@pytest.mark.parametrize("law", [law for law in L.LAWS if law.identity_meets and law.id not in BROKEN_BY_VERSION],
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
    # Before 4.0 the law holds everywhere; from 4.0 it fails exactly on the Connect-style names.
    law = L.LAWS_BY_ID["MM2-LAW-INTERNAL-TOPICS"]
    p = kafka.policy_for("default", ".")
    inp = L.LawInput(alias="A", other_alias="B", topic="orders")
    assert law.holds(p, inp) is not KAFKA_17200
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
    model: Any = (IdentityReplicationPolicy(separator=sep, source_cluster_alias=inp.alias) if identity
                  else DefaultReplicationPolicy(separator=sep))
    real = kafka.policy_for("identity" if identity else "default", sep)(inp.alias)
    for t in (inp.topic, inp.alias + sep + inp.topic, inp.topic + "heartbeats"):
        for method in ("topic_source", "upstream_topic", "original_topic", "is_internal_topic",
                       "is_heartbeats_topic", "is_checkpoints_topic", "is_mm2_internal_topic"):
            expected = getattr(model, method)(t)
            if KAFKA_17200 and method == "is_internal_topic" and t.endswith(("-internal", ".internal")):
                expected = expected and (t.startswith(("__", ".")) or real.is_mm2_internal_topic(t))
            assert getattr(real, method)(t) == expected, (method, t)
    assert real.format_remote_topic(inp.alias, inp.topic) == model.format_remote_topic(inp.alias, inp.topic)
    assert real.checkpoints_topic(inp.alias) == model.checkpoints_topic(inp.alias)
    assert real.offset_syncs_topic(inp.alias) == model.offset_syncs_topic(inp.alias)


def test_node_interface_answers_json(kafka: KafkaMm2Target) -> None:
    node = kafka.start(0, {"policy": "default", "props": {"replication.policy.separator": "_"}})
    assert node.step({"type": "format_remote_topic", "args": ["A", "t"]}).outputs == ["A_t"]
    assert node.step({"type": "topic_source", "args": ["t"]}).outputs == [None]
    with pytest.raises(TargetError, match="unknown ReplicationPolicy method"):
        node.step({"type": "formatRemoteTopic", "args": ["A", "t"]})
    with pytest.raises(TargetError, match="unknown policy"):
        kafka.start(0, {"policy": "fancy"})


def test_a_second_version_in_the_process_is_a_clear_error(kafka: KafkaMm2Target) -> None:
    other = "3.8.1" if VERSION != "3.8.1" else "3.9.0"
    with pytest.raises(registry.UnknownTarget, match=f"kafka:{other}: .*already runs a JVM with Kafka {VERSION}"):
        registry.resolve_target(f"kafka:{other}", "mm2")


def test_kafka_target_for_an_uncovered_protocol_is_one_line() -> None:
    with pytest.raises(registry.UnknownTarget, match="no Kafka target for protocol 'raft'"):
        registry.resolve_target(f"kafka:{VERSION}", "raft")
