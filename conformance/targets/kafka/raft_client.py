"""How the ``kafka:VERSION`` raft adapter builds one replica's ``KafkaRaftClient``, release line by
release line (``raft_releases``, ``raft_java``): the network channel, the constructor argument
by argument, the quorum configuration, ``initialize``, and the settings that keep Kafka's clock
and the model's timer events apart (``raft``'s module docstring says why each). A mixin of
:class:`~kspec.conformance.targets.kafka.raft.KafkaRaftNode`; the voters replica level
overrides the bootstrap servers, the directory id and ``initialize``.
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import TargetError
from kspec.conformance.targets.kafka import jvm, raft_io
from kspec.conformance.targets.kafka.raft_java import RAFT
from kspec.conformance.targets.kafka.raft_java import Java as _Java
from kspec.conformance.targets.kafka.raft_wire import CLUSTER_ID

ELECTION_TIMEOUT_MS = 1000
FETCH_TIMEOUT_MS = 2000
# Kafka's default quorum.election.backoff.max.ms: the timed liveness suffixes draw the backoff
# from Kafka's own range (RAFT-LIVE-TIMED); the lockstep runs never see its length.
ELECTION_BACKOFF_MAX_MS = 1000
REQUEST_TIMEOUT_MS = 1_000_000_000


class ClientBuild:
    """Builds the replica's client for its release line (mixed into ``KafkaRaftNode``)."""

    java: _Java
    id: int
    voters: list[int]
    is_voter: bool
    time: Any
    metrics: Any = None
    channel: Any = None
    queue: Any = None
    log: Any
    store_proxy: Any
    random: Any
    client: Any

    def _channel(self) -> Any:
        j = self.java
        if j.line.futures:  # 4.4: the adapter's own channel (raft_io, KAFKA-20714)
            return raft_io.channel(j)
        try:
            return j.MockChannel()
        except TypeError:  # 3.7: the channel knows the destination ids
            ids = j.jpype.JClass("java.util.HashSet")()
            for v in self.voters:
                ids.add(j.Integer.valueOf(v))
            return j.MockChannel(ids)

    def _construct(self) -> Any:
        """KafkaRaftClient's package-private constructor, argument by argument for the version."""
        j = self.java
        ctor = j.ctor
        names = [str(t.getName()).rsplit(".", 1)[-1] for t in ctor.getParameterTypes()]
        if self.metrics is not None:
            self.metrics.close()  # the crashed client's gauges go with it
        self.metrics = j.Metrics(self.time)
        expiration = j.MockExpiration(self.time)
        local = j.OptionalInt.of(self.id)
        args: list[Any] = []
        for name in names:
            if name == "RecordSerde":
                args.append(j.serde)
            elif name == "NetworkChannel":
                args.append(self.channel)
            elif name == "RaftMessageQueue":
                args.append(self.queue)
            elif name in ("ReplicatedLog", "RaftLog"):
                args.append(self.log)
            elif name == "QuorumStateStore":
                args.append(self.store_proxy)
            elif name == "MemoryPool":
                args.append(j.MemoryPool.NONE)
            elif name == "Time":
                args.append(self.time)
            elif name == "Metrics":
                args.append(self.metrics)
            elif name == "ExpirationService":
                args.append(expiration)
            elif name == "int":
                args.append(j.boxed(0, "int"))  # fetchMaxWaitMs, the only int: answer at once
            elif name == "boolean":
                args.append(j.boxed(self.flag_argument(), "bool"))
            elif name == "String":
                args.append(j.jpype.JString(CLUSTER_ID))
            elif name == "OptionalInt":
                args.append(local)
            elif name == "Uuid":
                args.append(self.directory_id())
            elif name == "LogContext":
                args.append(j.LogContext(f"[kspec replica {self.id}] "))
            elif name == "Random":
                args.append(self.random)
            elif name == "Collection":
                args.append(self.bootstrap_servers())
            elif name == "Endpoints":
                args.append(self._endpoints(self.id) if self.is_voter else
                            jvm.jclass(j.version, f"{RAFT}.Endpoints").empty())
            elif name == "SupportedVersionRange":
                args.append(self._kraft_versions())
            elif name in ("RaftConfig", "QuorumConfig"):
                args.append(self._config(name))
            else:
                raise TargetError(f"kafka:{j.version}: KafkaRaftClient constructor parameter {name} is unknown "
                                  "to the adapter")
        return ctor.newInstance(*args)

    def flag_argument(self) -> bool:
        """The constructor's one boolean: ``alwaysFlush`` to 4.1, ``canBecomeVoter`` (the node is
        a controller) from 4.2. False here; the voters replica level sets it where auto-join is
        on (4.2+, VOTERS-RULE-AUTO-JOIN: only a replica that can become a voter joins)."""
        return False

    def quorum_settings(self) -> list[tuple[Any, Any]]:
        """``QuorumConfig`` settings beyond the timing ones (4.0+): none here."""
        return []

    def bootstrap_servers(self) -> Any:
        """``controller.quorum.bootstrap.servers``: none, the voters are static (the voters
        replica level, formatted with a bootstrap checkpoint, names the initial voters)."""
        return self.java.ArrayList()

    def directory_id(self) -> Any:
        """The local directory id: random (the voters replica level names it after the host)."""
        return self.java.Uuid.randomUuid()

    def _kraft_versions(self) -> Any:
        """The kraft.version range this replica supports: 3.9's ``Features.KRAFT_VERSION``
        (0-1); 4.0 dropped that enum, so from 4.0 the same range is built directly."""
        j = self.java
        try:
            features = jvm.jclass(j.version, "org.apache.kafka.server.common.Features")
            return features.KRAFT_VERSION.supportedVersionRange()
        except TargetError:
            svr = jvm.jclass(j.version, "org.apache.kafka.common.feature.SupportedVersionRange")
            return svr(j.jpype.JShort(0), j.jpype.JShort(1))

    def _address(self, node: int) -> Any:
        return self.java.InetSocketAddress.createUnresolved("localhost", 9990 + node)

    def _endpoints(self, node: int) -> Any:
        j = self.java
        endpoints = jvm.jclass(j.version, f"{RAFT}.Endpoints")
        m = j.HashMap()
        m.put(j.listener, self._address(node))
        return endpoints.fromInetSocketAddresses(m)

    def _config(self, name: str) -> Any:
        j = self.java
        if j.quorum_config_from_props:  # 4.0+: QuorumConfig(AbstractConfig) only
            cls = jvm.jclass(j.version, f"{RAFT}.QuorumConfig")
            props = j.HashMap()
            for key, value in ((cls.QUORUM_REQUEST_TIMEOUT_MS_CONFIG, REQUEST_TIMEOUT_MS),
                               (cls.QUORUM_RETRY_BACKOFF_MS_CONFIG, 0),
                               (cls.QUORUM_ELECTION_TIMEOUT_MS_CONFIG, ELECTION_TIMEOUT_MS),
                               (cls.QUORUM_ELECTION_BACKOFF_MAX_MS_CONFIG, ELECTION_BACKOFF_MAX_MS),
                               (cls.QUORUM_FETCH_TIMEOUT_MS_CONFIG, FETCH_TIMEOUT_MS),
                               (cls.QUORUM_LINGER_MS_CONFIG, 0), *self.quorum_settings()):
                props.put(key, j.jpype.JString(str(value)))
            abstract = jvm.jclass(j.version, "org.apache.kafka.common.config.AbstractConfig")
            return cls(abstract(cls.CONFIG_DEF, props, False))
        if name == "RaftConfig":  # 3.7: the voters' addresses are part of the config
            cls = jvm.jclass(j.version, f"{RAFT}.RaftConfig")
            spec = jvm.jclass(j.version, f"{RAFT}.RaftConfig$InetAddressSpec")
            voters = j.HashMap()
            for v in self.voters:
                voters.put(j.Integer.valueOf(v), spec(self._address(v)))
            return cls(voters, REQUEST_TIMEOUT_MS, 0, ELECTION_TIMEOUT_MS, ELECTION_BACKOFF_MAX_MS,
                       FETCH_TIMEOUT_MS, 0)
        cls = jvm.jclass(j.version, f"{RAFT}.QuorumConfig")
        return cls(REQUEST_TIMEOUT_MS, 0, ELECTION_TIMEOUT_MS, ELECTION_BACKOFF_MAX_MS, FETCH_TIMEOUT_MS, 0)

    def _initialize(self) -> None:
        j = self.java
        methods = [m for m in j.Client.class_.getMethods() if str(m.getName()) == "initialize"]
        count = methods[0].getParameterCount() if methods else 0
        if count == 0:
            self.client.initialize()
            return
        voters = j.HashMap()
        for v in self.voters:
            voters.put(j.Integer.valueOf(v), self._address(v))
        if count == 3:
            self.client.initialize(voters, self.store_proxy, self.metrics)
            return
        if count == 4:  # 4.0+: and the broker's external KRaft metrics (a no-op here)
            self.client.initialize(voters, self.store_proxy, self.metrics, j.external_metrics)
            return
        raise TargetError(f"kafka:{j.version}: KafkaRaftClient.initialize takes {count} arguments; "
                          "the adapter knows 0 (3.7), 3 (3.8, 3.9) and 4 (4.x)")
