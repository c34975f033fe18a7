"""Replaying an ITF state trace through the system model (any protocol).

The trace's ``#meta.bounds`` build the reference model; the first state must be one of its
initial states; each later state's ``action`` (decoded with the protocol's classes) must be
enabled in the state before and lead to exactly the recorded state (compared in ITF form, so
no state is decoded); every ``always`` property holds in every state and every
``always_step`` property on every step. Coverage: actions by name, and the ``sometimes``
witnesses the trace reaches (its state features).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any

from kspec.conformance.pipeline.classes import classes_of
from kspec.conformance.pipeline.judge import Outcome, quarantine_row, verdict_row
from kspec.conformance.pipeline.nodes import check_node_counts
from kspec.conformance.pipeline.records import Record
from kspec.conformance.pipeline.typed import check_value
from kspec.conformance.traces.itf import to_itf
from kspec.model.catalog import get_protocol
from kspec.model.core.codec import DecodeError, decode


def from_itf(value: Any) -> Any:
    """ITF value -> the JSON form ``codec.decode`` reads (None from the empty tuple)."""
    if isinstance(value, list):
        return [from_itf(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "#tup" in value:
        items = value["#tup"]
        return None if items == [] else [from_itf(v) for v in items]
    if "#set" in value:
        return [from_itf(v) for v in value["#set"]]
    if "#bigint" in value:
        return int(value["#bigint"])
    if "#map" in value:
        return {json.dumps(from_itf(k)): from_itf(v) for k, v in value["#map"]}
    return {k: from_itf(v) for k, v in value.items()}


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _state_of(row: dict[str, Any]) -> str:
    return _canon({k: v for k, v in row.items() if k not in ("action", "#meta")})


def action_name(action: Any) -> str:
    """``Deliver:VoteRequest``, ``Fire:ElectionTimeout``, or the action's class name."""
    inner = getattr(action, "input", None) or getattr(action, "message", None)
    if inner is not None and hasattr(inner, "__dataclass_fields__"):
        return f"{type(action).__name__}:{type(inner).__name__}"
    return type(action).__name__


def judge_itf(protocol: str, file: str, text: str) -> Outcome:
    """Judge one ITF file (one trace). A file that cannot be read as a kspec ITF trace of
    ``protocol`` is quarantined whole, as one record; so is one the validator fails on."""
    try:
        return _judge_itf(protocol, file, text)
    except Exception as err:  # one trace never ends the run (TRACE-QUARANTINE)
        return _quarantine(file, text, f"the validator failed on this trace: {type(err).__name__}: {str(err)[:200]}")


def _judge_itf(protocol: str, file: str, text: str) -> Outcome:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        return _quarantine(file, text, f"malformed JSON: {err.msg} at line {err.lineno}")
    except ValueError as err:  # an integer of more digits than Python converts
        return _quarantine(file, text, f"malformed JSON: {err}")
    except RecursionError:
        return _quarantine(file, text, "malformed JSON: nested too deeply")
    if not isinstance(doc, dict) or not isinstance(doc.get("states"), list) or not doc["states"]:
        return _quarantine(file, text, "not an ITF trace (no 'states')")
    found = doc.get("#meta")
    meta: dict[str, Any] = found if isinstance(found, dict) else {}
    trace = str(meta.get("trace_id") or file)
    states: list[Any] = doc["states"]
    if meta.get("protocol", protocol) != protocol:
        return _quarantine(file, text, f"protocol {meta.get('protocol')!r} is not {protocol!r}", trace, len(states))
    bounds = meta.get("bounds") or {}
    try:
        if isinstance(bounds, dict):
            check_node_counts(bounds)
        model = get_protocol(protocol).make(**bounds)
    except (TypeError, ValueError, ArithmeticError) as err:
        return _quarantine(file, text, f"bad bounds: {err}", trace, len(states))
    classes = classes_of(protocol)
    actions: list[Any] = [None]
    for i, row in enumerate(states[1:], start=1):
        if not isinstance(row, dict) or "action" not in row:
            return _quarantine(file, text, f"state {i} has no action", trace, len(states))
        try:
            action = decode(from_itf(row["action"]), classes)
        except (DecodeError, TypeError, ValueError, AttributeError) as err:
            return _quarantine(file, text, f"state {i}: undecodable action: {err}", trace, len(states))
        bad = check_value(action)
        if bad is not None:
            return _quarantine(file, text, f"state {i}: badly typed action: {bad}", trace, len(states))
        actions.append(action)
    counts: Counter[str] = Counter()
    feats: Counter[str] = Counter()

    def verdict(step: int | None = None, prop: str | None = None, action: str | None = None,
                detail: str | None = None) -> Outcome:
        status = "valid" if prop is None else "violating"
        return Outcome(verdict_row(trace, status, len(states), file, 0, step, prop, action, detail), [],
                       dict(counts), dict(feats))

    try:
        return _replay(model, states, actions, verdict, counts, feats)
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as err:
        # A recorded state or action the model cannot even step through (a badly typed value
        # the decoder let by): damage, not a crash of the run.
        return _quarantine(file, text, f"the model cannot replay it: {type(err).__name__}: {err}", trace,
                           len(states))


