"""The leader's majority offset as the Python targets compute it: the largest log offset that a
majority of the voters hold (RAFT-RULE-HW-MAJORITY), the candidate for its high watermark.

The reference target, the mutants built on it and the red-team replicas of ``bench/redteam``
share it; a mutant or planted bug whose fault is this very computation (a median, every replica
counted) keeps its own wrong copy. The model has its own (``kspec.model.raft``): a reference
target shares no code with the model, so that a model bug is not also the reference's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def majority_offset(offsets: Mapping[int, int], voters: Iterable[int]) -> int:
    """The largest offset that a majority of ``voters`` hold, by ``offsets`` (replica -> log end
    offset; a voter it lacks holds 0); 0 with no voters."""
    ordered = sorted((offsets.get(v, 0) for v in voters), reverse=True)
    return ordered[len(ordered) // 2] if ordered else 0
