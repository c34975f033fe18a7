"""The mm2 mutants that only one of the driver's input kinds catches (conformance/drivers/mm2.py;
conformance/targets/mutants_power.py), at the default budget over seeds, and each again with its
input kind switched off (bench/_probes.py): a mutant the rest of the suite also catches is no
evidence for the input kind.

    nice -n 10 python bench/mm2_probe_mutants.py [--seeds N] [--off-seeds M] [--only NAME ...]

MM2-DRIVE-HEARTBEATS-ODD-NAMES is switched off by a driver whose ``odd_heartbeats`` names no node,
MM2-DRIVE-DOTTED-SEPARATOR by ``CONFIGS`` without the ``-.`` configuration.
Prints a Markdown row per (probe, mutant, seed): the catching run with the input kind on and with
it off (g N: guided run N; r N: random run N; "conforms (N runs)": escaped the default budget);
exits 1 when a mutant escapes some seed with its input kind on or is caught at some seed with it off.
"""

from __future__ import annotations

from _probes import bench

# (input kind, the mutant written for it; session 23)
PROBE_MUTANTS: list[tuple[str, str]] = [
    ("MM2-DRIVE-HEARTBEATS-ODD-NAMES", "mm2-heartbeats-name-empty-default"),
    ("MM2-DRIVE-DOTTED-SEPARATOR", "mm2-regex-separator"),
    # session 27 (red team mm2_scratch14: every bug escaped, none reached)
    ("MM2-DRIVE-FORMAT-READ-BACK", "mm2-format-memo-source"),
    ("MM2-DRIVE-TRAILING-SEPARATOR", "mm2-internal-suffix-split"),
    ("MM2-DRIVE-BLANK-HEARTBEATS-NAME", "mm2-trimmed-heartbeats-name"),
    ("MM2-DRIVE-BLANK-FLAG", "mm2-trimmed-flag"),
    # session 28 (red team mm2_scratch15: flag-parsed-as-ini-boolean escaped, not reached)
    ("MM2-DRIVE-FLAG-WORD", "mm2-flag-word-true"),
    # session 29 (red team mm2_scratch16: mm2-connect-names-dotted escaped, not reached)
    ("MM2-DRIVE-CONNECT-WORKER-NAMES", "mm2-connect-worker-names-internal"),
    ("MM2-DRIVE-DOTTED-HEARTBEATS-NAME", "mm2-heartbeats-name-internal-separator"),
]
NOT_ALONE: list[tuple[str, str]] = []

if __name__ == "__main__":
    bench("mm2", PROBE_MUTANTS, __doc__ or "", NOT_ALONE)
