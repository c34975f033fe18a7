"""Session 18's mm2 driving rules (spec/mm2.md §7): MM2-DRIVE-DEFAULT-PROPS (a target that
declares ``default_props`` gets, at every other node, only the settings that differ from Kafka's
defaults), MM2-DRIVE-OWN-ALIAS (a name that starts with an extra node's alias is asked at that
node) and MM2-DRIVE-SUFFIX-BARE (``internal`` after a character none of Kafka's suffixes has).
Each is held to the mutant that only it tells apart from the reference (red team
``mm2_scratch10``)."""

from __future__ import annotations

from kspec.conformance.drivers.mm2 import CONFIGS, CUSTOM_HEARTBEATS, MAX_NAMES, Mm2Driver, Query, interesting_topics
from kspec.conformance.targets.mm2_policies import DefaultPolicy
from kspec.conformance.targets.mutants_power import FlagAbsentFalsePolicy, InternalRegexDotPolicy, OwnAliasSourcePolicy
from kspec.model.mm2.calls import TopicSource

SEP, FLAG, HB = ("replication.policy.separator", "replication.policy.internal.topic.separator.enabled",
                 "default.replication.policy.heartbeats.topic.name")


def _configured(cls: type[DefaultPolicy], props: dict[str, str], rule: str = "4.x") -> DefaultPolicy:
    policy = cls(internal_rule=rule)
    policy.configure(props)
    return policy


def test_default_props_leave_kafka_defaults_out_only_when_declared() -> None:
    dotted = {"policy": "default", "separator": ".", "internal_rule": "4.x", "heartbeats_topic_name": True}
    plain = Mm2Driver(dotted)
    assert all(SEP in plain.node_config(n)["props"] for n in plain.nodes())  # not declared: all of them
    driver = Mm2Driver({**dotted, "default_props": True})
    props = [driver.node_config(n)["props"] for n in driver.nodes()]
    bare = [p for p in props if SEP not in p]
    named = driver.setup.node_heartbeats  # MM2-DRIVE-HEARTBEATS-SEPARATOR's and -ODD-NAMES' nodes
    assert bare and all(FLAG not in p and p[HB] == named.get(str(p.get("source.cluster.alias")), CUSTOM_HEARTBEATS)
                        for p in bare)
    assert any(SEP in p for p in props)
    underscore = Mm2Driver({"policy": "default", "separator": "_", "internal_rule": "4.x", "default_props": True})
    props = [underscore.node_config(n)["props"] for n in underscore.nodes()]
    assert any(p[SEP] == "_" and FLAG not in p for p in props)
    # a flag that is not Kafka's default stays
    off = Mm2Driver({"policy": "default", "separator": "__", "internal_rule": "4.x", "internal_separator": False,
                     "default_props": True})
    assert all(FLAG in off.node_config(n)["props"] for n in off.nodes())
    # Kafka's configure answers the same with the defaults left out; a missing flag read as false does not
    for p in props:
        right, wrong = _configured(DefaultPolicy, p), _configured(FlagAbsentFalsePolicy, p)
        # Kafka reads the flag with Boolean.parseBoolean: the blank-padded "true " one node gets
        # (MM2-DRIVE-BLANK-FLAG) reads as false, so that node keeps the dotted internal names.
        on = FLAG not in p or str(p[FLAG]).lower() == "true"
        assert right.checkpoints_topic("A") == ("A_checkpoints_internal" if on else "A.checkpoints.internal"), p
        if FLAG not in p:
            assert wrong.checkpoints_topic("A") == "A.checkpoints.internal"


def test_names_starting_with_an_extra_alias_are_asked_at_its_node() -> None:
    driver = Mm2Driver({"policy": "default", "separator": ".", "internal_rule": "4.x"})
    queries = {(a.node, a.call) for c, a in driver.candidates(driver.init_state()) if c == "query"}
    assert ("us.west", TopicSource("us.west.orders")) in queries
    props = driver.node_config("us.west")["props"]
    right, wrong = _configured(DefaultPolicy, props), _configured(OwnAliasSourcePolicy, props)
    assert (right.topic_source("us.west.orders"), wrong.topic_source("us.west.orders")) == ("us", "us.west")


def test_bare_internal_suffix_is_asked_and_tells_a_regex_dot_apart() -> None:
    for config in CONFIGS:
        sep, rule = str(config["separator"]), str(config["internal_rule"])
        names = interesting_topics(sep)
        assert len(dict.fromkeys(names)) <= MAX_NAMES and "ordersinternal" in names
        right = DefaultPolicy(separator=sep, internal_rule=rule)
        assert not right.is_internal_topic("ordersinternal")
        if rule == "3.x":
            wrong = InternalRegexDotPolicy(separator=sep, internal_rule=rule)
            assert wrong.is_internal_topic("ordersinternal"), sep
    assert Query  # the driver's call type (imported with the names it offers)
