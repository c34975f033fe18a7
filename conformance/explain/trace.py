"""The one shape every explained trace takes: participants, and per step the arrows between
them, the notes on a lifeline, the state changes and whether the step is where it failed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from kspec.conformance.explain.values import Change

# deliver: a message arrives; send: a node emits a message; drop / duplicate: the network
# loses or copies one; missing / extra: at a lockstep divergence, what only the model or only
# the target sent; flow: a non-message interaction (an MM2 flow replicating between clusters).
ArrowStyle = Literal["deliver", "send", "drop", "duplicate", "missing", "extra", "flow"]


@dataclass(frozen=True, slots=True)
class Arrow:
    src: str
    dst: str
    label: str
    style: ArrowStyle = "deliver"


@dataclass(slots=True)
class Step:
    """One step: ``index`` as the source numbers it (state traces count transitions from 1)."""

    index: int
    title: str
    actor: str | None
    arrows: list[Arrow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    failed: bool = False
    # At a lockstep divergence: where the target's observation differs from the model's
    # (``before`` is the model's value, ``after`` the target's).
    mismatch: list[Change] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.index,
            "action": self.title,
            "node": self.actor,
            "arrows": [{"src": a.src, "dst": a.dst, "label": a.label, "style": a.style} for a in self.arrows],
            "notes": self.notes,
            "changes": [c.text() for c in self.changes],
            "failed": self.failed,
            "mismatch": [c.text() for c in self.mismatch],
        }


@dataclass(slots=True)
class Trace:
    """A trace to explain. ``failure`` says what went wrong (None for a trace that holds)."""

    source: str
    format: str
    protocol: str | None
    title: str
    meta: dict[str, str]
    participants: list[str]
    steps: list[Step]
    initial: Any = None
    failure: str | None = None
    failed_step: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "format": self.format,
            "protocol": self.protocol,
            "title": self.title,
            "meta": self.meta,
            "participants": self.participants,
            "failure": self.failure,
            "failed_step": self.failed_step,
            "steps": len(self.steps),
            "timeline": [s.to_json() for s in self.steps],
        }
