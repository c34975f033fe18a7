"""The ReplicationPolicy laws (spec/mm2.md) as Hypothesis properties, over the model's
policies and the conformance target classes, and each mutant breaking at least one."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from kspec.conformance.targets import mm2_policies as targets
from kspec.model.mm2 import laws as L
from kspec.model.mm2.mutants import InternalReplicablePolicy, PeriodSplitPolicy, UpstreamSelfPolicy
from kspec.model.mm2.policy import INTERNAL_RULES, DefaultReplicationPolicy, IdentityReplicationPolicy, java_split

# Kafka's legal topic characters; aliases draw from the same set so they can hold separators.
TOPIC_CHARS = "abcz09._-"
SEPARATORS = [".", "_", "-", "__", "--", ".."]

separators = st.sampled_from(SEPARATORS)
names = st.text(alphabet=TOPIC_CHARS, min_size=1, max_size=12)


@st.composite
def law_inputs(draw: st.DrawFn) -> L.LawInput:
    sep = draw(separators)
    # Half the time build names from pieces joined by the separator, so aliases and topics
    # that contain it (the edge cases) are common, not rare.
    def name() -> str:
        if draw(st.booleans()):
            return draw(names)
        pieces = draw(st.lists(st.text(alphabet="abc09", min_size=0, max_size=4), min_size=1, max_size=3))
        return sep.join(pieces) or "t"
    return L.LawInput(alias=name(), other_alias=name(), topic=name(), separator=sep,
                      internal_rule=draw(st.sampled_from(INTERNAL_RULES)))


PolicyFactory = Callable[[L.LawInput, str], Any]  # (law input: separator and rule, source alias) -> policy

MODEL_DEFAULT: PolicyFactory = lambda i, alias: DefaultReplicationPolicy(separator=i.separator,
                                                                         internal_rule=i.internal_rule)
MODEL_IDENTITY: PolicyFactory = lambda i, alias: IdentityReplicationPolicy(
    separator=i.separator, source_cluster_alias=alias, internal_rule=i.internal_rule)
TARGET_DEFAULT: PolicyFactory = lambda i, alias: targets.DefaultPolicy(separator=i.separator,
                                                                       internal_rule=i.internal_rule)
TARGET_IDENTITY: PolicyFactory = lambda i, alias: targets.IdentityPolicy(
    separator=i.separator, source_cluster_alias=alias, internal_rule=i.internal_rule)


def policy_for(factory: PolicyFactory, inp: L.LawInput) -> L.PolicyFor:
    return lambda alias: factory(inp, alias)


# Searches that only need *a* counterexample or *an* input: no shrinking, no example database.
NO_SHRINK = settings(max_examples=2000, database=None, phases=[Phase.generate])
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("factory", [MODEL_DEFAULT, TARGET_DEFAULT], ids=["model", "target"])
@pytest.mark.parametrize("law", L.LAWS, ids=lambda law: law.id)
@SETTINGS
@given(inp=law_inputs())
def test_default_policy_meets_every_law(factory: PolicyFactory, law: L.Law, inp: L.LawInput) -> None:
    assert law.holds(policy_for(factory, inp), inp), (law.id, inp)


@pytest.mark.parametrize("factory", [MODEL_IDENTITY, TARGET_IDENTITY], ids=["model", "target"])
@pytest.mark.parametrize("law", [law for law in L.LAWS if law.identity_meets], ids=lambda law: law.id)
@SETTINGS
@given(inp=law_inputs())
def test_identity_policy_meets_its_laws(factory: PolicyFactory, law: L.Law, inp: L.LawInput) -> None:
    assert law.holds(policy_for(factory, inp), inp), (law.id, inp)


@pytest.mark.parametrize("factory", [MODEL_IDENTITY, TARGET_IDENTITY], ids=["model", "target"])
def test_identity_policy_cannot_detect_cycles(factory: PolicyFactory) -> None:
    # The counterexample of spec/mm2.md: "orders" from A sits on B under the same name; the
    # flow B->A cannot tell it came from A (topic_source is B's alias, upstream is itself).
    inp = L.LawInput(alias="A", other_alias="B", topic="orders")
    pf = policy_for(factory, inp)
    assert not L.LAWS_BY_ID["MM2-LAW-CYCLE-DETECTABLE"].holds(pf, inp)
    assert not L.LAWS_BY_ID["MM2-LAW-LOCAL-TOPIC"].holds(pf, inp)
    assert pf("A").format_remote_topic("A", "orders") == "orders"
    assert pf("B").topic_source("orders") == "B"


def test_alias_containing_separator_is_outside_the_contract() -> None:
    # MM2-LAW-ALIAS-SEPARATOR: Kafka's DefaultReplicationPolicy splits at the first
    # separator, so an alias that contains it is misread; the laws state the precondition.
    p = DefaultReplicationPolicy()
    remote = p.format_remote_topic("us.west", "orders")
    assert remote == "us.west.orders"
    assert p.topic_source(remote) == "us"
    assert p.upstream_topic(remote) == "west.orders"
    assert p.original_topic(remote) == "orders"
    inp = L.LawInput("us.west", "B", "orders")
    assert not L.clean_alias("us.west", ".")
    assert not L._remote_source(lambda a: p, inp)  # the law itself fails there
    assert L.LAWS_BY_ID["MM2-LAW-REMOTE-SOURCE"].holds(lambda a: p, inp)  # but its precondition excludes it
    # A separator occurrence can straddle the boundary: alias "x_" with separator "__".
    assert not L.clean_alias("x_", "__")
    assert DefaultReplicationPolicy(separator="__").topic_source("x___t") == "x"


def _target_mutant(cls: type, i: L.LawInput, alias: str) -> Any:
    return cls(separator=i.separator, internal_rule=i.internal_rule)


MUTANT_CASES: list[tuple[str, PolicyFactory, str]] = [
    ("model upstream-self", lambda i, a: UpstreamSelfPolicy(separator=i.separator), "MM2-LAW-REMOTE-UPSTREAM"),
    ("model internal-replicable", lambda i, a: InternalReplicablePolicy(separator=i.separator),
     "MM2-LAW-INTERNAL-TOPICS"),
    ("model period-split", lambda i, a: PeriodSplitPolicy(separator=i.separator), "MM2-LAW-REMOTE-SOURCE"),
    *[(f"target {name}", partial(_target_mutant, cls), law_id) for name, (cls, law_id) in {
        "upstream-self": (targets.UpstreamSelfPolicy, "MM2-LAW-REMOTE-UPSTREAM"),
        "internal-replicable": (targets.InternalReplicablePolicy, "MM2-LAW-INTERNAL-TOPICS"),
        "dotted-alias": (targets.DottedAliasPolicy, "MM2-LAW-REMOTE-SOURCE"),
        "hardcoded-separator": (targets.HardcodedSeparatorPolicy, "MM2-LAW-REMOTE-SOURCE"),
        "last-separator": (targets.LastSeparatorPolicy, "MM2-LAW-REMOTE-SOURCE"),
        "internal-names-ignore-separator": (targets.InternalNamesIgnoreSeparatorPolicy, "MM2-LAW-INTERNAL-TOPICS"),
        "connect-names-internal": (targets.ConnectNamesInternalPolicy, "MM2-LAW-INTERNAL-ONLY-4X"),
    }.items()],
]


@pytest.mark.parametrize(("label", "factory", "law_id"), MUTANT_CASES, ids=[c[0] for c in MUTANT_CASES])
def test_each_mutant_breaks_a_law(label: str, factory: PolicyFactory, law_id: str) -> None:
    # Hypothesis searches for the counterexample; finding none fails the test.
    from hypothesis import find

    law = L.LAWS_BY_ID[law_id]
    found = find(law_inputs(), lambda inp: not law.holds(policy_for(factory, inp), inp),
                 settings=NO_SHRINK)
    assert law.precondition(found)


def test_every_target_mutant_is_covered() -> None:
    covered = {label.split(" ", 1)[1] for label, _, _ in MUTANT_CASES if label.startswith("target")}
    assert covered == set(targets.MUTANTS)


@SETTINGS
@given(text=st.text(alphabet="ab._", max_size=10), sep=st.sampled_from([".", "_", "..", "a."]))
def test_java_split_matches_regex_split(text: str, sep: str) -> None:
    # Differential: the model's slicing split against the target's regex split.
    assert java_split(text, sep) == targets._split_like_java(text, sep)


@SETTINGS
@given(inp=law_inputs())
def test_model_and_target_policies_agree(inp: L.LawInput) -> None:
    pairs = [(MODEL_DEFAULT(inp, inp.alias), TARGET_DEFAULT(inp, inp.alias)),
             (MODEL_IDENTITY(inp, inp.alias), TARGET_IDENTITY(inp, inp.alias))]
    sep = inp.separator
    for model, target in pairs:
        for t in (inp.topic, inp.alias + sep + inp.topic):
            assert model.topic_source(t) == target.topic_source(t)
            assert model.upstream_topic(t) == target.upstream_topic(t)
            assert model.original_topic(t) == target.original_topic(t)
            assert model.is_internal_topic(t) == target.is_internal_topic(t)
            assert model.is_heartbeats_topic(t) == target.is_heartbeats_topic(t)
            assert model.is_checkpoints_topic(t) == target.is_checkpoints_topic(t)
        assert model.format_remote_topic(inp.alias, inp.topic) == target.format_remote_topic(inp.alias, inp.topic)
        assert model.checkpoints_topic(inp.alias) == target.checkpoints_topic(inp.alias)
        assert model.offset_syncs_topic(inp.alias) == target.offset_syncs_topic(inp.alias)


def test_target_configure_uses_kafka_property_names() -> None:
    p = targets.DefaultPolicy()
    p.configure({"replication.policy.separator": "_",
                 "replication.policy.internal.topic.separator.enabled": "false"})
    assert p.format_remote_topic("A", "t") == "A_t"
    assert p.checkpoints_topic("A") == "A.checkpoints.internal"
    i = targets.IdentityPolicy()
    i.configure({"source.cluster.alias": "A"})
    assert i.topic_source("orders") == "A"


@pytest.mark.parametrize("law", L.LAWS, ids=lambda law: law.id)
def test_generator_reaches_every_precondition(law: L.Law) -> None:
    # Not vacuous: the input generator does produce inputs each law applies to.
    from hypothesis import find

    found = find(law_inputs(), law.precondition, settings=NO_SHRINK)
    assert law.precondition(found)
