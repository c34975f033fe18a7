"""The streams mutants that only a guided path's probes reach (conformance/drivers/streams.py:
``StreamsDriver.probes``; the catalogue's streams mutants), at the default budget over seeds, and
each again with its probe switched off (bench/_probes.py): a mutant the rest of the suite also
catches is no evidence for the probe.

    nice -n 10 python bench/streams_probe_mutants.py [--seeds N] [--off-seeds M] [--only NAME ...]

Prints a Markdown row per (probe, mutant, seed): the catching run with the probe on and with it
off (g N: guided run N; r N: random run N; "conforms (N runs)": escaped the default budget);
exits 1 when a mutant escapes some seed with its probe on or is caught at some seed with it off.
"""

from __future__ import annotations

from _probes import bench

PROBE_MUTANTS: list[tuple[str, str]] = [
    # session 22: KIP-1071's reconciliation (a partition with standbys and no active; no active at all)
    ("STREAMS-DRIVE-ACTIVE-WITHHELD", "streams-standbys-need-active"),
    ("STREAMS-DRIVE-ACTIVE-WITHHELD", "streams-initialized-once"),
    # session 23: STREAMS-DRIVE-TOPIC-DELETED withdrawn (no protocol Kafka ships sends it); its
    # mutant is caught by the assignment with no active owner at all (no counts)
    ("STREAMS-DRIVE-ACTIVE-WITHHELD", "streams-partition-counts-merged"),
    # session 23: a sub-topology in flight while the instance is initialized
    ("STREAMS-DRIVE-SUBTOPOLOGY-IN-FLIGHT", "streams-store-metadata-needs-count"),
    # session 27 (red team streams_scratch14's escapes, both not reached)
    ("STREAMS-DRIVE-DECOMPOSED-KEY", "streams-nfc-keys"),
    ("STREAMS-DRIVE-PORT-ORDER", "streams-host-order-port-first"),
]
NOT_ALONE: list[tuple[str, str]] = []

if __name__ == "__main__":
    bench("streams", PROBE_MUTANTS, __doc__ or "", NOT_ALONE)
