"""Mutants of the classes the first catalogue lacked (issue #19): bugs that need a deep run,
outputs in the wrong order, off-protocol inputs handled wrongly, rare vocabulary, and the
listener contract (the assignment a ``RebalanceFinished`` hands over).

Each is one plausible slip a person writing the component from the Kafka docs could make, and
each subclasses a reference target and overrides one method, as in ``mutants.py`` (which
registers them). ``bench/mutant_power.py`` measures runs to detection and counterexample length.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Mapping
from typing import Any, ClassVar

from kspec.conformance.targets.mm2_policies import (
    HEARTBEATS_TOPIC_NAME_CONFIG,
    INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG,
    SEPARATOR_CONFIG,
    DefaultPolicy,
    _split_like_java,
)
from kspec.conformance.targets.reference.raft import RaftReplica
from kspec.conformance.targets.reference.share import ShareShard
from kspec.conformance.targets.reference.voters import VoterReplica
from kspec.conformance.targets.streams_routers import HostOrderByTextRouter, ReferenceRouter, java_murmur2
from kspec.model.streams.metadata import UNKNOWN_HOST, KeyQueryMetadata

# ------------------------------------------------------------------------------ mm2: vocabulary


class HeartbeatsNameIgnoredPolicy(DefaultPolicy):
    """``heartbeats_topic`` is the literal ``heartbeats`` whatever KIP-1016's
    ``default.replication.policy.heartbeats.topic.name`` configures (a policy written when the
    name was the interface's constant). Caught only with the setting sent
    (MM2-DRIVE-HEARTBEATS-NAME)."""

    def heartbeats_topic(self) -> str:
        return "heartbeats"


class OriginalHopCapPolicy(DefaultPolicy):
    """``original_topic`` follows ``upstream_topic`` at most five times (a loop guard by
    count where the fixed-point guard already ends the walk): a name six hops away answers a
    remote name. Caught by a name past any such cap (MM2-DRIVE-DEEP-NAME)."""

    def original_topic(self, topic: str) -> str:
        for _ in range(5):
            upstream = self.upstream_topic(topic)
            if upstream is None or upstream == topic:
                return topic
            topic = upstream
        return topic


class RstripSeparatorPolicy(DefaultPolicy):
    """Java's "trailing empty pieces are removed" emulated by ``topic.rstrip(separator)``,
    which strips a *set of characters*: with ``__``, ``A___`` reads as local where Java splits it
    into ``A`` and ``_``. Caught by a trailing run that is not a multiple of the separator
    (MM2-DRIVE-SEPARATOR-RUNS)."""

    def topic_source(self, topic: str) -> str | None:
        return super().topic_source(topic.rstrip(self.separator))


class SuffixContainedPolicy(DefaultPolicy):
    """``isMM2InternalTopic`` tests the internal suffix with "contains" where Kafka tests
    ``endsWith``: ``orders.internal.v2`` (3.x) and ``mm2-offsets.A.internal.bak`` (4.x) read as
    MM2's own. Every real MM2 name ends with the suffix, so only a name holding it inside tells
    them apart (MM2-DRIVE-SUFFIX-INSIDE)."""

    def is_mm2_internal_topic(self, topic: str) -> bool:
        inside = f"{self._sep()}internal" in topic
        if self.internal_rule == "3.x":
            return inside
        return (topic.startswith("mm2") and inside) or self.is_checkpoints_topic(topic)


class CheckpointsAliasParsedPolicy(DefaultPolicy):
    """``isCheckpointsTopic`` parses the alias back out of the name (its first piece at the
    internal separator) and asks whether ``checkpointsTopic(alias)`` rebuilds it: the checkpoints
    topic of an alias holding that separator (``us.west.checkpoints.internal``) is not recognised
    (MM2-DRIVE-DOTTED-CHECKPOINTS)."""

    def is_checkpoints_topic(self, topic: str) -> bool:
        return topic == self.checkpoints_topic(topic.split(self._sep())[0])


class StripsSeparatorsPolicy(DefaultPolicy):
    """topicSource strips separators off the ends of a name before splitting it ("..orders" and
    "orders." are then read as remote topics), as a hand-written parser that tidies its input
    does."""

    def topic_source(self, topic: str) -> str | None:
        return super().topic_source(topic.strip(self.separator) or topic)


class CollapsesDoubledSeparatorPolicy(DefaultPolicy):
    """upstreamTopic treats a doubled separator as one (a split on the separator pattern
    repeated): "A..orders" has upstream "orders" instead of ".orders"."""

    def upstream_topic(self, topic: str) -> str | None:
        source = self.topic_source(topic)
        if source is None:
            return None
        rest = topic[len(source):]
        while rest.startswith(self.separator):
            rest = rest[len(self.separator):]
        return rest


class AsciiNamesPolicy(DefaultPolicy):
    """formatRemoteTopic drops characters outside ASCII (a name sanitiser written for Kafka's
    legal topic characters, applied where MM2 applies none)."""

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        return super().format_remote_topic(source_cluster_alias, topic.encode("ascii", "ignore").decode("ascii"))


class CapsNameLengthPolicy(DefaultPolicy):
    """formatRemoteTopic cuts the remote name to Kafka's 249-character limit (MM2 does not: the
    topic creation fails instead, and upstreamTopic must give back the whole name)."""

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        return super().format_remote_topic(source_cluster_alias, topic)[:249]


class _BoundedOriginalPolicy(DefaultPolicy):
    """originalTopic unwrapping at most ``HOPS`` prefixes (a loop bounded by "the longest chain
    we run") where MM2 unwraps until no prefix is left."""

    HOPS: ClassVar[int]

    def original_topic(self, topic: str) -> str:
        for _ in range(self.HOPS):
            upstream = self.upstream_topic(topic)
            if upstream is None or upstream == topic:
                return topic
            topic = upstream
        return topic


class TwoHopOriginalPolicy(_BoundedOriginalPolicy):
    """originalTopic unwraps at most two prefixes: a name replicated three hops keeps one alias.
    Deep: only a topic synced three times carries three prefixes."""

    HOPS = 2


class ThreeHopOriginalPolicy(_BoundedOriginalPolicy):
    """originalTopic unwraps at most three prefixes (the system model's longest chain): a name
    four hops from its origin keeps one alias. Rare vocabulary: only the driver's four-hop names
    (red team, session 8) carry four prefixes."""

    HOPS = 3


class ByteOffsetsPolicy(DefaultPolicy):
    """upstreamTopic cuts at the source's length in UTF-8 bytes (a port that mixes byte and
    character offsets): right for ASCII sources, wrong for ``ördérs.orders``. Rare vocabulary:
    only the driver's names with a non-ASCII first piece (red team, session 8)."""

    def upstream_topic(self, topic: str) -> str | None:
        source = self.topic_source(topic)
        return None if source is None else topic[len(source.encode("utf-8")) + len(self.separator):]


class Utf16LengthsPolicy(DefaultPolicy):
    """upstreamTopic cuts at Java's lengths (``String.length()``: UTF-16 code units) in a string
    indexed by code points: right for every BMP source, one character short per supplementary
    character (``\U0001F680.orders``). Rare vocabulary: only the driver's names with such a
    source (MM2-DRIVE-SUPPLEMENTARY; red team session 17)."""

    def upstream_topic(self, topic: str) -> str | None:
        source = self.topic_source(topic)
        units = len(source.encode("utf-16-le")) // 2 if source is not None else 0
        return None if source is None else topic[units + len(self.separator):]


class DashSuffixUserTopicPolicy(DefaultPolicy):
    """4.x's isInternalTopic answers false early for a name ending with ``-internal`` that does
    not start with ``mm2`` (KAFKA-17200's user topics as their own branch): with the separator
    ``-`` MM2's checkpoints topic ``A-checkpoints-internal`` is no longer internal. Rare
    vocabulary: only the separator ``-`` (MM2-DRIVE-DASH-SEPARATOR; red team session 17)."""

    def is_internal_topic(self, topic: str) -> bool:
        if self.internal_rule == "4.x" and not topic.startswith(("__", ".")) and topic.endswith("-internal") \
                and not topic.startswith("mm2"):
            return False
        return super().is_internal_topic(topic)


class EmptyAliasLocalPolicy(DefaultPolicy):
    """formatRemoteTopic with an empty alias returns the topic unchanged (a guard against a
    missing alias), where Kafka prepends the separator. Rare vocabulary: only the driver's
    ``FormatRemoteTopic('', 'orders')`` (red team, session 8)."""

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        return topic if not source_cluster_alias else super().format_remote_topic(source_cluster_alias, topic)


class NfcNamesPolicy(DefaultPolicy):
    """Names normalised to Unicode NFC before they are split or cut (a "canonical names"
    helper): a decomposed ``o\u0308rders`` comes back composed. Rare vocabulary: only the driver's
    decomposed names (red team, session 9)."""

    def topic_source(self, topic: str) -> str | None:
        return super().topic_source(unicodedata.normalize("NFC", topic))

    def upstream_topic(self, topic: str) -> str | None:
        return super().upstream_topic(unicodedata.normalize("NFC", topic))


class ConfiguredAliasNamesPolicy(DefaultPolicy):
    """checkpointsTopic and offsetSyncsTopic name the ``source.cluster.alias`` the policy was
    configured with, not their argument (what MM2's connectors pass anyway). Rare vocabulary:
    only the driver's calls with another alias than the node's (red team, session 10)."""

    configured: str | None = None

    def configure(self, props: Mapping[str, Any]) -> None:
        super().configure(props)
        self.configured = props.get("source.cluster.alias")

    def checkpoints_topic(self, cluster_alias: str) -> str:
        return super().checkpoints_topic(self.configured or cluster_alias)

    def offset_syncs_topic(self, cluster_alias: str) -> str:
        return super().offset_syncs_topic(self.configured or cluster_alias)


class CaseFoldedInternalPolicy(DefaultPolicy):
    """The MM2-internal test on the lower-cased name (``MM2-offset-syncs…`` counts). Rare
    vocabulary: only the driver's case variants of MM2's names (red team, session 10)."""

    def is_mm2_internal_topic(self, topic: str) -> bool:
        return super().is_mm2_internal_topic(topic.lower())


class ExactFlagSpellingPolicy(DefaultPolicy):
    """KIP-949's flag read as ``value == "true"`` (Kafka: Boolean.parseBoolean, any case): ``TRUE``
    turns the internal separator off. Rare vocabulary: only the driver's spellings of the flag
    (red team, session 10)."""

    def configure(self, props: Mapping[str, Any]) -> None:
        super().configure(props)
        flag = "replication.policy.internal.topic.separator.enabled"
        if "replication.policy.separator" in props and flag in props:
            self.internal_topic_separator_enabled = str(props[flag]) == "true"


class FormatMemoSourcePolicy(DefaultPolicy):
    """``topicSource`` answered first from a memo of the names ``formatRemoteTopic`` built (name ->
    the alias it was given), where Kafka reads a name alone: after ``formatRemoteTopic('us.west',
    'orders')`` the source of ``us.west.orders`` is ``us.west`` here, ``us`` in Kafka. Equal
    before any format call and for clean aliases and topics with a non-separator tail. State
    across calls: a format, then a read of its result at the same node
    (MM2-DRIVE-FORMAT-READ-BACK; red team session 27's ``source-remembered-from-format``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.formatted: dict[str, str] = {}

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        name = super().format_remote_topic(source_cluster_alias, topic)
        self.formatted[name] = source_cluster_alias
        return name

    def topic_source(self, topic: str) -> str | None:
        if topic in self.formatted:
            return self.formatted[topic]
        return super().topic_source(topic)


class InternalSuffixSplitPolicy(DefaultPolicy):
    """``isMM2InternalTopic``'s suffix test written over Java's split ("the last piece after the
    internal separator is ``internal``", two pieces at least) where Kafka tests ``endsWith``:
    Java's split drops trailing empty pieces, so ``orders.internal.`` is MM2-internal (3.x) and
    internal here, not in Kafka. Rare vocabulary: an internal suffix followed by the separator
    (MM2-DRIVE-TRAILING-SEPARATOR; red team session 27's ``mm2-internal-last-piece``)."""

    def is_mm2_internal_topic(self, topic: str) -> bool:
        pieces = _split_like_java(topic, self._sep())
        ends = len(pieces) >= 2 and pieces[-1] == "internal"
        if self.internal_rule == "3.x":
            return ends
        return (topic.startswith("mm2") and ends) or self.is_checkpoints_topic(topic)


class TrimmedFlagPolicy(DefaultPolicy):
    """KIP-949's flag trimmed before ``Boolean.parseBoolean`` (as ``ConfigDef`` trims a BOOLEAN it
    parses), where ``configure`` reads the raw string: ``true `` enables the internal separator
    here and disables it in Kafka. Rare vocabulary: a flag value with a trailing blank
    (MM2-DRIVE-BLANK-FLAG; red team session 27's ``flag-value-trimmed``)."""

    def configure(self, props: Mapping[str, Any]) -> None:
        super().configure(props)
        if SEPARATOR_CONFIG in props and INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG in props:
            flag = str(props[INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG]).strip().lower()
            self.internal_topic_separator_enabled = flag == "true"


class FlagWordTruePolicy(DefaultPolicy):
    """KIP-949's flag read as a "truthy word" (``yes``, ``on``, ``1`` true, as Python's
    ``configparser.getboolean`` and YAML 1.1 read them) where ``configure`` applies
    ``Boolean.parseBoolean``: only ``true``, in any case, is true. ``yes`` enables the internal
    separator here and disables it in Kafka. Rare vocabulary: a flag spelled as another word for
    true (MM2-DRIVE-FLAG-WORD; red team session 28's ``flag-parsed-as-ini-boolean``)."""

    def configure(self, props: Mapping[str, Any]) -> None:
        super().configure(props)
        if SEPARATOR_CONFIG in props and INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG in props:
            flag = str(props[INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG]).lower()
            self.internal_topic_separator_enabled = flag in ("true", "yes", "on", "1")


class ConnectWorkerNamesInternalPolicy(DefaultPolicy):
    """4.x's MM2-internal test extended with the Connect worker topics ``MirrorMakerConfig`` names
    (``mm2-offsets.<alias>.internal``, ``-configs``, ``-status``: dotted whatever the separator),
    where Kafka tests the suffix of the (internal) separator only: with ``_`` or ``-`` and the
    internal separator on, ``mm2-offsets.A.internal`` is internal here, replicable in Kafka 4.x.
    Rare vocabulary: MirrorMaker's worker topic names with a custom separator
    (MM2-DRIVE-CONNECT-WORKER-NAMES; red team session 29's ``mm2-connect-names-dotted``)."""

    def is_mm2_internal_topic(self, topic: str) -> bool:
        worker = re.fullmatch(r"mm2-(offsets|configs|status)\..*\.internal", topic) is not None
        return super().is_mm2_internal_topic(topic) or worker


class HeartbeatsNameInternalSeparatorPolicy(DefaultPolicy):
    """KIP-1016's heartbeats-topic name spelled with KIP-949's internal separator (``.`` in the
    configured name replaced by it, as MM2's internal names are), where Kafka keeps the name as
    given: with ``_`` (internal separator on) ``hb.topic`` is ``hb_topic`` here. Rare vocabulary: a
    dotted heartbeats name with a custom separator (MM2-DRIVE-DOTTED-HEARTBEATS-NAME; red team
    session 29's ``heartbeats-name-follows-separator``)."""

    def heartbeats_topic(self) -> str:
        return self.heartbeats_topic_name.replace(".", self._sep())


class TrimmedHeartbeatsNamePolicy(DefaultPolicy):
    """KIP-1016's heartbeats-topic name trimmed (as ``ConfigDef`` trims a STRING it parses), where
    ``configure`` stores the string as given: `` -internal`` is ``-internal`` here. Rare
    vocabulary: a heartbeats name with a blank at an edge (MM2-DRIVE-BLANK-HEARTBEATS-NAME; red team
    session 27's ``heartbeats-name-trimmed``)."""

    def configure(self, props: Mapping[str, Any]) -> None:
        super().configure(props)
        if HEARTBEATS_TOPIC_NAME_CONFIG in props:
            self.heartbeats_topic_name = str(props[HEARTBEATS_TOPIC_NAME_CONFIG]).strip()


# ------------------------------------------------------------------------------ streams


class EmptyKeyUnroutedRouter(ReferenceRouter):
    """An empty key is treated as "no key" and answered with null (murmur2 of zero bytes is a
    hash like any other: Kafka routes it)."""

    def route(self, assignment: Any, store: str, key_bytes: bytes, partitions: Any = None) -> Any:
        if not key_bytes:
            return None
        return super().route(assignment, store, key_bytes, partitions)

    __call__ = route


def _tail_bug(data: bytes) -> int:
    from kspec.conformance.targets.streams_routers import MURMUR_M, _int32, murmur2_blocks, murmur2_finish

    h = murmur2_blocks(data)
    tail = len(data) & ~3
    h = _int32(h ^ (data[tail + 1] << 8))  # case 3 missing: straight to case 2
    h = _int32(h ^ data[tail])
    h = _int32(h * MURMUR_M)
    return murmur2_finish(h)


class MurmurTailRouter(ReferenceRouter):
    """murmur2's tail switch misses the three-byte case (a fall-through lost in a port from
    Java): keys whose length is 3 mod 4 go to the wrong partition."""

    def partition(self, key: bytes, num_partitions: int, assignment: Any) -> int:
        h = _tail_bug(key) if len(key) % 4 == 3 else java_murmur2(key)
        return (h & 0x7FFFFFFF) % num_partitions


class HashesCharactersRouter(ReferenceRouter):
    """Hashes the key's characters (one byte each, code point mod 256) instead of its UTF-8
    bytes: every ASCII key routes right, a non-ASCII one does not."""

    def partition(self, key: bytes, num_partitions: int, assignment: Any) -> int:
        chars = bytes(ord(c) & 0xFF for c in key.decode("utf-8"))
        return (java_murmur2(chars) & 0x7FFFFFFF) % num_partitions


class SkipsUnchangedMembersRouter(ReferenceRouter):
    """Listener contract: an ``onChange`` whose members are the ones it already knows is skipped
    as "nothing changed" (an optimisation), so tasks that moved between the same members are
    routed to their old owner. Shows after two rebalances over one member set."""

    def __init__(self) -> None:
        self._given: Any = None  # the last assignment onChange handed over
        self._used: Any = None  # the one this router answers from

    def _current(self, assignment: Any) -> Any:
        if assignment is not self._given:
            self._given = assignment
            if self._used is None or not self._used.initialized() or _members(assignment) != _members(self._used):
                self._used = assignment
        return self._used

    def route(self, assignment: Any, store: str, key_bytes: bytes, partitions: Any = None) -> Any:
        return super().route(self._current(assignment), store, key_bytes, partitions)

    __call__ = route

    def all_metadata(self, assignment: Any) -> Any:
        return super().all_metadata(self._current(assignment))

    def all_metadata_for_store(self, assignment: Any, store: str) -> Any:
        return super().all_metadata_for_store(self._current(assignment), store)


class NulTerminatedKeysRouter(ReferenceRouter):
    """The key handed to the hash as a C string: bytes after the first NUL are not hashed. Rare
    vocabulary: only the driver's key with a NUL byte (red team, session 10)."""

    def partition(self, key: bytes, num_partitions: int, assignment: Any) -> int:
        return super().partition(key.split(b"\x00", 1)[0], num_partitions, assignment)


class LastSourceCountRouter(ReferenceRouter):
    """A store over several topics hashes modulo the count of its *last* listed source topic (a
    loop that overwrites), not the widest. Rare vocabulary: only a store whose widest topic is
    not listed last (the driver's ``enriched``; red team, session 10)."""

    def route(self, assignment: Any, store: str, key_bytes: bytes, partitions: Any = None) -> Any:
        counts = dict(assignment.partitions) if partitions is None else dict(partitions)
        sources = next((topics for name, topics in assignment.topology.stores if name == store), ())
        if sources and counts:
            last = counts.get(sources[-1], 0)
            counts.update({t: last for t in sources})
        return super().route(assignment, store, key_bytes, counts)

    __call__ = route


def _hosts_by_name(assignment: Any) -> Any:
    """The assignment with hosts keyed by name alone: the later port's entry takes the others'."""

    def merge(host_map: Any) -> Any:
        out: dict[str, Any] = {}
        for h, tps in sorted(host_map):
            out[h.host] = (h, (out[h.host][1] if h.host in out else frozenset()) | tps)
        return tuple(sorted(out.values()))

    return dataclasses.replace(assignment, active=merge(assignment.active), standby=merge(assignment.standby))


class HostsByNameRouter(ReferenceRouter):
    """Hosts identified by their name (``HostInfo.equals`` without the port): two instances on one
    machine are one. Rare vocabulary: only the driver's ``localhost:8080`` / ``localhost:8081``
    (STREAMS-DRIVE-ENDPOINTS; red team, session 10)."""

    def route(self, assignment: Any, store: str, key_bytes: bytes, partitions: Any = None) -> Any:
        return super().route(_hosts_by_name(assignment), store, key_bytes, partitions)

    __call__ = route

    def all_metadata(self, assignment: Any) -> Any:
        return super().all_metadata(_hosts_by_name(assignment))

    def all_metadata_for_store(self, assignment: Any, store: str) -> Any:
        return super().all_metadata_for_store(_hosts_by_name(assignment), store)


def _members(assignment: Any) -> frozenset[Any]:
    return frozenset(h for h, _ in assignment.active) | frozenset(h for h, _ in assignment.standby)


def _counted(assignment: Any) -> bool:
    return any(n > 0 for _, n in assignment.partitions)


class InitializedOnceRouter(ReferenceRouter):
    """STREAMS-RULE-NOT-AVAILABLE's "initialized" (the latest assignment's partition counts are not
    empty) kept as a flag set by the first assignment ("once assigned, we are initialized"): after
    an assignment with no partition counts a global store's key names the first host and
    ``allMetadataForStore`` lists the store's holders, where Kafka is NOT_AVAILABLE / empty again.
    Rare vocabulary: an assignment in which no task has an active owner, after one in which they
    do (STREAMS-DRIVE-ACTIVE-WITHHELD; red team session 21's ``initialized-by-first-assignment``)."""

    def _initialized(self, assignment: Any) -> bool:
        if _members(assignment):
            self.__dict__["_assigned"] = True
        return bool(self.__dict__.get("_assigned"))

    def route(self, assignment: Any, store: str, key_bytes: bytes, partitions: Any = None) -> Any:
        if self._initialized(assignment) and partitions is None and not _counted(assignment):
            if store in assignment.topology.global_stores:
                return KeyQueryMetadata(min(_members(assignment)), frozenset(), -1)
            return None  # no count for the store's topics: "no matching metadata"
        return super().route(assignment, store, key_bytes, partitions)

    __call__ = route

    def all_metadata_for_store(self, assignment: Any, store: str) -> Any:
        if self._initialized(assignment) and not _counted(assignment):
            every = self.all_metadata(assignment)
            if store in assignment.topology.global_stores:
                return every
            return [m for m in every if store in m.state_store_names or store in m.standby_state_store_names]
        return super().all_metadata_for_store(assignment, store)


class StandbysNeedActiveRouter(ReferenceRouter):
    """STREAMS-RULE-KEY 5 (the standbys collected whatever the active look-up found): a lookup that
    returns early with no standbys once no host holds the key's partition actively ("nothing to
    route to"). Rare vocabulary: a partition with a standby and no active owner, as KIP-1071's
    reconciliation hands out (STREAMS-DRIVE-ACTIVE-WITHHELD; red team session 21's
    ``standbys-skipped-without-active``)."""

    def route(self, assignment: Any, store: str, key_bytes: bytes, partitions: Any = None) -> Any:
        found = super().route(assignment, store, key_bytes, partitions)
        if found is not None and found.partition >= 0 and found.active_host == UNKNOWN_HOST:
            return KeyQueryMetadata(UNKNOWN_HOST, frozenset(), found.partition)
        return found

    __call__ = route


class StoreMetadataNeedsCountRouter(ReferenceRouter):
    """STREAMS-RULE-STORE-METADATA (the hosts holding the store as active or standby, once the
    instance is initialized: no partition count is looked at): ``allMetadataForStore`` answers
    nothing for a store none of whose source topics has a partition count ("the store is not
    initialized yet"), where Kafka lists the hosts holding it as a standby. Rare vocabulary: an
    initialized instance whose assignment leaves one sub-topology without an active owner, as
    KIP-1071's reconciliation hands out while every task of it moves
    (STREAMS-DRIVE-SUBTOPOLOGY-IN-FLIGHT, session 23)."""

    def all_metadata_for_store(self, assignment: Any, store: str) -> Any:
        counts = dict(assignment.partitions)
        sources = next((topics for name, topics in assignment.topology.stores if name == store), ())
        if sources and _counted(assignment) and max(counts.get(t, 0) for t in sources) <= 0:
            return []
        return super().all_metadata_for_store(assignment, store)


class NfcKeysRouter(ReferenceRouter):
    """Keys normalised to Unicode NFC before hashing, where ``StringSerializer`` writes the
    string's UTF-8 as given: a key with combining marks (``cle\u0301-u\u0308``) hashes as its
    precomposed form. Rare vocabulary: a decomposed key (STREAMS-DRIVE-DECOMPOSED-KEY; red team
    session 27's ``key-nfc-normalised``)."""

    def route(self, assignment: Any, store: str, key_bytes: bytes,
              partitions: Mapping[str, int] | None = None) -> KeyQueryMetadata | None:
        key = unicodedata.normalize("NFC", key_bytes.decode("utf-8"))
        return super().route(assignment, store, key.encode("utf-8"), partitions)

    __call__ = route


class HostOrderPortFirstRouter(HostOrderByTextRouter):
    """A global store's key answered by the first host in (port, host) order, not (host, port)
    (``HostInfo``'s comparator written the other way round): the same whenever the hosts share a
    port or a name, or the lower port has the earlier name. Rare vocabulary: the lower port on the
    later host name (STREAMS-DRIVE-PORT-ORDER; red team session 27's ``host-order-port-first``)."""

    @staticmethod
    def host_order(host: Any) -> Any:
        return (host.port, host.host)


# ------------------------------------------------------------------------------ voters


class SendsBeforePersistReplica(VoterReplica):
    """Order: the election state is written after the step's messages (a vote is sent before it
    is durable; RAFT-STATE-PERSIST-BEFORE-SEND)."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        out = super().step(inp)
        persists = [o for o in out if o["type"] == "PersistElection"]
        return [o for o in out if o["type"] != "PersistElection"] + persists


class RemoveIgnoresDirectoryReplica(VoterReplica):
    """RemoveVoter matches the replica id only: a request naming a voter with a directory it does
    not have removes it anyway (KIP-853 keys voters by id and directory)."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if inp["type"] == "RemoveVoter" and self.role == "leader":
            for rid, directory in self.control.voters_now():
                if rid == inp["replica"]:
                    inp = {**inp, "directory": directory}
        super().reconfigure(inp)


class UnknownVoterAcceptedReplica(VoterReplica):
    """AddVoter of a replica the leader has never heard from is accepted as if it had caught up
    (the catch-up check reads a missing end offset as "at the end")."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if inp["type"] == "AddVoter" and self.role == "leader" and inp["replica"] not in self.end_offsets:
            self.end_offsets[inp["replica"]] = self.end_offset
            try:
                super().reconfigure(inp)
            finally:
                self.end_offsets.pop(inp["replica"], None)
            return
        super().reconfigure(inp)


class HistoryOfTwoReplica(VoterReplica):
    """Deep: the voter-set history keeps at most two entries (a "previous and current" pair, as
    if only the set in force and the one before it could matter); the third voter set a replica
    sees drops the oldest, which a reader at an older offset still needs (VOTERS-OBS history)."""

    def follow_log(self, outputs: list[dict[str, Any]]) -> None:
        super().follow_log(outputs)
        self._keep_two()

    def leader_append(self, entries: list[dict[str, Any]]) -> None:
        super().leader_append(entries)
        self._keep_two()

    def _keep_two(self) -> None:
        if len(self.control.voter_history) > 2:
            self.control.voter_history = self.control.voter_history[-2:]



# ------------------------------------------------------------------------------ raft: the s11 macros
# One mutant per raft macro of session 11 (conformance/drivers/macros.py), each a bug only that
# macro's inputs show: an answer or request that arrives late, a copy the model itself never
# delivers (RAFT-MODEL-IGNORED-RESPONSES).


class FollowerHwTakesLateAnswer(RaftReplica):
    """A follower takes the high watermark of every fetch answer at its log end, also one lower
    than it has: a late copy of an earlier answer moves it back (RAFT-RULE-HW-FOLLOWER).
    Only ``macros.DeliverLate`` (RAFT-DRIVE-LATE-COPY) delivers such a copy."""

    def advance_high_watermark(self, leader_hw: int | None) -> None:
        if leader_hw is not None:
            self.high_watermark = min(leader_hw, self.end_offset)


class LeaderHwFollowsLateFetch(RaftReplica):
    """The leader's high watermark is the majority's offset as it is now, also lower: a
    duplicated fetch arriving after its sender caught up moves it back (RAFT-RULE-HW). Only
    ``macros.LateFetch`` (RAFT-DRIVE-LATE-COPY, the request side) delivers such a fetch."""

    def update_high_watermark(self) -> None:
        majority = self.majority_offset()
        if majority > self.epoch_start:
            self.high_watermark = majority


class StaleGrantCounted(RaftReplica):
    """A candidate counts a grant of its earlier candidacy (a VoteResponse of an older epoch)
    toward its current one: the response's epoch is checked for "higher", not for "lower"
    (RAFT-RULE-STALE-EPOCH). Only ``macros.Stale`` (RAFT-DRIVE-STALE-ANSWER) delivers one."""

    def on_response(self, resp: dict[str, Any]) -> None:
        if (resp["type"] == "VoteResponse" and resp["epoch"] < self.epoch and self.role == "candidate"
                and not resp.get("pre_vote")):
            self.on_vote_response(resp)
            return
        super().on_response(resp)

    on_VoteResponse = on_response  # the reference dispatches on the message type


class ListenerRereadsOnNewLeader(RaftReplica):
    """The listener reads the log from offset 0 again when one message moves its replica from
    following (or leading) one epoch to following the next (the state machine is "reloaded" on
    a leader change): committed records are handed over twice (RAFT-OBS-LISTENER-COMMIT). A
    replica that hears of the election by its vote request first moves in two steps, where the
    bug does nothing; ``macros.ElectWithout`` (RAFT-DRIVE-ELECT-WITHOUT) makes the one step."""

    def become_follower(self, epoch: int, leader: int) -> None:
        direct = epoch > self.epoch and self.role in ("follower", "leader", "resigned")
        super().become_follower(epoch, leader)
        if direct:
            self.listener_next = 0


# (name, class, bug class, caught at the default budget in CI, note): registered in
# mutants.CATALOGUE like mutants_raft.RAFT_MUTANTS.
_NOTE = ("diverges on its macro's inputs from a short path (tests/conformance/test_macro_mutants.py); "
         "the default-budget run is not measured yet (session 12): kept out of the CI run")
# Session 13, default budget: guided runs 18 (late fetch), 71 (stale grant), 43 (listener) at
# seeds 0 and 1; follower-hw-takes-late-answer at run 142 at both, kept out of the CI run (cost).
_CAUGHT = "caught by a guided run at seeds 0 and 1 (session 13)"
RAFT_ENTRIES: tuple[tuple[str, type, str, bool, str], ...] = (
    ("raft-follower-hw-takes-late-answer", FollowerHwTakesLateAnswer, "a value that must not move back",
     False, _NOTE),
    ("raft-leader-hw-follows-late-fetch", LeaderHwFollowsLateFetch, "a value that must not move back",
     True, _CAUGHT),
    ("raft-stale-grant-counted", StaleGrantCounted, "a response's epoch not checked", True, _CAUGHT),
    ("raft-listener-rereads-on-new-leader", ListenerRereadsOnNewLeader,
     "listener state reset on a transition", True, _CAUGHT),
)

class FlagAbsentFalsePolicy(DefaultPolicy):
    """KIP-949's flag read as ``Boolean.parseBoolean(props.get(flag))`` without ``containsKey``:
    a custom separator configured without the flag (its default is true) names the internal
    topics with ``.``, the pre-3.1 names. Caught only where a configuration leaves a default
    setting out (MM2-DRIVE-DEFAULT-PROPS; red team session 18's ``internal-flag-absent-disabled``)."""

    def configure(self, props: Mapping[str, Any]) -> None:
        super().configure(props)
        if "replication.policy.separator" in props and "replication.policy.internal.topic.separator.enabled" \
                not in props:
            self.internal_topic_separator_enabled = False


class OwnAliasSourcePolicy(DefaultPolicy):
    """topicSource answers the configured ``source.cluster.alias`` whole for a name that starts
    with it and the separator, where Kafka splits at the first separator: ``us.west.orders`` at
    ``us.west`` is from ``us``. Rare vocabulary: a name asked at the node whose alias (holding
    the separator) it starts with (MM2-DRIVE-OWN-ALIAS; red team session 18's
    ``source-prefers-own-alias``)."""

    configured: str | None = None

    def configure(self, props: Mapping[str, Any]) -> None:
        super().configure(props)
        self.configured = props.get("source.cluster.alias")

    def topic_source(self, topic: str) -> str | None:
        prefix = f"{self.configured}{self.separator}"
        if self.configured and topic.startswith(prefix) and topic != prefix:
            return self.configured
        return super().topic_source(topic)


class InternalRegexDotPolicy(DefaultPolicy):
    """3.x's Connect suffix test as the regular expression ``.internal$|-internal$``, its ``.``
    unescaped: any character before ``internal`` matches (``ordersinternal`` is internal). Rare
    vocabulary: a name ending in ``internal`` after neither ``.``, ``-`` nor the separator
    (MM2-DRIVE-SUFFIX-BARE; red team session 18's ``rule3x-connect-regex-dot``)."""

    def is_internal_topic(self, topic: str) -> bool:
        if self.internal_rule != "3.x":
            return super().is_internal_topic(topic)
        return super().is_internal_topic(topic) or re.search(".internal$", topic) is not None


class HeartbeatsNameSelfPolicy(DefaultPolicy):
    """``is_heartbeats_topic`` with a fast path "the configured heartbeats topic is a heartbeats
    topic" before KIP-690's ``heartbeatsTopic().equals(originalTopic(t))``: the same for every
    name that is its own original topic, not for a KIP-1016 name holding the separator
    (``hb.topic`` with ``.``: Kafka reads it as remote, original ``topic``, and answers false).
    Rare vocabulary: a heartbeats name with the separator (MM2-DRIVE-HEARTBEATS-SEPARATOR; red
    team session 21's ``heartbeats-name-shortcut``)."""

    def is_heartbeats_topic(self, topic: str) -> bool:
        return topic == self.heartbeats_topic() or super().is_heartbeats_topic(topic)


class HeartbeatsNameEmptyDefaultPolicy(DefaultPolicy):
    """KIP-1016's setting read with a fallback for the empty string (``props.get(k) or
    "heartbeats"``): Kafka stores the string as given (``DefaultReplicationPolicy.configure``; no
    validator in ``MirrorClientConfig``), so a configured empty name is ``""`` there and
    ``heartbeats`` here. The same for every non-empty name. Rare vocabulary: an empty heartbeats
    name (MM2-DRIVE-HEARTBEATS-ODD-NAMES; red team session 22's ``heartbeats-name-empty-default``)."""

    def configure(self, props: Mapping[str, Any]) -> None:
        super().configure(props)
        if not self.heartbeats_topic_name:
            self.heartbeats_topic_name = "heartbeats"


class RegexSeparatorPolicy(DefaultPolicy):
    """``topicSource`` splits with a regular expression that escapes the default separator only
    (``re.split(r"\\." if sep == "." else sep)``): Kafka quotes any separator
    (``Pattern.quote``). The same for ``.``, ``_``, ``__`` and ``-``; with ``-.`` the pattern is "a
    dash and any character" (``orders-internal`` has source ``orders``). Rare vocabulary: a
    separator of several characters holding ``.`` (MM2-DRIVE-DOTTED-SEPARATOR)."""

    def topic_source(self, topic: str) -> str | None:
        pattern = r"\." if self.separator == "." else self.separator
        pieces = re.split(pattern, topic)
        while len(pieces) > 1 and pieces[-1] == "":
            pieces.pop()  # Java's split drops trailing empty strings
        return pieces[0] if len(pieces) > 1 else None


# ------------------------------------------------------------------------------ share


class ResponseBeforeRecordsShard(ShareShard):
    """Order: the response is emitted before the records it reports on (the runtime would
    complete the request before its records are written)."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        out = super().step(inp)
        return out[-1:] + out[:-1] if len(out) > 1 else out


# (name, protocol, class, bug class): registered in mutants.CATALOGUE.
ENTRIES: tuple[tuple[str, str, type, str], ...] = (
    ("mm2-heartbeats-name-ignored", "mm2", HeartbeatsNameIgnoredPolicy,
     "configuration ignored on one path (KIP-1016's heartbeats-topic name)"),
    ("mm2-original-hop-cap", "mm2", OriginalHopCapPolicy, "rare vocabulary: a name past a loop guard's hop count"),
    ("mm2-rstrip-separator", "mm2", RstripSeparatorPolicy,
     "rare vocabulary: a trailing run that is not a multiple of the separator"),
    ("mm2-suffix-contained", "mm2", SuffixContainedPolicy, "rare vocabulary: an internal suffix inside a name"),
    ("mm2-checkpoints-alias-parsed", "mm2", CheckpointsAliasParsedPolicy,
     "rare vocabulary: the checkpoints topic of an alias holding the separator"),
    ("mm2-strips-separators", "mm2", StripsSeparatorsPolicy, "rare vocabulary: separators at the ends"),
    ("mm2-collapses-doubled-separator", "mm2", CollapsesDoubledSeparatorPolicy,
     "rare vocabulary: a doubled separator"),
    ("mm2-ascii-names", "mm2", AsciiNamesPolicy, "rare vocabulary: non-ASCII names"),
    ("mm2-caps-name-length", "mm2", CapsNameLengthPolicy, "rare vocabulary: very long names"),
    ("mm2-two-hop-original", "mm2", TwoHopOriginalPolicy, "deep: a loop bounded too tightly"),
    ("mm2-three-hop-original", "mm2", ThreeHopOriginalPolicy, "rare vocabulary: four hops"),
    ("mm2-byte-offsets", "mm2", ByteOffsetsPolicy, "rare vocabulary: a non-ASCII source"),
    ("mm2-empty-alias-local", "mm2", EmptyAliasLocalPolicy, "rare vocabulary: the empty alias"),
    ("mm2-utf16-lengths", "mm2", Utf16LengthsPolicy, "rare vocabulary: a supplementary character in a source"),
    ("mm2-dash-suffix-user-topic", "mm2", DashSuffixUserTopicPolicy,
     "rare vocabulary: the separator '-', MM2's names ending with '-internal'"),
    ("mm2-nfc-names", "mm2", NfcNamesPolicy, "rare vocabulary: decomposed Unicode names"),
    ("mm2-configured-alias-names", "mm2", ConfiguredAliasNamesPolicy, "rare vocabulary: another node's alias"),
    ("mm2-case-folded-internal", "mm2", CaseFoldedInternalPolicy, "rare vocabulary: MM2's names in upper case"),
    ("mm2-exact-flag-spelling", "mm2", ExactFlagSpellingPolicy, "rare vocabulary: the flag spelled TRUE"),
    ("mm2-flag-absent-false", "mm2", FlagAbsentFalsePolicy, "a missing setting read as false, not its default"),
    ("mm2-own-alias-source", "mm2", OwnAliasSourcePolicy, "rare vocabulary: a name asked at its own alias's node"),
    ("mm2-internal-regex-dot", "mm2", InternalRegexDotPolicy, "an unescaped '.' in a suffix pattern"),
    ("mm2-heartbeats-name-self", "mm2", HeartbeatsNameSelfPolicy,
     "rare vocabulary: a heartbeats name holding the separator"),
    ("mm2-heartbeats-name-empty-default", "mm2", HeartbeatsNameEmptyDefaultPolicy,
     "rare vocabulary: an empty heartbeats name"),
    ("mm2-regex-separator", "mm2", RegexSeparatorPolicy,
     "rare vocabulary: a separator of several characters holding '.'"),
    ("mm2-format-memo-source", "mm2", FormatMemoSourcePolicy,
     "state across calls: a name read back after the policy formatted it"),
    ("mm2-internal-suffix-split", "mm2", InternalSuffixSplitPolicy,
     "rare vocabulary: an internal suffix followed by the separator"),
    ("mm2-trimmed-flag", "mm2", TrimmedFlagPolicy, "rare vocabulary: a flag value with a trailing blank"),
    ("mm2-flag-word-true", "mm2", FlagWordTruePolicy, "rare vocabulary: a flag spelled as another word for true"),
    ("mm2-trimmed-heartbeats-name", "mm2", TrimmedHeartbeatsNamePolicy,
     "rare vocabulary: a heartbeats name with a blank at an edge"),
    ("mm2-connect-worker-names-internal", "mm2", ConnectWorkerNamesInternalPolicy,
     "rare vocabulary: MirrorMaker's Connect worker topic names with a custom separator"),
    ("mm2-heartbeats-name-internal-separator", "mm2", HeartbeatsNameInternalSeparatorPolicy,
     "rare vocabulary: a dotted heartbeats name with a custom separator"),
    ("streams-empty-key-unrouted", "streams", EmptyKeyUnroutedRouter, "rare vocabulary: the empty key"),
    ("streams-nul-terminated-keys", "streams", NulTerminatedKeysRouter, "rare vocabulary: a key with a NUL byte"),
    ("streams-last-source-count", "streams", LastSourceCountRouter, "rare vocabulary: the widest topic listed first"),
    ("streams-hosts-by-name", "streams", HostsByNameRouter, "rare vocabulary: two instances on one host"),
    ("streams-murmur-tail", "streams", MurmurTailRouter, "rare vocabulary: keys of length 3 mod 4"),
    ("streams-hashes-characters", "streams", HashesCharactersRouter, "rare vocabulary: non-ASCII keys"),
    ("streams-skips-unchanged-members", "streams", SkipsUnchangedMembersRouter,
     "listener contract: an onChange skipped"),
    ("streams-initialized-once", "streams", InitializedOnceRouter,
     "rare vocabulary: an assignment with no active owner after one with them"),
    ("streams-standbys-need-active", "streams", StandbysNeedActiveRouter,
     "rare vocabulary: a partition with a standby and no active owner"),
    ("streams-store-metadata-needs-count", "streams", StoreMetadataNeedsCountRouter,
     "rare vocabulary: a sub-topology with no active owner while the instance is initialized"),
    ("streams-nfc-keys", "streams", NfcKeysRouter, "rare vocabulary: a key with combining marks"),
    ("streams-host-order-port-first", "streams", HostOrderPortFirstRouter,
     "rare vocabulary: the lower port on the later host name"),
    ("voters-sends-before-persist", "voters", SendsBeforePersistReplica, "wrong output order"),
    ("voters-remove-ignores-directory", "voters", RemoveIgnoresDirectoryReplica,
     "off-protocol input: a voter named with the wrong directory"),
    ("voters-unknown-voter-accepted", "voters", UnknownVoterAcceptedReplica,
     "off-protocol input: a replica no host has"),
    ("voters-history-of-two", "voters", HistoryOfTwoReplica, "deep: state bounded too tightly"),
    ("share-response-before-records", "share", ResponseBeforeRecordsShard, "wrong output order"),
)
