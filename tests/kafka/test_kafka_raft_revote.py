"""RAFT-RULE-VOTE-REASKED on a path Kafka really took (spec/raft.md D-REVOTE-LOG).

``kafka_4.4_revote_ignores_log.itf.json`` was recorded by ``kspec conform raft --target
kafka:4.4.0 --seed 0`` (run 216) before the rule existed: a late copy of 1's VoteRequest of epoch
1 reaches replica 3, which voted for 1, followed it, fetched LC1 and timed out to prospective
(the kip-996 kept vote). The model refused (log check first) and Kafka granted again; the file
ends there, as a false alarm.

Here the model replays replica 3's recorded inputs on its own node step, must reproduce the
recorded model side, and must allow Kafka's answer as one of its other answers; with those
answers recorded, ``kspec replay`` against kafka:4.4.0 runs the whole path without a divergence.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from kspec.conformance.counterexample import read_counterexample
from kspec.conformance.drivers.raft import RaftDriver, wire
from kspec.conformance.pipeline.classes import classes_of
from kspec.model.core.codec import decode, encode
from kspec.model.raft import node as node_mod

TRACE = Path(__file__).resolve().parents[1] / "raft" / "testdata" / "kafka_4.4_revote_ignores_log.itf.json"
REASKED_STEP = 13


def model_alternatives() -> tuple[list[Any], list[Any]]:
    """Replica 3's model side at the re-asked step, recomputed: (model outputs, other answers)."""
    meta, steps = read_counterexample(TRACE)
    driver = RaftDriver(meta["config"])
    node = driver.init_state().node(3)
    for rec in steps:
        if rec.node != 3 or not isinstance(rec.input, dict):
            continue
        before, value = node, decode(rec.input, classes_of("raft"))
        node, outputs = driver.model._step(before, value)
        if rec.index == REASKED_STEP:
            return wire(encode(outputs)), [wire(encode(o)) for o in node_mod.other_answers(before, value, outputs)]
    raise AssertionError(f"{TRACE.name} has no step {REASKED_STEP} at replica 3")


def test_the_model_allows_what_kafka_answered_to_a_reasked_vote(tmp_path: Path) -> None:
    doc = json.loads(TRACE.read_text())
    row = doc["states"][REASKED_STEP - 1]
    assert row["input"]["type"] == "VoteRequest" and not row["input"]["pre_vote"]
    model_outputs, others = model_alternatives()
    assert model_outputs == row["model_outputs"]  # the recorded model side, recomputed
    assert [o["granted"] for o in model_outputs if o["type"] == "VoteResponse"] == [False]
    assert others == [row["target_outputs"]]  # Kafka's re-grant is the one other answer
    # Recorded as a run records them now, the path replays on Kafka to its end.
    for state in doc["states"]:
        state["model_alternatives"] = others if state["step"] == REASKED_STEP else []
    doc["vars"] = [*doc["vars"], "model_alternatives"]
    fixed = tmp_path / "revote.itf.json"
    fixed.write_text(json.dumps(doc))
    done = subprocess.run(["kspec", "replay", str(fixed), "--target", "kafka:4.4.0", "--json"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.stdout.strip(), done.stderr[-800:]
    got = json.loads(done.stdout)
    assert got["verdict"] == "conforms", got
