"""What a lockstep run records and how it ends: the step records a counterexample file stores,
the finding that ended the run, and the two ways a run ends early (a :class:`Divergence`, which
Hypothesis shrinks, and a :class:`TargetFailure`, which it does not)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from kspec.conformance.adapters.base import JSON


def norm(value: Any) -> JSON:
    """Plain JSON (tuples become lists, keys strings), so equal values compare equal."""
    return json.loads(json.dumps(value, sort_keys=True))


@dataclass
class StepRecord:
    """One step of a lockstep run, as the counterexample file stores it."""

    index: int
    action: str
    node: Any = None
    input: JSON = None
    model_outputs: JSON = None
    target_outputs: JSON = None
    model_observation: JSON = None
    target_observation: JSON = None
    # Other output lists the model allows at this step (Event.alternatives); None: only its own.
    model_alternatives: JSON = None

    def to_json(self) -> dict[str, JSON]:
        doc: dict[str, JSON] = {
            "step": self.index, "action": self.action, "node": self.node, "input": self.input,
            "model_outputs": self.model_outputs, "target_outputs": self.target_outputs,
            "model_observation": self.model_observation, "target_observation": self.target_observation}
        if self.model_alternatives:
            doc["model_alternatives"] = self.model_alternatives
        return doc

    @staticmethod
    def from_json(doc: dict[str, JSON]) -> StepRecord:
        return StepRecord(doc["step"], doc.get("action", ""), doc.get("node"), doc.get("input"),
                          doc.get("model_outputs"), doc.get("target_outputs"), doc.get("model_observation"),
                          doc.get("target_observation"), doc.get("model_alternatives") or None)


@dataclass
class Finding:
    """What ended a run: a divergence (outputs, observation, property) or a target error."""

    kind: str  # "outputs" | "order" | "observation" | "property" | "liveness" | "error"
    step: int
    field: str
    detail: str

    def to_json(self) -> dict[str, JSON]:
        return {"kind": self.kind, "step": self.step, "field": self.field, "detail": self.detail}

    def same_as(self, other: dict[str, JSON] | Finding | None) -> bool:
        """Same step, kind and field (the detail may quote values that differ in form)."""
        if other is None:
            return False
        o = other.to_json() if isinstance(other, Finding) else other
        return (self.step, self.kind, self.field) == (o.get("step"), o.get("kind"), o.get("field"))

    def line(self) -> str:
        return f"step {self.step}: {self.kind} {self.field}: {self.detail}"


class Divergence(AssertionError):
    """The target left the model's allowed behaviour. Hypothesis shrinks these."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.line())
        self.finding = finding


class TargetFailure(BaseException):
    """The target crashed, hung or answered malformed output.

    A BaseException on purpose: Hypothesis does not catch it, so a hanging target is not run
    again hundreds of times while shrinking; the run stops at once with what it recorded.
    """

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.line())
        self.finding = finding
