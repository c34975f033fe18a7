"""TLA+ values as TLC prints them, parsed into hashable Python values (grammar: ``values.lark``).

=================================  =====================================================
TLC prints                         Python value
=================================  =====================================================
``3``, ``-1``                      ``int``
``"a\\"b"``                        ``str`` (escapes undone)
``TRUE`` / ``FALSE``               ``bool``
``p1`` (a model value)             :class:`ModelValue`
``<<1, 2>>``, ``<<>>``, ``<< >>``  ``tuple`` (TLC prints a function on 1..n, and the empty
                                   function, as a sequence; they are equal in TLA+ too)
``{1, 2}``, ``{}``, ``1..3``       ``frozenset``
``[a |-> 1]``                      :class:`FrozenDict` with ``str`` keys
``(p1 :> 1 @@ p2 :> 2)``           :class:`FrozenDict` (a record is a function on strings,
                                   so ``[a |-> 1]`` equals ``("a" :> 1)``, as in TLA+)
=================================  =====================================================

The parser is Lark's LALR parser with the transformer applied while parsing (no parse tree
is built), and :func:`parse_value` remembers the texts it has seen, because the variables of
the states in a dump repeat the same few values many times.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

GRAMMAR_PATH = Path(__file__).with_name("values.lark")


@dataclass(frozen=True, slots=True, order=True)
class ModelValue:
    """A TLC model value (a CONSTANT bound to itself in the .cfg, e.g. ``p1``)."""

    name: str

    def __str__(self) -> str:
        return self.name


class FrozenDict(Mapping[Any, Any]):
    """An immutable, hashable mapping: a TLA+ record or function.

    Equal mappings hash equally whatever the order their items were given in.
    """

    __slots__ = ("_data", "_hash")

    def __init__(self, items: Mapping[Any, Any] | Iterator[tuple[Any, Any]] | list[tuple[Any, Any]] | tuple[
            tuple[Any, Any], ...] = ()) -> None:
        self._data: dict[Any, Any] = dict(items)
        self._hash: int | None = None

    def __getitem__(self, key: Any) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._data.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenDict):
            return self._data == other._data
        if isinstance(other, Mapping):
            return self._data == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        inner = ", ".join(f"{k!r}: {v!r}" for k, v in sorted(self._data.items(), key=lambda kv: sort_key(kv[0])))
        return f"FrozenDict({{{inner}}})"


class ValueSyntaxError(ValueError):
    """Text that is not a TLA+ value as TLC prints it; ``column`` is 1-based."""

    def __init__(self, message: str, text: str, column: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.text = text
        self.column = column


_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r", "f": "\f"}


def _unescape(body: str) -> str:
    if "\\" not in body:
        return body
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            out.append(_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


@v_args(inline=True)
class _ToPython(Transformer[Token, Any]):
    """Builds Python values while the LALR parser reduces (no parse tree in between)."""

    def integer(self, tok: Token) -> int:
        return _bounded_int(tok)

    def interval(self, lo: Token, hi: Token) -> frozenset[int]:
        a, b = _bounded_int(lo), _bounded_int(hi)
        if b - a >= MAX_INTERVAL:
            raise _TooBig(f"interval {a}..{b} has more than {MAX_INTERVAL} elements")
        return frozenset(range(a, b + 1))

    def string(self, tok: Token) -> str:
        return _unescape(tok[1:-1])

    def true(self) -> bool:
        return True

    def false(self) -> bool:
        return False

    def model_value(self, tok: Token) -> ModelValue:
        return ModelValue(str(tok))

    def empty_sequence(self) -> tuple[()]:
        return ()

    def sequence(self, *items: Any) -> tuple[Any, ...]:
        return items

    def empty_set(self) -> frozenset[Any]:
        return frozenset()

    def set(self, *items: Any) -> frozenset[Any]:
        return frozenset(items)

    def field(self, name: Token, value: Any) -> tuple[str, Any]:
        return (str(name), value)

    def pair(self, key: Any, value: Any) -> tuple[Any, Any]:
        return (key, value)

    def record(self, *fields: tuple[str, Any]) -> FrozenDict:
        return _mapping(fields, "record field")

    def function(self, *pairs: tuple[Any, Any]) -> FrozenDict:
        return _mapping(pairs, "function argument")


# Bounds on what a value read from text may make the parser build (docs/threat-model.md).
MAX_DIGITS = 60
MAX_INTERVAL = 100_000


class _TooBig(Exception):
    """A number or interval beyond the bounds above (raised inside the parser)."""


def _bounded_int(tok: str) -> int:
    if len(tok.lstrip("-")) > MAX_DIGITS:
        raise _TooBig(f"integer of {len(tok.lstrip('-'))} digits (at most {MAX_DIGITS})")
    return int(tok)


class _RepeatedKey(Exception):
    """A record field or function argument given twice (raised inside the parser)."""


def _mapping(items: tuple[tuple[Any, Any], ...], what: str) -> FrozenDict:
    out = FrozenDict(items)
    if len(out) != len(items):
        seen: set[Any] = set()
        for k, _ in items:
            if k in seen:
                raise _RepeatedKey(f"repeated {what} {format_value(k)}")
            seen.add(k)
    return out


_PARSER: Lark | None = None


def _parser() -> Lark:
    global _PARSER
    if _PARSER is None:
        _PARSER = Lark(GRAMMAR_PATH.read_text(), parser="lalr", transformer=_ToPython(), start="start",
                       propagate_positions=False, maybe_placeholders=False)
    return _PARSER


_CACHE: dict[str, Any] = {}
_CACHE_LIMIT = 200_000


def parse_value(text: str) -> Any:
    """Parse one value as TLC prints it; raises :class:`ValueSyntaxError` for anything else."""
    try:
        return _CACHE[text]
    except KeyError:
        pass
    try:
        value = _parser().parse(text)
    except UnexpectedEOF:
        raise ValueSyntaxError("value ends early", text, len(text) + 1) from None
    except UnexpectedCharacters as err:
        pos = err.pos_in_stream or 0
        raise ValueSyntaxError(f"unexpected character {text[pos:pos + 1]!r}", text, pos + 1) from None
    except UnexpectedToken as err:
        if err.token.type == "$END":
            raise ValueSyntaxError("value ends early", text, len(text) + 1) from None
        pos = err.token.start_pos
        raise ValueSyntaxError(f"unexpected {str(err.token)!r}", text, None if pos is None else pos + 1) from None
    except UnexpectedInput as err:  # any other Lark input error
        raise ValueSyntaxError(str(err).splitlines()[0], text, None) from None
    except (_RepeatedKey, _TooBig, VisitError) as err:  # a check inside the transformer
        raise ValueSyntaxError(str(getattr(err, "orig_exc", err)), text, None) from None
    if len(_CACHE) >= _CACHE_LIMIT:
        _CACHE.clear()
    _CACHE[text] = value
    return value


def sort_key(value: Any) -> tuple[Any, ...]:
    """A total order over parsed values (booleans, integers, strings, model values, then compounds)."""
    if isinstance(value, bool):
        return (0, value)
    if isinstance(value, int):
        return (1, value)
    if isinstance(value, str):
        return (2, value)
    if isinstance(value, ModelValue):
        return (3, value.name)
    if isinstance(value, tuple):
        return (4, len(value), tuple(sort_key(v) for v in value))
    if isinstance(value, frozenset):
        return (5, len(value), tuple(sorted(sort_key(v) for v in value)))
    if isinstance(value, Mapping):
        return (6, len(value), tuple(sorted((sort_key(k), sort_key(v)) for k, v in value.items())))
    return (7, repr(value))


def _string(s: str) -> str:
    out = s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
    return f'"{out}"'


def format_value(value: Any) -> str:
    """Render a value in TLC's notation (one line; sets and mappings in a fixed order)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, ModelValue):
        return value.name
    if isinstance(value, tuple):
        return "<<" + ", ".join(format_value(v) for v in value) + ">>"
    if isinstance(value, frozenset | set):
        return "{" + ", ".join(format_value(v) for v in sorted(value, key=sort_key)) + "}"
    if isinstance(value, Mapping):
        keys = sorted(value, key=sort_key)
        if not keys:
            return "<<>>"
        if all(isinstance(k, str) and k.isidentifier() for k in keys):
            return "[" + ", ".join(f"{k} |-> {format_value(value[k])}" for k in keys) + "]"
        return "(" + " @@ ".join(f"{format_value(k)} :> {format_value(value[k])}" for k in keys) + ")"
    raise TypeError(f"not a TLA+ value: {value!r}")


def format_state(state: Mapping[str, Any], joiner: str = "\n") -> str:
    """A state as TLC prints it: ``/\\ var = value`` per variable, in variable-name order."""
    return joiner.join(f"/\\ {k} = {format_value(state[k])}" for k in sorted(state))


ValueParser = Callable[[str], Any]
