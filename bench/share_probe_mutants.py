"""The share mutants that only the driver's probes reach (conformance/drivers/share.py: the probe
requests of ``ShareSystem.probe_actions`` (epochs, delete, summary, keys, batches, ...), the
composite steps and the guided paths' routing probe), at the default budget over seeds, and each
again with its probe switched off (bench/_probes.py): a mutant the rest of the suite also
catches is no evidence for the probe.

    nice -n 10 python bench/share_probe_mutants.py [--seeds N] [--off-seeds M] [--only NAME ...]

"probe requests" switches every probe request off at once (the driver's bound ``probes``; the
composite steps go with it); a composite step (CutReload, DeleteThenRead, ...) is switched off
alone, in guided and random runs; SHARE-DRIVE-ROUTING-UNLOADED is the guided paths' end.
Prints a Markdown row per (probe, mutant, seed): the catching run with the probe on and with it
off (g N: guided run N; r N: random run N; "conforms (N runs)": escaped the default budget);
exits 1 when a mutant escapes some seed with its probe on or is caught at some seed with it off.
"""

from __future__ import annotations

from _probes import SHARE_PROBE_REQUESTS, bench

# (probe, a mutant written for it)
PROBE_MUTANTS: list[tuple[str, str]] = [
    ("CutReload", "share-load-keeps-straddling-batch"),
    ("ReinitPruneReload", "share-pruned-load-from-log-start"),
    # sessions 15-17: red-team escapes, each carried into the reference shard as a mutant
    ("SHARE-DRIVE-TIE-UPDATE", "share-update-tie-newer-wins"),
    ("StaleReadWithoutTopic", "share-read-image-before-fence"),
    ("ReloadWithoutTopic", "share-image-dropped-while-unloaded"),
    ("SHARE-DRIVE-NEW-LEADER-WITHOUT-TOPIC", "share-new-leader-read-records-without-topic"),
    ("SHARE-DRIVE-COUNT-FROM-UNKNOWN-START", "share-count-unknown-start-kept"),
    ("ReinitAtCountedStart", "share-reinitialize-keeps-count-at-start"),
    ("FencesAcrossDelete", "share-fence-survives-delete"),
    ("SHARE-DRIVE-REORDER-SNAPSHOT", "share-reorder-snapshot-combines-at-request-start"),
    # session 19 (red team session 18's escapes)
    ("InnerBatchSplit", "share-inner-batch-drops-tail"),
    ("SHARE-DRIVE-STALE-INITIALIZE-WITHOUT-TOPIC", "share-initialize-image-before-fence"),
    # session 19: red-team catches the guide's greedy plan made by chance
    ("ReinitBelowStored", "share-read-fence-from-stored-offset"),
    ("StateEpochAcrossDelete", "share-state-fence-survives-delete"),
    # session 20 (red team session 20's escape)
    ("ReinitAtCountedStart", "share-same-start-count-replaced"),
    *((SHARE_PROBE_REQUESTS, name) for name in (
        "share-delete-keeps-fences", "share-delete-without-tombstone", "share-replay-skips-tombstone",
        "share-summary-leader-epoch-from-fence", "share-summary-records-leader-epoch",
        "share-write-records-higher-state-epoch", "share-stale-initialize-accepted",
        "share-initialize-unknown-partition", "share-fences-ignore-group", "share-start-offset-regresses",
        "share-merge-ignores-count", "share-image-before-fences")),
    # session 23 (red team share_scratch14's negative-epoch-sentinel-only escaped seeds 0 and 1)
    ("SHARE-DRIVE-MIN-EPOCH", "share-negative-epoch-sentinel-only"),
    # session 23 (red team share_scratch14's start-clamp-survives-reinitialize escaped seeds 0 and 1)
    ("SHARE-DRIVE-REINIT-BELOW-WRITE", "share-reorder-drops-batches-below-highest"),
    # session 23 (red team share_scratch14's count-after-start-resolved caught at one seed only)
    ("SHARE-DRIVE-COUNT-FROM-BELOW", "share-count-from-unset-start-taken"),
    # session 23 (red team share_scratch14's write-batches-by-first-offset escaped seeds 0 and 1)
    ("SHARE-DRIVE-SAME-FIRST-OFFSET", "share-write-batches-last-wins"),
    # session 24 (red team share_scratch15's delivery-count-as-int8 escaped seeds 0 and 1)
    ("SHARE-DRIVE-MAX-DELIVERY-COUNT", "share-delivery-count-int8"),
    # session 26 (red team share_scratch16): the path-end-only composites (PathEndProbe)
    ("SHARE-DRIVE-COUNT-AT-UNKNOWN-START", "share-unset-start-count-newest"),
    ("SHARE-DRIVE-INNER-LOSER", "share-losing-inner-cuts-outer"),
    ("SHARE-DRIVE-ZERO-DELIVERY-COUNT", "share-zero-delivery-count-dropped"),
    # session 27 (red team share_scratch16's metadata-update-deletions-only): a path-end PathEndProbe
    ("SHARE-DRIVE-PARTITION-ADDED", "share-image-deletions-only"),
    # session 28 (red team share_scratch17): two more path-end PathEndProbes
    ("SHARE-DRIVE-ODD-GROUP-STATE", "share-group-id-from-key-string"),
    ("SHARE-DRIVE-WIDE-START-OFFSET", "share-start-offset-int32"),
    # session 29 (red team share_scratch18's equal-neighbours-bridge-gap): a path-end PathEndProbe
    ("SHARE-DRIVE-GAPPED-BATCHES", "share-merge-bridges-gap"),
]
# written for a probe, caught by it first, not its alone (the catalogue's notes)
NOT_ALONE: list[tuple[str, str]] = [
    ("CutReload", "share-load-skips-empty-update"),
    ("DeleteThenRead", "share-deleted-read-unknown"),
    ("ReloadWithoutTopic", "share-reload-keeps-start-image"),
    ("SHARE-DRIVE-ROUTING-UNLOADED", "share-find-coordinator-needs-load"),
    ("ReinitBelowStored", "share-initialize-start-monotone"),
]

if __name__ == "__main__":
    bench("share", PROBE_MUTANTS, __doc__ or "", NOT_ALONE)
