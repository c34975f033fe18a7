"""The explorer's speed-ups of the KRaft model (issue #22 item 5), each held to a brute-force
version: the memoised node step, enabled inputs and message order (``RaftModel(memo=True)``,
``make``'s model), the Bag's add and remove, and the step properties that skip the replicas a
step left alone, and ``record_history`` (docs/performance.md "Issue #22 item 5, session 28")."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from kspec.model.core.bag import Bag
from kspec.model.core.evolve import evolve as replace
from kspec.model.core.explorer import explore, reachable_states
from kspec.model.core.memo import by_identity_and_value, by_value
from kspec.model.raft import make
from kspec.model.raft import node as node_mod
from kspec.model.raft.messages import Crash, Restart
from kspec.model.raft.properties import (
    check_quorum_counted,
    epoch_monotonic,
    high_watermark_advances,
    high_watermark_monotonic,
)
from kspec.model.raft.rules import majority
from kspec.model.raft.state import Follower, Leader, Resigned, election_of
from kspec.model.raft.system import Fire, RaftModel, Reboot, record_history

SMALL = {"max_epoch": 2, "max_appends": 1, "max_crashes": 1, "symmetry": False}


def _walk_states(model: RaftModel, seed: int, walks: int = 40, steps: int = 30) -> list[Any]:
    """States on random walks (each a fresh chain of objects: identities differ between walks)."""
    rng = random.Random(seed)
    out = []
    for _ in range(walks):
        state = model.init_states()[0]
        for _ in range(steps):
            out.append(state)
            succ = [(a, n) for a in model.actions(state) if (n := model.next_state(state, a)) is not None]
            if not succ:
                break
            # the simulator's weights (deliveries, fetches and appends common): walks commit
            state = rng.choices(succ, weights=[model.action_weight(a) for a, _ in succ])[0][1]
    return out


def test_memoised_model_explores_the_same_states_as_the_plain_one() -> None:
    bounds = {"max_epoch": 2, "max_appends": 0, "max_crashes": 0, "symmetry": False}
    memo, plain = make(**bounds), RaftModel(**bounds)
    assert memo._memo_of is memo._step and memo._memo_step is not memo._step and plain._memo_of is None
    a, b = explore(memo), explore(plain)
    assert (a.distinct_states, a.transitions, a.max_depth, a.witnesses) == (
        b.distinct_states, b.transitions, b.max_depth, b.witnesses)
    assert a.distinct_states > 10_000
    assert reachable_states(make(**bounds)) == reachable_states(RaftModel(**bounds))


def test_memoised_steps_answer_as_the_plain_ones_on_random_states() -> None:
    """Every action of states on random walks (a crash and an append included): the memoised
    model's actions and successors equal the plain model's, and its node step equals
    ``node.step`` for every enabled input and every message in flight, asked twice (the second
    answer from the memo)."""
    memo, plain = make(**SMALL), RaftModel(**SMALL)
    checked = 0
    for state in _walk_states(plain, seed=7):
        for _ in range(2):
            assert list(memo.actions(state)) == list(plain.actions(state))
            for action in plain.actions(state):
                assert memo.next_state(state, action) == plain.next_state(state, action)
            for n in state.nodes:
                assert memo._enabled_inputs(n) == node_mod.enabled_inputs(n)
                for inp in [*node_mod.enabled_inputs(n), *(m for m in state.network.distinct() if m.dst == n.id),
                            Crash(), Restart()]:
                    assert memo._memo_step(n, inp) == node_mod.step(n, inp)
                    checked += 1
            assert memo._distinct(state.network) == state.network.distinct()
    assert checked > 5_000


def test_a_step_swapped_after_construction_is_the_one_used() -> None:
    """The voters conformance driver swaps a model's ``_step`` for a recording one while the
    model starts up: with or without the memo, every node step of ``next_state`` then goes
    through the swapped step (the memo serves only the step it memoises)."""
    for memo in (False, True):
        model = RaftModel(memo=memo, **SMALL)
        state = model.init_states()[0]
        actions = list(model.actions(state))
        for action in actions:  # warm the memo
            model.next_state(state, action)
        calls: list[Any] = []
        inner = model._step

        def recording(node: Any, inp: Any, inner: Any = inner, calls: list[Any] = calls) -> Any:
            calls.append(inp)
            return inner(node, inp)

        model._step = recording
        stepped = [model.next_state(state, a) for a in actions]
        assert len(calls) >= len(actions) > 0, (memo, calls)
        model._step = inner
        assert [model.next_state(state, a) for a in actions] == stepped


def test_pair_memo_answers_for_the_object_and_value_asked() -> None:
    calls: list[tuple[tuple[int, ...], int]] = []

    def f(xs: tuple[int, ...], y: int) -> int:
        calls.append((xs, y))
        return sum(xs) * 10 + y

    for limit, fresh in ((1000, 150), (2, None)):
        calls.clear()
        memo = by_identity_and_value(f, limit=limit)
        for n in range(50):
            xs = tuple([1, n])  # fresh: a dead one's id may be reused with another value
            assert memo(xs, 1) == (1 + n) * 10 + 1
            assert memo(xs, 2) == (1 + n) * 10 + 2
            assert memo(xs, 1) == (1 + n) * 10 + 1
            assert memo(tuple([1, n]), 1) == (1 + n) * 10 + 1  # an equal value, another object
        # the repeated question came from the memo; an equal copy is asked again (identity);
        # a full memo starts afresh (recomputes, never lies)
        assert len(calls) == fresh if fresh else len(calls) > 150
    by_v = by_value(lambda b: sorted(b), limit=3)
    for n in range(20):
        assert by_v(frozenset({n, n + 1})) == [n, n + 1]
        assert by_v(frozenset({n + 1, n})) == [n, n + 1]


def _bag_brute(items: Counter[str]) -> Bag[str]:
    return Bag(frozenset((e, c) for e, c in items.items() if c > 0))


def test_bag_add_and_remove_equal_a_counter() -> None:
    rng = random.Random(3)
    for _ in range(300):
        bag: Bag[str] = Bag()
        ref: Counter[str] = Counter()
        for _ in range(12):
            e = rng.choice("abcd")
            if rng.random() < 0.55:
                k = rng.choice((1, 1, 2))
                bag, ref[e] = bag.add(e, k), ref[e] + k
            elif ref[e]:
                bag = bag.remove(e)
                ref[e] -= 1
            else:
                try:
                    bag.remove(e)
                except KeyError:
                    pass
                else:
                    raise AssertionError(f"removed {e!r}, absent from {bag}")
            assert bag == _bag_brute(ref)
            assert all((x in bag) == (ref[x] > 0) for x in "abcd")
            assert len(bag) == sum(ref.values())
    assert Bag.of("a", "b", "a").add_all(["b", "c"]) == _bag_brute(Counter("aabbc"))


# The step properties as they were before they skipped untouched replicas (brute force).

def _hw_monotonic(before: Any, action: Any, after: Any) -> bool:
    inp = getattr(action, "input", None)
    for b, a in zip(before.nodes, after.nodes, strict=True):
        if isinstance(inp, Crash | Restart) and getattr(action, "node", None) == a.id:
            continue
        if b.high_watermark is not None and a.high_watermark is not None and a.high_watermark < b.high_watermark:
            return False
    return True


def _epoch_monotonic(before: Any, action: Any, after: Any) -> bool:
    return all(a.epoch >= b.epoch for b, a in zip(before.nodes, after.nodes, strict=True))


def _hw_advances(before: Any, action: Any, after: Any) -> bool:
    return any(isinstance(a.role, Follower) and (a.high_watermark or 0) > (b.high_watermark or 0)
               for b, a in zip(before.nodes, after.nodes, strict=True))


def _check_quorum(before: Any, action: Any, after: Any) -> bool:
    from kspec.model.raft.messages import CheckQuorumTimeout

    rebooted = action.node if isinstance(action, Reboot) or isinstance(getattr(action, "input", None),
                                                                         Crash | Restart) else None
    for b, a in zip(before.nodes, after.nodes, strict=True):
        role = a.role
        if isinstance(role, Leader) and role.fetched and not (
                role.fetched <= a.voters - {a.id} and len(role.fetched | {a.id}) < majority(len(a.voters))):
            return False
        if not (isinstance(b.role, Leader) and isinstance(a.role, Resigned)) or a.id == rebooted:
            continue
        timeout = isinstance(action, Fire) and action.node == a.id and isinstance(action.input, CheckQuorumTimeout)
        heard = (b.role.fetched & b.voters) | ({b.id} & b.voters)
        if not timeout or len(heard) >= majority(len(b.voters)) or b.role.renewed:
            return False
    return True


def test_step_properties_that_skip_untouched_replicas_answer_as_before() -> None:
    """On every transition of random walks, on pairs of unrelated states and on transitions
    taken backwards (where the properties fail), each step property equals its brute-force
    version."""
    model = RaftModel(**SMALL)
    pairs = [(_hw_monotonic, high_watermark_monotonic), (_epoch_monotonic, epoch_monotonic),
             (_hw_advances, high_watermark_advances), (_check_quorum, check_quorum_counted)]
    states = _walk_states(model, seed=11)
    seen = Counter[tuple[str, bool]]()
    rng = random.Random(5)
    for state in states:
        others = [(a, n) for a in model.actions(state) if (n := model.next_state(state, a)) is not None]
        steps = [(state, a, n) for a, n in others]
        steps += [(state, a, rng.choice(states)) for a, _ in others[:2]]  # unrelated after-states
        steps += [(n, a, state) for a, n in others]  # steps backwards (an epoch falls)
        # a replica whose high watermark falls (the others left alone)
        steps += [(state, a, replace(state, nodes=tuple(replace(n, high_watermark=n.high_watermark - 1)
                                                         if n.high_watermark else n for n in state.nodes)))
                  for a, _ in others[:1]]
        for before, action, after in steps:
            for brute, fast in pairs:
                want = brute(before, action, after)
                assert fast.check(before, action, after) == want, (fast.name, action)
                seen[(fast.name, want)] += 1
    # every property answered both ways somewhere, so the comparison saw both outcomes
    assert {name for name, ok in seen if not ok} == {p.name for _, p in pairs}, seen


def _record_history_brute(state: Any, before: Any, after: Any) -> Any:
    """``record_history`` as it was before its plain loops and memoised vote (session 27)."""
    elected, votes, committed = state.elected, state.votes, state.committed
    if isinstance(after.role, Leader) and not isinstance(before.role, Leader):
        elected = elected | {(after.epoch, after.id)}
    vote = election_of(after).voted_for
    if vote is not None and (after.id, after.epoch, vote) not in votes:
        votes = votes | {(after.id, after.epoch, vote)}
    hw_after = after.high_watermark or 0
    if hw_after > (before.high_watermark or 0):
        known = {(o, e) for o, e, _ in committed}
        new = {(o, after.log[o], after.epoch) for o in range(hw_after) if (o, after.log[o]) not in known}
        if new:
            committed = committed | new
    if votes:
        current = {n.id: n.epoch for n in state.nodes}
        current[after.id] = after.epoch
        kept = frozenset(v for v in votes if v[1] >= current[v[0]])
        if kept != votes:
            votes = kept
    if elected:
        low = min(min(n.epoch for n in state.nodes), after.epoch)
        kept_e = frozenset(e for e in elected if e[0] >= low)
        if kept_e != elected:
            elected = kept_e
    if elected == state.elected and votes == state.votes and committed is state.committed:
        return state
    return replace(state, elected=elected, votes=votes, committed=committed)


def test_record_history_answers_as_before() -> None:
    """For every replica of states on random walks stepped by each of its inputs, and for
    unrelated (before, after) replicas of the same id (history forgotten, leaders added), the
    ghost history ``record_history`` keeps, with the plain vote and the memoised one, equals
    the brute-force version's."""
    memo = make(**SMALL)
    states = _walk_states(memo, seed=13)
    rng = random.Random(17)
    changed = forgot = 0
    for state in states:
        for n in state.nodes:
            inputs = [*node_mod.enabled_inputs(n), *(m for m in state.network.distinct() if m.dst == n.id), Crash()]
            afters = [node_mod.step(n, inp)[0] for inp in inputs]
            afters.append(rng.choice(states).node(n.id))  # unrelated
            for after in afters:
                s = replace(state, nodes=tuple(after if x.id == n.id else x for x in state.nodes))
                want = _record_history_brute(s, n, after)
                assert record_history(s, n, after) == want
                assert record_history(s, n, after, memo._voted_for) == want
                assert (record_history(s, n, after) is s) == (want is s)
                changed += want is not s
                forgot += len(want.votes) < len(s.votes) or len(want.elected) < len(s.elected)
    assert changed > 100 and forgot > 10, (changed, forgot)


def test_a_replica_keeps_the_hash_its_fields_give() -> None:
    """``Node`` keeps its hash in a slot (``keeps_hash``): every replica of random-walk states
    hashes as the dataclass hash of its fields, equal replicas alike; a copy (``evolve``,
    ``dataclasses.replace``, a pickle round trip) starts without the kept hash and computes its
    own; the slot is no field (equality, ``repr`` and the fields ignore it)."""
    import dataclasses
    import pickle

    from kspec.model.core.evolve import evolve

    states = _walk_states(make(**SMALL), seed=3)
    nodes = {id(n): n for s in states for n in s.nodes}.values()
    for n in nodes:
        plain = hash(tuple(getattr(n, f.name) for f in dataclasses.fields(n)))
        assert hash(n) == plain and n._hash == plain and hash(n) == plain
        for copy in (evolve(n, high_watermark=7), dataclasses.replace(n, high_watermark=7),
                     pickle.loads(pickle.dumps(n))):
            assert not hasattr(copy, "_hash")
            assert hash(copy) == hash(tuple(getattr(copy, f.name) for f in dataclasses.fields(copy)))
        assert "_hash" not in repr(n) and "_hash" not in {f.name for f in dataclasses.fields(n)}
    assert len(nodes) > 50
