"""RAFT-RULE-VOTE-REASKED in trace validation: a replica asked again, in the epoch of its vote,
by the candidate it voted for may refuse by the log check (the model's answer) or grant again
(``node.other_answers``). A recorded trace with either answer is valid, on the reference replay
(``NodeReplay.apply``) and on the lean loop alike; any other answer is a divergence.

The event is planted into a simulated trace at a point where a replica has voted and its log
grew since (found by replaying the trace): a late VoteRequest of its candidate with the
candidate's stale log position changes no state, so the rest of the trace replays as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kspec.conformance.pipeline import fast
from kspec.conformance.pipeline.judge import judge_lines
from kspec.conformance.pipeline.nodes import NodeReplay, decode_input
from kspec.conformance.pipeline.records import parse_line
from kspec.model.core.codec import encode
from kspec.model.raft.messages import VoteRequest
from kspec.model.raft.node import other_answers
from kspec.model.raft.state import Voted


def _planted(lines: list[str]) -> tuple[list[str], int, list[Any], list[Any]] | None:
    """The trace with a re-asked VoteRequest inserted, where it goes, the model's outputs and
    the other answer; None when no replica of the trace ever votes with a log that grew."""
    events = [json.loads(text) for text in lines]
    replay = NodeReplay("raft", events[0]["config"])
    for i, ev in enumerate(events):
        value, _ = decode_input("raft", ev)
        if ev["node"] is not None:
            replay.apply(ev, value)
        for nid, node in replay.nodes.items():
            if not isinstance(node.role, Voted) or node.role.voted_for in (None, nid) or not node.log:
                continue
            req = VoteRequest(src=node.role.voted_for, dst=nid, epoch=node.epoch, last_epoch=0, end_offset=0,
                              pre_vote=False, orphaned=False)
            after, outputs = replay.step_fn(node, req)
            others = other_answers(node, req, tuple(outputs))
            if after != node or not others:  # (a step that changes the node is no late copy)
                continue
            planted = {"trace": ev["trace"], "step": 0, "node": nid, "action": "VoteRequest",
                       "input": encode(req), "outputs": encode(tuple(others[0])),
                       "observation": replay.latest[nid]}
            out = [*events[:i + 1], planted, *events[i + 1:]]
            for step, e in enumerate(out):
                e["step"] = step
            return [json.dumps(e) for e in out], i + 1, encode(tuple(outputs)), encode(tuple(others[0]))
    return None


def _judge_both(lines: list[str]) -> tuple[Any, Any]:
    items = [("t.jsonl", (n, text.encode(), None)) for n, text in enumerate(lines, start=1)]
    key = parse_line("t.jsonl", 1, lines[0])[0]  # type: ignore[index]
    fast._CACHES.clear()
    ref, lean = judge_lines("raft", key, items), fast.judge_lines_fast("raft", key, items)
    # the lean loop itself, not its fallback to the reference replay, judged the trace
    assert fast._fast("raft", key, items, fast._CACHES["raft"]) == lean
    return ref, lean


def test_a_reasked_vote_granted_again_is_valid_and_any_other_answer_diverges(tmp_path: Path) -> None:
    from pipeline_corpus import simulate_into

    simulate_into(tmp_path, None, 5, 8, steps=120)
    by_trace: dict[str, list[str]] = {}
    for text in (tmp_path / "events.jsonl").read_text().splitlines():
        by_trace.setdefault(json.loads(text)["trace"], []).append(text)
    found = None
    for lines in by_trace.values():
        found = _planted(lines)
        if found is not None:
            break
    assert found is not None, "no replica voted with a grown log in the simulated traces"
    planted, at, model_outputs, other = found
    assert model_outputs != other
    ref, lean = _judge_both(planted)
    assert ref == lean and ref.verdict["status"] == "valid", ref.verdict
    # the model's own answer at the same place is valid too
    event = json.loads(planted[at])
    event["outputs"] = model_outputs
    ref, lean = _judge_both([*planted[:at], json.dumps(event), *planted[at + 1:]])
    assert ref == lean and ref.verdict["status"] == "valid", ref.verdict
    # any other answer diverges: the re-grant with a wrong epoch, or no answer
    for outputs in ([{**o, "epoch": o["epoch"] + 1} if o["type"] == "VoteResponse" else o for o in other], []):
        event["outputs"] = outputs
        ref, lean = _judge_both([*planted[:at], json.dumps(event), *planted[at + 1:]])
        assert ref == lean and ref.verdict["status"] == "violating", ref.verdict
        assert ref.verdict["property"] == "Divergence:outputs" and ref.verdict["step"] == at
