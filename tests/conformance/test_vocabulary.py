"""Each driver's vocabulary (docs/adapter-guide.md, "What each driver sends") occurs in a default
run: the guided paths of ``kspec conform P`` at the default budget (deterministic, the first
half of a mixed run) feed every input kind and every boundary value listed. Checked on the
model side (the inputs the paths feed), so no target runs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kspec.conformance.drivers import PROTOCOLS, config_key, guide
from kspec.conformance.drivers.mm2 import (
    BLANK_FLAG_NODE,
    CLIENT_NODE,
    WORD_FLAG,
    WORD_FLAG_NODE,
    Mm2Driver,
    interesting_topics,
)
from kspec.conformance.drivers.mm2 import CONFIGS as MM2_CONFIGS
from kspec.conformance.drivers.runner import DEFAULT_EXAMPLES, DEFAULT_STEPS, _guided_plans
from kspec.conformance.drivers.streams import (
    ENRICHED,
    GLOBAL_STORE,
    JOINED,
    KEYS,
    SIDE_TOPIC,
    STORE,
    UNKNOWN_STORES,
    WIDE_KEYS,
)
from kspec.conformance.drivers.voters import UNKNOWN_REPLICA, WRONG_DIRECTORY
from kspec.conformance.harness import JSON, Event
from kspec.model.voters.node import NO_DIRECTORY


def _events(protocol: str, configs: list[dict[str, JSON]] | None = None) -> Iterator[tuple[dict[str, Any], Event]]:
    """(config, event) of every event the default run's guided paths feed."""
    spec = PROTOCOLS[protocol]()
    configs = configs or spec.configs
    for config, path in _guided_plans(spec, configs, frozenset(), DEFAULT_STEPS, DEFAULT_EXAMPLES // 2,
                                      guide.Coverage(), {}):
        driver = spec.driver(config)
        state = driver.init_state()
        for _category, action in path:
            after = driver.resolve(state, action)
            assert after is not None, (config_key(config), action)
            for ev in driver.events(state, action, after):
                yield config, ev
            state = after


def _inputs(protocol: str, configs: list[dict[str, JSON]] | None = None) -> Iterator[tuple[dict[str, Any], JSON]]:
    """(config, input) of every event the default run's guided paths feed."""
    for config, ev in _events(protocol, configs):
        yield config, ev.input


def test_mm2_names_at_every_boundary_are_asked() -> None:
    config = MM2_CONFIGS[0]
    asked: dict[str, set[str]] = {}
    for _, inp in _inputs("mm2", [config]):
        for field in ("topic", "source", "alias"):
            if field in inp:
                asked.setdefault(inp["type"], set()).add(inp[field])
    assert set(asked) >= {"FormatRemoteTopic", "TopicSource", "UpstreamTopic", "OriginalTopic", "IsInternalTopic",
                          "IsHeartbeatsTopic", "IsCheckpointsTopic", "IsMM2InternalTopic", "CheckpointsTopic",
                          "OffsetSyncsTopic"}
    for name in interesting_topics(str(config["separator"])):  # separators at the ends, doubled, alone, ...
        assert name in asked["TopicSource"] and name in asked["UpstreamTopic"], name


def test_streams_keys_at_every_boundary_are_asked() -> None:
    keys: dict[str, set[str]] = {}
    kinds: set[str] = set()
    partitions: set[int] = set()
    store_queries: set[str] = set()
    counts: set[tuple[str, int]] = set()
    standby_only = two_standbys = False
    hosts: set[str] = set()
    for config, inp in _inputs("streams"):
        kinds.add(inp["type"])
        partitions.add(int(config["partitions"]))
        if inp["type"] == "MetadataForKey":
            keys.setdefault(inp["store"], set()).add(inp["key"])
        if inp["type"] == "AllMetadataForStore":
            store_queries.add(inp["store"])
        if inp["type"] == "RebalanceFinished":
            a = inp["assignment"]
            hosts |= set(a["active"])
            counts |= set(a["partitions"].items())
            standby_only |= any(not a["active"][h] and a["standby"][h] for h in a["active"])
            held = [tuple(tp) for tps in a["standby"].values() for tp in tps]
            two_standbys |= any(held.count(tp) >= 2 for tp in held)
    assert kinds == {"RebalanceStarted", "RebalanceFinished", "MetadataForKey", "AllMetadata", "AllMetadataForStore"}
    assert set(KEYS) <= keys[STORE]  # empty, every murmur2 tail length, non-ASCII, long
    assert set(WIDE_KEYS) <= keys[JOINED]  # a store over two topics of different sizes
    assert GLOBAL_STORE in keys and GLOBAL_STORE in store_queries
    assert set(UNKNOWN_STORES) <= set(keys) and set(UNKNOWN_STORES) <= store_queries  # case, blanks, empty
    assert {1, 2, 3, 4, 8} <= partitions  # partition counts at the edges
    assert {(SIDE_TOPIC, 1), ("input", 1), ("input", 8)} <= counts
    assert standby_only  # a member that holds standby tasks only
    assert two_standbys  # a partition with two standby hosts (a lookup keeping one in a scalar)
    assert set(WIDE_KEYS) <= keys[ENRICHED]  # the same two topics, the widest listed first
    assert "nul\x00key" in keys[STORE]  # a NUL byte (a C-string hash stops there)
    assert {"1", "-1"} <= keys[STORE]  # keys that read as numbers (an integer serde hashes other bytes)
    # STREAMS-DRIVE-ENDPOINTS: one machine with two ports, a mixed-case name, an IPv6 literal
    assert {"localhost:8080", "localhost:8081", "Node-2.Example.COM:8080", "::1:9092"} <= hosts


