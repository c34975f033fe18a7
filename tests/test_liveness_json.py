"""``kspec explore PROTOCOL --json`` reports ``liveness: {NAME: holds | violated | not-checked}``
for every protocol (issue #20 item 5): a protocol that declares no liveness property reports
``{}``; one whose check did not run (``--no-liveness``, or a safety violation stopped the run)
names each property ``not-checked``. The CLI runs for the two protocols whose exploration at
small bounds takes a second; the report's keys for every protocol come from the same function."""

from __future__ import annotations

import json

import pytest
from cli_run import run_cli

from kspec.conformance.liveness_render import unchecked_json
from kspec.model.catalog import PROTOCOL_MODULES, get_protocol

DECLARED = {"raft": 4, "voters": 1, "share": 1, "mm2": 0, "streams": 0}


def test_every_protocol_reports_each_property_not_checked() -> None:
    assert set(DECLARED) == set(PROTOCOL_MODULES)
    for protocol, count in DECLARED.items():
        info = get_protocol(protocol)
        doc = unchecked_json(info, info.make(**{b.name: b.default for b in info.bounds}))
        assert len(doc["liveness"]) == count, (protocol, doc)
        assert set(doc["liveness"].values()) <= {"not-checked"} and doc["liveness_ids"].keys() == doc["liveness"].keys()


@pytest.mark.parametrize(("protocol", "bounds", "expected"), [
    ("voters", ["max_epoch=1", "max_adds=0", "max_removes=0", "max_snapshots=0", "max_fetches=1"],
     {"ReconfigurationCompletes": "not-checked"}),
    ("streams", [], {}),
])
def test_explore_json_liveness_key(protocol: str, bounds: list[str], expected: dict[str, str],
                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["explore", protocol, *bounds, "--no-liveness", "--json"], capsys)
    assert code in (0, 1), err  # 1: a witness missed at these small bounds
    assert json.loads(out)["liveness"] == expected
