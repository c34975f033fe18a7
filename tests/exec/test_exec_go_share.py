"""The Go share coordinator (examples/go-share-target) in lockstep with kspec.model.share.shard,
driven through ExecTarget over a real pipe: outputs and observation equal after every step."""

from __future__ import annotations

import json
import random
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from exec_go_build import REPO, build_go_share_target
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kspec.conformance.adapters.base import TargetError
from kspec.conformance.targets.exec import ExecTarget
from kspec.model.core.codec import decode, encode
from kspec.model.share import shard
from kspec.model.share.records import SharePartitionKey, ShareSnapshot, ShareTombstone, ShareUpdate, StateBatch
from kspec.model.share.system import Elect, Load, ShareSystem, SysState, Unload, request_of
from kspec.model.share.versions import minor_of, rules_of

CLASSES = (*shard.REQUEST_CLASSES, StateBatch, SharePartitionKey, ShareSnapshot, ShareUpdate, ShareTombstone)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Divergence(AssertionError):
    """The target's answer differs from the model's."""


@dataclass
class ModelNode:
    """The model's shard behind the same JSON interface the target speaks (the oracle)."""

    config: dict[str, Any]
    state: shard.ShardState = field(init=False)
    log: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rules = rules_of(minor_of(str(self.config.get("kafka_version", "4.3"))))
        self.state = shard.ShardState(snapshot_limit=self.config["snapshot_limit"], image=self._image(),
                                      rules=self.rules)

    def _image(self) -> frozenset[tuple[str, int]] | None:
        image = self.config["image"]
        return None if image is None else frozenset((t, p) for t, p in image)

    def step(self, inp: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        if inp["type"] == "Unload":
            self.state = shard.unload(self.state)
            outputs: list[Any] = []
        elif inp["type"] == "Load":
            self.log = list(decode(inp["records"], CLASSES))
            self.state = shard.load(self.log, self.config["snapshot_limit"], self._image(), self.rules)
            outputs = []
        else:
            self.state, outs = shard.step(self.state, decode(inp, CLASSES))
            self.log += [o for o in outs if isinstance(o, ShareSnapshot | ShareUpdate | ShareTombstone)]
            outputs = encode(list(outs))
        return outputs, self.observation()

    def observation(self) -> dict[str, Any]:
        # As JSON, the way it crosses the pipe (tuples become lists). The Go target does not
        # report the redundant offset (it declares no "redundant_offset": the driver does not
        # compare it, SHARE-OBS-REDUNDANT-OFFSET), so neither does this oracle.
        obs: dict[str, Any] = json.loads(json.dumps(shard.observe(self.state)))
        obs.pop("redundant_offset", None)
        return obs


def lockstep(target: ExecTarget, configs: list[dict[str, Any]], steps: list[tuple[int, dict[str, Any]]]) -> int:
    """Start one node per config, apply ``steps`` (node, input) to model and target; steps done.

    An input of type Load without records gets the node's log (what the harness sends).
    """
    # The Go target implements Kafka 4.3's share coordinator: model and target run that rule set.
    configs = [{"kafka_version": "4.3.1", **c} for c in configs]
    models = [ModelNode(c) for c in configs]
    instances = [target.start(k, c) for k, c in enumerate(configs)]
    for k, inst in enumerate(instances):
        if inst.initial_observation != models[k].observation():
            raise Divergence(f"start of node {k}: observation {inst.initial_observation} != model "
                             f"{models[k].observation()}")
    try:
        for n, (k, inp) in enumerate(steps, 1):
            if inp["type"] == "Load" and "records" not in inp:
                inp = {**inp, "records": encode(models[k].log)}
            want_out, want_obs = models[k].step(inp)
            got = instances[k].step(inp)
            if got.outputs != want_out:
                raise Divergence(f"step {n} node {k} {inp}: outputs {got.outputs} != model {want_out}")
            if got.observation != want_obs:
                raise Divergence(f"step {n} node {k} {inp}: observation {got.observation} != model {want_obs}")
    finally:
        for inst in instances:
            inst.close()
    return len(steps)


@pytest.fixture(scope="module")
def go_binary() -> Path:
    return build_go_share_target()


@pytest.fixture(scope="module")
def go_target(go_binary: Path) -> Any:
    t = ExecTarget([str(go_binary)], "share")
    yield t
    t.close()


# -- system-level walks: the inputs the harness sends (coherent epochs, fencing, fail-over) -------


def system_walk(model: ShareSystem, choose: Any, length: int) -> list[tuple[int, dict[str, Any]]]:
    """A walk through the share system model; the node-level inputs it sends to the coordinator."""
    state: SysState = model.init_states()[0]
    steps: list[tuple[int, dict[str, Any]]] = []
    for _ in range(length):
        actions = list(model.actions(state))
        action = actions[choose(len(actions))]
        request = request_of(state, action)
        if request is not None:
            steps.append((0, encode(request)))
        elif isinstance(action, Unload):
            steps.append((0, {"type": "Unload"}))
        elif isinstance(action, Load):
            steps.append((0, {"type": "Load", "records": encode(state.log)}))
        else:
            assert isinstance(action, Elect)
        nxt = model.next_state(state, action)
        assert nxt is not None
        state = nxt
    return steps


# The Go target implements Kafka 4.3's share coordinator: the model runs that release's rule set.
SYSTEM = ShareSystem(offsets=3, max_records=64, snapshot_every=1, max_leader_epoch=3, max_state_epoch=2,
                     max_failovers=2, kafka_minor=3)
SYSTEM_CONFIG = {"snapshot_limit": 1, "image": [["T", 0]]}


@SETTINGS
@given(st.data())
def test_go_share_system_walks_conform(go_target: ExecTarget, data: st.DataObject) -> None:
    length = data.draw(st.integers(1, 30), label="length")
    steps = system_walk(SYSTEM, lambda n: data.draw(st.integers(0, n - 1)), length)
    lockstep(go_target, [SYSTEM_CONFIG], steps)


# -- arbitrary node-level requests: invalid ones, other keys, unknown topics, several nodes ------

# Mostly valid keys (so records get written, merged, deleted), sometimes an invalid or unhosted one.
GROUPS = st.sampled_from(["g", "g", "g", "h"])
TOPICS = st.sampled_from(["T"] * 8 + ["U", None])
PARTITIONS = st.sampled_from([0] * 6 + [1, 1, -1])
EPOCHS = st.integers(-1, 3)
BATCH = st.builds(lambda f, n, s, c: StateBatch(f, f + n, s, c), st.integers(0, 6), st.integers(0, 3),
                  st.sampled_from([0, 2, 4]), st.integers(0, 3))
REQUESTS = st.one_of(
    st.builds(shard.WriteRequest, GROUPS, TOPICS, PARTITIONS, EPOCHS, EPOCHS, st.integers(-1, 5),
              st.lists(BATCH, max_size=3).map(tuple)),
    st.builds(shard.ReadRequest, GROUPS, TOPICS, PARTITIONS, EPOCHS),
    st.builds(shard.InitializeRequest, GROUPS, TOPICS, PARTITIONS, EPOCHS, st.integers(-1, 5)),
    st.builds(shard.DeleteRequest, GROUPS, TOPICS, PARTITIONS),
    st.builds(shard.ReadSummaryRequest, GROUPS, TOPICS, PARTITIONS, EPOCHS),
).map(encode)
INPUTS = st.one_of(REQUESTS, REQUESTS, REQUESTS, st.sampled_from([{"type": "Unload"}, {"type": "Load"}]))
CONFIGS = st.fixed_dictionaries({
    "snapshot_limit": st.integers(0, 3),
    "image": st.sampled_from([[["T", 0], ["T", 1]]] * 4 + [[["T", 0]], None]),
})


@SETTINGS
@given(st.lists(CONFIGS, min_size=1, max_size=2),
       st.lists(st.tuples(st.integers(0, 1), INPUTS), min_size=1, max_size=40))
def test_go_share_arbitrary_requests_conform(go_target: ExecTarget, configs: list[dict[str, Any]],
                                             steps: list[tuple[int, dict[str, Any]]]) -> None:
    steps = [(k % len(configs), inp) for k, inp in steps]
    lockstep(go_target, configs, steps)


# -- the lockstep check can fail: each deliberately broken Go variant is caught ------------------


@pytest.mark.parametrize("flaw", ["seed-bug", "lower-count-wins", "init-as-update", "no-leader-fence"])
def test_each_flawed_go_variant_diverges(go_binary: Path, flaw: str) -> None:
    rng = random.Random(f"go-share-{flaw}")
    with ExecTarget([str(go_binary), "-flaw", flaw], "share") as target:
        for _ in range(2000):
            steps = system_walk(SYSTEM, rng.randrange, rng.randint(1, 30))
            try:
                lockstep(target, [SYSTEM_CONFIG], steps)
            except Divergence as err:
                assert str(err).startswith("step ")
                return
    raise AssertionError(f"-flaw {flaw}: no divergence in 2000 random walks")


# -- the spec's worked example is exact -------------------------------------------------------


def test_spec_example_exchange_is_what_the_go_target_says(go_binary: Path) -> None:
    text = (REPO / "spec" / "adapter-protocol.md").read_text()
    block = text.split("## Example", 1)[1].split("```")[1]
    sent = [line[2:] for line in block.splitlines() if line.startswith("> ")]
    expected = [json.loads(line[2:]) for line in block.splitlines() if line.startswith("< ")]
    assert len(sent) == len(expected) >= 4
    proc = subprocess.run([str(go_binary)], input="\n".join(sent) + "\n", capture_output=True, text=True,
                          timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line) for line in proc.stdout.splitlines()] == expected
    # ... and what the model says (its default rules, the newest Kafka release's).
    requests = [json.loads(line) for line in sent]
    starts = [r for r in requests if r["op"] == "start"]
    assert len(starts) == 1
    model = ModelNode(starts[0]["config"])
    for req, answer in zip(requests, expected, strict=True):
        if req["op"] == "step":
            outputs, observation = model.step(req["input"])
            assert (answer["outputs"], answer["observation"]) == (outputs, observation), f"id {req['id']}"
        elif req["op"] == "start":
            assert answer["observation"] == model.observation()


def test_go_target_refuses_another_kafka_release(go_target: ExecTarget) -> None:
    # It implements Kafka 4.3's rules (the model's 4.1-4.3 rule set); another rule set is refused.
    with pytest.raises(TargetError, match=r'config.kafka_version "4.4": this target implements Kafka 4.3'):
        go_target.start(0, {**SYSTEM_CONFIG, "kafka_version": "4.4"})
    go_target.start(0, {**SYSTEM_CONFIG, "kafka_version": "4.1"}).close()  # 4.1-4.3: one rule set
    inst = go_target.start(0, {**SYSTEM_CONFIG, "kafka_version": "4.3.1"})
    assert inst.initial_observation == {"active": True, "partitions": {}}
    inst.close()


def test_go_target_refuses_unknown_input_and_stays_up(go_target: ExecTarget) -> None:
    inst = go_target.start(0, SYSTEM_CONFIG)
    with pytest.raises(TargetError, match=r'step \d+: target error: unsupported input type "VoteRequest"'):
        inst.step({"type": "VoteRequest"})
    assert inst.step(encode(shard.ReadSummaryRequest("g", "T", 0, 0))).outputs[-1]["error"] == "NONE"
    inst.close()
