"""Kafka's own ShareCoordinatorShard (``kafka:VERSION``, share) driven side by side with the
model's shard ``step`` at that release's rules: outputs (records and responses) and observations
must be equal after every request; and ``kspec conform`` against it (docs/kafka-matrix.md).

The version is KSPEC_KAFKA_TEST_VERSION (default 4.0.0; 4.1.0, 4.2.0 and 4.3.1 pass too).
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kspec.conformance.adapters.base import TargetError
from kspec.conformance.deviations import catalogue
from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.drivers.share import ShareDriver
from kspec.conformance.targets import registry
from kspec.conformance.targets.kafka.share import KafkaShareTarget
from kspec.model.core.codec import encode
from kspec.model.share import shard as S
from kspec.model.share.records import Record, SharePartitionKey, StateBatch
from kspec.model.share.versions import minor_of, rules_of, with_deviations

VERSION = os.environ.get("KSPEC_KAFKA_TEST_VERSION", "4.0.0")
IMAGE = [["T", 0]]
# The release's catalogued deviations (conformance/deviations/share.toml): the model runs this
# release's rule set with them accepted, so everything else must be equal.
KNOWN = sorted(name for name, d in catalogue("share").items() if VERSION in d.releases)
RULES = with_deviations(rules_of(minor_of(VERSION)), KNOWN)


def seen(outputs: list[Any]) -> list[Any]:
    """Outputs as the conformance driver compares them (coalesced batches, error codes)."""
    return [ShareDriver.comparable(o) for o in outputs]


@pytest.fixture(scope="module")
def kafka() -> KafkaShareTarget:
    target = registry.resolve_target(f"kafka:{VERSION}", "share")
    assert isinstance(target, KafkaShareTarget)
    return target


class Lockstep:
    """One Kafka shard and the model's shard, fed the same inputs."""

    def __init__(self, kafka: KafkaShareTarget, snapshot_limit: int) -> None:
        self.node = kafka.start(0, {"snapshot_limit": snapshot_limit, "image": IMAGE})
        self.state = S.ShardState(snapshot_limit=snapshot_limit, image=frozenset((t, p) for t, p in IMAGE),
                                  rules=RULES)
        self.log: list[Record] = []
        self.limit = snapshot_limit

    def request(self, req: S.Request) -> None:
        self.state, outs = S.step(self.state, req)
        self.log += [o for o in outs if isinstance(o, S.ShareSnapshot | S.ShareUpdate | S.ShareTombstone)]
        got = self.node.step(encode(req))
        want = seen(encode(list(outs)))
        assert [o for o in seen(got.outputs) if "key" in o] == [o for o in want if "key" in o], req  # records
        assert seen(got.outputs) == want, (req, got.outputs, want)
        assert ShareDriver.comparable_observation(got.observation) == \
            ShareDriver.comparable_observation(S.observe(self.state)), req

    def failover(self) -> None:
        assert self.node.step({"type": "Unload"}).observation == S.observe(S.unload(self.state))
        self.state = S.unload(self.state)
        self.request(S.ReadRequest("g", "T", 0, 0))  # COORDINATOR_NOT_AVAILABLE on both sides
        self.state = S.load(self.log, self.limit, self.state.image, RULES)
        got = self.node.step({"type": "Load", "records": encode(self.log)})
        assert ShareDriver.comparable_observation(got.observation) == \
            ShareDriver.comparable_observation(S.observe(self.state))


def test_writes_reads_and_failover_match_the_model(kafka: KafkaShareTarget) -> None:
    run = Lockstep(kafka, snapshot_limit=1)
    run.request(S.WriteRequest("g", "T", 0, 1, 0, 0, (StateBatch(0, 3, 0, 1),)))  # 4.1+: refused, no state
    run.request(S.InitializeRequest("g", "T", 0, 0, 0))  # 4.0: UNSUPPORTED_VERSION
    run.request(S.WriteRequest("g", "T", 0, 1, 0, 0, (StateBatch(0, 3, 0, 1),)))
    run.request(S.ReadRequest("g", "T", 0, 1))
    run.request(S.WriteRequest("g", "T", 0, 1, 0, -1, (StateBatch(1, 1, 2, 1),)))  # a ShareUpdate
    run.request(S.WriteRequest("g", "T", 0, 2, 0, 2, (StateBatch(3, 3, 4, 2),)))  # limit: a new snapshot
    run.request(S.ReadRequest("g", "T", 0, 3))  # new leader epoch: recorded by a record
    run.request(S.WriteRequest("g", "T", 0, 2, 0, 2, ()))  # fenced by leader epoch 3
    run.request(S.ReadRequest("g", "T", 0, -1))  # fenced up to 4.3.0 (KAFKA-20694); 4.4 refuses -1
    run.failover()
    run.request(S.ReadRequest("g", "T", 0, 3))
    run.request(S.WriteRequest("g", "T", 0, 3, 1, -1, (StateBatch(2, 2, 2, 1),)))  # state epoch 1
    run.request(S.WriteRequest("g", "T", 0, 3, 1, -1, ()))
    kept = run.state.state_epoch(SharePartitionKey("g", "T", 0))
    assert kept == (1 if RULES.write_records_epochs else 0)  # KAFKA-19456: 4.0 limit, 4.1 state-epoch snapshot
    run.request(S.WriteRequest("g", "T", 0, 3, 0, -1, ()))  # fenced by state epoch 1 (4.0, 4.1)
    run.request(S.WriteRequest("g", "U", 0, 3, 0, -1, ()))  # not in the image
    run.request(S.ReadRequest("g", None, 0, 3))  # null topic id
    run.request(S.WriteRequest("g", "T", -1, 3, 0, -1, ()))  # negative partition
    run.request(S.ReadSummaryRequest("g", "T", 0, 3))
    run.request(S.DeleteRequest("g", "T", 0))
    run.request(S.ReadSummaryRequest("g", "T", 0, 3))  # no state: PartitionFactory's defaults


