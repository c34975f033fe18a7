"""The memoised renamings of ``kspec.model.core.symmetry``: a memo answers for the value it
was asked about, never for another object that happens to share an id or a renaming."""

from __future__ import annotations

from collections.abc import Mapping

from kspec.model.core.symmetry import memo_by_identity, memo_by_value, perm_key

SWAP = {1: 2, 2: 1}
SAME = {1: 1, 2: 2}


def _rename(p: Mapping[int, int], xs: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(p.get(x, x) for x in xs)


def test_identity_memo_answers_for_the_object_asked() -> None:
    calls: list[tuple[int, ...]] = []

    def rename(p: Mapping[int, int], xs: tuple[int, ...]) -> tuple[int, ...]:
        calls.append(xs)
        return _rename(p, xs)

    memo = memo_by_identity(rename, limit=4)
    for n in range(50):
        # Fresh tuples: ids of dead ones may be reused by the next, with another value.
        xs = tuple([1, 2, 10 + n])
        assert memo(SWAP, perm_key(SWAP), xs) == (2, 1, 10 + n)
        assert memo(SAME, perm_key(SAME), xs) == (1, 2, 10 + n)
        assert memo(SWAP, perm_key(SWAP), xs) == (2, 1, 10 + n)
    # The repeated question was answered from the memo (the limit clears it, never lies).
    assert len(calls) == 100


def test_value_memo_keys_by_value_and_renaming() -> None:
    memo = memo_by_value(_rename, limit=3)
    for n in range(20):
        assert memo(SWAP, perm_key(SWAP), (1, n)) == (2, SWAP.get(n, n))
        assert memo(SAME, perm_key(SAME), (1, n)) == (1, n)


def test_perm_key_is_order_free() -> None:
    assert perm_key({1: 2, 2: 1}) == perm_key({2: 1, 1: 2}) != perm_key({1: 1, 2: 2})
