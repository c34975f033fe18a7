"""The MirrorMaker 2 lockstep driver: a replication policy called the way MM2 and its clients call it.

A target node is one configured policy, as the connectors of the flows from one cluster
configure it (``source.cluster.alias`` = the node's alias, which only the identity policy
reads), plus ``(client)``: the policy as MirrorClient / RemoteClusterUtils configure it, without
``source.cluster.alias`` (the identity policy's ``topicSource`` is then null), asked the one-topic
calls about interesting names and every name the clusters hold. An input is one call
(``kspec.model.mm2.calls``: ``{"type": "TopicSource", "topic": "A.orders"}``); the observation
is the answer, ``{"result": ...}``, and must equal what the model's policy of the run's
configuration answers. The calls come from four categories:

* ``sync`` / ``create``: the system model (``Mm2System``; clusters A B C, or ``us.east`` ...
  with separator ``_``) steps, and a sync is fed as the calls one ``refreshTopicPartitions``
  of the flow makes (``isInternalTopic``, ``isCycle``'s ``topicSource``/``upstreamTopic``
  chain, ``formatRemoteTopic``), so names grow hop by hop as in a real deployment;
* ``query``: one-topic calls on interesting names (aliases with the separator, ``__x``,
  ``.x``, Connect-style ``-internal``/``.internal`` names, heartbeats look-alikes, names made
  only of separators, the empty name, ``_x``, case variants, MM2 suffix and ``mm2`` prefix
  look-alikes: ``interesting_topics``) and on every name the clusters hold now;
* ``format``: ``formatRemoteTopic``, ``checkpointsTopic``, ``offsetSyncsTopic``,
  ``heartbeatsTopic`` over aliases, clean or not;
* ``law``: the calls one law of spec/mm2.md (MM2-LAW-*) makes at one input.

Laws are checked on the target's observations alone: after each answer, every law whose
calls (as the model makes them) end with this call is evaluated on the target's recorded
answers, and a false one ends the run with the law's ID. So a counterexample names the law
when the broken answer completes one, and the method otherwise (``observation.result``).

Configurations: the policy kind (``default``, ``identity``), the separator, whether internal
topic names use it (KIP-949), and the internal-topic rule (``4.x``, Kafka 4.0 and later, or
``3.x``; MM2-RULE-INTERNAL-*). The identity policy is held to the laws Kafka's identity policy
meets; ``"contract": "default"`` holds it to all of them (the cycle counterexample of spec/mm2.md
§3). A target may take only some configurations (``target.supports(config)``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache, partial
from typing import Any

from kspec.conformance.driver import Driver, Event
from kspec.conformance.harness import JSON
from kspec.model.core.codec import DecodeError, decode, encode
from kspec.model.core.protocol import first_violated
from kspec.model.mm2 import laws as L
from kspec.model.mm2.calls import (
    CALL_TYPES,
    TOPIC_QUERIES,
    Answer,
    AnsweringPolicy,
    Call,
    CheckpointsTopic,
    FormatRemoteTopic,
    HeartbeatsTopic,
    IsInternalTopic,
    IsMM2InternalTopic,
    OffsetSyncsTopic,
    RecordingPolicy,
    TopicSource,
    Unanswered,
    UpstreamTopic,
    answer,
)
from kspec.model.mm2.policy import (
    DEFAULT_HEARTBEATS_TOPIC,
    INTERNAL_RULE_4X,
    INTERNAL_RULES,
    DefaultReplicationPolicy,
    IdentityReplicationPolicy,
    ReplicationPolicy,
)
from kspec.model.mm2.system import (
    DOTTED_ALIASES,
    PLAIN_ALIASES,
    CreateTopic,
    Mm2System,
    State,
    Sync,
    replicate,
)

CONFIGS: list[dict[str, JSON]] = [
    {"policy": "default", "separator": ".", "internal_rule": "4.x"},
    {"policy": "default", "separator": "_", "internal_rule": "4.x"},
    {"policy": "identity", "separator": ".", "internal_rule": "4.x"},
    {"policy": "default", "separator": "__", "internal_rule": "4.x", "internal_separator": False},
    {"policy": "default", "separator": ".", "internal_rule": "3.x"},
    {"policy": "default", "separator": "_", "internal_rule": "3.x"},
    {"policy": "identity", "separator": ".", "internal_rule": "3.x"},
    # MM2-DRIVE-DASH-SEPARATOR: "-", legal in topic names, is also the last character of
    # Connect's "-internal": with KIP-949's internal separator on, MM2's own names end with
    # "-internal" (``A-checkpoints-internal``), so a 4.x test that takes every "-internal" name
    # for a user's Connect-style topic (KAFKA-17200) refuses none of MM2's; no other separator
    # tells it apart (red team session 17's ``connect-suffix-early-exit``).
    {"policy": "default", "separator": "-", "internal_rule": "4.x"},
    # MM2-DRIVE-DOTTED-SEPARATOR (session 23): a separator of two different characters holding
    # ".", the one regular-expression metacharacter Kafka's topic names allow. Kafka splits with
    # ``Pattern.quote``; a port that escapes the default "." only (``re.split(r"\." if sep ==
    # "." else sep)``) reads ``-.`` as "a dash and any character" (``orders-internal`` from
    # ``orders``); with ".", "_", "__" and "-" it splits as Kafka does. Under the 3.x rule, so
    # that the 3.x releases run it too (KIP-949's flag at its default, as 3.1-3.5 behave).
    {"policy": "default", "separator": "-.", "internal_rule": "3.x"},
]

# User topics the system model creates: a Connect-style name replicates under the 4.x rule
# and is refused under 3.x. The system model creates only names without the separator
# (MM2-LAW-TOPIC-SEPARATOR), so with "-" the Connect-style name is the ".internal" one.
CONNECT_STYLE = ("orders-internal", "orders.internal")


def user_topics(sep: str) -> tuple[str, ...]:
    """The system model's user topics under separator ``sep``: ``orders`` and the first
    Connect-style name that does not hold the separator."""
    return ("orders", next(t for t in CONNECT_STYLE if sep not in t))
# Aliases besides the clusters': one with ".", one with "_", one that straddles "__", and
# the third cluster MM2-LAW-CYCLE-DETECTABLE's second hop goes to.
EXTRA_ALIASES = ("us.west", "us_west", "x_", "third-cluster")
# The identity policy cannot keep these (spec/mm2.md §3): not checked on its runs.
IDENTITY_BREAKS = frozenset({"MM2-INV-NO-CYCLE", "MM2-INV-NO-MERGE"})
# A policy as clients configure it (MirrorClient, RemoteClusterUtils): no source.cluster.alias.
# The identity policy then answers topicSource with null (spec/mm2.md §1.2). Not an alias: it
# is asked the one-topic calls, and the naming calls with an alias argument (MirrorClient asks
# checkpointsTopic(remote alias); MM2-DRIVE-ALIAS-ARGUMENT).
CLIENT_NODE = "(client)"
CLIENT_NAMES = 16  # interesting names the client is asked about, besides every name the clusters hold
MAX_NAMES = 85  # names offered to the query category (7 calls each: at most 595; "-." keeps 85 distinct)
MAX_FORMAT_TOPICS = 40  # every interesting name up to the non-ASCII sources (the long names are at 33-34)


# A name at Kafka's longest (249 characters, Topic.MAX_NAME_LENGTH): its remote name is longer.
LONG_NAME = "t" * 249
# MM2-DRIVE-SUPPLEMENTARY: a character outside the Basic Multilingual Plane (U+1F680, two UTF-16 units).
SUPPLEMENTARY = "\U0001F680"
# MM2-DRIVE-DEEP-NAME: 32 hops (A.B.C.A.B.C....orders, written with "." and given the separator).
DEEP_NAME = ".".join(("A", "B", "C")[k % 3] for k in range(32)) + ".orders"
# MM2-DRIVE-HEARTBEATS-NAME: the heartbeats topic a configuration names with KIP-1016's
# ``default.replication.policy.heartbeats.topic.name``, offered only to a target that declares
# ``model_config`` {"heartbeats_topic_name": true} (a policy before the setting keeps ``heartbeats``),
# and then only in the 4.x configurations with separator "." (Kafka 3.x has no such setting): its
# other configurations keep the default name. Neither ending with ``heartbeats`` (the identity
# policy's "looks like a heartbeat" is a suffix test of the configured name) nor holding a
# separator.
HEARTBEATS_NAME_CONFIG = "default.replication.policy.heartbeats.topic.name"
SEPARATOR_PROP = "replication.policy.separator"
CUSTOM_HEARTBEATS = "hb-topic"
# MM2-DRIVE-HEARTBEATS-SEPARATOR: in those configurations one extra node (an alias no cluster has,
# so the system model's syncs never run under it) names a heartbeats topic that holds the
# separator. KIP-1016 validates no name; Kafka reads ``hb.topic`` as remote (source ``hb``,
# original ``topic``), so by KIP-690's ``isHeartbeatsTopic(t) = heartbeatsTopic().equals(
# originalTopic(t))`` the configured name is not a heartbeats topic (MM2-LAW-HEARTBEATS). Every
# other name told a policy with a shortcut "the heartbeats topic itself is one" apart from
# Kafka's in nothing (red team session 21's ``heartbeats-name-shortcut``).
SEPARATED_HEARTBEATS_NODE = "us_west"


# MM2-DRIVE-HEARTBEATS-ODD-NAMES (session 23): in those configurations, more extra nodes (aliases no
# cluster has, after the client in the node list) each configure a KIP-1016 name Kafka accepts but
# no other node has: ``DefaultReplicationPolicy.configure`` stores the string as given and
# ``MirrorClientConfig`` defines the setting as a STRING without a validator (apache/kafka trunk;
# 4.3.1's jar has no setting yet), so the empty name, the separator alone, the separator at the
# start or the end, the checkpoints suffix, Connect's ``-internal``, Kafka's ``__`` prefix, 249
# characters and a non-ASCII name are all names the laws must hold for (MM2-LAW-HEARTBEATS with
# its validity condition, spec/mm2.md §2). A policy that reads the setting with a fallback for the
# empty string (red team session 22's ``heartbeats-name-empty-default``: ``props.get(k) or
# "heartbeats"``) or trims separators off the name answers otherwise; with ``hb-topic``,
# ``hb.topic`` and ``heartbeats`` nothing told it apart.
# MM2-DRIVE-BLANK-HEARTBEATS-NAME, MM2-DRIVE-BLANK-FLAG (session 27):
# ``DefaultReplicationPolicy.configure`` reads the raw strings of the properties map (a
# properties file keeps a trailing blank), where ``ConfigDef`` would trim
# them: KIP-1016's name is stored with its blank, and KIP-949's flag ``true `` is
# ``Boolean.parseBoolean("true ")`` = false. Every value the driver sent was trimmed, so a policy
# that trims (red team session 27's ``heartbeats-name-trimmed`` and ``flag-value-trimmed``)
# answered as Kafka everywhere. ``hb-connect``'s name carries a leading blank (it still ends with
# Connect's ``-internal``), and with a custom separator whose flag is on, ``BLANK_FLAG_NODE`` (an
# alias no cluster has) is sent the flag ``true `` and configured, in the model, with the internal
# separator off. bench/_probes.py switches each off (``BLANK_HEARTBEATS``, ``BLANK_FLAG_NODE``).
BLANK_HEARTBEATS: str = " -internal"
BLANK_FLAG_NODE: str | None = "third-cluster"
# MM2-DRIVE-FLAG-WORD (session 28): every flag value sent was a spelling of ``true``/``false``
# (or ``true `` above), the only words Boolean.parseBoolean and a general "truthy word" parser
# (Python's configparser ``getboolean`` / ``strtobool``, YAML 1.1: ``yes``, ``on``, ``1`` are true)
# read alike, so a policy reading the flag with such a parser (red team session 28's
# ``flag-parsed-as-ini-boolean``) answered as Kafka everywhere. With a custom separator whose flag
# is on, ``WORD_FLAG_NODE`` (an alias no cluster has) is sent the flag ``yes``: Kafka reads it as
# false (only ``true``, in any case, is true), so the model's policy there has the internal
# separator off. bench/_probes.py switches it off (``WORD_FLAG_NODE``).
WORD_FLAG_NODE: str | None = "x_"
WORD_FLAG = "yes"
# MM2-DRIVE-CONNECT-WORKER-NAMES (session 29): the Connect worker topics MirrorMaker names per
# cluster (``MirrorMakerConfig``: ``mm2-offsets.<alias>.internal`` ...), asked after an internal
# test of a name starting with ``mm2`` (``Mm2Driver._worker_names``). bench/_probes.py empties it.
WORKER_TOPIC_KINDS: tuple[str, ...] = ("offsets", "configs", "status")
# MM2-DRIVE-DOTTED-HEARTBEATS-NAME (session 29): KIP-1016's name was configured in the 4.x "."
# configurations only, where a name holding "." holds the separator and KIP-949's internal
# separator is "." too. In the 4.x configurations with a custom separator whose internal separator
# is on ("_", "-"), to a target that declares ``model_config`` {"heartbeats_topic_name": true}, one
# node more (an alias no cluster has, last in the node list) names ``hb.topic``: no separator in
# it, so it is its own original topic and a heartbeats topic. bench/_probes.py sets it to None.
DOTTED_HEARTBEATS_NODE: str | None = "hb-dotted"
DOTTED_HEARTBEATS = "hb.topic"


def odd_heartbeats(sep: str) -> dict[str, str]:
    """The nodes MM2-DRIVE-HEARTBEATS-ODD-NAMES adds, with the heartbeats name each configures."""
    return {"hb-empty": "", "hb-sep": sep, "hb-lead": f"{sep}hb", "hb-trail": f"hb{sep}",
            "hb-suffix": f"{sep}checkpoints{sep}internal", "hb-connect": BLANK_HEARTBEATS, "hb-kafka": "__hb",
            "hb-long": "h" * 249, "hb-unicode": f"hb-\u00f6{SUPPLEMENTARY}"}


def separated_heartbeats(sep: str) -> str:
    """The heartbeats name MM2-DRIVE-HEARTBEATS-SEPARATOR configures at its node: it holds ``sep``."""
    return f"hb{sep}topic"


def heartbeats_name(config: dict[str, JSON]) -> str | None:
    """The configured heartbeats-topic name of a configuration (MM2-DRIVE-HEARTBEATS-NAME), or
    None for Kafka's default."""
    if (config.get("heartbeats_topic_name") is True and config.get("separator", ".") == "."
            and config.get("internal_rule", INTERNAL_RULE_4X) == INTERNAL_RULE_4X):
        return CUSTOM_HEARTBEATS
    return None


