"""The engine's bulk path over a clean split (``engine.index_split``'s ``_index_clean``, and
``judge_split`` reading the split's owned bytes at once and keying each line by its decoded
trace id) against the line-by-line reader and ``trace_key``: same line counts, trace ids, line
numbers and groups on clean and damaged files cut at many split sizes; a damaged split takes the
line-by-line path. The whole engine on a simulated corpus against the reference replay."""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from kspec.conformance.pipeline import engine, summary
from kspec.conformance.pipeline.reader import Limits, has_long_line, owned_bytes, plan_splits, read_split
from kspec.conformance.pipeline.records import is_orphan, trace_key

LINE = '{"trace": "%s", "step": %d, "node": 1, "action": "A", "input": {}, "outputs": []}'


def _lines(rng: random.Random, n: int) -> list[str]:
    out = []
    for i in range(n):
        out.append(LINE % (f"t{rng.randrange(5)}", i) + " " * rng.randrange(30))
        if rng.random() < 0.1:
            out.append(rng.choice(["", "   ", "\t"]))
    return out


DAMAGE = [
    lambda line: line + "\r",  # CRLF
    lambda line: line.replace('"step"', '"st\\u0065p"'),  # an escape
    lambda line: line.replace('"trace": ', '"trace":  '),  # an opening the writer does not write
    lambda line: " " + line,
    lambda line: line + ' "trace"',  # "trace" twice
    lambda line: line.rstrip()[:-1] + ', "trace": "other"}',  # a second trace key: JSON's last one wins
    lambda line: line.replace("A", "\u00e9"),  # non-ASCII
    lambda line: line[:20],  # truncated
    lambda line: line.replace('"t', '"t\\u0031', 1),  # an escaped id
    lambda line: line.replace('"step": ', '"step": "'),  # badly typed: keyed by trace_key's reading
    lambda line: "x" * 300,  # oversized at max_line_bytes=200
    lambda line: LINE % ("", 0),  # an empty id: an orphan
]


def _reference_keys(split: Any, limits: Limits, first_line: int) -> tuple[int, list[tuple[int, str]]]:
    lines = list(read_split(split, limits))
    keyed = [(n, trace_key(split.file, n, raw, dmg)) for n, (raw, dmg) in enumerate(lines, start=first_line)
             if dmg is not None or raw.strip()]
    return len(lines), keyed


@pytest.mark.parametrize("case", range(len(DAMAGE) + 2))
def test_bulk_split_reads_and_keys_as_the_line_reader(tmp_path: Path, case: int,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """One kind of damage planted per case; the last two cases are clean (with blank lines,
    which the bulk index leaves to the line reader, and without)."""
    rng = random.Random(case)
    limits = Limits(max_line_bytes=200)
    lines = _lines(rng, 60)
    if case < len(DAMAGE):
        at = rng.randrange(len(lines))
        lines[at] = DAMAGE[case](lines[at] or LINE % ("t9", 0))
    elif case == len(DAMAGE) + 1:
        lines = [line for line in lines if line.strip()]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + ("\n" if case % 3 else ""), encoding="utf-8")
    captured: list[tuple[str, list[Any]]] = []
    monkeypatch.setattr(engine, "judge_lines_fast",
                        lambda protocol, key, items, events=None: captured.append((key, list(items))))
    bulk_index = bulk_judge = 0
    for size in (7, 50, 97, 200, 1000, 1 << 20):
        splits = plan_splits([str(path)], size)
        first = 1
        for split in splits:
            n, keyed = _reference_keys(split, limits, first)
            index = engine.index_split(split, limits)
            assert index == engine._index_lines(split, limits), (size, split)
            assert index.lines == n
            assert index.traces == frozenset(k for _, k in keyed if not is_orphan(k))
            data = owned_bytes(split, limits)
            if data is not None:
                bulk_index += engine._index_clean(split.index, data, limits) is not None
                bulk_judge += data.isascii() and b"\r" not in data and not has_long_line(data, limits.max_line_bytes)
            # judge_split: every line under its trace_key, with its line number, in file order
            captured.clear()
            spanning = frozenset(k for _, k in keyed[::3])
            got: dict[str, list[int]] = defaultdict(list)
            for tag, item in engine.judge_split("raft", split, first, spanning, limits):
                if tag == 1:
                    got[item[0]].append(item[1][1][0])
            for key, items in captured:
                got[key] += [line[0] for _, line in items]
            want: dict[str, list[int]] = defaultdict(list)
            for line_no, key in keyed:
                want[key].append(line_no)
            assert {k: sorted(v) for k, v in got.items()} == dict(want), (size, split)
            first += n
    assert bulk_index > 0 and bulk_judge > 0


def test_has_long_line() -> None:
    rng = random.Random(1)
    for _ in range(300):
        data = b"\n".join(b"x" * rng.randrange(12) for _ in range(rng.randrange(6)))
        if rng.random() < 0.5:
            data += b"\n"
        for limit in range(1, 12):
            assert has_long_line(data, limit) == any(len(p) > limit for p in data.split(b"\n")), (data, limit)


def test_engine_on_a_corpus_cut_in_splits_gives_the_reference_outcomes(tmp_path: Path) -> None:
    from pipeline_corpus import damaged_mixed_corpus

    path = damaged_mixed_corpus(tmp_path)  # one damaged split
    want = summary.empty()
    for outcome in _reference_run(str(path)):
        summary.add(want, outcome)
    for size in (4096, 50_000, 1 << 24):
        got = summary.empty()
        for outcome in engine.run_plan_locally("raft", [str(path)], Limits(), size):
            summary.add(got, outcome)
        assert got == want, size
    assert want["traces"]["quarantined"] == 1 and want["traces"]["violating"] >= 1


def _reference_run(path: str) -> list[Any]:
    """Every trace of the file judged by the reference replay, grouped line by line."""
    groups: dict[str, list[Any]] = defaultdict(list)
    for split in plan_splits([path], 1 << 30):
        for n, (raw, damage) in enumerate(read_split(split, Limits()), start=1):
            if damage is None and not raw.strip():
                continue
            groups[trace_key(split.file, n, raw, damage)].append((split.file, (n, raw, damage)))
    return [engine.judge_lines("raft", key, lines) for key, lines in groups.items()]
