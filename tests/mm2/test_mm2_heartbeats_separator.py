"""MM2-DRIVE-HEARTBEATS-SEPARATOR and MM2-LAW-HEARTBEATS' condition (spec/mm2.md §2, §7): a
KIP-1016 heartbeats name holding the separator reads as remote, so by KIP-690's
``isHeartbeatsTopic(t) = heartbeatsTopic().equals(originalTopic(t))`` it is not a heartbeats
topic. The driver configures such a name at one extra node (targets that declare the setting
only), asks it there, and the law judges it; a policy with the fast path "the configured name is
a heartbeats topic" (red team ``mm2_scratch12``'s ``heartbeats-name-shortcut``, mutant
``mm2-heartbeats-name-self``) is told apart by it alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from kspec.conformance.drivers.mm2 import (
    HEARTBEATS_NAME_CONFIG,
    SEPARATED_HEARTBEATS_NODE,
    Mm2Driver,
    Query,
    separated_heartbeats,
    setup,
)
from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets.mm2_policies import DefaultPolicy
from kspec.conformance.targets.mutants_power import HeartbeatsNameSelfPolicy
from kspec.conformance.targets.registry import resolve_target
from kspec.model.mm2.calls import IsHeartbeatsTopic
from kspec.model.mm2.laws import LAWS_BY_ID, LawInput
from kspec.model.mm2.policy import DefaultReplicationPolicy

DECLARED = {"policy": "default", "separator": ".", "internal_rule": "4.x", "heartbeats_topic_name": True}
LAW = LAWS_BY_ID["MM2-LAW-HEARTBEATS"]


def _configured(cls: type[DefaultPolicy], node: str, driver: Mm2Driver) -> DefaultPolicy:
    policy = cls(internal_rule="4.x")
    policy.configure(dict(driver.node_config(node)["props"]))  # type: ignore[arg-type]
    return policy


def test_one_node_names_a_heartbeats_topic_holding_the_separator_and_is_asked_it() -> None:
    driver = Mm2Driver(DECLARED)
    name = separated_heartbeats(".")
    assert name == "hb.topic"
    assert driver.node_config(SEPARATED_HEARTBEATS_NODE)["props"][HEARTBEATS_NAME_CONFIG] == name  # type: ignore[index]
    others = [driver.node_config(n)["props"] for n in driver.nodes()
              if n != SEPARATED_HEARTBEATS_NODE and n not in driver.setup.odd_nodes]
    assert all(p[HEARTBEATS_NAME_CONFIG] == "hb-topic" for p in others)  # type: ignore[index]
    queries = {(a.node, a.call) for c, a in driver.candidates(driver.init_state()) if c == "query"}
    assert (SEPARATED_HEARTBEATS_NODE, IsHeartbeatsTopic(name)) in queries
    # the model answers as Kafka does: remote (source hb, original topic), so not a heartbeats topic
    model = driver.setup.policy_at(SEPARATED_HEARTBEATS_NODE)
    assert (model.heartbeats_topic(), model.original_topic(name), model.is_heartbeats_topic(name)) == (
        name, "topic", False)
    # a target that does not declare the setting is not sent it, at any node
    plain = Mm2Driver({k: v for k, v in DECLARED.items() if k != "heartbeats_topic_name"})
    assert all(HEARTBEATS_NAME_CONFIG not in plain.node_config(n)["props"] for n in plain.nodes())  # type: ignore[operator]
    assert not plain.setup.node_heartbeats


def test_the_law_judges_the_name_and_tells_the_shortcut_apart() -> None:
    driver = Mm2Driver(DECLARED)
    right = _configured(DefaultPolicy, SEPARATED_HEARTBEATS_NODE, driver)
    wrong = _configured(HeartbeatsNameSelfPolicy, SEPARATED_HEARTBEATS_NODE, driver)
    inp = LawInput(SEPARATED_HEARTBEATS_NODE, "B", "orders")
    assert LAW.precondition(inp)
    assert LAW.check(lambda _: right, inp)
    assert not LAW.check(lambda _: wrong, inp)
    # with a name that is its own original topic the shortcut answers as Kafka does
    plain = LawInput("A", "B", "orders")
    assert LAW.check(lambda _: _configured(HeartbeatsNameSelfPolicy, "A", driver), plain)
    assert all(HeartbeatsNameSelfPolicy(separator=s).is_heartbeats_topic(t) == DefaultPolicy(separator=s)
               .is_heartbeats_topic(t) for s in (".", "_") for t in ("heartbeats", "A.heartbeats", "hb.topic"))
    # the law's calls at that node are among the driver's law cases
    cases = [c for c in setup(driver._key).cases if c.law is LAW and c.inp.alias == SEPARATED_HEARTBEATS_NODE]
    assert cases and any(call == IsHeartbeatsTopic("hb.topic") for _, call, _ in cases[0].calls)
    # and the model's own policy meets the law there (no false alarm)
    assert LAW.check(lambda a: driver.setup.policy_at(a), inp)
    assert LAW.check(lambda _: DefaultReplicationPolicy(heartbeats_topic_name="hb.topic"), inp)
    assert Query  # the driver's call type


def test_the_mutant_is_caught_by_that_node_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kspec.conformance.drivers import guide
    from kspec.conformance.drivers import mm2 as driver_module

    target = resolve_target("mutant:mm2-heartbeats-name-self", "mm2")
    found = run_conformance("mm2", target, seed_value=0, out_dir=tmp_path)
    assert found.verdict == "diverges" and found.finding is not None
    # MM2-DRIVE-HEARTBEATS-SEPARATOR off (no node named so): the rest of the suite conforms
    monkeypatch.setattr(driver_module, "SEPARATED_HEARTBEATS_NODE", "(none)")
    # session 23: MM2-DRIVE-HEARTBEATS-ODD-NAMES catches it too (``.hb`` and ``.checkpoints.internal``
    # are not their own original topics either): off as well
    monkeypatch.setattr(driver_module, "odd_heartbeats", lambda sep: {})
    monkeypatch.setattr(guide, "_GRAPHS", {})
    driver_module.setup.cache_clear()
    driver_module._CALLS.clear()
    try:
        missed = run_conformance("mm2", target, seed_value=0, out_dir=tmp_path)
    finally:
        driver_module.setup.cache_clear()
        driver_module._CALLS.clear()
    assert missed.verdict == "conforms", missed.finding and missed.finding.line()
