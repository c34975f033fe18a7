------------------------------ MODULE KRaftLive ------------------------------
(***************************************************************************)
(* KRaft liveness (spec/raft.md, Liveness): what every fair behaviour does *)
(* once faults stop.  The Python twin is kspec.model.raft.liveness's       *)
(* RaftSuffix with renumber=False (absolute epochs), checked by            *)
(* kspec.model.core.liveness.check_liveness; kspec.tla.liveness compares   *)
(* the two verdicts property by property (same names).                     *)
(*                                                                         *)
(* A behaviour has two phases.  The fault phase is KRaft's Next (drops,    *)
(* duplicates, crashes within their budgets) into states within the       *)
(* bounds (the explorer keeps no other fault-phase state).  StopFaults may *)
(* happen in any of them (and must: it is weakly fair); it clears the      *)
(* counters and the ghost history (the suffix keys states without them).  *)
(* The suffix has no faults and no client appends; timers and fetches are *)
(* unbounded, and it runs under the timing assumptions:                    *)
(*   RAFT-LIVE-ASSUME-TIMELY: a timer expires only when nothing is in      *)
(*     flight (it keeps running meanwhile: fairness counts it enabled);    *)
(*   RAFT-LIVE-ASSUME-DETECTOR: a fetch timeout only when the follower's   *)
(*     leader no longer leads its epoch, a check-quorum timeout only when  *)
(*     a majority no longer follows; RAFT-LIVE-ASSUME-FETCH-FIRST;         *)
(*   weak fairness on every delivery and every timer.                      *)
(* Suffix states are kept with their epochs renumbered from the lowest    *)
(* (Renumbered), so a livelock closes a cycle; a suffix step to a highest  *)
(* epoch past MaxEpoch + ExtraEpochs (after renumbering) is an escape: a   *)
(* state where every property holds and nothing more happens (a behaviour  *)
(* that needs more elections is not judged; one that could escape forever *)
(* and never does is unfair), as the explorer treats it.                   *)
(*                                                                         *)
(* TimerOrder is LiveRaftModel.timers: "solo" (randomised timeouts: one    *)
(* timer expires at a time) or, for the variants, "lockstep" /            *)
(* "lockstep-backoff" (the election timers, or only the backoff timers,   *)
(* of several replicas may also expire in the same instant: Together).    *)
(* LiveFlaw (KRaft.tla) is a liveness variant's step flaw.                 *)
(***************************************************************************)
EXTENDS KRaft

CONSTANTS
    ExtraEpochs,   \* EXTRA_EPOCHS: elections the suffix allows past MaxEpoch
    TimerOrder     \* "solo", "lockstep" or "lockstep-backoff"

VARIABLES
    live,          \* FALSE in the fault phase, TRUE once faults stopped
    taken          \* history: <<i, t>> when the last step was replica i's timer t, else Nil

lvars == <<vars, live, taken>>

MaxLiveEpoch == MaxEpoch + ExtraEpochs
Escaped == \E i \in Replica : nodes[i].epoch > MaxLiveEpoch

LInit == Init /\ live = FALSE /\ taken = Nil

\* The fault phase (check_liveness's first step).
FaultStep == ~live /\ Next /\ WithinBounds' /\ UNCHANGED <<live, taken>>

-----------------------------------------------------------------------------
(* Epoch renumbering (liveness.py shift_amount, shift_epochs): a suffix    *)
(* state is kept with every epoch lowered as far as replica and message    *)
(* epochs stay >= 0 and non-zero log epochs >= 1 (0, "no epoch", stays):  *)
(* the protocol only compares epochs, so the same behaviours follow, and   *)
(* an election livelock, whose epochs grow forever, closes a cycle.        *)

SetMin(S) == CHOOSE x \in S : \A y \in S : x <= y

NodeEpochs(n) == {n.epoch} \cup (IF n.role = "prospective" THEN {n.prior.epoch} ELSE {})
LogEpochs(l) == {l[k].epoch : k \in DOMAIN l}
MsgLogEpochs(m) ==
    CASE m.type = "VoteRequest" -> {m.last_epoch}
      [] m.type = "FetchRequest" -> {m.last_fetched_epoch}
      [] m.type = "FetchResponse" -> LogEpochs(m.entries) \cup (IF m.diverging = Nil THEN {} ELSE {m.diverging[1]})
      [] OTHER -> {}

ShiftAmount(ns, net) ==
    LET lo == SetMin({ns[i].epoch : i \in Replica}
                     \cup {ns[i].log[1].epoch - 1 : i \in {j \in Replica : ns[j].log # <<>>}})
        e0 == SetMin({lo} \cup UNION {NodeEpochs(ns[i]) : i \in Replica} \cup {m.epoch : m \in DOMAIN net})
        e1 == SetMin({lo + 1} \cup {x \in UNION {LogEpochs(ns[i].log) : i \in Replica}
                                           \cup UNION {MsgLogEpochs(m) : m \in DOMAIN net} : x # 0})
        \* A vote's last epoch stays below its epoch: an empty log's 0 is not lowered.
        vr == {m.epoch - 1 : m \in {x \in DOMAIN net : x.type = "VoteRequest" /\ ~x.pre_vote /\ x.last_epoch = 0}}
        by == SetMin({e0, e1 - 1} \cup vr)
    IN IF lo <= 0 \/ by < 0 THEN 0 ELSE by

LowerLog(e, by) == IF e = 0 THEN 0 ELSE e - by
ShiftLog(l, by) == [k \in DOMAIN l |-> [l[k] EXCEPT !.epoch = LowerLog(@, by)]]
ShiftNode(n, by) ==
    [n EXCEPT !.epoch = @ - by, !.log = ShiftLog(@, by),
              !.prior = IF n.role = "prospective" THEN [@ EXCEPT !.epoch = @ - by] ELSE @]
ShiftMsg(m, by) ==
    LET a == [m EXCEPT !.epoch = @ - by]
    IN CASE m.type = "VoteRequest" -> [a EXCEPT !.last_epoch = LowerLog(@, by)]
         [] m.type = "FetchRequest" -> [a EXCEPT !.last_fetched_epoch = LowerLog(@, by)]
         [] m.type = "FetchResponse" ->
                [a EXCEPT !.entries = ShiftLog(@, by),
                          !.diverging = IF @ = Nil THEN Nil ELSE <<LowerLog(@[1], by), @[2]>>]
         [] OTHER -> a

\* S (a record with nodes and network) with its epochs renumbered.
Renumbered(S) ==
    LET by == ShiftAmount(S.nodes, S.network)
    IN IF by = 0 THEN S
       ELSE [S EXCEPT !.nodes = [i \in Replica |-> ShiftNode(S.nodes[i], by)],
                      !.network = [x \in {ShiftMsg(m, by) : m \in DOMAIN S.network} |->
                                      S.network[CHOOSE m \in DOMAIN S.network : ShiftMsg(m, by) = x]]]

\* Faults stop: the counters and the ghost history are cleared (the suffix keys states
\* without them), the epochs renumbered.
StopFaults ==
    /\ ~live
    /\ live' = TRUE
    /\ LET T == Renumbered(Sys) IN nodes' = T.nodes /\ network' = T.network
    /\ appends' = 0 /\ crashes' = 0 /\ duplicates' = 0 /\ fetches' = 0 /\ elections' = 0
    /\ elected' = {} /\ votes' = {} /\ committed' = {}
    \* (RaftSuffix.canonical keeps the resend count and its ghost: they decide what is inert)
    /\ UNCHANGED <<taken, resends, resent>>

-----------------------------------------------------------------------------
(* The suffix (RaftSuffix).                                                *)

InSuffix == live /\ ~Escaped

\* A suffix step changes the replicas and the network only (the ghost history is not kept;
\* epochs renumbered); label is what `taken` records.
LSet(S, label) ==
    /\ LET T == Renumbered(S) IN nodes' = T.nodes /\ network' = T.network
    /\ taken' = label
    /\ UNCHANGED <<appends, crashes, duplicates, fetches, elections, resends, resent, elected, votes, committed,
                   live>>

Deliverable == {m \in DOMAIN network : nodes[m.dst].role # "down"}

LDeliver(m) ==
    /\ InSuffix /\ m \in Deliverable
    /\ LSet(Apply([Sys EXCEPT !.network = Remove(network, m)], m.dst, m), Nil)

LRestart(i) ==
    /\ InSuffix /\ nodes[i].role = "down"
    /\ LSet(Apply(Sys, i, Input("Restart")), Nil)

\* RAFT-LIVE-ASSUME-DETECTOR: the follower's leader leads the follower's epoch.
Leads(i) == nodes[i].role = "follower" /\ nodes[nodes[i].leader].role = "leader"
            /\ nodes[nodes[i].leader].epoch = nodes[i].epoch
\* RAFT-LIVE-ASSUME-FETCH-FIRST: the follower's leader is up in a higher epoch.
FetchInforms(i) == nodes[i].role = "follower" /\ nodes[nodes[i].leader].role # "down"
                   /\ nodes[nodes[i].leader].epoch > nodes[i].epoch
\* A majority of voters (the leader included) follow leader i in its epoch.
MajorityFollows(i) ==
    IsQuorum({i} \cup {j \in Replica : nodes[j].role = "follower" /\ nodes[j].leader = i
                                       /\ nodes[j].epoch = nodes[i].epoch})

\* RaftSuffix._timers: replica i's timers that may expire (RAFT-LIVE-ASSUME-TIMELY aside).
Timers(i) ==
    IF nodes[i].role = "down" THEN {}
    ELSE {t \in EnabledInputs(i, nodes[i]) :
              /\ t.type \notin {"ClientAppend", "ResendDue"}  \* a resend is a fault-phase input
              /\ t.type = "FetchDue" => ~FetchInFlight(i)
              /\ t.type = "FetchTimeout" => ~(Leads(i) \/ FetchInforms(i))
              /\ t.type = "CheckQuorumTimeout" => ~MajorityFollows(i)}

\* The timer t of replica i runs and would change something: enabled for weak fairness, even
\* while RAFT-LIVE-ASSUME-TIMELY holds it back (RaftSuffix.deferred).
Running(i, t) == InSuffix /\ t \in Timers(i) /\ Changes(Sys, i, t)

LFire(i, t) ==
    /\ Running(i, t) /\ Deliverable = {}
    /\ LSet(Apply(Sys, i, t), <<i, t>>)

\* Timers without jitter (RaftSuffix._lockstep): they may expire together.
Lockstep(t) ==
    CASE TimerOrder = "lockstep" -> t.type \in ElectionTimers
      [] TimerOrder = "lockstep-backoff" -> t.type = "BackoffExpired"
      [] OTHER -> FALSE

Group == {i \in Replica : \E t \in Timers(i) : Lockstep(t)}
LockTimer(i) == CHOOSE t \in Timers(i) : Lockstep(t)

\* The Together step: the group's timers in replica order, each one a step that changes
\* something (else the whole step is disabled).
RECURSIVE ApplyInOrder(_, _)
ApplyInOrder(r, G) ==
    IF G = {} \/ ~r.ok THEN r
    ELSE LET i == CHOOSE j \in G : \A k \in G : j <= k
         IN IF ~Changes(r.s, i, LockTimer(i)) THEN [ok |-> FALSE, s |-> r.s]
            ELSE ApplyInOrder([ok |-> TRUE, s |-> Apply(r.s, i, LockTimer(i))], G \ {i})

LTogether ==
    /\ InSuffix /\ Deliverable = {} /\ Cardinality(Group) > 1
    /\ LET r == ApplyInOrder([ok |-> TRUE, s |-> Sys], Group)
       IN r.ok /\ LSet(r.s, Nil)

AllTimers == {Input("ElectionTimeout"), Input("FetchTimeout"), Input("BackoffExpired"),
              Input("CheckQuorumTimeout")} \cup {FetchDue(v) : v \in Voters}

LiveStep ==
    \/ \E m \in DOMAIN network : LDeliver(m)
    \/ \E i \in Replica : LRestart(i)
    \/ \E i \in Replica : \E t \in Timers(i) : LFire(i, t)
    \/ LTogether

LNext == FaultStep \/ StopFaults \/ LiveStep

\* Weak fairness: faults stop; every delivery, restart and running timer is eventually taken.
\* Written with state predicates (TLC evaluates an action in a fairness condition on every
\* transition, for every replica and timer: 80 times slower): a suffix that only delivers
\* cannot go on forever (a delivery consumes a message; only a timer, or an election a timer
\* started, sends requests), so weak fairness on each delivery is "infinitely often nothing is
\* deliverable"; a timer's step is the one after which `taken` names it.
Fairness ==
    /\ WF_lvars(StopFaults)
    /\ []<>(~InSuffix \/ Deliverable = {})
    /\ \A i \in Replica : []<>(~InSuffix \/ nodes[i].role # "down")
    /\ \A i \in Replica : \A t \in AllTimers : <>[]Running(i, t) => []<>(taken = <<i, t>>)

LiveSpec == LInit /\ [][LNext]_lvars /\ Fairness

-----------------------------------------------------------------------------
(* The properties (model/raft/liveness.py RAFT_LIVENESS), under its names. *)

Top == CHOOSE e \in {nodes[i].epoch : i \in Replica} : \A i \in Replica : nodes[i].epoch <= e

\* A leader leads the highest epoch and every other voter follows it in that epoch.
StableLeader ==
    \E l \in Replica :
        /\ nodes[l].role = "leader" /\ nodes[l].epoch = Top
        /\ \A v \in Voters \ {l} : nodes[v].role = "follower" /\ nodes[v].leader = l /\ nodes[v].epoch = Top

\* Some replica starts an election (becomes prospective or a candidate, or a candidate of a new epoch).
StartsElection ==
    live /\ \E i \in Replica : nodes'[i].role \in {"prospective", "candidate"}
                              /\ (nodes[i].role # nodes'[i].role \/ nodes[i].epoch # nodes'[i].epoch)

\* RAFT-LIVE-STABLE-LEADER
EventuallyStableLeader == <>[](StableLeader \/ Escaped)

\* RAFT-LIVE-NO-LIVELOCK
NoElectionLivelock == <>[][~StartsElection]_lvars

\* RAFT-LIVE-NOT-STUCK-CANDIDATE
NotStuckCandidate == \A i \in Replica : (live /\ nodes[i].role = "candidate") ~> (nodes[i].role # "candidate" \/ Escaped)

\* RAFT-LIVE-NOT-STUCK-PROSPECTIVE
NotStuckProspective ==
    \A i \in Replica : (live /\ nodes[i].role = "prospective") ~> (nodes[i].role # "prospective" \/ Escaped)

=============================================================================