def interesting_topics(sep: str) -> list[str]:
    """Names where policies go wrong: separators at the start, the end, doubled and alone,
    aliases with the separator, internal look-alikes, heartbeats, non-ASCII and very long names
    (the driver's vocabulary, docs/adapter-guide.md)."""
    return ["orders", f"x{sep}orders", "orders-internal", "orders.internal", f"orders{sep}internal", "__orders",
            ".orders", "heartbeats", "myheartbeats", f"A{sep}heartbeats", f"us.west{sep}orders",
            f"us_west{sep}orders", f"x_{sep}orders", sep, f"orders{sep}", f"{sep}orders", f"A{sep}{sep}orders",
            f"A{sep}checkpoints{sep}internal", f"mm2-offset-syncs{sep}A{sep}internal", "A.checkpoints.internal",
            # separators doubled at the ends, alone twice, an alias with nothing after it
            f"{sep}{sep}orders", f"orders{sep}{sep}", sep * 2, f"A{sep}", f"{sep}A{sep}orders", f"A{sep}B{sep}orders",
            f"A{sep}heartbeats{sep}", "heartbeats" + sep,
            # four hops (the system model's syncs make three): an originalTopic that caps its
            # walk at a hop count instead of stopping at a local name or a fixed point differs
            f"A{sep}B{sep}C{sep}A{sep}orders", f"A{sep}B{sep}C{sep}A{sep}B{sep}heartbeats",
            # non-ASCII (a policy that works on bytes or lower-cases differs) and very long
            "ördérs", f"A{sep}ördérs", "топик", LONG_NAME, f"A{sep}{LONG_NAME}",
            # a non-ASCII source (a policy that cuts at byte offsets, not characters, differs)
            f"ördérs{sep}orders", f"топик{sep}B{sep}orders",
            # the empty name; one underscore where Kafka's internal prefix has two; case
            # variants of the heartbeats name; MM2's suffixes without the separator before them
            # (a suffix test that forgets it); an "mm2" name that is not MM2's
            "", "_orders", f"A{sep}_orders", "Heartbeats", f"A{sep}HEARTBEATS", "mycheckpoints.internal",
            f"mycheckpoints{sep}internal", f"mm2-orders{sep}internal", f"mm2orders{sep}internal",
            "mm2orders.internal", "mm2orders",
            # decomposed Unicode (o + U+0308 for ö): a policy that normalises names (NFC) answers
            # another string; Java compares and cuts UTF-16 units as they come
            "o\u0308rders", f"A{sep}o\u0308rders", f"o\u0308rders{sep}B{sep}orders",
            # MM2's and Connect's names in another case (Kafka compares them as given: a policy
            # that case-folds its tests answers otherwise)
            f"MM2-offset-syncs{sep}A{sep}internal", "MM2-offset-syncs.A.internal", "orders.INTERNAL",
            "orders-INTERNAL", f"orders{sep}INTERNAL", f"A{sep}CHECKPOINTS{sep}INTERNAL",
            # the shortest names the tests accept: nothing between the "mm2" prefix and the
            # suffix, and the checkpoints topic of the empty alias (a test written as a regular
            # expression with ".+" where Kafka has startsWith / endsWith refuses them)
            f"mm2{sep}internal", "mm2.internal", f"{sep}checkpoints{sep}internal", ".checkpoints.internal",
            # remote copies of names Kafka's internal test matches (``__`` / ``.`` prefixes): the
            # test reads the name as given, so a remote copy is not internal (a policy that tests
            # the original topic, "a copy of an internal topic is internal", differs)
            f"A{sep}__orders", f"A{sep}.orders",
            # MM2-DRIVE-SEPARATOR-RUNS: the heartbeats topic as every other node's alias names it
            # (``x_`` with ``__`` gives ``x___heartbeats``: source ``x``, upstream ``_heartbeats``,
            # not a heartbeats topic), and runs of the separator's characters that are not a
            # multiple of it (Java's split takes the leftmost match): a policy that tests a suffix,
            # splits from the right or per character reads these otherwise
            *(f"{alias}{sep}heartbeats" for alias in EXTRA_ALIASES), f"A{sep}{sep[-1]}heartbeats",
            f"A{sep[0]}{sep}orders",
            # MM2-DRIVE-SEPARATOR-RUNS at the end of a name: an alias and the separator with a run
            # that is not a multiple of it after it (``A___`` with ``__`` splits into ``A`` and
            # ``_``: source ``A``), the remote name of the empty topic from ``x_`` (``x___``): a
            # policy that strips trailing separator characters (Python's ``rstrip`` takes a set)
            # reads them as local
            f"A{sep}{sep[-1]}", f"x_{sep}",
            # MM2-DRIVE-SUFFIX-INSIDE: the suffixes the internal tests match at a name's end
            # (``.internal``, the internal separator's, ``-internal``, the checkpoints suffix) and
            # the heartbeats name as an inner part, followed by more: Kafka tests endsWith, so
            # none of these is internal or a heartbeats topic; a test written as "contains"
            # (every real MM2 name ends with its suffix, so nothing else tells them apart) differs
            f"orders.internal{sep}v2", f"orders{sep}internal{sep}v2", "orders-internal-v2",
            f"mm2-offsets{sep}A{sep}internal{sep}bak", "mm2-offsets.A.internal.bak",
            f"A{sep}checkpoints{sep}internal{sep}bak", f"A{sep}heartbeats{sep}orders",
            # MM2-DRIVE-SUFFIX-BARE: ``internal`` at a name's end after a character that is neither
            # ``.``, ``-`` nor the separator (none of Kafka's suffixes): not internal under either
            # rule; a suffix test written as a regular expression with an unescaped ``.``
            # (``.internal$``) or as ``endsWith("internal")`` says it is (red team session 18's
            # ``rule3x-connect-regex-dot``: every other name ending in ``internal`` had one of them)
            "ordersinternal", "orders_internal" if sep != "_" else "ordersXinternal",
            # MM2-DRIVE-DOTTED-CHECKPOINTS: the checkpoints topic of an alias holding the separator
            # (with the internal separator and with ".", as KIP-949's flag names it): Kafka tests
            # the suffix, so it is one; a test that parses the alias back out of the name and
            # rebuilds it (the alias's first piece) says it is not
            f"us.west{sep}checkpoints{sep}internal", "us.west.checkpoints.internal",
            # MM2-DRIVE-DEEP-NAME: a name 32 hops away (within Kafka's 249 characters), past any
            # hop count a policy might cap originalTopic's walk at
            DEEP_NAME.replace(".", sep),
            # MM2-DRIVE-SUPPLEMENTARY: a character outside the Basic Multilingual Plane as a source
            # and as an inner hop's source: Java counts it as two UTF-16 units in length() and cuts
            # in the same units, so the upstream name starts right after the separator; a port that
            # keeps Java's lengths but slices code points (or the reverse) cuts a character off
            # (red team session 17's ``upstream-utf16-length``; the BMP names above cannot tell)
            f"{SUPPLEMENTARY}{sep}orders", f"A{sep}gr\u00fcppe{SUPPLEMENTARY}{sep}orders"]


