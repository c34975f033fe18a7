"""KRaft's messages, timer inputs and effects: closed unions of small frozen classes.

Every message names its source and destination replica. Error codes are Kafka's names
(``Errors`` in Kafka's clients). Offsets are Kafka's: exclusive end offsets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ErrorCode = Literal["NONE", "FENCED_LEADER_EPOCH", "UNKNOWN_LEADER_EPOCH", "NOT_LEADER_OR_FOLLOWER",
                    "INCONSISTENT_VOTER_SET", "INVALID_REQUEST", "UNKNOWN_TOPIC_OR_PARTITION", "SNAPSHOT_NOT_FOUND",
                    "INVALID_VOTER_KEY"]


@dataclass(frozen=True, slots=True)
class Entry:
    """A log record: the epoch it was written in, its kind and an optional payload.

    ``kind`` is ``leader_change`` (the control record a new leader writes at its epoch start
    offset), ``data`` (a client append) or a control-record kind another module adds
    (``kraft_version``, ``voters`` in the voter-set model).
    """

    epoch: int
    kind: str = "data"
    payload: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class VoteRequest:
    """A candidate (or, with ``pre_vote``, a prospective) asks for a vote (RAFT-MSG-VOTE)."""

    src: int
    dst: int
    epoch: int
    last_epoch: int
    end_offset: int
    pre_vote: bool = False
    orphaned: bool = False


@dataclass(frozen=True, slots=True)
class VoteResponse:
    """The answer to a VoteRequest; ``epoch`` is the responder's epoch (RAFT-MSG-VOTE)."""

    src: int
    dst: int
    epoch: int
    granted: bool
    leader: int | None
    pre_vote: bool = False
    error: ErrorCode = "NONE"


@dataclass(frozen=True, slots=True)
class BeginQuorumEpochRequest:
    """A new leader announces its epoch to the voters (RAFT-MSG-BEGIN-EPOCH)."""

    src: int
    dst: int
    epoch: int
    orphaned: bool = False


@dataclass(frozen=True, slots=True)
class _LeaderAnswer:
    """What the answers to BeginQuorumEpoch, EndQuorumEpoch and Fetch carry first: the
    responder's epoch and leader, and an error."""

    src: int
    dst: int
    epoch: int
    leader: int | None
    error: ErrorCode = "NONE"


@dataclass(frozen=True, slots=True)
class BeginQuorumEpochResponse(_LeaderAnswer):
    """The answer to BeginQuorumEpoch (RAFT-MSG-BEGIN-EPOCH)."""


@dataclass(frozen=True, slots=True)
class EndQuorumEpochRequest:
    """A resigning leader tells the voters to elect a successor (RAFT-MSG-END-EPOCH)."""

    src: int
    dst: int
    epoch: int
    preferred: tuple[int, ...] = ()
    orphaned: bool = False


@dataclass(frozen=True, slots=True)
class EndQuorumEpochResponse(_LeaderAnswer):
    """The answer to EndQuorumEpoch (RAFT-MSG-END-EPOCH)."""


@dataclass(frozen=True, slots=True)
class FetchRequest:
    """A follower or observer pulls records from ``fetch_offset`` (RAFT-MSG-FETCH)."""

    src: int
    dst: int
    epoch: int
    fetch_offset: int
    last_fetched_epoch: int
    orphaned: bool = False


@dataclass(frozen=True, slots=True)
class FetchResponse(_LeaderAnswer):
    """The leader's answer: records from ``offset`` and its high watermark, or a diverging
    epoch ``(epoch, end_offset)`` to truncate to, or an error with the responder's view of
    the epoch and leader (RAFT-MSG-FETCH)."""

    offset: int = 0
    entries: tuple[Entry, ...] = ()
    high_watermark: int | None = None
    diverging: tuple[int, int] | None = None
    # KIP-630: the fetch is below the leader's log start (its records are in a snapshot only):
    # the id ``(end offset, epoch)`` of the leader's latest snapshot, and no records
    # (RAFT-RULE-FETCH-SNAPSHOT-ID). None in every other answer.
    snapshot_id: tuple[int, int] | None = None


# The topic/partition list of a leader-only request as it is on the wire: (topic name, partition
# indexes) per topic. ``OWN_TOPIC`` names the replica's own topic (Kafka's ``__cluster_metadata``;
# the adapter spells it as the release does), any other name a topic the replica does not hold.
# A well-formed request names exactly one topic with exactly one partition.
TopicPartitions = tuple[tuple[str, tuple[int, ...]], ...]
OWN_TOPIC = "raft"
OWN_PARTITION: TopicPartitions = ((OWN_TOPIC, (0,)),)


@dataclass(frozen=True, slots=True)
class FetchSnapshotRequest:
    """A follower or observer asks the leader for a chunk of snapshot ``snapshot_id`` (its end
    offset and epoch) from byte ``position`` (KIP-630, RAFT-MSG-FETCH-SNAPSHOT). ``epoch`` is the
    current leader epoch every partition of ``topics`` carries."""

    src: int
    dst: int
    epoch: int
    snapshot_id: tuple[int, int] = (1, 0)
    position: int = 0
    topics: TopicPartitions = OWN_PARTITION
    orphaned: bool = False


