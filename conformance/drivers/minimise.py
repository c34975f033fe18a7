"""Shortening a failing run (the minimiser) and asking whether a catalogued deviation explains a
divergence: both replay a run's actions, or some of them, on a fresh lockstep session."""

from __future__ import annotations

import contextlib
from typing import Any

from kspec.conformance.adapters.base import Target
from kspec.conformance.drivers import PROTOCOLS, macros
from kspec.conformance.harness import DEFAULT_STEP_TIMEOUT, Divergence, Finding, Lockstep, TargetFailure


def minimise(protocol: str, target: Target, config: dict[str, Any], taken: list[tuple[str, Any]],
             finding: Finding, step_timeout: float = DEFAULT_STEP_TIMEOUT,
             forced: tuple[str, ...] = ()) -> Lockstep | None:
    """Delta debugging (ddmin) after Hypothesis's shrinking, with "diverges the same way (same
    kind and field)" as the oracle: leave out blocks of actions (halves, quarters ...), then
    single actions, then pairs of actions, and start again whenever something could be left
    out. Hypothesis shrinks the choices that pick the actions, and deleting one step shifts
    what the later choices pick, so its result often keeps steps that are not needed; a pair
    matters when two steps only make sense together (a request and its response). What it
    returns has no removable action and, up to ``PAIR_LIMIT`` actions, no removable pair.
    Deterministic (no clock): at most ``MINIMISE_ATTEMPTS_PER_STEP`` replays per action for
    blocks and singles, plus the pairs. Returns the shortest failing session found, or None
    when nothing could be left out. ``forced`` categories (a driver's opening) are kept."""
    spec = PROTOCOLS[protocol]()
    best: Lockstep | None = None
    current = list(taken)
    # A macro goes in whole or not at all: first take each as its model actions, one by one,
    # so that the ones the divergence does not need can be left out too.
    has_macro = any(isinstance(a, macros.MACRO_TYPES) for _, a in current)
    flat = _replay_actions(spec, target, config, current, step_timeout, flatten=True) if has_macro else None
    if flat is not None and _same_finding(flat, finding):
        best, current = flat, list(flat.taken)
    attempts = MINIMISE_ATTEMPTS_PER_STEP * len(current)

    def without(drop: set[int]) -> bool:
        """Replay ``current`` without the actions at ``drop``; keep the result when it still
        diverges the same way."""
        nonlocal best, current, attempts
        attempts -= 1
        session = _replay_actions(spec, target, config, [a for k, a in enumerate(current) if k not in drop],
                                  step_timeout)
        if _same_finding(session, finding):
            assert session is not None
            best, current = session, list(session.taken)
            return True
        return False

    def free() -> list[int]:
        return [k for k, (category, _) in enumerate(current) if category not in forced]

    changed = True
    while changed and attempts > 0:
        changed = False
        # Blocks: halves of the removable actions, then quarters ... (from the end: the steps
        # after the divergence's cause are the likeliest to go).
        size = len(free()) // 2
        while size >= 2 and attempts > 0:
            idx = free()
            removed = False
            for start in range(len(idx) - size, -1, -size):
                if attempts <= 0:
                    break
                if without(set(idx[start:start + size])):
                    removed = changed = True
                    break
            if not removed:
                size //= 2
        # Single actions.
        i = len(current) - 1
        while i >= 0 and attempts > 0:
            if current[i][0] not in forced and without({i}):
                changed = True
            i = min(i - 1, len(current) - 1)
        if changed:
            continue
        # Pairs (only once no single action can go): every pair, while the run is short.
        idx = free()
        if len(idx) <= PAIR_LIMIT:
            kept = attempts  # pairs are bounded by PAIR_LIMIT, not by the attempts
            for a in range(len(idx)):
                for b in range(a + 1, len(idx)):
                    if without({idx[a], idx[b]}):
                        changed = True
                        break
                if changed:
                    break
            # After a pair went, the singles get another pass over the (shorter) run.
            attempts = max(kept, len(current) + 1) if changed else kept
    return best


MINIMISE_ATTEMPTS_PER_STEP = 4
# Pairs are tried up to this many removable actions (at most 190 replays of a minimal run).
PAIR_LIMIT = 20


def _same_finding(session: Lockstep | None, finding: Finding) -> bool:
    """Whether ``session`` diverged the way ``finding`` says (kind and field; the step may move)."""
    return session is not None and session.finding is not None and (
        session.finding.kind, session.finding.field) == (finding.kind, finding.field)


def _replay_actions(spec: Any, target: Target, config: dict[str, Any], actions: list[tuple[str, Any]],
                    step_timeout: float, flatten: bool = False) -> Lockstep | None:
    """A fresh lockstep session fed ``actions`` in order (with ``flatten``, every macro as the
    model actions it expands into): the session when it diverged, None when an action is no
    longer enabled, the run conformed or the target failed."""
    session = Lockstep(spec.driver(config), target, step_timeout)
    try:
        for category, action in actions:
            if flatten and isinstance(action, macros.MACRO_TYPES) and isinstance(session.driver, macros.MacroSteps):
                for sub, _after in session.driver.sub_steps(session.state, action):
                    if not session.take(session.category_of(sub) or "", sub):
                        return None
            elif not session.take(category, action):
                return None
    except Divergence:
        return session
    except TargetFailure:
        return None
    finally:
        with contextlib.suppress(Exception):
            session.close()
    return None


def explained_by(spec: Any, target: Target, config: dict[str, Any], actions: list[tuple[str, Any]],
                 finding: Finding, variant: str, step_timeout: float = DEFAULT_STEP_TIMEOUT) -> bool:
    """Whether the model with ``variant`` added (a catalogued deviation's) no longer diverges from
    ``target`` at or before ``finding``'s step when fed the same ``actions``: the deviation then
    explains the divergence. False when the variant's model does not enable an action of the run
    (it cannot tell) or the target fails."""
    joined = "+".join(v for v in (str(config.get("model_variant") or ""), variant) if v)
    try:
        driver = spec.driver({**config, "model_variant": joined})
    except ValueError:
        # the accepted deviations' variants and this one do not compose (raft: more than one
        # changes the replica's step), so the model cannot say whether this one explains it
        return False
    session = Lockstep(driver, target, step_timeout)
    try:
        for category, action in actions:
            if not session.take(category, action):
                return False
            if len(session.steps) >= finding.step:
                return True
    except Divergence:
        return session.finding is not None and session.finding.step > finding.step
    except TargetFailure:
        return False
    finally:
        with contextlib.suppress(Exception):
            session.close()
    return True
