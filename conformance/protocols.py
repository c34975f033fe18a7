"""The one place that lists the protocols kspec knows, and everything each one brings.

Each protocol declares itself once, as a :class:`ConformanceProtocol`: its model package, its
conformance driver and configurations, its reference target, how a mutated class becomes a
target (the mutant catalogue), its Kafka glue and releases, its TLA+ mapping, its Z3
obligations, its docs pages, how its node-level events replay, and its liveness checks. The
CLI, the docs generator, the target resolver (``targets/registry.py``), the Kafka targets, the
pipeline, the pytest plugin and the tests' parametrisation read :func:`protocols` / :func:`get`;
none of them asks for a protocol by name (``if name == "raft"``): what differs is declared here.

References to code are ``"module:attribute"`` strings, imported only when used, so a command
about one protocol does not import the others (nor JPype).

Third-party protocols register through the entry-point group ``kspec.protocols``: each entry
point names a ``ConformanceProtocol`` (or a zero-argument function returning one or a list of
them). :func:`register` adds one in-process (tests). An unknown name is always an error
(:class:`UnknownProtocol`), never a fallback.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kspec.model import catalog
from kspec.model.catalog import UnknownProtocol
from kspec.model.proofs.catalog import register_obligations

if TYPE_CHECKING:
    from kspec.conformance.adapters.base import Target
    from kspec.conformance.driver import Driver
    from kspec.conformance.targets.mutants import Mutant

__all__ = ["ENTRY_POINT_GROUP", "ConformanceProtocol", "NodeEvents", "UnknownProtocol", "find", "get", "load", "names",
           "protocols", "register"]

ENTRY_POINT_GROUP = "kspec.protocols"

Release = tuple[int, int]  # a Kafka minor version


@dataclass(frozen=True)
class NodeEvents:
    """How the pipeline replays a protocol's node-level events (events.jsonl), node by node."""

    # ``"module:attr"`` naming ``observe(node) -> dict``: the observation an event must record.
    observe: str
    # ``"module:attr"`` references, each naming a tuple of the node input classes an event may
    # carry (voters: raft's inputs and the voter-change ones).
    inputs: tuple[str, ...]
    # Whether the voter set is fixed by the trace's config, so that a majority is known and
    # HighWatermarkDurable can be judged on the observations (raft; not voters, whose set moves).
    fixed_voters: bool = False
    # ``"module:attr"`` naming ``other_answers(before, input, outputs)``: the other output lists
    # the protocol allows for a step besides the model's (RAFT-RULE-VOTE-REASKED), or None.
    other_answers: str | None = None


def load(ref: str) -> Any:
    """The attribute ``ref`` (``"package.module:attribute"``) names."""
    module_name, _, attr = ref.partition(":")
    value: Any = importlib.import_module(module_name)
    for part in attr.split(".") if attr else []:
        value = getattr(value, part)  # a declared reference, not a capability probe
    return value


