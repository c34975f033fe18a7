"""The run summary: counts that add up, violations by property, quarantine reasons, coverage.

Built by folding per-trace outcomes with :func:`add` and :func:`merge` (associative, so Spark
can aggregate partitions in any order), then :func:`finish` with the run's timing.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from kspec.conformance.pipeline.judge import Outcome

STATUSES = ("valid", "violating", "quarantined")


def empty() -> dict[str, Any]:
    return {"traces": Counter(), "events": Counter(), "properties": Counter(), "reasons": Counter(),
            "actions": Counter(), "features": Counter(), "quarantine_rows": 0}


def reason_class(reason: str) -> str:
    """A quarantine reason without its particulars: ``step gap``, ``malformed JSON``..."""
    return re.split(r"[:(\d'\"]", reason, maxsplit=1)[0].strip() or reason


def add(acc: dict[str, Any], outcome: Outcome) -> dict[str, Any]:
    v = outcome.verdict
    acc["traces"][v["status"]] += 1
    acc["events"][v["status"]] += v["events"]
    if v["status"] == "violating":
        acc["properties"][v["property"]] += 1
    for q in outcome.quarantine:
        if q["primary"]:
            acc["reasons"][reason_class(q["reason"])] += 1
    acc["quarantine_rows"] += len(outcome.quarantine)
    acc["actions"].update(outcome.actions)
    acc["features"].update(outcome.features)
    return acc


def merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    for key in ("traces", "events", "properties", "reasons", "actions", "features"):
        a[key].update(b[key])
    a["quarantine_rows"] += b["quarantine_rows"]
    return a


def finish(acc: dict[str, Any], *, protocol: str, seconds: float, known_actions: list[str] | None = None,
           extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``--json`` document: the CLI contract's keys first."""
    traces, events = acc["traces"], acc["events"]
    total_events = sum(events.values())
    doc: dict[str, Any] = {
        "protocol": protocol,
        "traces": sum(traces.values()),
        "events": total_events,
        "valid": traces["valid"],
        "violating": traces["violating"],
        "quarantined": traces["quarantined"],
        "events_per_second": round(total_events / seconds, 1) if seconds > 0 else None,
        "violations_by_property": dict(sorted(acc["properties"].items())),
        "events_by_status": {s: events[s] for s in STATUSES},
        "quarantined_records": acc["quarantine_rows"],
        "quarantine_by_reason": dict(sorted(acc["reasons"].items())),
        "coverage": {
            "actions": dict(sorted(acc["actions"].items())),
            "actions_not_covered": sorted(set(known_actions or ()) - set(acc["actions"])),
            "features": dict(sorted(acc["features"].items())),
        },
        "seconds": round(seconds, 3),
    }
    doc.update(extra or {})
    return doc
