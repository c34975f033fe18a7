"""Plain-text and JSON renderings of model traces for the CLI."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kspec.model.core.codec import encode
from kspec.model.core.explorer import Step
from kspec.model.core.protocol import DescribesActions, DescribesStates


def describe_action(model: object, action: Any) -> str:
    """A one-line description of an action, using the model's describer when it has one."""
    return model.describe_action(action) if isinstance(model, DescribesActions) else repr(action)


def describe_state(model: object, state: Any) -> str:
    """A compact multi-line description of a state, using the model's describer when it has one."""
    return model.describe_state(state) if isinstance(model, DescribesStates) else repr(state)


def render_trace(trace: Sequence[Step], model: Any) -> str:
    """Each step as ``n. action`` followed by the state after it, indented."""
    lines = []
    for n, step in enumerate(trace):
        head = "initial state" if step.action is None else describe_action(model, step.action)
        lines.append(f"  {n:>3}. {head}")
        for row in describe_state(model, step.state).splitlines():
            lines.append(f"         {row}")
    return "\n".join(lines)


def trace_json(trace: Sequence[Step]) -> list[dict[str, Any]]:
    """A trace as JSON: one object per step with the action and the state after it."""
    return [{"action": encode(s.action), "state": encode(s.state)} for s in trace]
