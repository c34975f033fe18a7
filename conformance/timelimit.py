"""An overall time limit for a conformance run (``kspec conform --time-limit``).

The run is Hypothesis's; rather than reach into it, the target is wrapped: once the limit has
passed, the next step the harness asks of the target fails with a target error saying so, and
the run ends there with verdict ``error`` and the partial counterexample (the steps so far)
saved, as for any target error. A step in progress is bounded by ``--timeout``, so a run takes
at most the limit plus one step's timeout.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from kspec.conformance.adapters.base import (
    JSON,
    Instance,
    StepResult,
    Target,
    TargetError,
    TargetWrapper,
    TimedInstance,
)


class TimeLimitReached(TargetError):
    """The run's overall time limit has passed: never a refusal of the configuration whose start
    it interrupted (the harness reports it in field ``time_limit``), so the run ends at once
    rather than exploring every other configuration's guided paths first."""


DEFAULT_TIME_LIMIT = 1800.0  # seconds; the slowest default-budget runs recorded take ~340 s


class TimeLimited(TargetWrapper):
    """``target`` whose instances refuse to step once ``limit`` seconds have passed since this
    wrapper was made; ``expired`` then says so. Everything else is the target's."""

    def __init__(self, target: Target, limit: float, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(target)
        self.limit = limit
        self._clock = clock
        self._deadline = clock() + limit
        self.expired = False

    def check(self) -> None:
        """A TargetError once the limit has passed."""
        if self._clock() >= self._deadline:
            self.expired = True
            raise TimeLimitReached(f"time limit: {self.limit:g} s reached")

    def start(self, node: Any, config: dict[str, JSON]) -> Instance:
        # Not checked here: a start is bounded by --timeout, and the first step after it fails
        # with the limit, so the partial counterexample holds that step.
        inner = self.inner.start(node, config)
        if isinstance(inner, TimedInstance):  # the timers stay visible (raft liveness)
            return _TimedTimeLimitedInstance(self, inner)
        return _TimeLimitedInstance(self, inner)


class _TimeLimitedInstance:
    def __init__(self, owner: TimeLimited, instance: Instance) -> None:
        self._owner = owner
        self._instance = instance

    def step(self, inp: JSON) -> StepResult:
        self._owner.check()
        return self._instance.step(inp)

    def close(self) -> None:
        self._instance.close()


class _TimedTimeLimitedInstance(_TimeLimitedInstance):
    def __init__(self, owner: TimeLimited, instance: Any) -> None:
        super().__init__(owner, instance)
        self._timed: TimedInstance = instance

    def timers(self) -> dict[str, int]:
        return self._timed.timers()

    def elapse(self, ms: int) -> None:
        self._timed.elapse(ms)
