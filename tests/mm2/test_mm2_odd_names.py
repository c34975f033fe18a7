"""Session 23: KIP-1016 heartbeats names Kafka accepts but no run configured (MM2-DRIVE-HEARTBEATS-ODD-
NAMES, MM2-LAW-HEARTBEATS-NAME-VALID), the separator ``-.`` (MM2-DRIVE-DOTTED-SEPARATOR) and the
name-kind coverage matrix (MM2-DRIVE-NAME-KINDS), spec/mm2.md §2 and §7."""

from __future__ import annotations

from kspec.conformance.drivers.mm2 import (
    CONFIGS,
    HEARTBEATS_NAME_CONFIG,
    Mm2Driver,
    Query,
    call_kinds,
    interesting_topics,
    name_kinds,
    odd_heartbeats,
)
from kspec.conformance.targets.mm2_policies import DefaultPolicy, IdentityPolicy
from kspec.conformance.targets.mutants_power import HeartbeatsNameEmptyDefaultPolicy, RegexSeparatorPolicy
from kspec.model.mm2.calls import HeartbeatsTopic, IsHeartbeatsTopic, TopicSource
from kspec.model.mm2.laws import LAWS_BY_ID, LawInput
from kspec.model.mm2.policy import DefaultReplicationPolicy, IdentityReplicationPolicy

DECLARED = {"policy": "default", "separator": ".", "internal_rule": "4.x", "heartbeats_topic_name": True}
LAW = LAWS_BY_ID["MM2-LAW-HEARTBEATS"]


def _configured(cls: type[DefaultPolicy], props: dict[str, str]) -> DefaultPolicy:
    policy = cls(internal_rule="4.x")
    policy.configure(props)
    return policy


def test_kafka_reads_odd_names_as_given() -> None:
    # DefaultReplicationPolicy.configure stores the string; isHeartbeatsTopic = name == originalTopic(t)
    empty = DefaultReplicationPolicy(heartbeats_topic_name="")
    assert (empty.heartbeats_topic(), empty.is_heartbeats_topic(""), empty.is_heartbeats_topic("heartbeats")) == (
        "", True, False)
    assert empty.topic_source("A.") is None and not empty.is_heartbeats_topic("A.")  # "A." reads as local
    dot = DefaultReplicationPolicy(heartbeats_topic_name=".")
    assert dot.is_heartbeats_topic(".") and dot.is_internal_topic(".")
    lead = DefaultReplicationPolicy(heartbeats_topic_name=".hb")
    assert (lead.topic_source(".hb"), lead.original_topic(".hb"), lead.is_heartbeats_topic(".hb")) == ("", "hb", False)
    trail = DefaultReplicationPolicy(heartbeats_topic_name="hb.")
    assert all(trail.is_heartbeats_topic(t) for t in ("hb.", "A.hb.", "B.A.hb."))
    # the identity policy: every name ends with "", so with the empty name every topic looks like a heartbeat
    ident = IdentityReplicationPolicy(heartbeats_topic_name="", source_cluster_alias="A")
    assert ident.format_remote_topic("A", "orders") == "A.orders" and ident.topic_source("orders") is None


def test_the_law_holds_for_every_odd_name_under_both_policies_and_rules() -> None:
    for name in odd_heartbeats(".").values():
        for rule in ("4.x", "3.x"):
            inp = LawInput("A", "B", "orders", ".", rule)
            for cls in (DefaultReplicationPolicy, IdentityReplicationPolicy):
                policy = cls(heartbeats_topic_name=name, internal_rule=rule)
                assert LAW.check(lambda a, p=policy: p.for_flow(a), inp), (name, rule, cls.__name__)
            ported = [_configured(cls, {HEARTBEATS_NAME_CONFIG: name}) for cls in (DefaultPolicy, IdentityPolicy)]
            assert all(LAW.check(lambda _, p=p: p, LawInput("A", "B", "orders", ".", "4.x")) for p in ported), name


def test_the_law_still_fails_where_it_should() -> None:
    # a heartbeats name that is its own original topic but not recognised, or whose copy is not
    class Unrecognised(DefaultPolicy):
        def is_heartbeats_topic(self, topic: str) -> bool:
            return topic == self.heartbeats_topic()

    inp = LawInput("A", "B", "orders")
    assert not LAW.check(lambda _: _configured(Unrecognised, {HEARTBEATS_NAME_CONFIG: "hb."}), inp)
    # the empty name: a heartbeats topic by KIP-690's definition; the fallback answers false for it
    wrong = _configured(HeartbeatsNameEmptyDefaultPolicy, {HEARTBEATS_NAME_CONFIG: ""})
    right = _configured(DefaultPolicy, {HEARTBEATS_NAME_CONFIG: ""})
    assert wrong.heartbeats_topic() == "heartbeats" and right.heartbeats_topic() == ""
    assert right.is_heartbeats_topic("") and not wrong.is_heartbeats_topic("")


