"""Differential tests of the state-batch combiner against the per-offset oracle (SHARE-RULE-COMBINE-*)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from kspec.model.share.combiner import combine, combine_kafka, combine_oracle, per_offset
from kspec.model.share.records import ACKNOWLEDGED, ARCHIVED, AVAILABLE, StateBatch


@st.composite
def batches(draw: st.DrawFn, max_size: int = 5) -> list[StateBatch]:
    out = []
    for _ in range(draw(st.integers(0, max_size))):
        first = draw(st.integers(0, 12))
        last = first + draw(st.integers(0, 5))
        out.append(StateBatch(first, last, draw(st.sampled_from([AVAILABLE, ACKNOWLEDGED, ARCHIVED])),
                              draw(st.integers(0, 3))))
    return out


starts = st.one_of(st.just(-1), st.integers(0, 15))


def canonical(result: tuple[StateBatch, ...], start: int) -> None:
    for b in result:
        assert start == -1 or b.first_offset >= start
    for a, b in itertools.pairwise(result):
        assert a.last_offset < b.first_offset, "sorted and non-overlapping"
        if a.last_offset + 1 == b.first_offset:
            assert (a.delivery_state, a.delivery_count) != (b.delivery_state, b.delivery_count), "neighbours merged"


@settings(max_examples=400, deadline=None)
@given(starts, batches(), batches())
def test_combine_equals_oracle(start: int, current: list[StateBatch], new: list[StateBatch]) -> None:
    result = combine(start, current, new)
    assert result == combine_oracle(start, current, new)
    canonical(result, start)


@settings(max_examples=400, deadline=None)
@given(starts, batches(), batches())
def test_kafka_port_agrees_per_offset(start: int, current: list[StateBatch], new: list[StateBatch]) -> None:
    assert per_offset(combine_kafka(start, current, new)) == per_offset(combine_oracle(start, current, new))


@settings(max_examples=200, deadline=None)
@given(starts, batches(), batches())
def test_combine_is_commutative_and_idempotent(start: int, current: list[StateBatch], new: list[StateBatch]) -> None:
    once = combine(start, current, new)
    assert once == combine(start, new, current)
    assert combine(start, once, ()) == once
    assert combine(start, once, new) == once


def test_higher_count_wins_then_higher_state() -> None:
    old = [StateBatch(0, 9, ACKNOWLEDGED, 1)]
    assert combine(-1, old, [StateBatch(3, 4, AVAILABLE, 2)]) == (
        StateBatch(0, 2, ACKNOWLEDGED, 1), StateBatch(3, 4, AVAILABLE, 2), StateBatch(5, 9, ACKNOWLEDGED, 1))
    # Same count: the higher state (ACKNOWLEDGED over AVAILABLE) wins, whichever list it is in.
    assert combine(-1, old, [StateBatch(3, 4, AVAILABLE, 1)]) == (StateBatch(0, 9, ACKNOWLEDGED, 1),)


def test_prune_clip_merge() -> None:
    cur = [StateBatch(0, 4, AVAILABLE, 1), StateBatch(5, 9, AVAILABLE, 1), StateBatch(10, 12, ARCHIVED, 1)]
    assert combine(3, cur, [StateBatch(0, 1, ARCHIVED, 3)]) == (
        StateBatch(3, 9, AVAILABLE, 1), StateBatch(10, 12, ARCHIVED, 1))


def test_kafka_leaves_equal_neighbours_unmerged() -> None:
    """SHARE-NOTE-COMBINE-UNMERGED: Kafka's TreeSet walk can emit two contiguous equal batches."""
    a, x, y = StateBatch(0, 0, AVAILABLE, 3), StateBatch(1, 3, AVAILABLE, 2), StateBatch(1, 5, AVAILABLE, 3)
    assert combine_kafka(-1, [a, x], [y]) == (a, y)
    assert combine(-1, [a, x], [y]) == (StateBatch(0, 5, AVAILABLE, 3),)
