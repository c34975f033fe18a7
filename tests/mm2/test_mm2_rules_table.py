"""MM2's sync rules as data (``REPLICATION_RULES``: name class x policy -> outcome) against the
step function: at every state the system model reaches, under Kafka's two policies and both
internal-topic rules, plain and dotted aliases, every topic a sync looks at gets what its row
says from ``replicate`` — and every row is met, except the ones marked never reached."""

from __future__ import annotations

from collections import deque

from kspec.model.mm2 import make
from kspec.model.mm2.system import (
    KEPT,
    NEVER,
    POLICY_COLUMNS,
    PREFIXED,
    REFUSED_CYCLE,
    REFUSED_INTERNAL,
    REPLICATION_RULES,
    Mm2System,
    Refused,
    State,
    Sync,
    name_class,
    policy_column,
    replicate,
)

# The conformance driver's user topics: one named like Connect's internal topics.
USER_TOPICS = ("orders", "orders-internal")


def _reached(model: Mm2System, limit: int = 1000) -> list[State]:
    seen: set[State] = set(model.init_states())
    queue = deque(seen)
    while queue and len(seen) < limit:
        state = queue.popleft()
        for action in model.actions(state):
            after = model.next_state(state, action)
            if after is not None and after not in seen:
                seen.add(after)
                queue.append(after)
    return list(seen)


def test_the_replication_rules_are_the_step_function() -> None:
    met: set[tuple[str, str]] = set()
    for identity in (False, True):
        for rule_3x in (False, True):
            for dotted in (False, True):
                base = make(clusters=3, hops=3, identity=identity, rule_3x=rule_3x, dotted_aliases=dotted)
                model = Mm2System(base.policy, clusters=3, hops=3, aliases=base.aliases, user_topics=USER_TOPICS)
                column = policy_column(model.policy)
                for state in _reached(model):
                    for sync in model.actions(state):
                        if not isinstance(sync, Sync):
                            continue
                        fp = model.flow_policy(sync.source)
                        for r in state.replicas:
                            if r.cluster != sync.source:
                                continue
                            row = name_class(r, sync.target)
                            want = REPLICATION_RULES[row][POLICY_COLUMNS.index(column)]
                            got = replicate(fp, r.name, sync.source, sync.target)
                            met.add((row, column))
                            expected = {PREFIXED: fp.format_remote_topic(sync.source, r.name), KEPT: r.name,
                                        REFUSED_INTERNAL: Refused.INTERNAL, REFUSED_CYCLE: Refused.CYCLE}[want]
                            assert want != NEVER, (row, column, r)
                            assert got == expected, (row, column, r, sync, got)
                            if want == PREFIXED:
                                assert got != r.name
    rows = {(row, column) for row, outcomes in REPLICATION_RULES.items()
            for column, outcome in zip(POLICY_COLUMNS, outcomes, strict=True) if outcome != NEVER}
    assert met == rows, rows ^ met