def _replay(model: Any, states: list[Any], actions: list[Any], verdict: Callable[..., Outcome], counts: Counter[str],
            feats: Counter[str]) -> Outcome:
    props = model.properties()
    invariants = [p for p in props if p.kind == "always"]
    step_props = [p for p in props if p.kind == "always_step"]
    witnesses = [p for p in props if p.kind == "sometimes"]
    step_witnesses = [p for p in props if p.kind == "sometimes_step"]
    first = _state_of(states[0])
    state = next((s for s in model.init_states() if _canon(to_itf(s)) == first), None)
    if state is None:
        return verdict(0, "Divergence:initial-state", None, "the first state is not an initial state of the model")
    for i in range(len(states)):
        if i > 0:
            action = actions[i]
            name = action_name(action)
            counts[name] += 1
            nxt = model.next_state(state, action)
            if nxt is None:
                return verdict(i, "Divergence:disabled", name, f"{name} is not enabled in state {i - 1}")
            if _canon(to_itf(nxt)) != _state_of(states[i]):
                return verdict(i, "Divergence:state", name, f"state {i} is not what {name} leads to")
            for p in step_props:
                if not p.holds_step(state, action, nxt):
                    return verdict(i, p.name, name, p.id)
            feats.update(p.name for p in step_witnesses if p.holds_step(state, action, nxt))
            state = nxt
        for p in invariants:
            if not p.holds(state):
                return verdict(i, p.name, action_name(actions[i]) if i else None, p.id)
        feats.update(p.name for p in witnesses if p.holds(state))
    return verdict()


MAX_ITF_BYTES = 256 << 20  # an ITF file is one record, read whole


def oversized_itf(file: str, size: int) -> Outcome:
    """The outcome of an ITF file too large to read whole: one quarantined record."""
    return _quarantine(file, "", f"ITF file larger than the limit of {MAX_ITF_BYTES} bytes ({size} bytes)")


def unreadable_itf(file: str, err: OSError | None = None) -> Outcome:
    """The outcome of an ITF path that is no regular file (``err`` None) or cannot be read."""
    reason = "not a regular file" if err is None else f"unreadable file: {err.strerror or err}"
    return _quarantine(file, "", reason)


def split_itf(paths: list[str]) -> tuple[list[str], list[Outcome]]:
    """(the regular ITF files small enough to read whole, the outcomes of the others)."""
    import os
    import stat

    ok: list[str] = []
    big: list[Outcome] = []
    for path in paths:
        try:
            info = os.stat(path)
        except OSError as err:  # gone, or a dangling link
            big.append(unreadable_itf(path, err))
            continue
        if not stat.S_ISREG(info.st_mode):  # a directory, a FIFO (reading it could block forever)
            big.append(unreadable_itf(path))
            continue
        size = info.st_size
        if size > MAX_ITF_BYTES:
            big.append(oversized_itf(path, size))
        else:
            ok.append(path)
    return ok, big


def _quarantine(file: str, text: str, reason: str, trace: str | None = None, records: int = 1) -> Outcome:
    rec = Record(file, 0, trace, None, None, reason, text)
    return Outcome(verdict_row(trace or file, "quarantined", records, file, 0, detail=reason),
                   [quarantine_row(rec, reason, True)], {}, {})