@dataclass(frozen=True, slots=True)
class Query:
    """One call to one node, outside any sync."""

    node: str
    call: Call


@dataclass(frozen=True, slots=True)
class CheckLaw:
    """The calls of one law at one input (an index into the configuration's law pool)."""

    index: int


Action = Sync | CreateTopic | Query | CheckLaw


def _key(call: Call) -> str:
    return json.dumps(encode(call), sort_keys=True)


@dataclass(frozen=True)
class LawCase:
    """One law at one input: the calls the model makes for it, in order."""

    law: L.Law
    inp: L.LawInput
    calls: tuple[tuple[str, Call, Answer], ...]


@dataclass(frozen=True)
class Setup:
    """What one configuration fixes: the policy, clusters, nodes and the law pool."""

    policy: ReplicationPolicy
    clusters: tuple[str, ...]
    nodes: tuple[str, ...]
    props: dict[str, str]
    laws: tuple[L.Law, ...]
    cases: tuple[LawCase, ...]
    last_call: dict[tuple[str, str], tuple[int, ...]]
    # MM2-DRIVE-HEARTBEATS-SEPARATOR: nodes configured with another heartbeats name, and their policy.
    node_policies: dict[str, ReplicationPolicy] = field(default_factory=dict)
    node_heartbeats: dict[str, str] = field(default_factory=dict)
    # MM2-DRIVE-HEARTBEATS-ODD-NAMES: nodes after the client (their names are in node_heartbeats).
    odd_nodes: tuple[str, ...] = ()
    # MM2-DRIVE-DOTTED-HEARTBEATS-NAME: the node last in the node list (its name is in node_heartbeats).
    dotted_nodes: tuple[str, ...] = ()

    def policy_at(self, node: str) -> ReplicationPolicy:
        """The model's policy as ``node`` is configured (the client: without ``source.cluster.alias``)."""
        if node == CLIENT_NODE:
            return self.policy
        return self.node_policies.get(node, self.policy).for_flow(node)


