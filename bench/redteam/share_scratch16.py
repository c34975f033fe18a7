"""Session 26's blind red-team share shard ("blindshare"): seven slips over the plain-dict
reference shard (``conformance/targets/reference/share.py``'s ``ShareShard``), written from
spec/share.md, docs/adapter-guide.md, KIP-932/KIP-1226 and Kafka's ``ShareCoordinatorShard`` /
``PersisterStateBatchCombiner`` (KAFKA-17367, KAFKA-17796, KAFKA-19456, KAFKA-20691,
KAFKA-20743) alone, the driver, the model and the mutant catalogue unread (the earlier red-team
modules read for their bug names only, to stay off them).

Each bug is one subclass of the shard overriding one or two methods, its docstring naming the
rule it breaks, why an implementer slips there and what input sequence reaches it. They aim at
inputs and sequences the earlier rounds left alone: the combiner's containment branch where the
*inner* batch loses, ACKNOWLEDGED and ARCHIVED ranked alike, a batch of delivery count 0 taken
for the zero value of a dense array, a metadata image that only ever loses topic-partitions, 4.4's
refusal of negative epochs stretched to the read-summary, a read's new leader epoch lost when it
lands in a limit snapshot, and the -1 start offset short-circuiting KIP-1226's equal-start rule.

Dropped before any measurement (not a bug): an initialize at state epoch -1 skipping the state
fence under the 4.1-4.3 rule set. The reference shard does the same (its initialize fence reads
``state_epoch != -1``), and a third-party port of 4.3.1 documents that Kafka's initialize treats
-1 as "not supplied" there, so spec/share.md's SHARE-RULE-VALIDATE-STATE-FENCE sentence for the
initialize (no sentinel) is the imprecise side.

BEFORE (committed before any look at the driver, the model or the catalogue; ``redteam_power.py``
at seeds 0 and 1, split per seed and bug under a load of ~8 on 2 cores): caught at seeds 0 and 1:
snapshot-leader-fence-if-absent (run 2), summary-negative-epoch-refused (run 4),
terminal-states-ranked-alike (run 71); escaped at both (320 runs each):
losing-inner-batch-cuts-outer, zero-count-available-as-gap, metadata-update-deletions-only,
unset-start-count-short-circuit.

Diagnosis (session 26, driver and model read after BEFORE; no kspec change): each of the four
escapes is *not reached*, and the model judges it once its input is sent (the model's own actions
through ``ShareDriver.resolve``, compared as the runner compares, the reference conforming): no
driver write lies strictly inside a stored run with a lower (count, state) (InnerBatchSplit's
inner batch wins; the only run of 3+ offsets is its ``[0,3]`` AVAILABLE x1, the lowest priority
the driver writes), no delivery count is 0 (1-3 and 32767 only), no MetadataUpdate adds a
topic-partition (the model has ``DeleteTopic`` only), and no write with start offset -1 reaches a
key stored with start offset -1 (the ``counts`` probes write ``g:T:0``, initialized at 0;
``g:T:1``'s count probe has a known start). terminal-states-ranked-alike is caught by guided run
71 only (the batch probes ``[1,2]`` ACKNOWLEDGED x1 then SAME_FIRST_OFFSET's ``[0,1]`` ARCHIVED
x1 at limit 0). The proposed path-end probes are in /work/wt/R26-blindshare.md.

AFTER (sessions 26-27: the path-end-only composites SHARE-DRIVE-COUNT-AT-UNKNOWN-START,
SHARE-DRIVE-INNER-LOSER, SHARE-DRIVE-ZERO-DELIVERY-COUNT and SHARE-DRIVE-PARTITION-ADDED;
``redteam_power.py --seeds 2 --protocols share --modules share_scratch16``, session 27): 7/7 caught
at seeds 0 and 1: losing-inner-batch-cuts-outer, zero-count-available-as-gap,
metadata-update-deletions-only and unset-start-count-short-circuit at run 1,
snapshot-leader-fence-if-absent run 2, summary-negative-epoch-refused run 4,
terminal-states-ranked-alike run 71. The dropped initialize -1 case above: Kafka 4.1-4.3 skip the
fence at -1 (read in the 4.1.2-4.3.1 bytecode); spec/share.md's sentence now says so (session 27).

    PYTHONPATH=bench kspec conform share --target python:redteam.share_scratch16:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.share import NOT_SET, ShareShard, ShareTarget, combine

Key = tuple[str, str, int]
Batch = list[int]

AVAILABLE, ACKNOWLEDGED, ARCHIVED = 0, 2, 4


def _clipped(start_offset: int, batches: list[Batch]) -> list[Batch]:
    """Batches pruned below ``start_offset`` and clipped to it (SHARE-RULE-COMBINE-PRUNE/-CLIP)."""
    out: list[Batch] = []
    for first, last, state, count in batches:
        if start_offset != NOT_SET:
            if last < start_offset:
                continue
            first = max(first, start_offset)
        out.append([first, last, state, count])
    return out


# ---------------------------------------------------------------------------- bugs


class LosingInnerBatchCutsOuter(ShareShard):
    """SHARE-RULE-COMBINE-PRIORITY ("the result on each offset is the maximum over every batch
    covering it, from either list"), SHARE-INV-NO-LOSS: the combiner is a walk over the batches
    sorted by first offset with one branch per overlap shape, as ``PersisterStateBatchCombiner``
    was before KAFKA-20691. In the containment branch (the later batch lies strictly inside the
    earlier one) the implementer wrote the split of the "inner batch wins" case first, cutting
    the outer batch at ``inner.first - 1``, and then, where the inner batch *loses*, just drops
    it ("the outer one covers it") without putting the outer batch's remainder
    ``[inner.first, outer.last]`` back. So a lower (count, state) batch strictly inside a higher
    stored one (a stale or retried write of a leader for a few records in the middle of a range
    it has since acknowledged, or a write whose own batches nest that way) loses the stored
    state of every offset from the inner batch's first to the outer's last. The winning inner
    batch (SHARE-DRIVE-INNER-BATCH's shape) is right. Needs a stored batch of at least three
    offsets, then a write of a batch strictly inside it with a lower (count, state), e.g.
    ``[0,3]`` ACKNOWLEDGED x2 then ``[1,2]`` AVAILABLE x1: stored ``[0,0]`` only."""

    @staticmethod
    def combine(start_offset: int, current: list[Batch], new: list[Batch]) -> list[Batch]:
        items = sorted(_clipped(start_offset, [*current, *new]), key=lambda b: (b[0], -b[1]))
        kept: list[Batch] = []
        for b in items:
            for i, a in enumerate(kept):
                if a[0] < b[0] and b[1] < a[1] and (b[3], b[2]) < (a[3], a[2]):
                    kept[i] = [a[0], b[0] - 1, a[2], a[3]]  # the slip: the outer's remainder is not re-added
                    break
            else:
                kept.append(b)
        return combine(start_offset, [], kept)


class TerminalStatesRankedAlike(ShareShard):
    """SHARE-RULE-COMBINE-PRIORITY ("the batch with the higher (delivery count, delivery state)
    wins, compared lexicographically": 4 ARCHIVED above 2 ACKNOWLEDGED): the implementer ranks
    the delivery state by what it means for the share-partition, not by its code: AVAILABLE
    below the two terminal states, and ACKNOWLEDGED and ARCHIVED alike ("both are done, neither
    is delivered again"), so at an equal delivery count the batch the walk met first stays: the
    stored one in a replay (current batches come first), the earlier one within a write. A
    record a leader acknowledged and then archived at the same delivery count (a rejected
    acknowledgement after a renew, an archive of a stale batch) stays ACKNOWLEDGED. Needs an
    offset stored ACKNOWLEDGED at count *c*, then a write of it ARCHIVED at the same count *c*
    (or, in one write, ACKNOWLEDGED before ARCHIVED on one offset at one count)."""

    @staticmethod
    def rank(state: int) -> int:
        return ACKNOWLEDGED if state == ARCHIVED else state  # the slip: terminal states tie

    @staticmethod
    def combine(start_offset: int, current: list[Batch], new: list[Batch]) -> list[Batch]:
        rank = TerminalStatesRankedAlike.rank
        best: dict[int, tuple[int, int]] = {}
        for first, last, state, count in _clipped(start_offset, [*current, *new]):
            for o in range(first, last + 1):
                if o not in best or (count, rank(state)) > (best[o][0], rank(best[o][1])):
                    best[o] = (count, state)
        return combine(NOT_SET, [], [[o, o, s, c] for o, (c, s) in sorted(best.items())])


class ZeroCountAvailableAsGap(ShareShard):
    """SHARE-STATE-OFFSET (a state batch is a first offset, a last offset, a delivery state and a
    delivery count; the coordinator stores what the leader wrote), SHARE-INV-NO-LOSS: the
    combiner is the per-offset sweep written over two primitive arrays (Java ``int[]``, Go
    slices) indexed by offset, whose zero value is (state 0 AVAILABLE, count 0): an offset
    whose winner is still (0, 0) after the sweep is taken for "no batch covers it" and left out
    of the result. But AVAILABLE with delivery count 0 is a real state a leader persists: a
    record acquired and released before delivery (a share session closed, an acquisition lock
    released on a member leaving decrements the count back). So such a batch is never stored: a
    write of ``[5,6]`` AVAILABLE x0 answers NONE and stores nothing, a ShareUpdate's replay
    drops it, and where it lay next to other batches the read shows a gap. Needs a write carrying
    a batch AVAILABLE with delivery count 0 that no higher batch covers."""

    @staticmethod
    def combine(start_offset: int, current: list[Batch], new: list[Batch]) -> list[Batch]:
        best: dict[int, tuple[int, int]] = {}
        for first, last, state, count in _clipped(start_offset, [*current, *new]):
            for o in range(first, last + 1):
                if (count, state) > best.get(o, (0, AVAILABLE)):  # the array's zero value
                    best[o] = (count, state)
        # the slip: an offset still at the zero value is a gap
        return combine(NOT_SET, [], [[o, o, s, c] for o, (c, s) in sorted(best.items()) if (c, s) != (0, AVAILABLE)])


class MetadataUpdateDeletionsOnly(ShareShard):
    """SHARE-RULE-METADATA-UPDATE ("a new metadata image (a topic created or deleted) replaces the
    one requests are validated against"), SHARE-RULE-VALIDATE-UNKNOWN-TOPIC: the port of 4.3's
    ``onMetadataUpdate(MetadataDelta delta, MetadataImage newImage)`` keeps its own set of
    topic-partitions, taken whole from the first image it sees, and then applies the delta's
    *deleted* topics only (the one thing the share coordinator reacts to: "a deleted topic's
    state stays until the group coordinator deletes it, and every request for it is
    UNKNOWN_TOPIC_OR_PARTITION"). A topic created after the coordinator started, or a partition
    added to a topic (``kafka-topics --alter --partitions``), never enters the set, so the group
    coordinator's InitializeShareGroupState for the new share-partition, and every request after
    it, is UNKNOWN_TOPIC_OR_PARTITION. Needs a MetadataUpdate whose image holds a topic-partition
    the shard's first image lacked, then a request for it (e.g. ``T``'s partition 2 added, then
    an initialize of ``g:T:2``)."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        if inp["type"] == "MetadataUpdate" and self.image is not None:
            self.image &= {(t, p) for t, p in inp["image"]}  # the slip: deletions only
            return []
        return super().step(inp)


class SummaryNegativeEpochRefused(ShareShard):
    """SHARE-VER-NEGATIVE-EPOCHS-REFUSED ("a negative leader epoch in a write or read, or a negative
    state epoch in a write or initialize, is INVALID_REQUEST"), SHARE-RULE-READ-SUMMARY (answers
    the stored state, never fenced or recorded): the 4.4 hardening (KAFKA-20743) was applied to
    "every request that carries a leader epoch", and ReadShareGroupStateSummary's partition data
    carries one too (``LeaderEpoch``, which the summary neither fences nor records: the group
    coordinator describing a share group's offsets sends it unset). So at rule set 4.4 a
    read-summary with leader epoch -1 is INVALID_REQUEST ("The leader epoch cannot be a negative
    number.") where it answers the stored state epoch, leader epoch, start offset and count:
    describing a share group's offsets, and its lag, fails. Needs rule set 4.4 and a
    ReadShareGroupStateSummary with a negative leader epoch (-1)."""

    def negative_epoch_error(self, req: dict[str, Any]) -> str | None:
        if self.negative_epochs_refused and req["type"] == "ReadSummaryRequest" and req.get("leader_epoch", 0) < 0:
            return "The leader epoch cannot be a negative number."  # the slip: summaries too
        return super().negative_epoch_error(req)


class SnapshotLeaderFenceIfAbsent(ShareShard):
    """SHARE-RULE-REPLAY-SNAPSHOT ("the leader-epoch and state-epoch fences become the maximum of
    the old and the record's"), SHARE-RULE-READ-LEADER-EPOCH with SHARE-RULE-RECORD-LIMIT-SNAPSHOT
    (a read that records a new leader epoch when the update count is at the limit writes a
    ShareSnapshot carrying the read's epoch): the implementer reasoned that a ShareSnapshot's
    leader epoch is 0 (initialize) or the stored one (the cadence snapshot of a write, which
    keeps the stored epochs since KAFKA-19456), never above the fence, so snapshot replay only
    seeds the leader-epoch fence of a new key (``putIfAbsent``) and leaves the raising to
    ShareUpdate replay. The state-epoch fence is raised as it should be. But a read at a new
    leader epoch that falls due for a limit snapshot carries the new epoch in a snapshot: the
    stored offset holds it, the fence stays at the old leader's epoch, so the previous leader's
    writes and reads are accepted (and recorded) where they are FENCED_LEADER_EPOCH. Needs a read
    at a new leader epoch while the key's update count is at the snapshot limit (at limit 0, any
    such read after the initialize)."""

    def replay_snapshot(self, key: Key, record: dict[str, Any]) -> None:
        before = self.leader_epochs.get(key)
        super().replay_snapshot(key, record)
        if before is not None:
            self.leader_epochs[key] = before  # the slip: put-if-absent, not the maximum


class UnsetStartCountShortCircuit(ShareShard):
    """SHARE-RULE-WRITE-COUNT ("a write with start offset -1 ('not being written') is below any
    stored start offset, so the stored count stays; where the stored start offset is -1 too,
    the start offsets are equal and the higher count stays"): the implementer writes the -1 case
    as its own early exit (``if (startOffset == -1) return stored``, "nothing about the start
    moved, so the count we have stands") ahead of the comparisons, which is right while a start
    offset is stored but not for a share-partition initialized with start offset -1 (a new one,
    nothing consumed yet: count -1): the leader's first writes, which carry no start offset
    either, bring a known count that is dropped, and the share-partition's lag stays unknown
    until a write names a start offset. Needs rule set 4.2+, a key initialized with start offset
    -1, then a write with start offset -1 and a known count."""

    def write_count(self, current: dict[str, Any], start_offset: int, count: int) -> int:
        if self.delivery_complete_count and start_offset == NOT_SET:
            return int(current["delivery_complete_count"])  # the slip: before the equal-start rule
        return super().write_count(current, start_offset, count)


# ---------------------------------------------------------------------------- targets


def _target(cls: type[ShareShard]) -> type[ShareTarget]:
    name = "Correct" if cls is ShareShard else cls.__name__ + "Target"

    def __init__(self: ShareTarget) -> None:
        ShareTarget.__init__(self, f"python:redteam.share_scratch16:{name}", cls)

    return type(name, (ShareTarget,), {"__module__": __name__, "__init__": __init__, "__doc__": cls.__doc__})


Correct = _target(ShareShard)
CORRECT = "Correct"
BASELINES = ("Correct",)
BUGS: dict[str, type[ShareShard]] = {
    "losing-inner-batch-cuts-outer": LosingInnerBatchCutsOuter,
    "terminal-states-ranked-alike": TerminalStatesRankedAlike,
    "zero-count-available-as-gap": ZeroCountAvailableAsGap,
    "metadata-update-deletions-only": MetadataUpdateDeletionsOnly,
    "summary-negative-epoch-refused": SummaryNegativeEpochRefused,
    "snapshot-leader-fence-if-absent": SnapshotLeaderFenceIfAbsent,
    "unset-start-count-short-circuit": UnsetStartCountShortCircuit,
}
for _cls in BUGS.values():
    globals()[_cls.__name__ + "Target"] = _target(_cls)
TARGETS = {bug: cls.__name__ + "Target" for bug, cls in BUGS.items()}
