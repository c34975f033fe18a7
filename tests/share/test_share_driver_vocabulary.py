"""Every input kind of the share driver's vocabulary (docs/adapter-guide.md, share) occurs in a
default run (`kspec conform share`, seed 0, the default budget) against the reference target.

(A write to a partition the image lacks is UNKNOWN_TOPIC_OR_PARTITION only on 4.0: from 4.1 it is
refused as uninitialized first, and initialize refuses such a partition, so a default (4.4) run
answers it INVALID_REQUEST.)"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import JSON, StepResult, Target
from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets.reference.share import ShareTarget


class Recording(Target):
    """The reference share target, noting the kind of every input it is given."""

    protocol = "share"

    def __init__(self) -> None:
        self.inner = ShareTarget()
        self.kinds: set[str] = set()
        # It answers FindCoordinator as the reference does (the routing probes are opt-in).
        self.model_config: dict[str, JSON] = {"routing": True}

    def start(self, node: int, config: dict[str, JSON]) -> Any:
        inst = self.inner.start(node, config)
        kinds, last_obs, deleted, gone = self.kinds, [{}], set(), set()

        class Instance:
            def step(self, inp: JSON) -> StepResult:
                assert isinstance(inp, dict)
                key = (f"{inp.get('group_id')}:{inp.get('topic_id')}:{inp.get('partition')}" if "group_id" in inp
                       else "g:T:0")  # Unload / Load: the key's state
                before = last_obs[0].get("partitions", {}).get(key) if last_obs[0] else None
                kinds.update(kinds_of(inp, before))
                if key in deleted and inp.get("type") != "DeleteRequest":
                    kinds.add(f"{inp.get('type')} after a delete")
                if inp.get("type") == "MetadataUpdate":
                    gone.update({"U"} - {t for t, _ in inp["image"]})
                if inp.get("topic_id") in gone and isinstance(before, dict) and before.get("offset") is not None:
                    kinds.add(f"{inp.get('type')} for a deleted topic's stored key")
                if inp.get("type") == "Load" and any(r.get("type") == "ShareTombstone" for r in inp["records"]):
                    kinds.add("Load of a log holding a tombstone")
                result: StepResult = inst.step(inp)
                last_obs[0] = result.observation
                kinds.update(f"answer {o.get('type')} {o.get('error')}" for o in result.outputs
                             if isinstance(o, dict) and "error" in o)
                kinds.update(f"record {o.get('type')}" for o in result.outputs
                             if isinstance(o, dict) and "key" in o)
                if any(isinstance(o, dict) and o.get("type") == "ShareTombstone" for o in result.outputs):
                    deleted.add(key)
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
    state_fence = stored.get("state_epoch_fence") if isinstance(stored, dict) else None
    if kind in ("InitializeRequest", "DeleteRequest", "ReadSummaryRequest"):
        out.add(f"{kind} on a " + ("new" if offset is None else "stored") + " key")
    if kind in ("WriteRequest", "ReadRequest") and "leader_epoch" in inp:
        e = int(inp["leader_epoch"])
        if e == -1:
            out.add(f"{kind} leader epoch -1")
        elif e == 2**31 - 1:
            out.add(f"{kind} leader epoch Integer.MAX_VALUE")
        elif isinstance(fence, int):
            out.add(f"{kind} leader epoch " + ("below" if e < fence else "at" if e == fence else "above")
                    + " the fence")
    if kind in ("WriteRequest", "InitializeRequest") and "state_epoch" in inp:
        e = int(inp["state_epoch"])
        if e == -1:
            out.add(f"{kind} state epoch -1")
        elif isinstance(state_fence, int):
            out.add(f"{kind} state epoch " + ("below" if e < state_fence else "at" if e == state_fence else "above")
                    + " the fence")
    group, partition = inp.get("group_id"), inp.get("partition")
    if kind.endswith("Request"):
        out.add(f"{kind} for " + ("partition -1" if partition == -1 else "a partition not in the image"
                                  if partition == 2 else "another topic" if inp.get("topic_id") == "U"
                                  else "another group" if group != "g"
                                  else "another partition" if partition == 1 else "the key"))
    if kind == "WriteRequest" and int(inp.get("start_offset", -1)) != -1:
        out.add("WriteRequest moving the start offset")
        if isinstance(offset, dict) and int(inp["start_offset"]) < int(offset["start_offset"]):
            out.add("WriteRequest with a start offset below the stored one")
    if kind == "FindCoordinatorRequest" and ":" in str(group):
        out.add("FindCoordinatorRequest for a group id holding ':'")  # SHARE-DRIVE-ROUTING
    if kind == "Load" and offset is not None:
        out.add("Load of a key with state")
    if kind == "Load" and inp.get("log_start_offset"):
        out.add("Load of a log pruned below the redundant offset")  # SHARE-DRIVE-PRUNE-RELOAD
    if kind == "WriteRequest" and isinstance(offset, dict) and not inp.get("state_batches") and any(
            b[0] < int(inp.get("start_offset", -1)) <= b[1] for b in offset.get("state_batches", [])):
        out.add("WriteRequest whose start offset cuts a stored batch")  # SHARE-DRIVE-CUT-BATCH
    return out


REQUESTS = ("WriteRequest", "ReadRequest", "InitializeRequest", "DeleteRequest", "ReadSummaryRequest")
VOCABULARY = {
    "WriteRequest", "ReadRequest", "InitializeRequest", "Unload", "Load", "DeleteRequest", "ReadSummaryRequest",
    "InitializeRequest on a new key", "InitializeRequest on a stored key",
    "DeleteRequest on a new key", "DeleteRequest on a stored key",
    "ReadSummaryRequest on a new key", "ReadSummaryRequest on a stored key",
    "WriteRequest state epoch -1", "WriteRequest state epoch below the fence", "WriteRequest state epoch at the fence",
    "WriteRequest state epoch above the fence", "WriteRequest leader epoch -1",
    "InitializeRequest state epoch below the fence", "InitializeRequest state epoch at the fence",
    "InitializeRequest state epoch above the fence",
    "ReadRequest leader epoch below the fence", "WriteRequest with a start offset below the stored one",
    *(f"{r} for {where}" for r in REQUESTS for where in ("the key", "another partition", "another group",
                                                          "partition -1")),
    "WriteRequest for a partition not in the image", "InitializeRequest for a partition not in the image",
    *(f"{r} after a delete" for r in REQUESTS if r != "DeleteRequest"),
    "Load of a log holding a tombstone", "record ShareTombstone",
    "answer DeleteResponse NONE", "answer ReadSummaryResponse NONE", "answer InitializeResponse FENCED_STATE_EPOCH",
    "answer InitializeResponse UNKNOWN_TOPIC_OR_PARTITION", "answer DeleteResponse INVALID_REQUEST",
    "answer ReadSummaryResponse INVALID_REQUEST", "answer ReadSummaryResponse UNKNOWN_TOPIC_OR_PARTITION",
    "answer DeleteResponse COORDINATOR_NOT_AVAILABLE", "answer ReadSummaryResponse COORDINATOR_NOT_AVAILABLE",
    "WriteRequest leader epoch below the fence", "WriteRequest leader epoch at the fence",
    "WriteRequest leader epoch above the fence", "WriteRequest moving the start offset",
    "ReadRequest leader epoch -1", "ReadRequest leader epoch at the fence", "ReadRequest leader epoch above the fence",
    "Load of a key with state", "ReadRequest leader epoch Integer.MAX_VALUE",
    "WriteRequest leader epoch Integer.MAX_VALUE",
    "MetadataUpdate", "ReadRequest for a deleted topic's stored key", "WriteRequest for a deleted topic's stored key",
    "answer ReadResponse UNKNOWN_TOPIC_OR_PARTITION", "answer WriteResponse UNKNOWN_TOPIC_OR_PARTITION",
    *(f"{r} for another topic" for r in REQUESTS),
    "record ShareSnapshot", "record ShareUpdate",
    "answer WriteResponse NONE", "answer WriteResponse FENCED_LEADER_EPOCH", "answer WriteResponse FENCED_STATE_EPOCH",
    "answer WriteResponse INVALID_REQUEST", "answer ReadResponse COORDINATOR_NOT_AVAILABLE",
    "answer ReadResponse INVALID_REQUEST", "answer InitializeResponse NONE",
    "Load of a log pruned below the redundant offset",
    "FindCoordinatorRequest for a group id holding ':'", "answer FindCoordinatorResponse NONE",
    "WriteRequest whose start offset cuts a stored batch",  # the composite CutReload, SHARE-DRIVE-CUT-BATCH
}


def test_every_input_kind_occurs_in_a_default_run() -> None:
    target = Recording()
    result = run_conformance("share", target, seed_value=0, out_dir=None)
    assert result.verdict == "conforms", result.finding and result.finding.line()
    missing = VOCABULARY - target.kinds
    assert not missing, sorted(missing)


def test_reload_without_topic_is_one_guided_step() -> None:
    """The composite step ReloadWithoutTopic (SHARE-WIT-IMAGE-FAILOVER) is offered from the start
    in the category of its first part, sends each part as its own input, and ends with the
    doomed key's read refused by the reloaded shard; with the doomed key stored already it is an
    ``image`` step without the initialize."""
    from kspec.conformance.drivers.share import ReloadWithoutTopic, ShareDriver
    from kspec.model.share.shard import UNKNOWN_TOPIC_OR_PARTITION
    from kspec.model.share.system import DOOMED

    for version, first, first_input in (("4.4", "initialize", "InitializeRequest"), ("4.0", "keys", "WriteRequest")):
        d = ShareDriver({"snapshot_every": 1, "kafka_version": version})
        s = d.init_state()
        [(category, action)] = [(c, a) for c, a in d.candidates(s) if isinstance(a, ReloadWithoutTopic)]
        assert category == first
        after = d.resolve(s, action)
        assert after is not None and after.image_failover == 2 and after.last_error == UNKNOWN_TOPIC_OR_PARTITION
        events = d.events(s, action, after)
        assert [e.input["type"] for e in events] == [first_input, "Unload", "MetadataUpdate", "Load", "ReadRequest"]
        assert d.model_violation(s, action, after) is None
        assert [p.id for p in d.witnesses() if p.holds(after)] == ["SHARE-WIT-IMAGE-FAILOVER"]
    stored = d.resolve(s, next(a for _, a in d.candidates_single(s) if getattr(a, "key", None) == DOOMED))
    assert stored is not None
    assert ("image", ReloadWithoutTopic()) in d.candidates(stored)



def test_cut_reload_is_one_guided_step_whose_cut_an_update_carries() -> None:
    """The composite step CutReload (SHARE-DRIVE-CUT-BATCH) is offered from the start at every
    snapshot limit: it stores a multi-offset batch, writes a start offset inside it with no
    batches, and fails over. Where a ShareUpdate can carry the cut (limits 1 and 2: at 1 an
    empty write goes first, else the cut would be the limit snapshot) it reaches
    SHARE-WIT-UPDATE-CUTS-BATCH; at limit 0 every write is a snapshot and the cut is one."""
    from kspec.conformance.drivers.share import CutReload, ShareDriver

    for limit, shape in ((1, ["InitializeRequest", "ReadRequest", "WriteRequest", "WriteRequest", "WriteRequest"]),
                         (2, ["InitializeRequest", "ReadRequest", "WriteRequest", "WriteRequest"]),
                         (0, ["InitializeRequest", "ReadRequest", "WriteRequest", "WriteRequest"])):
        d = ShareDriver({"snapshot_every": limit})
        s = d.init_state()
        assert ("initialize", CutReload()) in d.candidates(s)
        after = d.resolve(s, CutReload())
        assert after is not None and d.model_violation(s, CutReload(), after) is None
        events = d.events(s, CutReload(), after)
        assert [e.input["type"] for e in events] == [*shape, "Unload", "Load"], limit
        cut, before = events[len(shape) - 1], events[len(shape) - 2].model_observation
        stored = before["partitions"]["g:T:0"]
        assert "WriteRequest whose start offset cuts a stored batch" in kinds_of(cut.input, stored)
        reached = "SHARE-WIT-UPDATE-CUTS-BATCH" in [p.id for p in d.witnesses() if p.holds(after)]
        assert reached == (limit > 0), limit
        # With a batch stored already the composite is the cut and the fail-over alone.
        stored_state = d._parts_of(s, CutReload())[len(shape) - 2][1]  # type: ignore[index]
        assert ("batches", CutReload()) in d.candidates(stored_state)


def test_delete_then_read_is_one_guided_step() -> None:
    """The composite step DeleteThenRead (SHARE-WIT-DELETED-REFUSED) initializes, deletes and
    reads the key, and ends with the read refused; a 4.0 driver (no delete) never offers it."""
    from kspec.conformance.drivers.share import DeleteThenRead, ShareDriver

    d = ShareDriver({"snapshot_every": 1})
    s = d.init_state()
    assert ("delete", DeleteThenRead()) in d.candidates(s)
    after = d.resolve(s, DeleteThenRead())
    assert after is not None
    events = d.events(s, DeleteThenRead(), after)
    assert [e.input["type"] for e in events] == ["InitializeRequest", "DeleteRequest", "ReadRequest"]
    assert events[-1].model_outputs[-1]["error"] == "INVALID_REQUEST"
    assert "SHARE-WIT-DELETED-REFUSED" in [p.id for p in d.witnesses() if p.holds(after)]
    assert not any(isinstance(a, DeleteThenRead) for _, a in ShareDriver({"kafka_version": "4.0"}).candidates(s))