def _config_key(config: dict[str, JSON]) -> str:
    return json.dumps(config, sort_keys=True)


def _recording(policies: dict[str, ReplicationPolicy], policy: ReplicationPolicy,
               log: list[tuple[str, Call, Answer]], alias: str) -> RecordingPolicy:
    return RecordingPolicy(policies.get(alias, policy).for_flow(alias), alias, log)


@cache
def setup(config_key: str) -> Setup:
    """The configuration's fixed parts (computed once per configuration and process)."""
    config = json.loads(config_key)
    kind = str(config.get("policy", "default"))
    sep = str(config.get("separator", "."))
    rule = str(config.get("internal_rule", INTERNAL_RULE_4X))
    internal_sep = bool(config.get("internal_separator", True))
    if kind not in ("default", "identity") or rule not in INTERNAL_RULES or not sep:
        raise ValueError(f"mm2 configuration {config_key}: policy default|identity, internal_rule "
                         f"{'|'.join(INTERNAL_RULES)}, non-empty separator")
    hb = heartbeats_name(config)
    named = DEFAULT_HEARTBEATS_TOPIC if hb is None else hb
    cls = IdentityReplicationPolicy if kind == "identity" else DefaultReplicationPolicy

    def configured(name: str) -> ReplicationPolicy:
        return cls(separator=sep, internal_topic_separator_enabled=internal_sep, internal_rule=rule,
                   heartbeats_topic_name=name)

    policy = configured(named)
    clusters = DOTTED_ALIASES if sep == "_" else PLAIN_ALIASES
    nodes = tuple(dict.fromkeys((*clusters, *EXTRA_ALIASES)))
    props = {SEPARATOR_PROP: sep,
             "replication.policy.internal.topic.separator.enabled": str(internal_sep).lower()}
    if hb is not None:
        props[HEARTBEATS_NAME_CONFIG] = hb
    node_heartbeats: dict[str, str] = {}
    node_policies: dict[str, ReplicationPolicy] = {}
    if hb is not None and SEPARATED_HEARTBEATS_NODE in nodes:
        node_heartbeats[SEPARATED_HEARTBEATS_NODE] = separated_heartbeats(sep)
        node_policies[SEPARATED_HEARTBEATS_NODE] = configured(node_heartbeats[SEPARATED_HEARTBEATS_NODE])
    if BLANK_FLAG_NODE in nodes and sep != "." and internal_sep:
        # MM2-DRIVE-BLANK-FLAG: the node is sent the flag "true " (Boolean.parseBoolean: false).
        node_policies[BLANK_FLAG_NODE] = cls(separator=sep, internal_topic_separator_enabled=False,
                                             internal_rule=rule, heartbeats_topic_name=named)
    if WORD_FLAG_NODE in nodes and sep != "." and internal_sep:
        # MM2-DRIVE-FLAG-WORD: the node is sent the flag "yes" (Boolean.parseBoolean: false).
        node_policies[WORD_FLAG_NODE] = cls(separator=sep, internal_topic_separator_enabled=False,
                                            internal_rule=rule, heartbeats_topic_name=named)
    odd = odd_heartbeats(sep) if hb is not None else {}
    for node, name in odd.items():
        node_heartbeats[node] = name
        node_policies[node] = configured(name)
    asked = (*nodes, *odd)
    full = kind == "default" or config.get("contract") == "default"
    laws = tuple(law for law in L.LAWS if full or law.identity_meets)
    cases: list[LawCase] = []
    for law in laws:
        for alias in (clusters[0], "us.west", "us_west", "x_"):
            for topic in ("orders", f"x{sep}orders", "orders-internal", "heartbeats"):
                inp = L.LawInput(alias, clusters[1], topic, sep, rule)
                if not law.precondition(inp):
                    continue
                log: list[tuple[str, Call, Answer]] = []
                law.check(partial(_recording, node_policies, policy, log), inp)
                if log and all(node in nodes for node, _, _ in log):
                    cases.append(LawCase(law, inp, tuple(log)))
    heartbeats_law = L.LAWS_BY_ID["MM2-LAW-HEARTBEATS"]
    for node in odd if heartbeats_law in laws else ():
        inp = L.LawInput(node, clusters[1], "orders", sep, rule)
        if heartbeats_law.precondition(inp):
            log = []
            heartbeats_law.check(partial(_recording, node_policies, policy, log), inp)
            if log and all(n in asked for n, _, _ in log):
                cases.append(LawCase(heartbeats_law, inp, tuple(log)))
    dotted: tuple[str, ...] = ()
    if (DOTTED_HEARTBEATS_NODE is not None and config.get("heartbeats_topic_name") is True and hb is None
            and sep != "." and internal_sep and rule == INTERNAL_RULE_4X):
        dotted = (DOTTED_HEARTBEATS_NODE,)
        node_heartbeats[DOTTED_HEARTBEATS_NODE] = DOTTED_HEARTBEATS
        node_policies[DOTTED_HEARTBEATS_NODE] = configured(DOTTED_HEARTBEATS)
    last: dict[tuple[str, str], list[int]] = {}
    for k, case in enumerate(cases):
        node, call, _ = case.calls[-1]
        last.setdefault((node, _key(call)), []).append(k)
    return Setup(policy, tuple(clusters), nodes, props, laws, tuple(cases),
                 {k: tuple(v) for k, v in last.items()}, node_policies, node_heartbeats, tuple(odd), dotted)


