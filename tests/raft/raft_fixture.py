"""The datadriven command language for KRaft node fixtures (tests/raft/testdata/*.txt).

Commands (one replica set per file, created with ``new``):

    new id=1 voters=1,2,3 [pre_vote] [kip853=true|false] [listener] [resigned_told] [told_at_transition]
                                              [below_start] (below_start: Kafka 3.3-3.5's
                                              snapshot loading, KAFKA-15076)
                                              a replica's first start (with a listener:
                                              RAFT-OBS-LISTENER; resigned_told: KAFKA-17333;
                                              told_at_transition: KAFKA-16286)
    recv id=1 VoteRequest src=2 epoch=1 ...   deliver a message (fields as name=value)
    fire id=1 ElectionTimeout                 a timer, FetchDue to=2, ClientAppend, Crash, Restart
    state id=1                                show the replica

Values: integers, ``none``, ``true``/``false``, ``a,b`` tuples, for ``entries`` a list
like ``1:leader_change,1:data``, and for ``topics`` (FetchSnapshot) ``raft:0``, ``raft:0+1;other:0``
or ``[]``. Each step prints its outputs, then the replica.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from datadriven import Case

from kspec.model.raft import messages as msgs
from kspec.model.raft.listener import ListenerRules, listening, notify
from kspec.model.raft.node import IllegalTransition, new_node, other_answers, step
from kspec.model.raft.state import Listener, Node, election_of
from kspec.model.raft.system import describe_message, describe_node

CLASSES = {c.__name__: c for c in msgs.INPUT_TYPES}


def parse_value(field: str, raw: str) -> Any:
    if raw == "none":
        return None
    if raw in ("true", "false"):
        return raw == "true"
    if field == "topics":
        # a FetchSnapshot's topic list: ``raft:0`` (the replica's own partition), topics
        # separated by ``;``, partitions by ``+`` (``raft:0+1;other:0``), ``[]`` for none
        if raw == "[]":
            return ()
        return tuple((name, tuple(int(p) for p in parts.split("+"))) for name, _, parts in
                     (t.partition(":") for t in raw.split(";")))
    if field == "entries":
        out = []
        for item in raw.split(","):
            if not item:
                continue
            epoch, kind = item.split(":")
            out.append(msgs.Entry(int(epoch), kind))
        return tuple(out)
    if "," in raw or field in ("preferred", "diverging", "payload", "snapshot_id"):
        return tuple(int(x) for x in raw.split(",") if x)
    try:
        return int(raw)
    except ValueError:
        return raw


def build_input(name: str, args: list[str], replica: int) -> Any:
    cls = CLASSES[name]
    kwargs: dict[str, Any] = {}
    names = {f.name for f in dataclasses.fields(cls)}
    if "dst" in names:
        kwargs["dst"] = replica
    for a in args:
        key, _, raw = a.partition("=")
        if key == "id":
            continue
        if key not in names:
            raise KeyError(f"{name} has no field {key}")
        kwargs[key] = parse_value(key, raw)
    return cls(**kwargs)


def show_output(o: Any) -> str:
    match o:
        case msgs.PersistElection(epoch=e, voted_for=v, leader=l):
            return f"persist epoch={e} voted_for={v} leader={l}"
        case msgs.AppendLog(offset=off, entries=es):
            return f"append offset={off} [{' '.join(f'{x.kind}@{x.epoch}' for x in es)}]"
        case msgs.TruncateLog(offset=off):
            return f"truncate to={off}"
        case msgs.HandleCommit(offset=off, entries=es):
            return f"listener commit offset={off} [{' '.join(f'{k}@{e}' for e, k in es)}]"
        case msgs.HandleLeaderChange(epoch=e, leader=l):
            return f"listener leader epoch={e} leader={l}"
        case msgs.HandleLoadSnapshot(offset=off):
            return f"listener load snapshot offset={off}"
    return "send " + describe_message(o)


class Cluster:
    """The replicas a fixture file has created."""

    def __init__(self) -> None:
        self.nodes: dict[int, Node] = {}
        self.rules: dict[int, ListenerRules] = {}

    def run(self, case: Case) -> str:
        if case.command == "new":
            voters = frozenset(int(x) for x in case.arg("voters").split(","))
            # kip853=false: KIP-595's voter-only requests; kip853=true: KIP-853's open vote;
            # absent: neither (the voter-set model's replica)
            kip853 = next((a.partition("=")[2] == "true" for a in case.args if a.startswith("kip853=")), None)
            node = new_node(int(case.arg("id")), voters, case.has("pre_vote"), kip853)
            if case.has("resends"):  # keeps who answered (RAFT-RULE-RESEND: ResendDue sends)
                node = dataclasses.replace(node, resends=True)
            if case.has("listener"):
                self.rules[node.id] = ListenerRules(resigned_told=case.has("resigned_told"),
                                                    told_at_transition=case.has("told_at_transition"),
                                                    snapshot_below_start_only=case.has("below_start"))
                node, _ = notify(dataclasses.replace(node, listener=Listener()), self.rules[node.id],
                                 transition=False)
            self.nodes[node.id] = node
            return self.show(node)
        replica = int(case.arg("id"))
        node = self.nodes[replica]
        if case.command == "state":
            return self.show(node)
        if case.command not in ("recv", "fire"):
            raise ValueError(f"unknown command {case.command}")
        name = next(a for a in case.args if "=" not in a)
        inp = build_input(name, [a for a in case.args if "=" in a], replica)
        try:
            stepper = listening(step, self.rules[replica]) if replica in self.rules else step
            after, outputs = stepper(node, inp)
        except IllegalTransition as err:
            return f"error: {err}"
        self.nodes[replica] = after
        lines = [show_output(o) for o in outputs] or ["(no outputs)"]
        for other in other_answers(node, inp, outputs):  # RAFT-RULE-VOTE-REASKED: the outputs that differ
            lines += [f"also allowed: {show_output(o)}" for o in other if o not in outputs]
        return "\n".join([*lines, self.show(after)])

    def show(self, node: Node) -> str:
        e = election_of(node)
        return f"{describe_node(node)}  persisted=({e.epoch},{e.voted_for},{e.leader})"
