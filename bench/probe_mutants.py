"""The raft mutants that only one of a guided path's probes catches (conformance/drivers/raft.py:
RaftDriver.probes, RAFT-DRIVE-PROBE; conformance/targets/mutants_raft.py), at the default budget
over seeds, and each again with its probe switched off: a mutant the rest of the suite also
catches is no evidence for the probe (issue #17: "each new input kind has a mutant in the
catalogue that only it catches").

    nice -n 10 python bench/probe_mutants.py [--seeds N] [--off-seeds M] [--only NAME ...]

A probe is switched off by bench/_probes.py (shared with bench/voters_probe_mutants.py and
bench/share_probe_mutants.py), never in the driver: a probe macro (macros.FirstAnswer, ...) by a
driver whose ``resolve`` does not enable it (macros.Canvass is a random-run macro too, off there
as well), RAFT-DRIVE-TIMER-CHAIN by a ``_timer_chain_probe`` that takes nothing.

Prints a Markdown row per (probe, mutant, seed): the catching run with the probe on and with it
off (g N: guided run N; r N: random run N, after every guided one; "liveness check: KIND": the
lockstep runs conformed and the run's liveness check caught it; "conforms (N runs)": escaped).
Exits 1 when a mutant escapes some seed with its probe on, or is caught at some seed with it off
(but for NOT_ALONE's, measured as caught without their probe too: docs/performance.md).
"""

from __future__ import annotations

from _probes import TIMER_CHAIN, bench

# (probe, the mutant written for it; the catalogue's note names it too)
PROBE_MUTANTS: list[tuple[str, str]] = [
    ("FirstAnswer", "raft-candidate-loses-at-half"),
    ("HeldFetch", "raft-stale-answer-marks-fetched"),
    ("Retry", "raft-resigned-never-resends-end-epoch"),
    ("Canvass", "raft-prospective-loss-votes-for-self"),
    # session 17: a start probe (a path of its own); random run 3460 at seed 0 before
    ("RAFT-DRIVE-EXPIRED-STEP-DOWN", "raft-step-down-resets-timer"),
    # sessions 16-17: path-end probes written after red-team escapes (session 18: off, both
    # conform at seeds 0 and 1)
    ("RAFT-DRIVE-HEARTBEAT", "raft-begin-epoch-renews-follower"),
    ("RAFT-DRIVE-RESEND-ACKED", "raft-resend-ignores-fetch-ack"),
    # session 19 (probestart): kip-996 start probes after red team raft_scratch11's escapes
    ("RAFT-DRIVE-PROSPECTIVE-BEGIN-EPOCH", "raft-prospective-follows-known-leader-again"),
    ("RAFT-DRIVE-ERROR-FETCH-PRE-VOTE", "raft-error-fetch-marks-fetched"),
    # session 20 (probestart): after red team raft_scratch14's escape
    ("RAFT-DRIVE-PROSPECTIVE-LEADER-VOTE", "raft-prospective-votes-past-leader"),
    # session 21 (raftreach): after red team raft_scratch13's truncate-min-ignores-epoch
    ("RAFT-DRIVE-DIVERGENT-EPOCHS", "raft-truncate-min-any-epoch"),
    # session 22 (raftpersist): after red team raft_scratch15's end-epoch-answered-before-persist
    ("RAFT-DRIVE-END-EPOCH-AHEAD", "raft-end-epoch-move-written-after-answer"),
    # session 22 (raftreboot): after red team raft_scratch16's restarted-leader-waits-to-resign
    ("RAFT-DRIVE-LEADER-REBOOT", "raft-crash-keeps-acknowledgements"),
    # session 22 (raftfetch): after red team raft_scratch15's snapshot-answer-counts-position
    ("RAFT-DRIVE-SNAPSHOT-TABLE", "raft-snapshot-answer-records-snapshot-end"),
    # session 23 (raftcov): a voter that missed an election meets that epoch's requests
    ("RAFT-DRIVE-MISSED-ELECTION", "raft-follower-keeps-leader-on-end-epoch-ahead"),
    # session 24 (raftfix): after red team raft_scratch17's pre-vote-compares-committed-log
    ("RAFT-DRIVE-PRE-VOTE-UNCOMMITTED", "raft-pre-vote-end-against-high-watermark"),
    # and its stale-begin-epoch-ack-counted, check-quorum-counts-observers
    ("RAFT-DRIVE-HELD-BEGIN-ANSWER", "raft-stale-begin-answer-ends-round"),
    ("RAFT-DRIVE-CHECK-QUORUM-OBSERVER", "raft-observer-fetch-renews-period"),
    # session 26 (raftsplit): after red team raft_scratch17's voted-follows-only-its-candidate
    ("RAFT-DRIVE-SPLIT-VOTE", "raft-voted-ignores-other-leader"),
    # and HeldFetch's mutant, which no guided run caught since session 22 (the macro chained)
    ("RAFT-DRIVE-HELD-FETCH", "raft-stale-answer-marks-fetched"),
    # session 26 (refetch): after red team raft_scratch18's snapshot-fetch-survives-role-change
    ("RAFT-DRIVE-REFETCH", "raft-snapshot-id-kept-across-roles"),
    # session 27 (blindraft): after red team raft_scratch19's snapshot-answer-names-earliest
    ("RAFT-DRIVE-SNAPSHOT-PAIR", "raft-snapshot-id-earliest"),
    # and its snapshot-served-only-latest
    ("RAFT-DRIVE-SNAPSHOT-SUPERSEDING", "raft-snapshot-served-latest-only"),
    # session 27 (raftcq): after red team raft_scratch19's candidate-loss-counts-rejections
    ("RAFT-DRIVE-HALF-REFUSED", "raft-candidate-loss-needs-majority-refusals"),
    # session 28 (raftesc): after red team raft_scratch19's check-quorum-period-clears-fetched
    # and snapshot-answer-higher-epoch-ignored
    ("RAFT-DRIVE-CHECK-QUORUM-CARRY", "raft-renewed-period-restarts-count"),
    ("RAFT-DRIVE-HELD-ACROSS-EPOCH", "raft-snapshot-answer-error-first"),
    # session 29 (blindraft): after red team raft_scratch20's snapshot-id-answer-not-fetched
    ("RAFT-DRIVE-SNAPSHOT-FETCHED", "raft-snapshot-id-answer-not-fetched"),
]
# written for a probe, caught by it first, not its alone (session 14, docs/performance.md)
NOT_ALONE: list[tuple[str, str]] = [
    ("AbandonRound", "raft-prospective-retimes-in-place"),
    (TIMER_CHAIN, "raft-prospective-timeout-leaves-leader"),
    # session 18 (docs/performance.md, "Probe mutants, session 18"): off, the liveness check's
    # output comparison catches the first two (seeds 0 and 1; seed 1 only for the second), and
    # the rule's other half (ResendDue as an idle timer at a backing-off candidate) the third in
    # random run 278 at seed 0
    ("RAFT-DRIVE-DUPLICATE-VOTE", "raft-vote-copies-counted"),
    ("RAFT-DRIVE-RESTARTED-CANDIDATE", "raft-restarted-candidate-tallies-answers-only"),
    ("RAFT-DRIVE-RESEND-BACKOFF", "raft-backing-off-candidate-resends"),
]

if __name__ == "__main__":
    bench("raft", PROBE_MUTANTS, __doc__ or "", NOT_ALONE)
