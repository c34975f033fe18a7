"""Hypothesis state machines that run the model and a target in lockstep, per protocol.

:func:`lockstep_machine` builds a ``RuleBasedStateMachine`` from a protocol's driver: an
``initialize`` rule draws a cluster configuration, the ``step`` rule draws an index into the
model's enabled actions (a precondition, never ``assume``), and the harness checks the
target after every step. :data:`PROTOCOLS` names the drivers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from kspec.conformance.adapters.base import Target
from kspec.conformance.harness import DEFAULT_STEP_TIMEOUT, JSON, Choice, Lockstep


@dataclass(frozen=True)
class ProtocolSpec:
    """A protocol the conformance suite drives: its driver factory and configurations."""

    name: str
    driver: Callable[[dict[str, JSON]], Any]
    configs: list[dict[str, JSON]]


def _raft() -> ProtocolSpec:
    from kspec.conformance.machines.raft import CONFIGS, RaftDriver

    return ProtocolSpec("raft", RaftDriver, CONFIGS)


def _share() -> ProtocolSpec:
    from kspec.conformance.machines.share import CONFIGS, ShareDriver

    return ProtocolSpec("share", ShareDriver, CONFIGS)


PROTOCOLS: dict[str, Callable[[], ProtocolSpec]] = {"raft": _raft, "share": _share}


@dataclass
class RunLog:
    """What the machine runs leave behind: the last session and the last failing one."""

    runs: int = 0
    current: Lockstep | None = None
    failed: Lockstep | None = None
    config: dict[str, JSON] = field(default_factory=dict)
    on_run: Callable[[int], None] | None = None


def lockstep_machine(spec: ProtocolSpec, target: Target, log: RunLog,
                     step_timeout: float = DEFAULT_STEP_TIMEOUT) -> type[RuleBasedStateMachine]:
    """A RuleBasedStateMachine class driving ``target`` against the model of ``spec``."""

    class Lockstep_(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.session: Lockstep | None = None
            log.runs += 1
            if log.on_run is not None:
                log.on_run(log.runs)

        @initialize(config=st.sampled_from(spec.configs))
        def start(self, config: dict[str, JSON]) -> None:
            log.config = config
            self.session = Lockstep(spec.driver(config), target, step_timeout)
            log.current = self.session

        def _failed(self) -> None:
            log.failed = self.session

        @precondition(lambda self: self.session is not None and bool(self.session.enabled()))
        @rule(data=st.data())
        def step(self, data: st.DataObject) -> None:
            assert self.session is not None
            choices = self.session.enabled()
            i = data.draw(st.integers(0, len(choices) - 1), label="action")
            sub = 0
            action = choices[i][0]
            if isinstance(action, Choice):
                sub = data.draw(st.integers(0, len(action.options) - 1), label="which")
            try:
                self.session.apply(i, sub)
            except BaseException:
                self._failed()
                raise

        @precondition(lambda self: self.session is not None and not self.session.enabled())
        @rule()
        def idle(self) -> None:
            """Nothing is enabled (every action would leave the bounds): the run waits."""

        def teardown(self) -> None:
            if self.session is not None:
                self.session.close()

    Lockstep_.__name__ = Lockstep_.__qualname__ = f"{spec.name.capitalize()}Lockstep"
    return Lockstep_
