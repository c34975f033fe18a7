"""The KRaft release lines the ``kafka:VERSION`` raft target drives, one row each: the glue that
differs between lines (what ``raft.py`` / ``raft_java.py`` build and read) and where the test
doubles come from when Maven serves no test jar for a release.

What a release line does differently *as a protocol* is not here: the rule set is chosen by the
version alone (``model.raft.rule_sets``: kip-595 to 3.7, kip-853's open vote from 3.8, kip-996
from 4.0), and anything else a release does differently is a catalogued divergence
(``conformance/deviations/raft.toml``), never a row's flag that makes the model agree.

Columns:

- ``config``: how the client's timeouts are given: ``RaftConfig`` (3.3-3.7, the voters'
  addresses in it), ``QuorumConfig`` (3.8-3.9, six ints) or ``QuorumConfig(AbstractConfig)`` (4.x).
- ``initialize``: the arity of ``KafkaRaftClient.initialize`` (0 to 3.7; voters, store and
  metrics from 3.8; and ``ExternalKRaftMetrics`` from 4.0).
- ``check_quorum``: ``LeaderState`` has the check-quorum timer (KIP-595's leader progress
  timeout, implemented by KAFKA-15489 in 3.7.0). Without it, the adapter has no Kafka timer to
  fire at ``CheckQuorumTimeout``: the input is idle, and the model's resignation shows as the
  catalogued deviation ``raft-leader-never-resigns``.
- ``futures``: KAFKA-20714 (4.4) moved request completion out of the messages:
  ``NetworkChannel.send``, ``RaftMessageQueue.add`` and ``KafkaRaftClient.handle`` return a
  ``CompletionStage``. Kafka's 4.3 ``MockNetworkChannel`` and ``MockMessageQueue`` no longer fit
  and 4.4 publishes no test jar, so the adapter's own channel and queue (``raft_io``, which do
  what those doubles do: hold what was sent, hand messages over in order) stand in for them.
- ``test_sources``: the release whose published test sources (``kafka-raft``,
  ``kafka-clients``, classifier ``test-sources``) are compiled against this release's own jars
  when Maven serves no test jar for a release of the line (4.2.2, 4.4.0): ``test_doubles``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kspec.conformance.adapters.base import TargetError
from kspec.conformance.targets.kafka import artifacts


@dataclass(frozen=True, slots=True)
class ReleaseLine:
    """One minor line of Kafka's KRaft (see the module docstring for the columns)."""

    line: tuple[int, int]
    last_patch: str
    config: str
    initialize: int
    check_quorum: bool
    test_sources: str
    futures: bool = False

    @property
    def name(self) -> str:
        return f"{self.line[0]}.{self.line[1]}"


LINES: tuple[ReleaseLine, ...] = (
    ReleaseLine((3, 3), "3.3.2", "RaftConfig", 0, False, "3.3.2"),
    ReleaseLine((3, 4), "3.4.1", "RaftConfig", 0, False, "3.4.1"),
    ReleaseLine((3, 5), "3.5.2", "RaftConfig", 0, False, "3.5.2"),
    ReleaseLine((3, 6), "3.6.2", "RaftConfig", 0, False, "3.6.2"),
    ReleaseLine((3, 7), "3.7.2", "RaftConfig", 0, True, "3.7.2"),
    ReleaseLine((3, 8), "3.8.1", "QuorumConfig", 3, True, "3.8.1"),
    ReleaseLine((3, 9), "3.9.1", "QuorumConfig", 3, True, "3.9.1"),
    ReleaseLine((4, 0), "4.0.2", "QuorumConfig(AbstractConfig)", 4, True, "4.0.2"),
    ReleaseLine((4, 1), "4.1.2", "QuorumConfig(AbstractConfig)", 4, True, "4.1.2"),
    # 4.2.2 and 4.4.0: Maven serves the main jars but no test jar (nor test sources).
    ReleaseLine((4, 2), "4.2.2", "QuorumConfig(AbstractConfig)", 4, True, "4.2.1"),
    ReleaseLine((4, 3), "4.3.1", "QuorumConfig(AbstractConfig)", 4, True, "4.3.1"),
    ReleaseLine((4, 4), "4.4.0", "QuorumConfig(AbstractConfig)", 4, True, "4.3.1", futures=True),
)
BY_LINE: dict[tuple[int, int], ReleaseLine] = {r.line: r for r in LINES}


def supported_lines() -> str:
    """``3.3-4.4`` style summary of the lines, for one-line errors."""
    return f"{LINES[0].name}-{LINES[-1].name} (last patches: {', '.join(r.last_patch for r in LINES)})"


def line_of(version: str) -> ReleaseLine:
    """The release line of ``version``; a one-line TargetError naming the supported lines when
    it is not a Kafka version or not a KRaft line the adapter knows."""
    try:
        artifacts.check_version(version)
        vt = artifacts.version_tuple(version)
    except TargetError:
        raise TargetError(f"kafka:{version}: not a Kafka version; raft runs the KRaft lines "
                          f"{supported_lines()}") from None
    found = BY_LINE.get(vt)
    if found is None:
        raise TargetError(f"kafka:{version}: not supported for raft: the KRaft lines are {supported_lines()}")
    return found


def resolve_jars(version: str, wanted: list[str]) -> list[Path]:
    """The jars of ``wanted`` at ``version``; when Maven serves no test jar for the release, the
    test doubles compiled from the line's ``test_sources`` release (``test_doubles``)."""
    line = line_of(version)
    try:
        return artifacts.resolve(version, wanted)
    except TargetError as err:
        if not any("@test" in a for a in wanted) or ":jar:test:" not in str(err):
            raise
        if line.test_sources == version:
            raise
    from kspec.conformance.targets.kafka import test_doubles

    roots = tuple(r for r in test_doubles.ROOTS if not (line.futures and r in test_doubles.CHANNEL_AND_QUEUE))
    return test_doubles.build(version, wanted, line.test_sources, roots=roots)
