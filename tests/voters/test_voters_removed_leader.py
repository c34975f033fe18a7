"""The resigned leader outside its voter set (spec/voters.md VOTERS-RULE-REMOVED-LEADER,
-REMOVED-LEADER-TIMER): ``testdata/removed_leader.txt`` (datadriven) drives the system model from
the started quorum through the leader's self-removal, its resignation and its election timer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from datadriven import Case, run_file

from kspec.model.core.explorer import explore
from kspec.model.raft.messages import ElectionTimeout, FetchDue, PersistElection
from kspec.model.raft.system import Deliver, Fire
from kspec.model.voters import make
from kspec.model.voters.node import RemoveVoter, VoterNode, directory_of, make_step, removed_leader
from kspec.model.voters.system import Voters, VotersModel

DATA = Path(__file__).parent / "testdata"


def _show(state: Voters, node: int, outputs: tuple[Any, ...] = ()) -> str:
    parts = [f"persist epoch={o.epoch} leader={o.leader}" for o in outputs if isinstance(o, PersistElection)]
    n = state.node(node)
    assert isinstance(n, VoterNode)
    parts.append(f"{node}: {type(n.role).__name__.lower()}@{n.epoch} voters={sorted(n.voters)}"
                 f"{' removed-leader' if removed_leader(n) else ''}")
    return "\n".join(parts)


def test_removed_leader_scripts(rewrite: bool) -> None:
    model: list[VotersModel] = []
    states: list[Voters] = []

    def drain(s: Any) -> Any:
        while len(s.network):
            s = model[0].next_state(s, Deliver(min(s.network.distinct(), key=repr)))
        return s

    def handler(case: Case) -> str:
        if case.command == "cluster":
            model[:] = [make(hosts=int(case.arg("hosts")), voters=int(case.arg("voters")), symmetry=False,
                             max_fetches=8)]
            states[:] = [model[0].init_states()[0]]  # type: ignore[list-item]
            return _show(states[0], 1)
        at = int(case.arg("node"))
        s = states[0]
        if case.command == "remove":
            r = int(case.arg("replica"))
            s = model[0].next_state(s, Fire(at, RemoveVoter(r, directory_of(r))))  # type: ignore[arg-type]
        elif case.command == "fetch":
            s = drain(model[0].next_state(s, Fire(at, FetchDue(int(case.arg("to"))))))
        elif case.command == "election-timeout":
            # the node step itself, to show what it persists
            _, outputs = make_step()(s.node(at), ElectionTimeout())  # type: ignore[arg-type]
            s = model[0].next_state(s, Fire(at, ElectionTimeout()))
            assert s is not None
            states[0] = s
            return _show(s, at, outputs)
        else:
            raise KeyError(case.command)
        assert s is not None
        states[0] = s
        return _show(s, int(case.arg("show", str(at))))

    run_file(DATA / "removed_leader.txt", handler, rewrite)


def test_explorer_reaches_the_removed_leader_rejoining() -> None:
    """VOTERS-WIT-REMOVED-LEADER-REJOINS at two voters (a removal commits with one fetch each way;
    the resigned leader's state is within max_inflight), and no safety property breaks on the way."""
    result = explore(make(hosts=2, voters=2, max_adds=0, max_snapshots=0, max_fetches=2))
    assert result.complete and not result.violations
    assert result.witnesses["RemovedLeaderRejoins"] and result.witnesses["RemovedLeaderResigns"]


def test_witness_left_out_where_the_resignation_is_not_expanded() -> None:
    """Three initial voters: the resignation leaves three messages in flight, past max_inflight=2
    (the defaults), so the witness is not among the model's properties there."""
    names = {p.name for p in make().properties()}
    assert "RemovedLeaderResigns" in names and "RemovedLeaderRejoins" not in names
    assert "RemovedLeaderRejoins" in {p.name for p in make(max_inflight=3).properties()}