@dataclass(frozen=True)
class ConformanceProtocol:
    """Everything kspec knows of one protocol (see the module docstring)."""

    name: str
    # The model package: it exposes PROTOCOL, a kspec.model.core.protocol.ProtocolInfo
    # (model, explorer bounds, broken variants, liveness).
    model: str
    summary: str = ""
    # The lockstep driver class (a kspec.conformance.driver.Driver) and its configurations.
    driver: str | None = None
    configs: str | None = None
    # ``factory(name, level)`` -> the reference target; ``levels``: the driver levels it serves
    # beyond the default one (voters: ``log``), each named ``reference:LEVEL``.
    reference: str | None = None
    levels: tuple[str, ...] = ()
    # ``factory(name, cls)`` -> the target that runs a mutated class (the mutant catalogue).
    mutant_target: str | None = None
    # A zero-argument function giving the mutants (kspec.conformance.targets.mutants.Mutant) a
    # protocol outside the built-in catalogue brings.
    mutants: str | None = None
    # ``factory(version)`` -> the kafka:VERSION target; the releases it runs (first, last or None).
    kafka: str | None = None
    kafka_releases: tuple[Release, Release | None] | None = None
    kafka_doc: str = ""
    # The TLA+ mapping module (a module with MAPPING, kspec.tla.mappings.TLAMapping), if any.
    tla: str | None = None
    # The Z3 obligation modules (each with an OBLIGATIONS tuple) that prove this protocol's
    # lemmas; registering the protocol adds them to ``kspec prove`` and the proofs page.
    proofs: tuple[str, ...] = ()
    # Hand-written docs pages (paths under docs/); the generated ones come from the model.
    docs: tuple[str, ...] = ()
    # How the pipeline replays its node-level events (events.jsonl); None: its traces carry none.
    events: NodeEvents | None = None
    # Model packages whose classes its traces may also hold (voters' traces hold raft's).
    trace_packages: tuple[str, ...] = ()
    # Deviations catalogue (conformance/deviations/<name>.toml) exists for it.
    deviations: bool = False
    # The role transition table the docs draw: ``"module:attr"`` naming a mapping
    # ``(from_role, to_role) -> when``, and the role a node starts in.
    transitions: str | None = None
    initial_role: str = ""
    # What the drawn table is, for the docs ("" : the role table the checked constructors enforce).
    transitions_note: str = ""
    # A rule table the docs draw as a matrix (a protocol without roles: mm2's sync rules):
    # ``"module:attr"`` naming a mapping ``row -> outcome per column``, the columns' names, and
    # what the table is, for the docs.
    rules: str | None = None
    rules_columns: str | None = None
    rules_note: str = ""
    # The timed liveness check ``kspec conform`` runs once the runs conform: a module (raft:
    # ``kspec.conformance.drivers.raft_liveness``) with ``check_liveness(spec, target, configs, *,
    # seed, step_timeout)`` and ``IDS`` (property name -> spec ID). None: no such check.
    conform_liveness: str | None = None
    # The TLC liveness agreement ``kspec tla check`` runs besides the state-set agreement:
    # ``"module:attr"`` naming ``check(bounds, *, timeout, workers)``. None: no such check.
    tla_liveness: str | None = None
    extra: Mapping[str, str] = field(default_factory=dict)

    # -- what the references name ---------------------------------------------------------------

    def has_conformance(self) -> bool:
        """Whether ``kspec conform`` drives it (a driver and a reference target)."""
        return self.driver is not None and self.reference is not None

    def driver_class(self) -> type[Driver[Any]]:
        if self.driver is None:
            raise UnknownProtocol(f"no conformance suite for protocol {self.name!r} yet")
        cls: type[Driver[Any]] = load(self.driver)
        return cls

    def driver_configs(self) -> list[dict[str, Any]]:
        if self.configs is None:
            raise UnknownProtocol(f"no conformance suite for protocol {self.name!r} yet")
        configs: list[dict[str, Any]] = load(self.configs)
        return configs

    def reference_target(self, name: str = "reference", level: str = "") -> Target:
        if self.reference is None:
            raise UnknownProtocol(f"no reference target for protocol {self.name!r}")
        factory: Callable[[str, str], Target] = load(self.reference)
        return factory(name, level)

    def target_of_mutant(self, name: str, cls: type) -> Target:
        if self.mutant_target is None:
            raise UnknownProtocol(f"protocol {self.name!r} takes no mutants")
        factory: Callable[[str, type], Target] = load(self.mutant_target)
        return factory(name, cls)

    def extra_mutants(self) -> list[Mutant]:
        if self.mutants is None:
            return []
        found: Callable[[], Iterable[Mutant]] = load(self.mutants)
        return list(found())

    def transition_table(self) -> Mapping[tuple[str, str], str] | None:
        if self.transitions is None:
            return None
        table: Mapping[tuple[str, str], str] = load(self.transitions)
        return table

    def rule_table(self) -> tuple[tuple[str, ...], Mapping[str, tuple[str, ...]]] | None:
        """The columns and the rows of the rule table the docs draw as a matrix, if any."""
        if self.rules is None or self.rules_columns is None:
            return None
        columns: tuple[str, ...] = tuple(load(self.rules_columns))
        rows: Mapping[str, tuple[str, ...]] = load(self.rules)
        return columns, rows

    def event_observer(self) -> Callable[[Any], dict[str, object]]:
        """The node observation its events record (:attr:`events`)."""
        observe: Callable[[Any], dict[str, object]] = load(self._events().observe)
        return observe

    def event_inputs(self) -> tuple[type, ...]:
        """The node input classes its events may carry (:attr:`events`)."""
        return tuple(cls for ref in self._events().inputs for cls in load(ref))

    def event_other_answers(self) -> Callable[[Any, Any, tuple[Any, ...]], tuple[tuple[Any, ...], ...]] | None:
        """The other answers its events may record for a step (:attr:`NodeEvents.other_answers`)."""
        ref = self._events().other_answers
        if ref is None:
            return None
        answers: Callable[[Any, Any, tuple[Any, ...]], tuple[tuple[Any, ...], ...]] = load(ref)
        return answers

    def _events(self) -> NodeEvents:
        if self.events is None:
            raise UnknownProtocol(f"protocol {self.name!r} records no node-level events")
        return self.events

    def kafka_target(self, version: str) -> Target:
        if self.kafka is None:
            raise UnknownProtocol(f"no Kafka target for protocol {self.name!r}")
        factory: Callable[[str], Target] = load(self.kafka)
        return factory(version)


