"""The lean loop's shortcuts against the paths they shortcut (session 8, issue #22 item 1): the
memoised node step (``fast._Template``) against the reference replay, cold, warm and with a memo
that is cleared all the time; the trace-id fast path of ``records.trace_key`` against the full
decoding on hostile lines; the reader's split of clean blocks against a line-by-line reading
of the whole file."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from pipeline_corpus import Corpus, build, corpus_groups, simulate_into

from kspec.conformance.pipeline import fast, reader, records
from kspec.conformance.pipeline.engine import RawLine, judge_lines
from kspec.conformance.pipeline.reader import KEEP, Limits, plan_splits, read_split
from kspec.conformance.pipeline.records import trace_key


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return build(tmp_path_factory.mktemp("lean"))


def _fresh_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fast, "_CACHES", {})


def _steps(template: fast._Template) -> int:
    """The steps a template's memo holds (a list of steps per node state)."""
    return sum(len(steps) for steps in template.memo.values())


def test_memoised_steps_give_the_reference_outcome_cold_warm_and_when_cleared(
        corpus: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    groups = corpus_groups(corpus.root)
    want = {key: judge_lines("raft", key, lines) for key, lines in groups.items()}
    _fresh_caches(monkeypatch)
    for _ in range(2):  # cold, then every step memoised
        for key, lines in groups.items():
            assert fast.judge_lines_fast("raft", key, lines) == want[key], key
    templates = list(fast._CACHES["raft"].templates.values())
    sizes = [_steps(t) for t in templates]
    assert sum(sizes) > 100
    for key, lines in groups.items():  # a third time: nothing new to remember
        fast.judge_lines_fast("raft", key, lines)
    assert [_steps(t) for t in templates] == sizes
    # The messages taken from the model's outputs as their written bytes (``_Caches.remember``)
    # are what decoding those bytes gives: the same object, the same class, exact and shaped.
    caches = fast._CACHES["raft"]
    remembered = [(raw, v) for raw, v in caches.values.items()]
    assert len(remembered) > 50
    decoder = fast._Caches("raft")
    for raw, v in remembered:
        again = decoder.value(raw)
        assert again == v and type(again.obj) is type(v.obj), raw
    _fresh_caches(monkeypatch)
    monkeypatch.setattr(fast, "MEMO", 3)  # cleared every few steps: entries vanish mid-trace
    for key, lines in groups.items():
        assert fast.judge_lines_fast("raft", key, lines) == want[key], key
    caches = fast._CACHES["raft"]  # one bound over the memos of every config
    assert sum(_steps(t) for t in caches.templates.values()) == caches.memoised <= 3


def test_a_memoised_step_does_not_vouch_for_different_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A trace judged once, then edited in one event at a time (its outputs reordered or
    changed, its observation changed, its action renamed, its node moved): the memo holds the
    unedited event's step, and the edited trace is still judged as the reference judges it."""
    simulate_into(tmp_path, None, 43, 1, steps=40)
    lines = (tmp_path / "events.jsonl").read_bytes().splitlines()
    key = json.loads(lines[0])["trace"]

    def items(edit_at: int, text: bytes) -> list[tuple[str, RawLine]]:
        return [("f", (i + 1, text if i == edit_at else t, None)) for i, t in enumerate(lines)]

    _fresh_caches(monkeypatch)
    assert fast.judge_lines_fast("raft", key, items(-1, b"")).verdict["status"] == "valid"
    edits = 0
    for pos in range(1, len(lines)):
        ev = json.loads(lines[pos])
        if ev["node"] is None:
            continue
        variants = [{**ev, "action": "ElectionTimeout" if ev["action"] != "ElectionTimeout" else "FetchTimeout"},
                    {**ev, "node": ev["node"] % 3 + 1}]
        if len(ev["outputs"]) > 1:
            variants.append({**ev, "outputs": ev["outputs"][::-1]})
        if ev["outputs"]:
            variants.append({**ev, "outputs": ev["outputs"][1:]})
        if ev.get("observation"):
            variants.append({**ev, "observation": {**ev["observation"], "epoch": ev["observation"]["epoch"] + 1}})
        for edited in variants:
            case = items(pos, json.dumps(edited).encode())
            assert fast.judge_lines_fast("raft", key, case) == judge_lines("raft", key, case), (pos, edited)
            edits += 1
    assert edits > 60


def _slow_key(monkeypatch: pytest.MonkeyPatch, file: str, n: int, raw: bytes, regex: bool = False) -> str:
    """trace_key without its prefix shortcut, and without the regex unless ``regex``."""
    with monkeypatch.context() as m:
        m.setattr(records, "_WRITTEN_PREFIX", b"\x00none")  # no line starts so
        if not regex:
            m.setattr(records, "_WRITTEN_TRACE_RE", re.compile(rb"(?!)"))  # never matches
        return trace_key(file, n, raw)


def test_trace_id_fast_path_agrees_with_decoding_on_hostile_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    good = b'{"trace": "t-1", "step": 0, "node": 1, "action": "Crash", "input": {"type": "Crash"}, "outputs": []}'
    lines = [
        good, good.replace(b'"trace": ', b'"trace":'), good + b" trailing", good[:40], good[:12], good[:11],
        good.replace(b'"step"', b'"trace"'),  # a second trace key (the last one wins in JSON)
        good.replace(b'"step"', b'"tr\\u0061ce"'),  # the same, spelt with an escape
        good.replace(b'"Crash"}', b'"trace"}'),  # "trace" as a value
        good.replace(b"t-1", b"t\\u002d1"), good.replace(b"t-1", b"t\\\"1"), good.replace(b"t-1", b"t\x011"),
        good.replace(b"t-1", b"t\t1"), good.replace(b"t-1", "t\u00e91".encode()), good.replace(b"t-1", b""),
        good.replace(b"t-1", b"t\xff1"), good.replace(b'"outputs": []', b'"outputs": [' * 2000),
        good.replace(b'"step": 0', b'"step": ' + b"9" * 5000), b" " + good, b'{"trace": 5}', b'{"trace": "x"',
        b'{"trace": "x"}}', b'{"trace": "x", "trace": "y"}', b'{"trace": "x"}\n', b"[1, 2]",
        good.replace(b"t-1", b"trace"), good.replace(b"t-1", b"t\x7f1"), good.replace(b"t-1", b"t 1"),
        b'{"trace": "', b'{"trace": "x', b'{"trace": ""}', good.replace(b'"t-1"', b'"t-1\\"'),
    ]
    rnd = random.Random(3)
    for _ in range(300):  # random byte damage to a good line
        b = bytearray(good)
        for _ in range(rnd.randint(1, 3)):
            b[rnd.randrange(len(b))] = rnd.choice(b'"\\{}:, x\x00\r\xc3')
        lines.append(bytes(b))
    fast_paths = prefixed = decoded = 0
    for n, raw in enumerate(lines, start=1):
        assert trace_key("f", n, raw) == _slow_key(monkeypatch, "f", n, raw) == \
            _slow_key(monkeypatch, "f", n, raw, regex=True), raw
        # engine.judge_split keys a line that decodes as an event by its decoded trace id
        ev = fast.decode_event(raw)
        if ev is not None and ev.trace:
            assert ev.trace == trace_key("f", n, raw), raw
            decoded += 1
        fast_paths += records._WRITTEN_TRACE_RE.match(raw) is not None
        prefixed += raw.startswith(records._WRITTEN_PREFIX)
    assert fast_paths > 100 and prefixed > 100 and decoded > 10


def _line_by_line(data: bytes, max_line: int) -> list[tuple[bytes, str | None]]:
    """What the reader must give for a whole file: each ``\\n``-terminated line (and the
    unterminated last one) as ``_checked`` judges it, oversized lines whole (the reader keeps
    their first bytes)."""
    parts = data.split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()
    out = []
    for p in parts:
        if len(p) > max_line:
            out.append((p, reader._oversized(len(p), max_line)))
        else:
            out.append(reader._checked(p))
    return out


def test_reader_gives_every_line_as_a_line_by_line_reading_would(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    rnd = random.Random(8)
    kinds = (b"x" * 5, b"y" * 40, "\u00e9t\u00e9".encode(), b"bad\xff", b"cr\r", b"a\rb", b"", b"z" * 300)
    for chunk in (7, 64, 1 << 20):
        monkeypatch.setattr(reader, "CHUNK", chunk)
        for _ in range(40):
            lines = [rnd.choice(kinds[:3]) if rnd.random() < 0.7 else rnd.choice(kinds)
                     for _ in range(rnd.randint(0, 60))]
            data = b"\n".join(lines) + (b"\n" if rnd.random() < 0.5 else b"")
            path = tmp_path / "f.jsonl"
            path.write_bytes(data)
            for max_line in (35, 1000):
                want = _line_by_line(data, max_line)
                for split_bytes in (3, 50, 1 << 20):
                    got = [line for s in plan_splits([str(path)], split_bytes)
                           for line in read_split(s, Limits(max_line_bytes=max_line))]
                    assert len(got) == len(want), (chunk, max_line, split_bytes, data)
                    for (raw, damage), (full, reason) in zip(got, want, strict=True):
                        assert damage == reason, (chunk, max_line, split_bytes, data)
                        # an oversized line keeps its first bytes: more than the limit, at most KEEP
                        assert raw == full if damage is None or not damage.startswith("line longer") else \
                            (full.startswith(raw) and max_line < len(raw) <= KEEP), (chunk, max_line, data)
