"""kspec targets / conform / replay: JSON keys, exit codes, one-line errors; the pytest plugin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kspec.conformance.cli import main
from kspec.conformance.counterexample import itf_to_json, json_to_itf, read_counterexample

TESTS = Path(__file__).parent


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def test_targets_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "targets", "--json")
    rows = json.loads(out)
    assert code == 0
    assert {"name": "reference", "protocol": "raft", "kind": "reference"}.items() <= rows[0].items()
    assert sum(r["kind"] == "mutant" for r in rows) >= 12
    assert all({"name", "protocol", "kind"} <= set(r) for r in rows)


def test_conform_and_replay(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "conform", "raft", "--target", "mutant:raft-pre-vote-changes-state",
                       "--out", str(tmp_path), "--json")
    doc = json.loads(out)
    assert code == 1
    assert {"protocol", "target", "verdict", "examples", "seconds", "counterexample"} <= set(doc)
    assert doc["verdict"] == "diverges" and Path(doc["counterexample"]).exists()
    code, out, _ = run(capsys, "replay", doc["counterexample"], "--json")
    again = json.loads(out)
    assert code == 1 and again["verdict"] == "diverges" and again["reproduced"] is True
    assert again["steps"] == doc["steps"]
    code, out, _ = run(capsys, "replay", doc["counterexample"], "--target", "reference", "--json")
    assert code == 0 and json.loads(out)["verdict"] == "conforms"


def test_no_minimise_keeps_hypothesis_shrunk_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # A mutant whose Hypothesis-shrunk run is longer than its minimised one (raft-vote-twice:
    # 37 steps shrunk, 3 minimised at seed 0; share-update-drops-state-epoch is now caught by a
    # 3-step run, which leaves nothing to minimise).
    argv = ("conform", "raft", "--target", "mutant:raft-vote-twice", "--json")
    code, out, _ = run(capsys, *argv, "--out", str(tmp_path / "a"))
    minimised = json.loads(out)
    code_b, out, _ = run(capsys, *argv, "--no-minimise", "--out", str(tmp_path / "b"))
    shrunk = json.loads(out)
    assert code == code_b == 1 and minimised["verdict"] == shrunk["verdict"] == "diverges"
    assert minimised["divergence"]["field"] == shrunk["divergence"]["field"]
    assert minimised["steps"] < shrunk["steps"]


def test_set_holds_the_identity_policy_to_the_default_contract(capsys: pytest.CaptureFixture[str],
                                                               tmp_path: Path) -> None:
    # spec/mm2.md §3 from the command line: Kafka's identity policy cannot meet every law.
    code, out, _ = run(capsys, "conform", "mm2", "--target", "reference", "--set", "contract=default",
                       "--json", "--out", str(tmp_path))
    doc = json.loads(out)
    assert code == 1 and doc["verdict"] == "diverges" and doc["settings"] == {"contract": "default"}
    assert doc["divergence"]["kind"] == "property" and doc["divergence"]["field"].startswith("MM2-LAW-")
    meta, _ = read_counterexample(Path(doc["counterexample"]))
    assert meta["config"]["contract"] == "default" and meta["config"]["policy"] == "identity"
    code, out, _ = run(capsys, "replay", doc["counterexample"], "--json")
    assert code == 1 and json.loads(out)["reproduced"] is True


def test_conform_reference_share_exit_zero(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "conform", "share", "--target", "reference", "--examples", "40",
                       "--out", str(tmp_path), "--json")
    assert code == 0 and json.loads(out)["counterexample"] is None


@pytest.mark.parametrize(("argv", "message"), [
    (["conform", "raft", "--target", "mutant:nope"], "unknown mutant 'nope'"),
    (["conform", "raft", "--target", "mutant:share-lower-count-wins"], "is a share target"),
    (["conform", "raft", "--target", "banana"], "unknown target 'banana'"),
    (["conform", "raft", "--target", "python:no_such_module_x:Cls"], "cannot import"),
    (["conform", "nope", "--target", "reference"], "unknown protocol"),
    (["conform", "mm2", "--target", "reference", "--set", "contract=bogus"], "contract takes default|identity"),
    (["conform", "raft", "--target", "reference", "--set", "foo=bar"], "the raft driver has no setting 'foo'"),
    (["conform", "mm2", "--target", "reference", "--set", "contract"], "is not KEY=VALUE"),
])
def test_input_errors_are_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_replay_of_a_bad_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, _, err = run(capsys, "replay", str(bad))
    assert code == 2 and "not JSON" in err and len(err.strip().splitlines()) == 1
    bad.write_text(json.dumps({"#meta": {}, "states": []}))
    code, _, err = run(capsys, "replay", str(bad))
    assert code == 2 and "not a kspec counterexample" in err
    # the other answers a step allows (RAFT-RULE-VOTE-REASKED) are checked like the model's own
    meta = {"kind": "kspec-counterexample", "protocol": "raft", "target": "reference", "config": {"voters": 3}}
    bad.write_text(json.dumps({"#meta": meta, "states": [{"step": 1, "action": "x", "model_alternatives": [5]}]}))
    code, _, err = run(capsys, "replay", str(bad))
    assert code == 2 and "states[0].model_alternatives is not a list of output lists" in err
    assert len(err.strip().splitlines()) == 1


def test_error_verdict_exit_two(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(TESTS))
    code, out, err = run(capsys, "conform", "raft", "--target", "python:conformance_faulty_targets:RaisingTarget",
                         "--out", str(tmp_path), "--json")
    assert code == 2 and json.loads(out)["verdict"] == "error"
    assert "failed at step" in err and "boom in the target" in err and "partial counterexample" in err


def test_itf_null_round_trip() -> None:
    value = {"a": None, "b": [1, None, {"c": None}], "d": "x"}
    assert itf_to_json(json_to_itf(value)) == value
    assert json_to_itf(None) == {"#tup": []}


def test_pytest_plugin(tmp_path: Path) -> None:
    (tmp_path / "test_user.py").write_text("def test_own():\n    assert True\n")
    env = {**os.environ, "PYTHONPATH": str(TESTS)}
    # the plugin is the "kspec" pytest11 entry point: no -p needed
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--kspec-target=mutant:raft-pre-vote-changes-state",
                           "--kspec-out", str(tmp_path / "cx"), "test_user.py"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "1 failed, 1 passed" in proc.stdout
    assert "kspec replay" in proc.stdout and list((tmp_path / "cx").iterdir())
