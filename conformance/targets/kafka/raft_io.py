"""The network channel and message queue for release lines whose request completion is a
returned ``CompletionStage`` (KAFKA-20714, 4.4: ``raft_releases.ReleaseLine.futures``).

Up to 4.3 the adapter uses Kafka's own ``MockNetworkChannel`` and ``MockMessageQueue``, and a
message carries its ``completion`` future. 4.4 returns the future from ``NetworkChannel.send``,
``RaftMessageQueue.add`` and ``KafkaRaftClient.handle`` instead, publishes no test jar, and 4.3's
doubles do not compile against it. These two do what those doubles do and nothing more:

- :func:`channel`: ``send`` keeps the request with a new future; ``drainSendQueue`` hands the
  requests over (as ``MockNetworkChannel.drainSendQueue``) and :func:`complete` completes the
  future of a drained request (as ``mockReceive``; a second completion is ignored, as
  ``CompletableFuture.complete`` ignores it).
- :func:`queue`: ``add`` appends the message with a new future; ``poll`` never blocks and gives
  the oldest entry (as ``MockMessageQueue``).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from kspec.conformance.targets.kafka.raft_java import RAFT
from kspec.conformance.targets.kafka.raft_java import Java as _Java

_CLASSES: dict[str, Any] = {}


def _classes() -> dict[str, Any]:
    """The proxy classes, made once per process (a JPype proxy class per node would pile up)."""
    if _CLASSES:
        return _CLASSES
    import jpype

    future_cls = jpype.JClass("java.util.concurrent.CompletableFuture")
    optional = jpype.JClass("java.util.Optional")

    @jpype.JImplements(f"{RAFT}.RaftMessageQueue$QueueEntry")
    class Entry:
        def __init__(self, message: Any) -> None:
            self.msg, self.fut = message, future_cls()

        @jpype.JOverride
        def message(self) -> Any:
            return self.msg

        @jpype.JOverride
        def future(self) -> Any:
            return self.fut

    @jpype.JImplements(f"{RAFT}.RaftMessageQueue")
    class Queue:
        def __init__(self) -> None:
            self.entries: deque[Any] = deque()

        @jpype.JOverride
        def poll(self, timeout_ms: Any) -> Any:
            return optional.of(self.entries.popleft()) if self.entries else optional.empty()

        @jpype.JOverride
        def add(self, message: Any) -> Any:
            entry = Entry(message)
            self.entries.append(entry)
            return entry.fut

        @jpype.JOverride
        def isEmpty(self) -> bool:
            return not self.entries

        @jpype.JOverride
        def wakeup(self) -> None:
            """Nothing blocks in ``poll``: nothing to wake."""

    @jpype.JImplements(f"{RAFT}.NetworkChannel")
    class Channel:
        def __init__(self, listener: Any) -> None:
            self.listener, self.next_id = listener, 0
            self.sent: list[tuple[Any, Any]] = []
            self.awaiting: dict[int, Any] = {}

        @jpype.JOverride
        def newCorrelationId(self) -> int:
            self.next_id += 1
            return self.next_id - 1

        @jpype.JOverride
        def send(self, request: Any) -> Any:
            fut = future_cls()
            self.sent.append((request, fut))
            return fut

        @jpype.JOverride
        def listenerName(self) -> Any:
            return self.listener

        @jpype.JOverride
        def close(self) -> None:
            """No connections to close."""

        def drainSendQueue(self) -> list[Any]:
            out = [r for r, _ in self.sent]
            for r, fut in self.sent:
                self.awaiting[int(r.correlationId())] = fut
            self.sent = []
            return out

    _CLASSES.update(Queue=Queue, Channel=Channel)
    return _CLASSES


def channel(java: _Java) -> Any:
    return _classes()["Channel"](java.listener)


def queue() -> Any:
    return _classes()["Queue"]()


def release(*objects: Any) -> None:
    """Empty the channels and queues among ``objects`` (others are left alone). Each holds Java
    futures whose callbacks reach the client, and the client holds the proxy that reaches back
    to the Python object: a cycle across the JPype boundary that neither garbage collector
    frees, which keeps every dropped client's 8 MB batch buffer (a 256 MB heap is full after
    some 40 runs). Emptying them cuts the cycle."""
    if not _CLASSES:
        return
    for obj in objects:
        if isinstance(obj, _CLASSES["Channel"]):
            obj.sent, obj.awaiting = [], {}
        elif isinstance(obj, _CLASSES["Queue"]):
            obj.entries.clear()


def complete(chan: Any, request: Any, response: Any) -> None:
    """Complete the future of ``request`` (drained from ``chan``) with ``response``."""
    fut = chan.awaiting.pop(int(request.correlationId()), None)
    if fut is not None:
        fut.complete(response)
