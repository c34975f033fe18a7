"""Counterexample files: ITF JSON with kspec's ``#meta``, one state per lockstep step.

``#meta`` holds ``protocol``, ``target``, ``seed``, ``verdict`` (``diverges`` or ``error``),
``config`` (the cluster configuration the run started from), ``divergence`` (``kind``:
outputs, observation, property or error; ``step``; ``field``: what differed, e.g.
``observation.high_watermark`` or a property ID; ``detail``), ``property`` (the property ID
when the divergence is a property) and ``steps``. Each state has the variables ``step``,
``action`` (a one-line description), ``node``, ``input`` (the node-level input, JSON, or
null for a model-only step such as a dropped message), ``model_outputs``, ``target_outputs``,
``model_observation`` and ``target_observation``. JSON null is written as ITF's empty tuple
``{"#tup": []}`` (ITF has no null); nothing else in these files is a tuple, so it reads back
unambiguously.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from kspec.conformance.harness import StepRecord

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


def itf_to_json(value: Any) -> Any:
    if isinstance(value, dict):
        if value == {"#tup": []}:
            return None
        if "#bigint" in value:
            return int(value["#bigint"])
        return {k: itf_to_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [itf_to_json(v) for v in value]
    return value


def default_path(out_dir: Path, protocol: str, target: str, seed: int) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", target).strip("_")[:60] or "target"
    return out_dir / f"{protocol}-{safe}-seed{seed}.itf.json"


def write_counterexample(path: Path, meta: dict[str, Any], steps: list[StepRecord]) -> Path:
    """Write the steps and ``meta`` as an ITF document; returns the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    states = []
    for i, rec in enumerate(steps):
        row = json_to_itf(rec.to_json())
        row["#meta"] = {"index": i}
        states.append(row)
    doc = {"#meta": {"format": "ITF", "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
                     "source": "kspec", "kind": KIND, **json_to_itf(meta)},
           "vars": VARS, "states": states}
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1))
    tmp.replace(path)
    return path


def read_counterexample(path: Path) -> tuple[dict[str, Any], list[StepRecord]]:
    """The ``#meta`` (as JSON) and the steps of a counterexample file."""
    try:
        doc = json.loads(Path(path).read_text())
    except OSError as err:
        raise CounterexampleError(f"{path}: cannot read ({err.strerror})") from None
    except json.JSONDecodeError as err:
        raise CounterexampleError(f"{path}: not JSON (line {err.lineno}, column {err.colno}: {err.msg})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("#meta"), dict) or doc["#meta"].get("kind") != KIND:
        raise CounterexampleError(f"{path}: not a kspec counterexample (#meta.kind is not {KIND!r})")
    meta = itf_to_json(doc["#meta"])
    for key in ("protocol", "target", "config"):
        if key not in meta:
            raise CounterexampleError(f"{path}: #meta lacks {key!r}")
    steps = []
    for i, row in enumerate(doc.get("states") or []):
        if not isinstance(row, dict):
            raise CounterexampleError(f"{path}: states[{i}] is not an object")
        rec = itf_to_json({k: v for k, v in row.items() if k != "#meta"})
        try:
            steps.append(StepRecord.from_json(rec))
        except (KeyError, TypeError) as err:
            raise CounterexampleError(f"{path}: states[{i}] lacks {err}") from None
    return meta, steps
