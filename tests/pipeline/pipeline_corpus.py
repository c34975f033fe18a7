"""A trace corpus with planted violations and planted damage, for the pipeline tests.

Violations: traces simulated from broken variants, whose ITF ``#meta.diverges_at`` (computed at
generation time from the system states, independently of the validator) says where the
variant's events first differ from the reference model's. Damage: edits to the reference
corpus's JSON Lines, each with the line it leaves damaged and the reason class it must get.
"""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from kspec.conformance.clikit import build_model, protocol_info
from kspec.conformance.pipeline.engine import RawLine
from kspec.conformance.pipeline.inputs import expand_inputs
from kspec.conformance.pipeline.reader import Limits, plan_splits, read_split
from kspec.conformance.pipeline.records import trace_key
from kspec.conformance.traces.writer import write_traces
from kspec.model.core.explorer import simulate

STEPS = 90
RUNS = (  # (variant, seed, traces)
    (None, 11, 8),
    ("vote-twice", 12, 8),
    ("ignores-diverging-epoch", 13, 8),
)


@dataclass
class Corpus:
    root: Path
    planted: dict[str, int] = field(default_factory=dict)  # trace id -> step of the first divergence
    damaged: dict[tuple[str, int], str] = field(default_factory=dict)  # (file, line) -> reason class
    quarantined_traces: set[str] = field(default_factory=set)
    orphans: int = 0
    lines: int = 0  # non-blank JSON Lines records
    itf_states: int = 0  # states of the well-formed ITF files, plus one per damaged ITF file
    traces: set[str] = field(default_factory=set)


def simulate_into(out: Path, variant: str | None, seed: int, traces: int, steps: int = STEPS) -> None:
    info = protocol_info("raft")
    model, _ = build_model(info, (), variant, simulation=True)
    result = simulate(model, seed=seed, steps=steps, traces=traces, stop_on_violation=False)
    write_traces(out, model, result, variant=variant)


