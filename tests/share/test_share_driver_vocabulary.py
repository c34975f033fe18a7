"""Every input kind of the share driver's vocabulary (docs/adapter-guide.md, share) occurs in a
default run (`kspec conform share`, seed 0, the default budget) against the reference target."""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import JSON, StepResult, Target
from kspec.conformance.machines.runner import run_conformance
from kspec.conformance.targets.reference.share import ShareTarget


class Recording(Target):
    """The reference share target, noting the kind of every input it is given."""

    protocol = "share"

    def __init__(self) -> None:
        self.inner = ShareTarget()
        self.kinds: set[str] = set()

    def start(self, node: int, config: dict[str, JSON]) -> Any:
        inst = self.inner.start(node, config)
        kinds, last_obs = self.kinds, [{}]

        class Instance:
            def step(self, inp: JSON) -> StepResult:
                assert isinstance(inp, dict)
                before = last_obs[0].get("partitions", {}).get("g:T:0") if last_obs[0] else None
                kinds.update(kinds_of(inp, before))
                result: StepResult = inst.step(inp)
                last_obs[0] = result.observation
                kinds.update(f"answer {o.get('type')} {o.get('error')}" for o in result.outputs
                             if isinstance(o, dict) and "error" in o)
                kinds.update(f"record {o.get('type')}" for o in result.outputs
                             if isinstance(o, dict) and "key" in o)
                return result

            def close(self) -> None:
                inst.close()
        return Instance()

    def close(self) -> None:
        self.inner.close()


def kinds_of(inp: dict[str, Any], stored: Any) -> set[str]:
    """The vocabulary entries ``inp`` is an instance of (``stored``: the key's observed state)."""
    kind = str(inp.get("type"))
    out = {kind}
    offset = stored.get("offset") if isinstance(stored, dict) else None
    fence = stored.get("leader_epoch_fence") if isinstance(stored, dict) else None
    if kind == "InitializeRequest":
        out.add("InitializeRequest on a " + ("new" if offset is None else "stored") + " key")
    if kind in ("WriteRequest", "ReadRequest") and "leader_epoch" in inp:
        e = int(inp["leader_epoch"])
        if e == -1:
            out.add(f"{kind} leader epoch -1")
        elif isinstance(fence, int):
            out.add(f"{kind} leader epoch " + ("below" if e < fence else "at" if e == fence else "above")
                    + " the fence")
    if kind == "WriteRequest" and int(inp.get("start_offset", -1)) != -1:
        out.add("WriteRequest moving the start offset")
    if kind == "Load" and offset is not None:
        out.add("Load of a key with state")
    return out


VOCABULARY = {
    "WriteRequest", "ReadRequest", "InitializeRequest", "Unload", "Load",
    "InitializeRequest on a new key", "InitializeRequest on a stored key",
    "WriteRequest leader epoch below the fence", "WriteRequest leader epoch at the fence",
    "WriteRequest leader epoch above the fence", "WriteRequest moving the start offset",
    "ReadRequest leader epoch -1", "ReadRequest leader epoch at the fence", "ReadRequest leader epoch above the fence",
    "Load of a key with state",
    "record ShareSnapshot", "record ShareUpdate",
    "answer WriteResponse NONE", "answer WriteResponse FENCED_LEADER_EPOCH", "answer WriteResponse FENCED_STATE_EPOCH",
    "answer WriteResponse INVALID_REQUEST", "answer ReadResponse COORDINATOR_NOT_AVAILABLE",
    "answer ReadResponse INVALID_REQUEST", "answer InitializeResponse NONE",
}


def test_every_input_kind_occurs_in_a_default_run() -> None:
    target = Recording()
    result = run_conformance("share", target, seed_value=0, out_dir=None)
    assert result.verdict == "conforms", result.finding and result.finding.line()
    missing = VOCABULARY - target.kinds
    assert not missing, sorted(missing)
