"""KRaft (KIP-595): the replica state machine and the system model."""

from __future__ import annotations

from typing import Any

from kspec.model.core.protocol import Bound, ProtocolInfo
from kspec.model.raft.system import RaftModel

BOUNDS: tuple[Bound, ...] = (
    Bound("voters", 3, "number of voters", minimum=1, maximum=5),
    Bound("observers", 0, "number of observers (non-voting replicas)", minimum=0, maximum=2),
    Bound("max_epoch", 2, "do not expand states past this epoch", minimum=1),
    Bound("max_appends", 1, "client appends in a run", minimum=0),
    Bound("max_crashes", 1, "crashes in a run", minimum=0),
    Bound("max_inflight", 2, "do not expand states with more messages in flight", minimum=1),
    Bound("max_duplicates", 0, "message duplications in a run", minimum=0),
    Bound("max_fetches", 2, "fetch requests sent in a run", minimum=0),
    Bound("max_elections", 2, "election and fetch timeouts (and backoff expiries) in a run", minimum=0),
    # 0 by default, as max_duplicates: every resend multiplies the states after it (about 7x at
    # max_epoch=1 without crashes or appends); explore with max_resends=1, the conformance driver
    # runs 2 (spec/raft.md RAFT-MODEL-ONE-RESEND).
    Bound("max_resends", 0, "requests sent again to a voter that has not answered (RAFT-RULE-RESEND) in a run",
          minimum=0),
    # 0 by default: snapshots multiply the states after a commit, and the default explorer and
    # TLA+ bounds stay those of KIP-595 without KIP-630 (explore with max_snapshots=1
    # max_fetches=4 to reach RAFT-WIT-SNAPSHOT-LOADED; spec/raft.md RAFT-RULE-SNAPSHOT-TAKE).
    Bound("max_snapshots", 0, "snapshots taken in a run (KIP-630: TakeSnapshot, CleanLog, FetchSnapshot)", minimum=0),
    Bound("reboot", True, "a crash is followed at once by the restart (else the replica stays down a while)"),
    Bound("symmetry", True, "explore one state per orbit of voter renamings (no effect with observers)"),
    Bound("pre_vote", False, "pre-vote (KIP-996)"),
    Bound("kip853", False, "KIP-853's open vote instead of KIP-595's voter-only requests (no effect unless a "
          "non-voter votes or is asked to)"),
)


def make(**bounds: Any) -> RaftModel:
    """The KRaft system model at the given bounds, its node step memoised (``RaftModel``'s
    ``memo``: the explorer's and TLA+'s model)."""
    return RaftModel(memo=True, **bounds)


def _variants() -> dict[str, Any]:
    from kspec.model.raft.variants import VARIANTS

    return VARIANTS


class _LazyVariants(dict[str, Any]):
    def _load(self) -> None:
        if not super().__len__():
            self.update(_variants())

    def get(self, key: str, default: Any = None) -> Any:
        self._load()
        return super().get(key, default)

    def __iter__(self) -> Any:
        self._load()
        return super().__iter__()

    def __len__(self) -> int:
        self._load()
        return super().__len__()

    def __contains__(self, key: object) -> bool:
        self._load()
        return super().__contains__(key)

    def __getitem__(self, key: str) -> Any:
        self._load()
        return super().__getitem__(key)


PROTOCOL = ProtocolInfo(
    name="raft",
    make=make,
    bounds=BOUNDS,
    variants=_LazyVariants(),
    summary="KRaft (KIP-595): elections, fetch with diverging-epoch truncation, high watermark, check-quorum",
    liveness=lambda model: __import__("kspec.model.raft.liveness", fromlist=["x"]).make_suffix(model),
    simulation_bounds={"max_epoch": 8, "max_inflight": 8, "max_appends": 6, "max_crashes": 3, "max_fetches": 40,
                       "max_elections": 10, "max_duplicates": 2, "symmetry": False},
)
