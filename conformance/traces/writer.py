"""Writing simulated traces to a directory: ITF state traces and JSON Lines event traces.

The formats are specified in ``spec/trace-format.md``. The first event of each trace (step 0)
carries the trace's ``protocol`` and ``config`` (the model bounds it was generated under), so
a reader can rebuild the initial node states without any other file.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from kspec.conformance.clikit import InputError
from kspec.conformance.traces.itf import itf_document
from kspec.model.catalog import get_protocol
from kspec.model.core.codec import encode
from kspec.model.core.explorer import SimulationResult
from kspec.model.core.protocol import HasEvents


def trace_id(protocol: str, seed: int, k: int, variant: str | None = None) -> str:
    """The id of the ``k``-th simulated trace; the variant is part of it so corpora generated
    from the reference and from variants with the same seed do not collide."""
    return f"{protocol}-{variant + '-' if variant else ''}{seed}-{k:05d}"


def write_traces(out: Path, model: Any, result: SimulationResult, variant: str | None = None) -> list[str]:
    """Write each trace of ``result`` as ``trace-NNNNN.itf.json``, and the node-level events of
    all traces as ``events.jsonl`` when the model can describe its actions as node events.

    For a variant, each ITF file's ``#meta.diverges_at`` is the step number of the first event
    where the variant's events differ from the reference model's from the same state (null when
    they never do): the planted divergence a validator must find.
    """
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot create output directory {out}: {err.strerror}") from None
    files: list[str] = []
    violated = {id(v.trace[-1]): v for v in result.violations}
    events_of = model.events_of if isinstance(model, HasEvents) else None
    reference: HasEvents | None = None
    if variant is not None and events_of is not None:
        made = get_protocol(result.protocol).make(**result.bounds)
        reference = made if isinstance(made, HasEvents) else None
    events_path = out / "events.jsonl"
    with events_path.open("w") as events:
        for k, trace in enumerate(result.traces):
            tid = trace_id(result.protocol, result.seed, k, variant)
            v = violated.get(id(trace[-1]))
            diverges_at: int | None = None
            if events_of is not None:
                step = 0
                for before, after in itertools.pairwise(trace):
                    evs = [encode_event(ev) for ev in events_of(before.state, after.action, after.state)]
                    if reference is not None and diverges_at is None:
                        # The reference's own successor (an event may read the state after it);
                        # the reference may call the action disabled (a raft reboot that loses
                        # nothing), yet its node-level events still say what the nodes do.
                        ref_after = made.next_state(before.state, after.action) or after.state
                        ref = [encode_event(ev) for ev in reference.events_of(before.state, after.action,
                                                                               ref_after)]
                        diverges_at = _first_difference(evs, ref, step)
                    for ev in evs:
                        record: dict[str, Any] = {"trace": tid, "step": step, **ev}
                        if step == 0:
                            record["protocol"] = result.protocol
                            record["config"] = result.bounds
                        events.write(json.dumps(record) + "\n")
                        step += 1
            meta = {"protocol": result.protocol, "seed": result.seed, "trace_id": tid, "variant": variant,
                    "bounds": result.bounds, "failed_property": v.property if v else None,
                    "diverges_at": diverges_at}
            doc = itf_document([s.state for s in trace], meta, [s.action for s in trace])
            path = out / f"trace-{k:05d}.itf.json"
            path.write_text(json.dumps(doc))
            files.append(str(path))
    if events_of is not None:
        files.append(str(events_path))
    else:
        events_path.unlink()
    return files


def _first_difference(events: list[dict[str, Any]], reference: list[dict[str, Any]], step: int) -> int | None:
    """The step number of the first event that differs from the reference model's, if any."""
    for i, (a, b) in enumerate(zip(events, reference, strict=False)):
        if _canonical(a) != _canonical(b):
            return step + i
    if len(events) != len(reference):
        return step + min(len(events), len(reference))
    return None


def _canonical(ev: dict[str, Any]) -> Any:
    """An event with its outputs as a multiset (their order is not part of the contract)."""
    outputs = sorted(json.dumps(o, sort_keys=True) for o in ev.get("outputs") or [])
    return json.dumps({**ev, "outputs": outputs}, sort_keys=True)


def encode_event(ev: dict[str, Any]) -> dict[str, Any]:
    """Encode the values of a node-level event dict (node, action, input, outputs, observation)."""
    return {k: encode(v) for k, v in ev.items()}