_CALLS: dict[tuple[str, tuple[str, ...]], list[tuple[str, Any]]] = {}


class Mm2Driver(Driver[Mm2System]):
    """Lockstep driver for ``mm2`` (see the module docstring)."""

    protocol = "mm2"
    # Configuration keys ``kspec conform --set KEY=VALUE`` may fix, with the values they take.
    settable = {"contract": ("default", "identity")}
    categories = ("sync", "create", "query", "format", "law")
    weights = {"sync": 2, "query": 2}
    # The policy is a pure function of its configuration: a call answers the same in every
    # state, so a guided run counts it once (conformance/drivers/guide.py).
    stateless = ("query", "format", "law")
    guide_states = 120  # every state offers some 700 calls: a smaller graph is as deep (10 states a level)

    def __init__(self, config: dict[str, JSON]) -> None:
        self.config = {**CONFIGS[0], **config}
        self.setup = setup(_config_key(self.config))
        self.kind = str(self.config["policy"])
        self.sep = str(self.config["separator"])
        self.model = Mm2System(self.setup.policy, clusters=3, hops=3, aliases=self.setup.clusters,
                               user_topics=user_topics(self.sep))
        skip = IDENTITY_BREAKS if self.kind == "identity" else frozenset()
        self._always = [p for p in self.model.properties() if p.kind == "always" and p.id not in skip]
        self._key = _config_key(self.config)

    def nodes(self) -> list[str]:
        return [*self.setup.nodes, CLIENT_NODE, *self.setup.odd_nodes, *self.setup.dotted_nodes]

    def node_config(self, node: str) -> dict[str, JSON]:
        props = dict(self.setup.props) if node == CLIENT_NODE else {**self.setup.props, "source.cluster.alias": node}
        if node in self.setup.node_heartbeats:
            props[HEARTBEATS_NAME_CONFIG] = self.setup.node_heartbeats[node]
        # KIP-949's flag as users spell it: Kafka reads it with Boolean.parseBoolean (any case),
        # so the nodes get "true"/"false" in three spellings (a policy testing == "false" differs).
        flag = "replication.policy.internal.topic.separator.enabled"
        if flag in props:
            spell = (str.lower, str.upper, str.capitalize)[self.nodes().index(node) % 3]
            props[flag] = spell(props[flag])
            if node == BLANK_FLAG_NODE and node in self.setup.node_policies:
                props[flag] += " "  # MM2-DRIVE-BLANK-FLAG: Kafka reads it as false
            if node == WORD_FLAG_NODE and node in self.setup.node_policies:
                props[flag] = WORD_FLAG  # MM2-DRIVE-FLAG-WORD: Kafka reads it as false
        if self.config.get("default_props") is True and self.nodes().index(node) % 2 == 1:
            # MM2-DRIVE-DEFAULT-PROPS (opt-in): every other node gets only the settings whose value
            # is not Kafka's default, as a MirrorMaker configuration that sets only what it
            # changes: no separator when it is "." (the flag is then not read at all), no flag
            # when it is true (KIP-949's default). Kafka's configure answers the same, so the
            # model's policy is unchanged; a policy that reads one setting only inside another's
            # block, or a missing flag as Boolean.parseBoolean(null) = false, differs.
            if props.get(SEPARATOR_PROP) == ".":
                props.pop(SEPARATOR_PROP)
                props.pop(flag, None)
            elif str(props.get(flag, "")).lower() == "true":
                props.pop(flag)
        return {"policy": self.kind, "props": props, "internal_rule": self.config["internal_rule"]}

    def init_state(self) -> State:
        return self.model.init_states()[0]

    def _names(self, state: State) -> list[str]:
        held = sorted({r.name for r in state.replicas})
        return list(dict.fromkeys([*interesting_topics(self.sep), *held]))

    def candidates(self, state: State) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = []
        for action in self.model.actions(state):
            out.append(("sync" if isinstance(action, Sync) else "create", action))
        # The calls depend on the configuration and the names held only: built once per name set.
        key = (self._key, tuple(self._names(state)))
        if key not in _CALLS:
            if len(_CALLS) > 4096:
                _CALLS.clear()
            _CALLS[key] = self._call_candidates(list(key[1]))
        return out + _CALLS[key]

    def _call_candidates(self, names: list[str]) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = []
        clusters = self.setup.clusters
        for k, name in enumerate(names[:MAX_NAMES]):
            node = clusters[k % len(clusters)]
            out.extend(("query", Query(node, q(name))) for q in TOPIC_QUERIES)
        # MM2-DRIVE-OWN-ALIAS: a name that starts with an extra node's alias and the separator is
        # asked at that node too (its connectors read their own remote topics' names): Kafka
        # splits it as any other name, where a policy that recognises its configured
        # ``source.cluster.alias`` first answers that alias whole (``us.west.orders`` at
        # ``us.west`` with ``.``: Kafka ``us``). The query names went to the clusters only.
        for alias in self.setup.nodes:
            if alias in clusters:
                continue
            out.extend(("query", Query(alias, q(name))) for name in names[:MAX_NAMES]
                       if name.startswith(alias + self.sep) for q in TOPIC_QUERIES)
        held = names[len(interesting_topics(self.sep)):]
        for name in dict.fromkeys([*names[:CLIENT_NAMES], *held]):
            out.extend(("query", Query(CLIENT_NODE, q(name))) for q in TOPIC_QUERIES)
        out.append(("format", Query(clusters[0], HeartbeatsTopic())))
        # MM2-DRIVE-HEARTBEATS-SEPARATOR: the node whose heartbeats name holds the separator is
        # asked that name, and the one-topic calls of it and of its remote copy;
        # MM2-DRIVE-HEARTBEATS-ODD-NAMES: so is each node with an odd name, and of the default name
        # too (a policy that falls back to ``heartbeats`` takes it for a heartbeats topic).
        for node, name in self.setup.node_heartbeats.items():
            if node in self.setup.dotted_nodes:
                continue  # asked after the first cluster's HeartbeatsTopic (_dotted_heartbeats)
            out.append(("format", Query(node, HeartbeatsTopic())))
            odd = node in self.setup.odd_nodes
            for topic in (name, f"{clusters[0]}{self.sep}{name}", *((DEFAULT_HEARTBEATS_TOPIC,) if odd else ())):
                out.extend(("query", Query(node, q(topic))) for q in TOPIC_QUERIES)
        nodes = self.setup.nodes
        # The naming calls take the alias as an argument: a node is asked about its own alias
        # (what its connectors ask) and about every other one, and so is the client (MirrorClient
        # asks checkpointsTopic(remote alias) of a policy without source.cluster.alias). A policy
        # that names the alias it was configured with instead of its argument differs.
        for node in (*nodes, CLIENT_NODE):
            for alias in nodes:
                out.append(("format", Query(node, CheckpointsTopic(alias))))
                out.append(("format", Query(node, OffsetSyncsTopic(alias))))
        for topic in names[:MAX_FORMAT_TOPICS]:
            for alias in nodes:
                out.append(("format", Query(alias, FormatRemoteTopic(alias, topic))))
        for k, node in enumerate((*nodes, CLIENT_NODE)):
            other = nodes[(k + 1) % len(nodes)]
            out.extend(("format", Query(node, FormatRemoteTopic(other, topic))) for topic in ("orders", "heartbeats"))
        # The empty alias (MM2 validates no alias): Kafka prepends the separator all the same,
        # and names the internal topics of the empty alias.
        out.append(("format", Query(clusters[0], FormatRemoteTopic("", "orders"))))
        out.append(("format", Query(clusters[0], CheckpointsTopic(""))))
        out.append(("format", Query(clusters[0], OffsetSyncsTopic(""))))
        out.extend(("law", CheckLaw(k)) for k in range(len(self.setup.cases)))
        return out

    def input_cells(self, before: State, action: Any) -> list[tuple[str, str]]:
        """MM2-DRIVE-NAME-KINDS: each call this action makes, by the kinds of name it is about
        (:func:`name_kinds`) and its type: the coverage matrix of ``--json`` (``matrix``)."""
        if isinstance(action, CreateTopic):
            return []
        if isinstance(action, Sync):
            log: list[tuple[str, Call, Answer]] = []
            fp = RecordingPolicy(self.model.flow_policy(action.source), action.source, log)
            for name in before.names_on(action.source):
                replicate(fp, name, action.source, action.target)
            calls = [(node, call) for node, call, _ in log]
        elif isinstance(action, Query):
            calls = [(action.node, action.call)]
        elif isinstance(action, CheckLaw):
            calls = [(node, call) for node, call, _ in self.setup.cases[action.index].calls]
        else:
            return []
        out: list[tuple[str, str]] = []
        for node, call in calls:
            kind = type(call).__name__
            out.extend((k, kind) for k in call_kinds(call, self.sep, self.setup.nodes))
            if node in self.setup.odd_nodes:
                out.append(("heartbeats name: odd", kind))
        return out

    def resolve(self, state: State, action: Action) -> State | None:
        if isinstance(action, CreateTopic):
            return self.model.next_state(state, action)
        if isinstance(action, Sync):
            # A sync that copies nothing new still asks the policy: keep it enabled.
            return self.model.next_state(state, action) or state
        return state

    def _event(self, node: str, call: Call, result: Answer) -> Event:
        return Event(node, encode(call), [], {"result": result})

    def events(self, before: State, action: Action, after: State) -> list[Event]:
        if isinstance(action, CreateTopic):
            return []  # users create topics; the policy is not asked
        if isinstance(action, Sync):
            log: list[tuple[str, Call, Answer]] = []
            fp = RecordingPolicy(self.model.flow_policy(action.source), action.source, log)
            for name in before.names_on(action.source):
                replicate(fp, name, action.source, action.target)
            return [self._event(*entry) for entry in log]
        if isinstance(action, Query):
            policy = self.setup.policy_at(action.node)
            result = answer(policy, action.call)
            more = [*self._format_read_back(action.call, result), *self._trailing_separator(action.call),
                    *self._worker_names(action.call)]
            return [self._event(action.node, action.call, result),
                    *(self._event(action.node, call, answer(policy, call)) for call in more),
                    *self._dotted_heartbeats(action)]
        return [self._event(*entry) for entry in self.setup.cases[action.index].calls]

    def _format_read_back(self, call: Call, result: Answer) -> list[Call]:
        """MM2-DRIVE-FORMAT-READ-BACK (session 27): a ``FormatRemoteTopic`` query is followed, at the
        same node, by ``TopicSource`` and ``UpstreamTopic`` of the name it answered. Kafka reads a
        name alone, whatever the policy formatted before (a policy's answer depends only on its
        configuration and the call); a policy that remembers the names it formatted answers the
        alias it was given (``us.west`` for ``us.west.orders``, ``A`` for ``A.``: Kafka ``us`` and
        null). The queries asked the two in any order, the read first in most runs (red team session
        27's ``source-remembered-from-format``). bench/_probes.py switches it off."""
        if isinstance(call, FormatRemoteTopic) and isinstance(result, str):
            return [TopicSource(result), UpstreamTopic(result)]
        return []

    def _trailing_separator(self, call: Call) -> list[Call]:
        """MM2-DRIVE-TRAILING-SEPARATOR (session 27): an internal-topic test of a name ending in
        ``internal`` is followed by the same test of the name with the separator after it
        (``orders.internal.``). Kafka tests ``endsWith``; Java's split drops trailing empty
        pieces, so a test written over the split ("the last piece is ``internal``") says yes
        where Kafka says no (red team session 27's ``mm2-internal-last-piece``: no name ended
        with an internal suffix and a separator). bench/_probes.py switches it off."""
        if isinstance(call, IsMM2InternalTopic | IsInternalTopic) and call.topic.endswith("internal"):
            return [type(call)(call.topic + self.sep)]
        return []

    def _dotted_heartbeats(self, action: Query) -> list[Event]:
        """MM2-DRIVE-DOTTED-HEARTBEATS-NAME (session 29): the first cluster's ``HeartbeatsTopic``
        query is followed by ``HeartbeatsTopic`` at the node naming ``hb.topic`` with a custom
        separator, and the one-topic calls there of that name, of its remote copy and of
        ``heartbeats`` (more events of the same action: the candidates, the draws and the guided
        plans are unchanged). Kafka keeps the name as given (KIP-949's flag renames the
        checkpoints and offset-syncs topics only); a policy that spells it with the internal
        separator (``hb_topic``) differs, and with "." nothing tells."""
        if not (isinstance(action.call, HeartbeatsTopic) and action.node == self.setup.clusters[0]):
            return []
        out: list[Event] = []
        for node in self.setup.dotted_nodes:
            policy = self.setup.policy_at(node)
            name = self.setup.node_heartbeats[node]
            calls: list[Call] = [HeartbeatsTopic()]
            for topic in (name, f"{self.setup.clusters[0]}{self.sep}{name}", DEFAULT_HEARTBEATS_TOPIC):
                calls.extend(q(topic) for q in TOPIC_QUERIES)
            out.extend(self._event(node, call, answer(policy, call)) for call in calls)
        return out

    def _worker_names(self, call: Call) -> list[Call]:
        """MM2-DRIVE-CONNECT-WORKER-NAMES (session 29): an internal-topic test of a name starting
        with ``mm2`` is followed, at the same node, by the same test of the Connect worker topics
        MirrorMaker names for the first cluster (``MirrorMakerConfig``: ``mm2-offsets.`` + alias +
        ``.internal``, ``-configs``, ``-status``: dotted whatever the separator). Kafka's tests
        read the configured (internal) separator: under 4.x, with ``_`` or ``-`` and the internal
        separator on, these names are neither MM2-internal nor internal (KAFKA-17200); a policy
        that adds MirrorMakerConfig's names to its MM2-internal test says they are (red team
        session 29's ``mm2-connect-names-dotted``: no query name was one of them, only their
        ``.bak`` look-alikes). bench/_probes.py switches it off."""
        if isinstance(call, IsMM2InternalTopic | IsInternalTopic) and call.topic.startswith("mm2"):
            alias = self.setup.clusters[0]
            names = (f"mm2-{kind}.{alias}.internal" for kind in WORKER_TOPIC_KINDS)
            return [type(call)(name) for name in names if name != call.topic]
        return []

    def describe(self, action: Action) -> str:
        if isinstance(action, Sync | CreateTopic):
            return self.model.describe_action(action)
        if isinstance(action, Query):
            return f"{action.node}: {_show(action.call)}"
        case = self.setup.cases[action.index]
        i = case.inp
        return f"law {case.law.id} at alias={i.alias!r} other={i.other_alias!r} topic={i.topic!r}"

    def model_violation(self, before: State, action: Any, after: State) -> str | None:
        if before is after:
            return None
        return first_violated(self._always, before, action, after)

    def observed_violation(self, node: Any, inp: JSON, observations: dict[Any, JSON],
                           memory: dict[str, Any]) -> str | None:
        """Record the answer; evaluate the laws this call completes on the target's answers."""
        try:
            call = decode(inp, CALL_TYPES)
        except (DecodeError, TypeError, KeyError):
            return None
        answers: dict[tuple[str, Call], Answer] = memory.setdefault("answers", {})
        answers[(str(node), call)] = (observations.get(node) or {}).get("result")
        for k in self.setup.last_call.get((str(node), _key(call)), ()):
            case = self.setup.cases[k]
            try:
                holds = case.law.check(lambda a: AnsweringPolicy(a, answers), case.inp)
            except Unanswered:
                continue  # the target took another path; its differing answer is reported as such
            if not holds:
                i = case.inp
                return (f"{case.law.id}: {case.law.doc} fails for alias={i.alias!r} other={i.other_alias!r} "
                        f"topic={i.topic!r} separator={i.separator!r} ({case.law.name})")
        return None