def test_the_driver_configures_odd_names_after_the_client_only_when_declared() -> None:
    driver = Mm2Driver(DECLARED)
    odd = odd_heartbeats(".")
    assert driver.nodes()[-len(odd):] == list(odd) and driver.nodes()[-len(odd) - 1] == "(client)"
    for node, name in odd.items():
        assert driver.node_config(node)["props"][HEARTBEATS_NAME_CONFIG] == name  # type: ignore[index]
        assert driver.setup.policy_at(node).heartbeats_topic() == name
    calls = {(a.node, a.call) for c, a in driver.candidates(driver.init_state()) if isinstance(a, Query)}
    assert ("hb-empty", HeartbeatsTopic()) in calls and ("hb-empty", IsHeartbeatsTopic("heartbeats")) in calls
    assert ("hb-empty", IsHeartbeatsTopic("")) in calls and ("hb-long", IsHeartbeatsTopic("A." + "h" * 249)) in calls
    cases = [c for c in driver.setup.cases if c.inp.alias in odd]
    assert {c.inp.alias for c in cases} == set(odd) and all(c.law is LAW for c in cases)
    assert all(c.law.check(driver.setup.policy_at, c.inp) for c in driver.setup.cases)
    plain = Mm2Driver({k: v for k, v in DECLARED.items() if k != "heartbeats_topic_name"})
    assert not any(n in plain.nodes() for n in odd)
    # the 3.x configurations and the other separators have no KIP-1016 name: no odd nodes
    assert not Mm2Driver({**DECLARED, "internal_rule": "3.x"}).setup.odd_nodes


def test_the_dotted_separator_tells_an_unquoted_pattern_apart() -> None:
    assert {"policy": "default", "separator": "-.", "internal_rule": "3.x"} in CONFIGS
    for sep in (".", "_", "__", "-"):
        names = interesting_topics(sep)
        assert all(RegexSeparatorPolicy(separator=sep).topic_source(t) == DefaultPolicy(separator=sep).topic_source(t)
                   for t in names), sep
    assert RegexSeparatorPolicy(separator="-.").topic_source("orders-internal") == "orders"
    assert DefaultPolicy(separator="-.").topic_source("orders-internal") is None
    driver = Mm2Driver({"policy": "default", "separator": "-.", "internal_rule": "3.x"})
    calls = {a.call for c, a in driver.candidates(driver.init_state()) if isinstance(a, Query)}
    assert TopicSource("orders-internal") in calls
    assert all(c.law.check(driver.setup.policy_at, c.inp) for c in driver.setup.cases)


def test_name_kinds_count_the_vocabulary() -> None:
    assert name_kinds("", ".") == ["name: empty"]
    assert name_kinds("..", ".") == ["name: only separators"]
    assert "name: separator at start" in name_kinds(".orders", ".")
    assert "name: separator doubled" in name_kinds("A..orders", ".")
    assert "name: 249 characters" in name_kinds("t" * 249, ".")
    assert "name: 4+ hops" in name_kinds("A.B.C.A.orders", ".")
    assert "name: alias holding the separator" in name_kinds("us.west.orders", ".", ("us.west",))
    assert "name: separator run, not a multiple" in name_kinds("A___orders", "__")
    assert "name: outside the BMP" in name_kinds("\U0001F680.orders", ".")
    assert "separator: regex metacharacter" in call_kinds(TopicSource("x"), "-.")
    assert "separator: several characters" in call_kinds(TopicSource("x"), "-.")
    driver = Mm2Driver(DECLARED)
    cells = driver.input_cells(driver.init_state(), Query("hb-empty", HeartbeatsTopic()))
    assert ("heartbeats name: odd", "HeartbeatsTopic") in cells


def test_mirror_client_reads_odd_heartbeat_names_as_kafka_does() -> None:
    # MirrorClient.countHopsForTopic / allSources (apache/kafka MirrorClient.java) over the model's
    # policy: a doubled separator names the empty alias as a hop, a dotted alias its first piece
    from kspec.model.mm2.policy import all_sources, count_hops_for_topic, replication_hops, upstream_clusters

    p = DefaultReplicationPolicy()
    assert all_sources(p, "A..heartbeats") == {"A", ""}
    assert count_hops_for_topic(p, "A..heartbeats", "") == 2
    assert all_sources(p, "us.west.heartbeats") == {"us", "west"}
    assert count_hops_for_topic(p, "A.B.A.heartbeats", "C") == -1  # a source seen twice: Kafka's cycle guard
    topics = ["A.B.heartbeats", "B.heartbeats", "A.heartbeats.", "heartbeats"]
    assert upstream_clusters(p, topics) == {"A", "B"} and replication_hops(p, topics, "A") == 1
    # the empty configured name: "" is a heartbeats topic with no source, "A." is local
    empty = DefaultReplicationPolicy(heartbeats_topic_name="")
    assert upstream_clusters(empty, ["", "A.", "A.heartbeats"]) == frozenset()
    assert replication_hops(empty, ["", "A."], "A") == -1
