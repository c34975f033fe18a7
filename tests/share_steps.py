"""Feed a share driver's steps to a target shard input by input (the share driver tests' helper)."""

from __future__ import annotations

from typing import Any

from kspec.conformance.drivers.share import ShareDriver
from kspec.conformance.targets.registry import resolve_target


def first_difference(driver: ShareDriver, steps: list[tuple[Any, Any]], target: str) -> str | None:
    """Feed the events of ``steps`` ((state before, action) pairs) to ``target``; the type of the
    first input whose outputs or observation differ from the model's, or None."""
    node = resolve_target(target, "share").start(0, driver.node_config(0))
    for before, action in steps:
        after = driver.resolve(before, action)
        assert after is not None
        for ev in driver.events(before, action, after):
            got = node.step(ev.input)
            outs = [driver.comparable(o) for o in got.outputs]
            if outs != [driver.comparable(o) for o in ev.model_outputs] or driver.canonical_observation(
                    ev.input, got.observation) != driver.canonical_observation(ev.input, ev.model_observation):
                return str(ev.input["type"])
    return None


def walk(driver: ShareDriver, state: Any, actions: list[Any]) -> list[tuple[Any, Any]]:
    """The (state before, action) pairs of taking ``actions`` from ``state``, each one enabled."""
    steps = []
    for action in actions:
        steps.append((state, action))
        state = driver.resolve(state, action)
        assert state is not None, action
    return steps
