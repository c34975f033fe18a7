"""``evolve`` (the fast ``replace``) against ``dataclasses.replace`` on the models' classes."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kspec.model.core.evolve import evolve
from kspec.model.raft.messages import Entry, FetchResponse, VoteRequest
from kspec.model.raft.state import Candidate, Leader, Node, Unattached

ints = st.integers(min_value=0, max_value=9)


@given(ints, ints, ints, st.booleans())
def test_evolve_equals_replace_on_messages(epoch: int, offset: int, other: int, pre: bool) -> None:
    msg = VoteRequest(1, 2, epoch, offset, other, pre)
    for changes in ({}, {"epoch": other}, {"pre_vote": not pre, "src": 3}):
        a, b = evolve(msg, **changes), dataclasses.replace(msg, **changes)
        assert a == b and hash(a) == hash(b) and type(a) is type(b)


@given(ints, st.frozensets(ints), st.lists(ints, max_size=4))
def test_evolve_equals_replace_on_nodes(epoch: int, granted: frozenset[int], epochs: list[int]) -> None:
    log = tuple(Entry(e) for e in sorted(epochs))
    node = Node(1, frozenset({1, 2, 3}), log, Candidate(epoch, granted))
    for changes in ({"role": Unattached(epoch + 1)}, {"high_watermark": len(log)},
                    {"role": Leader(epoch, len(log))}, {"log": ()}):
        assert evolve(node, **changes) == dataclasses.replace(node, **changes)
    resp = FetchResponse(1, 2, epoch, 1, entries=log)
    assert evolve(resp, high_watermark=3) == dataclasses.replace(resp, high_watermark=3)


def test_evolve_rejects_unknown_fields() -> None:
    with pytest.raises(TypeError, match="no field 'nope'"):
        evolve(Unattached(1), nope=2)
