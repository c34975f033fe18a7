"""The lean replay loop (``fast.judge_lines_fast``) against the reference replay
(``engine.judge_lines`` = ``judge_events`` on parsed records, the validator before the fast
loop): the same outcome for every trace (verdict, step, property, detail, quarantine rows,
coverage) on a corpus with planted violations and planted damage, and the fast loop really
judges the well-formed traces itself."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from pipeline_corpus import Corpus, build

from kspec.conformance.pipeline import fast
from kspec.conformance.pipeline.engine import RawLine, judge_lines
from kspec.conformance.pipeline.inputs import expand_inputs
from kspec.conformance.pipeline.reader import Limits, plan_splits, read_split
from kspec.conformance.pipeline.records import trace_key


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return build(tmp_path_factory.mktemp("fast"))


def _groups(root: Path) -> dict[str, list[tuple[str, RawLine]]]:
    groups: dict[str, list[tuple[str, RawLine]]] = defaultdict(list)
    for split in plan_splits(expand_inputs([str(root)]).jsonl, 1 << 30):
        for n, (raw, damage) in enumerate(read_split(split, Limits()), start=1):
            if damage is None and not raw.strip():
                continue
            groups[trace_key(split.file, n, raw, damage)].append((split.file, (n, raw, damage)))
    return groups


def test_fast_loop_gives_the_reference_outcome_for_every_trace(corpus: Corpus) -> None:
    groups = _groups(corpus.root)
    statuses: dict[str, int] = defaultdict(int)
    fast_path = 0
    for key, lines in groups.items():
        want = judge_lines("raft", key, lines)
        got = fast.judge_lines_fast("raft", key, lines)
        assert got == want, key
        statuses[want.verdict["status"]] += 1
        if want.verdict["status"] != "quarantined":
            fast_path += fast._fast("raft", key, list(lines), fast._CACHES["raft"]) is not None
    assert statuses["violating"] == len(corpus.planted) and statuses["quarantined"] > 0 and statuses["valid"] > 0
    assert fast_path == statuses["valid"] + statuses["violating"]  # none of them fell back


def test_fast_loop_compares_outputs_as_multisets_and_reads_extra_keys_like_the_reference(corpus: Corpus) -> None:
    import json

    groups = _groups(corpus.root)
    clean = corpus.traces - set(corpus.planted) - corpus.quarantined_traces
    key = next(k for k in sorted(clean) if k in groups)
    lines = groups[key]
    edited = []
    for path, (n, raw, damage) in lines:
        ev = json.loads(raw)
        if len(ev["outputs"]) > 1:
            ev["outputs"] = ev["outputs"][::-1]  # order does not matter
        edited.append((path, (n, json.dumps(ev).encode(), damage)))
    assert fast.judge_lines_fast("raft", key, edited).verdict["status"] == "valid"
    for change in ({"extra": 1}, {"epoch": True}):  # an extra key, or a bool for an int, in one output
        edited2 = list(edited)
        for i, (path, (n, raw, damage)) in enumerate(edited):
            ev = json.loads(raw)
            if ev["outputs"] and "epoch" in ev["outputs"][0]:
                ev["outputs"][0] = {**ev["outputs"][0], **change}
                edited2[i] = (path, (n, json.dumps(ev).encode(), damage))
                break
        assert fast.judge_lines_fast("raft", key, edited2) == judge_lines("raft", key, edited2)
