"""Writing simulated traces to a directory: ITF state traces and JSON Lines event traces."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from kspec.conformance.clikit import InputError
from kspec.conformance.traces.itf import itf_document
from kspec.model.core.codec import encode
from kspec.model.core.explorer import SimulationResult


def write_traces(out: Path, model: Any, result: SimulationResult, variant: str | None = None) -> list[str]:
    """Write each trace of ``result`` as ``trace-NNNNN.itf.json``, and the node-level events of
    all traces as ``events.jsonl`` when the model can describe its actions as node events."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot create output directory {out}: {err.strerror}") from None
    files: list[str] = []
    violated = {id(v.trace[-1]) : v for v in result.violations}
    events_of = getattr(model, "events_of", None)
    events_path = out / "events.jsonl"
    with events_path.open("w") as events:
        for k, trace in enumerate(result.traces):
            tid = f"{result.protocol}-{result.seed}-{k:05d}"
            v = violated.get(id(trace[-1]))
            meta = {"protocol": result.protocol, "seed": result.seed, "trace_id": tid, "variant": variant,
                    "bounds": result.bounds, "failed_property": v.property if v else None}
            doc = itf_document([s.state for s in trace], meta, [s.action for s in trace])
            path = out / f"trace-{k:05d}.itf.json"
            path.write_text(json.dumps(doc))
            files.append(str(path))
            if events_of is not None:
                step = 0
                for before, after in itertools.pairwise(trace):
                    for ev in events_of(before.state, after.action, after.state):
                        events.write(json.dumps({"trace": tid, "step": step, **encode_event(ev)}) + "\n")
                        step += 1
    if events_of is not None:
        files.append(str(events_path))
    else:
        events_path.unlink()
    return files


def encode_event(ev: dict[str, Any]) -> dict[str, Any]:
    """Encode the values of a node-level event dict (node, action, input, outputs, observation)."""
    return {k: encode(v) for k, v in ev.items()}
