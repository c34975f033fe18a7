---- MODULE OutOfDomain ----
EXTENDS Naturals, Sequences
VARIABLES x
Init == x = 0
Next == x' = IF x = 2 THEN <<1>>[x] ELSE x + 1
====
