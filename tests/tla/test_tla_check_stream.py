"""``kspec tla check`` compares by streaming (#22): TLC's dump is read one state at a time and
each canonical state is kept as a 128-bit fingerprint (tla/check.py). Held here against the
comparison it replaced, which read the whole dump and compared sets of parsed states: the same
verdict, counts and first difference, on the toy spec (equal and different state sets) and on
raft at a small bound; and the streaming dump reader against the whole-file one."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import tla_toy_model as toy

from kspec.model.core.explorer import reachable_states
from kspec.model.core.protocol import Model
from kspec.model.raft import make
from kspec.tla.check import CheckResult, _canon, _order, check_agreement, fingerprint, render_canonical
from kspec.tla.mappings import TLAMapping, get_mapping
from kspec.tla.readers import TLCOutputError, iter_dump_file, read_dump_file
from kspec.tla.runner import run_tlc
from kspec.tla.values import FrozenDict, ModelValue


def in_memory(mapping: TLAMapping[Any], model: Model[Any, Any], bounds: Mapping[str, int | bool]) -> dict[str, Any]:
    """The comparison before streaming (tla/check.py up to session 10): the whole dump parsed
    into memory, sets of canonical states compared."""
    tlc = run_tlc(mapping.spec_path(), config_text=mapping.config(bounds), dump=True,
                  check_deadlock=mapping.check_deadlock, continue_after_violation=True, timeout=300)
    assert tlc.dump_states is not None
    tlc_set = {_canon(mapping.from_tlc, s, "from_tlc", mapping) for s in tlc.dump_states}
    inside = [s for s in reachable_states(model) if model.within_bounds(s)]
    model_set = {_canon(mapping.from_model, s, "from_model", mapping) for s in inside}
    only_tlc, only_model = tlc_set - model_set, model_set - tlc_set
    tlc_count = tlc.distinct_states if tlc.distinct_states is not None else len(tlc.dump_states)
    first = None
    if only_tlc:
        first = {"only_in": "tlc", "state": render_canonical(min(only_tlc, key=_order))}
    elif only_model:
        first = {"only_in": "model", "state": render_canonical(min(only_model, key=_order))}
    return {"tlc_distinct_states": tlc_count, "model_distinct_states": len(inside),
            "equal": not only_tlc and not only_model and tlc_count == len(inside),
            "only_in_tlc": len(only_tlc), "only_in_model": len(only_model), "first_difference": first}


def streamed(result: CheckResult) -> dict[str, Any]:
    doc = result.as_json()
    return {k: doc[k] for k in ("tlc_distinct_states", "model_distinct_states", "equal", "only_in_tlc",
                                "only_in_model", "first_difference")}


@pytest.mark.parametrize(("mapping", "model", "bounds"), [
    (toy.MAPPING, toy.Tokens(), {"procs": 2, "max_count": 2, "max_log": 2}),
    (toy.BROKEN_MAPPING, toy.Tokens(max_log=1, broken=True), {"procs": 2, "max_count": 2, "max_log": 1}),
], ids=["toy-equal", "toy-differs"])
def test_streaming_gives_the_old_verdict_and_counts(mapping: TLAMapping[Any], model: Any,
                                                     bounds: dict[str, int | bool]) -> None:
    old = in_memory(mapping, model, bounds)
    assert streamed(check_agreement(mapping, model, bounds, timeout=300)) == old
    assert old["equal"] is (mapping is toy.MAPPING)


def test_streaming_agrees_on_raft_at_a_small_bound() -> None:
    bounds: dict[str, int | bool] = {"max_epoch": 1, "max_appends": 0, "max_crashes": 0, "max_fetches": 1,
                                     "max_elections": 1, "symmetry": False}
    mapping = get_mapping("raft")
    new = streamed(check_agreement(mapping, make(**bounds), bounds, timeout=300))
    assert new == in_memory(mapping, make(**bounds), bounds)
    assert new["equal"] and new["tlc_distinct_states"] > 100


def test_a_differing_state_is_named_by_the_second_pass() -> None:
    """A mapping that moves one model state off TLC's (a planted difference) is shown as the
    old comparison showed it, from both sides."""
    bounds: dict[str, int | bool] = {"procs": 2, "max_count": 1, "max_log": 1}
    model = toy.Tokens(procs=2, max_count=1, max_log=1)
    base = toy.MAPPING

    def shifted(s: Any) -> Any:
        out = dict(base.from_model(s))
        if s.count == (1, 1):
            out["flags"] = FrozenDict({**out["flags"], "last": "planted"})
        return FrozenDict(out)

    planted = TLAMapping("toy", base.spec, base.config, shifted, variables=base.variables)
    new = streamed(check_agreement(planted, model, bounds, timeout=300))
    assert new == in_memory(planted, model, bounds)
    assert not new["equal"] and new["only_in_tlc"] == new["only_in_model"] >= 1
    assert new["first_difference"]["only_in"] == "tlc"


def test_fingerprints_follow_value_equality() -> None:
    a = FrozenDict({"x": frozenset({1, 2, 3}), "y": (ModelValue("Nil"), "s")})
    b = FrozenDict({"y": (ModelValue("Nil"), "s"), "x": frozenset({3, 2, 1})})
    assert fingerprint(a) == fingerprint(b) and len(fingerprint(a)) == 16
    assert fingerprint(a) != fingerprint(FrozenDict({"x": frozenset({1, 2}), "y": (ModelValue("Nil"), "s")}))
    assert fingerprint(FrozenDict({"y": "Nil"})) != fingerprint(FrozenDict({"y": ModelValue("Nil")}))


DUMP = """State 1:
/\\ x = 0
/\\ s = {1, 2}

State 2:
/\\ x = 1
/\\ s = { 1,
    2, 3 }

"""


def test_streamed_dump_reads_as_the_whole_file(tmp_path: Path) -> None:
    f = tmp_path / "states.dump"
    f.write_text(DUMP)
    assert list(iter_dump_file(f)) == read_dump_file(f) == [{"x": 0, "s": frozenset({1, 2})},
                                                           {"x": 1, "s": frozenset({1, 2, 3})}]


@pytest.mark.parametrize(("text", "line", "message"), [
    ("State 2:\n/\\ x = 0\n", 1, "expected state 1"),
    ("State 1:\n/\\ x = 0\n\nState 2:\n/\\ y = 0\n", 5, "other variables"),
    ("State 1:\n/\\ x = {\n", 2, "bad value of x"),
    ("/\\ x = 0\n", 1, "expected 'State N:'"),
], ids=["numbering", "variables", "truncated", "no-header"])
def test_streamed_dump_errors_name_the_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    f = tmp_path / "states.dump"
    f.write_text(text)
    with pytest.raises(TLCOutputError) as streamed_err:
        list(iter_dump_file(f))
    with pytest.raises(TLCOutputError) as whole_err:
        read_dump_file(f)
    assert streamed_err.value.line == whole_err.value.line == line
    assert message in streamed_err.value.message
