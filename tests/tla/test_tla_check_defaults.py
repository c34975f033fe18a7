"""``kspec tla check raft`` with no bounds checks the spec's shipped config (tla/KRaft.cfg).

The explorer's own defaults (max_epoch=2, max_appends=1, max_crashes=1) are more than TLC
explores within the command's default timeout, so a check with no bounds named ran into the
timeout (exit 2) instead of showing TLC and the explorer agreeing. The real run (TLC and the
explorer both at 9868 distinct states) is bench work; this holds the bounds it runs at.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from cli_run import run_cli

from kspec.conformance.commands import tla as tla_cmd
from kspec.tla.check import CheckResult
from kspec.tla.mappings import TLA_DIR
from kspec.tla.mappings.raft import CONSTANT_OF_BOUND


def _cfg_constants() -> dict[str, str]:
    text = (TLA_DIR / "KRaft.cfg").read_text(encoding="utf-8")
    return dict(re.findall(r"^\s*(\w+)\s*=\s*(\w+)\s*$", text, flags=re.M))


def _captured(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args: list[str]) -> Any:
    seen: dict[str, Any] = {}

    def fake(mapping: Any, model: Any, values: Any, **kwargs: Any) -> CheckResult:
        seen["values"] = dict(values)
        raise tla_cmd.TLCError("stopped by the test")

    monkeypatch.setattr(tla_cmd, "check_agreement", fake)
    code, _out, err = run_cli(["tla", "check", "raft", *args], capsys)
    assert code == 2 and "stopped by the test" in err, err
    return seen["values"]


def test_no_bounds_means_the_shipped_cfg(monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    values = _captured(monkeypatch, capsys, [])
    constants = _cfg_constants()
    for bound, constant in CONSTANT_OF_BOUND.items():
        expected = constants[constant]
        got = values[bound]
        assert str(got).upper() == expected if isinstance(got, bool) else got == int(expected), (bound, got)
    assert values["symmetry"] is False and values["kip853"] is False


def test_a_named_bound_wins_over_the_cfg(monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    values = _captured(monkeypatch, capsys, ["max_epoch=2"])
    assert values["max_epoch"] == 2 and values["max_appends"] == int(_cfg_constants()["MaxAppends"])
