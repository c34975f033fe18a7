---- MODULE Countdown ----
\* Counts down from Start to 0 and then has no step left: a deadlock unless -deadlock.
EXTENDS Naturals
CONSTANTS Start
VARIABLES x
Init == x = Start
Next == x > 0 /\ x' = x - 1
====
