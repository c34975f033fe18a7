"""Judging one trace: structural checks, then replay, giving a verdict row, quarantine rows and
coverage counts. Pure and picklable: this is what the Spark executors run per trace group.

Verdict statuses: ``valid`` (replayed to the end, nothing violated), ``violating`` (a property
or a divergence at ``step``), ``quarantined`` (damaged: its records go to the quarantine output
with their reasons and source positions, and nothing is concluded about it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any, NamedTuple

from kspec.conformance.pipeline.nodes import NodeReplay, TraceConfigError, decode_input, features
from kspec.conformance.pipeline.records import Record, is_orphan, parse_line


def event_protocols() -> list[str]:
    """The protocols whose JSON Lines event traces can be replayed node by node
    (conformance/protocols.py: ``events``)."""
    from kspec.conformance import protocols

    return [p.name for p in protocols.protocols() if p.events]

IN_QUARANTINED_TRACE = "in quarantined trace"


class Outcome(NamedTuple):
    """What judging one trace (or one orphan record) gives."""

    verdict: dict[str, Any]
    quarantine: list[dict[str, Any]]
    actions: dict[str, int]
    features: dict[str, int]


def verdict_row(trace: str, status: str, events: int, file: str, line: int, step: int | None = None,
                prop: str | None = None, action: str | None = None, detail: str | None = None) -> dict[str, Any]:
    return {"trace": trace, "status": status, "events": events, "file": file, "line": line, "step": step,
            "property": prop, "action": action, "detail": detail}


def quarantine_row(rec: Record, reason: str, primary: bool) -> dict[str, Any]:
    return {"file": rec.file, "line": rec.line, "trace": rec.trace, "step": rec.step, "reason": reason,
            "primary": primary, "record": rec.raw()}


# (1-based line number, raw bytes, the reader's damage or None): one line, not yet parsed
RawLine = tuple[int, bytes, "str | None"]


def judge_lines(protocol: str, key: str, lines: Iterable[tuple[str, RawLine]]) -> Outcome:
    """Parse one trace's raw lines (each with its file) and judge them with the reference
    replay (``judge_events``): the oracle of ``fast.judge_lines_fast``, and its path for a trace
    the fast path cannot take."""
    recs = []
    for path, (n, raw, damage) in lines:
        parsed = parse_line(path, n, raw, damage)
        if parsed is not None:
            recs.append(parsed[1])
    return judge_events(protocol, key, recs)


def failed_trace(key: str, lines: list[tuple[str, RawLine]], err: BaseException) -> Outcome:
    """The outcome of a trace the validator itself failed on (a kspec bug, or an input that
    exhausts memory or recursion): quarantined whole, every line with its place, the error
    named in the reason, so that the run goes on and nothing is lost."""
    reason = f"the validator failed on this trace: {type(err).__name__}: {str(err)[:200]}"
    trace = None if is_orphan(key) else key
    recs = sorted((Record(path, n, trace, None, None, reason, raw.decode("utf-8", "replace"))
                   for path, (n, raw, damage) in lines if damage is not None or raw.strip()),
                  key=lambda r: (r.file, r.line))
    if not recs:
        recs = [Record("", 0, trace, None, None, reason, "")]
    q = [quarantine_row(r, reason if i == 0 else f"{IN_QUARANTINED_TRACE}: {reason}", i == 0)
         for i, r in enumerate(recs)]
    return Outcome(verdict_row(key, "quarantined", len(recs), recs[0].file, recs[0].line, detail=reason), q, {}, {})


def judge_events(protocol: str, key: str, records: Iterable[Record]) -> Outcome:
    """Judge the event records of one trace (or one orphan record)."""
    recs = sorted(records, key=lambda r: (r.file, r.line))
    first = recs[0]
    if is_orphan(key):
        q = [quarantine_row(r, r.damage or "no trace id", True) for r in recs]
        return Outcome(verdict_row(key, "quarantined", len(recs), first.file, first.line,
                                   detail=q[0]["reason"]), q, {}, {})
    damage: dict[int, str] = {}  # index in recs -> reason
    for i, r in enumerate(recs):
        if r.damage is not None:
            damage[i] = r.damage
    values: dict[int, Any] = {}
    for i, r in enumerate(recs):
        if i in damage or r.event is None:
            continue
        p = r.event.get("protocol", protocol)
        if p != protocol:
            damage[i] = f"protocol {p!r} is not {protocol!r}"
            continue
        value, reason = decode_input(protocol, r.event)
        if reason is not None:
            damage[i] = reason
        else:
            values[i] = value
    # Step numbers: 0, 1, 2... with no gap and no duplicate. A later record with a step already
    # seen is the duplicate (unless the earlier one is itself damaged); a gap is blamed on the
    # record after it, unless damaged records whose step cannot be read may fill it.
    by_step: dict[int, int] = {}
    for i, r in enumerate(recs):
        if r.step is None:
            continue
        if r.step in by_step:
            j = by_step[r.step]
            if j not in damage:
                damage.setdefault(i, f"duplicate step {r.step} (first at {recs[j].file}:{recs[j].line})")
            continue
        by_step[r.step] = i
    unknown_steps = sum(1 for r in recs if r.step is None)
    missing = max(by_step, default=-1) + 1 - len(by_step)
    if missing > unknown_steps:
        for expected, step in enumerate(sorted(by_step)):
            if step != expected:
                damage.setdefault(by_step[step], f"step gap: expected step {expected}, got {step}")
                break
    replay: NodeReplay | None = None
    if not damage:
        head = recs[by_step[0]].event if 0 in by_step else None
        config = head.get("config") if head else None
        if config is None:
            damage[by_step.get(0, 0)] = "first event lacks 'config'"
        else:
            try:
                replay = NodeReplay(protocol, config)
            except TraceConfigError as err:
                damage[by_step[0]] = str(err)
    if replay is not None:
        for i in values:
            if not replay.has_node(recs[i].event["node"]) and recs[i].event["action"] not in ("Drop", "Duplicate"):  # type: ignore[index]
                damage[i] = f"unknown node {recs[i].event['node']!r}"  # type: ignore[index]
    if damage:
        q = [quarantine_row(r, damage[i], True) if i in damage else
             quarantine_row(r, f"{IN_QUARANTINED_TRACE}: {damage[min(damage)]}", False)
             for i, r in enumerate(recs)]
        first_bad = min(damage)
        return Outcome(verdict_row(key, "quarantined", len(recs), first.file, first.line,
                                   step=recs[first_bad].step, detail=damage[first_bad]), q, {}, {})
    assert replay is not None
    actions: Counter[str] = Counter()
    feats: Counter[str] = Counter()
    for step in range(len(by_step)):
        i = by_step[step]
        event = recs[i].event
        assert event is not None
        actions[event["action"]] += 1
        bad, obs = replay.apply(event, values[i])
        feats.update(features(obs))
        if bad is not None:
            return Outcome(verdict_row(key, "violating", len(recs), first.file, first.line, step, bad.property,
                                       event["action"], bad.detail), [], dict(actions), dict(feats))
    return Outcome(verdict_row(key, "valid", len(recs), first.file, first.line), [], dict(actions), dict(feats))
