"""Bounded liveness on random walks (``kspec simulate``): "within N steps after the last fault".

From a state where the faults stop, a seeded random walk of the protocol's suffix
(``kspec.model.core.liveness.Suffix``: no faults, its timing assumptions) runs ``2 * within``
steps, picking uniformly among the suffix's actions (a random scheduler is fair with
probability one). Each liveness property is judged in its bounded form:

- ``eventually_always``: the goal holds at step ``within`` and at every step after it;
- ``eventually_never_step``: the event does not happen after step ``within``;
- ``not_stuck``: no key waits for more than ``within`` steps in a row.

A walk that stops because nothing is enabled ends in a state that stays: it is judged as if
that state repeated. A walk that leaves the suffix bounds violates the properties whose
``escape_violates`` says so and leaves the others unjudged.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from kspec.model.core.liveness import LivenessProperty, Suffix


@dataclass
class BoundedOutcome:
    """One walk's verdicts: property name -> holds | violated | not-checked, and why."""

    verdicts: dict[str, str]
    detail: dict[str, str] = field(default_factory=dict)
    steps: list[tuple[Any, Any]] = field(default_factory=list)  # (action, state after)


def bounded_walk(suffix: Suffix[Any, Any], state: Any, rng: random.Random, within: int,
                 applies: dict[str, int | bool] | None = None) -> BoundedOutcome:
    """The bounded verdicts of one fair random walk from ``state`` (see the module docstring)."""
    props = [p for p in suffix.properties() if applies is None or p.applies(applies)]
    out = BoundedOutcome({p.name: "not-checked" for p in suffix.properties()})
    state = suffix.enter(state)
    waiting_since: dict[tuple[str, Hashable], int] = {}
    goal_since: dict[str, int | None] = {p.name: None for p in props}
    last_event: dict[str, int] = {}
    escaped = False
    taken = 0
    for taken in range(2 * within + 1):
        for p in props:
            if p.kind == "eventually_always":
                if p.goal(state):
                    if goal_since[p.name] is None:
                        goal_since[p.name] = taken
                else:
                    goal_since[p.name] = None
            elif p.kind == "not_stuck":
                keys = p.waiting(state)
                for key in list(waiting_since):
                    if key[0] == p.name and key[1] not in keys:
                        del waiting_since[key]
                for k in keys:
                    start = waiting_since.setdefault((p.name, k), taken)
                    if taken - start > within and out.verdicts[p.name] != "violated":
                        out.verdicts[p.name] = "violated"
                        out.detail[p.name] = f"{k!r} waits {taken - start} steps after the last fault (bound {within})"
        if taken == 2 * within:
            break
        enabled = [(a, n) for a in suffix.actions(state) if (n := suffix.next_state(state, a)) is not None]
        if not enabled:
            break
        action, nxt = enabled[rng.randrange(len(enabled))]
        for p in props:
            if p.kind == "eventually_never_step" and p.check(state, action, nxt):
                last_event[p.name] = taken + 1
        out.steps.append((action, nxt))
        state = nxt
        if not suffix.within_bounds(state):
            escaped = True
            break
    quiet = not escaped and taken < 2 * within  # nothing enabled: the last state stays
    for p in props:
        name = out.verdicts[p.name]
        if name == "violated":
            continue
        if escaped:
            if p.escape_violates:
                out.verdicts[p.name] = "violated"
                out.detail[p.name] = f"the walk left the suffix bounds after {len(out.steps)} steps"
            continue
        if p.kind == "eventually_always":
            since = goal_since[p.name]
            ok = since is not None and (quiet or since <= within)
            out.verdicts[p.name] = "holds" if ok else "violated"
            if not ok:
                out.detail[p.name] = (f"the goal does not hold from step {within} after the last fault on "
                                      f"({len(out.steps)} steps walked)")
        elif p.kind == "eventually_never_step":
            late = last_event.get(p.name, 0)
            ok = late <= within
            out.verdicts[p.name] = "holds" if ok else "violated"
            if not ok:
                out.detail[p.name] = f"the event happens at step {late} after the last fault (bound {within})"
        elif quiet and p.waiting(state):
            out.verdicts[p.name] = "violated"
            out.detail[p.name] = f"{sorted(map(repr, p.waiting(state)))} wait in a state nothing leaves"
        else:
            out.verdicts[p.name] = "holds"
    return out


def merge(total: dict[str, str], one: dict[str, str]) -> None:
    """Fold one walk's verdicts into ``total``: violated wins, then holds."""
    for name, v in one.items():
        if v == "violated" or (v == "holds" and total.get(name, "not-checked") == "not-checked"):
            total[name] = v


__all__ = ["BoundedOutcome", "LivenessProperty", "bounded_walk", "merge"]
