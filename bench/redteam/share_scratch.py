"""A KIP-932 share-group state coordinator shard written from scratch as a ``python:`` target,
with planted bugs.

Written from spec/share.md, spec/adapter-protocol.md (share) and docs/adapter-guide.md only (and
the field names of the request, response and record classes, which the adapter protocol's
"Encodings" defers to): no kspec model code, no reference shard, the driver unread (session 8).
One class, :class:`Shard`, holds the whole shard; each planted bug is a name in ``Shard.bugs``
switched on by a subclass, so a bug is one ``if`` at the place a real implementer slips. The
switches of session 9's ``share_scratch2`` (which imports this shard) live here too; KIP-1226's
delivery-complete count (4.2+) was added in session 10.

    PYTHONPATH=bench kspec conform share --target python:redteam.share_scratch:Correct

Dropped as equivalent at the default settings: ``unset-state-epoch-fenced`` (a write's state
epoch -1 compared with the fence like any value, a 4.1-4.3 slip): a target not naming a release
is held to 4.4, which refuses every negative epoch first, so nothing can tell it apart; with
``--set kafka_version=4.3`` it is caught at the first run (``Shard.bugs`` keeps the switch).
"""

from __future__ import annotations

import itertools
from typing import Any

from kspec.conformance.adapters.base import StepResult, Target, TargetError
from redteam._targets import switched

NONE = "NONE"
INVALID = "INVALID_REQUEST"
FENCED_LEADER = "FENCED_LEADER_EPOCH"
FENCED_STATE = "FENCED_STATE_EPOCH"
UNKNOWN = "UNKNOWN_TOPIC_OR_PARTITION"
NOT_AVAILABLE = "COORDINATOR_NOT_AVAILABLE"
UNSUPPORTED = "UNSUPPORTED_VERSION"

Key = tuple[str, str, int]
Batch = tuple[int, int, int, int]  # first, last, delivery state, delivery count


def combine(start: int, *lists: list[Batch], bugs: frozenset[str] = frozenset()) -> list[Batch]:
    """PersisterStateBatchCombiner as spec/share.md states it: prune below ``start`` (unless -1),
    clip, the highest (count, state) per offset, maximal runs. Interval arithmetic, so a range up
    to Long.MAX_VALUE costs nothing. ``bugs`` names the slips of the red-team shards built on it
    ("touching-apart": equal neighbours merge only where an input batch spans their boundary)."""
    batches = [b for lst in lists for b in lst]
    if start != -1:
        if "prune-inclusive" in bugs:  # off by one: a batch ending at the start offset dropped
            batches = [(max(f, start), last, s, c) for f, last, s, c in batches if last > start]
        elif "prune-by-first-offset" in bugs:  # a batch the start offset cuts dropped whole
            batches = [(f, last, s, c) for f, last, s, c in batches if f >= start]
        else:
            batches = [(max(f, start), last, s, c) for f, last, s, c in batches if last >= start]
    cuts = sorted({f for f, _, _, _ in batches} | {last + 1 for _, last, _, _ in batches})
    out: list[Batch] = []
    for lo, hi in itertools.pairwise(cuts):
        cover = [(c, s) for f, last, s, c in batches if f <= lo and hi - 1 <= last]
        if not cover:
            continue
        if "priority-state-first" in bugs:  # (state, count) compared, not (count, state)
            s, c = max((s_, c_) for c_, s_ in cover)
        else:
            c, s = max(cover)
        same = out and out[-1][1] == lo - 1 and out[-1][2] == s
        if same and ("merge-ignores-count" in bugs or out[-1][3] == c) and (
                "touching-apart" not in bugs or any(f <= lo - 1 and lo <= last for f, last, _, _ in batches)):
            out[-1] = (out[-1][0], hi - 1, s, c)
        else:
            out.append((lo, hi - 1, s, c))
    return out


class Offset:
    """The stored ShareGroupOffset of one key."""

    def __init__(self, snapshot_epoch: int, state_epoch: int, leader_epoch: int, start_offset: int,
                 batches: list[Batch]) -> None:
        self.snapshot_epoch = snapshot_epoch
        self.state_epoch = state_epoch
        self.leader_epoch = leader_epoch
        self.start_offset = start_offset
        self.batches = batches
        self.dcc = -1  # KIP-1226's delivery-complete count (4.2+), -1 unknown

    def observe(self) -> dict[str, Any]:
        return {"snapshot_epoch": self.snapshot_epoch, "state_epoch": self.state_epoch,
                "leader_epoch": self.leader_epoch, "start_offset": self.start_offset,
                "state_batches": [list(b) for b in self.batches], "delivery_complete_count": self.dcc}


