"""bench/kafka_matrix.py renders what the runs say: catalogued divergences by name, anything else
flagged, and its exit status says whether every run is explained."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from kspec.conformance import protocols

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def matrix():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("kafka_matrix", ROOT / "bench" / "kafka_matrix.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _write(d: Path, name: str, run: dict[str, object]) -> None:
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_text(json.dumps(run), encoding="utf-8")


def test_every_protocol_has_releases(matrix) -> None:  # type: ignore[no-untyped-def]
    assert set(matrix.RELEASES) == {p.name for p in protocols.protocols() if p.kafka is not None}
    for versions in matrix.RELEASES.values():
        assert versions == sorted(versions, key=matrix._vkey)


def test_named_divergence_rendered_and_unnamed_flagged(matrix, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    name = next(iter(matrix.catalogue("share")))
    d = tmp_path / "runs"
    _write(d, "4.0.0-seed0.json", {"version": "4.0.0", "seed": 0, "verdict": "diverges", "deviation": name,
                                   "steps": 7, "examples": 12, "commit": "abc1234567",
                                   "divergence": {"step": 7, "kind": "output", "field": "errors",
                                                  "detail": "x|y"}})
    _write(d, "4.0.0-accept.json", {"version": "4.0.0", "seed": 0, "verdict": "conforms", "examples": 300,
                                    "accepted": [name], "accept_run": True})
    _write(d, "4.4.0-seed0.json", {"version": "4.4.0", "seed": 0, "verdict": "diverges", "deviation": None,
                                   "steps": 3, "divergence": {"step": 3, "kind": "output", "field": "f",
                                                              "detail": "d"}})
    text = matrix.render("share", matrix.load_runs(d))
    # the header says which code made the runs (a run kept from before commits were recorded says so)
    assert "--seeds 0`" in text and "kspec commit abc1234567, not recorded:" in text
    row_400 = next(ln for ln in text.splitlines() if ln.startswith("| 4.0.0 "))
    assert f"`{name}`" in row_400 and "conforms (300) with " + name in row_400
    assert "x\\|y" in row_400  # a pipe in a detail does not break the table
    row_440 = next(ln for ln in text.splitlines() if ln.startswith("| 4.4.0 "))
    assert "**not catalogued**" in row_440
    assert ("not a clean verdict (error, timeout or a divergence not catalogued): 1. "
            "Accept runs: 1; not conforming: 0.") in text
    doc = tmp_path / "matrix.md"
    doc.write_text("# m\n", encoding="utf-8")
    matrix.write_section("share", text, doc)
    matrix.write_section("share", text, doc)  # idempotent: the block is replaced, not appended
    assert doc.read_text(encoding="utf-8").count("<!-- BEGIN GENERATED share -->") == 1
    assert matrix.unexplained({"verdict": "error"}, {}) and not matrix.unexplained({"verdict": "conforms"}, {})
    # an accept run has every catalogued deviation of its release accepted: any divergence is unexplained
    # (the session-25 voters 4.1.2 accept run diverged and the summary counted nothing)
    known = {"k": {"spec_id": "X"}}
    assert matrix.unexplained({"verdict": "diverges", "deviation": None, "accept_run": True}, known)
    assert not matrix.unexplained({"verdict": "conforms", "accept_run": True}, known)


def test_accept_run_takes_the_deviations_of_the_same_code(matrix) -> None:  # type: ignore[no-untyped-def]
    # K1 was seen on 3.8.1 and 3.9.1 and is not fixed: 3.9.0 (between them) ships it too;
    # K5 is fixed in 3.9.1, so 3.9.1 and later do not; K6 first seen on 4.1.0 is not 3.9's.
    on_390 = matrix.observed_on("voters", "3.9.0")
    assert "voters-trim-at-snapshot-end" in on_390 and "voters-history-refuses-disjoint-sets" in on_390
    on_391 = matrix.observed_on("voters", "3.9.1")
    assert "voters-history-refuses-disjoint-sets" not in on_391
    assert "voters-update-self-crashes-leader" not in on_391
    assert "voters-update-self-crashes-leader" in matrix.observed_on("voters", "4.1.2")


def test_held_heartbeat_listed_for_the_releases_that_hold_it(matrix, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # the 3.9+ adapter holds KAFKA-16536's heartbeat copies unjudged: the matrix must say so,
    # for exactly the releases that ran, never for 3.8 (no heartbeat) or a refused one
    d = tmp_path / "runs"
    for version, verdict in (("3.8.1", "conforms"), ("4.4.0", "conforms"), ("4.3.1", "refused")):
        _write(d, f"{version}-seed0.json", {"version": version, "seed": 0, "verdict": verdict, "examples": 5})
    text = matrix.render("raft", matrix.load_runs(d))
    held = [ln for ln in text.splitlines() if ln.startswith("Held unjudged by the adapter")]
    assert len(held) == 1 and "on 4.4.0 (" in held[0] and "`raft-begin-epoch-heartbeat`" in held[0]
    assert "KAFKA-16536" in held[0]
    assert not any("Held unjudged" in ln for ln in matrix.render("share", matrix.load_runs(d)).splitlines())