_R = "kspec.conformance.targets.builtin"

BUILTIN: tuple[ConformanceProtocol, ...] = (
    ConformanceProtocol(
        "raft", "kspec.model.raft", "KRaft leader election and log replication (KIP-595, KIP-996)",
        driver="kspec.conformance.drivers.raft:RaftDriver", configs="kspec.conformance.drivers.raft:CONFIGS",
        reference=f"{_R}:raft_reference", mutant_target=f"{_R}:raft_mutant",
        kafka="kspec.conformance.targets.kafka.raft:KafkaRaftTarget", kafka_releases=((3, 3), (4, 4)),
        kafka_doc="KafkaRaftClient over its test doubles, the KRaft lines 3.3-4.4 (raft_releases.py)",
        tla="kspec.tla.mappings.raft",
        proofs=("kspec.model.proofs.raft_quorum", "kspec.model.proofs.raft_vote", "kspec.model.proofs.raft_hw"),
        docs=("spec/raft.md",), transitions="kspec.model.raft.node:TRANSITIONS", initial_role="unattached",
        events=NodeEvents("kspec.model.raft.node:observe", ("kspec.model.raft.messages:INPUT_TYPES",),
                          fixed_voters=True, other_answers="kspec.model.raft.node:other_answers"),
        conform_liveness="kspec.conformance.drivers.raft_liveness",
        tla_liveness="kspec.tla.liveness:check_liveness_agreement"),
    ConformanceProtocol(
        "voters", "kspec.model.voters", "KRaft voter changes (KIP-853)",
        driver="kspec.conformance.drivers.voters:VotersDriver", configs="kspec.conformance.drivers.voters:CONFIGS",
        reference=f"{_R}:voters_reference", levels=("replica", "log"), mutant_target=f"{_R}:voters_mutant",
        kafka="kspec.conformance.targets.kafka.voters_replica:make_voters_target", kafka_releases=((3, 8), (4, 3)),
        kafka_doc="KafkaRaftClient replicas, AddRaftVoter/RemoveRaftVoter (replica level), 3.9+; "
                  "kafka:VERSION:log: KRaftControlRecordStateMachine over MockLog (log level), 3.8+",
        tla="kspec.tla.mappings.voters", proofs=("kspec.model.proofs.voters_history",),
        docs=("spec/voters.md",), trace_packages=("kspec.model.raft",), deviations=True,
        events=NodeEvents("kspec.model.voters.node:observe", ("kspec.model.raft.messages:INPUT_TYPES",
                                                               "kspec.model.voters.node:VOTER_INPUT_TYPES",
                                                               "kspec.model.voters.node:NODE_INPUT_TYPES",
                                                               "kspec.model.voters.node:DISK_INPUT_TYPES"),
                          other_answers="kspec.model.raft.node:other_answers"),
        transitions="kspec.model.raft.node:TRANSITIONS", initial_role="unattached",
        transitions_note="the table the checked role constructors enforce: a transition not listed raises an "
        "error naming from-role, to-role and arguments. The voter-set model steps its replicas with the same node",
        conform_liveness="kspec.conformance.drivers.voters_liveness"),
    ConformanceProtocol(
        "share", "kspec.model.share", "share-group state coordinator (KIP-932)",
        driver="kspec.conformance.drivers.share:ShareDriver", configs="kspec.conformance.drivers.share:CONFIGS",
        reference=f"{_R}:share_reference", mutant_target=f"{_R}:share_mutant",
        kafka="kspec.conformance.targets.kafka.share:KafkaShareTarget", kafka_releases=((4, 0), (4, 3)),
        kafka_doc="ShareCoordinatorShard, 4.0+",
        tla="kspec.tla.mappings.share", proofs=("kspec.model.proofs.share_combiner",),
        docs=("spec/share.md",), deviations=True, transitions="kspec.model.share.shard:TRANSITIONS",
        initial_role="loaded", transitions_note="the shard's rules (``SHARD_RULES``: per shard kind and request "
        "kind, the handler or the error), which the step function dispatches through; loaded-4.0 is a Kafka 4.0 "
        "shard, which has no initialize, delete or read-summary API"),
    ConformanceProtocol(
        "mm2", "kspec.model.mm2", "MirrorMaker 2 replication policy",
        driver="kspec.conformance.drivers.mm2:Mm2Driver", configs="kspec.conformance.drivers.mm2:CONFIGS",
        reference=f"{_R}:mm2_reference", mutant_target=f"{_R}:mm2_mutant",
        kafka="kspec.conformance.targets.kafka.mm2:KafkaMm2Target", kafka_releases=((2, 4), None),
        kafka_doc="Default/IdentityReplicationPolicy", docs=("spec/mm2.md",),
        rules="kspec.model.mm2.system:REPLICATION_RULES", rules_columns="kspec.model.mm2.system:POLICY_COLUMNS",
        rules_note="what one flow's sync (`replicate`: `shouldReplicateTopic`, then `formatRemoteTopic`) "
        "does with a topic on the flow's source, by the topic's class and the policy with its internal-topic rule"),
    ConformanceProtocol(
        "streams", "kspec.model.streams", "Kafka Streams metadata and interactive-query routing",
        driver="kspec.conformance.drivers.streams:StreamsDriver",
        configs="kspec.conformance.drivers.streams:CONFIGS",
        reference=f"{_R}:streams_reference", mutant_target=f"{_R}:streams_mutant",
        kafka="kspec.conformance.targets.kafka.streams:KafkaStreamsTarget", kafka_releases=((3, 0), (4, 3)),
        kafka_doc="StreamsMetadataState fed as the assignor feeds it, 3.0+", docs=("spec/streams.md",),
        transitions="kspec.model.streams.system:TRANSITIONS", initial_role="rebalancing"),
)

