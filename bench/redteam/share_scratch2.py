"""Session 9's red-team share shard: new planted bugs over a whole KIP-932 coordinator shard,
judged at the rule sets 4.1-4.4 (each bug's target names the release it claims, ``model_config``
``kafka_version``), written like session 8's ``share_scratch`` from spec/share.md,
spec/adapter-protocol.md and docs/adapter-guide.md only (no driver, model or reference code).

The baseline is session 8's from-scratch shard (``share_scratch``, itself written from the docs
alone), imported: its ``Shard.bugs`` switches hold this module's slips too (each one ``if`` at the
place an implementer slips, off unless a target's shard names it), and only the targets live
here: the combiner's comparison and pruning boundaries, the order of the checks, fences on
replay, the update count across delete and fail-over, key identity, summaries, Unload, and the
4.3/4.4 sentinel rules.

    PYTHONPATH=bench kspec conform share --target python:redteam.share_scratch2:Correct
"""

from __future__ import annotations

from redteam._targets import switched
from redteam.share_scratch import NONE, Correct, Key, Node, Shard, _key_json

__all__ = ["NONE", "Correct", "Key", "Node", "Shard", "_key_json"]  # share_scratch3 builds on these


class Correct41(Correct):
    version = "4.1"


class Correct43(Correct):
    version = "4.3"


CORRECT = "Correct"
BASELINES = ("Correct", "Correct41", "Correct43")
# bug name -> (the release its target claims, what it does): each a slip a real implementer makes.
BUGS: dict[str, tuple[str | None, str]] = {
    "priority-state-first": (None, "the combiner compares (state, count), not (count, state): an ARCHIVED batch "
                                   "beats an AVAILABLE one with a higher delivery count"),
    "prune-inclusive": (None, "pruning drops a batch whose last offset equals the start offset (<= for <)"),
    "prune-by-first-offset": (None, "pruning tests the first offset: a batch the start offset cuts is dropped whole"),
    "merge-ignores-count": ("4.2", "adjacent batches in one state are merged whatever their delivery counts"),
    "replay-snapshot-sets-leader-fence": (None, "replaying a snapshot sets the leader-epoch fence to the record's "
                                                "(an initialize's 0), not the maximum: the old leader is unfenced"),
    "count-kept-by-handler": (None, "the update count is kept by the write handler, so a shard loaded by replay "
                                    "starts counting afresh (snapshot cadence shifts after fail-over)"),
    "delete-keeps-update-count": ("4.1", "a tombstone forgets offset and fences but not the update count"),
    "key-ignores-topic": (None, "a request finds stored state by group and partition only (topic ignored)"),
    "unloaded-serves-reads": (None, "an unloaded shard still answers reads and summaries from memory"),
    "image-checked-before-fences": ("4.1", "a write checks the metadata image before the fences"),
    "negative-epochs-refused-early": ("4.3", "4.4's refusal of negative epochs applied by a 4.3 shard"),
    "read-unset-epoch-records": ("4.3", "a read with leader epoch -1 records -1 as a new leader epoch"),
    "initialize-same-epoch-fenced": (None, "initialize at the stored state epoch is FENCED_STATE_EPOCH (>= for >)"),
    "delete-without-state-first": ("4.2", "a delete of a key without state answers NONE before the image check"),
    "summary-fenced": (None, "a read-summary is fenced by the leader-epoch fence like a read"),
    "read-skips-image": (None, "a read of a stored key is not checked against the metadata image"),
    "count-reset-on-every-snapshot": (None, "replaying any snapshot (a re-initialize too) resets the update count"),
    "initialize-negative-accepted": (None, "4.4's refusal of negative epochs applied to writes and reads, "
                                           "not to initialize"),
    "tombstone-without-state": (None, "a delete of a key without state writes a tombstone all the same"),
}
TARGETS = switched(globals(), Correct, "shard", Shard,
                   {bug: {"version": version, "__doc__": doc} for bug, (version, doc) in BUGS.items()})
