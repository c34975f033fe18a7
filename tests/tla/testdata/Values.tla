---- MODULE Values ----
\* One state holding every form of value TLC prints, including the empty and nested forms
\* and values long enough that TLC wraps them over several lines.
EXTENDS Integers, Sequences, TLC
CONSTANTS m1, m2
VARIABLES int, neg, str, bool, mv, seq, emptyseq, emptyfun, set, emptyset, nestedset,
          interval, rec, fun, strfun, tuplefun, seqfun, long, wide
Init == /\ int = 42
        /\ neg = -7
        /\ str = "q\"uo\\te\nx y"
        /\ bool = FALSE
        /\ mv = m1
        /\ seq = <<1, "x", TRUE, m2>>
        /\ emptyseq = <<>>
        /\ emptyfun = [p \in {} |-> 1]
        /\ set = {3, 1, 2}
        /\ emptyset = {}
        /\ nestedset = {{}, {{}}, {{{}}}}
        /\ interval = 1..3
        /\ rec = [r |-> [s |-> <<>>], t |-> {}, u |-> -1]
        /\ fun = [p \in {m1, m2} |-> IF p = m1 THEN 1 ELSE -2]
        /\ strfun = [q \in {"x", "y"} |-> q = "x"]
        /\ tuplefun = [p \in {<<1, 2>>, <<2, 1>>} |-> {m1}]
        /\ seqfun = [p \in 1..2 |-> [x \in {m1} |-> p]]
        /\ long = [p \in 1..6 |-> [q |-> p, longfieldname |-> "abcdefghij", other |-> {p, p + 1}]]
        /\ wide = [p \in {"n1", "n2"} |-> [x \in 1..3 |-> <<x, "zzzzzzzzzzzzzzzzzzzzz">>]]
Next == UNCHANGED <<int, neg, str, bool, mv, seq, emptyseq, emptyfun, set, emptyset, nestedset,
                    interval, rec, fun, strfun, tuplefun, seqfun, long, wide>>
====
