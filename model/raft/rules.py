"""KRaft's core decision rules as small pure functions.

They are kept apart from the state machine so the Z3 obligations in ``kspec.model.proofs``
can encode exactly these functions, and differential tests can hold the encodings to them.
Offsets are Kafka's: a log of ``n`` records has end offset ``n``; a high watermark is an
exclusive offset (records below it are committed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def majority(voter_count: int) -> int:
    """The size of a majority of ``voter_count`` voters (RAFT-RULE-MAJORITY)."""
    return voter_count // 2 + 1


def is_quorum(members: Iterable[int], voters: Iterable[int]) -> bool:
    """True when ``members`` include a majority of ``voters`` (RAFT-RULE-MAJORITY)."""
    voter_set = frozenset(voters)
    return len(frozenset(members) & voter_set) >= majority(len(voter_set))


def log_up_to_date(candidate_last_epoch: int, candidate_end_offset: int,
                   own_last_epoch: int, own_end_offset: int) -> bool:
    """A candidate's log is at least as up to date as ours (RAFT-RULE-VOTE-LOG-UP-TO-DATE):
    compare (last epoch, end offset) lexicographically, as Kafka's ``isLogUpToDate`` does."""
    if candidate_last_epoch != own_last_epoch:
        return candidate_last_epoch > own_last_epoch
    return candidate_end_offset >= own_end_offset


def majority_end_offset(end_offsets: Mapping[int, int], voters: Iterable[int]) -> int:
    """The largest offset that a majority of ``voters`` have replicated up to
    (RAFT-RULE-HW-MAJORITY). A voter with no known end offset counts as 0."""
    ordered = sorted((end_offsets.get(v, 0) for v in frozenset(voters)), reverse=True)
    if not ordered:
        return 0
    return ordered[majority(len(ordered)) - 1]


def next_high_watermark(current: int | None, majority_offset: int, epoch_start_offset: int) -> int | None:
    """The leader's high watermark after an update (RAFT-RULE-HW-LEADER-EPOCH).

    It moves only once a record of the leader's own epoch is committed (the majority offset
    passes the epoch start offset, where the LeaderChange record sits) and never backwards:
    Kafka's ``LeaderState.maybeUpdateHighWatermark``.
    """
    if majority_offset <= epoch_start_offset:
        return current
    if current is not None and majority_offset <= current:
        return current
    return majority_offset
