"""The lean replay loop: the same verdicts as :func:`judge.judge_events` on a well-formed trace,
at a fraction of the cost per event; anything unusual goes to ``judge_events`` itself.

A trace takes the fast path when every line is a typed event (``msgspec`` decodes it straight
into :class:`_Event`, leaving ``input``, ``outputs``, ``observation`` and ``config`` as raw
bytes), its steps are exactly 0..n-1, its config builds a model, every input decodes and
type-checks and names a known node. The raw bytes are then decoded through small bounded
caches (a message is the output of one event and the input of the next; a node's observation
repeats while it waits), and the model's outputs are compared as objects with the recorded
outputs decoded once (exact round trips only; anything else is compared in JSON form exactly
as ``NodeReplay.apply`` compares it). Differentially tested against ``judge_events``.
"""

from __future__ import annotations

import dataclasses
import gc
import operator
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

import msgspec

from kspec.conformance.pipeline.classes import classes_of
from kspec.conformance.pipeline.judge import Outcome, RawLine, failed_trace, judge_lines, verdict_row
from kspec.conformance.pipeline.nodes import (
    NETWORK_ACTIONS,
    NodeReplay,
    TraceConfigError,
    Violation,
    _diff_obs,
    _diff_outputs,
    fast_encode,
    features,
    json_text,
    known_actions,
    same_outputs,
    unreadable,
)
from kspec.conformance.pipeline.records import _OBSERVATION_TYPES, is_orphan
from kspec.conformance.pipeline.typed import check_value
from kspec.model.core.codec import DecodeError, decode, encode

_NONE = msgspec.Raw(b"")
CACHE = 4096  # entries per cache: local reuse only (a cache this small never spans a replica)


class _Event(msgspec.Struct, gc=False):  # (str, int, Raw fields: never in a cycle, so never tracked)
    trace: str
    step: int
    node: int | str | None
    action: str
    input: msgspec.Raw
    outputs: msgspec.Raw
    observation: msgspec.Raw = _NONE
    protocol: str | msgspec.UnsetType = msgspec.UNSET
    config: msgspec.Raw = _NONE


_event = msgspec.json.Decoder(_Event)


def decode_event(raw: bytes) -> _Event | None:
    """The line as a typed event, or None when it is not one (the lean loop's first reading of
    a line; its ``trace`` is the line's ``records.trace_key`` when it is not empty)."""
    try:
        return _event.decode(raw)
    except Exception:  # (malformed, badly typed, nested too deeply: the reference path's to judge)
        return None

_ACTION = operator.attrgetter("action")
_any = msgspec.json.Decoder()
_raw_list = msgspec.json.Decoder(list[msgspec.Raw])


class _Value(NamedTuple):
    """A raw JSON object, decoded once: the object (None when it does not decode or is badly
    typed), whether it re-encodes to exactly the recorded JSON, and whether it is an object
    with a string ``type`` at all."""

    obj: Any
    exact: bool
    shaped: bool