def test_voters_requests_off_the_protocol_are_sent() -> None:
    kinds: set[str] = set()
    odd: set[str] = set()
    for _, inp in _inputs("voters", PROTOCOLS["voters"]().configs[:1]):  # 4 hosts, 3 voters
        kinds.add(inp["type"])
        if inp["type"] in ("AddVoter", "RemoveVoter"):
            if inp["replica"] == UNKNOWN_REPLICA:
                odd.add(f"{inp['type']} unknown replica")
            elif inp["replica"] < 0:
                odd.add(f"{inp['type']} negative id")  # VOTERS-RULE-KEY-VALID
            elif inp["directory"] == NO_DIRECTORY:
                odd.add(f"{inp['type']} no directory")  # VOTERS-RULE-KEY-VALID
            elif inp["directory"] == 0:
                odd.add(f"{inp['type']} directory 0")  # VOTERS-DRIVE-ODD-KEY-PROBE
            elif inp["directory"] == inp["replica"] + WRONG_DIRECTORY:
                odd.add(f"{inp['type']} wrong directory")
            elif inp["directory"] >= 1000:
                odd.add(f"{inp['type']} replaced disk")  # VOTERS-DRIVE-DISK-REPLACED: id + 1000·n
            elif inp["directory"] != inp["replica"]:
                odd.add(f"{inp['type']} crossed key")  # VOTERS-DRIVE-CROSSED-KEY-PROBE: another voter's directory
    assert {"AddVoter", "RemoveVoter", "UpgradeKRaftVersion", "TakeSnapshot", "VoteRequest", "FetchRequest",
            "ElectionTimeout", "Crash", "Restart", "DescribeQuorumRequest"} <= kinds  # VOTERS-DRIVE-DESCRIBE
    assert "ResendDue" not in kinds  # the voter-set model runs without resends (docs/adapter-guide.md)
    expected = {"AddVoter unknown replica", "RemoveVoter unknown replica", "RemoveVoter wrong directory",
                "AddVoter wrong directory", "AddVoter negative id", "RemoveVoter negative id",
                "AddVoter no directory", "RemoveVoter no directory", "AddVoter directory 0",
                "RemoveVoter directory 0", "RemoveVoter crossed key"}
    # the disk-replacement probe's keys where the reference declares it (a new directory id)
    assert expected <= odd <= expected | {"AddVoter replaced disk", "RemoveVoter replaced disk"}


def test_mm2_client_policy_without_alias_is_asked() -> None:
    # The identity policy as a client configures it (no source.cluster.alias): topicSource null.
    config = next(c for c in MM2_CONFIGS if c["policy"] == "identity" and c["internal_rule"] == "4.x")
    spec = PROTOCOLS["mm2"]()
    driver = spec.driver(config)
    assert "source.cluster.alias" not in driver.node_config(CLIENT_NODE)["props"]
    client = {ev.input["type"] for _, ev in _events("mm2", [config]) if ev.node == CLIENT_NODE}
    assert {"TopicSource", "UpstreamTopic", "OriginalTopic", "IsHeartbeatsTopic"} <= client