def damaged_mixed_corpus(root: Path) -> Path:
    """``root/all.jsonl``: valid and violating raft traces, one line ending in a bare CR (a
    damaged split), for engines judged against each other at several split sizes."""
    simulate_into(root / "a", None, 3, 6)
    simulate_into(root / "b", "vote-twice", 4, 6)
    text = (root / "a" / "events.jsonl").read_text() + (root / "b" / "events.jsonl").read_text()
    lines = text.splitlines()
    lines[len(lines) // 2] = lines[len(lines) // 2] + "\r"
    path = root / "all.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def build(root: Path) -> Corpus:
    """Simulate the runs, copy their events into ``root/corpus``, plant damage in the reference
    events, and add a few ITF files (one of them truncated)."""
    corpus = Corpus(root / "corpus")
    corpus.root.mkdir(parents=True)
    for variant, seed, traces in RUNS:
        gen = root / f"gen-{variant or 'reference'}"
        simulate_into(gen, variant, seed, traces)
        for itf in sorted(gen.glob("*.itf.json")):
            meta = json.loads(itf.read_text())["#meta"]
            corpus.traces.add(meta["trace_id"])
            if meta["diverges_at"] is not None:
                corpus.planted[meta["trace_id"]] = meta["diverges_at"]
        shutil.copy(gen / "events.jsonl", corpus.root / f"{variant or 'reference'}.jsonl")
    _plant_damage(corpus, corpus.root / "reference.jsonl")
    for name in ("vote-twice", "ignores-diverging-epoch"):
        corpus.lines += sum(1 for t in (corpus.root / f"{name}.jsonl").read_text().splitlines() if t.strip())
    itf_dir = corpus.root / "itf"
    simulate_into(root / "gen-itf", None, 14, 2, steps=30)
    itf_dir.mkdir()
    for k, path in enumerate(sorted((root / "gen-itf").glob("*.itf.json"))):
        doc = json.loads(path.read_text())
        corpus.traces.add(doc["#meta"]["trace_id"])
        corpus.itf_states += len(doc["states"])
        shutil.copy(path, itf_dir / f"ok-{k}.itf.json")
    broken = itf_dir / "truncated.itf.json"
    broken.write_text(path.read_text()[:500])
    corpus.damaged[(str(broken.resolve()), 0)] = "malformed JSON"
    corpus.quarantined_traces.add(str(broken.resolve()))
    corpus.traces.add(str(broken.resolve()))
    corpus.itf_states += 1
    return corpus


def _plant_damage(corpus: Corpus, path: Path) -> None:
    """One of each kind of damage, each in a different reference trace, at its fourth event."""
    lines = path.read_text().splitlines()
    events = [json.loads(t) for t in lines]
    by_trace: dict[str, list[int]] = {}
    for i, ev in enumerate(events):
        by_trace.setdefault(ev["trace"], []).append(i)
    victims = [t for t, idx in by_trace.items() if len(idx) >= 6][:6]
    assert len(victims) == 6, "the reference run is too short to plant damage"
    edits: dict[int, tuple[str, list[str], int, str]] = {}  # line index -> (kind, new lines, damaged offset)
    truncated, unknown, gap, duplicate, missing, _ = victims
    i = by_trace[truncated][3]
    edits[i] = ("malformed JSON", [lines[i][: len(lines[i]) // 2]], 0, truncated)
    i = by_trace[unknown][3]
    edits[i] = ("unknown action", [json.dumps({**events[i], "action": "Frobnicate"})], 0, unknown)
    i = by_trace[gap][3]
    edits[i] = ("step gap", [], 0, gap)  # the line goes; the next event of the trace is the damaged one
    i = by_trace[duplicate][3]
    edits[i] = ("duplicate step", [lines[i], lines[i]], 1, duplicate)
    i = by_trace[missing][3]
    edits[i] = ("missing field", [json.dumps({k: v for k, v in events[i].items() if k != "outputs"})], 0, missing)
    out: list[str] = []
    gap_line: int | None = None
    for i, text in enumerate(lines):
        if i == 5:  # an extra line that is no JSON object, and an extra line of garbage
            out.append("[1, 2, 3]")
            corpus.damaged[(str(path.resolve()), len(out))] = "not a JSON object"
            out.append("<html>oops")
            corpus.damaged[(str(path.resolve()), len(out))] = "malformed JSON"
            corpus.orphans += 2
        if i in edits:
            kind, new, offset, trace = edits[i]
            out.extend(new)
            corpus.quarantined_traces.add(trace)
            if kind == "step gap":
                gap_line = by_trace[trace][4]  # index in the original lines
                continue
            corpus.damaged[(str(path.resolve()), len(out) - len(new) + 1 + offset)] = kind
            continue
        out.append(text)
        if i == gap_line:
            corpus.damaged[(str(path.resolve()), len(out))] = "step gap"
    out.insert(10, "")  # a blank line is no record
    # Line numbers after the blank line moved down by one.
    name = str(path.resolve())
    corpus.damaged = {(f, n + 1 if f == name and n > 10 else n): r for (f, n), r in corpus.damaged.items()}
    path.write_text("\n".join(out) + "\n")
    corpus.lines += sum(1 for t in out if t.strip())


def corpus_groups(root: Path) -> dict[str, list[tuple[str, RawLine]]]:
    """The corpus's JSON Lines records grouped by trace id, as the replay loops take them:
    (file, (line number, raw bytes, damage)), blank well-formed lines left out."""
    groups: dict[str, list[tuple[str, RawLine]]] = defaultdict(list)
    for split in plan_splits(expand_inputs([str(root)]).jsonl, 1 << 30):
        for n, (raw, damage) in enumerate(read_split(split, Limits()), start=1):
            if damage is None and not raw.strip():
                continue
            groups[trace_key(split.file, n, raw, damage)].append((split.file, (n, raw, damage)))
    return groups