def name_kinds(topic: str, sep: str, aliases: tuple[str, ...] = ()) -> list[str]:
    """MM2-DRIVE-NAME-KINDS: the kinds of topic name the coverage matrix counts ``topic`` under
    (a name may be of several): where the separator sits, how many hops Kafka's split reads,
    length, characters, and the shapes the internal and heartbeats tests look at."""
    if topic == "":
        return ["name: empty"]
    kinds: list[str] = []
    parts = topic.split(sep)
    if not any(parts):
        return ["name: only separators"]
    if topic.startswith(sep):
        kinds.append("name: separator at start")
    if topic.endswith(sep):
        kinds.append("name: separator at end")
    if sep * 2 in topic:
        kinds.append("name: separator doubled")
    if len(sep) > 1 and (sep[0] + sep) in topic:
        kinds.append("name: separator run, not a multiple")
    hops = 0
    policy = DefaultReplicationPolicy(separator=sep)
    current: str | None = topic
    while current is not None and hops < 64:
        current = policy.upstream_topic(current)
        hops += current is not None
    kinds.append("name: local" if hops == 0 else "name: 1 hop" if hops == 1 else
                 "name: 2-3 hops" if hops <= 3 else "name: 4+ hops")
    if any(sep in a and topic.startswith(a + sep) for a in aliases):
        kinds.append("name: alias holding the separator")
    if len(topic) == 249:
        kinds.append("name: 249 characters")
    elif len(topic) > 249:
        kinds.append("name: over 249 characters")
    if any(ord(c) > 0xFFFF for c in topic):
        kinds.append("name: outside the BMP")
    elif any(ord(c) > 127 for c in topic):
        kinds.append("name: non-ASCII")
    if sum(c in topic for c in "._-") >= 2:
        kinds.append("name: mixes . _ -")
    if topic.startswith("__") or topic.startswith("."):
        kinds.append("name: Kafka-internal prefix")
    if topic.endswith("internal"):
        kinds.append("name: ends with internal")
    if "heartbeats" in topic.lower():
        kinds.append("name: heartbeats-like")
    return kinds


