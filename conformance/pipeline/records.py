"""Input records of the validation pipeline: one JSON Lines line or one ITF file, with its
source position, parsed into a key (the trace it belongs to) and a record, or a reason why it
is damaged. Everything here is pure and picklable: it runs in Spark executors.

The formats are in ``spec/trace-format.md``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

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


class _TraceOnly(msgspec.Struct):
    trace: Any = None


_trace_only = msgspec.json.Decoder(_TraceOnly)
_any = msgspec.json.Decoder()


# A line as the trace writer writes it: the trace id first, printable ASCII without escapes.
_WRITTEN_PREFIX = b'{"trace": "'  # (11 bytes: the id starts at byte 11)
_WRITTEN_TRACE_RE = re.compile(rb'\{"trace": ?"([\x20\x21\x23-\x5b\x5d-\x7e]+)"')


def trace_key(file: str, line: int, raw: bytes, damage: str | None = None) -> str:
    """The group key of a line: its trace id, or an orphan key when it cannot be read. Cheap
    (the other fields are only scanned); :func:`parse_line` gives every line this same key, so
    a first pass can find the traces that span splits without parsing events."""
    if damage is None:
        # Cheaper still for a line that opens with its trace id and names ``"trace"`` nowhere
        # else, with no escape anywhere (a key spelt with escapes could repeat it): whether the
        # line is valid JSON or not, the two readings below give this id.
        if raw.startswith(_WRITTEN_PREFIX):  # the regex's common case, as the writer writes it, without the regex
            end = raw.find(b'"', 11)
            if end > 11 and b"\\" not in raw and raw.find(b'"trace"', 8) < 0:
                tid = raw[11:end]
                if tid.isascii():
                    key = tid.decode("ascii")
                    if key.isprintable():
                        return key
        m = _WRITTEN_TRACE_RE.match(raw)
        if m is not None and b"\\" not in raw and raw.count(b'"trace"') == 1:
            return m.group(1).decode("ascii")
        try:
            trace = _trace_only.decode(raw).trace
        except (msgspec.DecodeError, msgspec.ValidationError, ValueError, RecursionError):
            trace = None  # (ValueError: invalid UTF-8; RecursionError: nested too deeply)
        if isinstance(trace, str) and trace:
            return trace
    return _damaged_key(file, line, raw) or orphan_key(file, line)


def _damaged_key(file: str, line: int, raw: bytes) -> str | None:
    m = _TRACE_RE.search(raw.decode("utf-8", "replace"))
    if m:
        try:
            trace = json.loads(f'"{m.group(1)}"')
        except ValueError:
            return None
        if isinstance(trace, str) and trace:
            return trace
    return None


def parse_line(file: str, line: int, text: bytes | str, damage: str | None = None) -> tuple[str, Record] | None:
    """Parse one JSON Lines line into (group key, record); None for a blank line. ``damage`` is
    what the reader found wrong with the bytes (a CR, an oversized line, a gzip failure)."""
    raw = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    if damage is None and not raw.strip():
        return None
    key = trace_key(file, line, raw, damage)
    if damage is not None:
        return _damaged(file, line, raw, damage, key)
    try:
        event = _any.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError) as err:
        return _damaged(file, line, raw, f"malformed JSON: {err}", key)
    except UnicodeDecodeError as err:  # the reader checks UTF-8; a caller may not have
        return _damaged(file, line, raw, f"invalid UTF-8 at byte {err.start} of the line", key)
    except RecursionError:
        return _damaged(file, line, raw, "malformed JSON: nested too deeply", key)
    if not isinstance(event, dict):
        kind = _JSON_TYPES.get(type(event), type(event).__name__)
        return _damaged(file, line, raw, f"not a JSON object: {kind}", key)
    trace = event.get("trace")
    if not isinstance(trace, str) or not trace:
        return _damaged(file, line, raw, "missing field 'trace'" if trace is None else "field 'trace' is not a string",
                        key)
    missing = [f for f in REQUIRED_FIELDS if f not in event]
    if missing:
        return trace, Record(file, line, trace, _step_of(event), None, f"missing field {missing[0]!r}", _text(raw))
    step = event["step"]
    if not isinstance(step, int) or isinstance(step, bool) or step < 0:
        return trace, Record(file, line, trace, None, None, f"bad step {step!r}", _text(raw))
    bad = _bad_field(event)
    if bad is not None:
        return trace, Record(file, line, trace, step, None, bad, _text(raw))
    return trace, Record(file, line, trace, step, event)


_JSON_TYPES = {list: "list", str: "str", int: "int", float: "float", bool: "bool", type(None): "NoneType"}


def _is_id(value: Any) -> bool:
    """A node id: an integer or a string (never a bool, a list or an object)."""
    return type(value) is int or type(value) is str


def _is_int(value: Any) -> bool:
    return type(value) is int


# The observation keys the replay reads, and the types they must have (TRACE-EVENTS).
_OBSERVATION_TYPES: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "epoch": ("an integer", _is_int),
    "high_watermark": ("an integer or null", lambda v: v is None or type(v) is int),
    "role": ("a string", lambda v: type(v) is str),
    "leader": ("a node id or null", lambda v: v is None or _is_id(v)),
    "voted_for": ("a node id or null", lambda v: v is None or _is_id(v)),
    "log": ("a list of [epoch, kind] entries",
            lambda v: type(v) is list and all(type(e) is list and len(e) >= 1 and type(e[0]) is int for e in v)),
}


def _bad_field(event: dict[str, Any]) -> str | None:
    """The first badly typed field of an event with every required field, or None."""
    if type(event["action"]) is not str:
        return "field 'action' is not a string"
    node = event["node"]
    if node is not None and not _is_id(node):
        return f"field 'node' is not a node id (an integer, a string or null): {node!r}"
    if type(event["input"]) is not dict:
        return "field 'input' is not an object"
    outputs = event["outputs"]
    if type(outputs) is not list:
        return "field 'outputs' is not a list"
    for o in outputs:
        if type(o) is not dict or type(o.get("type")) is not str:
            return f"field 'outputs' holds {o!r}, not an object with a 'type'"
    obs = event.get("observation")
    if obs is not None:
        if type(obs) is not dict:
            return "field 'observation' is not an object"
        for key, (what, ok) in _OBSERVATION_TYPES.items():
            if key in obs and not ok(obs[key]):
                return f"field 'observation.{key}' is not {what}: {obs[key]!r}"
    return None


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _step_of(event: dict[str, Any]) -> int | None:
    step = event.get("step")
    return step if isinstance(step, int) and not isinstance(step, bool) else None


def _damaged(file: str, line: int, raw: bytes, reason: str, key: str) -> tuple[str, Record]:
    """A damaged line: grouped with its trace when the trace id can still be read, else alone."""
    trace = None if is_orphan(key) else key
    return key, Record(file, line, trace, None, None, reason, _text(raw))


def orphan_key(file: str, line: int) -> str:
    """The group key of a record that belongs to no trace."""
    return f"{ORPHAN_PREFIX}{file}:{line}"


def is_orphan(key: str) -> bool:
    return key.startswith(ORPHAN_PREFIX)
