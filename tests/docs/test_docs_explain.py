"""kspec explain on every input format: the failing step, the arrows, the state diffs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kspec.conformance.cli import _load_commands, cli
from kspec.conformance.explain.values import diff, plain

_load_commands()


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def explored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    code, out = run("explore", "raft", "--variant", "quorum-state-lost", "--json")
    assert code == 1
    path = tmp_path_factory.mktemp("explore") / "v.json"
    path.write_text(out)
    return path


@pytest.fixture(scope="module")
def counterexample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("conform")
    proc = subprocess.run([sys.executable, "-m", "kspec.conformance.cli", "conform", "raft", "--target",
                           "mutant:raft-silent-resign", "--seed", "0", "--json"], cwd=out, capture_output=True,
                          text=True, timeout=120)
    doc = json.loads(proc.stdout)
    assert doc["verdict"] == "diverges", proc.stderr
    return out / doc["counterexample"]


def test_explore_violation_terminal(explored: Path) -> None:
    code, out = run("explain", str(explored))
    assert code == 0
    assert "RAFT-STEP-EPOCH-MONOTONIC" in out
    lines = out.splitlines()
    failed = [ln for ln in lines if "FAILED HERE" in ln]
    assert len(failed) == 1 and failed[0].startswith("step 2")
    # The reboot's state diff shows the epoch going back, which is the bug the variant plants.
    assert any("Candidate(epoch=1" in ln and "Unattached(epoch=0" in ln for ln in lines)


def test_explore_violation_json(explored: Path) -> None:
    code, out = run("explain", str(explored), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["steps"] == 2 and doc["failed_step"] == 2 and doc["format"] == "explore-json"
    assert doc["participants"] == ["1", "2", "3"]
    assert [s["failed"] for s in doc["timeline"]] == [False, True]


def test_counterexample_terminal_and_json(counterexample: Path, tmp_path: Path) -> None:
    code, out = run("explain", str(counterexample))
    assert code == 0
    assert "lockstep outputs divergence" in out and "MODEL ONLY" in out
    code, out = run("explain", str(counterexample), "--json", "--html", str(tmp_path / "cx.html"))
    doc = json.loads(out)
    meta = json.loads(counterexample.read_text())["#meta"]
    assert doc["failed_step"] == meta["divergence"]["step"]
    failing = [s for s in doc["timeline"] if s["failed"]]
    assert len(failing) == 1 and failing[0]["step"] == doc["failed_step"]
    # The silent-resign mutant does not send EndQuorumEpoch: the arrows only the model drew.
    missing = [a for a in failing[0]["arrows"] if a["style"] == "missing"]
    assert missing and all(a["label"].startswith("EndQuorumEpochRequest") for a in missing)
    assert doc["files"] == [str(tmp_path / "cx.html")]
    html = (tmp_path / "cx.html").read_text()
    assert html.count('class="seq-arrow seq-missing"') == len(missing)
    # Self-contained: nothing is fetched from anywhere.
    assert 'src="http' not in html and "<link" not in html and "@import" not in html


def test_simulated_itf_and_events(tmp_path: Path) -> None:
    code, _ = run("simulate", "raft", "--seed", "1", "--steps", "40", "--out", str(tmp_path))
    assert code == 0
    code, out = run("explain", str(tmp_path / "trace-00000.itf.json"), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["steps"] == 40 and doc["failure"] is None
    assert any(a["style"] == "deliver" for s in doc["timeline"] for a in s["arrows"])
    assert all(s["changes"] for s in doc["timeline"] if s["action"].startswith("deliver"))
    code, out = run("explain", str(tmp_path / "events.jsonl"), "--json")
    ev = json.loads(out)
    assert code == 0 and ev["format"] == "events" and ev["steps"] > 0


@pytest.mark.parametrize("protocol", ["share", "mm2", "streams", "voters"])
def test_other_protocols_explain(protocol: str, tmp_path: Path) -> None:
    code, _ = run("simulate", protocol, "--seed", "2", "--steps", "12", "--out", str(tmp_path))
    assert code == 0
    code, out = run("explain", str(tmp_path / "trace-00000.itf.json"), "--json", "--html", str(tmp_path / "p.html"))
    doc = json.loads(out)
    states = json.loads((tmp_path / "trace-00000.itf.json").read_text())["states"]
    assert code == 0 and doc["protocol"] == protocol and doc["steps"] == len(states) - 1 >= 1
    assert "<svg" in (tmp_path / "p.html").read_text()


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    for path in (bad, tmp_path / "missing.json"):
        proc = subprocess.run([sys.executable, "-m", "kspec.conformance.cli", "explain", str(path)],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2
        assert proc.stderr.count("\n") == 1 and str(path) in proc.stderr and "Traceback" not in proc.stderr
    none = tmp_path / "ok.json"
    none.write_text(json.dumps({"protocol": "raft", "violations": []}))
    proc = subprocess.run([sys.executable, "-m", "kspec.conformance.cli", "explain", str(none)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "no violation" in proc.stderr


def test_diff_sets_bags_and_records() -> None:
    before = plain({"nodes": [{"id": 1, "role": {"type": "Follower", "epoch": 1}}], "net": {"#map": []},
                    "votes": {"#set": [[1, 1, 1]]}})
    after = plain({"nodes": [{"id": 1, "role": {"type": "Leader", "epoch": 2}}],
                   "net": {"#map": [[{"type": "M", "src": 1, "dst": 2}, 1]]},
                   "votes": {"#set": [[1, 1, 1], [2, 2, 1]]}})
    texts = [c.text() for c in diff(before, after)]
    assert texts == ["nodes[0].role: Follower(epoch=1) → Leader(epoch=2)", "net: +[M(src=1, dst=2), 1]",
                     "votes: +[2, 2, 1]"]
