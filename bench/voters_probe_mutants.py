"""The voters mutants that only one of a guided path's probes catches (conformance/drivers/voters.py:
VotersDriver.probes; conformance/targets/mutants_probes.py and mutants.py), at the default budget
over seeds, and each again with its probe switched off (bench/_probes.py): a mutant the rest of
the suite also catches is no evidence for the probe (issue #18: "a mutant only it catches").

    nice -n 10 python bench/voters_probe_mutants.py [--seeds N] [--off-seeds M] [--only NAME ...]

Prints a Markdown row per (probe, mutant, seed): the catching run with the probe on and with it
off (g N: guided run N; r N: random run N; "conforms (N runs)": escaped the default budget);
exits 1 when a mutant escapes some seed with its probe on or is caught at some seed with it off.
"""

from __future__ import annotations

from _probes import bench

# (probe, the mutant written for it)
PROBE_MUTANTS: list[tuple[str, str]] = [
    ("VOTERS-DRIVE-LEADERLESS-ANSWER-PROBE", "voters-lapse-ends-on-leaderless-answer"),
    ("VOTERS-DRIVE-JOIN-PROBE", "voters-auto-join-skips-catch-up"),
    ("VOTERS-DRIVE-UNREACHABLE-RESTART", "voters-unreachable-prospective-drops-leader"),
    ("VOTERS-DRIVE-REJOIN-PROBE", "voters-auto-join-by-bootstrap-list"),
    ("VOTERS-DRIVE-ADDED-LEADER-RESTART", "voters-restart-reaches-bootstrap-only"),
    ("VOTERS-DRIVE-UPGRADE-DIRECTORY", "voters-upgrade-update-by-key"),
    # session 16: both conformed over 300 runs at seed 0 before the probe (seed 1 not measured off)
    ("VOTERS-DRIVE-OUTSIDER-VOTE-RESTART", "voters-restart-drops-outsider-vote"),
    ("VOTERS-DRIVE-OUTSIDER-VOTE-RESTART", "voters-voted-observer-stops-fetching"),
    # session 17 (blind round voters_scratch9); off, it conforms at seeds 0 and 1 (session 18)
    ("VOTERS-DRIVE-RELEAD-UPGRADE", "voters-upgrade-reports-outlive-epoch"),
    # session 18 (red team voters_scratch10: both escaped seeds 0 and 1 before the probe)
    ("VOTERS-DRIVE-CROSSED-KEY-PROBE", "voters-remove-by-directory"),
    ("VOTERS-DRIVE-UPGRADE-WITHDRAWN", "voters-upgrade-support-latched"),
    # session 19 (red team voters_scratch11's election-over-committed-set escaped seed 1 before the probe)
    ("VOTERS-DRIVE-UNCOMMITTED-SET-ELECTION", "voters-election-counts-committed-set"),
    # session 19 (red team voters_scratch10's first-leader-writes-bootstrap-once: escaped seeds 0 and 1)
    ("VOTERS-DRIVE-FIRST-LEADER-AGAIN", "voters-bootstrap-written-once"),
    # session 20 (RAFT-RULE-VOTE-ERROR: the replaced disk's INVALID_VOTER_KEY answer now reaches W)
    ("VOTERS-DRIVE-DISK-REPLACED-VOTE", "voters-error-answer-counts-as-refusal"),
    # session 23 (red team voters_scratch14's unkeyed-fetch-counted-for-replaced-voter escaped seeds 0 and 1)
    ("VOTERS-DRIVE-STALE-DISK-FETCH", "voters-unkeyed-fetch-counted"),
    # session 25 (red team voters_scratch15's pending-change-kept-across-leaderships escaped seeds 0
    # and 1 before the probe; off, the mutant conforms at seeds 0 and 1: 352 and 339 runs)
    ("VOTERS-DRIVE-TRUNCATED-CHANGE", "voters-pending-change-awaits-truncated-record"),
    # session 27 (red team voters_scratch16: both escaped seeds 0 and 1 before the probes)
    ("VOTERS-DRIVE-OWN-REPORT", "voters-upgrade-own-report-not-found"),
    ("VOTERS-DRIVE-REJOIN-FETCH", "voters-auto-join-by-committed-set"),
    # session 28 (red team voters_scratch16's lapse-ends-on-stale-answer escaped seeds 0 and 1; its
    # history-skips-repeated-set was caught by random run 84 only)
    ("VOTERS-DRIVE-STALE-LAPSE-ANSWER", "voters-lapse-ends-on-stale-answer"),
    ("VOTERS-DRIVE-FREE-REPEATED-SET", "voters-log-history-skips-snapshot-set-again"),
    # session 29 (red team voters_scratch17's upgrade-judged-by-committed-version escaped seeds 0 and 1)
    ("VOTERS-DRIVE-UPGRADE-AGAIN", "voters-upgrade-written-twice"),
    ("VOTERS-DRIVE-REMOVED-LEADER-APPEND", "voters-removed-leader-resigns-on-committed-record"),
]
# caught by the probe first, not its alone (docs/performance.md, "Probe mutants, session 15")
NOT_ALONE: list[tuple[str, str]] = [
    ("VOTERS-DRIVE-LAPSE-PROBE", "voters-observer-stuck-on-bootstrap"),
    ("VOTERS-DRIVE-DESCRIBE", "voters-added-voter-state-fresh"),
    ("VOTERS-DRIVE-DESCRIBE", "voters-describe-committed-voters"),
    ("VOTERS-DRIVE-LEADERLESS-ANSWER-PROBE", "voters-lapsed-observer-unattached-on-leaderless"),
    ("VOTERS-DRIVE-UNCOMMITTED-ADD-PROBE", "voters-add-caught-up-to-commit"),
    ("VOTERS-DRIVE-UNCOMMITTED-ADD-PROBE", "voters-add-caught-up-at-last-fetch"),
    ("VOTERS-DRIVE-FREE-PROBE", "voters-log-truncate-keeps-entry-at-end"),
    ("VOTERS-DRIVE-FREE-PROBE", "voters-log-trim-drops-last"),
    ("VOTERS-DRIVE-FREE-PROBE", "voters-log-restart-ignores-snapshot"),
    # session 18: the static-join configuration is the reach, not its path-end probe (g14 either way)
    ("VOTERS-DRIVE-STATIC-JOIN", "voters-auto-join-ignores-version"),
    # session 21: the red-team bug (voters_scratch13) was caught at runs 261 and 339 without the probe
    ("VOTERS-DRIVE-FREE-REBUILD", "voters-log-snapshot-version-with-voters"),
    # session 21: with the probe off g7 becomes r303 (seed 1) and the liveness check after 348 runs (seed 0)
    ("VOTERS-DRIVE-REMOVED-LEADER-TIMER", "voters-removed-leader-rejoin-unpersisted"),
    # session 25: guided run 42 with the probe; off, random runs 261 and 180 (seeds 0 and 1) catch it,
    # as they caught red team voters_scratch15's reconfig-before-epoch-commit-by-log-hw before it
    ("VOTERS-DRIVE-FRESH-LEADER", "voters-change-judged-by-known-commit"),
]

if __name__ == "__main__":
    bench("voters", PROBE_MUTANTS, __doc__ or "", NOT_ALONE)
