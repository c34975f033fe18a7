"""The explain view (issue #24 item 3): a one-sentence headline in words, no debug text, "node N"
everywhere, "", null and missing shown apart, and a swim lane per node with its state changes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.explain.html import headline, render_html
from kspec.conformance.explain.load import load_trace
from kspec.conformance.explain.values import MISSING, Change, diff, short
from kspec.conformance.targets.mutants import CATALOGUE
from tests.cli_run import run_cli


@pytest.fixture(scope="module")
def counterexample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cx")
    result = run_conformance("raft", CATALOGUE["raft-silent-resign"].target(), seed_value=0, out_dir=out)
    assert result.counterexample is not None
    return Path(result.counterexample)


def test_counterexample_page_opens_with_a_sentence(counterexample: Path) -> None:
    trace = load_trace(counterexample)
    page = render_html(trace)
    sentence = re.search(r'<p class="headline" id="headline">(.*?)</p>', page)
    assert sentence is not None
    text = sentence.group(1)
    assert text.startswith(f"At step {trace.failed_step}, when node ") and "the model expected" in text
    assert "{" not in text  # words, not raw JSON
    assert page.index('id="headline"') < page.index('class="diagram"')
    assert "diagram rendered" not in page and "diagram not rendered" not in page


def test_swim_lanes_one_column_per_node(counterexample: Path) -> None:
    trace = load_trace(counterexample)
    page = render_html(trace)
    lanes = page[page.index('id="lanes"'):page.index("</table>", page.index('id="lanes"'))]
    heads = re.findall(r"<th>(.*?)</th>", lanes)
    assert heads == ["step", *[f"node {p}" for p in trace.participants], "other"]
    assert lanes.count("<tr") == len(trace.steps) + 1
    # Each node's state changes are in its own column, without repeating the node's name.
    assert re.search(r"<td class=actor><strong>[^<]+</strong><br><code>role", lanes) or "<code>role" in lanes


def test_state_traces_name_nodes_like_everywhere_else(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["simulate", "raft", "--steps", "12", "--seed", "3", "--out", str(tmp_path)], capsys)
    assert code in (0, 1)
    code, out, _ = run_cli(["explain", str(tmp_path / "trace-00000.itf.json"), "--json"], capsys)
    doc = json.loads(out)
    changes = [c for s in doc["timeline"] for c in s["changes"]]
    assert any(c.startswith("node ") for c in changes)
    assert not any(re.match(r"nodes\[\d+\]", c) for c in changes)


def test_empty_null_and_missing_read_differently() -> None:
    assert short("") == '""' and short(None) == "null" and short(MISSING) == "(missing)"
    assert short("null") == '"null"' and short("leader") == "leader"
    texts = {c.path: c.text() for c in diff({"a": "", "b": None, "c": 1}, {"a": None, "b": "", "d": ""})}
    assert texts["a"] == 'a: "" → null'
    assert texts["b"] == 'b: null → ""'
    assert texts["c"] == "c removed (was 1)"
    assert texts["d"] == 'd = "" (new)'
    assert Change("x", MISSING, None).text() == "x = null (new)"


def test_terminal_view_shows_the_empty_string(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = {"#meta": {"format": "ITF"}, "vars": ["x"], "states": [{"x": "a", "y": 1}, {"x": "", "y": 1},
                                                                  {"x": {"#tup": []}, "y": 1}]}
    path = tmp_path / "t.itf.json"
    path.write_text(json.dumps(doc))
    code, out, _ = run_cli(["explain", str(path)], capsys)
    assert code == 0 and 'x: a → ""' in out and 'x: "" → null' in out


def test_headline_of_a_trace_that_holds(tmp_path: Path) -> None:
    doc = {"#meta": {"format": "ITF"}, "vars": ["x"], "states": [{"x": 1}, {"x": 2}]}
    path = tmp_path / "t.itf.json"
    path.write_text(json.dumps(doc))
    assert headline(load_trace(path)).startswith("The trace holds: 1 steps")
