"""Files from elsewhere never run code (docs/threat-model.md, issue #25): crafted counterexamples
naming exec: and python: targets, paths in names, huge counts; each test checks that nothing ran,
nothing was written outside --out and memory stayed bounded."""

from __future__ import annotations

import copy
import json
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from kspec.conformance.counterexample import default_path, read_counterexample
from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets.mutants import CATALOGUE
from tests.cli_run import run_cli

MUTANT = "mutant:raft-pre-vote-changes-state"


@pytest.fixture(scope="module")
def counterexample(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real counterexample (raft, a mutant), as a JSON document to tamper with."""
    out = tmp_path_factory.mktemp("cx")
    target = CATALOGUE[MUTANT.split(":", 1)[1]].target()
    result = run_conformance("raft", target, examples=100, steps=30, seed_value=0, out_dir=out)
    assert result.verdict == "diverges" and result.counterexample
    doc: dict[str, Any] = json.loads(Path(result.counterexample).read_text())
    return doc


def crafted(tmp_path: Path, doc: dict[str, Any], **meta: Any) -> Path:
    doc = copy.deepcopy(doc)
    doc["#meta"].update(meta)
    path = tmp_path / "crafted.itf.json"
    path.write_text(json.dumps(doc))
    return path


def files_under(root: Path) -> set[Path]:
    return {p for p in root.rglob("*")}


@pytest.mark.parametrize("recorded", [
    "exec:sh -c 'touch {marker}'",
    "exec:touch {marker}",
    "python:kspec_hostile_marker:Target",
    "python:os:system",
    "something-else:{marker}",
    "kafka:9.9.9",
    "kafka:3.9.1; touch {marker}",
    "mutant:../../{marker}",
])
def test_replay_refuses_a_recorded_target_that_could_run_code(
        recorded: str, counterexample: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "ran"
    # A module that would leave the marker if anything imported it.
    (tmp_path / "kspec_hostile_marker.py").write_text(
        f"open({str(marker)!r}, 'w').close()\nclass Target:\n    protocol = 'raft'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("KSPEC_KAFKA_CACHE", str(tmp_path / "empty-cache"))
    name = recorded.format(marker=marker)
    path = crafted(tmp_path, counterexample, target=name)
    before = files_under(tmp_path)
    code, out, err = run_cli(["replay", str(path)], capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "pass --target" in err
    assert repr(name)[:60] in err or name[:60] in err  # the recorded value is shown
    assert not marker.exists() and "kspec_hostile_marker" not in sys.modules
    assert files_under(tmp_path) == before


def test_replay_uses_a_recorded_builtin_target(counterexample: dict[str, Any], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = crafted(tmp_path, counterexample)
    code, out, _ = run_cli(["replay", str(path), "--json"], capsys)
    assert code == 1 and json.loads(out)["target"] == MUTANT
    code, out, _ = run_cli(["replay", str(crafted(tmp_path, counterexample, target="reference")), "--json"], capsys)
    assert code == 0 and json.loads(out)["verdict"] == "conforms"


def test_recorded_kafka_release_needs_cached_jars(counterexample: dict[str, Any], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KSPEC_KAFKA_CACHE", str(tmp_path / "cache"))
    path = crafted(tmp_path, counterexample, target="kafka:3.9.1")
    code, _, err = run_cli(["replay", str(path)], capsys)
    assert code == 2 and "not cached" in err and "--target kafka:3.9.1" in err
    assert not (tmp_path / "cache").exists()  # nothing fetched


def test_explicit_target_overrides_the_recorded_one(counterexample: dict[str, Any], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "ran"
    path = crafted(tmp_path, counterexample, target=f"exec:touch {marker}")
    code, out, _ = run_cli(["replay", str(path), "--target", "reference", "--json"], capsys)
    assert code == 0 and json.loads(out)["target"] == "reference" and not marker.exists()


def test_huge_count_in_the_config_is_refused_before_allocating(counterexample: dict[str, Any], tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    config = {**counterexample["#meta"]["config"], "voters": 1_000_000_000}
    path = crafted(tmp_path, counterexample, config=config)
    tracemalloc.start()
    try:
        code, _, err = run_cli(["replay", str(path), "--target", "reference"], capsys)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert code == 2 and "#meta.config.voters: 1000000000 is out of range" in err
    assert peak < 50 * 1024 * 1024


@pytest.mark.parametrize("config, message", [
    ({"voters": {"#bigint": "9" * 5000}}, "#bigint"),
    ({"voters": [1] * 10}, "not a number, string or boolean"),
    ({"voters": "x" * 10_000}, "longer than"),
    ({f"k{i}": 1 for i in range(100)}, "keys, more than"),
    ({"voters": 0}, None),
])
def test_malformed_configs_are_input_errors(config: dict[str, Any], message: str | None,
                                            counterexample: dict[str, Any], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = crafted(tmp_path, counterexample, config=config)
    code, _, err = run_cli(["replay", str(path), "--target", "reference"], capsys)
    assert code in (1, 2) and "internal error" not in err and "Traceback" not in err
    if message is not None:
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_counterexample_with_no_steps_does_not_conform(counterexample: dict[str, Any], tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    doc = copy.deepcopy(counterexample)
    doc["states"] = []
    path = tmp_path / "empty.itf.json"
    path.write_text(json.dumps(doc))
    code, out, err = run_cli(["replay", str(path), "--target", "reference"], capsys)
    assert code == 2 and "conforms" not in out and "no steps" in err


@pytest.mark.parametrize("node", [99, -1, "0", None, {"#bigint": "123456789012345678901234567890"}])
def test_node_out_of_range(node: Any, counterexample: dict[str, Any], tmp_path: Path,
                           capsys: pytest.CaptureFixture[str]) -> None:
    doc = copy.deepcopy(counterexample)
    fed = next(i for i, s in enumerate(doc["states"]) if s["input"] != {"#tup": []})
    doc["states"][fed]["node"] = node if node is not None else {"#tup": []}
    path = tmp_path / "node.itf.json"
    path.write_text(json.dumps(doc))
    code, _, err = run_cli(["replay", str(path), "--target", "reference"], capsys)
    assert code == 2 and "is not in the configuration" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("target", ["../../escape", "a/b/c", "/etc/passwd", "with spaces and ..", "..", ".",
                                    "exec:./x --flag=../y", "x" * 500, "\\..\\win", "nul\x00byte", "é/ü"])
def test_counterexample_names_stay_inside_out(target: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    path = default_path(out, "raft/../..", target, 7)
    assert path.parent == out and ".." not in path.name and "/" not in path.name and "\\" not in path.name
    assert len(path.name) <= 120 and path.name.endswith(".itf.json")


def test_counterexamples_of_oddly_named_targets_land_inside_out(tmp_path: Path) -> None:
    """A real run per odd target name writes its counterexample inside --out, and two targets
    whose names sanitise alike do not overwrite each other."""
    out = tmp_path / "out"
    written = []
    for name in ("../../evil", "a/b c", "a_b c", "..", "a b/c"):
        target = CATALOGUE[MUTANT.split(":", 1)[1]].target()
        target.name = name
        result = run_conformance("raft", target, examples=100, steps=30, seed_value=0, out_dir=out, minimal=False)
        assert result.counterexample is not None
        written.append(Path(result.counterexample))
    assert all(p.parent == out and p.exists() for p in written)
    assert len(set(written)) == len(written)
    assert files_under(tmp_path) == {out, *written}
    for p in written:
        meta, steps = read_counterexample(p)
        assert meta["target"] in ("../../evil", "a/b c", "a_b c", "..", "a b/c") and steps
