"""The node-level target interface every conformance target implements.

The harness drives one *instance* per protocol node (a KRaft replica, a share coordinator
shard, ...). Everything crossing the interface is plain JSON as produced by
``kspec.model.core.codec.encode``: an input is an object with a ``type`` naming the model's
input class (``VoteRequest``, ``ElectionTimeout``, ``WriteRequest`` ...) and its fields; the
target answers with its outputs (messages, effects, records, responses; same encoding) and an
observation (the protocol's observation dict, as the model's ``observe`` returns it). Because
the interface is JSON, an in-process Python target and an out-of-process program speaking
JSON Lines (``spec/adapter-protocol.md``) are interchangeable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

JSON = Any


@dataclass(frozen=True, slots=True)
class StepResult:
    """What a target returns for one input."""

    outputs: list[JSON] = field(default_factory=list)
    observation: dict[str, JSON] = field(default_factory=dict)


class TargetError(Exception):
    """The target crashed, hung, raised or answered something malformed.

    The harness turns it into verdict ``error`` naming the step and this reason.
    """


class Instance(Protocol):
    """One running node of a target (one replica, one shard)."""

    def step(self, inp: JSON) -> StepResult:
        """Apply one input; return the outputs in order and the observation after it."""
        ...

    def close(self) -> None:
        """Release the node's resources."""
        ...


class Target(Protocol):
    """A target implementation of one protocol: a factory of node instances."""

    name: str
    protocol: str
    # A target may also have ``unsupported``: the driver's action categories it does not
    # implement (Kafka 4.0's share coordinator has no InitializeRequest, for instance). The
    # lockstep machine then never chooses an action of those categories; by default every
    # category is driven.

    def start(self, node: int, config: dict[str, JSON]) -> Instance:
        """Start node ``node`` with the protocol's configuration (for raft: ``voters``,
        ``pre_vote``; for share: the shard's settings). The instance begins in the model's
        initial node state."""
        ...

    def close(self) -> None:
        """Stop every instance and release shared resources (a JVM, a child process)."""
        ...