class _Caches:
    """Raw bytes -> decoded value; cleared when full (bounded memory). Inputs and outputs share
    one cache of JSON objects: the message one event outputs is the input of another."""

    def __init__(self, protocol: str) -> None:
        self.protocol = protocol
        self.classes = classes_of(protocol)
        self.known = known_actions(protocol)
        self.values: dict[bytes, _Value] = {}
        self.decoders: dict[type, Callable[[dict[str, Any]], tuple[Any, bool]]] = {}
        self.observations: dict[bytes, tuple[Any, tuple[str, ...]]] = {}
        self.output_lists: dict[bytes, tuple[Any, ...] | bool] = {}
        self.templates: dict[bytes, _Template] = {}
        self.memoised = 0  # steps in the templates' memos
        self.feature_sets: dict[tuple[str, ...], tuple[str, ...]] = {}

    def features(self, obs: Any) -> tuple[str, ...]:
        """An observation's coverage features, as one shared tuple per distinct list (the replay
        counts them by the tuple's identity)."""
        names = tuple(features(obs))
        hit = self.feature_sets.get(names)
        if hit is None:
            if len(self.feature_sets) >= CACHE:
                self.feature_sets.clear()
            hit = self.feature_sets[names] = names
        return hit

    def forget_steps(self) -> None:
        for template in self.templates.values():
            template.memo.clear()
        self.memoised = 0

    def value(self, raw: bytes) -> _Value:
        hit = self.values.get(raw)
        if hit is None:
            if len(self.values) >= CACHE:
                self.values.clear()
            data = _any.decode(raw)
            if type(data) is not dict or type(data.get("type")) is not str:
                hit = _Value(None, False, False)
            else:
                cls = self.classes.get(data["type"])
                dec = None if cls is None else self.decoders.get(cls)
                if dec is None and cls is not None:
                    dec = self.decoders[cls] = _decoder(cls, self.classes)
                try:
                    obj, flat = dec(data) if dec is not None else (decode(data, self.classes), False)
                except (DecodeError, TypeError, ValueError, AttributeError):
                    obj, flat = None, False
                if obj is not None and (not dataclasses.is_dataclass(obj) or check_value(obj) is not None):
                    obj = None
                # A flat object with exactly the fields' keys re-encodes to exactly the data.
                exact = obj is not None and (flat or fast_encode(obj) == data)
                hit = _Value(obj, exact, True)
            self.values[raw] = hit
        return hit

    def template(self, config_raw: bytes) -> _Template | None:
        """The replay template of a trace's config (its exact bytes), or None when the config
        does not build a model."""
        hit = self.templates.get(config_raw)
        if hit is None:
            config = _any.decode(config_raw)
            if config is None:
                return None
            try:
                replay = NodeReplay(self.protocol, config)
            except TraceConfigError:
                return None
            if len(self.templates) >= TEMPLATES:
                self.templates.clear()
                self.memoised = 0
            hit = self.templates[config_raw] = _Template(replay)
        return hit

    def remember(self, raw: bytes, obj: Any) -> None:
        """``raw`` is known to be the JSON of ``obj`` as ``codec.encode`` gives it: what
        :meth:`value` would find, unless the object is not one ``decode`` builds by that name
        or fails the type checks (then the bytes are decoded when asked for)."""
        if raw not in self.values and self.classes.get(type(obj).__name__) is type(obj) and check_value(obj) is None:
            if len(self.values) >= CACHE:
                self.values.clear()
            self.values[raw] = _Value(obj, True, True)

    def input(self, action: str, node: Any, raw: bytes) -> Any:
        """The decoded input, or None when ``decode_input`` would not accept it as it is."""
        if action not in self.known:
            return None
        obj = self.value(raw).obj
        if obj is None:
            return None
        if action in NETWORK_ACTIONS:
            return obj if node is None else None
        return obj if type(obj).__name__ == action else None

    def outputs(self, raw: bytes) -> tuple[Any, ...] | bool:
        """The recorded outputs as objects when each round-trips exactly; True when they are
        well formed but must be compared in JSON form; False when they are not a list of
        objects with a ``type`` (damage). Whole lists repeat (``[]``, the same response to the
        same request), so they are cached as they are before their items are."""
        hit = self.output_lists.get(raw)
        if hit is None:
            if len(self.output_lists) >= CACHE:
                self.output_lists.clear()
            hit = self.output_lists[raw] = self._outputs(raw)
        return hit

    def _outputs(self, raw: bytes) -> tuple[Any, ...] | bool:
        objects = []
        exact = True
        for item in _raw_list.decode(raw):
            v = self.value(bytes(item))
            if not v.shaped:
                return False
            exact = exact and v.exact
            objects.append(v.obj)
        return tuple(objects) if exact else True

    def observation(self, raw: bytes) -> tuple[Any, tuple[str, ...]] | None:
        """(the recorded observation, its coverage features), or None when it is badly typed."""
        hit = self.observations.get(raw)
        if hit is None:
            if len(self.observations) >= CACHE:
                self.observations.clear()
            value = _any.decode(raw)
            if value is not None:
                if type(value) is not dict:
                    return None
                for key, (_, ok) in _OBSERVATION_TYPES.items():
                    if key in value and not ok(value[key]):
                        return None
            hit = self.observations[raw] = (value, self.features(value) if value is not None else ())
        return hit


def _decoder(cls: type, classes: dict[str, type]) -> Callable[[dict[str, Any]], tuple[Any, bool]]:
    """``codec.decode`` for one class, compiled: (the object, whether the data was flat, with
    exactly the class's keys). Nested values go through ``codec.decode`` itself."""
    specs = []
    for f in dataclasses.fields(cls):
        optional = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        specs.append((f.name, optional, "frozenset" in str(f.type)))
    keys = len(specs) + 1
    name = cls.__name__

    def dec(data: dict[str, Any]) -> tuple[Any, bool]:
        kwargs: dict[str, Any] = {}
        flat = len(data) == keys
        for field, optional, is_set in specs:
            if field in data:
                value = data[field]
                kind = type(value)
                if kind is list or kind is dict:
                    flat = False
                    value = decode(value, classes)
                    if is_set and type(value) is tuple:
                        value = frozenset(value)
                kwargs[field] = value
            elif optional:
                flat = False
            else:
                raise DecodeError(f"{name} lacks field {field!r}")
        try:
            return cls(**kwargs), flat
        except (TypeError, ValueError) as err:
            raise DecodeError(f"bad {name}: {err}") from None

    return dec


