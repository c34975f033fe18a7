"""A corpus planted with every kind of damage the pipeline's readers must survive (badly typed
records, a missing field, numbers past any integer type, a config asking for a hundred million
nodes, JSON nested past the recursion limit, invalid UTF-8, CR and CRLF line ends, an oversized
line, a truncated and a corrupt gzip member, a gzip bomb, empty files, a FIFO and a dangling
link where files were expected) validates to the end, locally and on Spark (``local[*]``, the
default), with each damaged record quarantined with its file, line and reason, and input =
valid + violating + quarantined exactly. The splits are small so that traces span splits (and
one trace spans files)."""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pipeline_corpus import simulate_into

from kspec.conformance.pipeline import summary
from kspec.conformance.pipeline.inputs import expand_inputs
from kspec.conformance.pipeline.local import iter_local
from kspec.conformance.pipeline.reader import Limits, plan_splits, read_split

MAX_LINE = 8192
MAX_EXPANDED = 8 << 20
SPLIT = 20_000
LIMITS = Limits(max_line_bytes=MAX_LINE, min_expanded_bytes=MAX_EXPANDED)


@dataclass
class Damaged:
    root: Path
    damaged: dict[tuple[str, int], str] = field(default_factory=dict)  # (file, line) -> reason prefix
    records: int = 0  # every record the validator must account for
    spanning_trace: str = ""
    violating_trace: str = ""


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Damaged:
    base = tmp_path_factory.mktemp("damage")
    simulate_into(base / "a", None, 41, 14, steps=40)
    simulate_into(base / "b", None, 42, 4, steps=40)
    simulate_into(base / "c", None, 44, 4, steps=40)
    root = base / "corpus"
    root.mkdir()
    c = Damaged(root)
    lines = _lines(base / "a" / "events.jsonl")
    events = [json.loads(t) for t in lines]
    by_trace: dict[str, list[int]] = {}
    for i, ev in enumerate(events):
        by_trace.setdefault(ev["trace"], []).append(i)
    traces = list(by_trace)
    out: list[bytes] = [t.encode() for t in lines]

    def event_with(pred: Any, trace: str) -> int:
        return next(i for i in by_trace[trace][2:] if pred(events[i]))

    # Badly typed: a node id that is a list, an input epoch and an observation epoch as strings.
    i = event_with(lambda e: e["node"] is not None, traces[0])
    out[i] = json.dumps({**events[i], "node": [events[i]["node"]]}).encode()
    c.damaged[("typed", i + 1)] = "field 'node' is not a node id"
    i = event_with(lambda e: "epoch" in e["input"], traces[1])
    bad_input = {**events[i]["input"], "epoch": str(events[i]["input"]["epoch"])}
    out[i] = json.dumps({**events[i], "input": bad_input}).encode()
    c.damaged[("typed", i + 1)] = "badly typed input"
    i = event_with(lambda e: e.get("observation"), traces[2])
    out[i] = json.dumps({**events[i], "observation": {**events[i]["observation"], "epoch": "7"}}).encode()
    c.damaged[("typed", i + 1)] = "field 'observation.epoch'"
    # Line ends: CRLF, a bare CR inside a line; and a line past --max-line-bytes.
    i = by_trace[traces[3]][3]
    out[i] += b"\r"
    c.damaged[("typed", i + 1)] = "CRLF line end"
    i = by_trace[traces[4]][3]
    out[i] = out[i].replace(b", ", b",\r ", 1)
    c.damaged[("typed", i + 1)] = "bare CR in line"
    i = by_trace[traces[5]][3]
    out[i] = json.dumps({**events[i], "padding": "x" * (2 * MAX_LINE)}).encode()
    c.damaged[("typed", i + 1)] = f"line longer than {MAX_LINE} bytes"
    # A missing field; numbers no integer or float type holds; a config that would build a
    # hundred million nodes; nesting past the decoder's recursion limit; invalid UTF-8.
    i = by_trace[traces[7]][4]
    out[i] = json.dumps({k: v for k, v in events[i].items() if k != "outputs"}).encode()
    c.damaged[("typed", i + 1)] = "missing field 'outputs'"
    i = event_with(lambda e: "epoch" in e["input"], traces[8])
    out[i] = json.dumps(events[i]).encode().replace(b'"epoch": ', b'"epoch": ' + b"9" * 5000, 1)
    c.damaged[("typed", i + 1)] = "malformed JSON: Integer value out of range"
    # A big integer that is still a number is judged, not quarantined: here it makes the trace
    # violate (the recorded outputs answer another epoch).
    c.violating_trace = traces[13]
    i = event_with(lambda e: "epoch" in e["input"], traces[13])
    out[i] = json.dumps(events[i]).encode().replace(b'"epoch": ', b'"epoch": ' + b"9" * 30, 1)
    i = event_with(lambda e: e.get("observation"), traces[9])
    out[i] = json.dumps({**events[i], "observation": {**events[i]["observation"], "high_watermark": 1e308}})\
        .encode().replace(b"1e+308", b"1e400")
    c.damaged[("typed", i + 1)] = "malformed JSON: Number out of range"
    i = by_trace[traces[10]][0]
    assert "config" in events[i]
    out[i] = json.dumps({**events[i], "config": {**events[i]["config"], "voters": 100_000_000}}).encode()
    c.damaged[("typed", i + 1)] = "bad config: voters=100000000"
    i = by_trace[traces[11]][3]
    out[i] = json.dumps(events[i]).encode()[:-1] + b', "extra": ' + b"[" * 1100 + b"]" * 1100 + b"}"
    c.damaged[("typed", i + 1)] = "malformed JSON: nested too deeply"
    i = by_trace[traces[12]][3]
    out[i] = json.dumps(events[i]).encode()[:-1] + b', "extra": "caf\xc3\x28"}'
    c.damaged[("typed", i + 1)] = "invalid UTF-8 at byte"
    # One undamaged trace spans two files: its second half moves to another file.
    c.spanning_trace = traces[6]
    moved = by_trace[traces[6]][len(by_trace[traces[6]]) // 2:]
    (root / "span.jsonl").write_bytes(b"".join(out[i] + b"\n" for i in moved))
    kept = [t for i, t in enumerate(out) if i not in set(moved)]
    renumber = {i + 1: n + 1 for n, i in enumerate(j for j in range(len(out)) if j not in set(moved))}
    typed = root / "typed.jsonl"
    typed.write_bytes(b"\n".join(kept) + b"\n")
    c.damaged = {(str(typed), renumber[n]): r for (_, n), r in c.damaged.items()}
    c.records += len(out)

    # A gzip file cut in the middle of a member: what inflates is read, the cut line quarantined.
    blines = _lines(base / "b" / "events.jsonl")
    data = ("\n".join(blines) + "\n").encode()
    z = gzip.compress(data)
    cut = z[: len(z) * 2 // 3]
    (root / "truncated.jsonl.gz").write_bytes(cut)
    inflated = zlib.decompressobj(wbits=31).decompress(cut)
    whole = inflated.count(b"\n")
    c.damaged[(str(root / "truncated.jsonl.gz"), whole + 1)] = "truncated gzip member"
    c.records += whole + 1
    # Two members, the second corrupt: the first is read, the rest is one quarantined record.
    clines = _lines(base / "c" / "events.jsonl")
    half = len(clines) // 2
    first = gzip.compress(("\n".join(clines[:half]) + "\n").encode())
    second = bytearray(gzip.compress(("\n".join(clines[half:]) + "\n").encode()))
    for k in range(20, 40):
        second[k] ^= 0x55
    for name in ("corrupt.jsonl.gz",):
        (root / name).write_bytes(first + bytes(second))
    c.damaged[(str(root / "corrupt.jsonl.gz"), half + 1)] = "corrupt gzip member"
    c.records += half + 1
    # A gzip bomb: 64 MiB of zeros in about 64 KiB, one line with no end.
    (root / "bomb.jsonl.gz").write_bytes(gzip.compress(b"\0" * (64 << 20), 9))
    c.damaged[(str(root / "bomb.jsonl.gz"), 1)] = "gzip expands past"
    c.records += 1
    # Empty files hold no record; a FIFO (opening it would block) and a dangling link where
    # files were expected are one quarantined record each.
    (root / "empty.jsonl").write_bytes(b"")
    (root / "empty.jsonl.gz").write_bytes(b"")
    (root / "empty-member.jsonl.gz").write_bytes(gzip.compress(b""))
    os.mkfifo(root / "fifo.jsonl")
    c.damaged[(str(root / "fifo.jsonl"), 1)] = "not a regular file (a FIFO)"
    (root / "gone.jsonl").symlink_to(base / "nowhere.jsonl")
    c.damaged[(str(base / "nowhere.jsonl"), 1)] = "unreadable file: No such file"  # (inputs are resolved)
    (root / "gone.itf.json").symlink_to(base / "nowhere.itf.json")
    c.damaged[(str(base / "nowhere.itf.json"), 0)] = "unreadable file: No such file"
    c.records += 3
    return c


def test_reader_splits_read_every_line_once(tmp_path: Path) -> None:
    rnd = random.Random(5)
    for _ in range(60):
        lines = [b"x" * rnd.choice((0, 3, 30)) + (b"\r" if rnd.random() < 0.1 else b"")
                 for _ in range(rnd.randint(0, 25))]
        data = b"\n".join(lines) + (b"\n" if rnd.random() < 0.5 else b"")
        path = tmp_path / "f.jsonl"
        path.write_bytes(data)
        expected = data.split(b"\n")[:-1] if data.endswith(b"\n") else data.split(b"\n")
        expected = [] if data == b"" else expected
        for split_bytes in (1, 4, 17, 1000):
            splits = plan_splits([str(path)], split_bytes)
            got = [line for s in splits for line in read_split(s, Limits(max_line_bytes=20))]
            assert len(got) == len(expected)
            for (raw, damage), want in zip(got, expected, strict=True):
                if len(want) > 20:
                    assert damage is not None and damage.startswith("line longer") and raw == want
                elif b"\r" in want:
                    assert damage is not None and "CR" in damage
                else:
                    assert (raw, damage) == (want, None)


def _local(corpus: Damaged) -> tuple[dict[str, Any], list[Any]]:
    files = expand_inputs([str(corpus.root)])
    acc = summary.empty()
    outcomes = []
    for outcome in iter_local("raft", files.jsonl, files.itf, LIMITS, SPLIT):
        summary.add(acc, outcome)
        outcomes.append(outcome)
    return summary.finish(acc, protocol="raft", seconds=1.0), outcomes


def test_every_damaged_record_is_quarantined_with_its_place_and_reason(corpus: Damaged) -> None:
    doc, outcomes = _local(corpus)
    primary = {(q["file"], q["line"]): q["reason"] for o in outcomes for q in o.quarantine if q["primary"]}
    assert set(primary) == set(corpus.damaged), (sorted(primary), sorted(corpus.damaged))
    for pos, reason in primary.items():
        assert reason.startswith(corpus.damaged[pos]), (pos, reason)
    # input = valid + violating + quarantined, exactly; every quarantined record has a row.
    assert doc["events"] == sum(doc["events_by_status"].values()) == corpus.records
    assert doc["quarantined_records"] == doc["events_by_status"]["quarantined"]
    assert doc["traces"] == doc["valid"] + doc["violating"] + doc["quarantined"]
    assert doc["valid"] > 0 and doc["violating"] == 1
    assert [o.verdict["trace"] for o in outcomes if o.verdict["status"] == "violating"] == [corpus.violating_trace]
    spanning = [o.verdict for o in outcomes if o.verdict["trace"] == corpus.spanning_trace]
    assert len(spanning) == 1 and spanning[0]["status"] == "valid"


def test_spark_gives_the_same_summary_and_quarantine(corpus: Damaged, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from kspec.conformance.cli import _load_commands, cli
    from kspec.conformance.pipeline.spark import spark_session

    _load_commands()
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["validate", str(corpus.root), "--protocol", "raft", "--out", str(out),
                                      "--max-line-bytes", str(MAX_LINE), "--max-expanded-bytes", str(MAX_EXPANDED),
                                      "--split-bytes", str(SPLIT), "--json"])
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    assert doc["master"] == "local[*]"
    local, _ = _local(corpus)
    doc["coverage"].pop("actions_not_covered")  # the CLI knows every action; the local summary here does not
    local["coverage"].pop("actions_not_covered")
    ignore = ("seconds", "events_per_second", "master", "inputs", "out")
    assert {k: v for k, v in doc.items() if k not in ignore} == {k: v for k, v in local.items() if k not in ignore}
    # The quarantine output Spark wrote: every damaged record with its file, line and reason.
    with spark_session("local[1]") as spark:
        rows = [r.asDict() for r in spark.read.parquet(str(out / "quarantine.parquet")).collect()]
    primary = {(q["file"], q["line"]): q["reason"] for q in rows if q["primary"]}
    assert set(primary) == set(corpus.damaged), (sorted(primary), sorted(corpus.damaged))
    for pos, reason in primary.items():
        assert reason.startswith(corpus.damaged[pos]), (pos, reason)
    assert len(rows) == doc["events_by_status"]["quarantined"]


def test_a_directory_or_fifo_where_a_file_was_expected_is_one_quarantined_record(tmp_path: Path) -> None:
    simulate_into(tmp_path / "ok", None, 45, 1, steps=10)
    (tmp_path / "dir.jsonl").mkdir()
    (tmp_path / "dir.jsonl.gz").mkdir()
    (tmp_path / "dir.itf.json").mkdir()
    os.mkfifo(tmp_path / "fifo.jsonl.gz")
    jsonl = [str(tmp_path / n) for n in ("dir.jsonl", "dir.jsonl.gz", "fifo.jsonl.gz", "missing.jsonl")]
    itf = [str(tmp_path / "dir.itf.json"), str(tmp_path / "missing.itf.json")]
    outcomes = list(iter_local("raft", [*jsonl, str(tmp_path / "ok" / "events.jsonl")], itf))
    bad = {o.verdict["file"]: o.quarantine[0]["reason"] for o in outcomes if o.verdict["status"] == "quarantined"}
    assert bad == {jsonl[0]: "not a regular file (a directory)", jsonl[1]: "not a regular file (a directory)",
                   jsonl[2]: "not a regular file (a FIFO)",
                   jsonl[3]: "unreadable file: No such file or directory",
                   itf[0]: "not a regular file", itf[1]: "unreadable file: No such file or directory"}
    assert all(o.verdict["events"] == 1 for o in outcomes if o.verdict["status"] == "quarantined")
    assert sum(o.verdict["status"] == "valid" for o in outcomes) == 1


BOMB_RUN = """
import gzip, json, resource, sys
from kspec.conformance.pipeline.local import iter_local
from kspec.conformance.pipeline.reader import Limits
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
out = [o.verdict for o in iter_local("raft", sys.argv[1:], [], Limits(max_line_bytes=1 << 20,
                                                                   min_expanded_bytes=64 << 20))]
print(json.dumps({"verdicts": out, "grew_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before}))
"""


def test_gzip_bomb_is_quarantined_in_bounded_memory_and_the_run_goes_on(tmp_path: Path) -> None:
    # 512 MiB of zeros (about 0.5 MiB compressed): one endless line, stopped at 64 MiB expanded.
    bomb = tmp_path / "bomb.jsonl.gz"
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"\0" * (8 << 20)
    bomb.write_bytes(b"".join(comp.compress(block) for _ in range(64)) + comp.flush())
    simulate_into(tmp_path / "ok", None, 43, 2, steps=20)
    proc = subprocess.run([sys.executable, "-c", BOMB_RUN, str(bomb), str(tmp_path / "ok" / "events.jsonl")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    bombed = [v for v in doc["verdicts"] if v["file"] == str(bomb)]
    assert len(bombed) == 1 and bombed[0]["status"] == "quarantined"
    assert bombed[0]["detail"].startswith("gzip expands past")
    assert sum(v["status"] == "valid" for v in doc["verdicts"]) == 2  # the run went on
    assert doc["grew_kib"] < 48 << 10, doc["grew_kib"]  # far below the 64 MiB it inflated, let alone 512


def test_itf_with_a_badly_typed_action_is_quarantined_not_a_crash(tmp_path: Path) -> None:
    from kspec.conformance.pipeline.itf_replay import judge_itf

    simulate_into(tmp_path, None, 61, 1, steps=20)
    path = sorted(tmp_path.glob("*.itf.json"))[0]
    doc = json.loads(path.read_text())

    def stringify_epoch(value: Any) -> bool:
        if isinstance(value, dict):
            if isinstance(value.get("epoch"), int):
                value["epoch"] = str(value["epoch"])
                return True
            return any(stringify_epoch(v) for v in value.values())
        return isinstance(value, list) and any(stringify_epoch(v) for v in value)

    assert any(stringify_epoch(state["action"]) for state in doc["states"][1:])
    outcome = judge_itf("raft", str(path), json.dumps(doc))
    assert outcome.verdict["status"] == "quarantined"
    assert "badly typed action" in outcome.quarantine[0]["reason"] and "epoch" in outcome.quarantine[0]["reason"]


def test_an_itf_file_past_the_size_limit_is_one_quarantined_record(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from kspec.conformance.pipeline import itf_replay

    simulate_into(tmp_path, None, 62, 2, steps=10)
    files = sorted(str(p) for p in tmp_path.glob("*.itf.json"))
    sizes = sorted(Path(f).stat().st_size for f in files)
    monkeypatch.setattr(itf_replay, "MAX_ITF_BYTES", sizes[0])
    verdicts = {o.verdict["file"]: o.verdict for o in iter_local("raft", [], files)}
    statuses = sorted(v["status"] for v in verdicts.values())
    assert statuses == ["quarantined", "valid"] if sizes[0] < sizes[1] else statuses == ["valid", "valid"]
    big = [v for v in verdicts.values() if v["status"] == "quarantined"]
    assert all("larger than the limit" in v["detail"] and v["events"] == 1 for v in big)