def test_raft_guided_paths_send_payloads_and_probe_every_role() -> None:
    """RAFT-DRIVE-PAYLOAD: the guided client appends carry bytes above 127 and an empty record;
    RAFT-DRIVE-PROBE: the guided paths end with injected requests, a KIP-595 vote at an
    observer among them, at replicas in many roles."""
    from kspec.conformance.drivers.raft import CONFIGS, RaftDriver

    config = next(c for c in CONFIGS if c["observers"] and c["kip853"] is False)  # 3 voters, 1 observer
    payloads: set[tuple[int, ...]] = set()
    roles: set[str] = set()
    observer_votes = 0
    spec = PROTOCOLS["raft"]()
    for _, path in _guided_plans(spec, [config], frozenset(), DEFAULT_STEPS, DEFAULT_EXAMPLES // 2,
                                 guide.Coverage(), {}):
        driver = RaftDriver(config)
        state = driver.init_state()
        for category, action in path:
            if category == "inject":
                role, kind = driver.input_cells(state, action)[0]
                roles.add(role)
                observer_votes += role.startswith("observer") and kind.startswith("VoteRequest")
            for ev in driver.events(state, action, driver.resolve(state, action)) if category == "client" else []:
                payloads.add(tuple(ev.input["payload"]))
            state = driver.resolve(state, action)
            assert state is not None
    assert payloads == {(0, 127, 128, 255), ()}
    assert observer_votes > 0
    assert {"leader", "follower", "candidate", "voted", "unattached", "observer unattached"} <= roles, roles


def test_mm2_naming_calls_take_other_aliases_and_odd_spellings() -> None:
    """MM2-DRIVE-ALIAS-ARGUMENT: the guided paths ask a node (and the client) the naming calls
    of another alias, the empty alias's internal names, case variants and the shortest names of
    MM2's own topics; KIP-949's flag reaches the nodes in three spellings (Boolean.parseBoolean)."""
    config = MM2_CONFIGS[0]
    other_alias: set[str] = set()
    client_checkpoints = False
    topics: set[str] = set()
    aliases: set[str] = set()
    for _, ev in _events("mm2", [config]):
        inp = ev.input
        if inp["type"] in ("CheckpointsTopic", "OffsetSyncsTopic"):
            aliases.add(inp["alias"])
            client_checkpoints |= ev.node == CLIENT_NODE
            if ev.node not in (CLIENT_NODE, inp["alias"]):
                other_alias.add(inp["type"])
        if inp["type"] == "FormatRemoteTopic" and ev.node != inp["source"]:
            other_alias.add(inp["type"])
        if inp["type"] in ("IsMM2InternalTopic", "IsCheckpointsTopic", "IsInternalTopic"):
            topics.add(inp["topic"])
    assert other_alias == {"CheckpointsTopic", "OffsetSyncsTopic", "FormatRemoteTopic"}
    assert client_checkpoints and "" in aliases
    assert {"MM2-offset-syncs.A.internal", "orders.INTERNAL", "mm2.internal", ".checkpoints.internal"} <= topics
    driver = PROTOCOLS["mm2"]().driver(MM2_CONFIGS[1])
    flag = "replication.policy.internal.topic.separator.enabled"
    spellings = {str(driver.node_config(n)["props"][flag]) for n in driver.nodes()}  # type: ignore[index]
    # MM2-DRIVE-BLANK-FLAG: one node (an alias no cluster has) gets its spelling with a trailing
    # blank, which Boolean.parseBoolean reads as false: the model's policy there has it off;
    # MM2-DRIVE-FLAG-WORD: another gets the word "yes", false to Boolean.parseBoolean too
    assert {s.strip() for s in spellings} == {"true", "TRUE", "True", WORD_FLAG}
    blank = [n for n in driver.nodes()
             if str(driver.node_config(n)["props"][flag]).endswith(" ")]  # type: ignore[index]
    setup = Mm2Driver(MM2_CONFIGS[1]).setup
    assert BLANK_FLAG_NODE is not None
    assert blank == [BLANK_FLAG_NODE] and BLANK_FLAG_NODE not in setup.clusters
    assert setup.policy_at(BLANK_FLAG_NODE).checkpoints_topic("A") == "A.checkpoints.internal"
    assert setup.policy_at("A").checkpoints_topic("A") != "A.checkpoints.internal"
    word = [n for n in driver.nodes() if driver.node_config(n)["props"][flag] == WORD_FLAG]  # type: ignore[index]
    assert WORD_FLAG_NODE is not None
    assert word == [WORD_FLAG_NODE] and WORD_FLAG_NODE not in setup.clusters
    assert setup.policy_at(WORD_FLAG_NODE).offset_syncs_topic("A") == "mm2-offset-syncs.A.internal"