def alias_kinds(alias: str, sep: str) -> list[str]:
    """MM2-DRIVE-NAME-KINDS for an alias argument: empty, clean (MM2-LAW-ALIAS-SEPARATOR) or not."""
    if alias == "":
        return ["alias: empty"]
    return ["alias: clean" if L.clean_alias(alias, sep) else "alias: holding the separator"]


def call_kinds(call: Call, sep: str, aliases: tuple[str, ...] = ()) -> list[str]:
    """MM2-DRIVE-NAME-KINDS of one call: its topic's kinds and its alias's, and the separator's
    (more than one character; a regular-expression metacharacter)."""
    kinds: list[str] = []
    fields = encode(call)
    if "topic" in fields:
        kinds += name_kinds(str(fields["topic"]), sep, aliases)
    for key in ("source", "alias"):
        if key in fields:
            kinds += alias_kinds(str(fields[key]), sep)
    if len(sep) > 1:
        kinds.append("separator: several characters")
    if any(c in ".^$*+?{}[]\\|()" for c in sep):
        kinds.append("separator: regex metacharacter")
    return kinds or ["no name"]


def _show(call: Call) -> str:
    fields = encode(call)
    args = ", ".join(repr(v) for k, v in fields.items() if k != "type")
    return f"{fields['type']}({args})"