_REGISTERED: dict[str, ConformanceProtocol] = {}
_PLUGINS_LOADED = False


def register(protocol: ConformanceProtocol) -> ConformanceProtocol:
    """Add ``protocol`` (its model too, to ``kspec.model.catalog``); a name already taken by
    another declaration is an error."""
    known = _REGISTERED.get(protocol.name)
    if known is not None and known != protocol:
        raise ValueError(f"protocol {protocol.name!r} is declared twice ({known.model}, {protocol.model})")
    _REGISTERED[protocol.name] = protocol
    catalog.register_model(protocol.name, protocol.model)
    for module in protocol.proofs:
        register_obligations(module)
    return protocol


def unregister(name: str) -> None:
    """Remove a protocol registered in-process (tests)."""
    _REGISTERED.pop(name, None)
    catalog.unregister_model(name)


def _entry_point_protocols() -> Iterator[ConformanceProtocol]:
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        value = ep.load()
        found = value() if callable(value) and not isinstance(value, ConformanceProtocol) else value
        items: Iterable[Any] = [found] if isinstance(found, ConformanceProtocol) else found
        for item in items:
            if not isinstance(item, ConformanceProtocol):
                raise TypeError(f"entry point {ep.name!r} ({ep.value}) gives {type(item).__name__}, "
                                "not a ConformanceProtocol")
            yield item


def _ensure_loaded() -> None:
    global _PLUGINS_LOADED
    if not _REGISTERED:
        for p in BUILTIN:
            register(p)
    if not _PLUGINS_LOADED:
        _PLUGINS_LOADED = True
        for p in _entry_point_protocols():
            register(p)


def protocols() -> list[ConformanceProtocol]:
    """Every protocol, built-in ones first, in declaration order."""
    _ensure_loaded()
    return list(_REGISTERED.values())


def names() -> list[str]:
    """Every protocol name."""
    return [p.name for p in protocols()]


def find(name: str) -> ConformanceProtocol | None:
    """The protocol called ``name``, or None."""
    _ensure_loaded()
    return _REGISTERED.get(name)


def get(name: str) -> ConformanceProtocol:
    """The protocol called ``name``; :class:`UnknownProtocol` (one line) otherwise."""
    _ensure_loaded()
    found = _REGISTERED.get(name)
    if found is None:
        raise UnknownProtocol(f"unknown protocol {name!r} (one of: {', '.join(_REGISTERED)})")
    return found


def conformance_names() -> list[str]:
    """The protocols ``kspec conform`` drives."""
    return [p.name for p in protocols() if p.has_conformance()]
