"""Calls into a target, guarded: a time limit on every call (an interval timer in the main
thread, an abandonable worker thread elsewhere) and a check that a step's answer is well formed."""

from __future__ import annotations

import queue
import signal
import threading
from collections.abc import Callable
from typing import Any

from kspec.conformance.adapters.base import JSON, StepResult, TargetError
from kspec.conformance.findings import norm


class _Worker:
    """A daemon thread that runs target calls, so a hanging call can be abandoned."""

    def __init__(self) -> None:
        self.jobs: queue.Queue[tuple[Callable[[], Any], queue.Queue[tuple[bool, Any]]]] = queue.Queue()
        threading.Thread(target=self._run, daemon=True, name="kspec-target").start()

    def _run(self) -> None:
        while True:
            fn, reply = self.jobs.get()
            try:
                reply.put((True, fn()))
            except BaseException as err:
                reply.put((False, err))

    def call(self, fn: Callable[[], Any], timeout: float) -> Any:
        reply: queue.Queue[tuple[bool, Any]] = queue.Queue()
        self.jobs.put((fn, reply))
        try:
            ok, value = reply.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no answer within {timeout:g}s") from None
        if not ok:
            raise value
        return value


class _Alarm(BaseException):
    """Raised in the main thread by SIGALRM when a target call overruns (a BaseException, so a
    target's ``except Exception`` cannot swallow it)."""


def call_with_timeout(fn: Callable[[], Any], timeout: float, worker: _Worker | None) -> Any:
    """``fn()``, or TimeoutError after ``timeout`` seconds.

    In the main thread an interval timer interrupts the call (cheap: no thread hand-off per
    step); elsewhere the call runs on ``worker`` and is abandoned when it overruns.

    Once the timer has fired the call is a timeout whatever it did next. The alarm is raised
    where the main thread happens to be, and that may be Python code the target calls back
    from foreign code (a JPype proxy a Kafka client polls): the JVM turns it into a Java
    exception that Kafka may catch, log and go on from, or hand back as a JException. The call
    then returns, or raises something else, after the limit; taken at its word it would be a
    wrong answer (a divergence Hypothesis shrinks and cannot reproduce: FlakyStrategyDefinition).
    The alarm may also fire just after ``fn`` returned, before the timer is stopped.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        if worker is None:
            return fn()
        return worker.call(fn, timeout)
    fired = False

    def on_alarm(signum: int, frame: Any) -> None:
        nonlocal fired
        fired = True
        raise _Alarm()

    def overran() -> TimeoutError:
        return TimeoutError(f"no answer within {timeout:g}s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    try:
        try:
            signal.setitimer(signal.ITIMER_REAL, timeout)
            try:
                result = fn()
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)  # the alarm may still land here: caught below
        except BaseException:
            if fired:  # _Alarm itself, or what the target made of it
                raise overran() from None
            raise
        if fired:  # the target swallowed the alarm and answered late
            raise overran()
        return result
    finally:
        signal.signal(signal.SIGALRM, previous)


def check_result(result: object) -> tuple[list[JSON], dict[str, JSON]]:
    """The outputs and observation of a StepResult, or TargetError naming what is malformed."""
    outputs: object
    observation: object
    if isinstance(result, StepResult):
        outputs, observation = result.outputs, result.observation
    else:
        # A user's own result type with the same two members (earlier guides allowed it): read
        # at the boundary, where the target's code is not kspec's to type.
        outputs, observation = getattr(result, "outputs", None), getattr(result, "observation", None)
        if outputs is None or observation is None:
            raise TargetError(f"malformed step result: expected StepResult, got {type(result).__name__}")
    if not isinstance(outputs, list | tuple):
        raise TargetError(f"malformed outputs: expected a list, got {type(outputs).__name__}")
    for i, out in enumerate(outputs):
        if not isinstance(out, dict) or not isinstance(out.get("type"), str):
            raise TargetError(f"malformed output #{i}: expected an object with a 'type', got {out!r:.80}")
    if not isinstance(observation, dict):
        raise TargetError(f"malformed observation: expected an object, got {type(observation).__name__}")
    try:
        return norm(list(outputs)), norm(observation)
    except (TypeError, ValueError) as err:
        raise TargetError(f"malformed output: not JSON ({err})") from None
