"""A law: a named property of the thing under test (an mm2 policy, a streams router) at one
input, which holds wherever its precondition does not apply. The laws of a protocol are data
(its ``laws.py``); the drivers and the tests run each law over generated inputs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

U = TypeVar("U")  # what the law is about (a policy lookup, a router)
In = TypeVar("In")  # one input the law is checked at


@dataclass(frozen=True, slots=True)
class Law(Generic[U, In]):
    """A named law: ``precondition(input)`` and ``check(under_test, input)``."""

    id: str
    name: str
    doc: str
    check: Callable[[U, In], bool]
    precondition: Callable[[In], bool]

    def holds(self, under_test: U, inp: In) -> bool:
        """True when the precondition fails or the law holds at ``inp``."""
        return not self.precondition(inp) or self.check(under_test, inp)
