"""An overall time limit for a conformance run (``kspec conform --time-limit``).

The run is Hypothesis's; rather than reach into it, the target is wrapped: once the limit has
passed, the next step the harness asks of the target fails with a target error saying so, and
the run ends there with verdict ``error`` and the partial counterexample (the steps so far)
saved, as for any target error. A step in progress is bounded by ``--timeout``, so a run takes
at most the limit plus one step's timeout.
"""

from __future__ import annotations

import time
from typing import Any

from kspec.conformance.adapters.base import TargetError

DEFAULT_TIME_LIMIT = 1800.0  # seconds; the slowest default-budget runs recorded take ~340 s


class TimeLimited:
    """``target`` whose instances refuse to step once ``limit`` seconds have passed since this
    wrapper was made; ``expired`` then says so. Everything else is the target's."""

    def __init__(self, target: Any, limit: float, clock: Any = time.monotonic) -> None:
        self._target = target
        self.limit = limit
        self._clock = clock
        self._deadline = clock() + limit
        self.expired = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target, name)

    def check(self) -> None:
        """A TargetError once the limit has passed."""
        if self._clock() >= self._deadline:
            self.expired = True
            raise TargetError(f"time limit: {self.limit:g} s reached")

    def start(self, node: Any, config: Any) -> Any:
        self.check()
        return _TimeLimitedInstance(self, self._target.start(node, config))

    def close(self) -> None:
        self._target.close()


class _TimeLimitedInstance:
    def __init__(self, owner: TimeLimited, instance: Any) -> None:
        self._owner = owner
        self._instance = instance

    def __getattr__(self, name: str) -> Any:
        return getattr(self._instance, name)

    def step(self, inp: Any) -> Any:
        self._owner.check()
        return self._instance.step(inp)
