"""Input records of the validation pipeline: one JSON Lines line or one ITF file, with its
source position, parsed into a key (the trace it belongs to) and a record, or a reason why it
is damaged. Everything here is pure and picklable: it runs in Spark executors.

The formats are in ``spec/trace-format.md``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

# Fields every event record has; ``observation``, ``protocol`` and ``config`` are optional.
REQUIRED_FIELDS = ("trace", "step", "node", "action", "input", "outputs")

# A damaged line's trace id, when it can still be read (a truncated line usually keeps it).
_TRACE_RE = re.compile(r'"trace"\s*:\s*"((?:[^"\\]|\\.)*)"')

# Keys of records that belong to no trace (their trace id cannot be read): one group each.
ORPHAN_PREFIX = "\x00orphan:"


@dataclass(frozen=True, slots=True)
class Record:
    """One input record: where it came from, its event (None when damaged) and the damage."""

    file: str
    line: int  # 1-based line number in a JSON Lines file; 0 for a whole ITF file
    trace: str | None
    step: int | None
    event: dict[str, Any] | None
    damage: str | None = None
    text: str | None = None  # the raw text, kept only for damaged records

    def raw(self) -> str:
        """The record as text, for the quarantine output."""
        if self.text is not None:
            return self.text
        return json.dumps(self.event, sort_keys=False)


def parse_line(file: str, line: int, text: str) -> tuple[str, Record] | None:
    """Parse one JSON Lines line into (group key, record); None for a blank line."""
    if not text.strip():
        return None
    try:
        event = json.loads(text)
    except ValueError as err:
        return _damaged(file, line, text, f"malformed JSON: {err.msg} at column {err.colno}")
    if not isinstance(event, dict):
        return _damaged(file, line, text, f"not a JSON object: {type(event).__name__}")
    trace = event.get("trace")
    if not isinstance(trace, str) or not trace:
        return _damaged(file, line, text, "missing field 'trace'" if trace is None else "field 'trace' is not a string")
    missing = [f for f in REQUIRED_FIELDS if f not in event]
    if missing:
        return trace, Record(file, line, trace, _step_of(event), None, f"missing field {missing[0]!r}", text)
    step = event["step"]
    if not isinstance(step, int) or isinstance(step, bool) or step < 0:
        return trace, Record(file, line, trace, None, None, f"bad step {step!r}", text)
    if not isinstance(event["action"], str):
        return trace, Record(file, line, trace, step, None, "field 'action' is not a string", text)
    if not isinstance(event["outputs"], list):
        return trace, Record(file, line, trace, step, None, "field 'outputs' is not a list", text)
    return trace, Record(file, line, trace, step, event)


def _step_of(event: dict[str, Any]) -> int | None:
    step = event.get("step")
    return step if isinstance(step, int) and not isinstance(step, bool) else None


def _damaged(file: str, line: int, text: str, reason: str) -> tuple[str, Record]:
    """A damaged line: grouped with its trace when the trace id can still be read, else alone."""
    m = _TRACE_RE.search(text)
    if m:
        try:
            trace = json.loads(f'"{m.group(1)}"')
        except ValueError:
            trace = None
        if trace:
            return trace, Record(file, line, trace, None, None, reason, text)
    return orphan_key(file, line), Record(file, line, None, None, None, reason, text)


def orphan_key(file: str, line: int) -> str:
    """The group key of a record that belongs to no trace."""
    return f"{ORPHAN_PREFIX}{file}:{line}"


def is_orphan(key: str) -> bool:
    return key.startswith(ORPHAN_PREFIX)
