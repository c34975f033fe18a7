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


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Alarm()


def call_with_timeout(fn: Callable[[], Any], timeout: float, worker: _Worker | None) -> Any:
    """``fn()``, or TimeoutError after ``timeout`` seconds.

    In the main thread an interval timer interrupts the call (cheap: no thread hand-off per
    step); elsewhere the call runs on ``worker`` and is abandoned when it overruns.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        if worker is None:
            return fn()
        return worker.call(fn, timeout)
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return fn()
    except _Alarm:
        raise TimeoutError(f"no answer within {timeout:g}s") from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def check_result(result: object) -> tuple[list[JSON], dict[str, JSON]]:
    """The outputs and observation of a StepResult, or TargetError naming what is malformed."""
    if not isinstance(result, StepResult):
        raise TargetError(f"malformed step result: expected StepResult, got {type(result).__name__}")
    outputs, observation = result.outputs, result.observation
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
