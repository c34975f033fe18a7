"""Faithfulness and outcomes of the voter-set history obligations.

Each encoding in ``kspec.model.proofs.voters_history`` is evaluated on constants (a closed term
evaluated in an empty model) and must equal the Python function in
``kspec.model.voters.history`` on generated histories, so the proofs are about the code that runs.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from kspec.model.proofs import check
from kspec.model.proofs import voters_history as vh
from kspec.model.voters.history import HistoryError, VoterSet, VoterSetHistory, has_overlapping_majority

voter_sets = st.frozensets(st.sampled_from(vh.KEYS))
offsets = st.integers(-3, vh.MAX_OFFSET + 2)
lookups = st.integers(-4, vh.MAX_OFFSET + 3)


def _closed_model() -> Any:
    solver = z3.Solver()
    assert solver.check() == z3.sat
    return solver.model()


MODEL = _closed_model()

# The @given tests run without Hypothesis's deadline: building an encoding takes tens of
# milliseconds per example, and a loaded machine is not a failure (no timed assertions).


def value(term: Any) -> Any:
    """A closed Z3 term as a Python bool or int."""
    got = MODEL.eval(term, model_completion=True)
    if z3.is_bool(got):
        assert z3.is_true(got) or z3.is_false(got), got
        return z3.is_true(got)
    return got.as_long()


def lookup(h: vh.SymHistory, offset: int) -> VoterSet | None:
    present, voters = vh.value_at_or_before(h, z3.IntVal(offset))
    return vh.voter_set_value(MODEL, voters) if value(present) else None


@st.composite
def histories(draw: st.DrawFn, max_entries: int = vh.MAX_ENTRIES) -> VoterSetHistory:
    """A history built by add_at from attempted additions (refused ones are skipped, as a
    replica never applies a record the history refuses)."""
    h = VoterSetHistory(draw(voter_sets))
    for offset, voters in draw(st.lists(st.tuples(offsets, voter_sets), max_size=2 * max_entries)):
        if len(h.entries) == max_entries:
            break
        with contextlib.suppress(HistoryError):
            h = h.add_at(offset, voters)
    return h


def entries_of(h: vh.SymHistory) -> VoterSetHistory:
    return vh.history_value(MODEL, h)


@settings(deadline=None)
@given(voter_sets, voter_sets)
def test_has_overlapping_majority(a: VoterSet, b: VoterSet) -> None:
    encoded = vh.has_overlapping_majority(vh.voter_set_of(a), vh.voter_set_of(b))
    assert value(encoded) == has_overlapping_majority(a, b)


@settings(deadline=None)
@given(voter_sets)
def test_voter_set_round_trip(voters: VoterSet) -> None:
    assert vh.voter_set_value(MODEL, vh.voter_set_of(voters)) == voters


@settings(deadline=None)
@given(histories(vh.MAX_ENTRIES - 1), offsets, voter_sets)
def test_add_at(history: VoterSetHistory, offset: int, voters: VoterSet) -> None:
    accepted, after = vh.add_at(vh.concrete_history(history), z3.IntVal(offset), vh.voter_set_of(voters))
    try:
        expected: VoterSetHistory | None = history.add_at(offset, voters)
    except HistoryError:
        expected = None
    assert value(accepted) == (expected is not None)
    assert entries_of(after) == (expected or history)


@settings(max_examples=200, deadline=None)
@given(histories(), lookups)
def test_value_at_or_before_and_last_value(history: VoterSetHistory, offset: int) -> None:
    h = vh.concrete_history(history)
    assert lookup(h, offset) == history.value_at_or_before(offset)
    assert vh.voter_set_value(MODEL, vh.last_value(h)) == history.last_value()


@settings(deadline=None)
@given(histories(), lookups)
def test_truncate_new_entries(history: VoterSetHistory, end: int) -> None:
    h = vh.concrete_history(history)
    assert entries_of(vh.truncate_new_entries(h, z3.IntVal(end))) == history.truncate_new_entries(end)
    broken = vh.truncate_new_entries_off_by_one(h, z3.IntVal(end))
    assert entries_of(broken) == vh.python_truncate_new_entries_off_by_one(history, end)


@settings(deadline=None)
@given(histories(), lookups)
def test_truncate_old_entries(history: VoterSetHistory, start: int) -> None:
    trimmed = vh.truncate_old_entries(vh.concrete_history(history), z3.IntVal(start))
    assert entries_of(trimmed) == history.truncate_old_entries(start)


@settings(max_examples=60, deadline=None)
@given(voter_sets, st.lists(st.tuples(offsets, voter_sets), max_size=vh.MAX_ENTRIES), st.none() | lookups)
def test_build_is_add_at_folded(static: VoterSet, additions: list[tuple[int, VoterSet]], cut: int | None) -> None:
    pad = vh.MAX_ENTRIES - len(additions)
    symbolic = vh.Additions(
        z3.IntVal(len(additions)),
        tuple(z3.IntVal(o) for o, _ in additions) + (z3.IntVal(0),) * pad,
        tuple(vh.voter_set_of(v) for _, v in additions) + (z3.BitVecVal(0, vh.WIDTH),) * pad)
    accepted, h = vh.build(vh.voter_set_of(static), symbolic, None if cut is None else (lambda o: o < cut))
    try:
        expected: VoterSetHistory | None = vh.rebuild(static, additions, cut)
    except HistoryError:
        expected = None
    assert all(value(a) for a in accepted) == (expected is not None)
    if expected is not None:
        assert entries_of(h) == expected


def test_python_off_by_one_keeps_the_entry_at_the_cut() -> None:
    h = VoterSetHistory(frozenset({(0, 0)})).add_at(-1, frozenset({(0, 0)})).add_at(3, frozenset({(0, 0), (1, 0)}))
    assert h.truncate_new_entries(3).value_at_or_before(3) == frozenset({(0, 0)})
    assert vh.python_truncate_new_entries_off_by_one(h, 3).value_at_or_before(3) == frozenset({(0, 0), (1, 0)})
    assert vh.python_truncate_new_entries_off_by_one(h, 2).entries == h.truncate_new_entries(2).entries


# --- the obligations -----------------------------------------------------------------------------


@pytest.mark.parametrize("obligation", vh.OBLIGATIONS, ids=lambda o: o.id)
def test_obligation_reaches_its_expected_status(obligation: Any) -> None:
    result = check(obligation, timeout_seconds=120)
    assert result.status == obligation.expected, result.reason
    assert result.ok


def test_off_by_one_counterexample_keeps_a_record_at_the_cut() -> None:
    result = check(vh.HISTORY_TRUNCATE_OFF_BY_ONE, timeout_seconds=120)
    cex = result.counterexample
    assert result.status == "refuted" and cex is not None and result.replay is not None
    cut = cex["truncate_at"]
    assert cut in [o for o, _ in cex["additions"]], "the broken truncation only differs with an entry at the cut"
    detail = result.replay.detail
    assert detail["truncate_new_entries"] == detail["rebuilt_from_truncated_log"]
    assert detail["truncate_new_entries_off_by_one"] != detail["rebuilt_from_truncated_log"]
    assert [cut, cex["additions"][[o for o, _ in cex["additions"]].index(cut)][1]] in (
        detail["truncate_new_entries_off_by_one"]["entries"])


def test_replay_rejects_non_counterexamples() -> None:
    # No entry at the cut: the broken truncation agrees with the real one.
    cex = {"static": [[0, 0]], "additions": [[-1, [[0, 0]]], [4, [[0, 0], [1, 0]]]], "truncate_at": 3,
           "lookup_offset": 5}
    for kind in ("new", "off_by_one"):
        assert not vh.replay(kind, cex).confirmed  # type: ignore[arg-type]
    assert not vh.replay("old", {**cex, "truncate_at": 4}).confirmed
    # With the entry at the cut the broken one shows the difference.
    assert vh.replay("off_by_one", {**cex, "truncate_at": 4, "lookup_offset": 4}).confirmed
    # Additions add_at refuses are no counterexample.
    refused = {**cex, "additions": [[2, [[0, 0]]], [1, [[0, 0]]]]}
    assert not vh.replay("off_by_one", refused).confirmed


def test_trim_that_drops_every_older_entry_is_refuted(monkeypatch: pytest.MonkeyPatch) -> None:
    # A trim that forgets to keep the last entry at or before the snapshot offset loses the voter
    # set in force at the snapshot offset: the proof must fail and the replay must not confirm it
    # on the real truncate_old_entries.
    def drop_all_older(h: vh.SymHistory, start: Any) -> vh.SymHistory:
        return vh._filter(h, lambda o: o > start)

    monkeypatch.setattr(vh, "truncate_old_entries", drop_all_older)
    result = check(vh.HISTORY_TRIM, timeout_seconds=120)
    assert result.status == "refuted"
    assert result.replay is not None and not result.replay.confirmed


def test_truncation_without_the_cut_is_refuted(monkeypatch: pytest.MonkeyPatch) -> None:
    # A history that is not truncated with the log at all (the model's history-not-truncated
    # variant) is caught by the same claim.
    monkeypatch.setattr(vh, "truncate_new_entries", lambda h, end: h)
    result = check(vh.HISTORY_TRUNCATE, timeout_seconds=120)
    assert result.status == "refuted"
    assert result.replay is not None and not result.replay.confirmed
