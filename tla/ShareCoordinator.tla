-------------------------- MODULE ShareCoordinator --------------------------
(***************************************************************************)
(* KIP-932 share coordinator, system level (spec/share.md; the Python twin  *)
(* is kspec.model.share.system.ShareSystem).                                *)
(*                                                                         *)
(* One share-partition key served by one coordinator shard.  The actors    *)
(* are the current share-partition leader (epoch leader_epoch), the        *)
(* previous one (leader_epoch - 1, still writing), leader elections, the   *)
(* group coordinator initializing a new state epoch, and fail-over: the    *)
(* broker loses the coordinator partition (Unload) and a new shard         *)
(* rebuilds the state by replaying the log (Load).  Next to the real       *)
(* state, oracle / oracle_start are a per-offset reference of what the     *)
(* accepted writes mean (SHARE-INV-NO-LOSS).                               *)
(*                                                                         *)
(* Variables, actions and invariants carry the names of the Python state's *)
(* fields, action classes and properties, so that tla/mappings/share.py    *)
(* maps a Python state to exactly these values (one to one).  The four     *)
(* boolean constants are the deliberate flaws of model/share/variants.py   *)
(* (Flaws in model/share/shard.py): all FALSE is the reference spec.       *)
(* KafkaMinor chooses the Kafka 4.N release's rules (model/share/         *)
(* versions.py, the SHARE-VER rules of spec/share.md).                     *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    Offsets,          \* offsets 0..Offsets-1 the leaders write state for
    MaxRecords,       \* records in the log; longer logs are not expanded (CONSTRAINT)
    SnapshotEvery,    \* share.coordinator.snapshot.update.records.per.snapshot
    MaxLeaderEpoch,   \* share-partition leader elections
    MaxStateEpoch,    \* InitializeShareGroupState calls with a new state epoch
    MaxFailovers,     \* coordinator fail-overs
    SeedBug,          \* flaw seed_bug: the limit snapshot keeps only the new batches when the start moves
    LowerCountWins,   \* flaw lower_count_wins: the handlers' combiner keeps the lower delivery count
    InitAsUpdate,     \* flaw init_as_update: initialize of a known key is written as a ShareUpdate
    NoLeaderFence,    \* flaw no_leader_fence: writes are not fenced by an older leader epoch
    KafkaMinor        \* the Kafka 4.N release whose shard rules apply (ShareSystem's kafka_minor)

VARIABLES
    shard,               \* the coordinator shard (ShardState): maps keyed by share-partition key
    log,                 \* the records of the coordinator partition, in order
    leader_epoch,        \* the current share-partition leader's epoch
    leader_state_epoch,  \* the state epoch the leader last read
    group_state_epoch,   \* the state epoch the group coordinator last initialized
    oracle_start,        \* the reference start offset
    oracle,              \* the reference batches (per offset, combine_oracle)
    failovers,           \* fail-overs so far
    last_error           \* the error of the last response ("NONE" for success or no request)

vars == <<shard, log, leader_epoch, leader_state_epoch, group_state_epoch, oracle_start, oracle,
          failovers, last_error>>

-----------------------------------------------------------------------------
(* Constants of the model (model/share/records.py, shard.py, system.py).   *)

NOT_SET == -1                 \* "not set" start offset / epoch in a write (SHARE-RULE-WRITE-MINUS-ONE)
AVAILABLE == 0
ACKNOWLEDGED == 2
DEFAULT_STATE_EPOCH == 0

NONE == "NONE"
INVALID_REQUEST == "INVALID_REQUEST"
FENCED_LEADER_EPOCH == "FENCED_LEADER_EPOCH"
FENCED_STATE_EPOCH == "FENCED_STATE_EPOCH"
UNKNOWN_TOPIC_OR_PARTITION == "UNKNOWN_TOPIC_OR_PARTITION"
COORDINATOR_NOT_AVAILABLE == "COORDINATOR_NOT_AVAILABLE"

\* SHARE-RULE-KEY: the one share-partition key (SharePartitionKey("g", "T", 0)).
Key == [group_id |-> "g", topic_id |-> "T", partition |-> 0]
\* SHARE-STATE-IMAGE: the metadata image's topic partitions.
Image == {<<"T", 0>>}

-----------------------------------------------------------------------------
(* Where Kafka's rule sets differ (versions.Rules; spec/share.md, Versions). *)

HasInitialize == KafkaMinor >= 1        \* SHARE-VER-INITIALIZE
UninitializedRefused == KafkaMinor >= 1 \* SHARE-VER-UNINITIALIZED-REFUSED
(* The protocol in every rule set. Releases that differ here have bugs (known deviations,  *)
(* spec/share.md): KAFKA-19456 (writes recorded their epochs, 4.1 a state-epoch snapshot), *)
(* apache/kafka#21426 (count from 0), KAFKA-20694 (reads with -1 fenced).                   *)
StateEpochSnapshot == FALSE
WriteKeepsEpochs == TRUE
UpdateCountFromOne == TRUE
ReadFenceSkipsUnset == TRUE
NegativeEpochsRefused == KafkaMinor >= 4 \* SHARE-VER-NEGATIVE-EPOCHS-REFUSED (KAFKA-20743)

-----------------------------------------------------------------------------
(* The shard's maps, keyed by share-partition key (SHARE-STATE-MAPS).      *)

EmptyMap == [k \in {} |-> 0]
Has(m, k) == k \in DOMAIN m
Put(m, k, v) == [x \in DOMAIN m \cup {k} |-> IF x = k THEN v ELSE m[x]]
Drop(m, k) == [x \in DOMAIN m \ {k} |-> m[x]]
\* maybeUpdateLeaderEpochMap / maybeUpdateStateEpochMap: keep the maximum.
MaxEpoch(m, k, e) == IF Has(m, k) /\ m[k] >= e THEN m ELSE Put(m, k, e)

-----------------------------------------------------------------------------
(* Combining state batches (the SHARE-RULE-COMBINE rules), per offset.             *)
(* A batch is [first_offset, last_offset, delivery_state, delivery_count]. *)
(* On every offset at or above the start offset (every offset when it is  *)
(* -1) the batch of highest (delivery count, delivery state) wins, from    *)
(* either list; the result is the maximal runs of equal cells, in offset   *)
(* order: the canonical form combiner.combine returns.                     *)

Batch(f, l, st, c) == [first_offset |-> f, last_offset |-> l, delivery_state |-> st, delivery_count |-> c]
SeqSet(s) == {s[i] : i \in DOMAIN s}
Priority(b) == <<b.delivery_count, b.delivery_state>>                 \* SHARE-RULE-COMBINE-PRIORITY
Above(p, q) == p[1] > q[1] \/ (p[1] = q[1] /\ p[2] > q[2])
Covered(bs) == UNION {b.first_offset .. b.last_offset : b \in bs}
Kept(start, o) == start = NOT_SET \/ o >= start                       \* SHARE-RULE-COMBINE-PRUNE, -CLIP
\* The winning <<count, state>> on offset o; lowerWins is the lower-count-wins flaw.
Cell(bs, o, lowerWins) ==
    LET ps == {Priority(b) : b \in {x \in bs : x.first_offset <= o /\ o <= x.last_offset}}
    IN CHOOSE p \in ps : \A q \in ps : IF lowerWins THEN ~Above(p, q) ELSE ~Above(q, p)
Cells(start, bs, lowerWins) == [o \in {x \in Covered(bs) : Kept(start, x)} |-> Cell(bs, o, lowerWins)]

RECURSIVE Sorted(_)
Sorted(S) == IF S = {} THEN <<>>
             ELSE LET m == CHOOSE x \in S : \A y \in S : x <= y IN <<m>> \o Sorted(S \ {m})

\* SHARE-RULE-COMBINE-MERGE: maximal runs of consecutive offsets with equal cells, in offset order.
FromCells(cells) ==
    LET D == DOMAIN cells
        starts == Sorted({o \in D : o - 1 \notin D \/ cells[o - 1] # cells[o]})
        RunEnd(o) == CHOOSE e \in D : e >= o /\ (\A x \in o .. e : x \in D /\ cells[x] = cells[o])
                                              /\ (e + 1 \notin D \/ cells[e + 1] # cells[o])
    IN [i \in 1 .. Len(starts) |-> Batch(starts[i], RunEnd(starts[i]), cells[starts[i]][2], cells[starts[i]][1])]

CombineWith(start, current, new, lowerWins) == FromCells(Cells(start, SeqSet(current) \cup SeqSet(new), lowerWins))
\* combiner.combine (the reference combiner) and combiner.combine_oracle: the same per-offset result.
Combine(start, current, new) == CombineWith(start, current, new, FALSE)
CombineOracle(start, current, new) == CombineWith(start, current, new, FALSE)
\* Offset -> <<delivery count, delivery state>> (combiner.per_offset).
PerOffset(bs) == Cells(NOT_SET, SeqSet(bs), FALSE)

-----------------------------------------------------------------------------
(* Records of __share_group_state (the SHARE-REC rules) and the stored offset.     *)

ShareSnapshot(k, se, ste, le, so, bs) ==
    [type |-> "ShareSnapshot", key |-> k, snapshot_epoch |-> se, state_epoch |-> ste, leader_epoch |-> le,
     start_offset |-> so, state_batches |-> bs]
\* SHARE-REC-UPDATE-NO-STATE-EPOCH: no state_epoch field.
ShareUpdate(k, se, le, so, bs) ==
    [type |-> "ShareUpdate", key |-> k, snapshot_epoch |-> se, leader_epoch |-> le, start_offset |-> so,
     state_batches |-> bs]
ShareTombstone(k) == [type |-> "ShareTombstone", key |-> k]
ShareGroupOffset(se, ste, le, so, bs) ==
    [snapshot_epoch |-> se, state_epoch |-> ste, leader_epoch |-> le, start_offset |-> so, state_batches |-> bs]

EmptyShard == [snapshot_limit |-> SnapshotEvery, image |-> Image, active |-> TRUE, offsets |-> EmptyMap,
               leader_epochs |-> EmptyMap, state_epochs |-> EmptyMap, update_counts |-> EmptyMap]

-----------------------------------------------------------------------------
(* Replay (the SHARE-RULE-REPLAY rules); lw selects the handlers' combiner flaw.    *)

ReplaySnapshot(s, r) ==
    LET k == r.key
        counts == IF Has(s.update_counts, k) /\ s.update_counts[k] >= s.snapshot_limit
                  THEN Put(s.update_counts, k, 0) ELSE s.update_counts
    IN [s EXCEPT !.offsets = Put(s.offsets, k, ShareGroupOffset(r.snapshot_epoch, r.state_epoch, r.leader_epoch,
                                                                r.start_offset, r.state_batches)),
                 !.leader_epochs = MaxEpoch(s.leader_epochs, k, r.leader_epoch),
                 !.state_epochs = MaxEpoch(s.state_epochs, k, r.state_epoch),
                 !.update_counts = counts]

\* ShareCoordinatorShard.merge: start offset and leader epoch change unless -1.
MergeUpdate(cur, r, lw) ==
    LET start == IF r.start_offset = NOT_SET THEN cur.start_offset ELSE r.start_offset
        leader == IF r.leader_epoch = NOT_SET THEN cur.leader_epoch ELSE r.leader_epoch
    IN ShareGroupOffset(cur.snapshot_epoch, cur.state_epoch, leader, start,
                        CombineWith(start, cur.state_batches, r.state_batches, lw))

ReplayUpdate(s, r, lw) ==
    LET k == r.key
        merged == IF Has(s.offsets, k) THEN MergeUpdate(s.offsets[k], r, lw)
                  ELSE ShareGroupOffset(r.snapshot_epoch, NOT_SET, r.leader_epoch, r.start_offset, r.state_batches)
        count == IF Has(s.update_counts, k) THEN s.update_counts[k] + 1
                 ELSE IF UpdateCountFromOne THEN 1 ELSE 0
    IN [s EXCEPT !.offsets = Put(s.offsets, k, merged),
                 !.leader_epochs = MaxEpoch(s.leader_epochs, k, r.leader_epoch),
                 !.update_counts = Put(s.update_counts, k, count)]

ReplayTombstone(s, r) ==
    [s EXCEPT !.offsets = Drop(s.offsets, r.key), !.leader_epochs = Drop(s.leader_epochs, r.key),
              !.state_epochs = Drop(s.state_epochs, r.key), !.update_counts = Drop(s.update_counts, r.key)]

ReplayWith(s, r, lw) ==
    CASE r.type = "ShareSnapshot" -> ReplaySnapshot(s, r)
      [] r.type = "ShareUpdate" -> ReplayUpdate(s, r, lw)
      [] r.type = "ShareTombstone" -> ReplayTombstone(s, r)

RECURSIVE ReplayAllWith(_, _, _)
ReplayAllWith(s, records, lw) ==
    IF records = <<>> THEN s ELSE ReplayAllWith(ReplayWith(s, Head(records), lw), Tail(records), lw)

\* SHARE-RULE-LOAD: a new shard replays the whole log with the reference combiner (system.loaded).
Loaded(l) == ReplayAllWith(EmptyShard, l, FALSE)

-----------------------------------------------------------------------------
(* generateShareStateRecord (the SHARE-RULE-RECORD rules).                        *)

\* fromRead: the record of a read that brings a new leader epoch (SHARE-RULE-READ-LEADER-EPOCH).
ShareStateRecord(s, k, le0, ste0, so0, bs, seedBug, lw, fromRead) ==
    IF ~Has(s.offsets, k)
    THEN ShareSnapshot(k, 0, ste0, le0, so0, CombineWith(so0, <<>>, bs, lw))   \* SHARE-RULE-RECORD-FIRST-SNAPSHOT
    ELSE LET cur == s.offsets[k]
             \* SHARE-RULE-WRITE-START-MONOTONE: a start offset below the stored one does not move it back.
             so == IF so0 # NOT_SET /\ so0 < cur.start_offset THEN cur.start_offset ELSE so0
             count == IF Has(s.update_counts, k) THEN s.update_counts[k] ELSE 0
             \* SHARE-VER-WRITE-KEEPS-EPOCHS: from 4.2 a write carries the stored epochs.
             le == IF WriteKeepsEpochs THEN (IF fromRead /\ le0 # NOT_SET THEN le0 ELSE cur.leader_epoch) ELSE le0
             ste == IF WriteKeepsEpochs THEN cur.state_epoch ELSE ste0
         IN IF count >= s.snapshot_limit                                     \* SHARE-RULE-RECORD-LIMIT-SNAPSHOT
               \/ (StateEpochSnapshot /\ ste > cur.state_epoch)             \* SHARE-VER-STATE-EPOCH-SNAPSHOT
            THEN LET leader == IF le = NOT_SET THEN cur.leader_epoch ELSE le
                     stEpoch == IF ste = NOT_SET THEN cur.state_epoch ELSE ste
                     start == IF so = NOT_SET THEN cur.start_offset ELSE so
                     merged == IF seedBug /\ so # NOT_SET THEN CombineWith(start, <<>>, bs, lw)
                               ELSE CombineWith(start, cur.state_batches, bs, lw)
                 IN ShareSnapshot(k, cur.snapshot_epoch + 1, stEpoch, leader, start, merged)
            ELSE ShareUpdate(k, cur.snapshot_epoch, le, so, CombineWith(so, <<>>, bs, lw))  \* SHARE-RULE-RECORD-UPDATE

TopicError(s, k) == IF <<k.topic_id, k.partition>> \in s.image THEN NONE ELSE UNKNOWN_TOPIC_OR_PARTITION

\* maybeGetWriteStateError, checks in Kafka's order (SHARE-RULE-VALIDATE-*).
WriteError(s, k, le, ste) ==
    IF UninitializedRefused /\ ~Has(s.offsets, k) THEN INVALID_REQUEST   \* SHARE-VER-UNINITIALIZED-REFUSED
    ELSE IF ~NoLeaderFence /\ le # NOT_SET /\ Has(s.leader_epochs, k) /\ s.leader_epochs[k] > le THEN FENCED_LEADER_EPOCH
    ELSE IF ste # NOT_SET /\ Has(s.state_epochs, k) /\ s.state_epochs[k] > ste THEN FENCED_STATE_EPOCH
    ELSE TopicError(s, k)

-----------------------------------------------------------------------------
(* The write menu (ShareSystem.menu): one offset, a delivery of two kinds,  *)
(* the start offset kept (-1) or moved to 1.                               *)

Starts == IF Offsets > 1 THEN {NOT_SET, 1} ELSE {NOT_SET}
Kinds == {<<AVAILABLE, 1>>, <<ACKNOWLEDGED, 2>>}
Menu == {<<so, <<Batch(o, o, kd[1], kd[2])>>>> : so \in Starts, o \in 0 .. Offsets - 1, kd \in Kinds}
LastMenu == <<IF Offsets > 1 THEN 1 ELSE NOT_SET, <<Batch(Offsets - 1, Offsets - 1, ACKNOWLEDGED, 2)>>>>
\* <<leader epoch, <<start offset, batches>>>> of every write ShareSystem.actions offers.
WriteChoices == {<<leader_epoch, m>> : m \in Menu}
                \cup (IF leader_epoch > 0 THEN {<<leader_epoch - 1, LastMenu>>} ELSE {})

-----------------------------------------------------------------------------
(* Actions: one per Python action class.                                    *)

Unavailable ==
    /\ ~shard.active
    /\ last_error' = COORDINATOR_NOT_AVAILABLE       \* SHARE-RULE-COORDINATOR-NOT-AVAILABLE
    /\ UNCHANGED <<shard, log, leader_epoch, leader_state_epoch, group_state_epoch, oracle_start, oracle, failovers>>

Rejected(err) ==
    /\ last_error' = err
    /\ UNCHANGED <<shard, log, leader_epoch, leader_state_epoch, group_state_epoch, oracle_start, oracle, failovers>>

\* The leader of epoch e persists batches bs with start offset so (SHARE-RULE-WRITE).
Write(e, so, bs) ==
    \/ Unavailable
    \/ /\ shard.active
       /\ LET err == WriteError(shard, Key, e, leader_state_epoch)
              r == ShareStateRecord(shard, Key, e, leader_state_epoch, so, bs, SeedBug, LowerCountWins, FALSE)
              asked == IF so = NOT_SET THEN oracle_start ELSE so
              \* SHARE-RULE-WRITE-START-MONOTONE (the first write of 4.0 creates the state as asked)
              start == IF Has(shard.offsets, Key) /\ asked < oracle_start THEN oracle_start ELSE asked
          IN IF err # NONE THEN Rejected(err)
             ELSE /\ shard' = ReplayWith(shard, r, LowerCountWins)
                  /\ log' = Append(log, r)
                  /\ last_error' = NONE
                  /\ oracle_start' = start
                  /\ oracle' = CombineOracle(start, oracle, bs)
                  /\ UNCHANGED <<leader_epoch, leader_state_epoch, group_state_epoch, failovers>>

\* The current leader reads the state, recording its epoch when new (SHARE-RULE-READ, -READ-FENCE,
\* -READ-LEADER-EPOCH).
Read(e) ==
    \/ Unavailable
    \/ /\ shard.active
       /\ LET stored == Has(shard.leader_epochs, Key)
              fenced == stored /\ shard.leader_epochs[Key] > e /\ ~(ReadFenceSkipsUnset /\ e = NOT_SET)
              has == Has(shard.offsets, Key)
              stEpoch == IF has THEN shard.offsets[Key].state_epoch ELSE DEFAULT_STATE_EPOCH
              start == IF has THEN shard.offsets[Key].start_offset ELSE NOT_SET
              same == e = NOT_SET \/ (stored /\ shard.leader_epochs[Key] = e)
              records == IF same THEN <<>>
                         ELSE <<ShareStateRecord(shard, Key, e, stEpoch, start, <<>>, FALSE, LowerCountWins, TRUE)>>
          IN IF NegativeEpochsRefused /\ e < 0 THEN Rejected(INVALID_REQUEST)
             ELSE IF UninitializedRefused /\ ~has THEN Rejected(INVALID_REQUEST)  \* SHARE-VER-UNINITIALIZED-REFUSED
             ELSE IF fenced THEN Rejected(FENCED_LEADER_EPOCH)
             ELSE IF TopicError(shard, Key) # NONE THEN Rejected(TopicError(shard, Key))
             ELSE /\ shard' = ReplayAllWith(shard, records, LowerCountWins)
                  /\ log' = log \o records
                  /\ last_error' = NONE
                  /\ leader_state_epoch' = stEpoch
                  /\ UNCHANGED <<leader_epoch, group_state_epoch, oracle_start, oracle, failovers>>

\* A new share-partition leader is elected.
Elect ==
    /\ leader_epoch < MaxLeaderEpoch
    /\ leader_epoch' = leader_epoch + 1
    /\ last_error' = NONE
    /\ UNCHANGED <<shard, log, leader_state_epoch, group_state_epoch, oracle_start, oracle, failovers>>

\* The group coordinator (re)initializes the key with state epoch se (SHARE-RULE-INITIALIZE-SNAPSHOT).
Initialize(se, so) ==
    /\ HasInitialize                                 \* SHARE-VER-INITIALIZE
    /\ group_state_epoch < MaxStateEpoch
    /\ \/ Unavailable
       \/ /\ shard.active
          /\ LET has == Has(shard.offsets, Key)
                 cur == shard.offsets[Key]
                 r == IF InitAsUpdate /\ has THEN ShareUpdate(Key, cur.snapshot_epoch, NOT_SET, so, <<>>)
                      ELSE ShareSnapshot(Key, IF has THEN cur.snapshot_epoch + 1 ELSE 0, se, 0, so, <<>>)
             IN IF se # NOT_SET /\ Has(shard.state_epochs, Key) /\ shard.state_epochs[Key] > se
                THEN Rejected(FENCED_STATE_EPOCH)
                ELSE IF TopicError(shard, Key) # NONE THEN Rejected(TopicError(shard, Key))
                ELSE /\ shard' = ReplayWith(shard, r, LowerCountWins)
                     /\ log' = Append(log, r)
                     /\ last_error' = NONE
                     /\ group_state_epoch' = se
                     /\ oracle_start' = so
                     /\ oracle' = <<>>
                     /\ UNCHANGED <<leader_epoch, leader_state_epoch, failovers>>

\* The broker hosting the coordinator partition loses it.
Unload ==
    /\ shard.active
    /\ failovers < MaxFailovers
    /\ shard' = [shard EXCEPT !.active = FALSE]
    /\ failovers' = failovers + 1
    /\ last_error' = NONE
    /\ UNCHANGED <<log, leader_epoch, leader_state_epoch, group_state_epoch, oracle_start, oracle>>

\* A new shard loads the coordinator partition by replaying its log (SHARE-RULE-LOAD).
Load ==
    /\ ~shard.active
    /\ shard' = Loaded(log)
    /\ last_error' = NONE
    /\ UNCHANGED <<log, leader_epoch, leader_state_epoch, group_state_epoch, oracle_start, oracle, failovers>>

Init ==
    /\ shard = EmptyShard
    /\ log = <<>>
    /\ leader_epoch = 0
    /\ leader_state_epoch = 0
    /\ group_state_epoch = 0
    /\ oracle_start = NOT_SET
    /\ oracle = <<>>
    /\ failovers = 0
    /\ last_error = NONE

Next ==
    \/ \E w \in WriteChoices : Write(w[1], w[2][1], w[2][2])
    \/ Read(leader_epoch)
    \/ Read(NOT_SET)
    \/ Elect
    \/ Initialize(group_state_epoch + 1, 0)
    \/ Unload
    \/ Load

Spec == Init /\ [][Next]_vars

\* ShareSystem.within_bounds: TLC checks a state outside it but neither counts nor expands it.
WithinBounds == Len(log) < MaxRecords

-----------------------------------------------------------------------------
(* Invariants: the names of ShareSystem.properties(), spec IDs beside.      *)

\* SHARE-INV-NO-LOSS
no_loss ==
    IF ~Has(shard.offsets, Key) THEN oracle = <<>>
    ELSE /\ shard.offsets[Key].start_offset = oracle_start
         /\ PerOffset(shard.offsets[Key].state_batches) = PerOffset(oracle)

\* SHARE-INV-REPLAY-EQUALS-HANDLERS
replay_equals_handlers == Loaded(log) = [shard EXCEPT !.active = TRUE]

\* SHARE-INV-STATE-EPOCH-RECORDED
state_epoch_recorded == ~Has(shard.state_epochs, Key) \/ shard.state_epochs[Key] = group_state_epoch

\* SHARE-INV-SNAPSHOT-CADENCE: at most SnapshotEvery ShareUpdates in a row
snapshot_cadence ==
    \A i \in DOMAIN log : i > SnapshotEvery =>
        \E j \in (i - SnapshotEvery) .. i : log[j].type # "ShareUpdate"

(* Step properties (always_step in Python): action properties [][P]_vars. *)

\* SHARE-INV-REJECTED-NO-CHANGE
rejected_changes_nothing == [][last_error' = NONE \/ (log' = log /\ shard' = shard)]_vars

\* SHARE-INV-STALE-LEADER-FENCED (Write is evaluated last, only for a write below the fence)
stale_leader_fenced ==
    [][\A w \in WriteChoices :
          (/\ shard.active
           /\ Has(shard.leader_epochs, Key)
           /\ w[1] < shard.leader_epochs[Key]
           /\ Write(w[1], w[2][1], w[2][2]))
              => last_error' = FENCED_LEADER_EPOCH]_vars

Monotone(m, m2) == Has(m, Key) => (Has(m2, Key) /\ m2[Key] >= m[Key])

\* SHARE-INV-EPOCHS-MONOTONE (initialize may lower the stored leader epoch, never the fence)
epochs_never_decrease ==
    [][/\ Has(shard.offsets, Key) => Has(shard'.offsets, Key)
       /\ (Has(shard.offsets, Key) /\ Has(shard'.offsets, Key)) =>
              LET a == shard.offsets[Key]
                  b == shard'.offsets[Key]
              IN /\ b.snapshot_epoch >= a.snapshot_epoch
                 /\ b.state_epoch >= a.state_epoch
                 /\ b.leader_epoch < a.leader_epoch => Initialize(group_state_epoch + 1, 0)
       /\ Monotone(shard.leader_epochs, shard'.leader_epochs)
       /\ Monotone(shard.state_epochs, shard'.state_epochs)]_vars

Fence(m) == IF Has(m, Key) THEN <<m[Key]>> ELSE <<>>
\* system.read_view: what a read returns, and the fences.
ReadView(s) ==
    <<IF Has(s.offsets, Key)
      THEN <<s.offsets[Key].state_epoch, s.offsets[Key].start_offset, s.offsets[Key].state_batches>>
      ELSE <<>>,
      Fence(s.leader_epochs), Fence(s.state_epochs)>>

\* SHARE-INV-FAILOVER-PRESERVES-READS
failover_preserves_reads == [][Load => ReadView(shard) = ReadView(shard')]_vars

\* SHARE-INV-LEADER-EPOCH-FROM-READ (a write to stored state moves no leader epoch)
leader_epoch_only_from_read ==
    [][\A w \in WriteChoices :
          (/\ Has(shard.offsets, Key)
           /\ Write(w[1], w[2][1], w[2][2]))
              => /\ Fence(shard.leader_epochs) = Fence(shard'.leader_epochs)
                 /\ Has(shard'.offsets, Key) => shard'.offsets[Key].leader_epoch = shard.offsets[Key].leader_epoch]_vars

\* SHARE-INV-NO-UNINITIALIZED-ACCESS
no_uninitialized_access ==
    [][(/\ UninitializedRefused
        /\ shard.active
        /\ ~Has(shard.offsets, Key)
        /\ \/ \E w \in WriteChoices : Write(w[1], w[2][1], w[2][2])
           \/ Read(leader_epoch)
           \/ Read(NOT_SET))
          => (last_error' = INVALID_REQUEST /\ log' = log)]_vars

\* SHARE-INV-START-MONOTONE (only initialize may set a lower start offset)
start_offset_never_backwards ==
    [][(/\ Has(shard.offsets, Key)
        /\ Has(shard'.offsets, Key)
        /\ ~Initialize(group_state_epoch + 1, 0))
          => shard'.offsets[Key].start_offset >= shard.offsets[Key].start_offset]_vars

\* SHARE-INV-UNSET-READ-NOT-FENCED
unset_read_not_fenced == [][(shard.active /\ Read(NOT_SET)) => last_error' # FENCED_LEADER_EPOCH]_vars

(* Witnesses (sometimes in Python): TLC shows one is reached when the      *)
(* invariant ~W fails (see tests/tla/test_tla_share.py).                   *)

\* SHARE-WIT-UPDATE-WRITTEN
share_update_written == \E i \in DOMAIN log : log[i].type = "ShareUpdate"
\* SHARE-WIT-LIMIT-SNAPSHOT
snapshot_after_update_limit ==
    \E i, j \in DOMAIN log : i < j /\ log[i].type = "ShareUpdate" /\ log[j].type = "ShareSnapshot"
                             /\ log[j].snapshot_epoch > 0
\* SHARE-WIT-FENCED-WRITE
fenced_write == last_error \in {FENCED_LEADER_EPOCH, FENCED_STATE_EPOCH}
\* SHARE-WIT-FAILOVER-READS
failover_with_state ==
    failovers > 0 /\ shard.active /\ Has(shard.offsets, Key) /\ shard.offsets[Key].state_batches # <<>>

\* SHARE-WIT-LEADER-EPOCH-READ
read_recorded_leader_epoch == Has(shard.offsets, Key) /\ shard.offsets[Key].leader_epoch > 0

\* SHARE-WIT-START-MOVED
start_offset_moved == Has(shard.offsets, Key) /\ shard.offsets[Key].start_offset > 0
\* SHARE-WIT-UNINITIALIZED-REFUSED
uninitialized_refused == last_error = INVALID_REQUEST

not_share_update_written == ~share_update_written
not_snapshot_after_update_limit == ~snapshot_after_update_limit
not_fenced_write == ~fenced_write
not_failover_with_state == ~failover_with_state
not_read_recorded_leader_epoch == ~read_recorded_leader_epoch
not_start_offset_moved == ~start_offset_moved
not_uninitialized_refused == ~uninitialized_refused
=============================================================================
