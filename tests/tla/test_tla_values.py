"""The Lark parser of TLA+ values as TLC prints them (``kspec.tla.values``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kspec.tla.runner import run_tlc
from kspec.tla.values import FrozenDict, ModelValue, ValueSyntaxError, format_value, parse_value, sort_key

TESTDATA = Path(__file__).with_name("testdata")
m1, m2 = ModelValue("m1"), ModelValue("m2")

FORMS = [
    ("42", 42),
    ("-7", -7),
    ("0", 0),
    ('"plain"', "plain"),
    ('""', ""),
    ('"q\\"uo\\\\te\\nx y"', 'q"uo\\te\nx y'),
    ("TRUE", True),
    ("FALSE", False),
    ("m1", m1),
    ("TRUEISH", ModelValue("TRUEISH")),
    ("<<1, \"x\", TRUE, m2>>", (1, "x", True, m2)),
    ("<<>>", ()),
    ("<< >>", ()),
    ("<<<<1>>, <<>>>>", ((1,), ())),
    ("{3, 1, 2}", frozenset({1, 2, 3})),
    ("{}", frozenset()),
    ("{{}, {{}}}", frozenset({frozenset(), frozenset({frozenset()})})),
    ("1..3", frozenset({1, 2, 3})),
    ("-1..1", frozenset({-1, 0, 1})),
    ("3..2", frozenset()),
    ("[a |-> 1]", FrozenDict({"a": 1})),
    ("[r |-> [s |-> <<>>], t |-> {}, u |-> -1]",
     FrozenDict({"r": FrozenDict({"s": ()}), "t": frozenset(), "u": -1})),
    ("(m1 :> 1)", FrozenDict({m1: 1})),
    ("(m1 :> 1 @@ m2 :> -2)", FrozenDict({m1: 1, m2: -2})),
    ("(0 :> 0 @@ 1 :> -1)", FrozenDict({0: 0, 1: -1})),
    ("(<<1, 2>> :> {m1} @@ <<2, 1>> :> {})", FrozenDict({(1, 2): frozenset({m1}), (2, 1): frozenset()})),
    ("(m1 :> (m2 :> <<(m1 :> 1)>>))", FrozenDict({m1: FrozenDict({m2: (FrozenDict({m1: 1}),)})})),
    ("[ n1 |->\n      << <<1, \"z\">>,\n         <<2, \"z\">> >>,\n  n2 |-> {} ]",
     FrozenDict({"n1": ((1, "z"), (2, "z")), "n2": frozenset()})),
]


@pytest.mark.parametrize(("text", "expected"), FORMS, ids=[t for t, _ in FORMS])
def test_every_form_parses_to_its_python_value(text: str, expected: object) -> None:
    value = parse_value(text)
    assert value == expected
    assert type(value) is type(expected)
    hash(value)


@pytest.mark.parametrize(("text", "expected"), FORMS, ids=[t for t, _ in FORMS])
def test_format_then_parse_round_trips(text: str, expected: object) -> None:
    assert parse_value(format_value(expected)) == expected


def test_a_record_is_a_function_on_strings() -> None:
    assert parse_value("[x |-> 1, y |-> 2]") == parse_value('("y" :> 2 @@ "x" :> 1)')
    assert hash(parse_value("[x |-> 1, y |-> 2]")) == hash(parse_value('("y" :> 2 @@ "x" :> 1)'))


def test_frozen_dict_is_order_free_hashable_and_immutable() -> None:
    a = FrozenDict([(m1, 1), (m2, 2)])
    b = FrozenDict({m2: 2, m1: 1})
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != FrozenDict({m1: 1})
    assert a == {m1: 1, m2: 2}
    with pytest.raises(TypeError):
        a[m1] = 3  # type: ignore[index]


def test_sort_key_orders_mixed_values_totally() -> None:
    values = [parse_value(t) for t, _ in FORMS]
    ordered = sorted(values, key=sort_key)
    assert sorted(reversed(values), key=sort_key) == ordered
    assert ordered[0] is False


MALFORMED = [
    ("", "ends early", 1),
    ("<<1,", "ends early", 5),
    ("<<1, 2", "ends early", 7),
    ("{1 2}", "unexpected '2'", 4),
    ("[a |-> ]", "unexpected ']'", 8),
    ("[a |-> 1, a |-> 2]", "repeated record field", None),
    ("(m1 :> 1 @@ m1 :> 2)", "repeated function argument m1", None),
    ("@", "unexpected character '@'", 1),
    ('"unterminated', "unexpected character '\"'", 1),
    ("1..", "ends early", 4),
    ("<<1>> 2", "unexpected '2'", 7),
    ("(m1)", "unexpected ')'", 4),
    ("[1 |-> 2]", "unexpected '1'", 2),
]


@pytest.mark.parametrize(("text", "message", "column"), MALFORMED, ids=[t or "empty" for t, _, _ in MALFORMED])
def test_malformed_values_are_one_clear_error(text: str, message: str, column: int | None) -> None:
    with pytest.raises(ValueSyntaxError) as info:
        parse_value(text)
    assert message in str(info.value)
    assert info.value.column == column
    assert "\n" not in str(info.value)


def test_every_form_as_real_tlc_prints_it() -> None:
    """TLC itself prints each form (long values wrapped over lines) into a dump we parse."""
    result = run_tlc(TESTDATA / "Values.tla", dump=True, check_deadlock=False, timeout=60)
    assert result.distinct_states == 1
    assert result.dump_states is not None
    (state,) = result.dump_states
    assert state == {
        "int": 42,
        "neg": -7,
        "str": 'q"uo\\te\nx y',
        "bool": False,
        "mv": m1,
        "seq": (1, "x", True, m2),
        "emptyseq": (),
        "emptyfun": (),
        "set": frozenset({1, 2, 3}),
        "emptyset": frozenset(),
        "nestedset": frozenset({frozenset(), frozenset({frozenset()}), frozenset({frozenset({frozenset()})})}),
        "interval": frozenset({1, 2, 3}),
        "rec": FrozenDict({"r": FrozenDict({"s": ()}), "t": frozenset(), "u": -1}),
        "fun": FrozenDict({m1: 1, m2: -2}),
        "strfun": FrozenDict({"x": True, "y": False}),
        "tuplefun": FrozenDict({(1, 2): frozenset({m1}), (2, 1): frozenset({m1})}),
        "seqfun": (FrozenDict({m1: 1}), FrozenDict({m1: 2})),
        "long": tuple(FrozenDict({"q": p, "longfieldname": "abcdefghij", "other": frozenset({p, p + 1})})
                      for p in range(1, 7)),
        "wide": FrozenDict({n: tuple((x, "z" * 21) for x in (1, 2, 3)) for n in ("n1", "n2")}),
    }
