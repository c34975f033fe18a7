"""Counterexample files: ITF JSON with kspec's ``#meta``, one state per lockstep step.

``#meta`` holds ``protocol``, ``target``, ``seed``, ``verdict`` (``diverges`` or ``error``),
``config`` (the cluster configuration the run started from), ``divergence`` (``kind``:
outputs, observation, property or error; ``step``; ``field``: what differed, e.g.
``observation.high_watermark`` or a property ID; ``detail``), ``property`` (the property ID
when the divergence is a property) and ``steps``. Each state has the variables ``step``,
``action`` (a one-line description), ``node``, ``input`` (the node-level input, JSON, or
null for a model-only step such as a dropped message), ``model_outputs``, ``target_outputs``,
``model_observation`` and ``target_observation``; a file with a step where the protocol allows
other answers (RAFT-RULE-VOTE-REASKED) has one more variable, ``model_alternatives`` (a list of
output lists, empty at the other steps). JSON null is written as ITF's empty tuple
``{"#tup": []}`` (ITF has no null); nothing else in these files is a tuple, so it reads back
unambiguously.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from kspec.conformance.clikit import InputError, parse_json_input, read_input_text, safe_name
from kspec.conformance.harness import StepRecord
from kspec.conformance.traces.itf import ItfValueError, decode_value

VARS = ["step", "action", "node", "input", "model_outputs", "target_outputs", "model_observation",
        "target_observation"]
KIND = "kspec-counterexample"


class CounterexampleError(ValueError):
    """A file that is not a readable kspec counterexample."""


def json_to_itf(value: Any) -> Any:
    if value is None:
        return {"#tup": []}
    if isinstance(value, dict):
        return {str(k): json_to_itf(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_to_itf(v) for v in value]
    return value


def itf_to_json(value: Any, where: str = "$") -> Any:
    """An ITF value of a counterexample as JSON; CounterexampleError naming the place when malformed."""
    try:
        return decode_value(value, where)
    except ItfValueError as err:
        raise CounterexampleError(str(err)) from None


# Bounds on what a counterexample from elsewhere may ask for (docs/threat-model.md): a
# configuration is a few small scalars (cluster sizes, flags, names), a run a few hundred steps.
MAX_CONFIG_INT = 16
MAX_CONFIG_KEYS = 32
# a model variant names every accepted deviation of a release joined by "+" (voters 4.1.x: seven
# names, about 250 characters), so a config string may be a few of those long
MAX_CONFIG_STR = 2000
MAX_STEPS = 100_000
NAME_HASH_CHARS = 10


def default_path(out_dir: Path, protocol: str, target: str, seed: int, meta: dict[str, Any] | None = None,
                 steps: list[StepRecord] | None = None) -> Path:
    """Where a counterexample goes in ``out_dir``: protocol, target, seed and a short hash of the
    target's full name and the file's content, each name piece sanitised (no path separators, no
    ``..``, bounded length), so every counterexample lands inside ``out_dir`` and two different
    ones never overwrite each other."""
    digest = hashlib.sha256(json.dumps(
        {"protocol": protocol, "target": target, "seed": seed, "meta": meta,
         "steps": [s.to_json() for s in steps or []]}, sort_keys=True, default=str).encode()).hexdigest()
    name = (f"{safe_name(protocol, 20)}-{safe_name(target, 60)}-seed{safe_name(str(seed), 24)}"
            f"-{digest[:NAME_HASH_CHARS]}.itf.json")
    return out_dir / name


def write_counterexample(path: Path, meta: dict[str, Any], steps: list[StepRecord]) -> Path:
    """Write the steps and ``meta`` as an ITF document; returns the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    states = []
    alternatives = any(rec.model_alternatives for rec in steps)
    for i, rec in enumerate(steps):
        row = json_to_itf(rec.to_json())
        if alternatives:  # ITF: every state has every variable
            row.setdefault("model_alternatives", [])
        row["#meta"] = {"index": i}
        states.append(row)
    doc = {"#meta": {"format": "ITF", "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
                     "source": "kspec", "kind": KIND, **json_to_itf(meta)},
           "vars": [*VARS, "model_alternatives"] if alternatives else VARS, "states": states}
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1))
    tmp.replace(path)
    return path


