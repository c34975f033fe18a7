------------------------------- MODULE Voters -------------------------------
(***************************************************************************)
(* The KRaft voter set (KIP-853), system level: spec/voters.md.  The       *)
(* Python twin is kspec.model.voters.system.VotersModel over the replica   *)
(* step kspec.model.voters.node.make_step.                                 *)
(*                                                                         *)
(* KRaft.tla fixes the voters (1..NumVoters) for the whole run; here each  *)
(* replica keeps its own voter set, the one in force at its log end        *)
(* (VOTERS-RULE-EFFECT-ON-APPEND).  So this module INSTANCEs KRaft as K    *)
(* and reuses every operator that does not name the voters (records,       *)
(* messages, role constructors, OnBeginQuorumEpoch, OnFetchResponse, the   *)
(* system-level Inert/ForgetIgnored/RecordHistory, the bounds and the      *)
(* safety properties) and restates, with the replica's own set n.voters   *)
(* in place of K!Voters, the handlers that do (quorums, vote grants, HW).  *)
(*                                                                         *)
(* On top of the raft step, VStep is make_step: the control-record state  *)
(* (kraft.version and VoterSetHistory between the snapshot and the log     *)
(* end) follows every append and truncation, voters is recomputed, and a   *)
(* leader whose own removal committed resigns.  The leader takes AddVoter, *)
(* RemoveVoter and the kraft.version upgrade; any replica may snapshot.    *)
(*                                                                         *)
(* Names are the Python ones (fields, message and input classes, action    *)
(* classes, properties), so tla/mappings/voters.py maps a Python state to  *)
(* exactly these values (one to one).  TwoChangesInFlight, EffectOnCommit, *)
(* HistoryNotTruncated and SnapshotWithoutVoters are the flaws of the      *)
(* Python variants of those names (model/voters/variants.py): all FALSE    *)
(* is the reference spec.                                                  *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets, Bags

CONSTANTS
    NumHosts,        \* bound hosts: the replicas 1..NumHosts
    NumVoters,       \* bound voters: the initial voters 1..NumVoters, the other hosts start as observers
    Started,         \* bound started: start from the brought-up quorum (VOTERS-MODEL-START)
    MaxAdds,         \* bound max_adds: AddVoter requests the leaders accept in a run
    MaxRemoves,      \* bound max_removes: RemoveVoter requests the leaders accept in a run
    MaxSnapshots,    \* bound max_snapshots: snapshots taken in a run (VOTERS-MODEL-SNAPSHOT)
    KRaftVersion,    \* bound kraft_version: 1 bootstrap checkpoint, 0 static voters (upgrade in the run)
    MaxEpoch, MaxAppends, MaxCrashes, MaxInflight, MaxDuplicates, MaxFetches, MaxElections,
    PreVote, RebootAtOnce,   \* the raft bounds, as in KRaft.tla
    TwoChangesInFlight,      \* flaw of two-changes-in-flight: no VOTERS-RULE-ONE-CHANGE
    EffectOnCommit,          \* flaw of effect-on-commit: a voter set takes effect once committed
    HistoryNotTruncated,     \* flaw of history-not-truncated: no VOTERS-CTRL-TRUNCATE
    SnapshotWithoutVoters,   \* flaw of snapshot-without-voters: a snapshot without its VotersRecord
    FirstLeaderSkipsVoters,  \* flaw of first-leader-skips-voters: no VOTERS-RULE-FIRST-LEADER
    NoCheckQuorumWithOneVoter, \* Kafka's K3 (kafka-no-check-quorum-with-one-voter): no check-quorum over one voter
    ObserverStuckOnBootstrap,  \* Kafka's K7 (kafka-observer-stuck-on-bootstrap): only the leader's answer ends a lapse
    AutoJoin,        \* bound auto_join: controller.quorum.auto.join.enable at every host (VOTERS-RULE-AUTO-JOIN)
    Nil                      \* a model value: Python's None

VARIABLES
    nodes, network, appends, crashes, duplicates, fetches, elections, elected, votes, committed,  \* as KRaft
    adds,         \* AddVoter requests accepted so far
    removes,      \* RemoveVoter requests accepted so far
    snapshots,    \* snapshots taken so far
    upgrades,     \* kraft.version upgrades so far
    joins         \* auto-join requests a leader accepted (ghost, for the witness ObserverAutoJoins)

\* Without resends (the voter-set model runs none): KRaft's resend count and its ghost are
\* constants here. Nothing this module uses from K reads them: KRaft's replica step reads each
\* replica's own resends flag (KRaft.tla, Resending), a constant-level operator. It must stay
\* so: Init below runs the step (StartUp, a recursive Drain/CatchUp), and while computing
\* initial states TLC caches a LET definition or an operator argument only if its level is
\* constant (tlaplus/tlaplus#113). When Resending read the variable resends, every LET over the
\* step was re-evaluated at each use, nested: minutes, then a Java StackOverflowError (session 11;
\* declaring resends/resent as variables here does the same; substituting constants for them
\* does not matter).
K == INSTANCE KRaft WITH NumObservers <- NumHosts - NumVoters, VoteTwice <- FALSE,
                         CandidateCountsRejections <- FALSE, VoteIgnoresLog <- FALSE,
                         LiveFlaw <- "none", MaxResends <- 0, resends <- 0, resent <- {}

vars == <<nodes, network, appends, crashes, duplicates, fetches, elections, elected, votes, committed,
          adds, removes, snapshots, upgrades, joins>>
counters == <<appends, crashes, duplicates, fetches, elections, adds, removes, snapshots, upgrades, joins>>

Replica == K!Replica
InitialVoters == K!Voters        \* the ghost initial_voters: the ids the properties compare against
Min(a, b) == K!Min(a, b)
Max(a, b) == IF a > b THEN a ELSE b
MaxOf(S) == CHOOSE x \in S : \A y \in S : y <= x
Last(s) == s[Len(s)]
Ids(vs) == {p[1] : p \in vs}     \* the replica ids of a voter set (a set of <<id, directory>>)
DirectoryOf(r) == r              \* VOTERS-MODEL-DIRS

-----------------------------------------------------------------------------
(* Control records (model/voters/control.py).  A voter set is a set of     *)
(* replica keys <<id, directory>>; a VotersRecord's payload is the keys,   *)
(* sorted, flattened (VOTERS-REC-VOTERS).                                  *)

RECURSIVE SortedFlat(_)
SortedFlat(vs) ==
    IF vs = {} THEN <<>>
    ELSE LET m == CHOOSE p \in vs : \A q \in vs : p[1] < q[1] \/ (p[1] = q[1] /\ p[2] <= q[2])
         IN <<m[1], m[2]>> \o SortedFlat(vs \ {m})

\* VOTERS-REC-VOTERS, VOTERS-REC-KRAFT-VERSION
VotersEntry(e, vs) == [epoch |-> e, kind |-> "voters", payload |-> SortedFlat(vs)]
KRaftVersionEntry(e, v) == [epoch |-> e, kind |-> "kraft_version", payload |-> <<v>>]
VotersOf(e) == {<<e.payload[2 * k - 1], e.payload[2 * k]>> : k \in 1 .. Len(e.payload) \div 2}
IsControl(e) == e.kind \in {"voters", "kraft_version"}

(* The control state (ControlState): voters and kraft_versions are the     *)
(* histories' entries, sequences of <<offset, value>> in offset order; the *)
(* history's static set is the replica's `static` field.                   *)

NoControl == [voters |-> <<>>, kraft_versions |-> <<>>, next_offset |-> 0]

\* VOTERS-HIST-AT: the value of the greatest entry at or before o (Nil when none).
ValueAtOrBefore(h, o) ==
    LET ks == {k \in 1 .. Len(h) : h[k][1] <= o} IN IF ks = {} THEN Nil ELSE h[MaxOf(ks)][2]
\* VOTERS-HIST-TRUNCATE-NEW
TruncateNewEntries(h, end) == SelectSeq(h, LAMBDA p : p[1] < end)
\* VOTERS-HIST-TRUNCATE-OLD: drop the entries at or before start except the last of them.
TruncateOldEntries(h, start) ==
    LET older == {k \in 1 .. Len(h) : h[k][1] <= start}
    IN IF Cardinality(older) <= 1 THEN h ELSE SubSeq(h, MaxOf(older), Len(h))

\* VOTERS-HIST-LAST, VOTERS-RULE-KRAFT-VERSION
LastVoterSet(c, static) == IF c.voters = <<>> THEN static ELSE Last(c.voters)[2]
LastKRaftVersion(c) == IF c.kraft_versions = <<>> THEN 0 ELSE Last(c.kraft_versions)[2]
VoterSetAt(c, o) == ValueAtOrBefore(c.voters, o)
KRaftVersionAt(c, o) == LET v == ValueAtOrBefore(c.kraft_versions, o) IN IF v = Nil THEN 0 ELSE v

\* VOTERS-CTRL-APPEND: read records appended at offset o (handle_records).
RECURSIVE AddRecords(_, _, _)
AddRecords(c, o, es) ==
    IF es = <<>> THEN c
    ELSE LET e == Head(es)
             c2 == CASE e.kind = "voters" -> [c EXCEPT !.voters = Append(@, <<o, VotersOf(e)>>)]
                     [] e.kind = "kraft_version" -> [c EXCEPT !.kraft_versions = Append(@, <<o, e.payload[1]>>)]
                     [] OTHER -> c
         IN AddRecords(c2, o + 1, Tail(es))
HandleRecords(c, o, es) == [AddRecords(c, o, es) EXCEPT !.next_offset = o + Len(es)]

\* VOTERS-CTRL-TRUNCATE (HistoryNotTruncated: only the next offset moves back).
TruncateTo(c, end) ==
    IF HistoryNotTruncated THEN [c EXCEPT !.next_offset = end]
    ELSE [voters |-> TruncateNewEntries(c.voters, end), kraft_versions |-> TruncateNewEntries(c.kraft_versions, end),
          next_offset |-> end]

\* VOTERS-CTRL-SNAPSHOT: the snapshot's control records at its last contained offset.
LoadSnapshot(snap) ==
    LET last == snap.end_offset - 1
    IN [voters |-> IF snap.voters # Nil THEN <<<<last, snap.voters>>>> ELSE <<>>,
        kraft_versions |-> IF snap.kraft_version > 0 THEN <<<<last, snap.kraft_version>>>> ELSE <<>>,
        next_offset |-> snap.end_offset]

\* VOTERS-CTRL-REBUILD: the latest snapshot, then the log from its end offset.
Rebuild(snap, log) ==
    LET c == IF snap = Nil THEN NoControl ELSE LoadSnapshot(snap)
    IN HandleRecords(c, c.next_offset, SubSeq(log, c.next_offset + 1, Len(log)))

\* VOTERS-SNAP-CONTENT, VOTERS-CTRL-TRIM
SnapshotAt(c, end) ==
    [end_offset |-> end, kraft_version |-> KRaftVersionAt(c, end - 1),
     voters |-> IF SnapshotWithoutVoters THEN Nil ELSE VoterSetAt(c, end - 1)]
TrimTo(c, snap) ==
    [c EXCEPT !.voters = TruncateOldEntries(@, snap.end_offset - 1),
              !.kraft_versions = TruncateOldEntries(@, snap.end_offset - 1)]

\* VOTERS-VERSION-1: the bootstrap checkpoint (offset -1) holds KRaftVersionRecord(1) and the
\* initial voters; VOTERS-VERSION-0: the initial voters are static.
InitialSet == {<<v, DirectoryOf(v)>> : v \in InitialVoters}
Bootstrap == [end_offset |-> 0, kraft_version |-> 1, voters |-> InitialSet]

\* new_voter_node: KRaft.NewNode plus voters, control, snapshot and static.
NewVoterNode ==
    [role |-> "unattached", epoch |-> 0, voted_for |-> Nil, leader |-> Nil, granted |-> {},
     rejected |-> {}, backing_off |-> FALSE, timed_out |-> FALSE, epoch_start |-> 0, end_offsets |-> {},
     fetched |-> {}, renewed |-> FALSE, has_fetched |-> FALSE, prior |-> Nil, log |-> <<>>, high_watermark |-> Nil, voters |-> InitialVoters,
     control |-> IF KRaftVersion >= 1 THEN LoadSnapshot(Bootstrap) ELSE NoControl,
     snapshot |-> IF KRaftVersion >= 1 THEN Bootstrap ELSE Nil,
     static |-> IF KRaftVersion >= 1 THEN {} ELSE InitialSet,
     fetch_lapsed |-> FALSE, upgrade_voters |-> {}]

-----------------------------------------------------------------------------
(* The raft step with the replica's own voter set (model/raft/node.py with *)
(* node.voters): K's handlers that name K!Voters, restated over n.voters.  *)

Result(n, out) == K!Result(n, out)

\* RAFT-RULE-MAJORITY over a voter set V
IsQuorum(S, V) == Cardinality(S \cap V) >= Cardinality(V) \div 2 + 1
Others(i, n) == n.voters \ {i}

\* RAFT-RULE-HW-MAJORITY: the majority-th largest end offset of the voters V (off: V -> Nat).
MajorityEndOffset(off, V) ==
    LET vals == {off[v] : v \in V}
        AtLeast(x) == Cardinality({v \in V : off[v] >= x})
        maj == Cardinality(V) \div 2 + 1
    IN CHOOSE x \in vals : AtLeast(x) >= maj /\ \A y \in vals : y > x => AtLeast(y) < maj

\* RAFT-RULE-HW over the leader's current voters (the leader counts only if one of them).
UpdateHighWatermark(i, n) ==
    LET off == [v \in n.voters |-> IF v = i THEN Len(n.log) ELSE K!EndOffsetOf(n, v)]
    IN [n EXCEPT !.high_watermark = K!NextHighWatermark(n.high_watermark, MajorityEndOffset(off, n.voters),
                                                         n.epoch_start)]

VoteRequests(i, n, e, preVote) ==
    {K!VoteRequest(i, v, e, K!LastEpoch(n.log), Len(n.log), preVote) : v \in Others(i, n)}
EndQuorumEpochRequests(i, n) == {K!EndQuorumEpochRequest(i, v, n.epoch) : v \in Others(i, n)}

\* RAFT-RULE-LEADER-CHANGE
BecomeLeader(i, n) ==
    LET a == K!ToLeader(n)
        b == [a EXCEPT !.log = Append(@, K!Entry(a.epoch, "leader_change"))]
    IN Result(UpdateHighWatermark(i, b), {K!BeginQuorumEpochRequest(i, v, b.epoch) : v \in Others(i, b)})

BecomeCandidate(i, n) ==
    LET a == K!ToCandidate(i, n)
    IN IF IsQuorum({i}, n.voters) THEN BecomeLeader(i, a) ELSE Result(a, VoteRequests(i, a, a.epoch, FALSE))

\* RAFT-RULE-ELECTION
StartElection(i, n) ==
    IF ~PreVote THEN BecomeCandidate(i, n)
    ELSE LET a == K!ToProspective(i, n)
         IN IF IsQuorum({i}, n.voters) THEN BecomeCandidate(i, a)
            ELSE Result(a, VoteRequests(i, a, a.epoch, TRUE))  \* RAFT-KIP996-PRE-VOTE-EPOCH

\* RAFT-RULE-RESTART
Restart(i, n) ==
    LET e == K!ElectionOf(i, n)
        a == CASE e.epoch < K!LastEpoch(n.log) -> K!ToUnattached(n, K!LastEpoch(n.log))
               [] e.leader = i -> K!SetRole(n, "resigned", e.epoch, Nil, Nil)
               [] e.voted_for = i -> [K!SetRole(n, "candidate", e.epoch, Nil, Nil) EXCEPT !.granted = {i}]
               \* RAFT-KIP853-LEADER-UNREACHABLE: no endpoint for a leader outside the set
               [] e.leader # Nil /\ e.leader \notin n.voters ->
                      K!SetRole(n, IF e.voted_for # Nil THEN "voted" ELSE "unattached", e.epoch, e.voted_for, e.leader)
               [] e.leader # Nil -> K!SetRole(n, "follower", e.epoch, e.voted_for, e.leader)
               [] e.voted_for # Nil -> K!ToVoted(n, e.epoch, e.voted_for)
               [] OTHER -> K!ToUnattached(n, e.epoch)
        b == [a EXCEPT !.high_watermark = Nil]
    IN IF i \in b.voters /\ IsQuorum({i}, b.voters)  \* RAFT-RULE-LONE-VOTER (node.initialize)
       THEN IF b.role = "candidate" THEN BecomeLeader(i, b) ELSE StartElection(i, b)
       ELSE Result(b, CASE b.role = "candidate" -> VoteRequests(i, b, b.epoch, FALSE)
                        [] b.role = "resigned" -> EndQuorumEpochRequests(i, b)
                        [] OTHER -> {})

\* RAFT-RULE-VOTE-GRANT
\* RAFT-KIP996-PRE-VOTE-GRANT
OnPreVoteRequest(i, n, r) ==
    IF r.epoch < n.epoch
    THEN Result(n, {K!VoteResponse(i, r.src, n.epoch, FALSE, K!LeaderHint(i, n), TRUE, "FENCED_LEADER_EPOCH")})
    ELSE LET a == IF r.epoch > n.epoch THEN K!ToUnattached(n, r.epoch) ELSE n
             granted == K!LogUpToDate(r.last_epoch, r.end_offset, K!LastEpoch(a.log), Len(a.log))
                        /\ (a.role \in {"unattached", "voted", "prospective", "candidate", "resigned"}
                            \/ (a.role = "follower" /\ ~a.has_fetched))
         IN Result(a, {K!VoteResponse(i, r.src, a.epoch, granted, K!LeaderHint(i, a), TRUE, "NONE")})

OnVoteRequest(i, n, r) ==
    IF r.pre_vote THEN OnPreVoteRequest(i, n, r)
    ELSE IF r.epoch < n.epoch
    THEN Result(n, {K!VoteResponse(i, r.src, n.epoch, FALSE, K!LeaderHint(i, n), FALSE, "FENCED_LEADER_EPOCH")})
    ELSE LET a == IF r.epoch > n.epoch THEN K!ToUnattached(n, r.epoch) ELSE n
             ok == K!LogUpToDate(r.last_epoch, r.end_offset, K!LastEpoch(a.log), Len(a.log))
             grant == ok /\ a.role = "unattached" /\ a.leader = Nil
             \* RAFT-KIP996-PROSPECTIVE-VOTES
             pgrant == ok /\ PreVote /\ a.role = "prospective" /\ a.prior.voted_for = Nil /\ a.prior.leader = Nil
             granted == grant \/ pgrant \/ (ok /\ a.role = "voted" /\ a.voted_for = r.src)
                        \/ (ok /\ PreVote /\ a.role = "prospective" /\ a.prior.voted_for = r.src)
             b == IF grant THEN K!ToVoted(a, r.epoch, r.src)
                  ELSE IF pgrant THEN [a EXCEPT !.prior.voted_for = r.src] ELSE a
         IN Result(b, {K!VoteResponse(i, r.src, b.epoch, granted, K!LeaderHint(i, b), FALSE, "NONE")})

\* RAFT-RULE-END-EPOCH
OnEndQuorumEpoch(i, n, r) ==
    IF r.epoch < n.epoch
    THEN Result(n, {K!EndQuorumEpochResponse(i, r.src, n.epoch, K!LeaderHint(i, n), "FENCED_LEADER_EPOCH")})
    ELSE LET a == K!ObserveEpoch(i, n, r.epoch, r.src)
             b == IF r.epoch = a.epoch /\ r.src # i /\ r.src \in a.voters
                     /\ a.role \in {"unattached", "voted", "candidate", "prospective"} /\ K!FollowsNamedLeader(i, a)
                  THEN K!ToFollower(i, a, r.epoch, r.src) ELSE a
         IN Result(b, {K!EndQuorumEpochResponse(i, r.src, b.epoch, K!LeaderHint(i, b), "NONE")})

\* RAFT-RULE-FETCH
OnFetchRequest(i, n, r) ==
    IF r.epoch < n.epoch THEN K!FetchError(i, n, r, "FENCED_LEADER_EPOCH")
    ELSE IF r.epoch > n.epoch THEN K!FetchError(i, n, r, "UNKNOWN_LEADER_EPOCH")
    ELSE IF n.role # "leader" THEN K!FetchError(i, n, r, "NOT_LEADER_OR_FOLLOWER")
    ELSE LET found == K!EndOffsetForEpoch(n.log, r.last_fetched_epoch)
             valid == (r.fetch_offset = 0 /\ r.last_fetched_epoch = 0)
                      \/ (found[1] = r.last_fetched_epoch /\ found[2] >= r.fetch_offset
                          /\ r.fetch_offset <= Len(n.log))
         IN IF ~valid
            THEN Result(n, {K!FetchResponse(i, r.src, n.epoch, i, "NONE", r.fetch_offset, <<>>, n.high_watermark,
                                            found)})
            ELSE LET a == K!WithEndOffset(n, r.src, r.fetch_offset)
                     f == a.fetched \cup {r.src}
                     b == IF r.src \in a.voters
                          THEN [a EXCEPT !.fetched = IF IsQuorum(f \cup {i}, a.voters) THEN {} ELSE f,
                                         !.renewed = IF IsQuorum(f \cup {i}, a.voters) THEN TRUE ELSE @]
                          ELSE a
                     c == UpdateHighWatermark(i, b)
                 IN Result(c, {K!FetchResponse(i, r.src, c.epoch, i, "NONE", r.fetch_offset,
                                               SubSeq(c.log, r.fetch_offset + 1, Len(c.log)), c.high_watermark,
                                               Nil)})

\* RAFT-RULE-CANDIDATE, RAFT-RULE-BACKOFF
OnVoteResponse(i, n, r) ==
    IF n.role # "candidate" \/ r.src \notin n.voters THEN Result(n, {})
    ELSE LET a == IF r.granted THEN [n EXCEPT !.granted = @ \cup {r.src}]
                  ELSE [n EXCEPT !.rejected = @ \cup {r.src}]
         IN IF r.granted /\ IsQuorum(a.granted, a.voters) THEN BecomeLeader(i, a)
            ELSE IF ~IsQuorum(a.voters \ a.rejected, a.voters) THEN Result([a EXCEPT !.backing_off = TRUE], {})
            ELSE Result(a, {})

\* RAFT-RULE-PRE-VOTE
OnPreVoteResponse(i, n, r) ==
    IF r.src \notin n.voters THEN Result(n, {})
    ELSE LET a == IF r.granted THEN [n EXCEPT !.granted = @ \cup {r.src}]
                  ELSE [n EXCEPT !.rejected = @ \cup {r.src}]
         IN IF IsQuorum(a.granted, a.voters) THEN BecomeCandidate(i, a)
            ELSE IF ~IsQuorum(a.voters \ a.rejected, a.voters) THEN Result(K!Restore(i, a, a.prior), {})
            ELSE Result(a, {})

\* RAFT-RULE-RESPONSE
OnResponse(i, n, r) ==
    IF r.epoch > n.epoch THEN Result(K!ObserveEpoch(i, n, r.epoch, r.leader), {})
    ELSE IF r.epoch < n.epoch THEN Result(n, {})
    ELSE IF r.leader # Nil /\ r.leader # i /\ K!FollowsNamedLeader(i, n)
            /\ n.role \in {"unattached", "voted", "candidate", "prospective"}
    THEN LET a == K!ToFollower(i, n, r.epoch, r.leader)
         IN IF r.type = "FetchResponse" THEN K!OnFetchResponse(i, a, r) ELSE Result(a, {})
    ELSE IF r.type = "VoteResponse" /\ r.pre_vote
    THEN IF n.role = "prospective" THEN OnPreVoteResponse(i, n, r) ELSE Result(n, {})
    ELSE IF r.type = "VoteResponse" THEN OnVoteResponse(i, n, r)
    ELSE IF r.type = "FetchResponse" THEN K!OnFetchResponse(i, n, r)
    ELSE Result(n, {})

\* RAFT-RULE-ELECTION, RAFT-RULE-BACKOFF; VOTERS-RULE-REMOVED-LEADER-TIMER: a resigned leader
\* outside its set goes to unattached in the next epoch (an observer that asks a bootstrap server).
OnElectionTimeout(i, n) ==
    CASE i \notin n.voters /\ n.role = "resigned" -> Result(K!ToUnattached(n, n.epoch + 1), {})
      [] i \notin n.voters -> Result(n, {})
      [] n.role \in {"unattached", "voted"} -> StartElection(i, n)
      [] n.role = "resigned" -> IF PreVote THEN StartElection(i, K!ToUnattached(n, n.epoch + 1))
                                ELSE BecomeCandidate(i, n)
      [] n.role = "candidate" /\ ~n.backing_off ->
             IF PreVote THEN StartElection(i, n)
             ELSE Result([n EXCEPT !.backing_off = TRUE, !.timed_out = TRUE], {})
      [] n.role = "prospective" -> LET a == K!Restore(i, n, n.prior)
                                   IN IF a.role = "follower" THEN Result(a, {}) ELSE StartElection(i, a)
      [] OTHER -> Result(n, {})

\* RAFT-RULE-CHECK-QUORUM
OnCheckQuorumTimeout(i, n) ==
    IF n.role = "leader" /\ n.renewed /\ ~(NoCheckQuorumWithOneVoter /\ Cardinality(n.voters) = 1)
    THEN Result([n EXCEPT !.renewed = FALSE], {})  \* RAFT-RULE-CHECK-QUORUM-PERIOD
    ELSE IF n.role # "leader" \/ IsQuorum(n.fetched \cup {i}, n.voters)
       \/ (NoCheckQuorumWithOneVoter /\ Cardinality(n.voters) = 1)  \* VOTERS-KAFKA-K3
    THEN Result(n, {})
    ELSE LET a == K!ToResigned(n) IN Result(a, EndQuorumEpochRequests(i, a))

OnFetchDue(i, n, to) ==
    IF (n.role = "follower" /\ to = n.leader)
       \/ (n.role \in {"unattached", "voted"} /\ i \notin n.voters /\ to \in InitialVoters)  \* an observer that voted (RAFT-KIP853-OPEN-VOTE)
    \* VOTERS-RULE-OBSERVER-BOOTSTRAP: an observer without a leader asks a bootstrap server (the initial voters)
    THEN Result(n, {K!FetchRequest(i, to, n.epoch, Len(n.log), K!LastEpoch(n.log))})
    ELSE Result(n, {})

OnClientAppend(i, n) ==
    IF n.role # "leader" THEN Result(n, {})
    ELSE Result(UpdateHighWatermark(i, [n EXCEPT !.log = Append(@, K!Entry(n.epoch, "data"))]), {})

\* RAFT-RULE-TIMER-KEPT over the replica's voters.
TimerKept(i, n, r) ==
    IF n.role = "candidate" /\ n.timed_out /\ r.node.role = "unattached" /\ r.node.epoch > n.epoch
    THEN LET e == StartElection(i, r.node) IN Result(e.node, r.out \cup e.out)
    ELSE r

\* raft's node.step over the replica's voters.
RaftStep(i, n, m) ==
    IF n.role = "down" THEN IF m.type = "Restart" THEN Restart(i, n) ELSE Result(n, {})
    ELSE CASE m.type = "Crash" -> Result(K!ToDown(i, n), {})
           [] m.type = "Restart" -> Result(n, {})
           [] m.type = "VoteRequest" -> TimerKept(i, n, OnVoteRequest(i, n, m))
           [] m.type = "BeginQuorumEpochRequest" -> K!OnBeginQuorumEpoch(i, n, m)
           [] m.type = "EndQuorumEpochRequest" -> TimerKept(i, n, OnEndQuorumEpoch(i, n, m))
           [] m.type = "FetchRequest" -> OnFetchRequest(i, n, m)
           [] m.type \in K!ResponseTypes -> TimerKept(i, n, OnResponse(i, n, m))
           [] m.type = "ElectionTimeout" -> OnElectionTimeout(i, n)
           [] m.type = "BackoffExpired" ->
                  IF n.role = "candidate" /\ n.backing_off THEN StartElection(i, n) ELSE Result(n, {})
           [] m.type = "FetchTimeout" ->
                  IF n.role = "follower" /\ i \in n.voters THEN StartElection(i, n) ELSE Result(n, {})
           [] m.type = "CheckQuorumTimeout" -> OnCheckQuorumTimeout(i, n)
           [] m.type = "FetchDue" -> OnFetchDue(i, n, m.to)
           [] m.type = "ClientAppend" -> OnClientAppend(i, n)

\* node.enabled_inputs over the replica's voters.
EnabledInputs(i, n) ==
    CASE n.role = "down" -> {}
      [] n.role \in {"unattached", "voted"} /\ i \notin n.voters  \* VOTERS-RULE-OBSERVER-BOOTSTRAP
            -> {K!FetchDue(v) : v \in IF n.voters = {} THEN {} ELSE InitialVoters}
      [] n.role \in {"unattached", "voted", "resigned", "prospective"} -> {K!Input("ElectionTimeout")}
      [] n.role = "candidate" -> IF n.backing_off THEN {K!Input("BackoffExpired")} ELSE {K!Input("ElectionTimeout")}
      [] n.role = "follower" /\ n.fetch_lapsed  \* VOTERS-RULE-OBSERVER-FETCH-TIMEOUT: a lapsed observer asks a bootstrap server
            -> {K!FetchDue(v) : v \in InitialVoters}
      [] n.role = "follower" -> {K!FetchDue(n.leader)}
             \* an observer's fetch timer fires with no fetch of it in flight (VOTERS-MODEL-OBSERVER-TIMER)
             \cup (IF i \in n.voters \/ ~K!FetchInFlight(i) THEN {K!Input("FetchTimeout")} ELSE {})
      [] n.role = "leader" -> (IF n.renewed \/ ~IsQuorum(n.fetched \cup {i}, n.voters)
                               THEN {K!Input("CheckQuorumTimeout")} ELSE {})
                              \cup {K!Input("ClientAppend")}

-----------------------------------------------------------------------------
(* The voter-set replica step (model/voters/node.py, make_step).           *)

\* VOTERS-CTRL-APPEND / -TRUNCATE / -REBUILD (_follow_log): a raft step appends at the old log
\* end or truncates (never both); a restart reads the snapshot and the log from scratch.
FollowLog(before, after, m) ==
    IF m.type = "Restart" /\ before.role = "down" /\ after.role # "down" THEN Rebuild(after.snapshot, after.log)
    ELSE IF Len(after.log) > Len(before.log)
    THEN HandleRecords(after.control, Len(before.log), SubSeq(after.log, Len(before.log) + 1, Len(after.log)))
    ELSE IF Len(after.log) < Len(before.log) THEN TruncateTo(after.control, Len(after.log))
    ELSE after.control

\* The broken rule of effect-on-commit: the last VotersRecord below the high watermark.
CommittedVoterSet(n) ==
    LET hw == IF n.high_watermark = Nil THEN 0 ELSE n.high_watermark
        v == ValueAtOrBefore(n.control.voters, hw - 1)
    IN IF v = Nil THEN n.static ELSE v

\* VOTERS-RULE-EFFECT-ON-APPEND (_sync_voters): the voter set in force at the log end.
SyncVoters(i, n) ==
    LET ids == Ids(IF EffectOnCommit THEN CommittedVoterSet(n) ELSE LastVoterSet(n.control, n.static))
    IN IF ids = n.voters THEN n
       ELSE LET a == [n EXCEPT !.voters = ids] IN IF a.role = "leader" THEN UpdateHighWatermark(i, a) ELSE a

\* VOTERS-RULE-REMOVED-LEADER: once the VotersRecord removing the leader commits, it resigns.
MaybeResign(i, n) ==
    IF n.role # "leader" \/ i \in n.voters \/ n.high_watermark = Nil \/ n.control.voters = <<>>
       \/ Last(n.control.voters)[1] >= n.high_watermark
    THEN Result(n, {})
    ELSE Result(K!ToResigned(n), {K!EndQuorumEpochRequest(i, v, n.epoch) : v \in n.voters \ {i}})

\* The leader appends control records; the control state reads them at once.
AppendControl(n, es) ==
    [n EXCEPT !.log = @ \o es, !.control = HandleRecords(n.control, Len(n.log), es)]

\* VOTERS-RULE-ADD / VOTERS-RULE-REMOVE / VOTERS-RULE-UPGRADE (_reconfigure): a refused request
\* (ReconfigRejected, not a message) leaves the replica as it is.
Reconfigure(i, n, m) ==
    LET c == n.control
        hw == n.high_watermark
        current == LastVoterSet(c, n.static)
        key == <<m.replica, m.directory>>
    IN IF n.role # "leader" \/ hw = Nil THEN n
       ELSE IF m.type = "UpgradeKRaftVersion"
       THEN IF LastKRaftVersion(c) >= 1 THEN n
            \* VOTERS-RULE-UPGRADE-VOTERS: every voter told the leader it supports kraft.version 1
            ELSE IF n.upgrade_voters = {} \/ \E t \in n.upgrade_voters : ~t[3] THEN n
            \* the set stays (_append_same_set): a lone voter commits the upgrade at once
            ELSE UpdateHighWatermark(i, AppendControl(n, <<KRaftVersionEntry(n.epoch, 1),
                                    VotersEntry(n.epoch, {<<t[1], t[2]>> : t \in n.upgrade_voters})>>))
       ELSE IF LastKRaftVersion(c) < 1 THEN n
       ELSE IF ~TwoChangesInFlight /\ (c.voters = <<>> \/ Last(c.voters)[1] >= hw) THEN n
       ELSE IF m.type = "AddVoter"
       THEN IF m.replica \in Ids(current) \/ K!EndOffsetOf(n, m.replica) # Len(n.log) THEN n
            ELSE AppendControl(n, <<VotersEntry(n.epoch, current \cup {key})>>)
       ELSE IF key \notin current \/ Cardinality(current) = 1 THEN n
       ELSE AppendControl(n, <<VotersEntry(n.epoch, current \ {key})>>)

\* VOTERS-SNAP-TAKE: a snapshot at the high watermark, only forward; it trims the history.
TakeSnapshot(n) ==
    LET hw == n.high_watermark
    IN IF n.role = "down" \/ hw = Nil \/ hw <= 0 \/ (n.snapshot # Nil /\ hw <= n.snapshot.end_offset) THEN n
       ELSE LET snap == SnapshotAt(n.control, hw)
            IN [n EXCEPT !.snapshot = snap, !.control = TrimTo(n.control, snap)]

\* VOTERS-RULE-FIRST-LEADER (_write_bootstrap_voters): a new leader whose voter set came from the
\* bootstrap checkpoint (the history's last entry at -1) writes KRaftVersionRecord and that
\* VotersRecord after its LeaderChange.
FirstLeader(i, n) ==
    IF FirstLeaderSkipsVoters \/ n.control.voters = <<>> \/ Last(n.control.voters)[1] # -1
       \/ LastKRaftVersion(n.control) < 1
    THEN n
    ELSE UpdateHighWatermark(i, AppendControl(n, <<KRaftVersionEntry(n.epoch, LastKRaftVersion(n.control)),
                                                   VotersEntry(n.epoch, Last(n.control.voters)[2])>>))

ReconfigTypes == {"AddVoter", "RemoveVoter", "UpgradeKRaftVersion"}

\* VOTERS-RULE-UPGRADE-VOTERS (_update_in_memory): at a kraft.version-0 leader an UpdateVoter of its
\* epoch is kept in memory (the system model sends only a voter's own, range [0, 1]).
UpdateInMemory(n, m) ==
    IF n.role # "leader" \/ n.high_watermark = Nil \/ LastKRaftVersion(n.control) >= 1 \/ m.epoch # n.epoch
       \/ ~\E t \in n.upgrade_voters : t[1] = m.replica
    THEN n
    ELSE [n EXCEPT !.upgrade_voters = {IF t[1] = m.replica THEN <<t[1], m.directory, TRUE>> ELSE t : t \in @}]

\* VOTERS-RULE-UPGRADE-VOTERS (_track_upgrade_voters): a kraft.version-0 leader starts its epoch
\* knowing itself only; the record goes with the leadership and once kraft.version is 1.
TrackUpgradeVoters(i, before, after) ==
    IF after.role # "leader" \/ LastKRaftVersion(after.control) >= 1 THEN [after EXCEPT !.upgrade_voters = {}]
    ELSE IF before.role = "leader" /\ before.epoch = after.epoch /\ after.upgrade_voters # {} THEN after
    ELSE [after EXCEPT !.upgrade_voters = {IF v = i THEN <<v, DirectoryOf(v), TRUE>> ELSE <<v, -1, FALSE>> :
                                            v \in Ids(LastVoterSet(after.control, after.static))}]

\* VOTERS-RULE-OBSERVER-FETCH-TIMEOUT (_still_lapsed): the lapse lasts while the replica is the
\* same leader's observer follower in the same epoch and no Fetch answer of the epoch named the
\* leader (or, under K7, came from the leader with NONE).
StillLapsed(i, before, after, m) ==
    /\ after.role = "follower" /\ before.role = "follower" /\ i \notin after.voters
    /\ after.epoch = before.epoch /\ after.leader = before.leader
    /\ (m.type = "FetchResponse" /\ m.epoch = after.epoch) =>
          ~(m.src = after.leader /\ m.error = "NONE") /\ (ObserverStuckOnBootstrap \/ m.leader # after.leader)

ObserverFollower(i, n) == n.role = "follower" /\ i \notin n.voters

(* VOTERS-RULE-AUTO-JOIN (node.auto_join_request): when its update-voter-set period expires  *)
(* (the input UpdateVoterSetDue), a replica with auto-join on that follows a leader at        *)
(* kraft.version 1 or later, its own key outside the set in force, asks that leader to remove *)
(* a voter with its id and another directory (the least), else to add itself.  The leader    *)
(* judges the message as a client's AddVoter / RemoveVoter.                                    *)
JoinTypes == {"AddVoterRequest", "RemoveVoterRequest"}
AddVoterRequest(s, d, r, dir) == [type |-> "AddVoterRequest", src |-> s, dst |-> d, replica |-> r, directory |-> dir]
RemoveVoterRequest(s, d, r, dir) ==
    [type |-> "RemoveVoterRequest", src |-> s, dst |-> d, replica |-> r, directory |-> dir]
AsClientRequest(m) ==
    [type |-> IF m.type = "AddVoterRequest" THEN "AddVoter" ELSE "RemoveVoter", replica |-> m.replica,
     directory |-> m.directory]

\* The requests (none or one) replica i in state n sends when UpdateVoterSetDue fires.
AutoJoinRequest(i, n) ==
    LET current == LastVoterSet(n.control, n.static)
        old == {k \in current : k[1] = i}
    IN IF ~AutoJoin \/ n.role # "follower" \/ LastKRaftVersion(n.control) < 1 \/ <<i, DirectoryOf(i)>> \in current
       THEN {}
       ELSE IF old # {}
       THEN {RemoveVoterRequest(i, n.leader, i, CHOOSE d \in {k[2] : k \in old} : \A k \in old : d <= k[2])}
       ELSE {AddVoterRequest(i, n.leader, i, DirectoryOf(i))}

\* make_step: replica i in state n takes input m; the new replica and the messages it sends.
VStep(i, n, m) ==
    LET r == CASE m.type \in ReconfigTypes -> Result(Reconfigure(i, n, m), {})
               [] m.type \in JoinTypes -> Result(Reconfigure(i, n, AsClientRequest(m)), {})
               [] m.type = "UpdateVoter" -> Result(UpdateInMemory(n, m), {})
               [] m.type = "TakeSnapshot" -> Result(TakeSnapshot(n), {})
               [] m.type = "FetchTimeout" /\ ObserverFollower(i, n) -> Result([n EXCEPT !.fetch_lapsed = TRUE], {})
               [] m.type = "FetchDue" /\ n.fetch_lapsed ->
                      Result(n, IF m.to \in InitialVoters
                                THEN {K!FetchRequest(i, m.to, n.epoch, Len(n.log), K!LastEpoch(n.log))} ELSE {})
               [] OTHER -> LET s == RaftStep(i, n, m)
                               f == [s.node EXCEPT !.control = FollowLog(n, s.node, m),
                                                   !.fetch_lapsed = @ /\ StillLapsed(i, n, s.node, m)]
                           IN Result(IF f.role = "leader" /\ n.role # "leader" THEN FirstLeader(i, f) ELSE f, s.out)
        a == SyncVoters(i, r.node)
        b == MaybeResign(i, a)
    IN Result(TrackUpgradeVoters(i, n, b.node), r.out \cup b.out)

-----------------------------------------------------------------------------
(* The system (model/voters/system.py over RaftModel).                     *)

\* RaftModel._apply with the voter-set step, given its result r == VStep(i, S.nodes[i], m).
ApplyResult(S, i, m, r) ==
    LET before == S.nodes[i]
        sent == K!Sent(S, m, r.out)
        kept == K!ForgetIgnored(S.network, i, m, before, r.node, sent)
        S2 == [S EXCEPT !.nodes[i] = r.node, !.network = kept (+) SetToBag(sent)]
    IN K!RecordHistory(S2, i, before, r.node)

Apply(S, i, m) == ApplyResult(S, i, m, VStep(i, S.nodes[i], m))

\* An input that neither changes the replica nor makes it send anything is not enabled.
Changes(n, r) == r.node # n \/ r.out # {}

(* VOTERS-MODEL-START (VotersModel.start_up): replica 1's election timer   *)
(* fires and every message is delivered, the least first in Python's repr *)
(* order (class name, then src, then dst); then each other host fetches    *)
(* (at most three times) until the leader has seen it at its log end.      *)

TypeRank(t) ==
    CASE t = "BeginQuorumEpochRequest" -> 1 [] t = "BeginQuorumEpochResponse" -> 2
      [] t = "EndQuorumEpochRequest" -> 3 [] t = "EndQuorumEpochResponse" -> 4
      [] t = "FetchRequest" -> 5 [] t = "FetchResponse" -> 6
      [] t = "VoteRequest" -> 7 [] t = "VoteResponse" -> 8
Before(a, b) ==
    \/ TypeRank(a.type) < TypeRank(b.type)
    \/ TypeRank(a.type) = TypeRank(b.type) /\ (a.src < b.src \/ (a.src = b.src /\ a.dst <= b.dst))

RECURSIVE Drain(_)
Drain(S) ==
    IF DOMAIN S.network = {} THEN S
    ELSE LET m == CHOOSE x \in DOMAIN S.network : \A y \in DOMAIN S.network : Before(x, y)
         IN Drain(Apply([S EXCEPT !.network = K!Remove(S.network, m)], m.dst, m))

RECURSIVE CatchUp(_, _, _)
CatchUp(S, h, tries) ==
    IF tries = 0 \/ K!EndOffsetOf(S.nodes[1], h) = Len(S.nodes[1].log) THEN S
    ELSE CatchUp(Drain(Apply(S, h, K!FetchDue(1))), h, tries - 1)

RECURSIVE CatchUpFrom(_, _)
CatchUpFrom(S, h) == IF h > NumHosts THEN S ELSE CatchUpFrom(CatchUp(S, h, 3), h + 1)

StartUp(S) == CatchUpFrom(Drain(Apply(S, 1, K!Input("ElectionTimeout"))), 2)

\* VOTERS-MODEL-LONE-VOTER (RAFT-RULE-LONE-VOTER at the first start): a lone voter is elected
\* in Kafka's initialize(), the voters step's restart from the empty election state.
Formatted0 == [nodes |-> [i \in Replica |-> NewVoterNode], network |-> EmptyBag, elected |-> {}, votes |-> {},
               committed |-> {}]
Formatted == IF NumVoters = 1
             THEN Apply([Formatted0 EXCEPT !.nodes[1] = K!ToDown(1, @)], 1, K!Input("Restart"))
             ELSE Formatted0

Init ==
    /\ LET S == IF Started THEN StartUp(Formatted) ELSE Formatted
       IN nodes = S.nodes /\ network = S.network /\ elected = S.elected /\ votes = S.votes
          /\ committed = S.committed
    /\ appends = 0 /\ crashes = 0 /\ duplicates = 0 /\ fetches = 0 /\ elections = 0
    /\ adds = 0 /\ removes = 0 /\ snapshots = 0 /\ upgrades = 0 /\ joins = 0

-----------------------------------------------------------------------------
(* Actions: one per Python action class (Deliver, Drop, Duplicate, Fire,   *)
(* Reboot), as in KRaft.tla, over Apply; Fire also gives the leader its    *)
(* AddVoter/RemoveVoter/upgrade requests and a replica its snapshot.       *)

Deliver(m) ==
    /\ nodes[m.dst].role # "down"
    /\ LET S == Apply([K!Sys EXCEPT !.network = K!Remove(network, m)], m.dst, m)
           \* VOTERS-RULE-AUTO-JOIN: an accepted join request spends the budget of its kind
           \* (a refused one is consumed with no other change)
           accepted == m.type \in JoinTypes /\ S.nodes[m.dst] # nodes[m.dst]
           add == m.type = "AddVoterRequest"
       IN /\ accepted => IF add THEN adds < MaxAdds ELSE removes < MaxRemoves
          /\ K!SetSys(S)
          /\ adds' = IF accepted /\ add THEN adds + 1 ELSE adds
          /\ removes' = IF accepted /\ ~add THEN removes + 1 ELSE removes
          /\ joins' = IF accepted THEN joins + 1 ELSE joins
    /\ UNCHANGED <<appends, crashes, duplicates, fetches, elections, snapshots, upgrades>>

Drop(m) ==
    /\ network' = K!Remove(network, m)
    /\ UNCHANGED <<nodes, counters, elected, votes, committed>>

Duplicate(m) ==
    /\ duplicates < MaxDuplicates
    /\ network' = network (+) SetToBag({m})
    /\ duplicates' = duplicates + 1
    /\ UNCHANGED <<nodes, appends, crashes, fetches, elections, adds, removes, snapshots, upgrades, joins, elected,
                   votes, committed>>

\* RAFT-MODEL-FIRE; VOTERS-MODEL-ELECTIONS: CheckQuorumTimeout spends the election budget too
\* where it resigns (one that ends a renewed period, RAFT-RULE-CHECK-QUORUM-PERIOD, starts nothing).
ElectionBudgeted == K!ElectionTimers \cup {"CheckQuorumTimeout"}
Spends(m, r) == m.type \in K!ElectionTimers \/ (m.type = "CheckQuorumTimeout" /\ r.node.role # "leader")

FireTimer(i, m) ==
    /\ m \in EnabledInputs(i, nodes[i])
    /\ m.type = "ClientAppend" => appends < MaxAppends
    /\ m.type \in ElectionBudgeted => elections < MaxElections
    /\ m.type = "FetchDue" => fetches < MaxFetches /\ ~K!FetchInFlight(i)
    /\ LET r == VStep(i, nodes[i], m)  \* computed once for all uses
       IN /\ Changes(nodes[i], r) /\ K!SetSys(ApplyResult(K!Sys, i, m, r))
          /\ elections' = IF Spends(m, r) THEN elections + 1 ELSE elections
    /\ appends' = IF m.type = "ClientAppend" THEN appends + 1 ELSE appends
    /\ fetches' = IF m.type = "FetchDue" THEN fetches + 1 ELSE fetches
    /\ UNCHANGED <<crashes, duplicates, adds, removes, snapshots, upgrades, joins>>

FireCrash(i) ==
    /\ ~RebootAtOnce /\ nodes[i].role # "down" /\ crashes < MaxCrashes
    /\ K!SetSys(Apply(K!Sys, i, K!Input("Crash")))
    /\ crashes' = crashes + 1
    /\ UNCHANGED <<appends, duplicates, fetches, elections, adds, removes, snapshots, upgrades, joins>>

FireRestart(i) ==
    /\ nodes[i].role = "down"
    /\ K!SetSys(Apply(K!Sys, i, K!Input("Restart")))
    /\ UNCHANGED counters

AddVoter(r, d) == [type |-> "AddVoter", replica |-> r, directory |-> d]
RemoveVoter(r, d) == [type |-> "RemoveVoter", replica |-> r, directory |-> d]
UpdateVoterInput(r, e) == [type |-> "UpdateVoter", replica |-> r, directory |-> DirectoryOf(r), epoch |-> e]

\* VOTERS-MODEL-SNAPSHOT: a snapshot only when it would hold a control record of the log.
SnapshotWorthTaking(n) ==
    /\ n.high_watermark # Nil
    /\ n.high_watermark > 0
    /\ (n.snapshot # Nil => n.high_watermark > n.snapshot.end_offset)
    /\ <<KRaftVersionAt(n.control, n.high_watermark - 1), VoterSetAt(n.control, n.high_watermark - 1)>>
       # IF n.snapshot = Nil THEN <<0, Nil>> ELSE <<n.snapshot.kraft_version, n.snapshot.voters>>

\* The reconfiguration and snapshot inputs VotersModel.actions offers replica i, within budget.
VoterInputs(i, n) ==
    IF n.role = "down" THEN {}
    ELSE (IF n.role = "leader" /\ upgrades < 1 /\ LastKRaftVersion(n.control) = 0
          THEN {K!Input("UpgradeKRaftVersion")}
               \cup {UpdateVoterInput(t[1], n.epoch) : t \in {t \in n.upgrade_voters : ~t[3]}}
          ELSE {})
         \cup (IF n.role = "leader" /\ adds < MaxAdds THEN {AddVoter(h, DirectoryOf(h)) : h \in Replica \ n.voters}
               ELSE {})
         \cup (IF n.role = "leader" /\ removes < MaxRemoves
               THEN {RemoveVoter(k[1], k[2]) : k \in LastVoterSet(n.control, n.static)} ELSE {})
         \cup (IF snapshots < MaxSnapshots /\ SnapshotWorthTaking(n) THEN {K!Input("TakeSnapshot")} ELSE {})

\* A request the replica refuses changes no state: it is not an enabled action.
FireRequest(i, m) ==
    /\ m \in VoterInputs(i, nodes[i])
    /\ LET S == Apply(K!Sys, i, m)
       IN /\ S.nodes[i] # nodes[i]
          /\ K!SetSys(S)
    /\ adds' = IF m.type = "AddVoter" THEN adds + 1 ELSE adds
    /\ removes' = IF m.type = "RemoveVoter" THEN removes + 1 ELSE removes
    /\ snapshots' = IF m.type = "TakeSnapshot" THEN snapshots + 1 ELSE snapshots
    /\ upgrades' = IF m.type = "UpgradeKRaftVersion" THEN upgrades + 1 ELSE upgrades
    /\ UNCHANGED <<appends, crashes, duplicates, fetches, elections, joins>>

\* VOTERS-RULE-AUTO-JOIN's timer (VOTERS-MODEL-AUTO-JOIN-TIMER, system._may_join): it fires only
\* when the replica would send a request within the budget of its kind, with no fetch of it nor
\* an answer to one in flight, and no auto-join request of its own in flight.  The request goes
\* out; the replica does not change.
FireUpdateVoterSetDue(i) ==
    LET req == AutoJoinRequest(i, nodes[i])
    IN /\ req # {}
       /\ ~K!FetchInFlight(i)
       /\ \A q \in req : IF q.type = "AddVoterRequest" THEN adds < MaxAdds ELSE removes < MaxRemoves
       /\ ~\E q \in DOMAIN network : q.type \in JoinTypes /\ q.src = i
       /\ network' = network (+) SetToBag(req)
       /\ UNCHANGED <<nodes, counters, elected, votes, committed>>

Fire(i) ==
    \/ FireCrash(i) \/ FireRestart(i)
    \/ \E m \in EnabledInputs(i, nodes[i]) : FireTimer(i, m)
    \/ \E m \in VoterInputs(i, nodes[i]) : FireRequest(i, m)
    \/ (AutoJoin /\ nodes[i].role # "down" /\ FireUpdateVoterSetDue(i))  \* the input "UpdateVoterSetDue"

\* RAFT-MODEL-REBOOT
Reboot(i) ==
    /\ RebootAtOnce /\ nodes[i].role # "down" /\ crashes < MaxCrashes
    /\ LET up == Apply(Apply(K!Sys, i, K!Input("Crash")), i, K!Input("Restart"))
       IN /\ ~(up.nodes = nodes /\ up.network = network)
          /\ K!SetSys(up)
    /\ crashes' = crashes + 1
    /\ UNCHANGED <<appends, duplicates, fetches, elections, adds, removes, snapshots, upgrades, joins>>

Next ==
    \/ \E m \in DOMAIN network : Deliver(m) \/ Drop(m) \/ Duplicate(m)
    \/ \E i \in Replica : Fire(i) \/ Reboot(i)

Spec == Init /\ [][Next]_vars

\* RAFT-MODEL-CONSTRAINT (VotersModel keeps RaftModel.within_bounds)
WithinBounds == K!WithinBounds

-----------------------------------------------------------------------------
(* Properties (model/voters/properties.py), under the Python names.        *)

VoterRecords(log) == {k \in 1 .. Len(log) : log[k].kind = "voters"}   \* log positions (offset + 1)
IsCommitted(log, k) == \E c \in committed : c[1] = k - 1 /\ c[2] = log[k]

\* VOTERS-INV-ONE-VOTER-DIFF
ConsecutiveVoterSetsDifferByOne ==
    \A i \in Replica :
        LET log == nodes[i].log
            recs == VoterRecords(log)
            Prev(k) == LET earlier == {j \in recs : j < k}
                       IN IF earlier = {} THEN InitialVoters ELSE Ids(VotersOf(log[MaxOf(earlier)]))
        IN \A k \in recs : LET cur == Ids(VotersOf(log[k]))
                           IN Cardinality((cur \ Prev(k)) \cup (Prev(k) \ cur)) <= 1

\* VOTERS-INV-ONE-UNCOMMITTED
AtMostOneUncommittedChange ==
    \A i \in Replica : Cardinality({k \in VoterRecords(nodes[i].log) : ~IsCommitted(nodes[i].log, k)}) <= 1

\* VOTERS-INV-CURRENT-SET
VotersFromLogEnd ==
    \A i \in Replica :
        LET recs == VoterRecords(nodes[i].log)
        IN nodes[i].voters = IF recs = {} THEN InitialVoters ELSE Ids(VotersOf(nodes[i].log[MaxOf(recs)]))

\* control.view: what a control state answers from offset start - 1 to the log end.
View(c, static, start) ==
    <<c.next_offset, LastKRaftVersion(c), LastVoterSet(c, static),
      [o \in Max(start - 1, -1) .. c.next_offset - 1 |-> <<KRaftVersionAt(c, o), VoterSetAt(c, o)>>]>>

\* VOTERS-INV-REBUILD
ControlStateRebuilds ==
    \A i \in Replica :
        LET n == nodes[i]
            start == IF n.snapshot # Nil THEN n.snapshot.end_offset ELSE 0
        IN n.role # "down" =>
               /\ n.control.next_offset = Len(n.log)
               /\ View(n.control, n.static, start) = View(Rebuild(n.snapshot, n.log), n.static, start)

OffsetsIncrease(h, next) ==
    /\ \A k \in 1 .. Len(h) - 1 : h[k][1] < h[k + 1][1]
    /\ h # <<>> => Last(h)[1] < next

\* VOTERS-INV-HISTORY-ORDER
HistoryOffsetsIncrease ==
    \A i \in Replica : /\ OffsetsIncrease(nodes[i].control.voters, nodes[i].control.next_offset)
                      /\ OffsetsIncrease(nodes[i].control.kraft_versions, nodes[i].control.next_offset)

\* VOTERS-INV-BOOTSTRAP-REPLICATED
BootstrapVotersReplicated ==
    \A i \in Replica :
        LET n == nodes[i]
        IN \/ n.role = "down" \/ n.high_watermark = Nil \/ n.high_watermark = 0
           \/ \A k \in 1 .. Len(n.control.voters) : n.control.voters[k][1] # -1
           \/ \E k \in 1 .. Len(n.control.voters) : 0 <= n.control.voters[k][1]
                                                  /\ n.control.voters[k][1] < n.high_watermark

\* VOTERS-INV-ELECTION-SAFETY
ElectionSafety == K!ElectionSafety

\* VOTERS-INV-COMMITTED-UNIQUE
CommittedLogsAgree == K!CommittedLogsAgree

\* VOTERS-INV-LEADER-COMPLETENESS
LeaderCompleteness == K!LeaderCompleteness

-----------------------------------------------------------------------------
(* Witnesses (sometimes): TLC shows one is reached by violating Not<Name>.  *)

\* VOTERS-WIT-LEADER-ELECTED
LeaderElected == K!LeaderElected

\* VOTERS-WIT-ADDED
VoterAdded == \E c \in committed : c[2].kind = "voters" /\ Ids(VotersOf(c[2])) \ InitialVoters # {}

\* VOTERS-WIT-ADDED-VOTES
AddedVoterVotes == \E v \in votes : v[1] \notin InitialVoters

\* VOTERS-WIT-REMOVED
VoterRemoved == \E c \in committed : c[2].kind = "voters" /\ InitialVoters \ Ids(VotersOf(c[2])) # {}

\* VOTERS-WIT-SNAPSHOT
SnapshotTaken == \E i \in Replica : nodes[i].snapshot # Nil /\ nodes[i].snapshot.end_offset > 0
                                    /\ nodes[i].snapshot.voters # Nil

\* VOTERS-WIT-BOOTSTRAP-COMMITTED
BootstrapVotersCommitted == \E c \in committed : c[2].kind = "voters" /\ Ids(VotersOf(c[2])) = InitialVoters

\* VOTERS-WIT-OPEN-VOTE
VoteAcrossSets == \E i \in Replica : nodes[i].role = "voted"
                                     /\ (i \notin nodes[i].voters \/ nodes[i].voted_for \notin nodes[i].voters)

\* VOTERS-WIT-LEADER-UNREACHABLE
LeaderUnreachable == \E i \in Replica : nodes[i].role \in {"unattached", "voted"} /\ nodes[i].leader # Nil

\* VOTERS-WIT-UPGRADED
KRaftVersionUpgraded == \E c \in committed : c[2].kind = "kraft_version"

\* VOTERS-WIT-AUTO-JOINED (a step): a leader appends the VotersRecord adding an observer that asked
\* for it itself (its AddVoterRequest delivered and accepted: only such a step counts a join
\* and an add at once).
ObserverAutoJoins == joins' = joins + 1 /\ adds' = adds + 1

\* VOTERS-WIT-REMOVED-LEADER-RESIGNS (a step)
RemovedLeaderResigns ==
    \E i \in Replica : nodes[i].role = "leader" /\ nodes'[i].role = "resigned" /\ i \notin nodes'[i].voters

NotLeaderElected == ~LeaderElected
NotVoterAdded == ~VoterAdded
NotAddedVoterVotes == ~AddedVoterVotes
NotVoterRemoved == ~VoterRemoved
NotSnapshotTaken == ~SnapshotTaken
NotKRaftVersionUpgraded == ~KRaftVersionUpgraded
NotVoteAcrossSets == ~VoteAcrossSets
NotLeaderUnreachable == ~LeaderUnreachable
NotBootstrapVotersCommitted == ~BootstrapVotersCommitted
NeverRemovedLeaderResigns == [][~RemovedLeaderResigns]_vars
NeverObserverAutoJoins == [][~ObserverAutoJoins]_vars

=============================================================================
