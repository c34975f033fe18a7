"""UpdateVoter at the replica level (spec/voters.md VOTERS-RULE-UPDATE, -UPDATE-INPUT) and the two
deviations where a release throws instead of answering (VOTERS-KAFKA-K5, -K6), and the one where an
accepted update counts as its voter's fetch (VOTERS-KAFKA-K8).

``testdata/update_voter.txt`` (datadriven) walks the model's replica step through every answer
Kafka's KafkaRaftClient.handleUpdateVoterRequest and UpdateVoterHandler give, in their order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from datadriven import Case, run_file

from kspec.conformance.deviations import catalogue, failure_deviation
from kspec.conformance.drivers import voters_log
from kspec.conformance.drivers.voters import VotersDriver, _updates
from kspec.model.raft.messages import AppendLog, CheckQuorumTimeout, EndQuorumEpochRequest
from kspec.model.raft.state import Leader
from kspec.model.raft.system import Fire
from kspec.model.voters import make
from kspec.model.voters.history import voter_ids
from kspec.model.voters.node import (
    AddVoter,
    ReconfigRejected,
    RemoveVoter,
    UpdateVoter,
    UpgradeKRaftVersion,
    VoterNode,
    directory_of,
    make_step,
    step,
)
from kspec.model.voters.variants import rules_for

DATA = Path(__file__).parent / "testdata"


def _show(node: VoterNode, outputs: tuple[Any, ...]) -> str:
    parts = []
    for out in outputs:
        if isinstance(out, ReconfigRejected):
            parts.append(f"rejected {out.request} {out.error}")
        elif isinstance(out, AppendLog):
            sets = [sorted(voter_ids(frozenset(zip(e.payload[::2], e.payload[1::2], strict=True))))
                    for e in out.entries if e.kind == "voters"]
            parts.append(f"append offset={out.offset} voters={sets}")
            parts += [f"append kraft.version={e.payload[0]}" for e in out.entries if e.kind == "kraft_version"]
    parts.append(f"role={type(node.role).__name__.lower()} end={node.end_offset} hw={node.high_watermark}")
    if node.upgrade_voters:  # VOTERS-RULE-UPGRADE-VOTERS: a kraft.version-0 leader's in-memory voters
        parts.append("known=" + " ".join(f"{v}:dir={d}{'+v1' if ok else ''}" for v, d, ok in node.upgrade_voters))
    return "\n".join(parts)


def test_update_voter_scripts(rewrite: bool) -> None:
    nodes: dict[int, VoterNode] = {}

    def handler(case: Case) -> str:
        if case.command == "cluster":
            model = make(hosts=int(case.arg("hosts")), voters=int(case.arg("voters")),
                         kraft_version=int(case.arg("kraft_version", "1")),
                         kraft_upgrade=case.arg("upgrade_rules", "4.1") == "4.1")
            nodes.clear()
            nodes.update({n.id: n for n in model.init_states()[0].nodes})  # type: ignore[misc]
            return " ".join(f"{i}:{type(n.role).__name__.lower()}@{n.epoch}" for i, n in sorted(nodes.items()))
        at = int(case.arg("node"))
        node = nodes[at]
        if case.command == "update":
            replica = int(case.arg("replica"))
            low, high = (int(x) for x in case.arg("range", "0,1").split(","))
            inp: Any = UpdateVoter(replica, int(case.arg("dir", str(directory_of(replica)))),
                                   node.epoch + int(case.arg("epoch", "0")), case.arg("listeners", "default"),  # type: ignore[arg-type]
                                   low, high)
        elif case.command == "add":
            inp = AddVoter(int(case.arg("replica")), directory_of(int(case.arg("replica"))))
        elif case.command == "upgrade":
            inp = UpgradeKRaftVersion()
        elif case.command == "remove":
            inp = RemoveVoter(int(case.arg("replica")), directory_of(int(case.arg("replica"))))
        else:
            raise KeyError(case.command)
        nodes[at], outputs = step(node, inp)
        return _show(nodes[at], outputs)

    run_file(DATA / "update_voter.txt", handler, rewrite)


def test_k6_variant_sends_no_update_naming_the_leader() -> None:
    driver = VotersDriver({})
    leader = next(n for n in driver.init_state().state.nodes if type(n.role).__name__ == "Leader")
    assert isinstance(leader, VoterNode)
    assert leader.id in {u.replica for u in _updates(leader, rules_for(""))}
    assert leader.id not in {u.replica for u in _updates(leader, rules_for("kafka-update-self-crashes"))}
    k6 = VotersDriver({"model_variant": "kafka-update-self-crashes"})
    offered = [a for c, a in k6.candidates(k6.init_state().state) if c == "update"]
    assert offered and all(isinstance(a, Fire) and a.input.replica != leader.id for a in offered)


def test_k5_variant_writes_only_overlapping_sets() -> None:
    free = voters_log.start(frozenset(), frozenset((i, i) for i in (1, 2, 3)))
    sets = {a.entry.payload for c, a in voters_log.candidates(free) if c == "free_voters"}
    kept = {a.entry.payload for c, a in voters_log.candidates(free, rules_for("kafka-history-refuses-disjoint"))
            if c == "free_voters"}
    assert (4, 4, 5, 5, 6, 6) in sets and (4, 4, 5, 5, 6, 6) not in kept and kept and kept < sets


def test_target_errors_name_their_deviation() -> None:
    names = list(catalogue("voters"))
    k5 = ("node 0 on Append: kafka:3.9.0 voters: Append threw java.lang.IllegalArgumentException: Last voter set "
          "VoterSet(...) doesn't have an overlapping majority with the new voter set VoterSet(...)")
    k6 = ("node 1 on UpdateVoter: kafka:4.4.0 voters: UpdateVoter threw java.lang.IllegalArgumentException: "
          "Received a FETCH/FETCH_SNAPSHOT request from the leader itself.")
    assert failure_deviation("voters", k5, names) == "voters-history-refuses-disjoint-sets"
    assert failure_deviation("voters", k6, names) == "voters-update-self-crashes-leader"
    assert failure_deviation("voters", "node 1 on FetchDue: timed out", names) is None
    assert failure_deviation("voters", k6, ["voters-trim-at-snapshot-end"]) is None


def test_k8_variant_counts_an_accepted_update_as_a_fetch() -> None:
    """VOTERS-KAFKA-K8: from 4.1 an accepted UpdateVoter renews the leader's check-quorum period as
    its voter's Fetch would (UpdateVoterHandler.storeUpdatedVoters), both the VotersRecord append
    (kraft.version 1) and the in-memory update (kraft.version 0). Under the protocol's rule only a
    Fetch counts: the leader whose voters fetched nothing in the period resigns."""
    k8 = make_step(rules=rules_for("kafka-update-voter-counts-as-fetch"))
    for kraft_version in (1, 0):
        model = make(hosts=4, voters=3, kraft_version=kraft_version, check_quorum_period=True)
        started = next(n for n in model.init_states()[0].nodes if isinstance(n.role, Leader))  # type: ignore[attr-defined]
        assert isinstance(started, VoterNode)
        # the start-up's fetches renewed the first period: its timeout ends it, the leader leads on
        leader, _ = step(started, CheckQuorumTimeout())
        assert isinstance(leader.role, Leader) and not leader.role.fetched and not leader.role.renewed
        update = UpdateVoter(2, directory_of(2), leader.epoch, "default", 0, 1)
        for stepper, leads_on in ((step, False), (k8, True)):
            after, outputs = stepper(leader, update)
            assert not any(isinstance(o, ReconfigRejected) for o in outputs), (kraft_version, outputs)
            after, outputs = stepper(after, CheckQuorumTimeout())
            assert isinstance(after.role, Leader) is leads_on, (kraft_version, stepper, after.role)
            assert any(isinstance(o, EndQuorumEpochRequest) for o in outputs) is not leads_on
        # the leader's own id is never counted (K6: 4.1+ throws there; the driver sends none)
        assert k8(leader, UpdateVoter(leader.id, directory_of(leader.id), leader.epoch, "default", 0, 1))[0].role \
            == step(leader, UpdateVoter(leader.id, directory_of(leader.id), leader.epoch, "default", 0, 1))[0].role