_CACHES: dict[str, _Caches] = {}
FROZEN_TRACES = 256  # traces whose survivors stay out of the collector's passes before it sees them again
_frozen = 0


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector waits while a trace is judged, and what the trace leaves alive (the
    memo's new steps: frozen values, acyclic, freed by reference counting when the memo is
    cleared) is moved out of its generations (``gc.freeze``): otherwise each trace's end
    starts a pass over everything the trace made, and every so often over the whole memo (a
    seventh of the run on the diverse corpus). Every ``FROZEN_TRACES`` traces everything goes
    back to the collector (``gc.unfreeze``), so a cycle left by anything else is still found."""
    global _frozen
    if not gc.isenabled():  # (in a caller that paused it: its business)
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        _frozen += 1
        if _frozen >= FROZEN_TRACES:
            _frozen = 0
            gc.unfreeze()
        else:
            gc.freeze()
        gc.enable()


def judge_lines_fast(protocol: str, key: str, lines: Iterable[tuple[str, RawLine]],
                     events: list[_Event | None] | None = None) -> Outcome:
    """Judge one trace's raw lines: the lean loop when the trace is well formed, else
    :func:`judge_events` on the parsed records (the reference, and the quarantine rules).
    ``events``, when given, are the lines already decoded (:func:`decode_event`), one per line."""
    items = list(lines)
    caches = _CACHES.get(protocol)
    if caches is None:
        caches = _CACHES[protocol] = _Caches(protocol)
    if not is_orphan(key):
        try:
            # The memo and caches keep many small objects alive, which makes the cycle
            # collector's passes long; the replay makes no cycles (frozen values, freed by
            # reference counting), so the collector waits (see collector_paused).
            with collector_paused():
                outcome = _fast(protocol, key, items, caches, events)
        except Exception:  # anything unusual is the reference path's to judge
            outcome = None
        if outcome is not None:
            return outcome
    try:
        return judge_lines(protocol, key, items)
    except Exception as err:  # one trace never ends the run (TRACE-QUARANTINE)
        return failed_trace(key, items, err)


def _fast(protocol: str, key: str, items: list[tuple[str, RawLine]], caches: _Caches,
          decoded: list[_Event | None] | None = None) -> Outcome | None:
    """The verdict, or None when the trace needs the reference path."""
    events: list[tuple[str, int, _Event]] = []
    # Lines come in file order and a writer writes steps in order: then neither sort is needed.
    in_order = True
    first_path = items[0][0] if items else ""
    last_n = -1
    given = iter(decoded) if decoded is not None and len(decoded) == len(items) else None
    for path, (n, raw, damage) in items:
        if damage is not None:
            return None
        if given is not None:
            got = next(given)
            if got is None:  # (a line that does not decode: the reference path's)
                return None
            ev = got
        else:
            if not raw.startswith(b"{") and not raw.strip():
                continue
            ev = _event.decode(raw)
        if ev.trace != key or ev.step < 0 or (ev.protocol is not msgspec.UNSET and ev.protocol != protocol):
            return None
        if in_order and (ev.step != len(events) or n <= last_n or path != first_path):
            in_order = False
        last_n = n
        events.append((path, n, ev))
    if not events:
        return None
    if in_order:
        first_file, first_line = first_path, events[0][1]
        by_step = [e[2] for e in events]
    else:
        events.sort(key=lambda e: (e[0], e[1]))
        first_file, first_line = events[0][0], events[0][1]
        by_step = [e[2] for e in sorted(events, key=lambda e: e[2].step)]
        if any(ev.step != i for i, ev in enumerate(by_step)):
            return None
    config_raw = by_step[0].config
    if config_raw is _NONE or not bytes(config_raw):
        return None
    template = caches.template(bytes(config_raw))
    if template is None:
        return None
    return _replay(key, template, by_step, caches, first_file, first_line)


class _Template:
    """What every trace with one ``config`` (its exact bytes) shares: a replay in its initial
    state to copy, and the memo of the node step. A step's result depends only on the node's
    state and the input (the model's step is a pure function), so a node state reached again
    with the same action and input bytes (a node that waits, the opening moves every trace makes, a trace
    that repeats another) reuses the step, its observation, and the recorded outputs and
    observation bytes found equal to them before. Keys hold the state's identity: states are
    the memo's own objects (the initial ones, then the memo's results), kept alive by it. Each
    state's steps are a short list searched by comparing the action and the input's bytes (a
    state meets few distinct inputs; comparing bytes is cheaper than hashing them)."""

    __slots__ = ("memo", "replay")

    def __init__(self, replay: NodeReplay) -> None:
        self.replay = replay
        self.memo: dict[int, list[_Step]] = {}


class _Step:
    """One memoised node step: the state before and after, the model's outputs and
    observation, and the recorded bytes already found equal to them (None until then)."""

    __slots__ = ("action", "after", "before", "inp", "model_feats", "model_obs", "obs", "obs_feats", "obs_raw",
                 "out_raw", "outputs", "raw_obs", "written")

    def __init__(self, before: Any, action: str, inp: msgspec.Raw, after: Any, outputs: tuple[Any, ...],
                 raw_obs: Any) -> None:
        self.before, self.action, self.inp = before, action, inp
        self.after, self.outputs, self.raw_obs = after, outputs, raw_obs
        self.model_obs: Any = None  # ``encode(raw_obs)``, made when first needed
        self.model_feats: tuple[str, ...] = ()
        # The recorded outputs and observation found equal to the model's (as ``msgspec.Raw``:
        # compared by their bytes without copying them out of the line).
        self.out_raw: msgspec.Raw | None = None
        self.obs_raw: msgspec.Raw | None = None
        self.obs: Any = None  # the recorded observation of ``obs_raw``, decoded, and its features
        self.obs_feats: tuple[str, ...] = ()
        self.written = False  # the two below were tried: recorded bytes are checked against them once

    def model_observation(self, caches: _Caches) -> tuple[Any, tuple[str, ...]]:
        """``encode(raw_obs)`` and its coverage features."""
        if self.model_obs is None:
            self.model_obs = encode(self.raw_obs)
            self.model_feats = caches.features(self.model_obs)
        return self.model_obs, self.model_feats

    def as_written(self, out_raw: msgspec.Raw, caches: _Caches) -> None:
        """Take the recorded outputs as found equal to the model's when they are the bytes the
        trace writer (``conformance/traces/writer.py``: ``json.dumps`` of ``codec.encode``)
        writes for them, without decoding them; and remember each output's bytes as the
        model's object, for the event that takes the message as its input. (Observations
        are decoded: their bytes repeat while a node waits, so their cache mostly hits.)"""
        self.written = True
        items = [json_text(o).encode() for o in self.outputs]
        if b"[" + b", ".join(items) + b"]" == bytes(out_raw):
            self.out_raw = out_raw
            for item, obj in zip(items, self.outputs, strict=True):
                caches.remember(item, obj)


MEMO = 1 << 15  # memoised steps, over all configs; all are forgotten when there are this many
TEMPLATES = 64  # configs remembered


def _well_formed(caches: _Caches, ev: _Event, nodes: dict[Any, Any]) -> bool:
    """What the lean loop asks of an event before replaying it (``judge_events`` would not
    quarantine it): its input decodes to its action's class and names a known node, its
    observation and outputs are well typed."""
    if caches.input(ev.action, ev.node, bytes(ev.input)) is None:
        return False
    if ev.action not in NETWORK_ACTIONS and ev.node not in nodes:
        return False
    if ev.observation is not _NONE and caches.observation(bytes(ev.observation)) is None:
        return False
    return caches.outputs(bytes(ev.outputs)) is not False


def _replay(key: str, template: _Template, by_step: list[_Event], caches: _Caches, file: str,
            line: int) -> Outcome | None:
    """``NodeReplay.apply`` event by event over memoised steps, with outputs compared as
    objects (or as the bytes found equal before). Coverage features are counted per distinct
    observation and expanded at the end. None when an event is not well formed (every event
    is looked at, also after a violation: such a trace is the reference path's)."""
    replay = template.replay.fresh()
    memo = template.memo
    nodes = replay.nodes
    step_fn, observe = replay.step_fn, replay.observe
    check = replay._check  # (``NodeReplay._properties`` without its frame: the same exceptions caught below)
    # Coverage features per distinct tuple, keyed by its identity (the tuples are the caches'
    # and the memo's; each is held here with its count, so an identity is never reused meanwhile).
    seen_feats: dict[int, list[Any]] = {}
    observed: dict[Any, _Step] = {}  # per node, the step that gave its state
    n = len(by_step)
    for step, ev in enumerate(by_step):
        action = ev.action
        if action in NETWORK_ACTIONS:
            if not _well_formed(caches, ev, nodes):
                return None
            continue
        node = ev.node
        before = nodes.get(node)
        if before is None:
            return None
        inp_raw = ev.input
        entry = None
        steps = memo.get(id(before))
        if steps is not None:
            if steps[0].before is before:  # (else the identity is another object's: a new state)
                for known in steps:
                    if known.inp == inp_raw and known.action == action:
                        entry = known
                        break
            else:
                steps = None
        if entry is None:
            value = caches.input(action, node, bytes(inp_raw))
            if value is None:
                return None
            after, outputs = step_fn(before, value)
            # A step that leaves the node as it was (an ignored message) leaves its observation.
            last = observed.get(node)
            raw_obs = last.raw_obs if last is not None and last.after is after else observe(after)
            entry = _Step(before, action, inp_raw, after, tuple(outputs), raw_obs)
            if caches.memoised >= MEMO:  # one bound for the memos of every config (bounded memory)
                caches.forget_steps()
                steps = None
            if steps is None:
                memo[id(before)] = [entry]
            else:
                steps.append(entry)
            caches.memoised += 1
        nodes[node] = entry.after
        observed[node] = entry
        if not entry.written:  # a new step: are the recorded outputs the model's, as the writer writes them?
            entry.as_written(ev.outputs, caches)
        # The recorded observation: the bytes found equal to the model's before, or decoded.
        recorded: Any = None
        rec_feats: tuple[str, ...] = ()
        obs_raw: msgspec.Raw | None = None
        verified = False
        if ev.observation is not _NONE:
            obs_raw = ev.observation
            if obs_raw == entry.obs_raw:
                recorded, rec_feats, verified = entry.obs, entry.obs_feats, True
            else:
                observation = caches.observation(bytes(obs_raw))
                if observation is None:
                    return None
                recorded, rec_feats = observation
        model_obs: Any
        if verified or recorded == entry.raw_obs:
            model_obs = recorded if verified else entry.raw_obs  # (verified: found equal before)
        else:
            model_obs, rec_feats = entry.model_observation(caches)
        counted = seen_feats.get(id(rec_feats))
        if counted is None:
            seen_feats[id(rec_feats)] = [rec_feats, 1]
        else:
            counted[1] += 1
        obs = recorded if isinstance(recorded, dict) else model_obs
        bad: Violation | None
        try:
            bad = check(node, action, obs)
        except (KeyError, TypeError, ValueError, IndexError) as err:
            bad = unreadable(node, err)
        if bad is None:
            out_raw = ev.outputs
            if out_raw != entry.out_raw:
                rec_objects = caches.outputs(bytes(out_raw))
                if rec_objects is False:
                    return None
                model_outputs = entry.outputs
                if rec_objects is True or not (rec_objects == model_outputs or
                                               (len(rec_objects) == len(model_outputs) and
                                                Counter(rec_objects) == Counter(model_outputs))):
                    rec_values = _any.decode(bytes(out_raw))
                    encoded = [fast_encode(o) for o in model_outputs]
                    if not same_outputs(rec_values, encoded) and \
                            not replay.other_answer(entry.before, caches.input(action, node, bytes(inp_raw)),
                                                    model_outputs, rec_values):
                        bad = Violation("Divergence:outputs", _diff_outputs(rec_values, encoded))
                if bad is None:
                    entry.out_raw = out_raw
            if bad is None and recorded is not None and recorded != model_obs:
                bad = Violation("Divergence:observation", _diff_obs(recorded, model_obs))
            if bad is None and obs_raw is not None and isinstance(recorded, dict):
                entry.obs_raw, entry.obs, entry.obs_feats = obs_raw, recorded, rec_feats
        if bad is not None:
            # The reference path takes any trace with an event it would not replay, also after this one.
            if not all(_well_formed(caches, e, nodes) for e in by_step[step + 1:]):
                return None
            return Outcome(verdict_row(key, "violating", n, file, line, step, bad.property, action, bad.detail),
                           [], dict(Counter(map(_ACTION, by_step[:step + 1]))), _features(seen_feats))
    return Outcome(verdict_row(key, "valid", n, file, line), [], dict(Counter(map(_ACTION, by_step))),
                   _features(seen_feats))


def _features(seen: dict[int, list[Any]]) -> dict[str, int]:
    feats: dict[str, int] = {}
    get = feats.get
    for names, count in seen.values():
        for name in names:
            feats[name] = get(name, 0) + count
    return feats
