"""The share shard's rules as data (``SHARD_RULES``, drawn as ``TRANSITIONS``) against the step
function: at every shard the system model reaches (Kafka 4.0's rules and the latest, probes on),
every request kind gets what its (shard kind, request kind) row says — the row's error, with the
shard unchanged, or an answer of its own kind from the named handler — and every row and every
drawn edge is taken."""

from __future__ import annotations

from collections import deque
from typing import Any

from kspec.model.share import shard as sh
from kspec.model.share.system import KEY, SysState, make
from kspec.model.share.versions import LATEST_MINOR

RESPONSE_OF: dict[type, type] = {sh.WriteRequest: sh.WriteResponse, sh.ReadRequest: sh.ReadResponse,
                                 sh.InitializeRequest: sh.InitializeResponse, sh.DeleteRequest: sh.DeleteResponse,
                                 sh.ReadSummaryRequest: sh.ReadSummaryResponse,
                                 sh.FindCoordinatorRequest: sh.FindCoordinatorResponse}
HANDLER_OF = {"write": sh.WriteRequest, "read": sh.ReadRequest, "initialize": sh.InitializeRequest,
              "delete": sh.DeleteRequest, "read_summary": sh.ReadSummaryRequest,
              "find_coordinator": sh.FindCoordinatorRequest}


def _requests() -> list[Any]:
    g, t, p = KEY.group_id, KEY.topic_id, KEY.partition
    return [sh.WriteRequest(g, t, p, 0, 0, -1, (sh.StateBatch(0, 0, 0, 1),)), sh.ReadRequest(g, t, p, 0),
            sh.InitializeRequest(g, t, p, 1, 0), sh.DeleteRequest(g, t, p), sh.ReadSummaryRequest(g, t, p, 0),
            sh.FindCoordinatorRequest(g, t, p)]


def _explore(kafka_minor: int, limit: int = 1500) -> tuple[set[sh.ShardState], set[tuple[str, str]]]:
    model = make(kafka_minor=kafka_minor, probes=True)
    seen: set[SysState] = set(model.init_states())
    queue = deque(seen)
    shards: set[sh.ShardState] = set()
    edges: set[tuple[str, str]] = set()
    while queue and len(seen) < limit:
        state = queue.popleft()
        shards.add(state.shard)
        for action in model.actions(state):
            after = model.next_state(state, action)
            if after is None:
                continue
            edges.add((sh.shard_kind(state.shard), sh.shard_kind(after.shard)))
            if model.within_bounds(after) and after not in seen:
                seen.add(after)
                queue.append(after)
    return shards, edges


def test_the_shard_rules_are_the_step_function() -> None:
    assert set(sh.SHARD_RULES) == {(k, r) for k in (sh.UNLOADED, sh.LOADED_4_0, sh.LOADED) for r in sh.REQUEST_KINDS}
    met: set[tuple[str, type]] = set()
    drawn: set[tuple[str, str]] = set()
    for minor in (0, LATEST_MINOR):
        shards, edges = _explore(minor)
        drawn |= edges
        for shard in shards:
            kind = sh.shard_kind(shard)
            for request in _requests():
                rule = sh.SHARD_RULES[(kind, type(request))]
                met.add((kind, type(request)))
                after, outputs = sh.step(shard, request)
                response = outputs[-1]
                assert isinstance(response, RESPONSE_OF[type(request)]), (kind, request, response)
                if rule in (sh.COORDINATOR_NOT_AVAILABLE, sh.UNSUPPORTED_VERSION):
                    assert response.error == rule and after == shard and len(outputs) == 1, (kind, request, outputs)
                else:
                    assert HANDLER_OF[rule] is type(request)
                    assert response.error not in (sh.COORDINATOR_NOT_AVAILABLE, sh.UNSUPPORTED_VERSION)
    assert met == set(sh.SHARD_RULES), set(sh.SHARD_RULES) - met
    assert drawn == set(sh.TRANSITIONS), drawn ^ set(sh.TRANSITIONS)
