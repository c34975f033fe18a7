"""The KRaft voter set (KIP-853): the voter-set history, the control-record state machine,
and reconfiguration folded into the KRaft system model."""

from __future__ import annotations

from typing import Any

from kspec.model.core.protocol import Bound, ProtocolInfo
from kspec.model.voters.system import VotersModel
from kspec.model.voters.variants import VARIANTS

BOUNDS: tuple[Bound, ...] = (
    Bound("hosts", 4, "number of replicas (host ids 1..hosts)", minimum=1, maximum=5),
    Bound("voters", 3, "initial voters (ids 1..voters); the other hosts start as observers", minimum=1, maximum=5),
    Bound("started", True, "start from the brought-up quorum (VOTERS-MODEL-START); false: every host just formatted"),
    Bound("max_adds", 1, "AddVoter requests the leaders accept in a run", minimum=0),
    Bound("max_removes", 1, "RemoveVoter requests the leaders accept in a run", minimum=0),
    Bound("max_snapshots", 1, "snapshots taken in a run (VOTERS-MODEL-SNAPSHOT)", minimum=0),
    Bound("kraft_version", 1, "1: formatted with a bootstrap checkpoint; 0: static voters, upgrade in the run",
          minimum=0, maximum=1),
    Bound("auto_join", False, "controller.quorum.auto.join.enable at every host (VOTERS-RULE-AUTO-JOIN, Kafka 4.2+)"),
    Bound("max_epoch", 2, "do not expand states past this epoch", minimum=1),
    Bound("max_elections", 1, "election, fetch, backoff and check-quorum timer expiries in a run "
          "(VOTERS-MODEL-ELECTIONS)", minimum=0),
    Bound("max_appends", 0, "client appends in a run", minimum=0),
    Bound("max_crashes", 0, "crashes (reboots) in a run", minimum=0),
    Bound("max_inflight", 2, "do not expand states with more messages in flight", minimum=1),
    Bound("max_duplicates", 0, "message duplications in a run", minimum=0),
    Bound("max_fetches", 4, "fetch requests sent in a run", minimum=0),
    Bound("max_disk_swaps", 0, "disk replacements in a run: a replica restarts with a new directory id, no log "
          "and no election state (VOTERS-MODEL-DISK-SWAP)", minimum=0),
    Bound("symmetry", True, "explore one state per orbit of initial-voter renamings (VOTERS-MODEL-SYMMETRY)"),
    Bound("pre_vote", False, "pre-vote (KIP-996)"),
)


def make(**bounds: Any) -> VotersModel:
    """The voter-set system model at the given bounds."""
    return VotersModel(**bounds)


PROTOCOL = ProtocolInfo(
    name="voters",
    make=make,
    bounds=BOUNDS,
    variants={**VARIANTS, **__import__("kspec.model.voters.liveness", fromlist=["VARIANTS"]).VARIANTS},
    liveness=lambda model: __import__("kspec.model.voters.liveness", fromlist=["x"]).make_suffix(model),
    summary="KRaft voter set (KIP-853): control records, voter-set history, AddVoter/RemoveVoter, snapshots",
)
