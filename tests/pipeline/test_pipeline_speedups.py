"""The lean loop's session-9 speedups (issue #22 item 1) against the paths they replace:
``nodes.json_text`` (the trace writer's text of a model value, written without the dicts)
against ``json.dumps(fast_encode(value))`` on every output and input of a simulated corpus
and on hostile values (escapes, non-ASCII, floats, sets, bags, maps, a field named ``type``);
``fast.collector_paused`` (a judged trace's survivors frozen out of the collector's passes)
still lets the collector find every cycle, after at most ``FROZEN_TRACES`` traces."""

from __future__ import annotations

import enum
import gc
import json
import math
from dataclasses import dataclass
from pathlib import Path

import pytest
from pipeline_corpus import simulate_into

from kspec.conformance.pipeline import fast
from kspec.conformance.pipeline.classes import classes_of
from kspec.conformance.pipeline.nodes import fast_encode, json_text
from kspec.model.core.bag import Bag
from kspec.model.core.codec import decode


class Colour(enum.IntEnum):
    RED = 1


@dataclass(frozen=True, slots=True)
class Inner:
    name: str
    value: float | None = None


@dataclass(frozen=True, slots=True)
class Outer:
    a: int
    b: tuple[Inner, ...]
    c: frozenset[int]
    d: object = None


@dataclass(frozen=True, slots=True)
class Typed:
    type: str
    n: int


@dataclass(frozen=True, slots=True)
class Empty:
    pass


HOSTILE = [
    0, -1, 2**70, True, False, None, "", "plain", 'quo"te', "back\\slash", "\u00e9t\u00e9 \u2603 \U0001f600",
    "ctl\x00\x1f\x7f\n\r\t", 1.5, -0.0, math.inf, -math.inf, math.nan, 1e300, Colour.RED, (), [], (1, "x", None),
    [[1, [2, [3]]]], frozenset(), frozenset({3, 1, 2}), {"k": 1, "a": (2,)}, {2: "x"}, Bag.of(1, 1, 2),
    Inner("n\u00fc\"l"), Inner("x", 0.1), Outer(1, (Inner("a"), Inner("b", -2.5)), frozenset({5, 4})),
    Outer(-3, (), frozenset(), d=Outer(0, (Inner("z"),), frozenset({1}), d=(True, None))), Typed("t", 1), Empty(),
    (Empty(), Inner("i"), [Typed("u", 2)]), Outer(True, (), frozenset(), d=Colour.RED),  # a bool where an int is typed
]


def test_json_text_is_the_writers_text_of_hostile_values() -> None:
    for value in HOSTILE:
        assert json_text(value) == json.dumps(fast_encode(value)), value
        assert json_text(value) == json.dumps(fast_encode(value)), value  # again, with the writer compiled


def test_json_text_is_the_writers_text_of_every_message_of_a_corpus(tmp_path: Path) -> None:
    simulate_into(tmp_path, None, 21, 6, steps=120)
    classes = classes_of("raft")
    checked = 0
    for text in (tmp_path / "events.jsonl").read_text().splitlines():
        event = json.loads(text)
        for data in [*event["outputs"], event["input"]]:
            value = decode(data, classes)
            assert json_text(value) == json.dumps(fast_encode(value)) == json.dumps(data), data
            checked += 1
    assert checked > 500


class _Cycle:
    collected: list[str] = []

    def __init__(self, name: str) -> None:
        self.name = name
        self.me = self  # a cycle: only the collector frees it

    def __del__(self) -> None:
        _Cycle.collected.append(self.name)


def test_the_collector_still_finds_cycles_after_frozen_traces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    simulate_into(tmp_path, None, 22, 1, steps=20)
    lines = [(str(tmp_path), (n, text.encode(), None))
             for n, text in enumerate((tmp_path / "events.jsonl").read_text().splitlines(), start=1)]
    key = json.loads(lines[0][1][1])["trace"]
    monkeypatch.setattr(fast, "FROZEN_TRACES", 3)
    monkeypatch.setattr(fast, "_frozen", 0)
    monkeypatch.setattr(fast, "_CACHES", {})
    assert gc.isenabled()
    gc.collect()
    _Cycle.collected.clear()
    try:
        _Cycle("before")  # garbage, not yet collected, when the first trace's survivors are frozen
        want = fast.judge_lines_fast("raft", key, lines)
        assert want.verdict["status"] == "valid" and gc.isenabled() and gc.get_freeze_count() > 0
        gc.collect()
        assert _Cycle.collected == []  # frozen with the trace's survivors: not seen yet
        for _ in range(2):
            assert fast.judge_lines_fast("raft", key, lines) == want
        assert gc.isenabled() and gc.get_freeze_count() == 0  # the third trace gave everything back
        gc.collect()
        assert _Cycle.collected == ["before"]
        gc.disable()  # a caller that paused the collector itself: nothing is frozen, it stays paused
        try:
            assert fast.judge_lines_fast("raft", key, lines) == want
            assert not gc.isenabled() and gc.get_freeze_count() == 0
        finally:
            gc.enable()
    finally:
        gc.unfreeze()
