"""A corpus planted with every kind of damage the pipeline's readers must survive (badly typed
records, CR and CRLF line ends, an oversized line, a truncated and a corrupt gzip member, a
gzip bomb) validates to the end, locally and on Spark, with each damaged record quarantined
with its file, line and reason, and input = valid + violating + quarantined exactly. The
splits are small so that traces span splits (and one trace spans files)."""

from __future__ import annotations

import gzip
import json
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

MAX_LINE = 4096
MAX_EXPANDED = 8 << 20
SPLIT = 20_000
LIMITS = Limits(max_line_bytes=MAX_LINE, min_expanded_bytes=MAX_EXPANDED)


@dataclass
class Damaged:
    root: Path
    damaged: dict[tuple[str, int], str] = field(default_factory=dict)  # (file, line) -> reason prefix
    records: int = 0  # every record the validator must account for
    spanning_trace: str = ""


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Damaged:
    base = tmp_path_factory.mktemp("damage")
    simulate_into(base / "a", None, 41, 9, steps=40)
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
    assert doc["valid"] > 0 and doc["violating"] == 0
    spanning = [o.verdict for o in outcomes if o.verdict["trace"] == corpus.spanning_trace]
    assert len(spanning) == 1 and spanning[0]["status"] == "valid"


def test_spark_gives_the_same_summary(corpus: Damaged) -> None:
    from click.testing import CliRunner

    from kspec.conformance.cli import _load_commands, cli

    _load_commands()
    result = CliRunner().invoke(cli, ["validate", str(corpus.root), "--protocol", "raft", "--master", "local[2]",
                                      "--max-line-bytes", str(MAX_LINE), "--max-expanded-bytes", str(MAX_EXPANDED),
                                      "--split-bytes", str(SPLIT), "--json"])
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    local, _ = _local(corpus)
    doc["coverage"].pop("actions_not_covered")  # the CLI knows every action; the local summary here does not
    local["coverage"].pop("actions_not_covered")
    ignore = ("seconds", "events_per_second", "master", "inputs", "out")
    assert {k: v for k, v in doc.items() if k not in ignore} == {k: v for k, v in local.items() if k not in ignore}


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
