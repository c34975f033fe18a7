"""The catalogue mutants of the raft macros (conformance/targets/mutants_power.py RAFT_ENTRIES):
each diverges on the macro it was written for, from a short path that macro is enabled on,
and the reference does not (and raft-resends-after-resigning on the resend probe's
macros.Retry). (Only that macro delivers what shows each: a copy of an answer the
model itself never delivers, RAFT-MODEL-IGNORED-RESPONSES, or a follower moved two roles by
one message; the default-budget catches are measured by bench/mutant_power.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from kspec.conformance.drivers import macros
from kspec.conformance.drivers.raft import CONFIGS, RaftDriver
from kspec.conformance.harness import Divergence, Lockstep
from kspec.conformance.targets.mutants import CATALOGUE
from kspec.conformance.targets.registry import reference_target
from kspec.model.raft.messages import ClientAppend, FetchResponse, VoteResponse
from kspec.model.raft.system import Deliver, Fire

ELECTED = [  # replica 1 wins epoch 1 with replica 2's vote, then replicates to 2 and 3
    ("timer", lambda a: isinstance(a, Fire) and a.node == 1),
    ("deliver", lambda a: isinstance(a, Deliver) and type(a.message).__name__ == "VoteRequest" and a.message.dst == 2),
    ("deliver", lambda a: isinstance(a, Deliver) and type(a.message).__name__ == "VoteResponse"),
    ("deliver", lambda a: isinstance(a, Deliver) and type(a.message).__name__ == "BeginQuorumEpochRequest"
     and a.message.dst == 2),
    ("deliver", lambda a: isinstance(a, Deliver) and type(a.message).__name__ == "BeginQuorumEpochRequest"
     and a.message.dst == 3),
    ("replicate", lambda a: True),
]
RESIGNED = [*ELECTED, ("resign", lambda a: isinstance(a, Fire) and a.node == 1)]
APPENDED = [*ELECTED, ("client", lambda a: isinstance(a, Fire) and isinstance(a.input, ClientAppend))]
FIRST_VOTE = [("timer", lambda a: isinstance(a, Fire) and a.node == 1),
              ("deliver", lambda a: isinstance(a, Deliver) and type(a.message).__name__ == "VoteRequest"
               and a.message.dst == 2)]


def _grant(state: Any) -> Any:
    return macros.Stale(next(m for m in state.network.distinct() if isinstance(m, VoteResponse)))


def _fetch_answer(state: Any) -> Any:
    return macros.Stale(next(m for m in state.network.distinct() if isinstance(m, FetchResponse)))


CASES = {
    # (config, path, the macro from the state the path ends in)
    "raft-follower-hw-takes-late-answer": ({"observers": 1, "faults": True}, APPENDED, lambda s: macros.DeliverLate(4)),
    "raft-leader-hw-follows-late-fetch": ({"faults": True}, APPENDED, lambda s: macros.LateFetch(2)),
    "raft-stale-grant-counted": ({"faults": True}, FIRST_VOTE, _grant),
    "raft-listener-rereads-on-new-leader": ({"faults": False}, ELECTED, lambda s: macros.ElectWithout(2, 1)),
    # the resend probe's macro (RAFT-DRIVE-RESEND): a resigned leader's EndQuorumEpoch lost, then resent
    "raft-resends-after-resigning": ({"faults": True}, RESIGNED, lambda s: macros.Retry(1, 2)),
}


def _run(config: dict[str, object], path: list[tuple[str, Any]], macro_of: Any, target: Any) -> str | None:
    """The divergence's line if ``target`` diverges on the macro's inputs (None if it
    conforms); a divergence before them fails."""
    driver = RaftDriver({**CONFIGS[0], **config})
    session = Lockstep(driver, target)
    try:
        for category, pred in path:
            action = next(a for a, _ in session.enabled(category) if pred(a))
            assert session.take(category, action)
        before = len(session.steps)
        macro = macro_of(session.state)
        after = driver.resolve(session.state, macro)
        assert after is not None, macro
        try:
            session._step(macro, after, "redeliver")
        except Divergence as found:
            assert found.finding.step > before, found.finding.line()
            return found.finding.line()
    finally:
        session.close()
    return None


@pytest.mark.parametrize("name", sorted(CASES))
def test_macro_mutant_diverges_on_its_macro(name: str) -> None:
    config, path, macro_of = CASES[name]
    assert _run(config, path, macro_of, reference_target("raft")) is None  # the reference conforms
    assert _run(config, path, macro_of, CATALOGUE[name].target()) is not None