@dataclass(frozen=True, slots=True)
class FetchSnapshotResponse:
    """The answer to FetchSnapshot: an error with the responder's epoch and leader, or, for a
    request refused before its partition is found (INVALID_REQUEST, UNKNOWN_TOPIC_OR_PARTITION),
    with neither (``None``: Kafka's -1); a leader that holds the snapshot answers ``NONE`` with
    it (RAFT-MSG-FETCH-SNAPSHOT, only where the replicas take snapshots: bound ``max_snapshots``)."""

    src: int
    dst: int
    epoch: int | None
    leader: int | None
    error: ErrorCode = "NONE"
    # KIP-630: with ``NONE``, the snapshot asked for, whole (one response carries it from
    # position 0; how Kafka chunks it is not part of the contract): its id and the records it
    # stands for (RAFT-RULE-FETCH-SNAPSHOT-DATA). The model's snapshot is the committed prefix
    # of the log it summarises, so its contents are those records.
    snapshot_id: tuple[int, int] | None = None
    entries: tuple[Entry, ...] = ()


@dataclass(frozen=True, slots=True)
class DescribeQuorumRequest:
    """An administrator asks a replica for the quorum's state (KIP-595, KIP-836,
    RAFT-MSG-DESCRIBE-QUORUM); leader-only. It carries no epoch."""

    src: int
    dst: int
    orphaned: bool = False


@dataclass(frozen=True, slots=True)
class DescribeQuorumResponse:
    """The leader's view of the quorum: its id, epoch and high watermark (``None``: unknown,
    Kafka's -1) and each voter's log end offset as the leader last saw it (-1: none yet), by
    voter id; a non-leader's answer is the error alone (RAFT-MSG-DESCRIBE-QUORUM)."""

    src: int
    dst: int
    error: ErrorCode = "NONE"
    leader: int | None = None
    epoch: int | None = None
    high_watermark: int | None = None
    voters: tuple[tuple[int, int], ...] = ()


# ``orphaned`` (requests only) is the system model's mark, not a wire field: the sender changed
# state (or crashed, or was answered) since it sent the request, so, as Kafka's request manager
# no longer expects the answer, the recipient handles the request but its response is not put
# in flight (spec/raft.md, RAFT-MODEL-IGNORED-RESPONSES). A replica's step never reads it.
# FetchSnapshot and DescribeQuorum are leader-only requests a replica answers without changing
# its state (RAFT-RULE-LEADER-ONLY), which the driver injects; an answer to an injected one is
# never put in flight (it goes to the driver). A FetchSnapshot a replica sends itself (KIP-630,
# only where replicas take snapshots) is in flight like a Fetch (``SnapshotMessage``).
LeaderOnlyRequest = FetchSnapshotRequest | DescribeQuorumRequest
LeaderOnlyResponse = FetchSnapshotResponse | DescribeQuorumResponse
Request = VoteRequest | BeginQuorumEpochRequest | EndQuorumEpochRequest | FetchRequest
Response = VoteResponse | BeginQuorumEpochResponse | EndQuorumEpochResponse | FetchResponse
# A replica's own FetchSnapshot (KIP-630: sent after a FetchResponse named a snapshot) is a
# message of the system model too, in flight like a Fetch (RAFT-RULE-FETCH-SNAPSHOT-ID).
SnapshotMessage = FetchSnapshotRequest | FetchSnapshotResponse
# The messages the cross-role epoch rules handle (KIP-595's four exchanges).
QuorumMessage = Request | Response
Message = QuorumMessage | SnapshotMessage

MESSAGE_TYPES: tuple[type, ...] = (
    VoteRequest, VoteResponse, BeginQuorumEpochRequest, BeginQuorumEpochResponse,
    EndQuorumEpochRequest, EndQuorumEpochResponse, FetchRequest, FetchResponse,
)
# The messages a replica of the system model puts in flight: MESSAGE_TYPES, and the snapshot
# exchange where replicas take snapshots.
IN_FLIGHT_TYPES: tuple[type, ...] = (*MESSAGE_TYPES, FetchSnapshotRequest, FetchSnapshotResponse)
LEADER_ONLY_TYPES: tuple[type, ...] = (FetchSnapshotRequest, FetchSnapshotResponse, DescribeQuorumRequest,
                                       DescribeQuorumResponse)


# Timer and environment inputs. Time is abstracted: a timer input means "the timer expired".


@dataclass(frozen=True, slots=True)
class ElectionTimeout:
    """The election timer expired (unattached, voted, candidate, prospective, resigned)."""


@dataclass(frozen=True, slots=True)
class BackoffExpired:
    """A candidate's election backoff elapsed (RAFT-RULE-BACKOFF)."""


@dataclass(frozen=True, slots=True)
class FetchTimeout:
    """A follower heard nothing from its leader for the fetch timeout (RAFT-RULE-FETCH-TIMEOUT)."""


