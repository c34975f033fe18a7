"""``kafka:VERSION`` for mm2: Kafka's own ``DefaultReplicationPolicy`` and
``IdentityReplicationPolicy`` (connect-mirror-client) behind the snake_case method names the
laws of spec/mm2.md call (``kspec.model.mm2.policy.PolicyLike``).

Policies are configured as MirrorMaker configures them: ``configure(Map)`` with Kafka's property
names. Java nulls come back as None and Java strings as Python ``str``. A release follows its
own internal-topic rule (``internal_rule_for(version)``: 3.x before 4.0, 4.x since, KAFKA-17200),
so the target takes only the conformance configurations of that rule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kspec.conformance.adapters.base import JSON, StepResult, Target, TargetError
from kspec.conformance.targets.kafka import artifacts, jvm
from kspec.conformance.targets.mm2_policies import call_args
from kspec.model.mm2.policy import internal_rule_for

ARTIFACTS = ["connect-mirror-client"]
CLASSES = {"default": "org.apache.kafka.connect.mirror.DefaultReplicationPolicy",
           "identity": "org.apache.kafka.connect.mirror.IdentityReplicationPolicy"}

# snake_case name -> (Java method, result kind)
METHODS: dict[str, tuple[str, str]] = {
    "format_remote_topic": ("formatRemoteTopic", "str"),
    "topic_source": ("topicSource", "str?"),
    "upstream_topic": ("upstreamTopic", "str?"),
    "original_topic": ("originalTopic", "str"),
    "heartbeats_topic": ("heartbeatsTopic", "str"),
    "offset_syncs_topic": ("offsetSyncsTopic", "str"),
    "checkpoints_topic": ("checkpointsTopic", "str"),
    "is_heartbeats_topic": ("isHeartbeatsTopic", "bool"),
    "is_checkpoints_topic": ("isCheckpointsTopic", "bool"),
    "is_mm2_internal_topic": ("isMM2InternalTopic", "bool"),
    "is_internal_topic": ("isInternalTopic", "bool"),
}


def _convert(value: Any, kind: str) -> Any:
    if kind == "bool":
        return bool(value)
    if value is None:
        if kind == "str":
            raise TargetError("Kafka returned null where the ReplicationPolicy contract promises a string")
        return None
    return str(value)


class KafkaPolicy:
    """A Kafka ReplicationPolicy object with the PolicyLike methods."""

    def __init__(self, java: Any) -> None:
        self.java = java

    def call(self, method: str, *args: str) -> Any:
        """Call the Java method behind ``method`` (a PolicyLike name) and convert the result."""
        if method not in METHODS:
            raise TargetError(f"unknown ReplicationPolicy method {method!r} (known: {', '.join(METHODS)})")
        java_name, kind = METHODS[method]
        try:
            result = getattr(self.java, java_name)(*args)
        except Exception as err:  # a Java exception is the target failing, one line
            raise TargetError(f"{java_name}{args!r} raised {type(err).__name__}: {err}") from None
        return _convert(result, kind)

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        result: str = self.call("format_remote_topic", source_cluster_alias, topic)
        return result

    def topic_source(self, topic: str) -> str | None:
        result: str | None = self.call("topic_source", topic)
        return result

    def upstream_topic(self, topic: str) -> str | None:
        result: str | None = self.call("upstream_topic", topic)
        return result

    def original_topic(self, topic: str) -> str:
        result: str = self.call("original_topic", topic)
        return result

    def heartbeats_topic(self) -> str:
        result: str = self.call("heartbeats_topic")
        return result

    def offset_syncs_topic(self, cluster_alias: str) -> str:
        result: str = self.call("offset_syncs_topic", cluster_alias)
        return result

    def checkpoints_topic(self, cluster_alias: str) -> str:
        result: str = self.call("checkpoints_topic", cluster_alias)
        return result

    def is_heartbeats_topic(self, topic: str) -> bool:
        return bool(self.call("is_heartbeats_topic", topic))

    def is_checkpoints_topic(self, topic: str) -> bool:
        return bool(self.call("is_checkpoints_topic", topic))

    def is_mm2_internal_topic(self, topic: str) -> bool:
        return bool(self.call("is_mm2_internal_topic", topic))

    def is_internal_topic(self, topic: str) -> bool:
        return bool(self.call("is_internal_topic", topic))


class KafkaMm2Target(Target):
    """The mm2 target of one Kafka version: a factory of configured Kafka policies.

    ``policy(kind, props)`` builds one; ``policy_for(kind, separator)`` is the
    ``alias -> policy`` function the laws take (``source.cluster.alias`` set per flow, as
    MirrorMaker's connectors do for the identity policy). ``start`` gives the node-level
    interface (spec/adapter-protocol.md, mm2): a node is one policy (config ``policy``: default
    or identity, ``props``: Kafka properties, ``internal_rule``: must be this release's) and an
    input is one call (``{"type": "TopicSource", "topic": "A.orders"}``) whose answer is the
    observation ``{"result": ...}``.
    """

    protocol = "mm2"

    def __init__(self, version: str, jars: list[Any] | None = None) -> None:
        self.version = artifacts.check_version(version)
        self.name = f"kafka:{version}"
        # Before 3.1 ReplicationPolicy has five methods: heartbeatsTopic, checkpointsTopic,
        # offsetSyncsTopic and the is*Topic tests came with KIP-690 (KAFKA-10777, 3.1.0), and
        # the suite's calls need them (spec/mm2.md §1, "Releases the suite refuses").
        artifacts.supported_version(version, "mm2", (3, 1), "ReplicationPolicy before 3.1 has no heartbeatsTopic, "
                                    "checkpointsTopic, offsetSyncsTopic or is*Topic methods (KIP-690), which the "
                                    "suite calls")
        jvm.check(version)
        jvm.ensure(version, jars if jars is not None else artifacts.resolve(version, ARTIFACTS))
        self._classes = {kind: jvm.jclass(version, cls) for kind, cls in CLASSES.items()}
        self._hashmap: Any = jvm.jclass(version, "java.util.HashMap")
        self.internal_rule = internal_rule_for(version)

    def supports(self, config: Mapping[str, JSON]) -> bool:
        """The conformance configurations of this release's internal-topic rule."""
        return (str(config.get("internal_rule", self.internal_rule)) == self.internal_rule
                and str(config.get("policy", "default")) in self._classes)

    def policy(self, kind: str = "default", props: Mapping[str, str] | None = None) -> KafkaPolicy:
        """A new Kafka policy of ``kind`` (default, identity) configured with ``props``."""
        cls: Any = self._classes.get(kind)
        if cls is None:
            raise TargetError(f"{self.name}: unknown policy {kind!r} (default, identity)")
        java = cls()
        config = self._hashmap()
        for k, v in (props or {}).items():
            config.put(str(k), str(v))
        java.configure(config)
        return KafkaPolicy(java)

    def policy_for(self, kind: str, separator: str = ".") -> Callable[[str], KafkaPolicy]:
        """``alias -> policy`` as the laws take it; policies are cached per alias."""
        made: dict[str, KafkaPolicy] = {}

        def for_alias(alias: str) -> KafkaPolicy:
            if alias not in made:
                props = {"replication.policy.separator": separator}
                if kind == "identity":
                    props["source.cluster.alias"] = alias
                made[alias] = self.policy(kind, props)
            return made[alias]
        return for_alias

    def start(self, node: Any, config: dict[str, JSON]) -> Mm2Instance:
        rule = str(config.get("internal_rule", self.internal_rule))
        if rule != self.internal_rule:
            raise TargetError(f"{self.name} follows the {self.internal_rule} internal-topic rule; this run is "
                              f"configured for {rule} (MM2-RULE-INTERNAL-*, KAFKA-17200)")
        props = {str(k): str(v) for k, v in dict(config.get("props") or {}).items()}
        return Mm2Instance(self.policy(str(config.get("policy", "default")), props))

    def close(self) -> None:
        """Nothing to release: the JVM lives as long as the process (JPype cannot restart it)."""


class Mm2Instance:
    """One configured policy behind the node-level interface."""

    def __init__(self, policy: KafkaPolicy) -> None:
        self.policy = policy

    def step(self, inp: JSON) -> StepResult:
        method, args = call_args(inp)
        return StepResult([], {"result": self.policy.call(method, *args)})

    def close(self) -> None:
        pass
