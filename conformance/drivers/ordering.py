"""Where a protocol's spec orders a step's outputs, as data: a partial order on output types.

A rule ``(before, after, spec_id)`` says: when the model emits an output whose type is in
``before`` ahead of one whose type is in ``after`` in the same step, the target must emit them
in that order too. Outputs no rule relates may come in any order (the harness compares a
step's outputs as a multiset first, then these pairs: ``Feeder.compare``). A driver declares
its rules as ``output_order`` (the KRaft drivers' base ``macros.MacroSteps``: persist before
send; share: records first). mm2 and streams answer in observations only: nothing to order.
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.driver import Driver, OrderRule
from kspec.model.raft.messages import MESSAGE_TYPES

__all__ = ["LEADER_TOLD_AFTER_COMMIT", "PERSIST_BEFORE_SEND", "SHARE_RECORDS_FIRST", "SNAPSHOT_LOADED_BEFORE_COMMIT",
           "OrderRule", "rules_for"]

_MESSAGES = frozenset(t.__name__ for t in MESSAGE_TYPES)

# RAFT-STATE-PERSIST-BEFORE-SEND: a changed election state is written before any message of
# the step (a vote is durable before the VoteResponse that grants it is sent).
PERSIST_BEFORE_SEND: OrderRule = (frozenset({"PersistElection"}), _MESSAGES, "RAFT-STATE-PERSIST-BEFORE-SEND")

# RAFT-OBS-LISTENER-LEADER: a leader is told it leads only once its state machine has read the
# records up to its epoch start (KAFKA-15345), so within one step the HandleCommit that delivers
# them comes before the HandleLeaderChange naming the replica itself (``MacroSteps.output_kind``).
# Not a leader change that names another replica: Kafka tells a follower its leader inside the
# transition (``maybeFireLeaderChange``), before the fetch answer that made it follow commits.
LEADER_TOLD_AFTER_COMMIT: OrderRule = (frozenset({"HandleCommit"}), frozenset({"HandleLeaderChange(self)"}),
                                       "RAFT-OBS-LISTENER-LEADER")

# RAFT-OBS-LISTENER-SNAPSHOT: a listener behind the log start is handed the latest snapshot first
# and then the commits from the snapshot's end on (Kafka's ``updateListenersProgress``: the
# snapshot, then "re-read the expected offset" and the commit), so within one step the
# HandleLoadSnapshot comes before the HandleCommit: a state machine that applied the records past
# the snapshot and then loaded the snapshot would lose them (red team
# raft_scratch20:listener-commit-before-snapshot-load, escaped seeds 0 and 1 as a multiset).
SNAPSHOT_LOADED_BEFORE_COMMIT: OrderRule = (frozenset({"HandleLoadSnapshot"}), frozenset({"HandleCommit"}),
                                            "RAFT-OBS-LISTENER-SNAPSHOT")

# A share coordinator request's records are appended before its one response (the runtime
# completes the response once the records are written): ADAPTER-SHARE-RECORDS-FIRST.
SHARE_RECORDS_FIRST: OrderRule = (frozenset({"ShareSnapshot", "ShareUpdate", "ShareTombstone"}),
                                  frozenset({"WriteResponse", "ReadResponse", "InitializeResponse", "DeleteResponse",
                                             "ReadSummaryResponse"}),
                                  "ADAPTER-SHARE-RECORDS-FIRST")

def rules_for(driver: Driver[Any]) -> tuple[OrderRule, ...]:
    """The order rules ``driver`` declares (``output_order``)."""
    return driver.output_order