def read_counterexample(path: Path) -> tuple[dict[str, Any], list[StepRecord]]:
    """The ``#meta`` (as JSON) and the steps of a counterexample file, checked: a file from
    elsewhere gives a CounterexampleError naming the file and the place, never more work
    than its size."""
    try:
        doc = parse_json_input(read_input_text(path), str(path))
    except InputError as err:
        raise CounterexampleError(str(err)) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("#meta"), dict) or doc["#meta"].get("kind") != KIND:
        raise CounterexampleError(f"{path}: not a kspec counterexample (#meta.kind is not {KIND!r})")
    meta = itf_to_json(doc["#meta"], f"{path}: #meta")
    if not isinstance(meta, dict):
        raise CounterexampleError(f"{path}: #meta is an ITF value, not an object")
    for key in ("protocol", "target", "config"):
        if key not in meta:
            raise CounterexampleError(f"{path}: #meta lacks {key!r}")
    for key in ("protocol", "target"):
        if not isinstance(meta[key], str) or not meta[key]:
            raise CounterexampleError(f"{path}: #meta.{key} is not a name")
    check_config(meta["config"], f"{path}: #meta.config")
    rows = doc.get("states")
    if rows is None:
        rows = []
    if not isinstance(rows, list):
        raise CounterexampleError(f"{path}: states is not a list")
    if len(rows) > MAX_STEPS:
        raise CounterexampleError(f"{path}: {len(rows)} states, more than the {MAX_STEPS} kspec replays")
    steps = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise CounterexampleError(f"{path}: states[{i}] is not an object")
        rec = itf_to_json({k: v for k, v in row.items() if k != "#meta"}, f"{path}: states[{i}]")
        if not isinstance(rec, dict):
            raise CounterexampleError(f"{path}: states[{i}] is an ITF value, not a step (an object of variables)")
        if not isinstance(rec.get("step"), int) or isinstance(rec.get("step"), bool):
            raise CounterexampleError(f"{path}: states[{i}].step is not an integer")
        if not isinstance(rec.get("action", ""), str):
            raise CounterexampleError(f"{path}: states[{i}].action is not a string")
        node = rec.get("node")
        if node is not None and (isinstance(node, bool) or not isinstance(node, int | str)):
            raise CounterexampleError(f"{path}: states[{i}].node is not a node id (a number or a name)")
        if rec.get("input") is not None and not isinstance(rec["input"], dict):
            raise CounterexampleError(f"{path}: states[{i}].input is not an object")
        for key in ("model_outputs", "target_outputs"):
            outs = rec.get(key)
            if outs is not None and (not isinstance(outs, list) or not all(
                    isinstance(o, dict) and isinstance(o.get("type"), str) for o in outs)):
                raise CounterexampleError(f"{path}: states[{i}].{key} is not a list of outputs with a 'type'")
        others = rec.get("model_alternatives")
        if others is not None and (not isinstance(others, list) or not all(
                isinstance(outs, list) and all(isinstance(o, dict) and isinstance(o.get("type"), str) for o in outs)
                for outs in others)):
            raise CounterexampleError(f"{path}: states[{i}].model_alternatives is not a list of output lists")
        for key in ("model_observation", "target_observation"):
            if rec.get(key) is not None and not isinstance(rec[key], dict):
                raise CounterexampleError(f"{path}: states[{i}].{key} is not an object")
        steps.append(StepRecord.from_json(rec))
    return meta, steps


def check_config(config: Any, where: str) -> None:
    """A recorded configuration: an object of at most ``MAX_CONFIG_KEYS`` scalars, integers within
    [-1, MAX_CONFIG_INT], strings of at most ``MAX_CONFIG_STR`` characters; a number read from a
    file never sizes a cluster beyond what kspec itself records."""
    if not isinstance(config, dict):
        raise CounterexampleError(f"{where} is not an object")
    if len(config) > MAX_CONFIG_KEYS:
        raise CounterexampleError(f"{where}: {len(config)} keys, more than {MAX_CONFIG_KEYS}")
    for key, value in config.items():
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int):
            if not -1 <= value <= MAX_CONFIG_INT:
                raise CounterexampleError(f"{where}.{key}: {value} is out of range (-1..{MAX_CONFIG_INT})")
        elif isinstance(value, str):
            if len(value) > MAX_CONFIG_STR:
                raise CounterexampleError(f"{where}.{key}: a string longer than {MAX_CONFIG_STR} characters")
        else:
            raise CounterexampleError(f"{where}.{key}: not a number, string or boolean")
