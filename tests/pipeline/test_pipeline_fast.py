"""The lean replay loop (``fast.judge_lines_fast``) against the reference replay
(``engine.judge_lines`` = ``judge_events`` on parsed records, the validator before the fast
loop): the same outcome for every trace (verdict, step, property, detail, quarantine rows,
coverage) on a corpus with planted violations and planted damage, and the fast loop really
judges the well-formed traces itself."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from pipeline_corpus import Corpus, build, corpus_groups

from kspec.conformance.pipeline import fast
from kspec.conformance.pipeline.engine import judge_lines


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return build(tmp_path_factory.mktemp("fast"))


def test_fast_loop_gives_the_reference_outcome_for_every_trace(corpus: Corpus) -> None:
    groups = corpus_groups(corpus.root)
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

    groups = corpus_groups(corpus.root)
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


HOSTILE = ([1], "7", 10**30, -1, 1e300, None, True, {}, "")


def _paths(value: object, prefix: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for k, v in enumerate(value):
            out += _paths(v, (*prefix, k))
    return out


def test_every_field_of_an_event_set_to_a_hostile_value_is_judged_the_same_and_never_crashes(
        tmp_path: Path) -> None:
    """Each field of the config event and of a later event, in turn, set to a list, a string, a
    huge or negative number, a float, null, a bool, an object, an empty string: the lean loop and
    the reference give the same outcome, and neither fails (no "validator failed" quarantine: that
    would be a kspec bug caught by the last-resort guard)."""
    import json

    from pipeline_corpus import simulate_into

    simulate_into(tmp_path, None, 41, 1, steps=30)
    lines = (tmp_path / "events.jsonl").read_bytes().splitlines()
    events = [json.loads(t) for t in lines]
    key = events[0]["trace"]
    cases = 0
    for pos in (0, len(events) // 2):
        for path in _paths(events[pos])[1:]:
            for hostile in HOSTILE:
                ev = json.loads(lines[pos])
                cur = ev
                for k in path[:-1]:
                    cur = cur[k]  # type: ignore[index]
                cur[path[-1]] = hostile  # type: ignore[index]
                items = [("f", (i + 1, json.dumps(ev).encode() if i == pos else t, None)) for i, t in enumerate(lines)]
                got, want = fast.judge_lines_fast("raft", key, items), judge_lines("raft", key, items)
                assert got == want, (pos, path, hostile)
                assert "validator failed" not in str(got.verdict["detail"]), (pos, path, hostile, got.verdict)
                cases += 1
    assert cases > 300
