"""Reading every trace kspec writes into one :class:`~kspec.conformance.explain.trace.Trace`.

Formats, told apart by content, not by file name:

- counterexample files (``kspec conform``; ITF with ``#meta.kind == "kspec-counterexample"``):
  per step the node's input, the model's and the target's outputs and observations;
- ITF state traces (``kspec simulate --out``): states with an ``action`` variable;
- the JSON of ``kspec explore --json`` / ``kspec simulate --json`` (the first violation, or the
  one ``violation`` names), a single ``{property, trace}`` object, or a bare list of
  ``{action, state}``;
- JSON Lines event traces (``events.jsonl``: trace, step, node, action, input, outputs,
  observation), one trace of the file (the first, or the one ``trace_id`` names).
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

from kspec.conformance.clikit import MAX_DEPTH, InputError, check_depth, parse_json_input, read_input_text
from kspec.conformance.explain.trace import Arrow, Step, Trace
from kspec.conformance.explain.values import Change, _multiset_delta, diff, plain, short
from kspec.conformance.traces.itf import ItfValueError

ACTOR_KEYS = ("node", "replica", "instance", "cluster", "broker", "member")


def load_trace(path: Path, violation: int = 0, trace_id: str | None = None) -> Trace:
    """Read ``path`` in whichever format it is; raises InputError naming the file and place.

    The file is untrusted (docs/threat-model.md): it is read bounded, and a value that is not
    what its format says is an InputError naming the place, never an internal error."""
    try:
        return _load_trace(path, violation, trace_id)
    except ItfValueError as err:
        raise InputError(f"{path}: {err}") from None
    except RecursionError:
        raise InputError(f"{path}: nested too deep") from None
    except (AttributeError, KeyError, TypeError, ValueError, IndexError) as err:
        # A document of the right outline with a value of the wrong shape somewhere inside:
        # the file's fault, said in one line (the fuzz test finds the places to check first).
        raise InputError(f"{path}: a value has the wrong shape for its format "
                         f"({type(err).__name__}: {str(err)[:120]})") from None


def _load_trace(path: Path, violation: int, trace_id: str | None) -> Trace:
    text = read_input_text(path)
    try:
        doc = json.loads(text)
    except RecursionError:
        raise InputError(f"{path}: nested more than {MAX_DEPTH} levels deep") from None
    except json.JSONDecodeError as err:
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if len(lines) > 1 and lines[0].lstrip().startswith("{"):
            return _from_events(path, lines, trace_id)
        raise InputError(f"{path}: not JSON (line {err.lineno}, column {err.colno}: {err.msg})") from None
    except ValueError as err:  # an integer with more digits than Python converts
        raise InputError(f"{path}: not JSON ({str(err).splitlines()[0][:120]})") from None
    check_depth(doc, str(path))
    meta = doc.get("#meta") if isinstance(doc, dict) else None
    if isinstance(meta, dict) and meta.get("kind") == "kspec-counterexample":
        return _from_counterexample(path)
    if isinstance(doc, dict) and isinstance(doc.get("states"), list):
        return _from_itf(path, doc)
    if isinstance(doc, dict) and isinstance(doc.get("violations"), list):
        # Liveness lassos (kspec explore --json) come after the safety violations.
        violations = doc["violations"] + list((doc.get("liveness_counterexamples") or {}).values())
        if not violations:
            raise InputError(f"{path}: the run found no violation, so there is no counterexample to explain")
        if not 0 <= violation < len(violations):
            raise InputError(f"{path}: --violation {violation} is out of range (the file has {len(violations)})")
        return _from_model_trace(path, violations[violation], doc.get("protocol"), doc.get("variant"))
    if isinstance(doc, dict) and isinstance(doc.get("trace"), list):
        return _from_model_trace(path, doc, doc.get("protocol"), doc.get("variant"))
    if isinstance(doc, dict) and len(text.splitlines()) == 1 and {"node", "input"} <= set(doc):
        return _from_events(path, [text], trace_id)
    if isinstance(doc, list) and doc and all(isinstance(s, dict) and "state" in s for s in doc):
        return _from_model_trace(path, {"trace": doc}, None, None)
    raise InputError(f"{path}: not a trace kspec can explain (expected a counterexample, an ITF trace, "
                     "kspec explore/simulate --json output or JSON Lines events)")


# -- state traces: ITF and explore/simulate JSON -------------------------------------------------------------


def _from_itf(path: Path, doc: dict[str, Any]) -> Trace:
    meta = plain(doc.get("#meta") or {})
    if not isinstance(meta, dict):
        raise InputError(f"{path}: #meta is not an object")
    rows = doc["states"]
    states, actions = [], []
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise InputError(f"{path}: states[{i}] is not an object")
        rec = plain(row)
        if not isinstance(rec, dict):
            raise InputError(f"{path}: states[{i}] is an ITF value, not a state (an object of variables)")
        actions.append(rec.pop("action", None))
        states.append(rec)
    if not states:
        raise InputError(f"{path}: the trace has no states")
    protocol = meta.get("protocol")
    failed = meta.get("failed_property")
    info = _describe_property(protocol, failed) if failed else ""
    title = f"{protocol or 'trace'} {meta.get('trace_id') or ''}".strip()
    if meta.get("variant"):
        title += f" (variant {meta['variant']})"
    keep = {k: short(v, 200) for k, v in meta.items() if k in ("protocol", "seed", "trace_id", "variant", "bounds")
            and v is not None}
    trace = _state_trace(path, "itf", protocol, title, keep, states, actions)
    if failed:
        _mark_failed(trace, f"property {failed} violated{info}")
    return trace


def _from_model_trace(path: Path, violation: dict[str, Any], protocol: Any, variant: Any) -> Trace:
    steps = violation["trace"]
    states, actions = [], []
    for i, s in enumerate(steps):
        if not isinstance(s, dict) or "state" not in s:
            raise InputError(f"{path}: trace[{i}] lacks 'state'")
        states.append(plain(s["state"]))
        actions.append(plain(s.get("action")))
    if not states:
        raise InputError(f"{path}: the trace has no states")
    prop = violation.get("property")
    title = f"{protocol or 'trace'}" + (f" (variant {variant})" if variant else "")
    meta = {k: str(v) for k, v in (("protocol", protocol), ("variant", variant), ("property", prop),
                                   ("name", violation.get("name"))) if v}
    trace = _state_trace(path, "explore-json", protocol if isinstance(protocol, str) else None, title, meta,
                         states, actions)
    if prop:
        trace.title += f" violates {prop}"
        _mark_failed(trace, f"property {prop} violated{_describe_property(protocol, prop)}")
    _mark_lasso(trace, violation)
    return trace


def _mark_lasso(trace: Trace, violation: dict[str, Any]) -> None:
    """A liveness lasso: note where faults stop and draw the cycle's return (``loop_back`` is
    the state the last step returns to, counted as the steps are)."""
    stop, back = violation.get("faults_stop"), violation.get("loop_back")
    if isinstance(stop, int) and 1 <= stop <= len(trace.steps):
        trace.steps[stop - 1].notes.append("no fault after this step")
    if isinstance(back, int) and trace.steps:
        last = len(trace.steps)
        cycle = "it stutters there forever" if back == last else f"steps {back + 1}-{last} repeat forever"
        trace.steps[-1].notes.append(f"↺ back to step {back}: {cycle}")


def _state_trace(path: Path, fmt: str, protocol: str | None, title: str, meta: dict[str, str],
                 states: list[Any], actions: list[Any]) -> Trace:
    participants = _initial_participants(states[0])
    steps = []
    for i in range(1, len(states)):
        step = _action_step(i, actions[i])
        step.changes = _name_nodes(diff(_without_action(states[i - 1]), _without_action(states[i])), states[i])
        steps.append(step)
        for name in [step.actor, *[a.src for a in step.arrows], *[a.dst for a in step.arrows]]:
            if name is not None and name not in participants:
                participants.append(name)
    if not participants:
        participants = ["system"]
    for step in steps:
        if step.actor is None and not step.arrows:
            # A system-level action with no node (an election, a client write, a rebalance).
            step.actor = "system"
            if "system" not in participants:
                participants.insert(0, "system")
    return Trace(str(path), fmt, protocol, title, meta, participants, steps, initial=states[0])


def _name_nodes(changes: list[Change], state: Any) -> list[Change]:
    """Changes under ``nodes[k]`` named by the replica they belong to (``node 2.role.epoch``, as
    everywhere else), not by the list position."""
    nodes = state.get("nodes") if isinstance(state, dict) else None
    if not isinstance(nodes, list):
        return changes
    ids = {k: n["id"] for k, n in enumerate(nodes) if isinstance(n, dict) and isinstance(n.get("id"), int | str)}
    out = []
    for c in changes:
        m = re.match(r"^nodes\[(\d+)\]", c.path)
        if m is not None and int(m.group(1)) in ids:
            c = dataclasses.replace(c, path=f"{display(str(ids[int(m.group(1))]))}{c.path[m.end():]}")
        out.append(c)
    return out


def _without_action(state: Any) -> Any:
    if isinstance(state, dict):
        return {k: v for k, v in state.items() if k != "action"}
    return state


def _initial_participants(state: Any) -> list[str]:
    if isinstance(state, dict):
        nodes = state.get("nodes")
        if isinstance(nodes, list) and all(isinstance(n, dict) and "id" in n for n in nodes):
            return [str(n["id"]) for n in nodes]
    return []


def _participant(key: str, value: Any) -> str:
    """Replicas are named by their id; instances and members by kind and number."""
    if key in ("instance", "member", "broker") and isinstance(value, int):
        return f"{key} {value}"
    return str(value)


def display(name: str) -> str:
    """How a participant is shown: a bare replica id as ``node N``."""
    return f"node {name}" if name.isdigit() else name


def message_label(msg: dict[str, Any]) -> str:
    """A message on an arrow: its type and its epoch or error when it has them."""
    label = str(msg.get("type", "message"))
    extras = [f"e{msg['epoch']}"] if isinstance(msg.get("epoch"), int) else []
    if msg.get("granted") is not None and "granted" in msg:
        extras.append("granted" if msg["granted"] else "rejected")
    if msg.get("error") not in (None, "NONE", ""):
        extras.append(str(msg["error"]))
    return label + (f" ({', '.join(extras)})" if extras else "")


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and "src" in value and "dst" in value


def _action_step(index: int, action: Any) -> Step:
    if not isinstance(action, dict):
        return Step(index, short(action), None)
    kind = str(action.get("type", "action"))
    msg = action.get("message")
    if isinstance(msg, dict) and _is_message(msg):
        style = {"Drop": "drop", "Duplicate": "duplicate"}.get(kind, "deliver")
        src, dst = str(msg["src"]), str(msg["dst"])
        title = f"{kind.lower()} {short(msg, 120)}"
        return Step(index, title, dst if style == "deliver" else None,
                    [Arrow(src, dst, message_label(msg), style)])  # type: ignore[arg-type]
    if "source" in action and "target" in action:
        src, dst = str(action["source"]), str(action["target"])
        return Step(index, f"{kind} {src}→{dst}", dst, [Arrow(src, dst, kind, "flow")])
    actor = next((_participant(k, action[k]) for k in ACTOR_KEYS
                  if k in action and not isinstance(action[k], dict | list)), None)
    inp = action.get("input")
    what = str(inp.get("type")) if isinstance(inp, dict) and "type" in inp else kind
    rest = {k: v for k, v in action.items() if k not in ("type", "input", *ACTOR_KEYS)}
    detail = short(rest, 100)[1:-1] if rest else ""
    return Step(index, what + (f" ({detail})" if detail else ""), actor)


def _mark_failed(trace: Trace, failure: str) -> None:
    trace.failure = failure
    if trace.steps:
        trace.steps[-1].failed = True
        trace.failed_step = trace.steps[-1].index
    else:
        trace.failed_step = 0


def _describe_property(protocol: Any, pid: Any) -> str:
    """`` (Name: doc)`` for a property ID of ``protocol``, from the model; empty if unknown."""
    if not isinstance(protocol, str) or not isinstance(pid, str):
        return ""
    try:
        from kspec.model.catalog import get_protocol

        for prop in get_protocol(protocol).make().properties():
            if prop.id == pid:
                doc = " ".join(prop.doc.split())
                return f" ({prop.name}{': ' + doc if doc else ''})"
    except Exception:  # a describer is a nicety; an unknown protocol still gets explained
        return ""
    return ""


# -- node-level traces: counterexamples and JSON Lines events ----------------------------------------------


def _from_counterexample(path: Path) -> Trace:
    from kspec.conformance.counterexample import CounterexampleError, read_counterexample

    try:
        meta, records = read_counterexample(path)
    except CounterexampleError as err:
        raise InputError(str(err)) from None
    div = meta.get("divergence") or {}
    fail_at = div.get("step") if isinstance(div, dict) else None
    rows = [{"step": r.index, "action": r.action, "node": r.node, "input": r.input, "outputs": r.model_outputs,
             "target_outputs": r.target_outputs, "observation": r.model_observation,
             "target_observation": r.target_observation} for r in records]
    protocol = meta.get("protocol")
    title = f"{protocol}: {meta.get('target')} {meta.get('verdict', '')}".strip()
    keep = {k: short(meta[k], 200) for k in ("protocol", "target", "seed", "verdict", "config", "examples")
            if meta.get(k) is not None}
    trace = _node_trace(path, "counterexample", protocol, title, keep, rows, fail_at)
    if isinstance(div, dict) and div:
        where = f"step {div.get('step')}"
        kind = div.get("kind")
        prop = meta.get("property")
        if kind == "property" and prop:
            about = _describe_property(protocol, prop)
            trace.failure = f"property {prop} violated at {where}{about}: {div.get('detail')}"
        elif kind == "error":
            trace.failure = f"target error at {where}: {div.get('detail')}"
        elif kind == "liveness":
            trace.failure = f"liveness property {div.get('field')} violated at {where}: {div.get('detail')}"
        else:
            trace.failure = f"lockstep {kind} divergence at {where} in {div.get('field')}: {div.get('detail')}"
        trace.failed_step = fail_at if isinstance(fail_at, int) else None
    _mark_lasso(trace, meta)  # a liveness counterexample: where faults stop, the cycle's return
    return trace


def _from_events(path: Path, lines: list[str], trace_id: str | None) -> Trace:
    rows: list[dict[str, Any]] = []
    for n, line in enumerate(lines, 1):
        ev = parse_json_input(line, f"{path}: line {n}")
        if not isinstance(ev, dict) or "node" not in ev:
            raise InputError(f"{path}: line {n} is not an event (no 'node')")
        tid = ev.get("trace")
        if trace_id is None and not rows:
            trace_id = tid
        if tid == trace_id:
            rows.append(ev)
    if not rows:
        raise InputError(f"{path}: no event of trace {trace_id!r}")
    protocol = str(trace_id).split("-")[0] if trace_id else None
    for i, row in enumerate(rows):
        row.setdefault("step", i)
    meta = {"trace": str(trace_id)}
    return _node_trace(path, "events", protocol, f"events of {trace_id}", meta, rows, None)


def _node_trace(path: Path, fmt: str, protocol: Any, title: str, meta: dict[str, str], rows: list[dict[str, Any]],
                fail_at: Any) -> Trace:
    participants: list[str] = []
    last_obs: dict[str, Any] = {}
    steps: list[Step] = []

    def see(name: str | None) -> None:
        if name is not None and name not in participants:
            participants.append(name)

    for row in rows:
        row = plain(row)
        node = None if row.get("node") is None else str(row["node"])
        see(node)
        inp = row.get("input")
        outputs = row.get("outputs") or []
        step = Step(int(row.get("step", len(steps))), str(row.get("action") or ""), node)
        if _is_message(inp):
            step.arrows.append(Arrow(str(inp["src"]), str(inp["dst"]), message_label(inp), "deliver"))
            if not step.title or step.title == inp.get("type"):
                step.title = f"deliver {short(inp, 120)}"
        else:
            what = str(inp.get("type")) if isinstance(inp, dict) and "type" in inp else (step.title or "step")
            step.notes.append(what if not isinstance(inp, dict) or set(inp) <= {"type"} else
                              f"{what} {short({k: v for k, v in inp.items() if k != 'type'}, 80)[1:-1]}")
        failed = fail_at is not None and step.index == fail_at
        target_outputs = row.get("target_outputs")
        if failed and "target_outputs" in row and target_outputs != outputs:
            added, removed = _multiset_delta(outputs, target_outputs or [])
            for o in outputs:
                if o in removed:
                    _output(step, node, o, "missing")
                elif _is_message(o):
                    _output(step, node, o, "send")
            for o in added:
                _output(step, node, o, "extra")
        else:
            for o in outputs:
                _output(step, node, o, "send")
        obs = row.get("observation")
        if obs is not None and node is not None:
            prefix = display(node)
            step.changes = diff(last_obs.get(node, {}), obs, prefix)
            last_obs[node] = obs
        tobs = row.get("target_observation")
        if "target_observation" in row and tobs != obs:
            step.mismatch = diff(obs, tobs, "observation")
        step.failed = failed
        for a in step.arrows:
            see(a.src)
            see(a.dst)
        steps.append(step)
    if participants and all(p.isdigit() for p in participants):
        participants.sort(key=int)
    return Trace(str(path), fmt, protocol if isinstance(protocol, str) else None, title, meta,
                 participants or ["system"], steps)


def _output(step: Step, node: str | None, out: Any, style: str) -> None:
    if _is_message(out):
        step.arrows.append(Arrow(str(out["src"]), str(out["dst"]), message_label(out), style))  # type: ignore[arg-type]
    elif style == "missing":
        step.notes.append(f"model only: {short(out, 100)}")
    elif style == "extra":
        step.notes.append(f"target only: {short(out, 100)}")
    else:
        step.notes.append(short(out, 100))