@dataclass(frozen=True, slots=True)
class CheckQuorumTimeout:
    """A leader's check-quorum timer expired: no majority fetched within the fetch timeout
    (RAFT-RULE-CHECK-QUORUM)."""


@dataclass(frozen=True, slots=True)
class FetchDue:
    """The replica may send its next Fetch, to ``to`` (its leader, or any voter for an
    unattached observer)."""

    to: int


@dataclass(frozen=True, slots=True)
class ResendDue:
    """The replica may send its role's request again to ``to``, which has not answered it
    (RAFT-RULE-RESEND): a leader's BeginQuorumEpoch, a resigned leader's EndQuorumEpoch, a
    candidate's Vote, a prospective's pre-vote. Time is abstracted: this is the request timeout
    (or the failed connection) after which Kafka's ``RequestManager`` lets the next copy out."""

    to: int


@dataclass(frozen=True, slots=True)
class ClientAppend:
    """A client asks the leader to append a data record."""

    payload: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class TakeSnapshot:
    """The state machine snapshots the replica's log up to ``end_offset`` (exclusive): Kafka's
    ``RaftClient.createSnapshot(OffsetAndEpoch, lastContainedLogTime)``, the id's epoch the
    log's at ``end_offset - 1`` (KIP-630, RAFT-RULE-SNAPSHOT-TAKE)."""

    end_offset: int


@dataclass(frozen=True, slots=True)
class CleanLog:
    """The log cleaner deletes the records below the latest snapshot (Kafka's
    ``ReplicatedLog.deleteBeforeSnapshot``; RAFT-RULE-SNAPSHOT-CLEAN)."""


@dataclass(frozen=True, slots=True)
class Crash:
    """The replica stops; only its persisted state (quorum state and log) survives."""


@dataclass(frozen=True, slots=True)
class Restart:
    """The replica starts again from its persisted state (RAFT-RULE-RESTART)."""


Timer = ElectionTimeout | BackoffExpired | FetchTimeout | CheckQuorumTimeout | FetchDue | ResendDue
Input = (Message | LeaderOnlyRequest | LeaderOnlyResponse | Timer | ClientAppend | Crash | Restart | TakeSnapshot
         | CleanLog)

INPUT_TYPES: tuple[type, ...] = (
    *MESSAGE_TYPES, *LEADER_ONLY_TYPES, ElectionTimeout, BackoffExpired, FetchTimeout, CheckQuorumTimeout, FetchDue,
    ResendDue, ClientAppend, Crash, Restart, TakeSnapshot, CleanLog,
)


# Effects: what a replica must make durable before its messages count.


@dataclass(frozen=True, slots=True)
class PersistElection:
    """Write the quorum-state file: epoch, voted-for and leader (RAFT-STATE-PERSISTED)."""

    epoch: int
    voted_for: int | None
    leader: int | None


@dataclass(frozen=True, slots=True)
class AppendLog:
    """Append records at ``offset`` (the log end before the append)."""

    offset: int
    entries: tuple[Entry, ...]


@dataclass(frozen=True, slots=True)
class TruncateLog:
    """Truncate the log to end offset ``offset``."""

    offset: int


@dataclass(frozen=True, slots=True)
class Halt:
    """The replica stops on an exception in its event loop (RAFT-OBS-EXCEPTION): no rule of the
    protocol produces it; a catalogued deviation's model variant may. ``exception`` is the class
    name; ``message`` is not compared."""

    exception: str
    message: str = ""


# Callbacks to the replica's state machine (Kafka's ``RaftClient.Listener``, spec/raft.md
# RAFT-OBS-LISTENER): outputs too, predicted by ``model/raft/listener.py``.


@dataclass(frozen=True, slots=True)
class HandleCommit:
    """``Listener.handleCommit``: the committed records from ``offset`` on, each as its
    ``(epoch, kind)`` (one step's batches merged: how Kafka groups records into batches and
    readers is not part of the contract; their offsets and order are)."""

    offset: int
    entries: tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class HandleLeaderChange:
    """``Listener.handleLeaderChange(LeaderAndEpoch)``: the epoch and its leader (``None``:
    no leader known, Kafka's empty ``OptionalInt``)."""

    epoch: int
    leader: int | None


@dataclass(frozen=True, slots=True)
class HandleLoadSnapshot:
    """``Listener.handleLoadSnapshot``: the listener is given the latest snapshot, ending at
    ``offset``, and reads on from there (RAFT-OBS-LISTENER-SNAPSHOT); predicted only where the
    replicas take snapshots, so a target without them that calls it diverges."""

    offset: int


Notification = HandleCommit | HandleLeaderChange | HandleLoadSnapshot
Effect = PersistElection | AppendLog | TruncateLog | Halt | Notification
Output = Message | LeaderOnlyResponse | Effect

EFFECT_TYPES: tuple[type, ...] = (PersistElection, AppendLog, TruncateLog, Halt, HandleCommit, HandleLeaderChange,
                                  HandleLoadSnapshot)
