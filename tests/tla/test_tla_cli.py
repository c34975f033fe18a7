"""``kspec tla check``: real TLC against the explorer, through the CLI's exit codes and JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import tla_toy_model as toy
from cli_run import run_cli

from kspec.conformance import protocols
from kspec.tla.mappings import NoMapping, TLAMapping, get_mapping
from kspec.tla.runner import JAR_ENV


@pytest.fixture
def toy_protocols(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Register the Tokens twin (and its broken variant) as protocols with TLA+ mappings."""
    broken = type(sys)("tla_toy_broken")
    broken.PROTOCOL = toy.BROKEN_PROTOCOL  # type: ignore[attr-defined]
    broken.MAPPING = toy.BROKEN_MAPPING  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tla_toy_broken", broken)
    monkeypatch.setitem(sys.modules, "kspec.tla.mappings.toy", toy)
    monkeypatch.setitem(sys.modules, "kspec.tla.mappings.toybroken", broken)
    protocols.register(protocols.ConformanceProtocol("toy", "tla_toy_model", tla="kspec.tla.mappings.toy"))
    protocols.register(protocols.ConformanceProtocol("toybroken", "tla_toy_broken",
                                                     tla="kspec.tla.mappings.toybroken"))
    yield
    protocols.unregister("toy")
    protocols.unregister("toybroken")




def test_equal_state_sets_exit_0(toy_protocols: None, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["tla", "check", "toy", "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    for key in ("protocol", "bounds", "tlc_distinct_states", "model_distinct_states", "equal", "seconds",
                "tlc_seconds", "model_seconds", "first_difference"):
        assert key in doc
    assert doc["protocol"] == "toy" and doc["bounds"] == {"procs": 2, "max_count": 2, "max_log": 2}
    assert doc["equal"] is True and doc["first_difference"] is None
    assert doc["tlc_distinct_states"] == doc["model_distinct_states"] == 93
    # Like TLC, the explorer checks the states just past the bounds but does not keep them.
    assert doc["model_states_outside_bounds"] == 0


def test_bounds_reach_the_cfg(toy_protocols: None, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["tla", "check", "toy", "procs=3", "max_count=1", "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    model = toy.Tokens(procs=3, max_count=1)
    from kspec.model.core.explorer import reachable_states

    expected = sum(1 for s in reachable_states(model) if model.within_bounds(s))
    assert doc["tlc_distinct_states"] == doc["model_distinct_states"] == expected != 93


def test_different_state_sets_exit_1_with_a_readable_difference(toy_protocols: None,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["tla", "check", "toybroken", "max_log=1", "--json"], capsys)
    assert code == 1, err
    doc = json.loads(out)
    assert doc["equal"] is False and doc["only_in_model"] > 0 and doc["only_in_tlc"] == 0
    diff = doc["first_difference"]
    assert diff["only_in"] == "model"
    assert diff["state"].startswith("/\\ count = ") and "/\\ log = <<" in diff["state"]


def test_human_output(toy_protocols: None, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["tla", "check", "toy", "max_count=1"], capsys)
    assert code == 0
    assert "the sets of states are equal" in out and "outside bounds" not in out
    code, out, _ = run_cli(["tla", "check", "toybroken", "max_log=1", "max_count=1"], capsys)
    assert code == 1 and "the sets differ" in out and "only in model: /\\ count" in out


def test_no_mapping_is_exit_2_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["tla", "check", "streams", "--json"], capsys)
    assert code == 2 and out == ""
    assert err.strip() == "kspec: error: protocol 'streams' has no TLA+ mapping yet (kspec.tla.mappings.streams)"
    with pytest.raises(NoMapping):
        get_mapping("streams")


def test_unknown_protocol_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["tla", "check", "paxos"], capsys)
    assert code == 2 and "unknown protocol 'paxos'" in err and len(err.strip().splitlines()) == 1


def test_bad_bound_is_exit_2(toy_protocols: None, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["tla", "check", "toy", "procs=x"], capsys)
    assert code == 2 and "procs" in err and len(err.strip().splitlines()) == 1


def test_missing_jar_is_exit_2_without_traceback(toy_protocols: None, monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(JAR_ENV, str(tmp_path / "missing.jar"))
    code, out, err = run_cli(["tla", "check", "toy", "--json"], capsys)
    assert code == 2 and out == ""
    assert err.startswith("kspec: error: tla check toy: KSPEC_TLA2TOOLS=") and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_tlc_spec_error_is_exit_2(toy_protocols: None, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    bad = TLAMapping("toy", toy.SPEC.with_name("Bad.tla"), toy.config, toy.from_model)
    monkeypatch.setattr(toy, "MAPPING", bad)
    code, _, err = run_cli(["tla", "check", "toy"], capsys)
    assert code == 2 and "Bad.tla:5:1: parse error" in err and len(err.strip().splitlines()) == 1


def test_a_failing_mapping_is_exit_2(toy_protocols: None, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    def broken_from_model(state: object) -> object:
        raise KeyError("no such node")

    monkeypatch.setattr(toy, "MAPPING", TLAMapping("toy", toy.SPEC, toy.config, broken_from_model))
    code, _, err = run_cli(["tla", "check", "toy"], capsys)
    assert code == 2 and "from_model failed (KeyError" in err and len(err.strip().splitlines()) == 1


def test_the_installed_command_reports_no_mapping() -> None:
    """The real entry point in a fresh process: one line on stderr, exit 2."""
    entry = "import sys; from kspec.conformance.cli import main; main(sys.argv[1:])"
    proc = subprocess.run([sys.executable, "-c", entry, "tla", "check", "streams"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().startswith("kspec: error: protocol 'streams' has no TLA+ mapping yet")


def test_tlc_stopped_by_the_timeout_is_exit_2(toy_protocols: None, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["tla", "check", "toy", "procs=4", "max_count=9", "max_log=4", "--timeout", "1"], capsys)
    assert code == 2 and out == ""
    assert "stopped after 1s before exploring every state" in err and len(err.strip().splitlines()) == 1
