"""The voter-set history against Kafka's documented semantics, case by case (datadriven
fixtures citing VoterSetHistoryTest / TreeMapLogHistoryTest), and a differential test of
the history against a brute-force recomputation from the full list of additions."""

from __future__ import annotations

from pathlib import Path

import pytest
from datadriven import Case, run_file
from hypothesis import given, settings
from hypothesis import strategies as st

from kspec.model.voters.history import (
    HistoryError,
    LogHistory,
    VoterSet,
    VoterSetHistory,
    oracle_value_at_or_before,
)

DATA = Path(__file__).parent / "testdata"


def parse_voters(text: str) -> VoterSet:
    """``1,2,3`` or ``1:7,2`` (replica id, optional directory id; the directory defaults to the id)."""
    if text in ("", "-"):
        return frozenset()
    out = set()
    for part in text.split(","):
        rid, _, did = part.partition(":")
        out.add((int(rid), int(did) if did else int(rid)))
    return frozenset(out)


def show(voters: VoterSet | None) -> str:
    if voters is None:
        return "none"
    return "{" + ",".join(str(r) if r == d else f"{r}:{d}" for r, d in sorted(voters)) + "}"


def show_history(h: VoterSetHistory) -> str:
    entries = " ".join(f"{o}:{show(v)}" for o, v in h.entries)
    return f"static={show(h.static)} entries=[{entries}]"


class Handler:
    """Runs fixture commands against one history value that the cases of a file share."""

    def __init__(self) -> None:
        self.h = VoterSetHistory(frozenset())
        self.g: LogHistory[str] = LogHistory()

    def __call__(self, case: Case) -> str:
        try:
            return self.run(case)
        except HistoryError as err:
            return f"error: {err}"

    def run(self, case: Case) -> str:
        c = case.command
        if c == "new":
            self.h = VoterSetHistory(parse_voters(case.arg("static", "")))
            return show_history(self.h)
        if c == "add":
            self.h = self.h.add_at(int(case.arg("offset")), parse_voters(case.arg("voters")))
            return show_history(self.h)
        if c == "at":
            return " ".join(f"{o}:{show(self.h.value_at_or_before(int(o)))}" for o in case.arg("offsets").split(","))
        if c == "last":
            return show(self.h.last_value())
        if c == "truncate-new":
            self.h = self.h.truncate_new_entries(int(case.arg("end")))
            return show_history(self.h)
        if c == "truncate-old":
            self.h = self.h.truncate_old_entries(int(case.arg("start")))
            return show_history(self.h)
        if c == "clear":
            self.h = self.h.clear()
            return show_history(self.h)
        # The generic history (TreeMapLogHistory) with string values.
        if c == "log-new":
            self.g = LogHistory()
            return "ok"
        if c == "log-add":
            self.g = self.g.add_at(int(case.arg("offset")), case.arg("value"))
            return self.show_log()
        if c == "log-at":
            return " ".join(f"{o}:{self.g.value_at_or_before(int(o))}" for o in case.arg("offsets").split(","))
        if c == "log-last":
            return str(self.g.last_entry())
        if c == "log-truncate-new":
            self.g = self.g.truncate_new_entries(int(case.arg("end")))
            return self.show_log()
        if c == "log-truncate-old":
            self.g = self.g.truncate_old_entries(int(case.arg("start")))
            return self.show_log()
        raise ValueError(f"{case.path}:{case.line}: unknown command {c}")

    def show_log(self) -> str:
        return "[" + " ".join(f"{o}:{v}" for o, v in self.g.entries) + "]"


@pytest.mark.parametrize("name", ["voter_set_history.txt", "log_history.txt"])
def test_history_fixtures(name: str, rewrite: bool) -> None:
    run_file(DATA / name, Handler(), rewrite)


def test_fixture_files_exist() -> None:
    names = {p.name for p in DATA.glob("*.txt")}
    assert {"voter_set_history.txt", "log_history.txt"} <= names


# ---------------------------------------------------------------- differential test

voter_sets = st.frozensets(st.tuples(st.integers(1, 5), st.integers(0, 1)), max_size=4)
ops = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.integers(-2, 12), voter_sets),
        st.tuples(st.just("new"), st.integers(-2, 12), st.just(frozenset())),
        st.tuples(st.just("old"), st.integers(-2, 12), st.just(frozenset())),
    ),
    max_size=12,
)


@settings(max_examples=400, deadline=None)
@given(static=voter_sets, program=ops)
def test_history_matches_brute_force(static: VoterSet, program: list[tuple[str, int, VoterSet]]) -> None:
    """The history agrees with the full list of (offset, voter set) additions, recomputed from
    scratch, on every query: value at or before any offset that is still kept, and last value."""
    h = VoterSetHistory(static)
    pairs: list[tuple[int, VoterSet]] = []  # the brute-force list of kept additions
    for op, offset, voters in program:
        if op == "add":
            last = pairs[-1] if pairs else None
            bad = offset < -1 or (last is not None and offset <= last[0])
            if bad:
                with pytest.raises(HistoryError):
                    h.add_at(offset, voters)
                continue
            h = h.add_at(offset, voters)
            pairs.append((offset, voters))
        elif op == "new":
            h = h.truncate_new_entries(offset)
            pairs = [p for p in pairs if p[0] < offset]
        else:
            before = pairs
            h = h.truncate_old_entries(offset)
            older = [p for p in pairs if p[0] <= offset]
            pairs = older[-1:] + [p for p in pairs if p[0] > offset]
            # Trimming never changes the answer at or after the trim point.
            for q in range(offset, 14):
                assert oracle_value_at_or_before(before, q) == oracle_value_at_or_before(pairs, q)
        assert h.last_value() == (pairs[-1][1] if pairs else static)
        assert h.last_entry() == (pairs[-1] if pairs else None)
        for q in range(-3, 14):
            assert h.value_at_or_before(q) == oracle_value_at_or_before(pairs, q), (q, h, pairs)
        offsets = [o for o, _ in h.entries]
        assert offsets == sorted(set(offsets)), "VOTERS-INV-HISTORY-ORDER"
