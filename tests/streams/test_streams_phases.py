"""The streams rebalance phases as data (``PHASE_RULES``, drawn as ``TRANSITIONS``) against the step
function: over every transition of the explored graph, an action is enabled only in a phase the
table allows and leads to the phase it names, and every row of the table is taken."""

from __future__ import annotations

from collections import deque

from kspec.model.streams import make
from kspec.model.streams.system import PHASE_RULES, TRANSITIONS


def test_the_phase_table_is_the_step_function() -> None:
    model = make()
    seen = set(model.init_states())
    queue = deque(seen)
    taken: set[tuple[str, str]] = set()
    while queue:
        state = queue.popleft()
        for action in model.actions(state):
            after = model.next_state(state, action)
            if after is None:
                continue
            enabled_in, to = PHASE_RULES[type(action)]
            assert state.phase in enabled_in, (state.phase, action)
            assert after.phase == (to or state.phase), (state.phase, action, after.phase)
            taken.add((state.phase, after.phase))
            if model.within_bounds(after) and after not in seen:
                seen.add(after)
                queue.append(after)
    assert taken == set(TRANSITIONS), taken ^ set(TRANSITIONS)