def _key_json(k: Key) -> dict[str, Any]:
    return {"type": "SharePartitionKey", "group_id": k[0], "topic_id": k[1], "partition": k[2]}


def _batches_json(bs: list[Batch]) -> list[dict[str, Any]]:
    return [{"type": "StateBatch", "first_offset": f, "last_offset": last, "delivery_state": s,
             "delivery_count": c} for f, last, s, c in bs]


def _batches_in(raw: list[dict[str, Any]]) -> list[Batch]:
    return [(b["first_offset"], b["last_offset"], b["delivery_state"], b["delivery_count"]) for b in raw]


class Shard:
    """One coordinator shard: the four maps, the image, its own log (what it replays at Load)."""

    bugs: frozenset[str] = frozenset()

    def __init__(self, limit: int, image: set[tuple[str, int]] | None, minor: int) -> None:
        self.limit = limit
        self.image = image
        self.minor = minor  # 0 (4.0), 1-3, 4 (4.4+): the rule set
        self.active = True
        self.offsets: dict[Key, Offset] = {}
        self.leader_fence: dict[Key, int] = {}
        self.state_fence: dict[Key, int] = {}
        self.count: dict[Key, int] = {}
        self.log: list[dict[str, Any]] = []
        self.loading = False  # replaying the log at Load (not a handler's own records)

    def bug(self, name: str) -> bool:
        return name in self.bugs

    # ---- replay (SHARE-RULE-REPLAY-*) ----

    def replay(self, rec: dict[str, Any]) -> None:
        k = rec["key"]
        key = (k["group_id"], k["topic_id"], k["partition"])
        if rec["type"] == "ShareTombstone":
            if self.bug("replay-ignores-tombstone"):
                return
            maps = [self.offsets, self.leader_fence, self.state_fence, self.count]
            if self.bug("delete-keeps-update-count"):
                maps.pop()
            for m in maps:
                m.pop(key, None)  # type: ignore[attr-defined]
            return
        batches = _batches_in(rec["state_batches"])
        le = rec["leader_epoch"]
        if rec["type"] == "ShareSnapshot":
            cur = self.offsets.get(key)
            if cur is not None and self.bug("initialize-keeps-batches") and rec["leader_epoch"] == 0 and not batches:
                batches = combine(rec["start_offset"], cur.batches)
            self.offsets[key] = Offset(rec["snapshot_epoch"], rec["state_epoch"], le, rec["start_offset"], batches)
            self.offsets[key].dcc = rec.get("delivery_complete_count", -1)
            if self.bug("replay-snapshot-sets-leader-fence"):  # the record's, not the maximum
                self.leader_fence[key] = le
            else:
                self.leader_fence[key] = max(self.leader_fence.get(key, le), le)
            self.state_fence[key] = max(self.state_fence.get(key, rec["state_epoch"]), rec["state_epoch"])
            if key in self.count and (self.count[key] >= self.limit or self.bug("count-reset-on-every-snapshot")):
                self.count[key] = 0
            return
        cur = self.offsets[key]
        start = cur.start_offset if rec["start_offset"] == -1 else rec["start_offset"]
        if le != -1:
            cur.leader_epoch = le
            self.leader_fence[key] = max(self.leader_fence.get(key, le), le)
        cur.batches = combine(start, cur.batches, batches, bugs=self.bugs)
        cur.start_offset = start
        cur.dcc = rec.get("delivery_complete_count", -1)  # an update's count replaces the stored one
        if self.bug("count-kept-by-handler") and self.loading:
            return  # the handler counted the update it wrote; replay at Load does not
        self.count[key] = self.count[key] + 1 if key in self.count else 1

    def append(self, recs: list[dict[str, Any]]) -> None:
        for r in recs:
            self.log.append(r)
            self.replay(r)

    # ---- checks ----

    def head(self, req: dict[str, Any]) -> str | None:
        """The checks every handler makes first: loaded, null topic, negative partition."""
        if not self.active and not (self.bug("unloaded-serves-reads") and req["type"] in ("ReadRequest",
                                                                                         "ReadSummaryRequest")):
            return NOT_AVAILABLE
        if req["topic_id"] is None:
            return INVALID
        if req["partition"] < 0:
            return UNKNOWN if self.bug("negative-partition-unknown") else INVALID
        return None

    def known(self, req: dict[str, Any]) -> bool:
        if self.bug("negative-partition-unknown") and req["partition"] < 0:
            return False
        return self.image is not None and (req["topic_id"], req["partition"]) in self.image

    # ---- the record a write (or a recording read) makes (generateShareStateRecord) ----

    def write_count(self, cur: Offset, start: int, dcc: int) -> int:
        """KIP-1226: a count is measured from its start offset: it replaces the stored one from a
        higher start offset, the higher one stays at the same, the stored one from below (or -1)."""
        if self.minor < 2:
            return -1
        if start > cur.start_offset:
            return dcc
        return max(dcc, cur.dcc) if start == cur.start_offset else cur.dcc

    def state_record(self, key: Key, le: int, se: int, start: int, new: list[Batch], write: bool,
                     dcc: int = -1) -> dict[str, Any]:
        cur = self.offsets.get(key)
        if cur is None:
            return {"type": "ShareSnapshot", "key": _key_json(key), "snapshot_epoch": 0, "state_epoch": se,
                    "leader_epoch": le, "start_offset": start,
                    "state_batches": _batches_json(combine(start, new, bugs=self.bugs)),
                    "delivery_complete_count": dcc if self.minor >= 2 else -1}
        dcc = self.write_count(cur, start, dcc)
        if start != -1 and start < cur.start_offset and not self.bug("start-offset-regresses"):
            start = cur.start_offset  # SHARE-RULE-WRITE-START-MONOTONE
        # a write's epochs only fence it: its record carries the stored ones
        rec_le = le if not write or self.bug("write-records-leader-epoch") else cur.leader_epoch
        count = self.count.get(key, 0)
        due = count > self.limit if self.bug("cadence-strict") else count >= self.limit
        if due:
            new_start = cur.start_offset if start == -1 else start
            higher = write and self.bug("future-state-epoch-recorded") and se > cur.state_epoch
            rec_se = se if higher else cur.state_epoch
            old = [] if self.bug("limit-snapshot-new-batches-only") and start != -1 else cur.batches
            return {"type": "ShareSnapshot", "key": _key_json(key), "snapshot_epoch": cur.snapshot_epoch + 1,
                    "state_epoch": rec_se, "leader_epoch": rec_le, "start_offset": new_start,
                    "state_batches": _batches_json(combine(new_start, old, new, bugs=self.bugs)),
                    "delivery_complete_count": dcc}
        prune = cur.start_offset if start == -1 else start
        return {"type": "ShareUpdate", "key": _key_json(key), "snapshot_epoch": cur.snapshot_epoch,
                "leader_epoch": rec_le, "start_offset": start,
                "state_batches": _batches_json(combine(prune, new, bugs=self.bugs)), "delivery_complete_count": dcc}

    # ---- handlers ----

    def on_write(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        le, se = req["leader_epoch"], req["state_epoch"]
        if (self.minor >= 4 or self.bug("negative-epochs-refused-early")) and (le < 0 or se < 0):
            return [], INVALID
        if self.minor >= 1 and key not in self.offsets:
            return [], INVALID
        if self.bug("image-checked-before-fences") and not self.known(req):
            return [], UNKNOWN
        if le != -1 and self.leader_fence.get(key, -1) > le:
            return [], FENCED_LEADER
        unset = -1 if not self.bug("unset-state-epoch-fenced") else None
        if se != unset and self.state_fence.get(key, -1) > se:
            return [], FENCED_STATE
        if not self.known(req):
            return [], UNKNOWN
        new = _batches_in(req["state_batches"])
        return [self.state_record(key, le, se, req["start_offset"], new, write=True,
                                  dcc=req.get("delivery_complete_count", -1))], NONE

    def on_read(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        le = req["leader_epoch"]
        if self.minor >= 4 and le < 0:
            return [], INVALID
        if self.minor >= 1 and key not in self.offsets:
            return [], INVALID
        if le != -1 and self.leader_fence.get(key, -1) > le:
            return [], FENCED_LEADER
        if not self.known(req) and not self.bug("read-skips-image"):
            return [], UNKNOWN
        cur = self.offsets.get(key)
        if cur is None:
            return [], NONE
        # "the stored one" is the leader-epoch fence (leaderEpochMap), which initialize does not
        # lower, not the stored offset's leader epoch, which it does (found by the first run)
        stored = cur.leader_epoch if self.bug("read-compares-stored-epoch") else self.leader_fence[key]
        if (le != -1 or self.bug("read-unset-epoch-records")) and le != stored:
            return [self.state_record(key, le, -1, -1, [], write=False, dcc=cur.dcc)], NONE
        return [], NONE

    def on_initialize(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        se = req["state_epoch"]
        if self.minor == 0:
            return [], UNSUPPORTED
        if self.minor >= 4 and se < 0 and not self.bug("initialize-negative-accepted"):
            return [], INVALID
        fence = self.state_fence.get(key)
        fenced = fence is not None and (fence >= se if self.bug("initialize-same-epoch-fenced") else fence > se)
        if fenced:
            return [], FENCED_STATE
        if not self.known(req):
            return [], UNKNOWN
        cur = self.offsets.get(key)
        rec = {"type": "ShareSnapshot", "key": _key_json(key),
               "snapshot_epoch": 0 if cur is None else cur.snapshot_epoch + 1, "state_epoch": se,
               "leader_epoch": 0, "start_offset": req["start_offset"], "state_batches": [],
               # KIP-1226 (KAFKA-20034): counted from a known start offset, unknown otherwise
               "delivery_complete_count": 0 if self.minor >= 2 and req["start_offset"] != -1 else -1}
        return [rec], NONE

    def on_delete(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        if self.minor == 0:
            return [], UNSUPPORTED
        if self.bug("delete-without-state-first") and key not in self.offsets:
            return [], NONE  # nothing to delete: answered before the image is checked
        if not self.known(req):
            return [], UNKNOWN
        if key in self.offsets:
            if self.bug("delete-no-tombstone"):
                for m in (self.offsets, self.leader_fence, self.state_fence, self.count):
                    m.pop(key, None)  # type: ignore[attr-defined]
                return [], NONE
            return [{"type": "ShareTombstone", "key": _key_json(key)}], NONE
        if self.bug("tombstone-without-state"):
            return [{"type": "ShareTombstone", "key": _key_json(key)}], NONE
        return [], NONE

    def on_summary(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        if self.minor == 0:
            return [], UNSUPPORTED
        if self.bug("summary-fenced") and self.leader_fence.get(key, -1) > req["leader_epoch"]:
            return [], FENCED_LEADER  # the read's fence copied, -1 compared like any epoch
        if not self.known(req):
            return [], UNKNOWN
        return [], NONE

    HANDLERS = {"WriteRequest": ("on_write", "WriteResponse"), "ReadRequest": ("on_read", "ReadResponse"),
                "InitializeRequest": ("on_initialize", "InitializeResponse"),
                "DeleteRequest": ("on_delete", "DeleteResponse"),
                "ReadSummaryRequest": ("on_summary", "ReadSummaryResponse")}

    def request(self, req: dict[str, Any]) -> list[dict[str, Any]]:
        handler, kind = self.HANDLERS[req["type"]]
        key = (req["group_id"], req["topic_id"], req["partition"])
        if self.bug("key-ignores-topic"):  # a key built from the group and partition only
            key = next((k for k in self.offsets if (k[0], k[2]) == (key[0], key[2])), key)
        err = self.head(req)
        records: list[dict[str, Any]] = []
        if err is None:
            records, err = getattr(self, handler)(key, req)
        self.append(records)
        resp: dict[str, Any] = {"type": kind, "topic_id": req["topic_id"], "partition": req["partition"],
                                "error": err, "message": ""}
        cur = self.offsets.get(key)
        if kind == "ReadResponse":
            if err == NONE:
                resp |= {"state_epoch": cur.state_epoch if cur else 0, "start_offset": cur.start_offset if cur else -1,
                         "state_batches": _batches_json(cur.batches) if cur else []}
            elif self.bug("read-error-returns-state") and cur is not None:
                resp |= {"state_epoch": cur.state_epoch, "start_offset": cur.start_offset, "state_batches": []}
            else:  # the handler's error response: 0s; the service's (not loaded): the defaults
                resp |= {"state_epoch": 0, "start_offset": -1 if err == NOT_AVAILABLE else 0, "state_batches": []}
        elif kind == "ReadSummaryResponse":
            if err == NONE:
                no_start = 0 if self.bug("summary-no-state-start-zero") else -1
                resp |= {"state_epoch": cur.state_epoch if cur else 0, "leader_epoch": cur.leader_epoch if cur else 0,
                         "start_offset": cur.start_offset if cur else no_start,
                         "delivery_complete_count": cur.dcc if cur else -1}
            else:
                resp |= {"state_epoch": 0, "leader_epoch": 0, "start_offset": -1 if err == NOT_AVAILABLE else 0,
                         "delivery_complete_count": -1}
        return [*records, resp]

    def observe(self) -> dict[str, Any]:
        keys = set(self.offsets) | set(self.leader_fence) | set(self.state_fence) | set(self.count)
        parts = {f"{g}:{t}:{p}": {"offset": self.offsets[(g, t, p)].observe() if (g, t, p) in self.offsets else None,
                                  "leader_epoch_fence": self.leader_fence.get((g, t, p)),
                                  "state_epoch_fence": self.state_fence.get((g, t, p)),
                                  "update_count": self.count.get((g, t, p))} for g, t, p in keys}
        return {"active": self.active, "partitions": parts}


class Node:
    """The adapter around one shard; Load replays the shard's own log into a fresh one."""

    def __init__(self, shard: Shard, config_image: set[tuple[str, int]] | None) -> None:
        self.shard = shard
        self.config_image = config_image

    def step(self, inp: dict[str, Any]) -> StepResult:
        s = self.shard
        t = inp["type"]
        out: list[dict[str, Any]] = []
        if t == "Unload":
            s.active = False
        elif t == "Load":
            image = self.config_image if s.bug("load-forgets-image") else s.image
            fresh = type(s)(s.limit, image, s.minor)
            fresh.loading = True
            for rec in s.log:
                fresh.log.append(rec)
                fresh.replay(rec)
            fresh.loading = False
            self.shard = s = fresh
        elif t == "MetadataUpdate":
            s.image = {(tp, p) for tp, p in inp["image"]} if inp["image"] is not None else None
            if s.bug("metadata-update-drops-state"):
                for key in [k for k in s.offsets if (k[1], k[2]) not in (s.image or set())]:
                    for m in (s.offsets, s.leader_fence, s.state_fence, s.count):
                        m.pop(key, None)  # type: ignore[attr-defined]
        elif t in Shard.HANDLERS:
            out = s.request(inp)
        else:
            raise TargetError(f"unknown share input {t!r}")
        return StepResult(outputs=out, observation=s.observe())

    def close(self) -> None:
        pass


def _minor(version: Any) -> int:
    """``kafka_version`` ("4.3", "4.3.1", absent: the newest) -> the rule set's minor, capped at 4."""
    if version is None:
        return 4
    parts = str(version).split(".")
    if len(parts) < 2 or not parts[0].isdigit() or not parts[1].isdigit():
        raise TargetError(f"kafka_version {version!r}: expected MAJOR.MINOR")
    return min(int(parts[1]), 4) if int(parts[0]) == 4 else 4


class Correct(Target):
    """The bug-free shard, every rule set; ``version`` (None: the newest) is the release it claims."""

    protocol = "share"
    shard: type[Shard] = Shard
    version: str | None = None

    def __init__(self) -> None:
        self.name = f"python:{type(self).__module__}:{type(self).__name__}"
        if self.version is not None:
            self.model_config = {"kafka_version": self.version}

    def start(self, node: Any, config: dict[str, Any]) -> Node:
        raw = config.get("image")
        image = None if raw is None else {(t, p) for t, p in raw}
        shard = self.shard(int(config.get("snapshot_limit", 500)), image, _minor(config.get("kafka_version")))
        return Node(shard, None if image is None else set(image))


CORRECT = "Correct"
# bug name -> what it does: each a slip a real implementer makes.
BUGS = {
    "write-records-leader-epoch": "a write's ShareUpdate carries the request's leader epoch (as "
                                  "SHARE-RULE-RECORD-UPDATE's wording says), so writes move the stored leader epoch",
    "cadence-strict": "a limit snapshot when the update count is above the limit, one update late",
    "limit-snapshot-new-batches-only": "a limit snapshot with a start offset keeps only the new batches (seed 004)",
    "start-offset-regresses": "an out-of-order write moves the stored start offset back",
    "future-state-epoch-recorded": "a limit snapshot carries a write's higher state epoch",
    "negative-partition-unknown": "partition -1 is checked against the image: UNKNOWN_TOPIC_OR_PARTITION",
    "replay-ignores-tombstone": "Load skips tombstones: a deleted key comes back after fail-over",
    "delete-no-tombstone": "delete forgets the key in memory but writes no tombstone",
    "metadata-update-drops-state": "a MetadataUpdate deleting a topic drops its stored state",
    "read-error-returns-state": "a refused read answers the stored state epoch and start offset",
    "summary-no-state-start-zero": "a summary of a key without state answers start offset 0, not -1",
    "read-compares-stored-epoch": "a read records its leader epoch when it differs from the stored offset's "
                                  "leader epoch, not the fence (so again after a re-initialize)",
    "initialize-keeps-batches": "re-initializing a stored key merges the old batches into the fresh snapshot on replay",
    "load-forgets-image": "a reloaded shard validates against the start configuration's image, not the latest",
}
TARGETS = switched(globals(), Correct, "shard", Shard, {bug: {"__doc__": doc} for bug, doc in BUGS.items()})
