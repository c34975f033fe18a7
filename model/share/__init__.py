"""KIP-932 share-group state coordinator (spec/share.md): records, combiner, shard, system model."""

from __future__ import annotations

from kspec.model.core.protocol import Bound, ProtocolInfo
from kspec.model.share.system import make
from kspec.model.share.variants import VARIANTS
from kspec.model.share.versions import LATEST_MINOR

PROTOCOL = ProtocolInfo(
    name="share",
    make=make,
    bounds=(
        Bound("offsets", 2, "offsets 0..N-1 the leaders write state for", minimum=1, maximum=6),
        Bound("max_records", 4, "records in the coordinator partition's log (longer logs are not expanded)",
              minimum=1, maximum=8),
        Bound("snapshot_every", 1, "share.coordinator.snapshot.update.records.per.snapshot", minimum=0,
              maximum=8),
        Bound("max_leader_epoch", 1, "share-partition leader elections", minimum=0, maximum=4),
        Bound("max_state_epoch", 2, "InitializeShareGroupState calls with a new state epoch", minimum=0, maximum=4),
        Bound("max_failovers", 1, "coordinator fail-overs (unload, then load by replay)", minimum=0, maximum=4),
        Bound("kafka_minor", LATEST_MINOR, "the Kafka 4.N release whose shard rules apply (spec/share.md, Versions)",
              minimum=0, maximum=LATEST_MINOR),
    ),
    variants={**VARIANTS, **__import__("kspec.model.share.liveness", fromlist=["VARIANTS"]).VARIANTS},
    liveness=lambda model: __import__("kspec.model.share.liveness", fromlist=["x"]).make_suffix(model),
    summary="KIP-932 share-group state persister: write/read/initialize/delete, snapshots, fencing, fail-over",
)
