---- MODULE Tokens ----
\* A small spec that touches every kind of value TLC prints: integers (negative too),
\* strings, booleans, model values, sequences, sets, records and functions. The Python
\* twin in tests/tla/tla_toy_model.py must reach exactly the same states.
EXTENDS Integers, Sequences, FiniteSets
CONSTANTS Procs, MaxCount, MaxLog
VARIABLES count, done, log, flags
vars == <<count, done, log, flags>>

Init == /\ count = [p \in Procs |-> 0]
        /\ done = {}
        /\ log = <<>>
        /\ flags = [seen |-> FALSE, last |-> "none"]

Inc(p) == /\ p \notin done
          /\ count' = [count EXCEPT ![p] = @ + 1]
          /\ flags' = [flags EXCEPT !.seen = TRUE]
          /\ UNCHANGED <<done, log>>

Finish(p) == /\ p \notin done
             /\ Len(log) < MaxLog
             /\ done' = done \cup {p}
             /\ log' = Append(log, <<p, count[p]>>)
             /\ flags' = [flags EXCEPT !.last = "finish"]
             /\ UNCHANGED count

Reset == /\ done = Procs
         /\ count' = [p \in Procs |-> -1]
         /\ done' = {}
         /\ log' = <<>>
         /\ flags' = [seen |-> FALSE, last |-> "reset"]

Next == \/ \E p \in Procs : Inc(p) \/ Finish(p)
        \/ Reset

Spec == Init /\ [][Next]_vars

Bounded == \A p \in Procs : count[p] <= MaxCount

TypeOK == /\ done \subseteq Procs
          /\ Len(log) <= MaxLog
          /\ flags.last \in {"none", "finish", "reset"}

\* Deliberately violated: every process can finish.
NotAllDone == done # Procs

\* Deliberately violated by the counter running past MaxCount (checked on the state TLC drops
\* for being outside the CONSTRAINT).
CountsSmall == \A p \in Procs : count[p] < MaxCount
====
