---- MODULE Lasso ----
\* x cycles 0 -> 1 -> 2 -> 0; Reaches5 never holds, so TLC answers with a lasso that goes
\* "Back to state 1". Halts (without fairness) fails by stuttering in the first state.
EXTENDS Naturals
VARIABLES x, y
vars == <<x, y>>
Init == x = 0 /\ y = "a"
Next == x' = (x + 1) % 3 /\ y' = y
Fair == Init /\ [][Next]_vars /\ WF_vars(Next)
Unfair == Init /\ [][Next]_vars
Reaches5 == <>(x = 5)
Moves == <>(x = 1)
====
