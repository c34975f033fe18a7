"""Replaying a node-level event trace through the pure model (raft and voters).

Each node keeps its model state, built from the trace's ``config`` exactly as the system model
builds its initial state. An event's input goes through the model's ``step``; the recorded
outputs must equal the model's (as a multiset, in ``codec.encode`` form) and the recorded
observation must equal the model's ``observe``. The safety properties that can be evaluated
over the nodes' observations are checked after every event, under the model's property names
(``spec/raft.md``). See ``spec/trace-format.md`` for the rules.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from kspec.conformance import protocols
from kspec.conformance.pipeline.classes import classes_of
from kspec.conformance.pipeline.typed import check_value
from kspec.model.catalog import get_protocol
from kspec.model.core.bag import Bag
from kspec.model.core.codec import DecodeError, decode, encode

# Events that move no node: the network lost or duplicated a message.
NETWORK_ACTIONS = frozenset({"Drop", "Duplicate"})
# Inputs after which a node's high watermark may be lower (it is volatile).
RESTART_ACTIONS = frozenset({"Crash", "Restart"})


class TraceConfigError(ValueError):
    """A trace whose ``config`` does not build a model: the trace is quarantined."""


# Bounds that say how many nodes a model builds (raft: voters + observers; voters: hosts), and
# the most a trace's config (or an ITF trace's bounds) may ask for: a config is input, and
# ``voters: 100000000`` would otherwise allocate until the process dies. KRaft clusters have a
# handful of controllers and rarely more than a thousand brokers (raft observers).
NODE_COUNT_BOUNDS = ("voters", "observers", "hosts")
MAX_NODES = 1024  # (building 1024 voters-protocol hosts takes about 5 CPU seconds: init is quadratic)


def check_node_counts(config: dict[str, Any]) -> None:
    """Raise :class:`TraceConfigError` when ``config`` asks for more than ``MAX_NODES`` nodes."""
    def count(key: str) -> int:
        value = config.get(key)
        return max(value, 0) if type(value) is int else 0

    if max(count("hosts"), count("voters") + count("observers")) > MAX_NODES:
        shown = {k: config[k] for k in NODE_COUNT_BOUNDS if k in config}
        text = ", ".join(f"{k}={str(v)[:30]}" for k, v in shown.items())
        raise TraceConfigError(f"{text} asks for more than {MAX_NODES} nodes")


@dataclass(frozen=True, slots=True)
class Violation:
    """Where a replay first failed: the property (or divergence) name and a one-line detail."""

    property: str
    detail: str


_FIELDS: dict[type, tuple[str, ...]] = {}


def fast_encode(value: Any) -> Any:
    """``codec.encode`` with the dataclass field names cached per class: the replay encodes
    every output of every event (differentially tested against ``codec.encode``)."""
    cls = type(value)
    names = _FIELDS.get(cls)
    if names is not None:
        out: dict[str, Any] = {"type": cls.__name__}
        for name in names:
            out[name] = fast_encode(getattr(value, name))
        return out
    if value is None or cls is int or cls is str or cls is bool or cls is float:
        return value
    if cls is tuple or cls is list:
        return [fast_encode(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, Bag | type):
        _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(value))
        return fast_encode(value)
    return encode(value)


_WRITERS: dict[type, Callable[[Any], str]] = {}
_quote = json.encoder.encode_basestring_ascii  # what ``json.dumps`` writes a string as (ensure_ascii)


def json_text(value: Any) -> str:
    """``json.dumps(fast_encode(value))``, the text the trace writer writes for a model value,
    without building the intermediate dicts: a writer compiled once per dataclass (straight-line
    code, one term per field, as ``evolve``'s copiers), ints, strings, None, bools, tuples and
    lists written here, anything else (floats, sets, bags, maps) by ``json.dumps`` itself.
    Differentially tested against ``json.dumps(fast_encode(value))``."""
    cls = type(value)
    writer = _WRITERS.get(cls)
    if writer is not None:
        return writer(value)
    if cls is int:
        return int.__repr__(value)
    if cls is str:
        return _quote(value)
    if value is None:
        return "null"
    if cls is bool:
        return "true" if value else "false"
    if cls is tuple or cls is list:
        return "[" + ", ".join(map(json_text, value)) + "]"
    if dataclasses.is_dataclass(value) and not isinstance(value, Bag | type):
        names = tuple(f.name for f in dataclasses.fields(value))
        if "type" not in names:  # (a field named "type" would replace the class's name in the dict)
            _WRITERS[cls] = _writer(cls, names)
            return _WRITERS[cls](value)
    return json.dumps(fast_encode(value))


def _writer(cls: type, names: tuple[str, ...]) -> Callable[[Any], str]:
    """Compile ``write(obj)`` for ``cls``: the JSON text of ``fast_encode(obj)``."""
    terms = [repr("{" + _quote("type") + ": " + _quote(cls.__name__))]
    for name in names:
        read = f"getattr(o, {name!r})" if name.startswith("__") else f"o.{name}"
        terms.append(repr(", " + _quote(name) + ": "))
        # an int field (the common case) is written here, anything else by json_text
        terms.append(f"(int_repr(v) if type(v := {read}) is int else text(v))")
    terms.append(repr("}"))
    scope: dict[str, Any] = {"int_repr": int.__repr__, "text": json_text}
    exec("def write(o):\n    return " + " + ".join(terms), scope)  # generated from the class's field names
    write: Callable[[Any], str] = scope["write"]
    return write


def same_outputs(recorded: list[Any], model: list[Any]) -> bool:
    """Equal as multisets; the common case (same order) costs one list comparison."""
    return recorded == model or (len(recorded) == len(model) and _canon_outputs(recorded) == _canon_outputs(model))


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _canon_outputs(outputs: list[Any]) -> list[str]:
    return sorted(_canon(o) for o in outputs)


def input_classes(protocol: str) -> dict[str, type]:
    """The classes an event's input may name."""
    return classes_of(protocol)


@functools.cache
def known_actions(protocol: str) -> frozenset[str]:
    """The action names an event of ``protocol`` may carry (its node inputs and network faults)."""
    return frozenset(t.__name__ for t in protocols.get(protocol).event_inputs()) | NETWORK_ACTIONS


def decode_input(protocol: str, event: dict[str, Any]) -> tuple[Any, str | None]:
    """Decode an event's input; (value, None) or (None, the reason it is damage)."""
    action = event["action"]
    if action not in known_actions(protocol):
        return None, f"unknown action {action!r}"
    try:
        value = decode(event["input"], input_classes(protocol))
    except DecodeError as err:
        return None, f"undecodable input: {err}"
    except (TypeError, ValueError, AttributeError) as err:  # e.g. a list where a dataclass's field is hashed
        return None, f"undecodable input: {err}"
    bad = check_value(value)
    if bad is not None:
        return None, f"badly typed input: {bad}"
    if action in NETWORK_ACTIONS:
        if event["node"] is not None:
            return None, f"network action {action} names node {event['node']!r}"
        return value, None
    if type(value).__name__ != action:
        return None, f"input type {type(value).__name__} does not match action {action!r}"
    return value, None


@runtime_checkable
class NodeStepped(Protocol):
    """A system model built over one node step function (raft, voters): events replay on it,
    and its voter set in force at the start decides which majorities the checks count."""

    _step: Callable[..., Any]
    voter_ids: Collection[int]


class NodeReplay:
    """The replay state of one trace: every node's model state and the property history."""

    def __init__(self, protocol: str, config: dict[str, Any]) -> None:
        info = get_protocol(protocol)
        if not isinstance(config, dict):
            raise TraceConfigError("config is not an object")
        try:
            check_node_counts(config)
            model = info.make(**config)
            init = model.init_states()[0]
        except (TypeError, ValueError, ArithmeticError, IndexError, KeyError) as err:
            raise TraceConfigError(f"bad config: {err}") from None
        self.protocol = protocol
        if not isinstance(model, NodeStepped):
            raise TraceConfigError(f"the {protocol} model has no node step to replay events with")
        self.step_fn = model._step  # the model's node step (a variant's in a variant model)
        declared = protocols.get(protocol)
        self.observe = declared.event_observer()
        # the other answers a step may record (RAFT-RULE-VOTE-REASKED), judged on a mismatch only
        self.other_answers = declared.event_other_answers()
        self.nodes: dict[Any, Any] = {n.id: n for n in init.nodes}
        self.voters = frozenset(model.voter_ids)
        # a voter set fixed by the config: majorities are known (NodeEvents.fixed_voters)
        self.check_durable = declared.events is not None and declared.events.fixed_voters
        self.latest: dict[Any, dict[str, Any]] = {i: encode(self.observe(n)) for i, n in self.nodes.items()}
        self.elected: dict[int, Any] = {}
        self.votes: dict[tuple[Any, int], Any] = {}
        self.committed: dict[int, tuple[Any, int]] = {}  # offset -> (entry, lowest epoch it was committed in)
        self.committed_order: list[int] = []  # the offsets of ``committed`` in the order they were added
        # Incremental checks (a log grows; re-checking every committed offset on every event is
        # quadratic in a trace's length): per node, how far its log was checked against the
        # committed entries, and against which log; per leader, for which epoch, how many
        # committed offsets, and which log. A check resumes there when the log still starts
        # with the checked one (the skipped offsets hold the same entries, which passed).
        self.agreed: dict[Any, tuple[int, list[Any]]] = {}
        self.complete: dict[Any, tuple[int, int, list[Any]]] = {}

    def fresh(self) -> NodeReplay:
        """A replay of the same config in its initial state (as a new ``NodeReplay(protocol,
        config)``, without building the model again): the initial node states and
        observations are shared, the history is new. Call it on a replay not yet applied to."""
        new = object.__new__(NodeReplay)
        new.protocol, new.step_fn, new.observe = self.protocol, self.step_fn, self.observe
        new.other_answers = self.other_answers
        new.nodes = dict(self.nodes)
        new.voters, new.check_durable = self.voters, self.check_durable
        new.latest = dict(self.latest)
        new.elected, new.votes, new.committed, new.committed_order = {}, {}, {}, []
        new.agreed, new.complete = {}, {}
        return new

    def has_node(self, node: Any) -> bool:
        return node in self.nodes

    def apply(self, event: dict[str, Any], value: Any) -> tuple[Violation | None, dict[str, Any] | None]:
        """Replay one event; (first violation or None, the model's observation after it)."""
        action = event["action"]
        if action in NETWORK_ACTIONS:
            return None, None
        node = event["node"]
        before = self.nodes[node]
        after, outputs = self.step_fn(before, value)
        self.nodes[node] = after
        raw_obs = self.observe(after)
        recorded = event.get("observation")
        # The observation is plain JSON data already; encode only when it is not.
        model_obs = raw_obs if recorded == raw_obs else encode(raw_obs)
        obs = recorded if isinstance(recorded, dict) else model_obs
        bad = self._properties(node, action, obs)
        if bad is not None:
            return bad, model_obs
        encoded = [fast_encode(o) for o in outputs]
        if not same_outputs(event["outputs"], encoded) and \
                not self.other_answer(before, value, tuple(outputs), event["outputs"]):
            return Violation("Divergence:outputs", _diff_outputs(event["outputs"], encoded)), model_obs
        if recorded is not None and recorded != model_obs:
            return Violation("Divergence:observation", _diff_obs(recorded, model_obs)), model_obs
        return None, model_obs

    def other_answer(self, before: Any, value: Any, outputs: tuple[Any, ...], recorded: list[Any]) -> bool:
        """Whether the recorded outputs (in JSON form), not the model's own, are another answer
        the protocol allows for this step (RAFT-RULE-VOTE-REASKED: ``other_answers``; the state
        after is the model's either way)."""
        if self.other_answers is None:
            return False
        return any(same_outputs(recorded, [fast_encode(o) for o in other])
                   for other in self.other_answers(before, value, outputs))

    # ------------------------------------------------------------ properties over observations

    def _properties(self, node: Any, action: str, obs: dict[str, Any]) -> Violation | None:
        try:
            return self._check(node, action, obs)
        except (KeyError, TypeError, ValueError, IndexError) as err:
            return unreadable(node, err)

    def _check(self, node: Any, action: str, obs: dict[str, Any]) -> Violation | None:
        prev = self.latest[node]
        self.latest[node] = obs
        if obs is prev:
            # The node's observation is the one it had (the same object: a node that waits):
            # everything below that reads only this node's observation passed for it already
            # and would find nothing new; what other nodes' observations decide is checked again.
            log, hw = obs["log"], obs.get("high_watermark")
            if hw and self.check_durable:
                bad = self._durable(node, log, hw)
                if bad is not None:
                    return bad
            return self._complete(node, obs["epoch"], log) if obs["role"] == "leader" else None
        epoch = obs["epoch"]
        if epoch < prev["epoch"]:
            return Violation("EpochMonotonic", f"node {node} epoch {prev['epoch']} -> {epoch}")
        hw, prev_hw = obs.get("high_watermark"), prev.get("high_watermark")
        if action not in RESTART_ACTIONS and hw is not None and prev_hw is not None and hw < prev_hw:
            return Violation("HighWatermarkMonotonic", f"node {node} high watermark {prev_hw} -> {hw}")
        if obs["role"] == "leader" and self.elected.setdefault(epoch, node) != node:
            return Violation("ElectionSafety", f"nodes {self.elected[epoch]} and {node} lead epoch {epoch}")
        voted = obs.get("voted_for")
        if voted is not None and self.votes.setdefault((node, epoch), voted) != voted:
            return Violation("VoteOnce", f"node {node} voted for {self.votes[(node, epoch)]} and {voted} "
                                         f"in epoch {epoch}")
        log = obs["log"]
        if hw:
            upto = min(hw, len(log))
            start = 0
            agreed = self.agreed.get(node)
            if agreed is not None and agreed[0] <= upto and \
                    (agreed[1] is log or log[:agreed[0]] == agreed[1][:agreed[0]]):
                start = agreed[0]
            for offset in range(start, upto):
                entry = tuple(log[offset])
                seen = self.committed.get(offset)
                if seen is None:
                    self.committed[offset] = (entry, epoch)
                    self.committed_order.append(offset)
                elif seen[0] != entry:
                    return Violation("CommittedLogsAgree", f"offset {offset}: {list(seen[0])} and {list(entry)}")
            self.agreed[node] = (upto, log)
            if self.check_durable:
                bad = self._durable(node, log, hw)
                if bad is not None:
                    return bad
        if obs["role"] == "leader":
            return self._complete(node, epoch, log)
        return None

    def _durable(self, node: Any, log: list[Any], hw: int) -> Violation | None:
        """HighWatermarkDurable: a majority of the voters hold the log up to ``hw``."""
        prefix = None  # log[:hw], made when a voter's log is another object
        latest = self.latest
        holders = 0
        for v in self.voters:
            other = latest[v]["log"]
            if other is log:
                holders += 1
                continue
            if prefix is None:
                prefix = log[:hw]
            if other[:hw] == prefix:
                holders += 1
        if len(log) < hw or holders < len(self.voters) // 2 + 1:
            return Violation("HighWatermarkDurable", f"node {node} high watermark {hw} held by "
                                                     f"{holders} of {len(self.voters)} voters")
        return None

    def _complete(self, node: Any, epoch: int, log: list[Any]) -> Violation | None:
        """LeaderCompleteness: a leader holds every entry committed in an earlier epoch."""
        order = self.committed_order
        start = 0
        complete = self.complete.get(node)
        if complete is not None and complete[0] == epoch and \
                (complete[2] is log or log[:len(complete[2])] == complete[2]):
            start = complete[1]
        for k in range(start, len(order)):
            offset = order[k]
            entry, committed_in = self.committed[offset]
            if committed_in < epoch and (offset >= len(log) or tuple(log[offset]) != entry):
                return Violation("LeaderCompleteness", f"leader {node} of epoch {epoch} lacks committed "
                                                       f"offset {offset}")
        self.complete[node] = (epoch, len(order), log)
        return None


def unreadable(node: Any, err: Exception) -> Violation:
    """The violation of an observation the checks cannot read."""
    return Violation("Divergence:observation", f"observation of node {node} unreadable: {err!r}")


def _diff_outputs(recorded: list[Any], model: list[Any]) -> str:
    rec, mod = _canon_outputs(recorded), _canon_outputs(model)
    extra = [o for o in rec if o not in mod]
    missing = [o for o in mod if o not in rec]
    return f"recorded but not allowed: {extra[:2]}; expected but missing: {missing[:2]}"


def _diff_obs(recorded: dict[str, Any], model: dict[str, Any]) -> str:
    keys = sorted(k for k in set(recorded) | set(model) if recorded.get(k) != model.get(k))
    return "; ".join(f"{k}: recorded {recorded.get(k)!r}, model {model.get(k)!r}" for k in keys[:3])


def features(obs: dict[str, Any] | None) -> list[str]:
    """State features of an observation, for coverage: enumerated values as ``key=value``,
    numbers as ``key=0`` / ``key>0``, collections as ``key:empty`` / ``key:nonempty``."""
    if not obs:
        return []
    out = []
    for key, value in obs.items():
        if value is None or isinstance(value, bool | str):
            out.append(f"{key}={value}")
        elif isinstance(value, int):
            out.append(f"{key}>0" if value > 0 else f"{key}={value}")
        elif isinstance(value, list | dict):
            out.append(f"{key}:{'nonempty' if value else 'empty'}")
    return out
