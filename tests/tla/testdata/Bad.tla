---- MODULE Bad ----
EXTENDS Naturals
VARIABLES x
Init == x = 0 /\
Next == x' = 
====
