"""KIP-1226's delivery-complete count (SHARE-VER-DELIVERY-COMPLETE-COUNT, rule set 4.2+): the
shard's rules at node level (SHARE-RULE-WRITE-COUNT, SHARE-RULE-INITIALIZE-COUNT, the read
summary, replay), the two deviations' variants doing what Kafka 4.2.0-4.3.1 do, and the four
count mutants caught by the lockstep at seed 0 within a few runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets.mutants import CATALOGUE
from kspec.model.share.records import ACKNOWLEDGED, StateBatch
from kspec.model.share.shard import (
    InitializeRequest,
    ReadSummaryRequest,
    ShardState,
    WriteRequest,
    load,
    step,
)
from kspec.model.share.system import KEY
from kspec.model.share.versions import rules_of, with_deviations

IMAGE = frozenset({("T", 0)})
BATCH = (StateBatch(1, 1, ACKNOWLEDGED, 1),)


def shard(minor: int, *deviations: str) -> ShardState:
    return ShardState(snapshot_limit=500, image=IMAGE, rules=with_deviations(rules_of(minor), deviations))


def count(state: ShardState) -> int:
    off = state.offset(KEY)
    assert off is not None
    return off.delivery_complete_count


def init(state: ShardState, start: int = 0, epoch: int = 1) -> ShardState:
    state, outs = step(state, InitializeRequest("g", "T", 0, epoch, start))
    assert outs[-1].error == "NONE"
    return state


def write(state: ShardState, start: int, dcc: int) -> ShardState:
    state, outs = step(state, WriteRequest("g", "T", 0, 0, 1, start, BATCH, dcc))
    assert outs[-1].error == "NONE"
    return state


@pytest.mark.parametrize("minor", [2, 4])
def test_initialize_count_zero_from_a_known_start_offset(minor: int) -> None:
    assert count(init(shard(minor), start=0)) == 0
    assert count(init(shard(minor), start=-1)) == -1
    # 4.2.0 (KAFKA-20034) leaves it unknown either way.
    assert count(init(shard(minor, "share-initialize-count-unset"), start=0)) == -1


@pytest.mark.parametrize("minor", [2, 4])
def test_write_count_by_start_offset(minor: int) -> None:
    s = write(init(shard(minor), start=0), start=1, dcc=3)  # above: the request's
    assert count(s) == 3
    assert count(write(s, start=1, dcc=1)) == 3  # the same start: the higher
    assert count(write(s, start=1, dcc=5)) == 5
    assert count(write(s, start=0, dcc=1)) == 3  # below: the stored one
    assert count(write(s, start=-1, dcc=-1)) == 3  # -1: "not written", the stored one
    assert count(write(s, start=2, dcc=0)) == 0  # above again: the request's, even if lower


def test_write_count_regresses_in_4_2_to_4_3_1() -> None:
    s = write(init(shard(2, "share-write-count-regresses"), start=0), start=1, dcc=3)
    assert count(write(s, start=1, dcc=1)) == 1
    assert count(write(s, start=-1, dcc=-1)) == -1


def test_no_count_before_4_2() -> None:
    s = write(init(shard(1), start=0), start=1, dcc=3)
    assert count(s) == -1
    _, outs = step(s, ReadSummaryRequest("g", "T", 0, 0))
    assert outs[-1].delivery_complete_count == -1  # type: ignore[union-attr]


@pytest.mark.parametrize("minor", [2, 4])
def test_summary_answers_and_replay_keeps_the_count(minor: int) -> None:
    s = shard(minor)
    _, outs = step(s, ReadSummaryRequest("g", "T", 0, 0))
    assert outs[-1].delivery_complete_count == -1  # type: ignore[union-attr]  # no state
    log = []
    s, outs = step(s, InitializeRequest("g", "T", 0, 1, 0))
    log += outs[:-1]
    s, outs = step(s, WriteRequest("g", "T", 0, 0, 1, 1, BATCH, 4))
    log += outs[:-1]
    _, outs = step(s, ReadSummaryRequest("g", "T", 0, 0))
    assert outs[-1].delivery_complete_count == 4  # type: ignore[union-attr]
    # an update's count replaces the stored one on replay (fail-over rebuilds it)
    assert count(load(log, 500, IMAGE, s.rules)) == 4


@pytest.mark.parametrize("name", ["share-initialize-count-unset", "share-write-count-from-request",
                                  "share-summary-count-unset", "share-update-count-not-replayed"])
def test_count_mutant_caught(name: str, tmp_path: Path) -> None:
    result = run_conformance("share", CATALOGUE[name].target(), examples=40, seed_value=0, out_dir=tmp_path,
                             minimal=False)
    assert result.verdict == "diverges" and result.finding is not None, result.verdict
    assert "delivery_complete_count" in result.finding.line(), result.finding.line()
