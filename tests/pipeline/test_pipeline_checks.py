"""The replay's property checks over observations are incremental (``NodeReplay._check``: a
node's log is checked against the committed entries from where it was last checked, a leader's
completeness from the last committed offset it was checked for), so that a trace's cost grows
linearly with its length. Held here to the whole-state checks they replaced, on random
observation streams of nodes whose logs grow, get truncated and diverge: the same violation
(or none) at every step."""

from __future__ import annotations

import random
from typing import Any

from kspec.conformance.pipeline.nodes import NodeReplay, Violation


class WholeState(NodeReplay):
    """The checks as they were: every committed offset on every event."""

    def _check(self, node: Any, action: str, obs: dict[str, Any]) -> Violation | None:
        prev = self.latest[node]
        self.latest[node] = obs
        epoch = obs["epoch"]
        if epoch < prev["epoch"]:
            return Violation("EpochMonotonic", f"node {node} epoch {prev['epoch']} -> {epoch}")
        hw, prev_hw = obs.get("high_watermark"), prev.get("high_watermark")
        if action not in ("Crash", "Restart") and hw is not None and prev_hw is not None and hw < prev_hw:
            return Violation("HighWatermarkMonotonic", f"node {node} high watermark {prev_hw} -> {hw}")
        if obs["role"] == "leader" and self.elected.setdefault(epoch, node) != node:
            return Violation("ElectionSafety", f"nodes {self.elected[epoch]} and {node} lead epoch {epoch}")
        voted = obs.get("voted_for")
        if voted is not None and self.votes.setdefault((node, epoch), voted) != voted:
            return Violation("VoteOnce", f"node {node} voted for {self.votes[(node, epoch)]} and {voted} "
                                         f"in epoch {epoch}")
        log = obs["log"]
        if hw:
            for offset in range(min(hw, len(log))):
                entry = tuple(log[offset])
                seen = self.committed.get(offset)
                if seen is None:
                    self.committed[offset] = (entry, epoch)
                elif seen[0] != entry:
                    return Violation("CommittedLogsAgree", f"offset {offset}: {list(seen[0])} and {list(entry)}")
            if self.check_durable:
                prefix = log[:hw]
                holders = sum(1 for v in self.voters if self.latest[v]["log"][:hw] == prefix)
                if len(prefix) < hw or holders < len(self.voters) // 2 + 1:
                    return Violation("HighWatermarkDurable", f"node {node} high watermark {hw} held by "
                                                             f"{holders} of {len(self.voters)} voters")
        if obs["role"] == "leader":
            for offset, (entry, committed_in) in self.committed.items():
                if committed_in < epoch and (offset >= len(log) or tuple(log[offset]) != entry):
                    return Violation("LeaderCompleteness", f"leader {node} of epoch {epoch} lacks committed "
                                                           f"offset {offset}")
        return None


def _stream(rnd: random.Random, steps: int) -> list[tuple[int, str, dict[str, Any]]]:
    """Observations of nodes 1-4 (1-3 voters) following one growing log, with faults: a
    node's log truncated or diverging, its high watermark jumping or falling back, epochs
    moving, leaders changing. Logs are shared objects while unchanged (as the replay's
    observation cache shares them) and fresh equal copies at other times; a node's whole
    observation is sometimes the very object it had (a waiting node's, from the cache)."""
    truth: list[list[Any]] = []
    state = {n: {"epoch": 0, "high_watermark": None, "leader": None, "log": [], "role": "unattached",
                 "voted_for": None} for n in (1, 2, 3, 4)}
    out: list[tuple[int, str, dict[str, Any]]] = []
    for _ in range(steps):
        node = rnd.randint(1, 4)
        if rnd.random() < 0.35 and any(n == node for n, _, _ in out):
            out.append((node, rnd.choice(("FetchResponse", "FetchRequest")), state[node]))
            continue
        obs = dict(state[node])
        epoch = obs["epoch"] + (rnd.random() < 0.15) - (rnd.random() < 0.01)
        obs["epoch"] = epoch
        kind = rnd.random()
        truncated = 0.4 <= kind < 0.47
        if kind < 0.4:  # catch up with the truth, maybe appending to it
            if rnd.random() < 0.5 or not truth:
                truth.append([epoch, rnd.choice(("data", "leader_change"))])
            obs["log"] = [list(e) for e in truth[: rnd.randint(len(obs["log"]), len(truth))]]
        elif kind < 0.47:  # truncate
            obs["log"] = obs["log"][: rnd.randint(0, len(obs["log"]))]
        elif kind < 0.5 and obs["log"]:  # diverge at one offset
            log = [list(e) for e in obs["log"]]
            log[rnd.randrange(len(log))] = [epoch + 1, "data"]
            obs["log"] = log
        elif kind < 0.6:
            obs["log"] = [list(e) for e in obs["log"]]  # an equal copy, not the same object
        length = len(obs["log"])
        hw = obs["high_watermark"]
        r = rnd.random()
        obs["high_watermark"] = (None if r < 0.05 else rnd.randint(0, length + (rnd.random() < 0.05)) if r < 0.2
                                 else max(hw or 0, min(length, (hw or 0) + rnd.randint(0, 2))))
        if truncated and rnd.random() < 0.7:  # a restarted node's volatile high watermark, lower
            obs["high_watermark"] = min(obs["high_watermark"] or 0, length) or None
        # Mostly one leader per epoch and one vote per epoch, so that runs go on long enough to
        # reach the log properties; sometimes not.
        obs["role"] = "leader" if node == 1 + epoch % 3 and rnd.random() < 0.7 else \
            rnd.choice(("leader", "follower", "follower", "candidate")) if rnd.random() < 0.02 else "follower"
        obs["voted_for"] = 1 + epoch % 3 if rnd.random() < 0.98 else node
        action = rnd.choice(("FetchResponse", "FetchResponse", "Restart"))
        state[node] = obs
        out.append((node, action, obs))
    return out


