"""Each catalogued share deviation (conformance/deviations/share.toml) has a stored counterexample
that a release shipping the bug reproduces and that the protocol conforms to: ``kspec replay``
against that release diverges at the recorded step, against the reference target (and, where a
release of the same rule set fixed it, that release) it conforms. The traces were found by
``kspec conform share --target kafka:V --seed 0`` with the release's other deviations accepted
(docs/kafka-matrix.md, "Kafka's own fixes"). share-write-records-epochs is stored from 4.0.2:
on 4.1.x the variant of share-write-state-epoch-snapshot includes it, so 4.1.2 with that one
accepted conforms (315 runs, seed 0)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kspec.conformance.deviations import catalogue

DATA = Path(__file__).resolve().parents[1] / "share" / "testdata"
# trace file, deviation, a release with the bug, a release of the same rule set without it (None:
# none exists), whether the reference target replays it (it implements 4.1+'s rules and no
# deviation: not for a 4.0 trace, nor one whose run accepted a deviation its steps use)
CASES = [
    ("kafka_4.3_read_fences_unset_leader_epoch.itf.json", "share-read-fences-unset-leader-epoch", "4.3.0", "4.3.1",
     True),
    # run with 4.2.0's count deviations accepted, which its first step's snapshot shows; so 4.2.1,
    # which fixed this one and share-initialize-count-unset, diverges at step 1 and is not asked
    ("kafka_4.2_first_snapshot_after_limit_plus_one.itf.json", "share-first-snapshot-after-limit-plus-one",
     "4.2.0", None, False),
    ("kafka_4.0_write_records_epochs.itf.json", "share-write-records-epochs", "4.0.2", None, False),
    # run with share-write-records-epochs accepted, which step 7's leader-epoch fence shows
    ("kafka_4.1_write_state_epoch_snapshot.itf.json", "share-write-state-epoch-snapshot", "4.1.2", None, False),
    # run with share-write-count-regresses accepted, which step 6's snapshot shows
    ("kafka_4.3_write_start_offset_regresses.itf.json", "share-write-start-offset-regresses", "4.3.1", None, False),
    # KIP-1226's count (rule set 4.2): found at run 1 of seed 0 on 4.2.0 (the initialize, step 1)
    # and 4.2.1 (a write with start offset -1 after it, step 2); 4.4.0 fixed the second, but in
    # another rule set, so no fixed release replays that one.
    ("kafka_4.2_initialize_count_unset.itf.json", "share-initialize-count-unset", "4.2.0", "4.2.1", True),
    ("kafka_4.2_write_count_regresses.itf.json", "share-write-count-regresses", "4.2.1", None, True),
    # KAFKA-19695: found at run 23 of seed 0 on 4.1.0 with its other deviations accepted (which
    # 4.1.1 ships too, so 4.1.1 replays it clean); step 5's snapshot records the write's leader
    # epoch (share-write-records-epochs), so not the reference.
    ("kafka_4.1_redundant_offset_pinned_by_delete.itf.json", "share-redundant-offset-pinned-by-delete", "4.1.0",
     "4.1.1", False),
    # Session 12 (no Kafka fix yet): the composite ReinitPruneReload at run 1 of seed 0 on 4.4.0;
    # the Load at step 5 replays from log_start_offset 2 and the leader-epoch fence comes back 0.
    # The reference target replays the whole log (it never prunes) and keeps the fence.
    ("kafka_4.4_prune_forgets_leader_fence.itf.json", "share-prune-forgets-leader-fence", "4.4.0", None, True),
    # run with share-prune-forgets-leader-fence accepted (4.1.2 seed 0 diverges on it first); one
    # FindCoordinator for group id "a:b"
    ("kafka_4.1_key_parsed_from_left.itf.json", "share-key-parsed-from-left", "4.1.2", None, True),
]


def replay(trace: Path, target: str) -> dict[str, object]:
    done = subprocess.run(["kspec", "replay", str(trace), "--target", target, "--json"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.stdout.strip(), (target, done.stderr[-800:])
    doc: dict[str, object] = json.loads(done.stdout)
    return doc


@pytest.mark.parametrize(("name", "deviation", "buggy", "fixed", "reference"), CASES, ids=[c[1] for c in CASES])
def test_stored_counterexample_names_its_deviation(name: str, deviation: str, buggy: str, fixed: str | None,
                                                   reference: bool) -> None:
    trace = DATA / name
    meta = json.loads(trace.read_text())["#meta"]
    dev = catalogue("share")[deviation]
    assert meta["deviation"] == deviation and buggy in dev.releases
    got = replay(trace, f"kafka:{buggy}")
    assert got["verdict"] == "diverges" and got["reproduced"], got
    if reference:
        assert replay(trace, "reference")["verdict"] == "conforms"
    if fixed is not None:
        assert fixed not in dev.releases
        assert replay(trace, f"kafka:{fixed}")["verdict"] == "conforms"
