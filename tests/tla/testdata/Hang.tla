---- MODULE Hang ----
\* Computing the initial states takes practically forever (2^40 of them): TLC's own
\* stopAfter timer does not interrupt it, so the runner has to kill TLC.
EXTENDS Naturals
VARIABLES x
Init == x \in SUBSET (1..40)
Next == UNCHANGED x
====
