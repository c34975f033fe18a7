"""A release picks its rule set by version alone (spec/raft.md, "Rule sets")."""

from __future__ import annotations

import pytest

from kspec.model.raft.rule_sets import BY_NAME, parse_version, rule_set_for, rule_set_of


@pytest.mark.parametrize(("version", "name"), [
    ("3.3.2", "kip-595"), ("3.7.2", "kip-595"), ("3.8.1", "kip-853"), ("3.9.1", "kip-853"),
    ("4.0.0", "kip-996"), ("4.0.2", "kip-996"), ("4.3.1", "kip-996"), ("4.4.0", "kip-996"),
])
def test_each_release_line_gets_the_rule_set_of_its_kips(version: str, name: str) -> None:
    assert rule_set_for(version).name == name
    bounds = dict(rule_set_for(version).bounds)
    assert rule_set_of(bounds["pre_vote"] is True, bounds["kip853"] is True).name == name


def test_a_rule_set_is_named_after_its_kip() -> None:
    for name, rule_set in BY_NAME.items():
        assert name == rule_set.kip.lower()


@pytest.mark.parametrize("bad", ["4", "four.zero", "", "4.x"])
def test_a_version_that_is_not_one_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="not a Kafka release version"):
        parse_version(bad)