requests = st.one_of(
    st.builds(S.WriteRequest, st.just("g"), st.sampled_from(["T", "T", "U"]), st.sampled_from([0, 0, 1]),
              st.integers(-1, 3), st.integers(-1, 2), st.integers(-1, 3),
              st.lists(st.builds(lambda f, n, s, c: StateBatch(f, f + n, s, c), st.integers(0, 4),
                                 st.integers(0, 2), st.sampled_from([0, 2, 4]), st.integers(1, 3)),
                       max_size=2).map(tuple),
              st.integers(-1, 3)),  # KIP-1226's delivery-complete count (4.2+; ignored before)
    st.builds(S.ReadRequest, st.just("g"), st.sampled_from(["T", "T", "U"]), st.sampled_from([0, 0, 1]),
              st.integers(-1, 3)),
    st.builds(S.InitializeRequest, st.just("g"), st.sampled_from(["T", "T", "U"]), st.sampled_from([0, 0, 1]),
              st.integers(-1, 2), st.integers(-1, 3)),
    st.builds(S.DeleteRequest, st.just("g"), st.sampled_from(["T", "T", "U"]), st.sampled_from([0, 0, 1])),
    st.builds(S.ReadSummaryRequest, st.just("g"), st.sampled_from(["T", "T", "U"]), st.sampled_from([0, 0, 1]),
              st.integers(-1, 3)),
    st.just("failover"),
)


@settings(max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(limit=st.sampled_from([0, 1, 2]), script=st.lists(requests, min_size=1, max_size=12))
def test_random_requests_match_the_model(kafka: KafkaShareTarget, limit: int, script: list[Any]) -> None:
    run = Lockstep(kafka, snapshot_limit=limit)
    for item in script:
        if item == "failover":
            run.failover()
        else:
            run.request(item)


def test_find_coordinator_matches_the_model(kafka: KafkaShareTarget) -> None:
    """SHARE-RULE-KEY-PARSE: FindCoordinator for every routing probe's key, on a loaded and an
    unloaded shard, gets what the model answers under this release's rules: Kafka's
    ``SharePartitionKey`` parse and ``ShareCoordinatorService.partitionFor``. 4.0.0-4.2.0 parse
    from the left (``share-key-parsed-from-left``): a group id holding ':' is refused."""
    from kspec.model.share.system import ROUTE_KEYS

    run = Lockstep(kafka, snapshot_limit=1)
    answers = []
    for unloaded in (False, True):
        if unloaded:
            run.node.step({"type": "Unload"})
            run.state = S.unload(run.state)
        for key in ROUTE_KEYS:
            run.request(S.FindCoordinatorRequest(key.group_id, key.topic_id, key.partition))
            answers.append(run.node.step(encode(S.FindCoordinatorRequest(key.group_id, key.topic_id,
                                                                         key.partition))).outputs[-1])
    colon = [a for a, k in zip(answers, ROUTE_KEYS * 2, strict=True) if k.group_id == "a:b"]
    refused = "share-key-parsed-from-left" in KNOWN
    assert {a["error"] for a in colon} == {"INVALID_REQUEST" if refused else "NONE"}


def test_conform_runs_against_this_release(kafka: KafkaShareTarget) -> None:
    """``kspec conform share --target kafka:VERSION --accept <its known deviations>`` (in
    process): the model at this release's rule set with its deviations; initialize, delete and
    read-summary left out on 4.0, which has none of them."""
    assert kafka.model_config == {"kafka_version": RULES.version, "redundant_offset": True, "routing": True}
    assert kafka.unsupported == (frozenset() if RULES.initialize else frozenset({"initialize", "delete", "summary"}))
    result = run_conformance("share", Accepting(kafka, "+".join(KNOWN)), examples=15, seed_value=3, out_dir=None)
    assert result.verdict == "conforms", result.finding and result.finding.line()
    assert result.config.get("kafka_version") == RULES.version


class Accepting:
    """``kafka`` with runs drawn at ``model_variant`` (what ``--accept`` does)."""

    def __init__(self, kafka: KafkaShareTarget, variant: str) -> None:
        self._kafka = kafka
        self.model_config = {**kafka.model_config, **({"model_variant": variant} if variant else {})}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._kafka, name)


def test_a_model_of_another_release_is_refused(kafka: KafkaShareTarget) -> None:
    other = "4.1" if RULES.version != "4.1" else "4.0"
    with pytest.raises(TargetError, match=f"the model runs Kafka {other}'s share rules"):
        kafka.start(0, {"snapshot_limit": 1, "image": IMAGE, "kafka_version": other})


def test_share_needs_kafka_4() -> None:
    with pytest.raises(registry.UnknownTarget, match=r"the share coordinator ships from Kafka 4\.0\.0"):
        registry.resolve_target("kafka:3.9.0", "share")
