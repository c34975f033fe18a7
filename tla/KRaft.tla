------------------------------- MODULE KRaft -------------------------------
(***************************************************************************)
(* KRaft (KIP-595), system level: spec/raft.md, section 7.  The Python     *)
(* twin is kspec.model.raft.system.RaftModel over kspec.model.raft.node.   *)
(*                                                                         *)
(* Replicas 1..NumVoters are the voters, the next NumObservers observers;  *)
(* PreVote is the bound pre_vote (KIP-996).                                *)
(* Every replica changes only through Step(i, n, input), which mirrors     *)
(* node.step rule by rule and returns the new replica and the messages it  *)
(* sends; Apply adds what the system model does around a step: inert       *)
(* responses are not sent (RAFT-MODEL-INERT-RESPONSES), responses Kafka    *)
(* would ignore are not sent or are forgotten, and requests whose answer   *)
(* it would ignore are marked orphaned (RAFT-MODEL-IGNORED-RESPONSES), and *)
(* the ghost history (elected, votes, committed) is kept and pruned.       *)
(*                                                                         *)
(* Variables, records and actions carry the names of the Python fields,    *)
(* message classes and action classes, so tla/mappings/raft.py maps a      *)
(* Python state to exactly these values (one to one).  VoteTwice is the    *)
(* deliberate flaw of the Python variant vote-twice (model/raft/           *)
(* variants.py): FALSE is the reference spec.                              *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets, Bags

CONSTANTS
    NumVoters,       \* bound voters: the replicas 1..NumVoters are the voters
    NumObservers,    \* bound observers: the replicas after them are observers
    MaxEpoch,        \* bound max_epoch: states past this epoch are not expanded (CONSTRAINT)
    MaxAppends,      \* bound max_appends: client appends in a run
    MaxCrashes,      \* bound max_crashes: crashes in a run
    MaxInflight,     \* bound max_inflight: states with more messages in flight are not expanded
    MaxDuplicates,   \* bound max_duplicates: message duplications in a run
    MaxFetches,      \* bound max_fetches: fetch requests sent in a run
    MaxElections,    \* bound max_elections: election/fetch timeouts and backoff expiries in a run
    PreVote,         \* bound pre_vote: ask for pre-votes before an election (KIP-996)
    RebootAtOnce,    \* bound reboot: a crash is followed at once by the restart (RAFT-MODEL-REBOOT)
    MaxResends,      \* bound max_resends: requests sent again to a voter that has not answered (RAFT-RULE-RESEND)
    VoteTwice,       \* flaw of the variant vote-twice: a voter that voted may vote again
    CandidateCountsRejections,  \* flaw of candidate-counts-rejections: a rejection counts as a grant
    VoteIgnoresLog,  \* flaw of vote-ignores-log: a vote is granted whatever the candidate's log
    LiveFlaw,        \* the liveness variant whose step flaw is on (model/raft/liveness_variants.py); "none"
    Nil              \* a model value: Python's None

VARIABLES
    nodes,        \* nodes[i]: replica i (a record: role, its fields, log, high_watermark)
    network,      \* the messages in flight: a bag (message -> number of copies)
    appends,      \* client appends so far
    crashes,      \* crashes so far
    duplicates,   \* duplications so far
    fetches,      \* fetch requests sent so far
    elections,    \* election timers fired so far
    resends,      \* requests sent again so far (ResendDue)
    resent,       \* ghost: the types of request a resend has sent (RAFT-WIT-BEGIN-EPOCH-RESENT)
    elected,      \* ghost: <<epoch, leader>> of the leaders elected
    votes,        \* ghost: <<voter, epoch, candidate>> of the votes granted (a candidate's own included)
    committed     \* ghost: <<offset, entry, epoch>>, an entry known committed at offset (from 0)

vars == <<nodes, network, appends, crashes, duplicates, fetches, elections, resends, resent, elected, votes,
          committed>>
\* (resent, a ghost, changes with resends only, so it goes with the counters)
counters == <<appends, crashes, duplicates, fetches, elections, resends, resent>>

Replica == 1 .. NumVoters + NumObservers
Voters == 1 .. NumVoters
Others(i) == Voters \ {i}
Min(a, b) == IF a < b THEN a ELSE b

-----------------------------------------------------------------------------
(* Rules (model/raft/rules.py).                                            *)

\* RAFT-RULE-MAJORITY
Majority == NumVoters \div 2 + 1
IsQuorum(S) == Cardinality(S \cap Voters) >= Majority

\* RAFT-RULE-VOTE-LOG-UP-TO-DATE: (last epoch, end offset) compared lexicographically.
LogUpToDate(cLastEpoch, cEnd, ownLastEpoch, ownEnd) ==
    IF cLastEpoch # ownLastEpoch THEN cLastEpoch > ownLastEpoch ELSE cEnd >= ownEnd

\* RAFT-RULE-HW-MAJORITY: the Majority-th largest end offset of the voters (off: Voters -> Nat).
MajorityEndOffset(off) ==
    LET vals == {off[v] : v \in Voters}
        AtLeast(x) == Cardinality({v \in Voters : off[v] >= x})
    IN CHOOSE x \in vals : AtLeast(x) >= Majority /\ \A y \in vals : y > x => AtLeast(y) < Majority

\* RAFT-RULE-HW-LEADER-EPOCH: moves once a record of the leader's epoch commits, never back.
NextHighWatermark(current, maj, epochStart) ==
    IF maj <= epochStart THEN current
    ELSE IF current # Nil /\ maj <= current THEN current
    ELSE maj

-----------------------------------------------------------------------------
(* Entries, logs and messages (model/raft/messages.py).                    *)
(* A message is a record with the Python class's fields and its name as    *)
(* `type`; None is Nil, a tuple a sequence.  A request's `orphaned` is the *)
(* system's mark (RAFT-MODEL-IGNORED-RESPONSES): sent FALSE, set in flight.*)

Entry(e, kind) == [epoch |-> e, kind |-> kind, payload |-> <<>>]

LastEpoch(log) == IF log = <<>> THEN 0 ELSE log[Len(log)].epoch
Prefix(log, k) == SubSeq(log, 1, Min(k, Len(log)))

\* Kafka's endOffsetForEpoch: <<largest epoch <= e in the log, its end offset>>, <<0, 0>> if none.
EndOffsetForEpoch(log, e) ==
    LET k == CHOOSE j \in 0 .. Len(log) :
                 (\A x \in 1 .. j : log[x].epoch <= e) /\ (j = Len(log) \/ log[j + 1].epoch > e)
    IN IF k = 0 THEN <<0, 0>> ELSE <<log[k].epoch, k>>

VoteRequest(s, d, e, lastEpoch, endOffset, preVote) ==
    [type |-> "VoteRequest", src |-> s, dst |-> d, epoch |-> e, last_epoch |-> lastEpoch,
     end_offset |-> endOffset, pre_vote |-> preVote, orphaned |-> FALSE]
VoteResponse(s, d, e, granted, leader, preVote, error) ==
    [type |-> "VoteResponse", src |-> s, dst |-> d, epoch |-> e, granted |-> granted, leader |-> leader,
     pre_vote |-> preVote, error |-> error]
BeginQuorumEpochRequest(s, d, e) ==
    [type |-> "BeginQuorumEpochRequest", src |-> s, dst |-> d, epoch |-> e, orphaned |-> FALSE]
BeginQuorumEpochResponse(s, d, e, leader, error) ==
    [type |-> "BeginQuorumEpochResponse", src |-> s, dst |-> d, epoch |-> e, leader |-> leader, error |-> error]
EndQuorumEpochRequest(s, d, e) ==
    [type |-> "EndQuorumEpochRequest", src |-> s, dst |-> d, epoch |-> e, preferred |-> <<>>, orphaned |-> FALSE]
EndQuorumEpochResponse(s, d, e, leader, error) ==
    [type |-> "EndQuorumEpochResponse", src |-> s, dst |-> d, epoch |-> e, leader |-> leader, error |-> error]
FetchRequest(s, d, e, offset, lastFetchedEpoch) ==
    [type |-> "FetchRequest", src |-> s, dst |-> d, epoch |-> e, fetch_offset |-> offset,
     last_fetched_epoch |-> lastFetchedEpoch, orphaned |-> FALSE]
FetchResponse(s, d, e, leader, error, offset, entries, hw, diverging) ==
    [type |-> "FetchResponse", src |-> s, dst |-> d, epoch |-> e, leader |-> leader, error |-> error,
     offset |-> offset, entries |-> entries, high_watermark |-> hw, diverging |-> diverging]

RequestTypes == {"VoteRequest", "BeginQuorumEpochRequest", "EndQuorumEpochRequest", "FetchRequest"}
ResponseTypes == {"VoteResponse", "BeginQuorumEpochResponse", "EndQuorumEpochResponse", "FetchResponse"}

\* Timer and environment inputs.
Input(t) == [type |-> t]
FetchDue(to) == [type |-> "FetchDue", to |-> to]
ResendDue(to) == [type |-> "ResendDue", to |-> to]

\* RAFT-RULE-RESEND, RAFT-MODEL-ONE-RESEND: the replicas keep who answered their requests
\* (a replica's resends flag, Node.resends) only while a resend is still in the run's budget;
\* once it is spent they forget it (system._forget_answers, ForgetAnswers here).
\* The flag is the replica's, not the variable resends < MaxResends, so that the step is a
\* constant-level operator (a function of the replica and the input, as node.step is): Voters.tla
\* runs this step while computing its initial state (VOTERS-MODEL-START), and TLC caches a LET
\* definition or an operator argument there only if its level is constant (tlaplus/tlaplus#113,
\* Tool.java). A step that read the variable was re-evaluated at every use of every LET that
\* held it: minutes, then a Java StackOverflowError, for Voters.tla's initial state.
\* MaxResends is tested first: Voters.tla's replicas (MaxResends <- 0) have no resends field.
Resending(n) == MaxResends > 0 /\ n.resends

-----------------------------------------------------------------------------
(* A replica (model/raft/state.py).  One record with every role's fields;  *)
(* a field the role does not have holds its default (Nil, {}, FALSE, 0),   *)
(* so a record is one Python role: voted_for is Voted's, leader is         *)
(* Follower's; granted, rejected, backing_off are Candidate's;             *)
(* epoch_start, end_offsets (a set of <<replica, offset>>), fetched and   *)
(* renewed are Leader's; acknowledged is Leader's and Resigned's (RAFT-RULE-RESEND);   *)
(* resends, every replica's, says whether it keeps those answers;          *)
(* granted, rejected and prior (an Election) are Prospective's;            *)
(* a follower also has voted_for and has_fetched under kip-996.           *)
(* A down replica keeps its election in epoch/voted_for/leader.            *)

\* Voters.tla's replicas (which INSTANCE this module) have no acknowledged field: it runs
\* without resends (MaxResends <- 0). Without resends nothing adds to acknowledged, so leaving
\* it alone is the same as emptying it.
WithAcknowledged(n, acked) == IF MaxResends = 0 THEN n ELSE [n EXCEPT !.acknowledged = acked]

SetRole(n, role, e, votedFor, leader) ==
    WithAcknowledged(
        [n EXCEPT !.role = role, !.epoch = e, !.voted_for = votedFor, !.leader = leader, !.granted = {},
                  !.rejected = {}, !.backing_off = FALSE, !.timed_out = FALSE, !.epoch_start = 0, !.end_offsets = {}, !.fetched = {},
                  !.renewed = FALSE, !.has_fetched = FALSE, !.prior = Nil], {})

NewNode == [role |-> "unattached", epoch |-> 0, voted_for |-> Nil, leader |-> Nil, granted |-> {},
            rejected |-> {}, backing_off |-> FALSE, timed_out |-> FALSE, epoch_start |-> 0, end_offsets |-> {}, fetched |-> {},
            renewed |-> FALSE, acknowledged |-> {}, resends |-> MaxResends > 0, has_fetched |-> FALSE, prior |-> Nil, log |-> <<>>,
            high_watermark |-> Nil]

\* RAFT-STATE-PERSISTED: the election state a replica has persisted in its role.
Election(e, votedFor, leader) == [epoch |-> e, voted_for |-> votedFor, leader |-> leader]
ElectionOf(i, n) ==
    CASE n.role = "unattached" -> Election(n.epoch, Nil, n.leader)
      [] n.role = "voted" -> Election(n.epoch, n.voted_for, n.leader)
      [] n.role = "candidate" -> Election(n.epoch, i, Nil)
      [] n.role \in {"leader", "resigned"} -> Election(n.epoch, Nil, i)
      [] n.role = "follower" -> Election(n.epoch, n.voted_for, n.leader)
      [] n.role = "down" -> Election(n.epoch, n.voted_for, n.leader)
      [] n.role = "prospective" -> n.prior

LeaderHint(i, n) == ElectionOf(i, n).leader

\* RAFT-KIP853-LEADER-UNREACHABLE (Voters.tla only; Nil in KRaft's states): the leader an
\* unattached or voted replica knows without its endpoint; a prospective's leader field holds
\* the one it came from (Prospective.unreachable).
UnreachableLeader(n) == IF n.role \in {"unattached", "voted"} THEN n.leader ELSE Nil
\* Kafka's maybeTransition: a message naming the epoch's leader is followed by a replica that
\* knows no leader, or knows one without its endpoint.
FollowsNamedLeader(i, n) == LeaderHint(i, n) = Nil \/ UnreachableLeader(n) # Nil

\* The checked constructors of node.py (the role transitions of RAFT-TRANS-*).
ToUnattached(n, e) == SetRole(n, "unattached", e, Nil, Nil)
ToVoted(n, e, candidate) == SetRole(n, "voted", e, candidate, Nil)
\* RAFT-KIP996-VOTE-KEPT: under kip-996 a follower of the same epoch keeps the vote.
ToFollower(i, n, e, leader) ==
    SetRole(n, "follower", e, IF PreVote /\ e = n.epoch THEN ElectionOf(i, n).voted_for ELSE Nil, leader)
ToCandidate(i, n) == [SetRole(n, "candidate", n.epoch + 1, Nil, Nil) EXCEPT !.granted = {i}]
ToLeader(n) == [SetRole(n, "leader", n.epoch, Nil, Nil) EXCEPT !.epoch_start = Len(n.log), !.high_watermark = Nil]
\* Kafka's ResignedState has no high watermark (RAFT-TRANS-HW-CARRIED).
ToResigned(n) == [SetRole(n, "resigned", n.epoch, Nil, Nil) EXCEPT !.high_watermark = Nil]
ToProspective(i, n) == [SetRole(n, "prospective", n.epoch, Nil, UnreachableLeader(n)) EXCEPT !.prior = ElectionOf(i, n),
                                                                          !.granted = {i}]
ToDown(i, n) == LET el == ElectionOf(i, n)
                IN [SetRole(n, "down", el.epoch, el.voted_for, el.leader) EXCEPT !.high_watermark = Nil]

EndOffsetOf(n, v) == IF \E p \in n.end_offsets : p[1] = v THEN (CHOOSE p \in n.end_offsets : p[1] = v)[2] ELSE 0
WithEndOffset(n, r, o) == [n EXCEPT !.end_offsets = {p \in @ : p[1] # r} \cup {<<r, o>>}]

\* RAFT-RULE-HW: the leader's high watermark from the voters' end offsets (its own is its log end).
UpdateHighWatermark(i, n) ==
    LET off == [v \in Voters |-> IF v = i THEN Len(n.log) ELSE EndOffsetOf(n, v)]
    IN [n EXCEPT !.high_watermark = NextHighWatermark(n.high_watermark, MajorityEndOffset(off), n.epoch_start)]

-----------------------------------------------------------------------------
(* The replica step (model/raft/node.py): Result(n, out) is the new        *)
(* replica and the set of messages it sends (a step never sends one        *)
(* message twice; persistence effects are not needed at system level: a    *)
(* step with an effect also changes the replica).                          *)

Result(n, out) == [node |-> n, out |-> out]

VoteRequests(i, n, e, preVote) == {VoteRequest(i, v, e, LastEpoch(n.log), Len(n.log), preVote) : v \in Others(i)}
EndQuorumEpochRequests(i, n) == {EndQuorumEpochRequest(i, v, n.epoch) : v \in Others(i)}

\* RAFT-RULE-LEADER-CHANGE: a LeaderChange record at the epoch start, BeginQuorumEpoch to the voters.
BecomeLeader(i, n) ==
    LET a == ToLeader(n)
        b == [a EXCEPT !.log = Append(@, Entry(a.epoch, "leader_change"))]
    IN Result(UpdateHighWatermark(i, b), {BeginQuorumEpochRequest(i, v, b.epoch) : v \in Others(i)})

BecomeCandidate(i, n) ==
    LET a == ToCandidate(i, n)
    IN IF IsQuorum({i}) THEN BecomeLeader(i, a) ELSE Result(a, VoteRequests(i, a, a.epoch, FALSE))

\* RAFT-RULE-ELECTION: under kip-996 ask for pre-votes of the current epoch first
\* (RAFT-TRANS-PROSPECTIVE, RAFT-KIP996-PRE-VOTE-EPOCH).
StartElection(i, n) ==
    IF ~PreVote THEN BecomeCandidate(i, n)
    ELSE LET a == ToProspective(i, n)
         IN IF IsQuorum({i}) THEN BecomeCandidate(i, a) ELSE Result(a, VoteRequests(i, a, a.epoch, TRUE))

\* RAFT-KIP996-LOSS: a prospective that loses its pre-vote (or times out) follows the leader it
\* knew, else keeps its vote (its own included) unattached in its epoch.
Restore(i, n, prior) ==
    IF n.role = "prospective" /\ n.leader # Nil  \* RAFT-KIP853-LEADER-UNREACHABLE: still unreachable
    THEN SetRole(n, IF prior.voted_for # Nil THEN "voted" ELSE "unattached", prior.epoch, prior.voted_for, prior.leader)
    ELSE IF prior.leader # Nil /\ prior.leader # i THEN ToFollower(i, n, prior.epoch, prior.leader)
    ELSE IF prior.voted_for # Nil THEN ToVoted(n, prior.epoch, prior.voted_for)
    ELSE ToUnattached(n, prior.epoch)

\* RAFT-RULE-HIGHER-EPOCH
ObserveEpoch(i, n, e, leader) ==
    IF e <= n.epoch THEN n
    ELSE IF leader # Nil /\ leader # i THEN ToFollower(i, n, e, leader)
    ELSE ToUnattached(n, e)

\* RAFT-RULE-LONE-VOTER (node.initialize): Kafka's initialize() makes a lone voter leader at once.
Initialize(i, n) ==
    IF i \in Voters /\ IsQuorum({i}) /\ n.role \notin {"down", "leader"}
    THEN IF n.role = "candidate" THEN BecomeLeader(i, n) ELSE StartElection(i, n)
    ELSE Result(n, {})

\* RAFT-RULE-RESTART: resume from the persisted election state (Kafka's QuorumState.initialize),
\* then RAFT-RULE-LONE-VOTER (a lone voter has no one to send to).
Restart(i, n) ==
    LET e == ElectionOf(i, n)
        a == CASE e.epoch < LastEpoch(n.log) -> ToUnattached(n, LastEpoch(n.log))
               [] e.leader = i -> SetRole(n, "resigned", e.epoch, Nil, Nil)
               [] e.voted_for = i -> [SetRole(n, "candidate", e.epoch, Nil, Nil) EXCEPT !.granted = {i}]
               [] e.leader # Nil -> SetRole(n, "follower", e.epoch, e.voted_for, e.leader)
               [] e.voted_for # Nil -> ToVoted(n, e.epoch, e.voted_for)
               [] OTHER -> ToUnattached(n, e.epoch)
        b == [a EXCEPT !.high_watermark = Nil]
    IN IF i \in Voters /\ IsQuorum({i}) THEN Initialize(i, b)
       ELSE Result(b, CASE b.role = "candidate" -> VoteRequests(i, b, b.epoch, FALSE)
                        [] b.role = "resigned" -> EndQuorumEpochRequests(i, b)
                        [] OTHER -> {})

\* RAFT-RULE-VOTE-GRANT: at most one vote per epoch, to a candidate with an up-to-date log.
\* A pre-vote never changes the receiver's state (KIP-996). With VoteTwice, a voter that voted
\* for another candidate of this epoch forgets its vote first.
\* RAFT-KIP996-PRE-VOTE-GRANT: a pre-vote of a higher epoch moves the receiver to that epoch first.
OnPreVoteRequest(i, n, r) ==
    IF r.epoch < n.epoch
    THEN Result(n, {VoteResponse(i, r.src, n.epoch, FALSE, LeaderHint(i, n), TRUE, "FENCED_LEADER_EPOCH")})
    ELSE LET a == IF r.epoch > n.epoch THEN ToUnattached(n, r.epoch) ELSE n
             granted == i \in Voters /\ r.src \in Voters
                        /\ LogUpToDate(r.last_epoch, r.end_offset, LastEpoch(a.log), Len(a.log))
                        /\ (a.role \in {"unattached", "voted", "prospective", "candidate", "resigned"}
                            \/ (a.role = "follower" /\ ~a.has_fetched))
         IN Result(a, {VoteResponse(i, r.src, a.epoch, granted, LeaderHint(i, a), TRUE, "NONE")})

OnVoteRequest(i, n0, r) ==
    LET n == IF VoteTwice /\ n0.role = "voted" /\ r.epoch = n0.epoch /\ n0.voted_for # r.src
             THEN ToUnattached(n0, n0.epoch) ELSE n0
    IN IF r.pre_vote THEN OnPreVoteRequest(i, n0, r)
       ELSE IF r.epoch < n.epoch
       THEN Result(n, {VoteResponse(i, r.src, n.epoch, FALSE, LeaderHint(i, n), FALSE, "FENCED_LEADER_EPOCH")})
       ELSE LET a == IF r.epoch > n.epoch THEN ToUnattached(n, r.epoch) ELSE n
                ok == i \in Voters /\ r.src \in Voters
                      /\ LogUpToDate(r.last_epoch, r.end_offset, LastEpoch(a.log), Len(a.log))
                grant == ok /\ a.role = "unattached"
                \* RAFT-KIP996-PROSPECTIVE-VOTES
                pgrant == ok /\ PreVote /\ a.role = "prospective" /\ a.prior.voted_for = Nil /\ a.prior.leader = Nil
                granted == grant \/ pgrant \/ (ok /\ a.role = "voted" /\ a.voted_for = r.src)
                           \/ (ok /\ PreVote /\ a.role = "prospective" /\ a.prior.voted_for = r.src)
                \* a grant starts the pre-vote round again (Kafka 4.0+'s new ProspectiveState): the
                \* answers are forgotten and the voters that gave them are asked again
                asked == IF pgrant THEN (a.granted \cup a.rejected) \ {i} ELSE {}
                b == IF grant THEN ToVoted(a, r.epoch, r.src)
                     ELSE IF pgrant THEN [a EXCEPT !.prior.voted_for = r.src, !.granted = {i}, !.rejected = {}]
                     ELSE a
            IN Result(b, {VoteResponse(i, r.src, b.epoch, granted, LeaderHint(i, b), FALSE, "NONE")}
                         \cup {VoteRequest(i, v, b.epoch, LastEpoch(b.log), Len(b.log), TRUE) : v \in asked})

\* RAFT-RULE-BEGIN-EPOCH: a leader of an equal or higher epoch is followed.
OnBeginQuorumEpoch(i, n, r) ==
    IF r.epoch < n.epoch
    THEN Result(n, {BeginQuorumEpochResponse(i, r.src, n.epoch, LeaderHint(i, n), "FENCED_LEADER_EPOCH")})
    ELSE LET a == IF r.src # i /\ (r.epoch > n.epoch \/ FollowsNamedLeader(i, n))
                  THEN ToFollower(i, n, r.epoch, r.src) ELSE n
         IN Result(a, {BeginQuorumEpochResponse(i, r.src, a.epoch, LeaderHint(i, a), "NONE")})

\* RAFT-RULE-END-EPOCH: a replica without a leader in this epoch follows the resigning sender.
OnEndQuorumEpoch(i, n, r) ==
    IF r.epoch < n.epoch
    THEN Result(n, {EndQuorumEpochResponse(i, r.src, n.epoch, LeaderHint(i, n), "FENCED_LEADER_EPOCH")})
    ELSE LET a == ObserveEpoch(i, n, r.epoch, r.src)
             b == IF r.epoch = a.epoch /\ r.src # i /\ r.src \in Voters
                     /\ a.role \in {"unattached", "voted", "candidate", "prospective"} /\ FollowsNamedLeader(i, a)
                  THEN ToFollower(i, a, r.epoch, r.src) ELSE a
         IN Result(b, {EndQuorumEpochResponse(i, r.src, b.epoch, LeaderHint(i, b), "NONE")})

FetchError(i, n, r, error) ==
    Result(n, {FetchResponse(i, r.src, n.epoch, LeaderHint(i, n), error, r.fetch_offset, <<>>, Nil, Nil)})

\* RAFT-RULE-FETCH: only the leader of the request's epoch serves; a fetch not in its log gets
\* the diverging epoch; a valid one updates the end offsets, the check-quorum set and the HW.
OnFetchRequest(i, n, r) ==
    IF r.epoch < n.epoch THEN FetchError(i, n, r, "FENCED_LEADER_EPOCH")
    ELSE IF r.epoch > n.epoch THEN FetchError(i, n, r, "UNKNOWN_LEADER_EPOCH")
    ELSE IF n.role # "leader" THEN FetchError(i, n, r, "NOT_LEADER_OR_FOLLOWER")
    ELSE LET found == EndOffsetForEpoch(n.log, r.last_fetched_epoch)
             valid == (r.fetch_offset = 0 /\ r.last_fetched_epoch = 0)
                      \/ (found[1] = r.last_fetched_epoch /\ found[2] >= r.fetch_offset
                          /\ r.fetch_offset <= Len(n.log))
         IN IF ~valid
            THEN Result(n, {FetchResponse(i, r.src, n.epoch, i, "NONE", r.fetch_offset, <<>>, n.high_watermark,
                                          found)})
            ELSE LET a == WithEndOffset(n, r.src, r.fetch_offset)
                     f == a.fetched \cup {r.src}
                     \* Kafka resets the check-quorum timer as soon as a majority has fetched,
                     \* which renews the period (RAFT-RULE-CHECK-QUORUM-PERIOD).
                     \* a valid fetch acknowledges the leader too (RAFT-RULE-RESEND)
                     b == IF r.src \in Voters
                          THEN [a EXCEPT !.fetched = IF IsQuorum(f \cup {i}) THEN {} ELSE f,
                                         !.renewed = IF IsQuorum(f \cup {i}) THEN TRUE ELSE @,
                                         !.acknowledged = IF Resending(a) THEN @ \cup {r.src} ELSE @]
                          ELSE a
                     c == UpdateHighWatermark(i, b)
                 IN Result(c, {FetchResponse(i, r.src, c.epoch, i, "NONE", r.fetch_offset,
                                             SubSeq(c.log, r.fetch_offset + 1, Len(c.log)), c.high_watermark, Nil)})

\* RAFT-RULE-CANDIDATE, RAFT-RULE-BACKOFF
\* RAFT-RULE-VOTE-ERROR: an answer with an error is no ballot.
OnVoteResponse(i, n, r) ==
    IF n.role # "candidate" \/ r.src \notin Voters \/ r.error # "NONE" THEN Result(n, {})
    ELSE LET a == IF r.granted THEN [n EXCEPT !.granted = @ \cup {r.src}]
                  ELSE [n EXCEPT !.rejected = @ \cup {r.src}]
         IN IF r.granted /\ IsQuorum(a.granted) THEN BecomeLeader(i, a)
            ELSE IF ~IsQuorum(Voters \ a.rejected) THEN Result([a EXCEPT !.backing_off = TRUE], {})
            ELSE Result(a, {})

\* RAFT-RULE-PRE-VOTE: a majority of pre-votes starts a real election; a majority of rejections
\* returns the replica to the state it came from.
OnPreVoteResponse(i, n, r) ==
    IF r.src \notin Voters \/ r.error # "NONE" THEN Result(n, {})
    ELSE LET a == IF r.granted THEN [n EXCEPT !.granted = @ \cup {r.src}]
                  ELSE [n EXCEPT !.rejected = @ \cup {r.src}]
         IN IF IsQuorum(a.granted) THEN BecomeCandidate(i, a)
            ELSE IF ~IsQuorum(Voters \ a.rejected) THEN Result(Restore(i, a, a.prior), {})
            ELSE Result(a, {})

\* RAFT-RULE-FOLLOWER-FETCH, RAFT-RULE-TRUNCATE
OnFetchResponse(i, n0, r) ==
    LET n == IF PreVote /\ n0.role = "follower" /\ r.src = n0.leader /\ r.error = "NONE"
                /\ (r.diverging # Nil \/ r.offset = Len(n0.log))
             THEN [n0 EXCEPT !.has_fetched = TRUE] ELSE n0  \* RAFT-KIP996-PRE-VOTE-GRANT
    IN
    IF n.role # "follower" \/ r.src # n.leader \/ r.error # "NONE" THEN Result(n, {})
    ELSE IF r.diverging # Nil
    THEN LET local == EndOffsetForEpoch(n.log, r.diverging[1])
             target == IF local[1] = r.diverging[1] THEN Min(local[2], r.diverging[2]) ELSE local[2]
         IN IF target >= Len(n.log) THEN Result(n, {})
            ELSE Result([n EXCEPT !.log = SubSeq(@, 1, target)], {})
    ELSE IF r.offset # Len(n.log) THEN Result(n, {})  \* a reply to an older fetch
    ELSE LET a == [n EXCEPT !.log = @ \o r.entries]
             hw == IF r.high_watermark = Nil THEN Nil ELSE Min(r.high_watermark, Len(a.log))
         IN Result(IF hw # Nil /\ (a.high_watermark = Nil \/ hw > a.high_watermark)
                   THEN [a EXCEPT !.high_watermark = hw] ELSE a, {})

\* RAFT-RULE-RESEND (node._acknowledge): a NONE BeginQuorumEpochResponse of the leader's epoch
\* acknowledges the leader, a NONE EndQuorumEpochResponse the resignation.
Acknowledge(n, r) ==
    IF ~Resending(n) \/ r.error # "NONE" \/ r.epoch # n.epoch \/ r.src \notin Voters THEN n
    ELSE IF (r.type = "BeginQuorumEpochResponse" /\ n.role = "leader")
            \/ (r.type = "EndQuorumEpochResponse" /\ n.role = "resigned")
    THEN [n EXCEPT !.acknowledged = @ \cup {r.src}]
    ELSE n

\* RAFT-RULE-RESPONSE: higher epoch moves on, lower is stale, a named leader is followed.
OnResponse(i, n, r) ==
    IF r.epoch > n.epoch THEN Result(ObserveEpoch(i, n, r.epoch, r.leader), {})
    ELSE IF r.epoch < n.epoch THEN Result(n, {})
    ELSE IF r.leader # Nil /\ r.leader # i /\ FollowsNamedLeader(i, n)
            /\ n.role \in {"unattached", "voted", "candidate", "prospective"}
    THEN LET a == ToFollower(i, n, r.epoch, r.leader)
         IN IF r.type = "FetchResponse" THEN OnFetchResponse(i, a, r) ELSE Result(a, {})
    ELSE IF r.type = "VoteResponse" /\ r.pre_vote
    THEN IF n.role = "prospective" THEN OnPreVoteResponse(i, n, r) ELSE Result(n, {})
    ELSE IF r.type = "VoteResponse" THEN OnVoteResponse(i, n, r)
    ELSE IF r.type = "FetchResponse" THEN OnFetchResponse(i, n, r)
    ELSE Result(Acknowledge(n, r), {})

\* RAFT-RULE-ELECTION, RAFT-RULE-BACKOFF
OnElectionTimeout(i, n) ==
    CASE i \notin Voters -> Result(n, {})
      [] n.role \in {"unattached", "voted"} -> StartElection(i, n)
      \* RAFT-KIP996-RESIGNED: unattached(epoch + 1) with the expired timer: the pre-vote starts at once.
      [] n.role = "resigned" -> IF PreVote THEN StartElection(i, ToUnattached(n, n.epoch + 1))
                                ELSE BecomeCandidate(i, n)
      [] n.role = "candidate" /\ ~n.backing_off ->
             IF PreVote THEN StartElection(i, n)
             ELSE Result([n EXCEPT !.backing_off = TRUE, !.timed_out = TRUE], {})
      \* RAFT-KIP996-TIMEOUT: without a known leader the next pre-vote starts in the same step.
      [] n.role = "prospective" -> LET a == Restore(i, n, n.prior)
                                   IN IF a.role = "follower" THEN Result(a, {}) ELSE StartElection(i, a)
      [] OTHER -> Result(n, {})

\* RAFT-RULE-CHECK-QUORUM: resign when no majority fetched (no preferred successors: D-CHECK-QUORUM-SUCCESSORS).
\* RAFT-RULE-CHECK-QUORUM-PERIOD: a period in which a majority fetched ends with the leader leading on.
OnCheckQuorumTimeout(i, n) ==
    IF n.role = "leader" /\ n.renewed THEN Result([n EXCEPT !.renewed = FALSE], {})
    ELSE IF n.role # "leader" \/ IsQuorum(n.fetched \cup {i}) THEN Result(n, {})
    ELSE LET a == ToResigned(n) IN Result(a, EndQuorumEpochRequests(i, a))

\* A follower fetches from its leader; an unattached observer asks any voter (RAFT-RULE-OBSERVER).
OnFetchDue(i, n, to) ==
    IF (n.role = "follower" /\ to = n.leader) \/ (n.role = "unattached" /\ i \notin Voters /\ to \in Voters)
    THEN Result(n, {FetchRequest(i, to, n.epoch, Len(n.log), LastEpoch(n.log))})
    ELSE Result(n, {})

\* RAFT-RULE-RESEND (node.unanswered): the voters replica i may send its role's request again,
\* because they have not answered it (none while a candidate backs off).
Unanswered(i, n) ==
    IF ~Resending(n) \/ i \notin Voters THEN {}
    ELSE CASE n.role \in {"leader", "resigned"} -> Others(i) \ n.acknowledged
           [] (n.role = "candidate" /\ ~n.backing_off) \/ n.role = "prospective" -> Others(i) \ (n.granted \cup n.rejected)
           [] OTHER -> {}

\* RAFT-RULE-RESEND (node._on_resend_due): the role's request again, to one voter that has not answered.
OnResendDue(i, n, to) ==
    IF to \notin Unanswered(i, n) THEN Result(n, {})
    ELSE CASE n.role = "leader" -> Result(n, {BeginQuorumEpochRequest(i, to, n.epoch)})
           [] n.role = "resigned" -> Result(n, {EndQuorumEpochRequest(i, to, n.epoch)})
           [] n.role = "candidate" -> Result(n, {VoteRequest(i, to, n.epoch, LastEpoch(n.log), Len(n.log), FALSE)})
           [] OTHER -> Result(n, {VoteRequest(i, to, n.epoch, LastEpoch(n.log), Len(n.log), TRUE)})

OnClientAppend(i, n) ==
    IF n.role # "leader" THEN Result(n, {})
    ELSE Result(UpdateHighWatermark(i, [n EXCEPT !.log = Append(@, Entry(n.epoch, "data"))]), {})

\* The flaws that rewrite an input before the reference step takes it (as the Python variants
\* candidate_counts_rejections and vote_ignores_log do).
Flawed(m) ==
    CASE CandidateCountsRejections /\ m.type = "VoteResponse" /\ ~m.granted /\ ~m.pre_vote
             -> [m EXCEPT !.granted = TRUE]
      [] VoteIgnoresLog /\ m.type = "VoteRequest" -> [m EXCEPT !.last_epoch = 1000000]
      [] OTHER -> m

\* RAFT-RULE-TIMER-KEPT: a candidate whose election timer expired, made unattached by a higher
\* epoch, starts the next election in the same step.
TimerKept(i, n, r) ==
    IF n.role = "candidate" /\ n.timed_out /\ r.node.role = "unattached" /\ r.node.epoch > n.epoch
    THEN LET e == StartElection(i, r.node) IN Result(e.node, r.out \cup e.out)
    ELSE r

\* node.step: replica i in state n takes input m (a message or a timer/environment input).
RefStep(i, n, m0) ==
    LET m == Flawed(m0) IN
        IF n.role = "down" THEN IF m.type = "Restart" THEN Restart(i, n) ELSE Result(n, {})
        ELSE CASE m.type = "Crash" -> Result(ToDown(i, n), {})
               [] m.type = "Restart" -> Result(n, {})
               [] m.type = "VoteRequest" -> TimerKept(i, n, OnVoteRequest(i, n, m))
               [] m.type = "BeginQuorumEpochRequest" -> OnBeginQuorumEpoch(i, n, m)
               [] m.type = "EndQuorumEpochRequest" -> TimerKept(i, n, OnEndQuorumEpoch(i, n, m))
               [] m.type = "FetchRequest" -> OnFetchRequest(i, n, m)
               [] m.type \in ResponseTypes -> TimerKept(i, n, OnResponse(i, n, m))
               [] m.type = "ElectionTimeout" -> OnElectionTimeout(i, n)
               [] m.type = "BackoffExpired" ->
                      IF n.role = "candidate" /\ n.backing_off THEN StartElection(i, n) ELSE Result(n, {})
               [] m.type = "FetchTimeout" ->
                      IF n.role = "follower" /\ i \in Voters THEN StartElection(i, n) ELSE Result(n, {})
               [] m.type = "CheckQuorumTimeout" -> OnCheckQuorumTimeout(i, n)
               [] m.type = "FetchDue" -> OnFetchDue(i, n, m.to)
               [] m.type = "ResendDue" -> OnResendDue(i, n, m.to)
               [] m.type = "ClientAppend" -> OnClientAppend(i, n)

\* The step flaws of the liveness variants (model/raft/liveness_variants.py, by name): each
\* wraps the reference step as the Python variant wraps node.step.
Step(i, n, m) ==
    CASE LiveFlaw = "none" -> RefStep(i, n, m)
      [] LiveFlaw = "candidate-never-retries" /\ n.role = "candidate" /\ m.type = "BackoffExpired"
             -> Result(n, {})
      [] LiveFlaw \in {"prospective-ignores-timeout", "prospective-never-gives-up"} /\ n.role = "prospective"
             /\ m.type = "ElectionTimeout" -> Result(n, {})
      [] LiveFlaw = "prospective-never-gives-up" /\ n.role = "prospective" /\ m.type = "VoteResponse"
             /\ m.pre_vote /\ ~m.granted -> Result([n EXCEPT !.rejected = {}], {})
      [] LiveFlaw = "restores-into-prospective" /\ n.role = "prospective"
             /\ (m.type = "ElectionTimeout"
                 \/ (m.type = "VoteResponse" /\ ~(m.leader # Nil /\ m.epoch = n.epoch)))
             /\ LET r == RefStep(i, n, m) IN r.node.role \notin {"prospective", "candidate"} /\ r.node.epoch = n.epoch
             -> Result([n EXCEPT !.granted = {i}, !.rejected = {}], {})
      [] LiveFlaw = "rejects-pre-votes" /\ m.type = "VoteRequest" /\ m.pre_vote
             -> LET r == RefStep(i, n, m)
                IN Result(r.node, {IF x.type = "VoteResponse" THEN [x EXCEPT !.granted = FALSE] ELSE x : x \in r.out})
      [] OTHER -> RefStep(i, n, m)

\* node.enabled_inputs: the timer and client inputs that may change replica i now.
EnabledInputs(i, n) ==
    LET byRole ==
    CASE n.role = "down" -> {}
      [] n.role = "unattached" /\ i \notin Voters -> {FetchDue(v) : v \in Voters}
      [] n.role \in {"unattached", "voted", "resigned", "prospective"} -> {Input("ElectionTimeout")}
      [] n.role = "candidate" -> IF n.backing_off THEN {Input("BackoffExpired")} ELSE {Input("ElectionTimeout")}
      [] n.role = "follower" -> {FetchDue(n.leader)} \cup (IF i \in Voters THEN {Input("FetchTimeout")} ELSE {})
      [] n.role = "leader" -> (IF n.renewed \/ ~IsQuorum(n.fetched \cup {i}) THEN {Input("CheckQuorumTimeout")} ELSE {})
                              \cup {Input("ClientAppend")}
    IN byRole \cup {ResendDue(v) : v \in Unanswered(i, n)}

-----------------------------------------------------------------------------
(* The system around a step (model/raft/system.py, RaftModel._apply).      *)
(* A system state here is a record of the variables a step changes.        *)

Sys == [nodes |-> nodes, network |-> network, elected |-> elected, votes |-> votes, committed |-> committed]

Remove(b, m) == b (-) SetToBag({m})
Keep(b, P(_)) == [m \in {x \in DOMAIN b : P(x)} |-> b[m]]

\* RAFT-RULE-RESEND (system.acknowledges): m would add its sender to what replica d records as
\* answered (d leads, or resigned, in m's epoch, and has no acknowledgement from the sender).
Acknowledges(m, d) ==
    /\ m.epoch = d.epoch /\ m.src \in Voters /\ m.src \notin d.acknowledged
    /\ \/ m.type = "BeginQuorumEpochResponse" /\ d.role = "leader"
       \/ m.type = "EndQuorumEpochResponse" /\ d.role = "resigned"

\* RAFT-MODEL-INERT-RESPONSES: a BeginQuorumEpoch/EndQuorumEpoch response naming no newer epoch;
\* with resends, one that still acknowledges is kept.
Inert(m, S) ==
    /\ m.type \in {"BeginQuorumEpochResponse", "EndQuorumEpochResponse"} /\ m.error = "NONE"
    /\ m.epoch <= S.nodes[m.dst].epoch
    /\ ~(Resending(S.nodes[m.dst]) /\ Acknowledges(m, S.nodes[m.dst]))

\* RAFT-MODEL-IGNORED-RESPONSES (system._forget_ignored): Kafka acts on a response only to the
\* latest request a replica sent that peer, once, and only until the replica changes state.
\* Orphan(b, P) marks the requests in flight with P as orphaned (the recipient still handles
\* them; no answer is sent); Discard drops responses.  A crash also loses what is in flight to
\* the replica; a role or epoch change concerns every peer; otherwise the peers sent a new
\* request, and the peer whose response m is taken.
Orphan(b, P(_)) ==
    LET moved == {m \in DOMAIN b : m.type \in RequestTypes /\ ~m.orphaned /\ P(m)}
        Mark(m) == [m EXCEPT !.orphaned = TRUE]
        marked == [x \in {Mark(m) : m \in moved} |-> b[CHOOSE m \in moved : Mark(m) = x]]
    IN Keep(b, LAMBDA m : m \notin moved) (+) marked

ForgetIgnored(b, i, m, before, after, sent) ==
    IF after.role = "down" THEN Orphan(Keep(b, LAMBDA x : x.dst # i), LAMBDA x : x.src = i)
    ELSE IF before.role # after.role \/ before.epoch # after.epoch
    THEN Orphan(Keep(b, LAMBDA x : ~(x.dst = i /\ x.type \in ResponseTypes)), LAMBDA x : x.src = i)
    ELSE LET peers == {x.dst : x \in {y \in sent : y.type \in RequestTypes}}
                      \cup (IF m.type \in ResponseTypes THEN {m.src} ELSE {})
         IN Orphan(Keep(b, LAMBDA x : ~(x.dst = i /\ x.src \in peers /\ x.type \in ResponseTypes)),
                   LAMBDA x : x.src = i /\ x.dst \in peers)

\* What a step puts in flight: not an inert response, nor the answer to an orphaned request.
Sent(S, m, out) ==
    {x \in out : ~Inert(x, S)
                 /\ ~(m.type \in RequestTypes /\ m.orphaned /\ x.type \in ResponseTypes /\ x.dst = m.src)}

\* RAFT-MODEL-GHOST, RAFT-MODEL-GHOST-PRUNING (system.record_history): the ghost history after
\* replica i moved from before to after (S.nodes already holds after); history that can no
\* longer conflict is forgotten.
RecordHistory(S, i, before, after) ==
    LET el == IF after.role = "leader" /\ before.role # "leader" THEN S.elected \cup {<<after.epoch, i>>}
              ELSE S.elected
        vote == ElectionOf(i, after).voted_for
        vs == IF vote # Nil THEN S.votes \cup {<<i, after.epoch, vote>>} ELSE S.votes
        hwA == IF after.high_watermark = Nil THEN 0 ELSE after.high_watermark
        hwB == IF before.high_watermark = Nil THEN 0 ELSE before.high_watermark
        known(o) == \E c \in S.committed : c[1] = o /\ c[2] = after.log[o + 1]
        cm == IF hwA > hwB
              THEN S.committed \cup {<<o, after.log[o + 1], after.epoch>> : o \in {x \in 0 .. hwA - 1 : ~known(x)}}
              ELSE S.committed
        low == CHOOSE e \in {S.nodes[j].epoch : j \in Replica} : \A j \in Replica : e <= S.nodes[j].epoch
    IN [S EXCEPT !.elected = {x \in el : x[1] >= low},
                 !.votes = {v \in vs : v[2] >= S.nodes[v[1]].epoch},
                 !.committed = cm]

\* RaftModel._apply: replica i takes input m in system state S.
Apply(S, i, m) ==
    LET before == S.nodes[i]
        r == Step(i, before, m)
        sent == Sent(S, m, r.out)
        kept == ForgetIgnored(S.network, i, m, before, r.node, sent)
        S2 == [S EXCEPT !.nodes[i] = r.node, !.network = kept (+) SetToBag(sent)]
    IN RecordHistory(S2, i, before, r.node)

\* An input that neither changes the replica nor makes it send anything is not enabled.
Changes(S, i, m) == LET r == Step(i, S.nodes[i], m) IN r.node # S.nodes[i] \/ r.out # {}

SetSys(S) ==
    /\ nodes' = S.nodes
    /\ network' = S.network
    /\ elected' = S.elected
    /\ votes' = S.votes
    /\ committed' = S.committed

FetchInFlight(i) ==
    \E m \in DOMAIN network : (m.type = "FetchRequest" /\ m.src = i /\ ~m.orphaned)
                              \/ (m.type = "FetchResponse" /\ m.dst = i)

ElectionTimers == {"ElectionTimeout", "FetchTimeout", "BackoffExpired"}

\* RAFT-MODEL-ONE-RESEND (system.exchange_in_flight): replica i has a request out to peer p
\* (one it still expects an answer to) or an answer from p on its way: no resend to p leaves.
ExchangeInFlight(i, p) ==
    \E m \in DOMAIN network : (m.type \in RequestTypes /\ m.src = i /\ m.dst = p /\ ~m.orphaned)
                              \/ (m.type \in ResponseTypes /\ m.src = p /\ m.dst = i)

\* system._forget_answers: the resend budget is spent, so who answered decides nothing any more.
ForgetAnswers(S) == [S EXCEPT !.nodes = [j \in Replica |-> [WithAcknowledged(S.nodes[j], {}) EXCEPT !.resends = FALSE]]]

-----------------------------------------------------------------------------
(* Actions: one per Python action class (Deliver, Drop, Duplicate, Fire,   *)
(* Reboot); RAFT-MODEL-NETWORK.                                            *)

\* RaftModel.init_states: every replica new; a lone voter (replica 1) then elects itself
\* (RAFT-RULE-LONE-VOTER), with its ghost history.
Fresh == [nodes |-> [i \in Replica |-> NewNode], network |-> EmptyBag, elected |-> {}, votes |-> {},
          committed |-> {}]
FirstStart ==
    LET r == Initialize(1, NewNode)
    IN IF r.node = NewNode THEN Fresh
       ELSE RecordHistory([Fresh EXCEPT !.nodes[1] = r.node], 1, NewNode, r.node)

Init ==
    /\ nodes = FirstStart.nodes
    /\ network = EmptyBag
    /\ appends = 0 /\ crashes = 0 /\ duplicates = 0 /\ fetches = 0 /\ elections = 0 /\ resends = 0 /\ resent = {}
    /\ elected = FirstStart.elected /\ votes = FirstStart.votes /\ committed = FirstStart.committed

Deliver(m) ==
    /\ nodes[m.dst].role # "down"
    /\ SetSys(Apply([Sys EXCEPT !.network = Remove(network, m)], m.dst, m))
    /\ UNCHANGED counters

Drop(m) ==
    /\ network' = Remove(network, m)
    /\ UNCHANGED <<nodes, counters, elected, votes, committed>>

Duplicate(m) ==
    /\ duplicates < MaxDuplicates
    /\ network' = network (+) SetToBag({m})
    /\ duplicates' = duplicates + 1
    /\ UNCHANGED <<nodes, appends, crashes, fetches, elections, resends, resent, elected, votes, committed>>

\* RAFT-MODEL-FIRE: a timer or client input (node.enabled_inputs) within its budget; FetchDue
\* also waits for the replica's fetch in flight (RAFT-MODEL-ONE-FETCH), ResendDue for the answer
\* to the last request to that voter (RAFT-MODEL-ONE-RESEND). A resend records the types it
\* sent (ghost resent); the one that spends the budget makes the replicas forget who answered.
FireTimer(i, m) ==
    /\ m \in EnabledInputs(i, nodes[i])
    /\ m.type = "ClientAppend" => appends < MaxAppends
    /\ m.type \in ElectionTimers => elections < MaxElections
    /\ m.type = "FetchDue" => fetches < MaxFetches /\ ~FetchInFlight(i)
    /\ m.type = "ResendDue" => resends < MaxResends /\ ~ExchangeInFlight(i, m.to)
    /\ Changes(Sys, i, m)
    /\ LET S == Apply(Sys, i, m)
       IN IF m.type = "ResendDue"
          THEN /\ SetSys(IF resends + 1 >= MaxResends THEN ForgetAnswers(S) ELSE S)
               /\ resent' = resent \cup {x.type : x \in DOMAIN S.network \ DOMAIN network}
          ELSE SetSys(S) /\ resent' = resent
    /\ appends' = IF m.type = "ClientAppend" THEN appends + 1 ELSE appends
    /\ elections' = IF m.type \in ElectionTimers THEN elections + 1 ELSE elections
    /\ fetches' = IF m.type = "FetchDue" THEN fetches + 1 ELSE fetches
    /\ resends' = IF m.type = "ResendDue" THEN resends + 1 ELSE resends
    /\ UNCHANGED <<crashes, duplicates>>

\* Without RebootAtOnce a crash and the restart are separate inputs.
FireCrash(i) ==
    /\ ~RebootAtOnce /\ nodes[i].role # "down" /\ crashes < MaxCrashes
    /\ SetSys(Apply(Sys, i, Input("Crash")))
    /\ crashes' = crashes + 1
    /\ UNCHANGED <<appends, duplicates, fetches, elections, resends, resent>>

FireRestart(i) ==
    /\ nodes[i].role = "down"
    /\ SetSys(Apply(Sys, i, Input("Restart")))
    /\ UNCHANGED counters

Fire(i) == FireCrash(i) \/ FireRestart(i) \/ \E m \in EnabledInputs(i, nodes[i]) : FireTimer(i, m)

\* RAFT-MODEL-REBOOT: crash and restart in one step; one that loses nothing is no new behaviour.
Reboot(i) ==
    /\ RebootAtOnce /\ nodes[i].role # "down" /\ crashes < MaxCrashes
    /\ LET up == Apply(Apply(Sys, i, Input("Crash")), i, Input("Restart"))
       IN /\ ~(up.nodes = nodes /\ up.network = network)
          /\ SetSys(up)
    /\ crashes' = crashes + 1
    /\ UNCHANGED <<appends, duplicates, fetches, elections, resends, resent>>

Next ==
    \/ \E m \in DOMAIN network : Deliver(m) \/ Drop(m) \/ Duplicate(m)
    \/ \E i \in Replica : Fire(i) \/ Reboot(i)

Spec == Init /\ [][Next]_vars

\* RAFT-MODEL-CONSTRAINT: RaftModel.within_bounds (the bounds are RAFT-MODEL-BOUNDS).
WithinBounds ==
    /\ \A i \in Replica : nodes[i].epoch <= MaxEpoch
    /\ BagCardinality(network) <= MaxInflight

-----------------------------------------------------------------------------
(* Properties (model/raft/properties.py), under the Python names.          *)

\* RAFT-INV-ELECTION-SAFETY
ElectionSafety == \A a, b \in elected : a[1] = b[1] => a[2] = b[2]

\* RAFT-INV-VOTE-ONCE
VoteOnce == \A a, b \in votes : a[1] = b[1] /\ a[2] = b[2] => a[3] = b[3]

HasHW(n) == n.high_watermark # Nil /\ n.high_watermark > 0

\* RAFT-INV-COMMITTED-UNIQUE
CommittedLogsAgree ==
    /\ \A a, b \in committed : a[1] = b[1] => a[2] = b[2]
    /\ \A i, j \in {x \in Replica : HasHW(nodes[x])} :
           LET k == Min(nodes[i].high_watermark, nodes[j].high_watermark)
           IN Prefix(nodes[i].log, k) = Prefix(nodes[j].log, k)

\* RAFT-INV-LEADER-COMPLETENESS
LeaderCompleteness ==
    \A i \in Replica : nodes[i].role = "leader" =>
        \A c \in committed : c[3] < nodes[i].epoch =>
            c[1] < Len(nodes[i].log) /\ nodes[i].log[c[1] + 1] = c[2]

\* RAFT-INV-HW-MAJORITY
HighWatermarkDurable ==
    \A i \in {x \in Replica : HasHW(nodes[x])} :
        LET hw == nodes[i].high_watermark
            prefix == Prefix(nodes[i].log, hw)
        IN Len(prefix) >= hw /\ Cardinality({v \in Voters : Prefix(nodes[v].log, hw) = prefix}) >= Majority

\* RAFT-STEP-HW-MONOTONIC (a crash or restart sets the high watermark to Nil, so it needs no exception)
HighWatermarkMonotonic ==
    [][\A i \in Replica : nodes[i].high_watermark # Nil /\ nodes'[i].high_watermark # Nil
                          => nodes'[i].high_watermark >= nodes[i].high_watermark]_vars

\* RAFT-STEP-EPOCH-MONOTONIC
EpochMonotonic == [][\A i \in Replica : nodes'[i].epoch >= nodes[i].epoch]_vars

\* The request a replica's role sends again (properties._resend_kind).
ResendKind(n, m) ==
    CASE n.role = "leader" -> m.type = "BeginQuorumEpochRequest"
      [] n.role = "resigned" -> m.type = "EndQuorumEpochRequest"
      [] n.role = "candidate" -> m.type = "VoteRequest" /\ ~m.pre_vote
      [] n.role = "prospective" -> m.type = "VoteRequest" /\ m.pre_vote
      [] OTHER -> FALSE

\* What a ResendDue step (the one that counts a resend) puts in flight goes to one voter that
\* had not answered, as the sender's role's request in its epoch.
\* RAFT-STEP-RESEND
ResendOnlyUnanswered ==
    [][resends' = resends + 1 =>
         LET grown == {x \in DOMAIN network' : x \notin DOMAIN network \/ network'[x] > network[x]}
         IN grown = {} \/ \E i \in Replica : \E to \in Unanswered(i, nodes[i]) :
                             \A x \in grown : x.src = i /\ x.dst = to /\ x.epoch = nodes[i].epoch
                                             /\ ResendKind(nodes[i], x)]_vars

\* A leader's check-quorum record (properties._check_quorum_set_counted): voters other than
\* itself, never a majority with it (cleared, the timer reset, the moment a majority fetched).
CheckQuorumSetCounted(i, n) ==
    n.role = "leader" /\ n.fetched # {} => n.fetched \subseteq Voters \ {i} /\ ~IsQuorum(n.fetched \cup {i})

\* A running leader resigns only when the voters that fetched since its check-quorum timer was
\* last reset, itself counted once and observers not at all, are fewer than a majority, and
\* no majority fetched in its current period (RAFT-RULE-CHECK-QUORUM-PERIOD). (A
\* TLA+ step names no input: here only CheckQuorumTimeout moves a running leader to resigned;
\* a crash, the one other way a leader stops, counts one in crashes.)
\* RAFT-STEP-CHECK-QUORUM
CheckQuorumCounted ==
    [][\A i \in Replica :
         /\ CheckQuorumSetCounted(i, nodes'[i])
         /\ (nodes[i].role = "leader" /\ nodes'[i].role \in {"resigned", "down"} /\ crashes' = crashes)
            => ~IsQuorum((nodes[i].fetched \cap Voters) \cup ({i} \cap Voters)) /\ ~nodes[i].renewed]_vars

-----------------------------------------------------------------------------
(* Witnesses (sometimes): TLC shows one is reached by violating Not<Name>.  *)

\* RAFT-WIT-LEADER-ELECTED
LeaderElected == \E i \in Replica : nodes[i].role = "leader"

\* RAFT-WIT-SECOND-EPOCH-LEADER
SecondEpochLeader == \E i \in Replica : nodes[i].role = "leader" /\ nodes[i].epoch >= 2

\* RAFT-WIT-VOTE-GRANTED
VoteGranted == \E v \in votes : v[1] # v[3]

\* RAFT-WIT-RECORD-COMMITTED
RecordCommitted == \E c \in committed : c[2].kind = "data"

\* RAFT-WIT-LEADER-AFTER-COMMIT
LeaderAfterCommit == \E i \in Replica : nodes[i].role = "leader" /\ \E c \in committed : c[3] < nodes[i].epoch

\* RAFT-WIT-BEGIN-EPOCH-RESENT (needs max_resends >= 1)
BeginQuorumEpochResent == "BeginQuorumEpochRequest" \in resent

NotLeaderElected == ~LeaderElected
NotSecondEpochLeader == ~SecondEpochLeader
NotVoteGranted == ~VoteGranted
NotRecordCommitted == ~RecordCommitted
NotLeaderAfterCommit == ~LeaderAfterCommit
NotBeginQuorumEpochResent == ~BeginQuorumEpochResent

=============================================================================
