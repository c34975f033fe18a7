"""The share coordinator lockstep driver: one shard instance, the ShareSystem model.

Write, Read and Initialize go to the shard as requests. Fail-over is two inputs: ``Unload``
(the broker loses the coordinator partition) and ``Load`` with the records the model's log
holds (a new shard replays them). ``Elect`` only changes the harness side (the next leader's
epoch). The model runs with ``probes`` on (``ShareSystem.probe_actions``), so the driver also
sends what no well-behaved actor sends but a coordinator must answer: writes and reads with
stale, equal, future and -1 epochs, initialize at an equal or older state epoch, deletes,
read-summaries, and requests for other partitions, another group and a partition the metadata
image lacks, writes of multi-offset batches, and a topic deleted while state is stored for it
(``{"type": "MetadataUpdate", "image": [...]}``, SHARE-RULE-METADATA-UPDATE). Categories (one
Hypothesis rule each): ``write``, ``read``, ``elect``, ``initialize``, ``failover``, ``delete``,
``summary`` (requests of those kinds), ``epochs``, ``keys``, ``batches``, ``reorder``, ``counts``
(the probes' writes and reads; ``counts`` are writes with KIP-1226 delivery-complete counts at
start offsets below, at and above the stored one), ``routing`` (FindCoordinator for keys whose
group ids a key-string parser can get wrong, SHARE-DRIVE-ROUTING), ``image`` (the metadata update, and
:class:`ReloadWithoutTopic`: the doomed topic's state stored, the topic deleted, a fail-over,
then its leader's read, one step of the guide, so a reload that validates against the start
image is met by a guided run, SHARE-WIT-IMAGE-FAILOVER). Three more composite steps keep deep
probes within the guide's reach: :class:`ReinitPruneReload` (SHARE-DRIVE-PRUNE-RELOAD),
:class:`CutReload` (SHARE-DRIVE-CUT-BATCH), :class:`DeleteThenRead` (SHARE-WIT-DELETED-REFUSED),
:class:`FencesAcrossDelete` (SHARE-DRIVE-FENCES-ACROSS-DELETE), :class:`InnerBatchSplit`
(SHARE-DRIVE-INNER-BATCH), :class:`ReinitBelowStored` (SHARE-DRIVE-REINIT-BELOW-STORED) and
:class:`StateEpochAcrossDelete` (SHARE-DRIVE-STATE-EPOCH-ACROSS-DELETE);
:class:`StaleReadWithoutTopic` sends a read the candidates do not hold (g:U:0 above epoch 0,
SHARE-DRIVE-STALE-READ-WITHOUT-TOPIC). Every guided path ends with :meth:`ShareDriver.probes`:
a count tie a ShareUpdate must lose (SHARE-DRIVE-TIE-UPDATE), then the routing tail.
Every initialize, delete and read-summary is in the category of its kind, so a target lacking
an API declares that category ``unsupported`` and never gets the request (Kafka 4.0:
initialize, delete, summary; the 4.0 model sends none of them anyway). The vocabulary is listed
in docs/adapter-guide.md ("The share driver's vocabulary").

``kafka_version`` in the configuration ("4.0" … "4.4"; default the newest the model knows) runs
the model with that Kafka release's rule set; ``model_variant`` (names joined by ``+``) runs a
variant, e.g. a known deviation the user accepted (spec/share.md, "Versions"); a ``kafka:VERSION``
target sets it for its own release (``model_config``), and the counterexample file records it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kspec.conformance.driver import Driver, Event
from kspec.conformance.drivers.guide import PartsProbe
from kspec.conformance.drivers.ordering import SHARE_RECORDS_FIRST
from kspec.conformance.harness import JSON
from kspec.model.core.codec import encode
from kspec.model.core.protocol import first_violated
from kspec.model.share.combiner import coalesce, per_offset
from kspec.model.share.records import (
    ACKNOWLEDGED,
    AVAILABLE,
    NOT_SET,
    SharePartitionKey,
    ShareSnapshot,
    ShareUpdate,
    StateBatch,
)
from kspec.model.share.shard import FENCED_STATE_EPOCH, NONE, observe, step_with
from kspec.model.share.system import (
    DOOMED,
    DOOMED_TOPIC,
    KEY,
    MAX_DELIVERY_COUNT,
    MAX_EPOCH,
    OTHER_GROUP,
    OTHER_PARTITION,
    ROUTE_KEYS,
    TOPIC,
    UNHOSTED,
    Action,
    CreatePartition,
    Delete,
    DeleteTopic,
    Elect,
    FindCoordinator,
    Initialize,
    Load,
    PrunedLoad,
    Read,
    ShareSystem,
    Summary,
    SysState,
    Unload,
    Write,
    request_of,
)
from kspec.model.share.variants import build, waived
from kspec.model.share.versions import LATEST, VERSIONS, minor_of

# share.coordinator.snapshot.update.records.per.snapshot of the runs (Hypothesis draws one).
CONFIGS: list[dict[str, JSON]] = [{"snapshot_every": 1}, {"snapshot_every": 0}, {"snapshot_every": 2}]

@dataclass(frozen=True, slots=True)
class ReloadWithoutTopic:
    """Composite step (category ``image``, or that of its first part when it has one):
    ``g:U:0``'s state is stored (initialized, or in 4.0 written, when it has none), the shard
    fails over and topic ``U`` is deleted from the metadata image meanwhile (``Unload``,
    ``MetadataUpdate``, ``Load``: SHARE-DRIVE-IMAGE-WHILE-UNLOADED), and
    ``g:U:0``'s leader reads. Each part is the model's own action, sent as its own input; taken
    as one step so the guide's beam keeps the path (five single steps deep among forty siblings
    a level, it did not: SHARE-WIT-IMAGE-FAILOVER)."""


@dataclass(frozen=True, slots=True)
class StaleReadWithoutTopic:
    """Composite step (category ``image``, or that of its first part when it has one;
    SHARE-DRIVE-STALE-READ-WITHOUT-TOPIC): ``g:U:0``'s state is stored (initialized, or in 4.0
    written, when it has none), a leader of ``g:U:0`` at the epoch above its fence reads it (so
    the fence is above the image probes' epoch 0), topic ``U`` is deleted from the metadata
    image, and the leader of epoch 0 reads: FENCED_LEADER_EPOCH, the fence before the image
    (SHARE-RULE-READ-FENCE, SHARE-RULE-METADATA-UPDATE). No actor or probe reads ``g:U:0`` at an
    epoch above 0, so its fence stayed 0 and a read that checks the image first was never
    told apart (red team session 15's ``read-image-before-leader-fence``). One step, so the
    guide's beam keeps it; the higher read is the composite's own input, not a candidate."""


@dataclass(frozen=True, slots=True)
class ReinitPruneReload:
    """Composite step (category ``initialize``: it holds one; SHARE-DRIVE-PRUNE-RELOAD): the key's
    state stored (initialized when it has none), a leader at a new epoch (``Elect`` when the
    current one is 0) reads it, so its fence is above the snapshot's leader epoch, the group
    coordinator initializes it again (a reset of the offsets: a snapshot with leader epoch 0),
    the shard fails over and the runtime has pruned the log below the redundant offset
    (``Unload``, ``PrunedLoad``). Each part is the model's own action sent as its own input;
    one step, as :class:`ReloadWithoutTopic`, so the guide's beam keeps the path
    (SHARE-WIT-PRUNE-FENCE: six single steps deep, it did not)."""


@dataclass(frozen=True, slots=True)
class CutReload:
    """Composite step (category ``batches``, ``initialize`` when it holds one;
    SHARE-DRIVE-CUT-BATCH): the key initialized when it has no state (in 4.0 written), a
    multi-offset batch stored (the first batch probe that stores one, after the leader's read
    when the write needs one) unless one is, a write by the current leader whose
    start offset cuts it and that carries no batches (the probe of SHARE-DRIVE-CUT-BATCH), then
    the shard fails over (``Unload``, ``Load``), so the replay must clip the batch itself. Where
    the cut would be written as the limit snapshot (the handler's clip, not the replay's), an
    empty write of the leader (no start offset, no batches) goes first, so a ShareUpdate carries
    the cut (SHARE-WIT-UPDATE-CUTS-BATCH); at snapshot limit 0 every write is a snapshot and the
    cut is one. Each part is the model's own action sent as its own input; one step, as
    :class:`ReinitPruneReload`, so the guide's beam keeps the path (four single steps deep at
    snapshot limit 1, it did not)."""


@dataclass(frozen=True, slots=True)
class DeleteThenRead:
    """Composite step (category ``delete``; SHARE-WIT-DELETED-REFUSED, 4.1+): the key
    initialized when it has no state, the group coordinator deletes it, and its leader reads:
    a deleted share-partition has no state, so the read is refused as uninitialized. One step,
    so the guide's beam keeps the path (its single steps were reached at depth 7 at snapshot
    limit 1 by a path the beam kept by chance, and lost when another composite was added)."""


@dataclass(frozen=True, slots=True)
class FencesAcrossDelete:
    """Composite step (category ``delete``; SHARE-DRIVE-FENCES-ACROSS-DELETE, 4.1+): the key's
    state stored (initialized when it has none), a leader one epoch above the current one reads
    it (its fence is then above the current leader's epoch), the group coordinator deletes it and
    initializes it again, then the current leader reads (below the deleted key's fence) and
    writes: both ``NONE``, the delete forgot the fences with the key (SHARE-RULE-REPLAY-TOMBSTONE)
    and the new state starts at the initialize's leader epoch 0. What a fence is after a delete
    and an initialize is a rule any shard can get wrong (a zombie guard kept apart from the four
    maps, a fence restored by the initialize), and no single path of the guide reached it: red
    team session 16's ``zombie-fence-survives-delete`` escaped the default budget at seed 0 (one
    random run, 66, caught it until the draws moved). Each part is the model's own action sent as
    its own input; one step, as :class:`DeleteThenRead`, so the guide's beam keeps the path."""


@dataclass(frozen=True, slots=True)
class ReinitAtCountedStart:
    """Composite step (category ``initialize``: it holds one; SHARE-DRIVE-REINIT-COUNTED-START,
    4.2+): the key initialized at start offset 0, its leader reads (the state epoch it writes
    with), a ``counts`` probe raises the stored delivery-complete count at that start offset
    (2), and the group coordinator initializes it again at the same start offset: the count is
    0 again (SHARE-RULE-INITIALIZE-COUNT: an initialize is a reset, whatever was counted at that
    start offset). The actors' menu moves the start offset to 1 and the reinitialize is at 0, so
    the count a reinitialize reset was one measured from another start offset, and a shard that
    reused the write's "the higher count at the same start offset" for an initialize was never
    told apart (red team session 16's ``reinitialize-same-start-keeps-count``, 300 runs at seeds
    0 and 1). Between the two, the same probe with count 0 at that start offset (where the
    bounds allow its record): the stored 2 stays, the higher count at the same start offset
    (SHARE-DRIVE-COUNT-KEPT-AT-START; the witness SHARE-WIT-COUNT-KEPT is also reached from
    below the start offset, so a shard taking the newest count at the same start offset was told
    apart only by runs 175 and 275 (seeds 0 and 1): red team session 20's
    ``same-start-count-replaced``). Each part is the model's own action
    sent as its own input; one step, as :class:`DeleteThenRead`, so the guide's beam keeps the
    path."""


@dataclass(frozen=True, slots=True)
class InnerBatchSplit:
    """Composite step (category ``batches``, ``initialize`` when it holds one;
    SHARE-DRIVE-INNER-BATCH): the key's state stored (initialized when it has none, in 4.0
    written; initialized again at start offset 0 where the stored start offset would clip the
    range), the leader's read (its state epoch), a write of ``[0,3]`` AVAILABLE x1 and then one
    strictly inside it of a higher (count, state), ``[1,2]`` ACKNOWLEDGED x2, then the shard fails
    over where the bounds allow (``Unload``, ``Load``: the replay combines the records too). Per
    offset the higher wins (SHARE-RULE-COMBINE-PRIORITY), so the stored range is cut in three and
    its head and tail stay. The writes are the composite's own inputs, not candidates (the menu's
    batches are one offset wide and the batch probes overlap a stored batch at one end only, where
    nothing of it is left past the new batch). As a tail of every guided path (session 18) it was
    dropped where the path's end had spent the records or had moved the start offset past 0 (red
    team ``share_scratch10``'s ``inner-batch-drops-tail`` escaped at seeds 0 and 1); one step, as
    :class:`CutReload`, so the guide plans it where the records allow."""


@dataclass(frozen=True, slots=True)
class ReinitBelowStored:
    """Composite step (category ``initialize``: it holds one; SHARE-DRIVE-REINIT-BELOW-STORED,
    4.1+): the key's state stored (initialized when it has none), the current leader reads and
    writes the menu's write that moves the start offset past 0, a leader one epoch above reads
    (its fence is then above the current leader's epoch), and the group coordinator initializes
    the key again at start offset 0 (a reset of the offsets to the earliest: lower than the
    stored start offset, with the initialize's leader epoch 0 below the fence); then the current
    leader reads (FENCED_LEADER_EPOCH: the fence keeps its maximum) and the leader one epoch
    above reads (NONE, start offset 0). SHARE-RULE-INITIALIZE-SNAPSHOT: every field of the stored
    offset an initialize replaces is then told from the one it replaced, and so is the fence it
    does not. Red team session 19 (``share_scratch11``): a read fenced by the stored offset's
    leader epoch and an initialize held to the writes' monotone start offset were caught only
    where the guide's greedy plan took those transitions (guided runs 91 and 50). Each part is
    the model's own action sent as its own input; one step, so the guide's beam keeps it."""


@dataclass(frozen=True, slots=True)
class StateEpochAcrossDelete:
    """Composite step (category ``delete``; SHARE-DRIVE-STATE-EPOCH-ACROSS-DELETE, 4.1+): the key
    stored at a state epoch above 0 (the group coordinator's next initialize when it is at 0), the
    group coordinator deletes it and initializes it at the state epoch below (a share group
    deleted and created again under its id restarts its epochs), then the current leader reads
    and writes: all ``NONE``. The delete forgot the state-epoch fence with the key
    (SHARE-RULE-REPLAY-TOMBSTONE), so SHARE-RULE-VALIDATE-STATE-FENCE has nothing to fence the
    initialize with: the twin of SHARE-DRIVE-FENCES-ACROSS-DELETE for the state epoch. Red team
    session 19's ``state-fence-survives-delete`` (a state-epoch mark kept apart from the four
    maps) was caught only where the guide's greedy plan took that transition (guided run 131).
    Each part is the model's own action sent as its own input; one step."""


@dataclass(frozen=True, slots=True)
class PathEndProbe(PartsProbe):
    """Composite step of category PATH_END (session 26): several model actions, some of them
    requests no candidate holds, that only a guided path's end sends (``ShareDriver.probes``):
    ``name`` is one of PATH_END_PROBES. PATH_END is no lockstep rule (not in
    ``ShareDriver.categories``: the random runs never draw it) and the guide's graph leaves it
    out (``ShareDriver.unguided``), so neither the graph's states nor the random draws move;
    it is offered as a candidate all the same, because a run, guided or replayed (the
    minimiser), takes only what the driver offers in a category (as raft's RAFT-DRIVE-PROBE).
    ``needs`` (``guide.PartsProbe``): the categories of its parts, so a target that declines one
    never gets it (``guide.with_probes``)."""

    name: str

    @property
    def needs(self) -> tuple[str, ...]:
        return PATH_END_NEEDS[self.name]


# The category of the path-end-only composites (PathEndProbe): no lockstep rule, not in the graph.
PATH_END = "path_end"
# The records a PathEndProbe may add past the model's bound (``ShareDriver._path_end_next``):
# 12 until session 29, 14 since, so SHARE-DRIVE-GAPPED-BATCHES's two records fit after the
# others on the shortest path (the path-end probes before it took the 12 there).
PATH_END_RECORDS = 14
# SHARE-DRIVE-ODD-GROUP-STATE: a group id KIP-932 allows (':' inside, blanks around) in the state RPCs.
ODD_GROUP = SharePartitionKey(" a:b ", TOPIC, 0)
# SHARE-DRIVE-WIDE-START-OFFSET: a start offset past Integer.MAX_VALUE (offsets are int64).
WIDE_OFFSET = 2**31
# SHARE-DRIVE-GAPPED-BATCHES: two batches of one (state, count) with an offset between them that
# no batch covers (offset 1), in one write: a gap the combiner keeps (SHARE-RULE-COMBINE-MERGE).
GAPPED = (StateBatch(0, 0, ACKNOWLEDGED, 1), StateBatch(2, 2, ACKNOWLEDGED, 1))

# The composite steps: each is several model actions sent as their own inputs, one step of the guide.
COMPOSITES = (ReloadWithoutTopic, StaleReadWithoutTopic, ReinitPruneReload, CutReload, DeleteThenRead,
              ReinitAtCountedStart, FencesAcrossDelete, InnerBatchSplit, ReinitBelowStored, StateEpochAcrossDelete,
              PathEndProbe)

# SHARE-DRIVE-INNER-BATCH: a stored range of four offsets, then a write strictly inside it with a
# higher (count, state) (:class:`InnerBatchSplit`).
INNER_SPLIT: tuple[tuple[StateBatch, ...], ...] = ((StateBatch(0, 3, AVAILABLE, 1),),
                                                   (StateBatch(1, 2, ACKNOWLEDGED, 2),))
# SHARE-DRIVE-INNER-LOSER: its mirror, a stored range of four offsets, then a write strictly
# inside it with a lower (count, state): the stored range stays whole.
INNER_LOSER: tuple[tuple[StateBatch, ...], ...] = ((StateBatch(0, 3, ACKNOWLEDGED, 2),),
                                                   (StateBatch(1, 2, AVAILABLE, 1),))

BOUNDS: dict[str, int] = {"offsets": 2, "max_records": 10, "max_leader_epoch": 2, "max_state_epoch": 2,
                          "max_failovers": 2, "probes": True}


class ShareDriver(Driver[ShareSystem]):
    """Lockstep driver for ``share`` (see the module docstring)."""

    protocol = "share"
    output_order = (SHARE_RECORDS_FIRST,)  # ADAPTER-SHARE-RECORDS-FIRST

    takes_model_variant = True  # config["model_variant"]: variant names joined by "+" (deviations too)
    # FindCoordinator is answered from the key alone (SHARE-RULE-KEY-PARSE): the guide counts each
    # routing probe once, not once per state (ten self-loops on every state otherwise).
    stateless = ("routing",)
    # `kspec conform share --set kafka_version=4.3`: the release whose rule set a target that does
    # not name one (an exec: or python: target) is held to; the default is the newest.
    settable = {"kafka_version": tuple(f"4.{m}" for m in sorted(VERSIONS))}
    setting_defaults = {"kafka_version": LATEST.version}

    def __init__(self, config: dict[str, JSON], bounds: dict[str, int] | None = None) -> None:
        self.config = {**CONFIGS[0], "kafka_version": LATEST.version, **config}
        try:
            minor = minor_of(str(self.config["kafka_version"]))
            self.model: ShareSystem = build(str(self.config.get("model_variant") or ""),
                                            snapshot_every=int(self.config["snapshot_every"]), kafka_minor=minor,
                                            **{**BOUNDS, **(bounds or {})})
        except ValueError as err:
            raise ValueError(f"share driver configuration: {err}") from None
        # A known deviation's variant breaks its own invariant by design: not a kspec bug.
        # SHARE-OBS-REDUNDANT-OFFSET: compared only for a target that says it reports it
        # (model_config {"redundant_offset": true}: the reference, kafka:VERSION): log pruning is
        # the coordinator's housekeeping, not an answer of KIP-932's RPCs.
        self.observes_redundant = bool(self.config.get("redundant_offset", False))
        # SHARE-DRIVE-ROUTING: FindCoordinator is the broker's (it parses the key string), not
        # one of the shard's RPCs, so only a target that answers it gets it (model_config
        # {"routing": true}: the reference, kafka:VERSION, the Go example); a shard adapter
        # written without it is not broken by the probes.
        self.routes = bool(self.config.get("routing", False))
        skip = waived(str(self.config.get("model_variant") or ""))
        self._prune_forgets = self.model.rules.prune_forgets_fences
        props = [p for p in self.model.properties() if p.name not in skip]
        self._always = [p for p in props if p.kind == "always"]
        self._always_step = [p for p in props if p.kind == "always_step"]

    def nodes(self) -> list[int]:
        return [0]  # the one coordinator shard

    def node_config(self, node: Any) -> dict[str, JSON]:
        return {"snapshot_limit": self.model.snapshot_every, "image": sorted([t, p] for t, p in self.model.image),
                "kafka_version": self.model.rules.version}

    def init_state(self) -> SysState:
        return self.model.init_states()[0]

    categories = ("write", "read", "elect", "initialize", "failover", "epochs", "delete", "summary", "keys",
                  "batches", "reorder", "counts", "image", "routing")
    # PATH_END (PathEndProbe) is sent only at a guided path's end: not a rule, not in the graph.
    unguided = (PATH_END,)

    def candidates(self, state: SysState) -> list[tuple[str, Any]]:
        out = self.candidates_single(state)
        parts = self._reload_parts(state) if self.model.probes else None
        if parts is not None:
            # In the category of its first part: a target that declines initialize never gets
            # one from the composite either (tests/share/test_share_target_declarations.py).
            first = parts[0][0]
            out.append((self._category_of(state, first) if len(parts) > 4 else "image", ReloadWithoutTopic()))
        stale = self._stale_read_parts(state) if self.model.probes else None
        if stale is not None:
            out.append((self._category_of(state, stale[0][0]) if len(stale) > 3 else "image", StaleReadWithoutTopic()))
        if self.model.probes and self._prune_parts(state) is not None:
            out.append(("initialize", ReinitPruneReload()))
        if self.model.probes and self._delete_parts(state) is not None:
            out.append(("delete", DeleteThenRead()))
        if self.model.probes and self._reinit_count_parts(state) is not None:
            out.append(("initialize", ReinitAtCountedStart()))
        if self.model.probes and self._fences_delete_parts(state) is not None:
            out.append(("delete", FencesAcrossDelete()))
        cut = self._cut_parts(state) if self.model.probes else None
        if cut is not None:
            # A target that declines initialize never gets one from the composite either.
            out.append(("initialize" if any(isinstance(a, Initialize) for a, _ in cut) else "batches", CutReload()))
        inner = self._inner_split_parts(state) if self.model.probes else None
        if inner is not None:
            out.append(("initialize" if any(isinstance(a, Initialize) for a, _ in inner) else "batches",
                        InnerBatchSplit()))
        if self.model.probes and self._reinit_below_parts(state) is not None:
            out.append(("initialize", ReinitBelowStored()))
        if self.model.probes and self._state_delete_parts(state) is not None:
            out.append(("delete", StateEpochAcrossDelete()))
        if self.model.probes:
            # Offered unresolved (resolved only when a path's end takes it): category PATH_END is
            # neither drawn by the random runs nor in the guide's graph.
            out += [(PATH_END, PathEndProbe(name)) for name in PATH_END_PROBES]
        if not self.routes:
            out = [(category, action) for category, action in out if category != "routing"]
        return out

    def probes(self, state: SysState, k: int) -> list[tuple[str, Any]]:
        """What a guided path ends with: SHARE-DRIVE-TIE-UPDATE (:meth:`tie_probes`, every target),
        SHARE-DRIVE-REORDER-SNAPSHOT (:meth:`reorder_probes`, every target), then
        SHARE-DRIVE-ROUTING-UNLOADED (:meth:`routing_probes`, a target that routes), then
        SHARE-DRIVE-COUNT-FROM-BELOW (:meth:`count_below_probes`, 4.2+),
        SHARE-DRIVE-REINIT-BELOW-WRITE (:meth:`reinit_below_probes`),
        SHARE-DRIVE-MAX-DELIVERY-COUNT (:meth:`max_count_probes`) and
        SHARE-DRIVE-STALE-INITIALIZE-WITHOUT-TOPIC (:meth:`stale_initialize_probes`), each where
        the ones before leave the state (each kept where the model enables it:
        ``guide.with_probes``)."""
        tie = self.tie_probes(state)
        s = state
        for _, action in tie:
            s = self.resolve(s, action) or s
        out = [*tie, *self.reorder_probes(s), *self.routing_probes(state, k)]
        s = state
        for _, action in out:
            s = self.resolve(s, action) or s
        below = self.count_below_probes(s)
        for _, action in below:
            s = self.resolve(s, action) or s
        reinit = self.reinit_below_probes(s)
        for _, action in reinit:
            s = self.resolve(s, action) or s
        maxed = self.max_count_probes(s)
        for _, action in maxed:
            s = self.resolve(s, action) or s
        stale = self.stale_initialize_probes(s)
        for _, action in stale:
            s = self.resolve(s, action) or s
        return [*out, *below, *reinit, *maxed, *stale, *self.path_end_probes(s)]

    def path_end_probes(self, state: SysState) -> list[tuple[str, Any]]:
        """The PathEndProbe composites (PATH_END_PROBES, session 26), each where the model enables
        it after the ones before (``_path_end_parts``): requests no candidate holds, sent only at
        a guided path's end, so neither the guide's graph nor the random draws move. Red team
        session 26 (``share_scratch16``) found each escape "not reached": no driver run sent
        it (R26-blindshare)."""
        out: list[tuple[str, Any]] = []
        s = state
        for name in PATH_END_PROBES:
            probe = PathEndProbe(name)
            after = self.resolve(s, probe)
            if after is not None:
                out.append((PATH_END, probe))
                s = after
        return out

    def stale_initialize_probes(self, state: SysState) -> list[tuple[str, Any]]:
        """SHARE-DRIVE-STALE-INITIALIZE-WITHOUT-TOPIC at a guided path's end: ``g:U:0``'s state
        stored (the side keys' initialize at state epoch 1 where it has none), topic ``U``
        deleted from the image where it is still there, then the group coordinator's initialize
        of ``g:U:0`` at state epoch 0: FENCED_STATE_EPOCH, the fence before the image. A refused
        request is a self-loop of the guide's graph, which the plan seldom takes where the topic
        is gone: only random runs caught ``share-initialize-image-before-fence`` (none at seed
        0 once session 23's batch probe moved the random draws, session 25); at a path's end
        it is sent wherever it fits (4.1+: the initialize API)."""
        if not self.model.rules.initialize or not state.shard.active or state.shard.image is None:
            return []
        gone = all(t != DOOMED_TOPIC for t, _ in state.shard.image)
        if gone and state.shard.offset(DOOMED) is None:
            return []
        wants: list[Any] = [] if gone else [*self._store_first(state, DOOMED), lambda a: isinstance(a, DeleteTopic)]
        wants.append(lambda a: isinstance(a, Initialize) and a.key == DOOMED and a.state_epoch == 0)
        parts = self._chain(state, wants)
        if parts is None or parts[-1][1].last_error != FENCED_STATE_EPOCH:
            return []
        return [(self._category_of(s, a), a) for (a, _), s in
                zip(parts, [state, *(after for _, after in parts)], strict=False)]

    def max_count_probes(self, state: SysState) -> list[tuple[str, Any]]:
        """SHARE-DRIVE-MAX-DELIVERY-COUNT at a guided path's end: the ``epochs`` probe's write of
        ``h:T:0`` at leader and state epoch Integer.MAX_VALUE, whose batch carries delivery count
        32767, after ``h:T:0``'s initialize where it has no state; left off where the write is
        not answered NONE. The guide's greedy plan took that write on a stored ``h:T:0`` where it
        happened to (guided run 110 on main in session 24, none once session 23's probes changed
        the plan): at a path's end it is sent wherever it fits."""
        if not state.shard.active:
            return []

        def max_write(a: Any) -> bool:
            return (isinstance(a, Write) and a.key == OTHER_GROUP and a.leader_epoch == MAX_EPOCH
                    and any(b.delivery_count == MAX_DELIVERY_COUNT for b in a.batches))

        parts = self._chain(state, [*self._store_first(state, OTHER_GROUP), max_write])
        if parts is None or parts[-1][1].last_error != NONE:
            return []
        return [(self._category_of(s, a), a) for (a, _), s in
                zip(parts, [state, *(after for _, after in parts)], strict=False)]

    def reinit_below_probes(self, state: SysState) -> list[tuple[str, Any]]:
        """SHARE-DRIVE-REINIT-BELOW-WRITE at a guided path's end: the composite
        :class:`ReinitBelowStored` (whose tail is the leader's write from start offset 0, below the
        start offset the initialize replaced) where the model enables it. The guide's greedy plan
        takes that composite in a few paths only (one of 150 at the default budget, session 25),
        so red team session 23's ``start-clamp-survives-reinitialize`` was caught where the
        plan happened to take it (run 65 on session 24's merged head, none after the
        COUNT-FROM-BELOW fix): as a path-end probe it ends every path whose end enables it."""
        return [("initialize", ReinitBelowStored())] if self._reinit_below_parts(state) is not None else []

    def count_below_probes(self, state: SysState) -> list[tuple[str, Any]]:
        """SHARE-DRIVE-COUNT-FROM-BELOW (4.2+): the key's state stored with a known start offset
        and a delivery-complete count below 2 (initialized when it has none; initialized again at
        start offset 0 where the stored count is 2 or the start offset unknown), the current
        leader reads (the state epoch it writes with), then the ``counts`` probe with count 2 and
        start offset -1 ("not being written"): the stored count stays (SHARE-RULE-WRITE-COUNT: a
        count from below the stored start offset is not the stored one's). Red team session 23's
        ``count-after-start-resolved`` (the count judged after -1 was resolved to the stored
        start offset: the higher stays) was caught at one seed only (run 170): the probe seldom
        followed a stored count below 2. A path-end probe, not a composite step of the guide's
        graph: as a composite (session 23) it changed which states fit in the graph's bound, and
        SHARE-WIT-COUNT-FROM-UNKNOWN-START fell out of it (mutant
        ``share-count-unknown-start-kept`` escaped, session 24)."""
        parts = self._count_below_parts(state)
        return [] if parts is None else [(self._category_of(s, a), a) for (a, _), s in
                                         zip(parts, [state, *(after for _, after in parts)], strict=False)]

    def reorder_probes(self, state: SysState) -> list[tuple[str, Any]]:
        """SHARE-DRIVE-REORDER-SNAPSHOT: an out-of-order write (the ``reorder`` probe, start offset
        0) whose batch lies below the stored start offset, written as a ShareSnapshot: its batches
        are combined and pruned at the stored start offset (SHARE-RULE-WRITE-START-MONOTONE,
        SHARE-RULE-COMBINE-PRUNE), so the batch below it is dropped. Sent as the leader's menu write
        that moves the start offset past 0 where none did, the ``counts`` probe that moves it one
        further when the batch is not yet below it, and empty writes of the leader until the
        write is the limit snapshot; left out where the model does not allow it within its
        bounds. The reorder write reached a limit snapshot with such a batch by the guide's greedy
        plan only (red team ``share_scratch7``'s
        ``reorder-limit-snapshot-keeps-low-batches``, guided run 59 at seed 0, lost when session
        17 added a composite step)."""
        parts = self._reorder_parts(state)
        return [] if parts is None else [(self._category_of(s, a), a) for (a, _), s in
                                         zip(parts, [state, *(after for _, after in parts)], strict=False)]

    def _reorder_parts(self, state: SysState) -> list[tuple[Action, SysState]] | None:
        """The model actions of SHARE-DRIVE-REORDER-SNAPSHOT from ``state`` (None: not here)."""
        if not state.shard.active or state.shard.offset(KEY) is None:
            return None

        def reorder(a: Any) -> bool:
            return isinstance(a, Write) and a.key == KEY and a.start_offset == 0 and a.state_epoch is None \
                and a.delivery_complete_count == NOT_SET and a.leader_epoch == state.leader_epoch

        def past(a: Any) -> bool:  # the counts probe one above the stored start offset
            return isinstance(a, Write) and a.key == KEY and a.delivery_complete_count == 1 and a.start_offset > 0

        def mover(a: Any) -> bool:  # the leader's menu write that moves the start offset past 0
            return (isinstance(a, Write) and a.key == KEY and a.start_offset > 0 and a.state_epoch is None
                    and a.delivery_complete_count == NOT_SET and a.leader_epoch == state.leader_epoch)

        for lead in ([], [past], [mover, past]):
            for empties in range(self.model.snapshot_every + 1):
                parts = self._chain(state, [*lead, *[_empty_write] * empties, reorder])
                if parts is None:
                    continue
                before, after = parts[-2][1] if len(parts) > 1 else state, parts[-1][1]
                stored, write = before.shard.offset(KEY), parts[-1][0]
                if (stored is not None and isinstance(write, Write) and after.last_error == NONE
                        and len(after.log) > len(before.log) and isinstance(after.log[-1], ShareSnapshot)
                        and any(b.first_offset < stored.start_offset for b in write.batches)):
                    return parts
        return None

    def tie_probes(self, state: SysState) -> list[tuple[str, Any]]:
        """SHARE-DRIVE-TIE-UPDATE: a ShareUpdate whose batch overlaps a stored offset at the same
        delivery count in a lower delivery state, where SHARE-RULE-COMBINE-PRIORITY keeps the
        stored (higher) state: the winner is the higher (count, state), whichever list it came
        from. The actors pair AVAILABLE with count 1 and ACKNOWLEDGED with 2, so only two batch
        probes in one order at the cadence's update turn tie, and before this no default run
        sent that (red team session 15's ``equal-count-newer-wins``, "new batches win" on a tie:
        300 runs at seeds 0 and 1). Sent as the leader's read (its state epoch), at most one
        write that stores the higher state, one empty write when the tie would be the limit
        snapshot (the replay must combine it, not the handler), and the tying write; chosen
        among the writes the model offers (``_tie_parts``), left out where none ties."""
        parts = self._tie_parts(state)
        return [] if parts is None else [(self._category_of(s, a), a) for (a, _), s in
                                         zip(parts, [state, *(after for _, after in parts)], strict=False)]

    def _tie_parts(self, state: SysState) -> list[tuple[Action, SysState]] | None:
        """The model actions of SHARE-DRIVE-TIE-UPDATE from ``state`` (None: none ties here, or
        the key has no state, or the records would pass the bounds)."""
        if not state.shard.active or state.shard.offset(KEY) is None or self.model.snapshot_every == 0:
            return None
        read = self._chain(state, [lambda a: isinstance(a, Read) and a.key == KEY
                                   and a.leader_epoch == state.leader_epoch])
        if read is None:
            return None
        s = read[-1][1]

        def leader_writes(at: SysState) -> list[Write]:
            return [a for _, a in self.candidates_single(at) if isinstance(a, Write) and a.key == KEY
                    and a.leader_epoch == at.leader_epoch and a.state_epoch is None
                    and a.start_offset == NOT_SET and a.delivery_complete_count == NOT_SET]

        for setup in [None, *leader_writes(s)]:
            pre = [] if setup is None else self._chain(s, [lambda a, w=setup: a == w])
            if pre is None:
                continue
            at = pre[-1][1] if pre else s
            stored = at.shard.offset(KEY)
            if stored is None:
                continue
            cells = per_offset(stored.state_batches)
            for tie in leader_writes(at):
                if not any(cells.get(o, (-1, -1))[1] == b.delivery_count and cells[o][0] > b.delivery_state
                           for b in tie.batches for o in range(b.first_offset, b.last_offset + 1)):
                    continue
                for lead in ([], [_empty_write]):
                    rest = self._chain(at, [*lead, lambda a, w=tie: a == w])
                    if rest is None:
                        continue
                    written = (rest[-2][1] if len(rest) > 1 else at, rest[-1][1])
                    if (written[1].last_error == NONE and len(written[1].log) > len(written[0].log)
                            and isinstance(written[1].log[-1], ShareUpdate)):
                        return [*read, *pre, *rest]
        return None

    def routing_probes(self, state: SysState, k: int) -> list[tuple[str, Any]]:
        """SHARE-DRIVE-ROUTING-UNLOADED: a guided path of a target that answers FindCoordinator
        ends with the ``k``-th routing probe sent while the coordinator partition is unloaded
        (``Unload`` where the model offers it, the lookup, ``Load``): the broker answers from the
        key alone, loaded or not (SHARE-RULE-KEY-PARSE). The routing probes are stateless, so the
        guide sends each once, loaded; before this only random runs sent one to an unloaded shard
        (runs 174 and 178 at seeds 0 and 1 for the red team's ``find-coordinator-needs-load``,
        session 14)."""
        if not self.routes:
            return []
        out: list[tuple[str, Any]] = []
        if state.shard.active:
            unload = next((a for _, a in self.candidates_single(state) if isinstance(a, Unload)), None)
            if unload is None:
                return []
            out.append(("failover", unload))
        return [*out, ("routing", FindCoordinator(ROUTE_KEYS[k % len(ROUTE_KEYS)])), ("failover", Load())]

    def _parts_of(self, state: SysState, action: Any) -> list[tuple[Action, SysState]] | None:
        """The model actions of a composite step with the state after each (None: not enabled)."""
        if isinstance(action, ReloadWithoutTopic):
            return self._reload_parts(state)
        if isinstance(action, StaleReadWithoutTopic):
            return self._stale_read_parts(state)
        if isinstance(action, ReinitPruneReload):
            return self._prune_parts(state)
        if isinstance(action, CutReload):
            return self._cut_parts(state)
        if isinstance(action, DeleteThenRead):
            return self._delete_parts(state)
        if isinstance(action, ReinitAtCountedStart):
            return self._reinit_count_parts(state)
        if isinstance(action, FencesAcrossDelete):
            return self._fences_delete_parts(state)
        if isinstance(action, InnerBatchSplit):
            return self._inner_split_parts(state)
        if isinstance(action, ReinitBelowStored):
            return self._reinit_below_parts(state)
        if isinstance(action, StateEpochAcrossDelete):
            return self._state_delete_parts(state)
        if isinstance(action, PathEndProbe):
            return self._path_end_parts(state, action.name)
        return None

    def _path_end_next(self, state: SysState, action: Action) -> SysState | None:
        """The state after one part of a PathEndProbe (None: not enabled). Its records may pass
        the model's bound by PATH_END_RECORDS: that bound keeps the guide's graph finite, and a
        path-end probe is no edge of it (the path's end has mostly spent the records)."""
        after = self.model.next_state(state, action)
        if after is None or len(after.log) >= self.model.max_records + PATH_END_RECORDS:
            return None
        return after

    def _path_end_all(self, state: SysState, actions: list[Action]) -> list[tuple[Action, SysState]] | None:
        """Each of ``actions`` in turn from ``state`` as parts of a PathEndProbe, with the state
        after it; None if one is not enabled or not answered NONE."""
        parts: list[tuple[Action, SysState]] = []
        for action in actions:
            after = self._path_end_next(state, action)
            if after is None or after.last_error != NONE:
                return None
            parts.append((action, after))
            state = after
        return parts

    def _path_end_parts(self, state: SysState, name: str) -> list[tuple[Action, SysState]] | None:
        """The model actions of the path-end probe ``name`` (a PathEndProbe) from ``state``
        (PATH_END_PARTS)."""
        return PATH_END_PARTS[name](self, state)

    def _partition_added_parts(self, state: SysState) -> list[tuple[Action, SysState]] | None:
        """SHARE-DRIVE-PARTITION-ADDED (4.1+): partition 2 of topic ``T`` created (a
        MetadataUpdate whose image adds ``T``-2 to the one before), then the group coordinator
        initializes ``g:T:2``, its leader writes and reads it, each answered NONE: requests are
        validated against the new image (SHARE-RULE-METADATA-UPDATE,
        SHARE-RULE-VALIDATE-UNKNOWN-TOPIC). The driver's other inputs only delete topics, so a
        shard that never adds to its image answered as the model does (red team session 26's
        ``metadata-update-deletions-only``). None: not here (4.0 has no initialize, the shard
        unloaded, ``T``-2 already in the image, a part refused or out of bounds)."""
        if not self.model.rules.initialize or not state.shard.active:
            return None
        batches = (StateBatch(0, 0, ACKNOWLEDGED, 1),)
        actions: list[Action] = [CreatePartition(TOPIC, UNHOSTED.partition),
                                 Initialize(max(state.group_state_epoch, 0), 0, key=UNHOSTED),
                                 Write(0, 0, batches, state_epoch=max(state.group_state_epoch, 0), key=UNHOSTED),
                                 Read(0, key=UNHOSTED)]
        return self._path_end_all(state, actions)

    def _odd_group_parts(self, state: SysState) -> list[tuple[Action, SysState]] | None:
        """SHARE-DRIVE-ODD-GROUP-STATE (4.1+): the state RPCs for a group id KIP-932 allows that a
        parser of the coordinator key string gets wrong (``ODD_GROUP``: ':' inside, blanks around;
        the routing probes send such ids to FindCoordinator only): the group coordinator
        initializes ``ODD_GROUP:T:0``, its leader writes and reads it, each answered NONE and
        stored under that group id, untrimmed (SHARE-RULE-KEY). Red team session 28's
        ``state-key-parsed-from-string``: a shard that rebuilds the key from its string refused it
        or stored it as another group (None: 4.0, the shard unloaded, a part refused or out of
        bounds)."""
        if not self.model.rules.initialize or not state.shard.active:
            return None
        return self._key_parts(state, ODD_GROUP, 0, (StateBatch(0, 1, ACKNOWLEDGED, 1),))

    def _wide_start_parts(self, state: SysState) -> list[tuple[Action, SysState]] | None:
        """SHARE-DRIVE-WIDE-START-OFFSET (4.1+): offsets are 64-bit (SHARE-STATE-OFFSET: the
        request's ``StartOffset``, an int64 as every Kafka offset): ``g:T:1`` initialized at
        start offset 2^31 (past Integer.MAX_VALUE), its leader writes from 2^31 + 1 a batch
        ``[2^31, 2^31 + 2]`` and reads, each answered NONE; every other offset the driver sends
        is below 10. Red team session 28's ``start-offset-as-int32`` (None: as
        :meth:`_odd_group_parts`)."""
        if not self.model.rules.initialize or not state.shard.active:
            return None
        return self._key_parts(state, OTHER_PARTITION, WIDE_OFFSET,
                               (StateBatch(WIDE_OFFSET, WIDE_OFFSET + 2, ACKNOWLEDGED, 1),), WIDE_OFFSET + 1)

    def _gapped_parts(self, state: SysState) -> list[tuple[Action, SysState]] | None:
        """SHARE-DRIVE-GAPPED-BATCHES (4.1+): ``h:T:0`` initialized at start offset 0, its leader
        writes ``GAPPED`` (``[0,0]`` and ``[2,2]``, both ACKNOWLEDGED x1, offset 1 in no batch) and
        reads it, each answered NONE: the gap stays a gap (SHARE-RULE-COMBINE-MERGE merges only
        overlapping or contiguous batches; SHARE-INV-NO-LOSS's per-offset state). Every other
        write of the driver is one batch, or batches that touch or overlap, so a merge pass that
        joined equal neighbours without testing that they touch answered as the model does (red
        team session 29's ``equal-neighbours-bridge-gap``). None: as :meth:`_odd_group_parts`."""
        if not self.model.rules.initialize or not state.shard.active:
            return None
        return self._key_parts(state, OTHER_GROUP, 0, GAPPED)

    def _key_parts(self, state: SysState, key: SharePartitionKey, start: int, batches: tuple[StateBatch, ...],
                   write_start: int | None = None) -> list[tuple[Action, SysState]] | None:
        """``key`` initialized at ``start`` (at the higher of its state-epoch fence and the group's
        state epoch), written ``batches`` from ``write_start`` (default ``start``) and read at its
        leader-epoch fence, each answered NONE (None: a part refused or out of bounds)."""
        se = max(state.shard.state_epoch(key) or 0, state.group_state_epoch, 0)
        le = max(state.shard.leader_epoch(key) or 0, 0)
        return self._path_end_all(state, [
            Initialize(se, start, key=key),
            Write(le, start if write_start is None else write_start, batches, state_epoch=se, key=key),
            Read(le, key=key)])

    def _count_unknown_start_parts(self, state: SysState) -> list[tuple[Action, SysState]] | None:
        """SHARE-DRIVE-COUNT-AT-UNKNOWN-START (4.2+): ``g:T:1`` initialized with start offset -1
        where it is not stored so (the ``initialize`` candidate), then writes to it with start
        offset -1 and count 1, then 0, both answered NONE: start offsets -1 and -1 are equal, so
        the higher count stays (SHARE-RULE-WRITE-COUNT): 1, then 1 again (None: not here)."""
        rules = self.model.rules
        if not rules.delivery_complete_count or not rules.initialize or not state.shard.active:
            return None
        stored = state.shard.offset(OTHER_PARTITION)
        wants: list[Any] = [] if stored is not None and stored.start_offset == NOT_SET else [
            lambda a: isinstance(a, Initialize) and a.key == OTHER_PARTITION and a.start_offset == NOT_SET
            and a.state_epoch >= 0]
        parts = self._chain(state, wants, path_end=True)
        if parts is None or (parts and parts[-1][1].last_error != NONE):
            return None
        s = parts[-1][1] if parts else state
        current = s.shard.offset(OTHER_PARTITION)
        if current is None or current.start_offset != NOT_SET:
            return None
        batches = self.model.menu[-1][1]
        more = self._path_end_all(s, [Write(max(current.leader_epoch, 0), NOT_SET, batches,
                                            state_epoch=current.state_epoch, key=OTHER_PARTITION,
                                            delivery_complete_count=count) for count in (1, 0)])
        return None if more is None else parts + more

    def _leader_prelude(self, state: SysState) -> list[list[Any]]:
        """The preludes of a path-end write of the key's leader: the key's state stored (its
        initialize where it has none), or (4.1+) initialized again at start offset 0, then the
        current leader's read, or a read one epoch above it where that one is fenced (a path's
        end may have raised the fence: SHARE-DRIVE-REINIT-BELOW-WRITE)."""
        def reads(epoch: int) -> Any:
            return lambda a: isinstance(a, Read) and a.key == KEY and a.leader_epoch == epoch

        stores: list[list[Any]] = [self._store_first(state, KEY)]
        if self.model.rules.initialize:
            stores.append([lambda a: isinstance(a, Initialize) and a.key == KEY and a.start_offset == 0
                           and a.state_epoch >= state.group_state_epoch])
        return [[*store, reads(epoch)] for epoch in (state.leader_epoch, state.leader_epoch + 1) for store in stores]

    def _writes_after(self, state: SysState, prelude: list[Any],
                      writes: tuple[tuple[StateBatch, ...], ...]) -> list[tuple[Action, SysState]] | None:
        """``prelude`` (``_chain``'s wants, ending with a read answered NONE), then writes of
        ``writes`` with start offset -1 by that reader at the stored state epoch, each answered
        NONE (None: a part not enabled, refused or out of bounds)."""
        parts = self._chain(state, prelude, path_end=True)
        reader = parts[-1][0] if parts else None
        if parts is None or parts[-1][1].last_error != NONE or not isinstance(reader, Read):
            return None
        stored = parts[-1][1].shard.offset(KEY)
        if stored is None:
            return None
        more = self._path_end_all(parts[-1][1], [Write(reader.leader_epoch, NOT_SET, batches,
                                                       state_epoch=stored.state_epoch) for batches in writes])
        return None if more is None else parts + more

    def _inner_loser_parts(self, state: SysState) -> list[tuple[Action, SysState]] | None:
        """SHARE-DRIVE-INNER-LOSER: :class:`InnerBatchSplit`'s mirror. The key stored and read
        (initialized again at start offset 0 where the stored start offset would clip the
        range), the leader writes ``[0,3]`` ACKNOWLEDGED x2, then ``[1,2]`` AVAILABLE x1 strictly
        inside it: per offset the higher (count, state) stays (SHARE-RULE-COMBINE-PRIORITY), so
        the stored run is left whole; then a fail-over where the bounds allow (None: not here)."""
        if not state.shard.active:
            return None
        outer = INNER_LOSER[0]
        for prelude in self._leader_prelude(state):
            parts = self._writes_after(state, prelude, INNER_LOSER)
            if parts is None:
                continue
            stored = parts[-1][1].shard.offset(KEY)
            cells = per_offset(stored.state_batches) if stored is not None else {}
            if all(cells.get(o) == (b.delivery_state, b.delivery_count) for b in outer
                   for o in range(b.first_offset, b.last_offset + 1)):
                failover = self._chain(parts[-1][1], [lambda a: isinstance(a, Unload), lambda a: isinstance(a, Load)
                                                      and not isinstance(a, PrunedLoad)], path_end=True)
                return parts + (failover or [])
        return None

    def _zero_count_parts(self, state: SysState) -> list[tuple[Action, SysState]] | None:
        """SHARE-DRIVE-ZERO-DELIVERY-COUNT: the key stored and read, the leader writes one offset
        no stored batch covers (past every stored one) AVAILABLE with delivery count 0 (a record
        released with its count decremented): stored as written (SHARE-STATE-OFFSET); None: not
        here."""
        if not state.shard.active:
            return None
        for prelude in self._leader_prelude(state):
            parts = self._chain(state, prelude, path_end=True)
            if parts is None:
                continue
            stored = parts[-1][1].shard.offset(KEY)
            if stored is None:
                continue
            free = max([self.model.offsets, stored.start_offset, *(b.last_offset for b in stored.state_batches)]) + 1
            zero = (StateBatch(free, free, AVAILABLE, 0),)
            parts = self._writes_after(state, prelude, (zero,))
            if parts is None:
                continue
            after = parts[-1][1].shard.offset(KEY)
            if after is not None and per_offset(after.state_batches).get(free) == (AVAILABLE, 0):
                return parts
        return None

    def _count_below_parts(self, state: SysState) -> list[tuple[Action, SysState]] | None:
        """The model actions of SHARE-DRIVE-COUNT-FROM-BELOW from ``state`` (None: not enabled:
        KIP-1226's count is 4.2's, the shard must be loaded, the stored count below 2 at a known
        start offset before the probe, the probe answered NONE, every part in bounds)."""
        if not self.model.rules.delivery_complete_count or not state.shard.active:
            return None
        le = state.leader_epoch

        def leader_read(a: Any) -> bool:
            return isinstance(a, Read) and a.key == KEY and a.leader_epoch == le

        def from_unset(a: Any) -> bool:  # the counts probe: count 2 from start offset -1
            return (isinstance(a, Write) and a.key == KEY and a.leader_epoch == le and a.start_offset == NOT_SET
                    and a.delivery_complete_count == 2)

        preludes: list[list[Any]] = [[*self._store_first(state, KEY), leader_read]]
        if self.model.rules.initialize:
            preludes.append([lambda a: isinstance(a, Initialize) and a.key == KEY and a.start_offset == 0
                             and a.state_epoch >= state.group_state_epoch, leader_read])
        for prelude in preludes:
            parts = self._chain(state, [*prelude, from_unset])
            if parts is None:
                continue
            before = parts[-2][1].shard.offset(KEY)
            if (before is not None and before.start_offset != NOT_SET and before.delivery_complete_count < 2
                    and parts[-1][1].last_error == NONE):
                return parts
        return None

    def _chain(self, state: SysState, wants: list[Any], path_end: bool = False) -> list[tuple[Action, SysState]] | None:
        """The first enabled model action matching each of ``wants`` in turn, with the state after
        each (None: a part not offered there, or out of bounds; ``path_end``: the bounds of a
        path-end probe, ``_path_end_next``)."""
        parts: list[tuple[Action, SysState]] = []
        s = state
        for wanted in wants:
            a = next((a for _, a in self.candidates_single(s) if wanted(a)), None)
            after = None if a is None else self._path_end_next(s, a) if path_end else self.resolve(s, a)
            if a is None or after is None:
                return None
            parts.append((a, after))
            s = after
        return parts

    def _store_first(self, state: SysState, key: Any) -> list[Any]:
        """What a composite step that needs ``key``'s state stored starts with, as ``_chain``'s
        wants: nothing when it is stored, else the request that stores it (its initialize; 4.0
        has none: its first write)."""
        if state.shard.offset(key) is not None:
            return []
        first = Initialize if self.model.rules.initialize else Write  # 4.0 has no initialize
        return [lambda a: isinstance(a, first) and a.key == key]

    def _stale_read_parts(self, state: SysState) -> list[tuple[Action, SysState]] | None:
        """The model actions of :class:`StaleReadWithoutTopic` from ``state`` (None: not enabled:
        the shard must be loaded and topic ``U`` still in the image, every part within bounds)."""
        image = state.shard.image
        if not state.shard.active or image is None or all(t != DOOMED_TOPIC for t, _ in image):
            return None
        parts = self._chain(state, self._store_first(state, DOOMED))
        if parts is None:
            return None
        s = parts[-1][1] if parts else state
        fence = s.shard.leader_epoch(DOOMED)
        higher = Read((fence if fence is not None else 0) + 1, key=DOOMED)
        after = self.resolve(s, higher)
        if after is None:
            return None
        rest = self._chain(after, [lambda a: isinstance(a, DeleteTopic),
                                   lambda a: isinstance(a, Read) and a.key == DOOMED and a.leader_epoch == 0])
        return None if rest is None else [*parts, (higher, after), *rest]

    def _prune_parts(self, state: SysState) -> list[tuple[Action, SysState]] | None:
        """The model actions of :class:`ReinitPruneReload` from ``state`` (None: not enabled: 4.0
        has no initialize, the shard must be loaded, and the pruned load must be offered)."""
        if not self.model.rules.initialize or not state.shard.active:
            return None
        wants: list[Any] = []
        if state.shard.offset(KEY) is None:
            wants.append(lambda a: isinstance(a, Initialize) and a.key == KEY and a.start_offset == 0)
        if state.leader_epoch == 0:
            wants.append(lambda a: isinstance(a, Elect))
        wants.append(lambda a: isinstance(a, Read) and a.key == KEY and a.leader_epoch > 0)
        rest: list[Any] = [lambda a: isinstance(a, Initialize) and a.key == KEY and a.start_offset == 0
                           and a.state_epoch >= state.group_state_epoch,
                           lambda a: isinstance(a, Unload), lambda a: isinstance(a, PrunedLoad)]
        # At a snapshot limit above 1 the reinitialize's snapshot may leave an update count the
        # records after it do not rebuild (no pruned load is offered): the new leader's write of
        # nothing first (a ShareUpdate at its epoch, below the redundant offset once pruned).
        return self._chain(state, wants + rest) or self._chain(state, [*wants, _empty_write, *rest])

    def _delete_parts(self, state: SysState) -> list[tuple[Action, SysState]] | None:
        """The model actions of :class:`DeleteThenRead` from ``state`` (None: not enabled: 4.0
        has no delete, and the shard must be loaded)."""
        if not self.model.rules.initialize or not state.shard.active:
            return None
        return self._chain(state, [*self._store_first(state, KEY), lambda a: isinstance(a, Delete) and a.key == KEY,
                                   lambda a: isinstance(a, Read) and a.key == KEY
                                   and a.leader_epoch == state.leader_epoch])

    def _fences_delete_parts(self, state: SysState) -> list[tuple[Action, SysState]] | None:
        """The model actions of :class:`FencesAcrossDelete` from ``state`` (None: not enabled: 4.0
        has no delete, the shard must be loaded, every part offered and in bounds)."""
        if not self.model.rules.initialize or not state.shard.active:
            return None
        le = state.leader_epoch

        def leader_write(a: Any) -> bool:  # the menu's: the state epoch its read gave, no count
            return (isinstance(a, Write) and a.key == KEY and a.leader_epoch == le and a.state_epoch is None
                    and a.delivery_complete_count == NOT_SET)

        return self._chain(state, [*self._store_first(state, KEY),
                                   lambda a: isinstance(a, Read) and a.key == KEY and a.leader_epoch == le + 1,
                                   lambda a: isinstance(a, Delete) and a.key == KEY,
                                   lambda a: isinstance(a, Initialize) and a.key == KEY,
                                   lambda a: isinstance(a, Read) and a.key == KEY and a.leader_epoch == le,
                                   leader_write])

    def _reinit_below_parts(self, state: SysState) -> list[tuple[Action, SysState]] | None:
        """The model actions of :class:`ReinitBelowStored` from ``state`` (None: not enabled: 4.0
        has no initialize, the shard must be loaded, the start offset moved past 0 before the
        initialize, every part offered and in bounds)."""
        if not self.model.rules.initialize or not state.shard.active:
            return None
        le = state.leader_epoch

        def mover(a: Any) -> bool:  # the leader's menu write that moves the start offset past 0
            return (isinstance(a, Write) and a.key == KEY and a.start_offset > 0 and a.state_epoch is None
                    and a.delivery_complete_count == NOT_SET and a.leader_epoch == le)

        parts = self._chain(state, [*self._store_first(state, KEY),
                                    lambda a: isinstance(a, Read) and a.key == KEY and a.leader_epoch == le,
                                    mover,
                                    lambda a: isinstance(a, Read) and a.key == KEY and a.leader_epoch == le + 1,
                                    lambda a: isinstance(a, Initialize) and a.key == KEY and a.start_offset == 0,
                                    lambda a: isinstance(a, Read) and a.key == KEY and a.leader_epoch == le,
                                    lambda a: isinstance(a, Read) and a.key == KEY and a.leader_epoch == le + 1])
        if parts is None:
            return None
        before_init = parts[-4][1].shard.offset(KEY)
        if before_init is None or before_init.start_offset <= 0 or parts[-3][1].last_error != NONE:
            return None
        return parts + (self._below_write_parts(parts[-1][1], le + 1, before_init.start_offset) or [])

    def _below_write_parts(self, state: SysState, le: int, old_start: int) -> list[tuple[Action, SysState]] | None:
        """SHARE-DRIVE-REINIT-BELOW-WRITE: after :class:`ReinitBelowStored`'s initialize at start
        offset 0, the leader of epoch ``le`` (whose read was answered NONE) writes with start offset
        0, below the start offset the initialize replaced (``old_start``), and reads: the start
        offset stays 0 (SHARE-RULE-WRITE-START-MONOTONE: only the stored start offset bounds a
        write, and the initialize lowered it). None where the bounds leave no room, the write is
        not answered NONE or it does not store start offset 0."""
        stored = state.shard.offset(KEY)
        if stored is None:
            return None
        write = Write(le, 0, self.model.menu[0][1], state_epoch=stored.state_epoch)  # the one its read gave
        after = self.resolve(state, write)
        if after is None or after.last_error != NONE or old_start <= 0:
            return None
        stored = after.shard.offset(KEY)
        if stored is None or stored.start_offset != 0:
            return None
        read = self._chain(after, [lambda a: isinstance(a, Read) and a.key == KEY and a.leader_epoch == le])
        return None if read is None else [(write, after), *read]

    def _state_delete_parts(self, state: SysState) -> list[tuple[Action, SysState]] | None:
        """The model actions of :class:`StateEpochAcrossDelete` from ``state`` (None: not
        enabled: 4.0 has no delete, the shard must be loaded, every part offered and in bounds)."""
        if not self.model.rules.initialize or not state.shard.active:
            return None
        parts = self._chain(state, self._store_first(state, KEY))
        if parts is None:
            return None
        s = parts[-1][1] if parts else state
        stored = s.shard.offset(KEY)
        if stored is not None and stored.state_epoch <= 0:
            raised = self._chain(s, [lambda a: isinstance(a, Initialize) and a.key == KEY
                                     and a.state_epoch == s.group_state_epoch + 1])
            if raised is None:
                return None
            parts, s = parts + raised, raised[-1][1]
            stored = s.shard.offset(KEY)
        if stored is None:
            return None
        below, le = stored.state_epoch - 1, s.leader_epoch

        def leader_write(a: Any) -> bool:  # the menu's: the state epoch its read gave, no count
            return (isinstance(a, Write) and a.key == KEY and a.leader_epoch == le and a.state_epoch is None
                    and a.delivery_complete_count == NOT_SET)

        rest = self._chain(s, [lambda a: isinstance(a, Delete) and a.key == KEY,
                               lambda a: isinstance(a, Initialize) and a.key == KEY and a.state_epoch == below,
                               lambda a: isinstance(a, Read) and a.key == KEY and a.leader_epoch == le,
                               leader_write])
        return None if rest is None else parts + rest

    def _reinit_count_parts(self, state: SysState) -> list[tuple[Action, SysState]] | None:
        """The model actions of :class:`ReinitAtCountedStart` from ``state`` (None: not enabled:
        KIP-1226's count is 4.2's, the shard must be loaded, every part offered and in bounds)."""
        if not self.model.rules.delivery_complete_count or not state.shard.active:
            return None

        def reinit(a: Any) -> bool:
            return isinstance(a, Initialize) and a.key == KEY and a.start_offset == 0

        def leader_read(a: Any) -> bool:
            return isinstance(a, Read) and a.key == KEY and a.leader_epoch == state.leader_epoch

        def counted(a: Any) -> bool:  # the counts probe: a higher count at the same start offset
            return isinstance(a, Write) and a.key == KEY and a.start_offset == 0 and a.delivery_complete_count == 2

        def lower(a: Any) -> bool:  # SHARE-DRIVE-COUNT-KEPT-AT-START: then a lower one there (2 stays)
            return isinstance(a, Write) and a.key == KEY and a.start_offset == 0 and a.delivery_complete_count == 0

        # Without the lower write where the bounds leave no room for its record.
        return (self._chain(state, [reinit, leader_read, counted, lower, reinit])
                or self._chain(state, [reinit, leader_read, counted, reinit]))

    def _cut_parts(self, state: SysState) -> list[tuple[Action, SysState]] | None:
        """The model actions of :class:`CutReload` from ``state`` (None: not enabled: the shard
        must be loaded, some batch probe must store a batch a start offset can cut, and every
        part must be offered and in bounds)."""
        if not state.shard.active:
            return None

        def cutting(a: Any) -> bool:  # SHARE-DRIVE-CUT-BATCH's probe: a start offset, no batches
            return isinstance(a, Write) and a.key == KEY and a.start_offset != NOT_SET and not a.batches

        parts = self._chain(state, self._store_first(state, KEY))
        if parts is None:
            return None
        s = parts[-1][1] if parts else state
        if not any(cutting(a) for _, a in self.candidates_single(s)):
            store = self._cut_store(s, cutting)
            if store is None:
                return None
            parts += store
            s = store[-1][1]
        tail: list[Any] = [cutting, lambda a: isinstance(a, Unload),
                           lambda a: isinstance(a, Load) and not isinstance(a, PrunedLoad)]
        rest = self._chain(s, tail)
        if rest is not None and self.model.snapshot_every > 0 and not isinstance(rest[0][1].log[-1], ShareUpdate):
            # The cut would be the limit snapshot (the handler's clip): one empty write first
            # makes the cut an update, whose clip is the replay's.
            rest = self._chain(s, [_empty_write, *tail]) or rest
        return None if rest is None else parts + rest

    def _cut_store(self, state: SysState, cutting: Any) -> list[tuple[Action, SysState]] | None:
        """The first batch probe after which a cut is offered (the menu may have moved the start
        offset past a probe's multi-offset batch), preceded by the leader's read when the write
        needs one (after an initialize, a write at a state epoch the leader has not read is
        fenced)."""
        for prelude in ([], [lambda a: isinstance(a, Read) and a.key == KEY and a.leader_epoch == state.leader_epoch]):
            before = self._chain(state, prelude, path_end=True)
            if before is None:
                continue
            s = before[-1][1] if before else state
            for _, a in self.candidates_single(s):
                if isinstance(a, Write) and a.key == KEY and any(b.first_offset < b.last_offset for b in a.batches):
                    after = self.resolve(s, a)
                    if after is not None and any(cutting(c) for _, c in self.candidates_single(after)):
                        return [*before, (a, after)]
        return None

    def _inner_split_parts(self, state: SysState) -> list[tuple[Action, SysState]] | None:
        """The model actions of :class:`InnerBatchSplit` from ``state`` (None: not enabled: the
        shard must be loaded, the range stored whole (no stored start offset above 0 or higher
        cell of the key clips it), both writes answered NONE and every part within bounds)."""
        if not state.shard.active:
            return None

        def leader_read(a: Any) -> bool:
            return isinstance(a, Read) and a.key == KEY and a.leader_epoch == state.leader_epoch

        preludes: list[list[Any]] = [[*self._store_first(state, KEY), leader_read]]
        if self.model.rules.initialize:  # a reset to start offset 0 where the stored start clips the range
            preludes.append([lambda a: isinstance(a, Initialize) and a.key == KEY and a.start_offset == 0
                             and a.state_epoch >= state.group_state_epoch, leader_read])
        outer, inner = INNER_SPLIT
        for prelude in preludes:
            parts = self._chain(state, prelude, path_end=True)
            if parts is None:
                continue
            for batches in (outer, inner):
                s = parts[-1][1]
                after = self.resolve(s, Write(state.leader_epoch, NOT_SET, batches))
                if after is None or after.last_error != NONE:
                    break
                parts.append((Write(state.leader_epoch, NOT_SET, batches), after))
            else:
                stored = parts[-2][1].shard.offset(KEY)  # after the outer write
                cells = per_offset(stored.state_batches) if stored is not None else {}
                if all(cells.get(o) == (b.delivery_state, b.delivery_count) for b in outer
                       for o in range(b.first_offset, b.last_offset + 1)):
                    failover = self._chain(parts[-1][1], [lambda a: isinstance(a, Unload), lambda a: isinstance(a, Load)
                                                          and not isinstance(a, PrunedLoad)])
                    return parts + (failover or [])
        return None

    def _category_of(self, state: SysState, action: Action) -> str:
        return next(c for c, a in self.candidates_single(state) if a == action)

    def candidates_single(self, state: SysState) -> list[tuple[str, Any]]:
        """The model's single actions (:meth:`candidates` without the composite step)."""
        probes = list(self.model.probe_actions(state)) if self.model.probes else []
        probe_set = {a for _, a in probes}
        out: list[tuple[str, Any]] = []
        for action in self.model.actions(state):
            if action in probe_set:
                continue
            if isinstance(action, Write):
                out.append(("write", action))
            elif isinstance(action, Read):
                out.append(("read", action))
            elif isinstance(action, Unload | Load):
                out.append(("failover", action))
            elif isinstance(action, Elect):
                out.append(("elect", action))
            elif isinstance(action, Initialize):
                out.append(("initialize", action))
            elif isinstance(action, Delete | Summary):  # only from probes; kept for a model without
                out.append(("delete" if isinstance(action, Delete) else "summary", action))
        return out + probes

    def _reload_parts(self, state: SysState) -> list[tuple[Action, SysState]] | None:
        """The model actions of :class:`ReloadWithoutTopic` from ``state`` with the state after
        each (None: not enabled here: each part must be one the model offers, within bounds)."""
        image = state.shard.image
        if not state.shard.active or image is None or all(t != DOOMED_TOPIC for t, _ in image):
            return None

        # SHARE-DRIVE-IMAGE-WHILE-UNLOADED: the topic is deleted while the shard is unloaded, so
        # the new shard must take the image as it is at Load, including a MetadataUpdate that
        # came during the fail-over (red team session 15's ``image-dropped-while-unloaded``
        # was caught by random runs only; deleted before the Unload it was not told apart).
        return self._chain(state, [*self._store_first(state, DOOMED), lambda a: isinstance(a, Unload),
                                   lambda a: isinstance(a, DeleteTopic),
                                   lambda a: isinstance(a, Load) and not isinstance(a, PrunedLoad),
                                   lambda a: isinstance(a, Read) and a.key == DOOMED])

    def resolve(self, state: SysState, action: Any) -> SysState | None:
        if isinstance(action, COMPOSITES):
            parts = self._parts_of(state, action)
            return None if parts is None else parts[-1][1]
        after = self.model.next_state(state, action)
        if after is None or not self.model.within_bounds(after):
            return None
        return after

    def events(self, before: SysState, action: Action, after: SysState) -> list[Event]:
        if isinstance(action, COMPOSITES):
            out: list[Event] = []
            s = before
            for part, nxt in self._parts_of(before, action) or []:
                out += [Event(e.node, e.input, e.model_outputs, e.model_observation, self.describe(part))
                        for e in self.events(s, part, nxt)]
                s = nxt
            return out
        obs = observe(after.shard)
        if isinstance(action, Unload):
            return [Event(0, {"type": "Unload"}, [], obs)]
        if isinstance(action, Load):
            # After a PrunedLoad the records below ``log_start_offset`` are gone (the runtime's
            # deleteRecords): a shard replays from there. The whole log is sent all the same, so
            # a target that never prunes replays it (SHARE-RULE-PRUNE-INVISIBLE: the same answers).
            start = {"log_start_offset": after.log_start} if after.log_start else {}
            return [Event(0, {"type": "Load", "records": encode(before.log), **start}, [], obs)]
        if isinstance(action, DeleteTopic | CreatePartition):
            image = after.shard.image or frozenset()
            return [Event(0, {"type": "MetadataUpdate", "image": sorted([t, p] for t, p in image)}, [], obs)]
        request = request_of(before, action)
        if request is None:
            return []
        _, outputs = step_with(before.shard, request, self.model.flaws)
        return [Event(0, encode(request), encode(outputs), obs)]

    def describe(self, action: Any) -> str:
        if isinstance(action, PathEndProbe):
            return PATH_END_LABELS[action.name]
        if isinstance(action, ReinitAtCountedStart):
            return ("the leader raises the count at the stored start offset and writes a lower one there, "
                    "the group coordinator initializes there again")
        if isinstance(action, ReloadWithoutTopic):
            key = DOOMED.coordinator_key()
            return f"topic {DOOMED_TOPIC} deleted during a fail-over while [{key}] is stored, its leader reads"
        if isinstance(action, DeleteThenRead):
            return "the group coordinator deletes the state, its leader reads"
        if isinstance(action, FencesAcrossDelete):
            return ("a leader one epoch ahead reads, the group coordinator deletes and initializes the state, "
                    "the current leader reads and writes below the deleted fence")
        if isinstance(action, StaleReadWithoutTopic):
            key = DOOMED.coordinator_key()
            return f"a new leader of [{key}] reads, topic {DOOMED_TOPIC} is deleted, the old leader reads"
        if isinstance(action, CutReload):
            return "a write whose start offset cuts a stored batch, fail-over (the replay clips it)"
        if isinstance(action, ReinitPruneReload):
            return ("a new leader reads, the group coordinator initializes again, fail-over from the log "
                    "pruned below the redundant offset")
        if isinstance(action, InnerBatchSplit):
            return "the leader writes [0,3], then a higher batch strictly inside it, fail-over"
        if isinstance(action, ReinitBelowStored):
            return ("the leader moves the start offset, a leader one epoch ahead reads, the group coordinator "
                    "initializes at start offset 0, both leaders read, the new one writes at start offset 0 "
                    "and reads")
        if isinstance(action, StateEpochAcrossDelete):
            return ("the group coordinator deletes the state and initializes it at a lower state epoch, "
                    "the leader reads and writes")
        return self.model.describe_action(action)

    # -- what is compared (spec/share.md, "What is observable") --------------------------------

    @staticmethod
    def comparable(output: JSON) -> JSON:
        """An output as the protocol makes it observable: the state batches of a record or a
        read response coalesced (SHARE-OBS-BATCHES), a response's error code without its free
        text (SHARE-OBS-ERRORS); every other field as sent."""
        if not isinstance(output, dict):
            return output
        if output.get("type") == "ShareUpdate":
            # An update is a delta: "unchanged" may be -1 or the stored value, and batches below
            # the start offset may be pruned before or at replay (4.4 does both): the same
            # replay, which the observation after the step compares (SHARE-OBS-RECORDS).
            return {k: v for k, v in output.items() if k in ("type", "key", "snapshot_epoch")}
        if isinstance(output.get("state_batches"), list):
            output = {**output, "state_batches": _coalesced_objects(output["state_batches"])}
        return {k: v for k, v in output.items() if k != "message"}

    def canonical_observation(self, inp: JSON, observation: JSON) -> JSON:
        """``harness.UnorderedObservations``: what of an observation is compared (the redundant
        offset only for a target that reports it)."""
        if isinstance(observation, dict) and not self.observes_redundant:
            observation = {k: v for k, v in observation.items() if k != "redundant_offset"}
        return self.comparable_observation(observation)

    @staticmethod
    def comparable_observation(observation: JSON) -> JSON:
        """The shard's observation with each stored offset's batches coalesced (SHARE-OBS-BATCHES)
        and without the update count (SHARE-OBS-RECORDS)."""
        if not isinstance(observation, dict) or not isinstance(observation.get("partitions"), dict):
            return observation
        parts: dict[str, JSON] = {}
        for key, p in observation["partitions"].items():
            off = p.get("offset") if isinstance(p, dict) else None
            if isinstance(off, dict) and isinstance(off.get("state_batches"), list):
                p = {**p, "offset": {**off, "state_batches": _coalesced_rows(off["state_batches"])}}
            if isinstance(p, dict):
                # The update count is bookkeeping: what it decides (a ShareSnapshot or a
                # ShareUpdate next) is compared in the records (SHARE-OBS-RECORDS).
                p = {k: v for k, v in p.items() if k != "update_count"}
            parts[key] = p
        return {**observation, "partitions": parts}

    def model_violation(self, before: SysState, action: Any, after: SysState) -> str | None:
        if isinstance(action, COMPOSITES):
            s = before
            for part, nxt in self._parts_of(before, action) or []:
                found = first_violated(self._always + self._always_step, s, part, nxt)
                if found is not None:
                    return found
                s = nxt
            return None
        return first_violated(self._always + self._always_step, before, action, after)

    def input_error(self, inp: JSON) -> str | None:
        """A Load's ``log_start_offset`` (absent: nothing pruned) is an offset into its records:
        targets replay from it and ``observed_violation`` reads it, so a replayed file's must be
        one (SHARE-RULE-PRUNE-INVISIBLE)."""
        if not isinstance(inp, dict) or inp.get("type") != "Load" or "log_start_offset" not in inp:
            return None
        start, records = inp["log_start_offset"], inp.get("records")
        end = len(records) if isinstance(records, list) else 0
        if isinstance(start, bool) or not isinstance(start, int) or not 0 <= start <= end:
            return f"log_start_offset: {repr(start)[:40]} is not an offset from 0 to {end} (the Load's records)"
        return None

    def observed_violation(self, node: Any, inp: JSON, observations: dict[Any, JSON],
                           memory: dict[str, Any]) -> str | None:
        """Checks on the shard's observations alone: a reload gives back what the handlers kept
        (SHARE-INV-REPLAY-EQUALS-HANDLERS) and the epoch fences never move back
        (SHARE-INV-EPOCHS-MONOTONE) while the key is stored (a delete forgets them)."""
        obs = observations[node]
        parts = obs.get("partitions") or {}
        kind = inp.get("type") if isinstance(inp, dict) else None
        pruned = kind == "Load" and bool(inp.get("log_start_offset"))
        if kind == "Unload":
            memory["before_unload"] = parts
        elif kind == "Load" and "before_unload" in memory and _reloaded_view(parts, pruned, self._prune_forgets) \
                != _reloaded_view(memory["before_unload"], pruned, self._prune_forgets):
            if pruned and _reloaded_view(parts, True, True) == _reloaded_view(memory["before_unload"], True, True):
                return ("SHARE-INV-PRUNE-KEEPS-FENCES: the shard loaded from the log pruned below the redundant "
                        "offset lost an epoch fence the unloaded one held")
            return "SHARE-INV-REPLAY-EQUALS-HANDLERS: the reloaded shard differs from the one that was unloaded"
        if pruned and self._prune_forgets:
            memory.pop("fences", None)  # the accepted deviation: a pruned load may lower a fence
        fences: dict[str, tuple[Any, Any]] = memory.setdefault("fences", {})
        for key in [k for k in fences if k not in parts]:
            del fences[key]  # a delete forgets the key, fences too (SHARE-RULE-DELETE; the model judges it)
        for key, p in parts.items():
            now = (p.get("leader_epoch_fence"), p.get("state_epoch_fence"))
            old = fences.get(key)
            if old is not None:
                for name, a, b in (("leader", old[0], now[0]), ("state", old[1], now[1])):
                    if isinstance(a, int) and (not isinstance(b, int) or b < a):
                        return f"SHARE-INV-EPOCHS-MONOTONE: the {name} epoch fence of {key} went from {a} to {b}"
            fences[key] = now
        return None


# SHARE-DRIVE-COUNT-AT-UNKNOWN-START, SHARE-DRIVE-INNER-LOSER, SHARE-DRIVE-ZERO-DELIVERY-COUNT (session 26),
# SHARE-DRIVE-PARTITION-ADDED (session 27): the path-end probes that are PathEndProbe composites, in
# the order a path's end sends them: the categories of their parts (PathEndProbe.needs), the
# function that makes their parts from a state (None: not enabled there; bench/_probes.py switches
# one off by replacing its entry), and their labels.
PATH_END_NEEDS: dict[str, tuple[str, ...]] = {
    "SHARE-DRIVE-COUNT-AT-UNKNOWN-START": ("initialize", "counts"),
    "SHARE-DRIVE-INNER-LOSER": ("initialize", "read", "batches", "failover"),
    "SHARE-DRIVE-ZERO-DELIVERY-COUNT": ("initialize", "read", "batches"),
    "SHARE-DRIVE-PARTITION-ADDED": ("image", "keys", "initialize", "read"),
    "SHARE-DRIVE-ODD-GROUP-STATE": ("keys", "initialize", "read"),
    "SHARE-DRIVE-WIDE-START-OFFSET": ("keys", "initialize", "read"),
    "SHARE-DRIVE-GAPPED-BATCHES": ("keys", "initialize", "read", "batches"),
}
PATH_END_PARTS: dict[str, Callable[[ShareDriver, SysState], list[tuple[Action, SysState]] | None]] = {
    "SHARE-DRIVE-COUNT-AT-UNKNOWN-START": ShareDriver._count_unknown_start_parts,
    "SHARE-DRIVE-INNER-LOSER": ShareDriver._inner_loser_parts,
    "SHARE-DRIVE-ZERO-DELIVERY-COUNT": ShareDriver._zero_count_parts,
    "SHARE-DRIVE-PARTITION-ADDED": ShareDriver._partition_added_parts,
    "SHARE-DRIVE-ODD-GROUP-STATE": ShareDriver._odd_group_parts,
    "SHARE-DRIVE-WIDE-START-OFFSET": ShareDriver._wide_start_parts,
    "SHARE-DRIVE-GAPPED-BATCHES": ShareDriver._gapped_parts,
}
PATH_END_PROBES = tuple(PATH_END_NEEDS)
PATH_END_LABELS: dict[str, str] = {
    "SHARE-DRIVE-COUNT-AT-UNKNOWN-START": "g:T:1 initialized at start offset -1, writes at start offset -1 with "
                                          "counts 1 then 0",
    "SHARE-DRIVE-INNER-LOSER": "the leader writes [0,3] ACKNOWLEDGED x2, then [1,2] AVAILABLE x1 inside it",
    "SHARE-DRIVE-ZERO-DELIVERY-COUNT": "the leader writes a free offset AVAILABLE with delivery count 0",
    "SHARE-DRIVE-PARTITION-ADDED": "partition 2 of topic T is created, g:T:2 is initialized, written and read",
    "SHARE-DRIVE-ODD-GROUP-STATE": "' a:b ':T:0 (a group id with ':' and blanks) is initialized, written and read",
    "SHARE-DRIVE-WIDE-START-OFFSET": "g:T:1 is initialized at start offset 2^31, written from 2^31 + 1 and read",
    "SHARE-DRIVE-GAPPED-BATCHES": "h:T:0 is initialized, written [0,0] and [2,2] ACKNOWLEDGED x1 (offset 1 a gap) "
                                  "and read",
}


def _empty_write(action: Any) -> bool:
    """The leader's write of nothing to the key (no start offset, no batches: the first batch
    probe): it only moves the update count, which a composite step uses to choose whether its
    next write is a ShareUpdate or the limit snapshot."""
    return isinstance(action, Write) and action.key == KEY and action.start_offset == NOT_SET and not action.batches


def _reloaded_view(parts: Any, pruned: bool, forgets_fences: bool) -> Any:
    """What a reload must give back of the unloaded shard's partitions: all of it, but after a
    pruned load (``log_start_offset``) not the update count (a count the records left do not
    rebuild chooses the same next record, ``prune_offset``) and, with the deviation
    ``share-prune-forgets-leader-fence`` accepted, not the fences."""
    if not pruned or not isinstance(parts, dict):
        return parts
    dropped = {"update_count"} | ({"leader_epoch_fence", "state_epoch_fence"} if forgets_fences else set())
    return {k: {f: v for f, v in p.items() if f not in dropped} if isinstance(p, dict) else p
            for k, p in parts.items()}


def _coalesced_rows(rows: list[Any]) -> JSON:
    """``[[first, last, state, count], ...]`` coalesced; malformed rows are left for the diff to show."""
    try:
        batches = [StateBatch(*(int(x) for x in row)) for row in rows]
    except (TypeError, ValueError):
        return rows
    return [[b.first_offset, b.last_offset, b.delivery_state, b.delivery_count] for b in coalesce(batches)]


def _coalesced_objects(objs: list[Any]) -> JSON:
    """``[{"type": "StateBatch", ...}, ...]`` coalesced (records and read responses)."""
    try:
        batches = [StateBatch(int(o["first_offset"]), int(o["last_offset"]), int(o["delivery_state"]),
                              int(o["delivery_count"])) for o in objs]
    except (TypeError, ValueError, KeyError):
        return objs
    return [{"type": "StateBatch", "first_offset": b.first_offset, "last_offset": b.last_offset,
             "delivery_state": b.delivery_state, "delivery_count": b.delivery_count} for b in coalesce(batches)]
