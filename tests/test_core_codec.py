"""model/core/codec.py: sets, bags and maps are written in the canonical order (codec.order),
natural within a kind, so a target that sorts a set by number writes what the model encodes."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

from kspec.model.core.bag import Bag
from kspec.model.core.codec import decode, encode, order
from kspec.model.raft.messages import Entry
from kspec.model.voters.control import Snapshot


@dataclass(frozen=True, slots=True)
class Held:
    ids: frozenset[int]
    pairs: frozenset[tuple[int, int]]


def test_sets_of_numbers_sort_by_value() -> None:
    # repr order put 10 before 9 and [32768, 32768] before [4, 4] (VOTERS-DRIVE-ODD-IDS' ids)
    assert encode(frozenset({10, 9, 1, 100})) == [1, 9, 10, 100]
    assert encode(frozenset({(32768, 32768), (4, 4), (0, 0)})) == [[0, 0], [4, 4], [32768, 32768]]
    assert encode(frozenset({-1, -10, 2})) == [-10, -1, 2]


def test_lists_and_strings_sort_naturally() -> None:
    # a prefix first (repr put "a!" before "a", and [1, 2, 3] before [1, 2])
    assert encode(frozenset({"a!", "a", ""})) == ["", "a", "a!"]
    assert encode(frozenset({(1, 2, 3), (1, 2), (1,)})) == [[1], [1, 2], [1, 2, 3]]


def test_the_order_is_what_a_target_sorting_by_number_writes() -> None:
    # the voters driver's SnapshotWritten output, which had to re-sort the codec's encoding
    snap = Snapshot(end_offset=3, kraft_version=1, voters=frozenset({(32768, 32768), (4, 4), (10, 10), (9, 9)}))
    assert encode(snap)["voters"] == sorted([list(k) for k in snap.voters or ()])


def test_bags_and_maps_follow_the_same_order() -> None:
    bag: Bag[int] = Bag()
    for e in (10, 9, 9, 2):
        bag = bag.add(e)
    assert encode(bag) == {"type": "Bag", "items": [[2, 1], [9, 2], [10, 1]]}
    assert list(encode({10: "x", 9: "y", 1: "z"})) == ["1", "9", "10"]


def test_the_order_is_total_across_kinds() -> None:
    values = [None, True, False, 0, 10, 9, -3, 2.5, "", "b", "a", [], [1], [1, 0], {"type": "Entry"}, {"a": 1}]
    rng = random.Random(0)
    for _ in range(50):
        rng.shuffle(values)
        assert sorted(values, key=order) == [None, False, True, -3, 0, 2.5, 9, 10, "", "a", "b", [], [1], [1, 0],
                                             {"a": 1}, {"type": "Entry"}]


def test_decode_gives_back_the_value() -> None:
    held = Held(frozenset({10, 9, 32768}), frozenset({(32768, 32768), (4, 4)}))
    data = json.loads(json.dumps(encode(held)))
    assert decode(data, [Held]) == held
    # the order a set was written in does not matter to decode (stored files keep repr order)
    data["ids"].reverse()
    assert decode(data, [Held]) == held
    entries = frozenset({Entry(10, "data", (1,)), Entry(9, "data", (12,))})
    assert [e["epoch"] for e in encode(entries)] == [9, 10]
