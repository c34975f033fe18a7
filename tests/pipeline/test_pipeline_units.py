"""The pipeline's pieces without Spark: input errors, record parsing, the quarantine rules, the
fast encoder against ``codec.encode``, and the ITF replay's planted divergences."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pipeline_corpus import simulate_into

from kspec.conformance.clikit import InputError
from kspec.conformance.pipeline.classes import classes_of
from kspec.conformance.pipeline.inputs import expand_inputs
from kspec.conformance.pipeline.itf_replay import judge_itf
from kspec.conformance.pipeline.judge import judge_events
from kspec.conformance.pipeline.local import run_local
from kspec.conformance.pipeline.nodes import fast_encode
from kspec.conformance.pipeline.records import is_orphan, parse_line
from kspec.conformance.pipeline.spark import check_master
from kspec.model.core.codec import decode, encode


def kspec(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kspec.conformance.cli", *args], capture_output=True, text=True,
                          timeout=120)


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("units")
    simulate_into(root / "ref", None, 31, 3, steps=60)
    simulate_into(root / "bad", "quorum-state-lost", 32, 4, steps=60)
    return root / "ref", root / "bad"


def test_bad_inputs_are_one_line_exit_2(tmp_path: Path) -> None:
    assert "does not exist" in one_line_error(kspec("validate", str(tmp_path / "nope.jsonl"), "--protocol", "raft"))
    assert "matches no file" in one_line_error(kspec("validate", str(tmp_path / "*.jsonl"), "--protocol", "raft"))
    assert "no trace files" in one_line_error(kspec("validate", str(tmp_path), "--protocol", "raft"))
    (tmp_path / "a.jsonl").write_text("{}\n")
    assert "unknown protocol" in one_line_error(kspec("validate", str(tmp_path), "--protocol", "paxos"))
    assert "--master" in one_line_error(kspec("validate", str(tmp_path), "--protocol", "raft", "--master", "bogus"))
    assert "ITF" in one_line_error(kspec("validate", str(tmp_path), "--protocol", "share"))


def test_expand_inputs_sorts_formats(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.itf.json").write_text("{}")
    (tmp_path / "e.jsonl").write_text("\n")
    (tmp_path / "notes.txt").write_text("")
    found = expand_inputs([str(tmp_path), str(tmp_path / "e.jsonl")])
    assert [Path(p).name for p in found.jsonl] == ["e.jsonl"]
    assert [Path(p).name for p in found.itf] == ["x.itf.json"]
    with pytest.raises(InputError):
        check_master("local[two]")
    check_master("local[2]")
    check_master("spark://host:7077")


def test_parse_line_reasons() -> None:
    assert parse_line("f", 1, "   ") is None
    key, rec = parse_line("f", 2, '{"trace": "t1", "step": 3, "no')  # type: ignore[misc]
    assert key == "t1" and rec.damage and rec.damage.startswith("malformed JSON") and rec.line == 2
    key, rec = parse_line("f", 3, "42")  # type: ignore[misc]
    assert is_orphan(key) and rec.damage == "not a JSON object: int"
    key, rec = parse_line("f", 4, '{"trace": "t1", "step": 1, "node": 1, "action": "Crash", "input": {}}')  # type: ignore[misc]
    assert rec.damage == "missing field 'outputs'" and rec.step == 1
    key, rec = parse_line("f", 5, '{"trace": "t1", "step": -1, "node": 1, "action": "Crash", "input": {}, '  # type: ignore[misc]
                                  '"outputs": []}')
    assert rec.damage == "bad step -1"


def test_fast_encode_agrees_with_codec(runs: tuple[Path, Path]) -> None:
    checked = 0
    for line in (runs[0] / "events.jsonl").read_text().splitlines():
        ev = json.loads(line)
        if ev["node"] is None:
            continue
        value = decode(ev["input"], classes_of("raft"))
        assert fast_encode(value) == encode(value) == ev["input"]
        for out in ev["outputs"]:
            decoded = decode(out, classes_of("raft"))
            assert fast_encode(decoded) == encode(decoded)
            checked += 1
    assert checked > 50


def test_reference_traces_replay_valid_and_variant_at_planted_step(runs: tuple[Path, Path]) -> None:
    ref, bad = runs
    for directory in (ref, bad):
        planted = {}
        for path in sorted(directory.glob("*.itf.json")):
            meta = json.loads(path.read_text())["#meta"]
            planted[meta["trace_id"]] = meta["diverges_at"]
        outcomes = run_local("raft", [str(directory / "events.jsonl")], [])
        got = {o.verdict["trace"]: o.verdict["step"] if o.verdict["status"] == "violating" else None
               for o in outcomes}
        assert got == planted
        assert all(o.verdict["status"] != "quarantined" for o in outcomes)
    assert any(v is not None for v in got.values())
    # quorum-state-lost loses the epoch on restart: the model's own property names the failure.
    names = {o.verdict["property"] for o in run_local("raft", [str(bad / "events.jsonl")], [])} - {None}
    assert "EpochMonotonic" in names


def test_itf_replay_valid_and_divergent(runs: tuple[Path, Path]) -> None:
    ref, bad = runs
    for path in sorted(ref.glob("*.itf.json"))[:2]:
        assert judge_itf("raft", str(path), path.read_text()).verdict["status"] == "valid"
    statuses = {}
    for path in sorted(bad.glob("*.itf.json")):
        doc = json.loads(path.read_text())
        v = judge_itf("raft", str(path), path.read_text()).verdict
        statuses[doc["#meta"]["trace_id"]] = (v["status"], doc["#meta"]["diverges_at"] is not None)
    assert all((s == "violating") == planted for s, planted in statuses.values()), statuses
    broken = judge_itf("raft", "x.itf.json", '{"states": [')
    assert broken.verdict["status"] == "quarantined" and broken.quarantine[0]["reason"].startswith("malformed")


def test_quarantine_keeps_every_record_of_a_damaged_trace(runs: tuple[Path, Path]) -> None:
    lines = [json.loads(t) for t in (runs[0] / "events.jsonl").read_text().splitlines()]
    trace = lines[0]["trace"]
    recs = [parse_line("f", i + 1, json.dumps(ev))[1] for i, ev in enumerate(lines) if ev["trace"] == trace]  # type: ignore[index]
    recs.append(parse_line("f", 9999, json.dumps(lines[2]))[1])  # type: ignore[index]
    outcome = judge_events("raft", trace, recs)
    assert outcome.verdict["status"] == "quarantined" and outcome.verdict["events"] == len(recs)
    assert len(outcome.quarantine) == len(recs)
    primary = [q for q in outcome.quarantine if q["primary"]]
    assert [(q["line"], q["reason"].split(" (")[0]) for q in primary] == [(9999, "duplicate step 2")]


def test_voters_event_traces_replay_to_the_planted_divergence(tmp_path: Path) -> None:
    from kspec.conformance.clikit import build_model, protocol_info
    from kspec.conformance.traces.writer import write_traces
    from kspec.model.core.explorer import simulate

    for variant, seed in ((None, 3), ("effect-on-commit", 4)):
        model, _ = build_model(protocol_info("voters"), (), variant, simulation=True)
        out = tmp_path / str(variant)
        write_traces(out, model, simulate(model, seed=seed, steps=80, traces=10, stop_on_violation=False), variant)
        planted = {}
        for path in out.glob("*.itf.json"):
            meta = json.loads(path.read_text())["#meta"]
            planted[meta["trace_id"]] = meta["diverges_at"]
        got = {o.verdict["trace"]: o.verdict["step"] if o.verdict["status"] == "violating" else None
               for o in run_local("voters", [str(out / "events.jsonl")], [])}
        assert got == planted
    assert any(v is not None for v in planted.values())
