"""Faithfulness: each Z3 encoding of a KRaft rule equals the Python rule on generated inputs.

The encoding is built over constants and simplified to a value; that value must be what the
Python function in ``kspec.model.raft.rules`` returns, so the proofs are about the code that runs.
"""

from __future__ import annotations

import itertools

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from kspec.model.proofs import encode_raft as enc
from kspec.model.raft import rules

N = 9
replica_sets = st.frozensets(st.integers(0, N - 1))
offsets = st.integers(0, 40)


def value(term: object) -> object:
    """A closed Z3 term simplified to a Python bool or int."""
    simple = z3.simplify(term)
    if z3.is_bool(simple):
        assert z3.is_true(simple) or z3.is_false(simple), simple
        return z3.is_true(simple)
    return simple.as_long()


@given(st.integers(0, 1000))
def test_majority(n: int) -> None:
    assert value(enc.majority(z3.IntVal(n))) == rules.majority(n)


@given(replica_sets, replica_sets)
def test_is_quorum_bitset(members: frozenset[int], voters: frozenset[int]) -> None:
    encoded = enc.is_quorum(enc.bitset_of(members, N), enc.bitset_of(voters, N))
    assert value(encoded) == rules.is_quorum(members, voters)


@given(st.fixed_dictionaries({name: st.frozensets(st.integers(0, 15)) for name in ("V1", "V2", "Q1", "Q2")}))
def test_venn_counts_and_quorum(sets: dict[str, frozenset[int]]) -> None:
    venn = enc.Venn("n", ("V1", "V2", "Q1", "Q2"))
    sub = venn.substitution(sets)
    for members, voters in itertools.permutations(sets, 2):
        encoded = z3.substitute(venn.is_quorum(members, voters), *sub)
        assert value(encoded) == rules.is_quorum(sets[members], sets[voters])
    for names in [("V1",), ("Q1", "V1"), ("Q1", "Q2", "V1", "V2")]:
        expected = frozenset.intersection(*(sets[n] for n in names))
        assert value(z3.substitute(venn.size(*names), *sub)) == len(expected)
    changed = z3.substitute(venn.count(lambda m: m["V1"] != m["V2"]), *sub)
    assert value(changed) == len(sets["V1"] ^ sets["V2"])


@given(st.fixed_dictionaries({name: st.frozensets(st.integers(0, 15)) for name in ("A", "B")}))
def test_venn_concrete_realises_the_region_counts(sets: dict[str, frozenset[int]]) -> None:
    venn = enc.Venn("r", ("A", "B"))
    solver = z3.Solver()
    solver.add(*[region == n for region, n in venn.substitution(sets)])
    assert solver.check() == z3.sat
    realised = venn.concrete(solver.model())
    assert len(realised["A"]) == len(sets["A"])
    assert len(realised["A"] & realised["B"]) == len(sets["A"] & sets["B"])
    assert len(realised["B"] - realised["A"]) == len(sets["B"] - sets["A"])


@given(st.integers(-2, 6), st.integers(-2, 20), st.integers(-2, 6), st.integers(-2, 20))
def test_log_up_to_date(ce: int, co: int, oe: int, oo: int) -> None:
    encoded = enc.log_up_to_date(z3.IntVal(ce), z3.IntVal(co), z3.IntVal(oe), z3.IntVal(oo))
    assert value(encoded) == rules.log_up_to_date(ce, co, oe, oo)


@settings(max_examples=300)
@given(replica_sets, st.dictionaries(st.integers(0, N - 1), offsets))
def test_majority_end_offset(voters: frozenset[int], end_offsets: dict[int, int]) -> None:
    # A replica missing from the mapping has end offset 0 in the rule and in the encoding.
    ends = [z3.IntVal(end_offsets.get(i, 0)) for i in range(N)]
    encoded = enc.majority_end_offset(ends, enc.bitset_of(voters, N))
    assert value(encoded) == rules.majority_end_offset(end_offsets, voters)


@given(st.none() | offsets, offsets, offsets)
def test_next_high_watermark(current: int | None, majority_offset: int, epoch_start: int) -> None:
    pair = (z3.BoolVal(current is not None), z3.IntVal(0 if current is None else current))
    present, hw = enc.next_high_watermark(pair, z3.IntVal(majority_offset), z3.IntVal(epoch_start))
    expected = rules.next_high_watermark(current, majority_offset, epoch_start)
    assert value(present) == (expected is not None)
    if expected is not None:
        assert value(hw) == expected


def test_sorting_network_sorts_every_permutation() -> None:
    # The network in majority_end_offset must sort every input order, including ties.
    values = [3, 1, 4, 1, 5, 0, 2]
    for perm in set(itertools.permutations(values[:6])):
        ordered = enc._sorted_descending([z3.IntVal(v) for v in perm])
        assert [value(x) for x in ordered] == sorted(perm, reverse=True)