def test_incremental_checks_give_the_whole_state_checks_verdict_at_every_step() -> None:
    found: dict[str, int] = {}
    resumed = 0  # checks that resumed where the last one of the node stopped
    same = 0  # checks of a node whose observation is the object it had
    for seed in range(400):
        rnd = random.Random(seed)
        config = {"voters": 3, "observers": 1}
        fast, slow = NodeReplay("raft", config), WholeState("raft", config)
        # HighWatermarkDurable stops most random runs early; without it (half the seeds) the
        # runs go on to the committed-log properties, which are what became incremental.
        fast.check_durable = slow.check_durable = seed % 2 == 0
        stream = _stream(rnd, 150)
        for k, (node, action, obs) in enumerate(stream):
            agreed, complete = fast.agreed.get(node), fast.complete.get(node)
            same += obs is fast.latest[node]
            resumed += bool(agreed and agreed[0] and obs["high_watermark"]) + \
                bool(complete and complete[1] and obs["role"] == "leader")
            got, want = fast._properties(node, action, obs), slow._properties(node, action, obs)
            assert got == want, (seed, k, got, want)
            if want is not None:
                found[want.property] = found.get(want.property, 0) + 1
                break
    # The streams reach every log property, and the incremental paths are taken.
    assert {"CommittedLogsAgree", "LeaderCompleteness", "HighWatermarkDurable"} <= set(found), found
    assert resumed > 1000, resumed
    assert same > 500, same


def _obs(epoch: int, role: str, log: list[list[Any]], hw: int | None, voted: int | None = None) -> dict[str, Any]:
    return {"epoch": epoch, "high_watermark": hw, "leader": None, "log": log, "role": role, "voted_for": voted}


def test_a_node_that_repeats_its_observation_is_checked_against_what_the_others_changed() -> None:
    """The checks of a node whose observation is the very object it had skip what depends on
    that node alone; what the other nodes' observations decide is checked again: the majority
    that holds its high watermark (two voters truncated since) and the entries a leader must
    hold (committed by others since)."""
    log2 = [[1, "leader_change"], [1, "data"]]
    one = _obs(1, "follower", log2, 2)
    durable = [(2, _obs(1, "follower", log2, None)), (3, _obs(1, "follower", log2, None)), (1, one),
               (2, _obs(1, "follower", [], None)), (3, _obs(1, "follower", [], None)), (1, one)]
    leader = _obs(2, "leader", [[1, "leader_change"]], None)
    complete = [(1, leader), (2, _obs(1, "follower", log2, None)), (3, _obs(1, "follower", log2, 2)), (1, leader)]
    for stream, prop in ((durable, "HighWatermarkDurable"), (complete, "LeaderCompleteness")):
        fast, slow = NodeReplay("raft", {"voters": 3}), WholeState("raft", {"voters": 3})
        verdicts = [(fast._properties(n, "FetchResponse", o), slow._properties(n, "FetchResponse", o))
                    for n, o in stream]
        assert all(got == want for got, want in verdicts), verdicts
        assert [v for v, _ in verdicts[:-1]] == [None] * (len(stream) - 1) and verdicts[-1][0] is not None
        assert verdicts[-1][0].property == prop
