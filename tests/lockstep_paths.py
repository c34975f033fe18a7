"""Test helper shared by the conformance tests (tests/ is on pytest's pythonpath): run a
scripted path in lockstep and tell whether the target diverges on it."""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import JSON, Target
from kspec.conformance.drivers import guide
from kspec.conformance.harness import Divergence, Lockstep


def diverges(spec: Any, config: dict[str, JSON], target: Target, path: list[guide.Step]) -> bool:
    """Whether ``target`` diverges from the model of ``spec`` (a protocol spec, the driver's
    factory) on ``path`` in ``config``; every step must be one the driver offers."""
    session = Lockstep(spec.driver(config), target)
    try:
        for category, action in path:
            assert session.take(category, action), (category, action)
    except Divergence:
        return True
    finally:
        session.close()
    return False
