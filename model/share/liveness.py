"""Share coordinator liveness: a share-partition leader's write is eventually answered.

The system model answers a request in the step that sends it, so liveness needs the
client's side: a write a leader has sent and not yet had a final answer to. A retriable
answer (COORDINATOR_NOT_AVAILABLE: the coordinator partition is not loaded) sends it again;
any other answer, success or error, is final (spec/share.md §Liveness).

Suffix (SHARE-LIVE-FAULTS-STOP): no fail-over starts (``Unload``), no new leader, no new
initialize; a new shard's ``Load`` and the client's retry are weakly fair. A leader may send
a write in any state (not fair: it need not), and at most one write is pending.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kspec.model.core.liveness import LivenessProperty
from kspec.model.share.shard import COORDINATOR_NOT_AVAILABLE
from kspec.model.share.system import Load, ShareSystem, SysState, Write

RETRIABLE = frozenset({COORDINATOR_NOT_AVAILABLE})


@dataclass(frozen=True, slots=True)
class Pending:
    """The system with the write a leader waits on (None: nothing pending)."""

    system: SysState
    pending: Write | None = None


@dataclass(frozen=True, slots=True)
class Send:
    """The leader sends (or, after a retriable answer, sends again) its pending write."""


@dataclass(frozen=True, slots=True)
class Issue:
    """The leader starts a write (it waits for the answer)."""

    write: Write


class ShareSuffix:
    """The share suffix (module docstring); ``model.next_state`` answers each send."""

    def __init__(self, model: ShareSystem) -> None:
        self.model = model

    def enter(self, state: SysState) -> Pending:
        return Pending(replace(state, failovers=0))

    def canonical(self, state: Pending) -> Pending:
        return state

    def within_bounds(self, state: Pending) -> bool:
        return self.model.within_bounds(state.system)

    def fair_class(self, action: Any) -> Hashable | None:
        return None if isinstance(action, Issue) else action

    def deferred(self, state: Pending) -> Iterator[Any]:
        return iter(())

    def actions(self, state: Pending) -> Iterator[Any]:
        s = state.system
        if not s.shard.active:
            yield Load()
        if state.pending is not None:
            yield Send()
            return
        for a in self.model.actions(s):
            if isinstance(a, Write):
                yield Issue(a)

    def next_state(self, state: Pending, action: Any) -> Pending | None:
        s = state.system
        if isinstance(action, Load):
            nxt = self.model.next_state(s, action)
            return None if nxt is None else Pending(nxt, state.pending)
        if isinstance(action, Issue):
            return None if state.pending is not None else Pending(s, action.write)
        if isinstance(action, Send) and state.pending is not None:
            nxt = self.model.next_state(s, state.pending)
            if nxt is None:
                return None
            return Pending(nxt, state.pending if nxt.last_error in RETRIABLE else None)
        return None

    def properties(self) -> Sequence[LivenessProperty[Pending, Any]]:
        return SHARE_LIVENESS

    def describe_state(self, state: Any) -> str:
        if isinstance(state, Pending):
            waiting = "-" if state.pending is None else self.model.describe_action(state.pending)
            return f"{self.model.describe_state(state.system)}\npending write: {waiting}"
        return self.model.describe_state(state)

    def describe_action(self, action: Any) -> str:
        if isinstance(action, Issue):
            return "sends: " + self.model.describe_action(action.write)
        if isinstance(action, Send):
            return "sends its pending write (again)"
        return self.model.describe_action(action)


def pending_write(s: Pending) -> frozenset[Hashable]:
    """The write a leader waits on, if any."""
    return frozenset() if s.pending is None else frozenset({"write"})


SHARE_LIVENESS: tuple[LivenessProperty[Pending, Any], ...] = (
    LivenessProperty("SHARE-LIVE-WRITE-ANSWERS", "WriteEventuallyAnswered", "not_stuck", pending_write,
                     "Once fail-overs stop, a leader's write is eventually answered with a final answer."),
)


def make_suffix(model: ShareSystem) -> ShareSuffix:
    """``ProtocolInfo.liveness`` for share."""
    return ShareSuffix(model)


# ---------------------------------------------------------------- variants


class _LoadNeverCompletes(ShareSystem):
    """A new shard never finishes loading the coordinator partition (its replay fails)."""

    def next_state(self, state: SysState, action: Any) -> SysState | None:
        if isinstance(action, Load):
            return state
        return super().next_state(state, action)


class _UninitializedIsRetriable(ShareSystem):
    """A write to a share-partition the group coordinator has not initialized is answered
    COORDINATOR_NOT_AVAILABLE (retriable) instead of INVALID_REQUEST: the leader retries forever."""

    def next_state(self, state: SysState, action: Any) -> SysState | None:
        nxt = super().next_state(state, action)
        if isinstance(action, Write) and nxt is not None and nxt.last_error == "INVALID_REQUEST":
            return replace(nxt, last_error=COORDINATOR_NOT_AVAILABLE)
        return nxt


class _FencedIsRetriable(ShareSystem):
    """A fenced write (an older leader or state epoch) is answered COORDINATOR_NOT_AVAILABLE,
    so the stale leader retries forever instead of learning it is fenced."""

    def next_state(self, state: SysState, action: Any) -> SysState | None:
        nxt = super().next_state(state, action)
        if isinstance(action, Write) and nxt is not None and nxt.last_error.startswith("FENCED"):
            return replace(nxt, last_error=COORDINATOR_NOT_AVAILABLE)
        return nxt


LIVENESS_VARIANTS: dict[str, tuple[type[ShareSystem], dict[str, Any]]] = {
    "load-never-completes": (_LoadNeverCompletes, {}),
    "uninitialized-write-retriable": (_UninitializedIsRetriable, {}),
    "fenced-write-retriable": (_FencedIsRetriable, {}),
}


def _factory(cls: type[ShareSystem]) -> Any:
    def make(**bounds: Any) -> ShareSystem:
        return cls(**bounds)

    return make


VARIANTS: dict[str, Any] = {name: _factory(cls) for name, (cls, _) in LIVENESS_VARIANTS.items()}
