"""Switching one probe of a lockstep driver off, for the probe-mutant benches
(bench/probe_mutants.py: raft, bench/voters_probe_mutants.py, bench/share_probe_mutants.py,
bench/mm2_probe_mutants.py).

Issue #17/#18: "each new observation and input kind has a mutant in the catalogue that only it
catches". A bench runs each probe's mutant at the default budget (``run_conformance`` as
``kspec conform PROTOCOL --target mutant:NAME --seed S``, liveness check included) with the
probe on, then again with that one probe switched off: a mutant the rest of the suite also
catches is no evidence for the probe.

A probe is switched off here only, never in a driver (the drivers have no switch): the probe's
function is replaced while inside :func:`probe_off`, and the guided graphs are explored again on
each switch (``guide._GRAPHS`` is cached by configuration; some probes' steps are edges in it).

* raft (``RaftDriver.probes``, RAFT-DRIVE-PROBE): a probe macro (``FirstAnswer``,
  ``AbandonRound``, ``LateVote``, ``HeldFetch``, ``Retry``, ``Canvass``) by a ``resolve`` that does
  not enable it (the probe that would take it takes nothing, or the next kind its rotation offers;
  ``Canvass`` is a random-run macro too, off there as well); ``RAFT-DRIVE-TIMER-CHAIN`` by a
  ``_timer_chain_probe`` that takes nothing; a start probe (``RaftDriver.start_probes``,
  ``RAFT-DRIVE-EXPIRED-STEP-DOWN``, ``-RESEND-BACKOFF``, ``-PROSPECTIVE-BEGIN-EPOCH``,
  ``-ERROR-FETCH-PRE-VOTE``, ``-DIVERGENT-EPOCHS``, ``-END-EPOCH-AHEAD``,
  ``-LEADER-REBOOT``, ``-SNAPSHOT-TABLE``) by its script taking nothing (no start path);
  ``RAFT-DRIVE-MISSED-ELECTION`` by ``_missed_election_tail`` adding nothing to the start paths;
  ``-PRE-VOTE-UNCOMMITTED``, ``-HELD-BEGIN-ANSWER``, ``-CHECK-QUORUM-OBSERVER``, ``-SPLIT-VOTE``,
  ``-HELD-FETCH`` (chained after the start paths, ``_chained_probe_tail``) by its script taking
  nothing (the next of them may fit instead); ``-REFETCH`` by ``_refetch_tail`` adding nothing; ``-SNAPSHOT-PAIR`` by
  ``_snapshot_pair_tail`` adding nothing to RAFT-DRIVE-SNAPSHOT's steps, ``-SNAPSHOT-SUPERSEDING`` by
  ``_snapshot_superseding`` taking nothing before its catch-up; ``-HALF-REFUSED`` by
  ``_half_refused_tail`` adding nothing to the start paths; ``-CHECK-QUORUM-CARRY`` by
  ``_check_quorum_carry`` taking nothing before RAFT-DRIVE-CHECK-QUORUM-ACK's core,
  ``-HELD-ACROSS-EPOCH`` by ``_held_across_epoch`` taking nothing (RAFT-DRIVE-SNAPSHOT-TABLE's
  path ends at its DescribeQuorum again).
* voters (``VotersDriver.probes``, ``VotersDriver.start_probes``): each ``VOTERS-DRIVE-*`` script
  a guided path ends with or a start path takes, by its function returning nothing
  (``voters_log.probes`` for the log level's free-log script).
* streams (``StreamsDriver``): STREAMS-DRIVE-SUBTOPOLOGY-IN-FLIGHT by ``_in_flight_enabled``
  returning False (neither offered nor probed); STREAMS-DRIVE-ACTIVE-WITHHELD by a
  ``_resolve_withheld`` that enables no withholding (every withheld assignment off, the in-flight
  one with them).
* mm2 (session 23): MM2-DRIVE-HEARTBEATS-ODD-NAMES by ``odd_heartbeats`` naming no node,
  MM2-DRIVE-DOTTED-SEPARATOR by ``CONFIGS`` without the ``-.`` configuration (the driver's
  per-configuration caches, ``setup`` and ``_CALLS``, cleared on each switch).
* share: each composite step (``CutReload``, ``DeleteThenRead``, ``ReinitPruneReload``,
  ``ReloadWithoutTopic``, ``StaleReadWithoutTopic``, ``ReinitAtCountedStart``,
  ``FencesAcrossDelete``, ``InnerBatchSplit``, ``ReinitBelowStored``, ``StateEpochAcrossDelete``;
  in random runs too: they are candidates) by its ``_*_parts`` returning None (not enabled
  anywhere); the routing probe of a guided path's end
  (SHARE-DRIVE-ROUTING-UNLOADED) by ``ShareDriver.probes`` returning nothing, the count tie
  and the reorder write before it (SHARE-DRIVE-TIE-UPDATE, SHARE-DRIVE-REORDER-SNAPSHOT) by
  ``ShareDriver.tie_probes`` / ``reorder_probes`` returning nothing; one probe
  request of the model's mix (SHARE-DRIVE-NEW-LEADER-WITHOUT-TOPIC: the read of ``g:U:0`` above
  its fence; SHARE-DRIVE-COUNT-FROM-UNKNOWN-START: the count written to ``g:T:1``;
  SHARE-DRIVE-STALE-INITIALIZE-WITHOUT-TOPIC: the initialize of ``g:U:0`` at state epoch 0) by a
  ``ShareSystem.probe_actions`` that leaves it out; ``probe requests`` (every request of
  ``ShareSystem.probe_actions`` and with them every composite) by the driver's bound ``probes``
  off.
"""

from __future__ import annotations

import argparse
import sys
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from kspec.conformance.drivers import guide, macros, voters_log
from kspec.conformance.drivers import mm2 as mm2_driver
from kspec.conformance.drivers import share as share_driver
from kspec.conformance.drivers import streams as streams_driver
from kspec.conformance.drivers.raft import RaftDriver
from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.drivers.share import ShareDriver
from kspec.conformance.drivers.streams import StreamsDriver
from kspec.conformance.drivers.voters import VotersDriver
from kspec.conformance.targets.mutants import CATALOGUE
from kspec.model.share.system import (
    DOOMED,
    MAX_DELIVERY_COUNT,
    MIN_EPOCH,
    OTHER_PARTITION,
    SAME_FIRST_OFFSET,
    Initialize,
    Read,
    ShareSystem,
    Write,
)

TIMER_CHAIN = "RAFT-DRIVE-TIMER-CHAIN"
RAFT_MACROS = ("FirstAnswer", "AbandonRound", "LateVote", "HeldFetch", "Retry", "Canvass")


def _nothing(*_: Any) -> list[Any]:
    return []


def _none(*_: Any) -> None:
    return None


def _probe_requests_without(dropped: Callable[[str, Any], bool]) -> Callable[..., Iterator[tuple[str, Any]]]:
    """``ShareSystem.probe_actions`` without the (category, action) pairs ``dropped`` matches:
    one probe request switched off, the rest of the mix (and the composite steps) kept."""
    every = ShareSystem.probe_actions

    def probe_actions(self: ShareSystem, state: Any) -> Iterator[tuple[str, Any]]:
        return (pair for pair in every(self, state) if not dropped(*pair))

    return probe_actions


# protocol -> probe -> (owner, attribute, replacement)
_SWITCHES: dict[str, dict[str, tuple[Any, str, Any]]] = {
    "raft": {TIMER_CHAIN: (RaftDriver, "_timer_chain_probe", lambda self, state, k: ([], state)),
             "RAFT-DRIVE-EXPIRED-STEP-DOWN": (RaftDriver, "_expired_step_down_probe", _nothing),
             # session 16-17 path-end probes: each takes nothing, the path goes on from its state
             "RAFT-DRIVE-DUPLICATE-VOTE": (RaftDriver, "_duplicate_vote_probe", lambda self, state, k: ([], state)),
             "RAFT-DRIVE-HEARTBEAT": (RaftDriver, "_heartbeat_probe", lambda self, state: ([], state)),
             "RAFT-DRIVE-RESTARTED-CANDIDATE": (RaftDriver, "_restarted_candidate_probe",
                                                lambda self, state, k: ([], state)),
             "RAFT-DRIVE-RESEND-ACKED": (RaftDriver, "_acked_resend_probe", lambda self, state, k: ([], state)),
             # the start probe only: ResendDue stays an idle timer at a backing-off candidate
             "RAFT-DRIVE-RESEND-BACKOFF": (RaftDriver, "_backoff_resend_probe", _nothing),
             # session 19 (probestart): the kip-996 start probes, each by its script taking nothing
             "RAFT-DRIVE-PROSPECTIVE-BEGIN-EPOCH": (RaftDriver, "_prospective_begin_epoch_probe", _nothing),
             "RAFT-DRIVE-ERROR-FETCH-PRE-VOTE": (RaftDriver, "_error_fetch_pre_vote_probe", _nothing),
             "RAFT-DRIVE-PROSPECTIVE-LEADER-VOTE": (RaftDriver, "_prospective_leader_vote_probe", _nothing),
             # session 21 (raftreach): a start probe one epoch past the bound
             "RAFT-DRIVE-DIVERGENT-EPOCHS": (RaftDriver, "_divergent_epochs_probe", _nothing),
             # session 22 (raftpersist): a start probe, an EndQuorumEpoch of an epoch ahead
             "RAFT-DRIVE-END-EPOCH-AHEAD": (RaftDriver, "_end_epoch_ahead_probe", _nothing),
             # session 22 (raftreboot): a leader with other voters rebooted
             "RAFT-DRIVE-LEADER-REBOOT": (RaftDriver, "_leader_reboot_probe", _nothing),
             # session 22 (raftfetch): a snapshot start probe (targets that declare snapshots)
             "RAFT-DRIVE-SNAPSHOT-TABLE": (RaftDriver, "_snapshot_table_probe", _nothing),
             # session 23/24 (raftcov): steps after the start probes' (a voter that missed an election)
             "RAFT-DRIVE-MISSED-ELECTION": (RaftDriver, "_missed_election_tail", _nothing),
             # session 24/25 (raftfix): chained after the start paths (a pre-vote between HW and log end, ...)
             "RAFT-DRIVE-PRE-VOTE-UNCOMMITTED": (RaftDriver, "_pre_vote_uncommitted_probe", _nothing),
             "RAFT-DRIVE-HELD-BEGIN-ANSWER": (RaftDriver, "_held_begin_answer_probe", _nothing),
             "RAFT-DRIVE-CHECK-QUORUM-OBSERVER": (RaftDriver, "_check_quorum_observer_probe", _nothing),
             # session 26 (raftsplit): chained after the start paths too (a split vote, five voters; a
             # held fetch answer, then a pre-vote)
             "RAFT-DRIVE-SPLIT-VOTE": (RaftDriver, "_split_vote_probe", _nothing),
             "RAFT-DRIVE-HELD-FETCH": (RaftDriver, "_held_fetch_probe", _nothing),
             # session 26 (refetch): last on the start paths, the moved voter's next fetch
             "RAFT-DRIVE-REFETCH": (RaftDriver, "_refetch_tail", _nothing),
             # session 27 (blindraft): RAFT-DRIVE-SNAPSHOT's last steps, a leader holding two snapshots
             "RAFT-DRIVE-SNAPSHOT-PAIR": (RaftDriver, "_snapshot_pair_tail", _nothing),
             "RAFT-DRIVE-SNAPSHOT-SUPERSEDING": (RaftDriver, "_snapshot_superseding",
                                                 lambda self, state, leader, lagging: ([], state)),
             # session 27 (raftcq): last on the start paths, a candidate refused by half an even voter set
             "RAFT-DRIVE-HALF-REFUSED": (RaftDriver, "_half_refused_tail", _nothing),
             # session 28 (raftesc): a counted voter carried across a renewed check-quorum period
             # (before RAFT-DRIVE-CHECK-QUORUM-ACK's core), a request held across its receiver's
             # new epoch (RAFT-DRIVE-SNAPSHOT-TABLE's last steps)
             "RAFT-DRIVE-CHECK-QUORUM-CARRY": (RaftDriver, "_check_quorum_carry",
                                               lambda self, state, leader: ([], state)),
             "RAFT-DRIVE-HELD-ACROSS-EPOCH": (RaftDriver, "_held_across_epoch",
                                              lambda self, run, src, dst: False),
             # session 29 (blindraft): RAFT-DRIVE-SNAPSHOT-TABLE's last step at kip-996, a pre-vote
             # at the follower named the snapshot
             "RAFT-DRIVE-SNAPSHOT-FETCHED": (RaftDriver, "_snapshot_fetched_pre_vote",
                                             lambda self, run, lagging: False)},
    "voters": {
        "VOTERS-DRIVE-JOIN-PROBE": (VotersDriver, "_join_probe", _nothing),
        "VOTERS-DRIVE-LAPSE-PROBE": (VotersDriver, "_lapse_probe", _nothing),
        "VOTERS-DRIVE-LEADERLESS-ANSWER-PROBE": (VotersDriver, "_leaderless_answer_probe", _nothing),
        "VOTERS-DRIVE-UNCOMMITTED-ADD-PROBE": (VotersDriver, "_uncommitted_add_probe",
                                               lambda self, state: ([], state)),
        "VOTERS-DRIVE-DESCRIBE": (VotersDriver, "_describe_probe", staticmethod(_nothing)),
        "VOTERS-DRIVE-OUTSIDER-VOTE-RESTART": (VotersDriver, "_outsider_vote_probe", _nothing),
        "VOTERS-DRIVE-FREE-PROBE": (voters_log, "probes", _nothing),
        "VOTERS-DRIVE-UNREACHABLE-RESTART": (VotersDriver, "_unreachable_leader_probe", _nothing),
        "VOTERS-DRIVE-ADDED-LEADER-RESTART": (VotersDriver, "_added_leader_restart_probe", _nothing),
        "VOTERS-DRIVE-REJOIN-PROBE": (VotersDriver, "_rejoin_probe", _nothing),
        "VOTERS-DRIVE-UPGRADE-DIRECTORY": (VotersDriver, "_upgrade_directory_probe", _nothing),
        "VOTERS-DRIVE-STATIC-JOIN": (VotersDriver, "_static_join_probe", _nothing),
        "VOTERS-DRIVE-RELEAD-UPGRADE": (VotersDriver, "_relead_upgrade_probe", _nothing),
        "VOTERS-DRIVE-CROSSED-KEY-PROBE": (VotersDriver, "_crossed_key_probe", staticmethod(_nothing)),
        "VOTERS-DRIVE-UPGRADE-WITHDRAWN": (VotersDriver, "_withdrawn_upgrade_probe", _nothing),
        "VOTERS-DRIVE-UNCOMMITTED-SET-ELECTION": (VotersDriver, "_uncommitted_set_election_probe", _nothing),
        "VOTERS-DRIVE-DISK-REPLACED-VOTE": (VotersDriver, "_disk_replaced_vote_probe", _nothing),
        "VOTERS-DRIVE-FIRST-LEADER-AGAIN": (VotersDriver, "_first_leader_again_probe", _nothing),
        # session 21 (red team voters_scratch13's removed-leader-rejoin-unpersisted escaped seed 0 or 1)
        "VOTERS-DRIVE-REMOVED-LEADER-TIMER": (VotersDriver, "_removed_leader_timer_probe", _nothing),
        "VOTERS-DRIVE-FREE-REBUILD": (voters_log, "rebuild_probes", _nothing),
        # session 23 (red team voters_scratch14's unkeyed-fetch-counted-for-replaced-voter escaped)
        "VOTERS-DRIVE-STALE-DISK-FETCH": (VotersDriver, "_stale_disk_fetch_probe", _nothing),
        # session 25 (red team voters_scratch15: pending-change-kept-across-leaderships escaped,
        # reconfig-before-epoch-commit-by-log-hw caught by random runs only)
        "VOTERS-DRIVE-TRUNCATED-CHANGE": (VotersDriver, "_truncated_change_probe", _nothing),
        "VOTERS-DRIVE-FRESH-LEADER": (VotersDriver, "_fresh_leader_probe", _nothing),
        # session 27 (red team voters_scratch16's upgrade-map-lacks-leader and
        # auto-join-reads-committed-set escaped seeds 0 and 1)
        "VOTERS-DRIVE-OWN-REPORT": (VotersDriver, "_own_report_probe", _nothing),
        "VOTERS-DRIVE-REJOIN-FETCH": (VotersDriver, "_rejoin_fetch_tail", _nothing),
        # session 28 (red team voters_scratch16's lapse-ends-on-stale-answer escaped seeds 0 and 1)
        "VOTERS-DRIVE-STALE-LAPSE-ANSWER": (VotersDriver, "_stale_answer_probe", _nothing),
        "VOTERS-DRIVE-FREE-REPEATED-SET": (voters_log, "repeated_set_probes", _nothing),
        # session 29 (red team voters_scratch17's upgrade-judged-by-committed-version escaped seeds 0 and 1)
        "VOTERS-DRIVE-UPGRADE-AGAIN": (VotersDriver, "_upgrade_again_probe", staticmethod(_nothing)),
        "VOTERS-DRIVE-REMOVED-LEADER-APPEND": (VotersDriver, "_removed_leader_append_tail", _nothing),
    },
    "share": {
        "CutReload": (ShareDriver, "_cut_parts", _none),
        "DeleteThenRead": (ShareDriver, "_delete_parts", _none),
        "ReinitPruneReload": (ShareDriver, "_prune_parts", _none),
        "ReloadWithoutTopic": (ShareDriver, "_reload_parts", _none),
        "SHARE-DRIVE-ROUTING-UNLOADED": (ShareDriver, "probes", _nothing),
        "StaleReadWithoutTopic": (ShareDriver, "_stale_read_parts", _none),
        "ReinitAtCountedStart": (ShareDriver, "_reinit_count_parts", _none),
        "FencesAcrossDelete": (ShareDriver, "_fences_delete_parts", _none),
        "SHARE-DRIVE-TIE-UPDATE": (ShareDriver, "tie_probes", _nothing),
        "SHARE-DRIVE-REORDER-SNAPSHOT": (ShareDriver, "reorder_probes", _nothing),
        # probe requests of the model's mix (ShareSystem.probe_actions), one kind left out
        "SHARE-DRIVE-NEW-LEADER-WITHOUT-TOPIC": (ShareSystem, "probe_actions", _probe_requests_without(
            lambda kind, a: kind == "image" and isinstance(a, Read) and a.key == DOOMED and a.leader_epoch > 0)),
        "SHARE-DRIVE-COUNT-FROM-UNKNOWN-START": (ShareSystem, "probe_actions", _probe_requests_without(
            lambda kind, a: kind == "counts" and isinstance(a, Write) and a.key == OTHER_PARTITION)),
        # session 19
        "InnerBatchSplit": (ShareDriver, "_inner_split_parts", _none),
        "SHARE-DRIVE-STALE-INITIALIZE-WITHOUT-TOPIC": (ShareSystem, "probe_actions", _probe_requests_without(
            lambda kind, a: kind == "initialize" and isinstance(a, Initialize) and a.key == DOOMED
            and a.state_epoch == 0)),
        "ReinitBelowStored": (ShareDriver, "_reinit_below_parts", _none),
        "StateEpochAcrossDelete": (ShareDriver, "_state_delete_parts", _none),
        # session 23 (red team share_scratch14's negative-epoch-sentinel-only escaped seeds 0 and 1)
        "SHARE-DRIVE-MIN-EPOCH": (ShareSystem, "probe_actions", _probe_requests_without(
            lambda kind, a: MIN_EPOCH in (getattr(a, "leader_epoch", None), getattr(a, "state_epoch", None)))),
        # session 23 (red team share_scratch14's start-clamp-survives-reinitialize escaped): the
        # write and read that end ReinitBelowStored
        "SHARE-DRIVE-REINIT-BELOW-WRITE": (ShareDriver, "_below_write_parts", _none),
        # session 23 (red team share_scratch14's count-after-start-resolved caught at one seed only)
        "SHARE-DRIVE-COUNT-FROM-BELOW": (ShareDriver, "_count_below_parts", _none),
        # session 23 (red team share_scratch14's write-batches-by-first-offset escaped seeds 0 and 1)
        "SHARE-DRIVE-SAME-FIRST-OFFSET": (ShareSystem, "probe_actions", _probe_requests_without(
            lambda kind, a: kind == "batches" and isinstance(a, Write) and a.batches == SAME_FIRST_OFFSET)),
        # session 24 (red team share_scratch15's delivery-count-as-int8 escaped seeds 0 and 1)
        "SHARE-DRIVE-MAX-DELIVERY-COUNT": (ShareSystem, "probe_actions", _probe_requests_without(
            lambda kind, a: any(b.delivery_count == MAX_DELIVERY_COUNT for b in getattr(a, "batches", ())))),
        # sessions 26-27 (red team share_scratch16's escapes, all "not reached"): the path-end-only
        # composites (PathEndProbe), each by its entry of share_driver.PATH_END_PARTS returning None
        **{name: (share_driver, "PATH_END_PARTS", {**share_driver.PATH_END_PARTS, name: _none})
           for name in share_driver.PATH_END_PROBES},
    },
    # streams (session 23): the guided paths' end probes (StreamsDriver.probes); the in-flight
    # sub-topology is offered in category ``topology`` too, so its switch disables the step itself
    "streams": {
        "STREAMS-DRIVE-SUBTOPOLOGY-IN-FLIGHT": (StreamsDriver, "_in_flight_enabled", lambda self, state: False),
        "STREAMS-DRIVE-ACTIVE-WITHHELD": (StreamsDriver, "_resolve_withheld", _none),
        # session 27 (red team streams_scratch14's escapes, both "not reached"): the decomposed key
        # back to its precomposed form (its probe query is then not offered), the (2, 4, 0)
        # endpoints back to ports in host order
        "STREAMS-DRIVE-DECOMPOSED-KEY": (streams_driver, "KEYS", tuple(
            unicodedata.normalize("NFC", k) if k == streams_driver.DECOMPOSED_KEY else k for k in streams_driver.KEYS)),
        "STREAMS-DRIVE-PORT-ORDER": (streams_driver, "CONFIGS", [
            {**c, "servers": "::1:8080,host1:9092"} if c.get("servers") == "::1:9092,host1:8080" else c
            for c in streams_driver.CONFIGS]),
    },
}
# mm2 (session 23): an input kind by the driver module's function or list that makes it, without it
# (MM2-DRIVE-HEARTBEATS-ODD-NAMES: no odd-name nodes; MM2-DRIVE-DOTTED-SEPARATOR: CONFIGS without
# the "-." configuration); the driver's per-configuration caches are cleared around the switch.
_SWITCHES["mm2"] = {
    "MM2-DRIVE-HEARTBEATS-ODD-NAMES": (mm2_driver, "odd_heartbeats", lambda sep: {}),
    "MM2-DRIVE-DOTTED-SEPARATOR": (mm2_driver, "CONFIGS",
                                   [c for c in mm2_driver.CONFIGS if c.get("separator") != "-."]),
    # session 27 (red team mm2_scratch14's escapes): the read-back of a formatted name and the
    # trailing-separator twin of an internal test (extra calls of a query: none), the blank-edged
    # values (KIP-1016's name without its blank; no node sent the flag "true ")
    "MM2-DRIVE-FORMAT-READ-BACK": (mm2_driver.Mm2Driver, "_format_read_back", lambda self, call, result: []),
    "MM2-DRIVE-TRAILING-SEPARATOR": (mm2_driver.Mm2Driver, "_trailing_separator", lambda self, call: []),
    "MM2-DRIVE-BLANK-HEARTBEATS-NAME": (mm2_driver, "BLANK_HEARTBEATS", "-internal"),
    "MM2-DRIVE-BLANK-FLAG": (mm2_driver, "BLANK_FLAG_NODE", None),
    # session 28 (red team mm2_scratch15's flag-parsed-as-ini-boolean): the flag "yes" at one node
    "MM2-DRIVE-FLAG-WORD": (mm2_driver, "WORD_FLAG_NODE", None),
    # session 29 (red team mm2_scratch16's mm2-connect-names-dotted): no worker-topic follow-ups
    "MM2-DRIVE-CONNECT-WORKER-NAMES": (mm2_driver, "WORKER_TOPIC_KINDS", ()),
    # session 29 (red team mm2_scratch16's heartbeats-name-follows-separator): no dotted-name node
    "MM2-DRIVE-DOTTED-HEARTBEATS-NAME": (mm2_driver, "DOTTED_HEARTBEATS_NODE", None),
}
SHARE_PROBE_REQUESTS = "probe requests"


def _clear_mm2() -> None:
    mm2_driver.setup.cache_clear()
    mm2_driver._CALLS.clear()


def probes(protocol: str) -> list[str]:
    """The probes :func:`probe_off` can switch off for ``protocol``."""
    extra = {"raft": list(RAFT_MACROS), "share": [SHARE_PROBE_REQUESTS]}.get(protocol, [])
    return [*extra, *_SWITCHES[protocol]]


@contextmanager
def probe_off(protocol: str, probe: str) -> Iterator[None]:
    """The ``protocol`` driver without ``probe`` (one of :func:`probes`) while inside."""
    saved: list[tuple[Any, str, Any]] = []

    def patch(owner: Any, name: str, value: Any) -> None:
        saved.append((owner, name, owner.__dict__[name]))  # __dict__: a staticmethod stays one
        setattr(owner, name, value)

    if protocol == "raft" and probe in RAFT_MACROS:
        kind = getattr(macros, probe)
        resolve = RaftDriver.resolve

        def without(self: RaftDriver, state: Any, action: Any) -> Any:
            return None if isinstance(action, kind) else resolve(self, state, action)

        patch(RaftDriver, "resolve", without)
    elif protocol == "share" and probe == SHARE_PROBE_REQUESTS:
        before = share_driver.BOUNDS["probes"]
        share_driver.BOUNDS["probes"] = False
        saved.append((share_driver.BOUNDS, "probes", before))
    else:
        switch = _SWITCHES.get(protocol, {}).get(probe)
        if switch is None:
            raise SystemExit(f"probe_off: unknown {protocol} probe {probe!r} (known: {', '.join(probes(protocol))})")
        patch(*switch)
    guide._GRAPHS.clear()
    _clear_mm2()
    try:
        yield
    finally:
        for owner, name, value in reversed(saved):
            if isinstance(owner, dict):
                owner[name] = value
            else:
                setattr(owner, name, value)
        guide._GRAPHS.clear()
        _clear_mm2()


def catching_run(name: str, seed: int) -> str:
    """The run that catches mutant ``name`` at ``seed`` at the default budget: ``gN`` (guided run
    N), ``rN`` (random run N: the random runs come after every guided one), ``liveness check:
    KIND`` (the lockstep runs conformed, the run's liveness check caught it), or the verdict and
    the runs taken (``conforms (N runs)``: escaped)."""
    mutant = CATALOGUE[name]
    result = run_conformance(mutant.protocol, mutant.target(), seed_value=seed, out_dir=None)
    if result.verdict == "diverges" and result.first_runs is None and result.finding is not None:
        return f"liveness check: {result.finding.kind} ({result.examples} runs)"
    if result.verdict != "diverges" or result.first_runs is None:
        return f"{result.verdict} ({result.examples} runs)"
    guided = result.first_runs <= result.coverage.guided_runs
    return f"{'g' if guided else 'r'}{result.first_runs}"


def escaped(run: str) -> bool:
    return run.startswith("conforms")


def bench(protocol: str, pairs: list[tuple[str, str]], doc: str,
          not_alone: list[tuple[str, str]] | None = None) -> None:
    """The command line of a probe-mutant bench: ``pairs`` is (probe, mutant); prints a Markdown
    row per (probe, mutant, seed) with the catching run with the probe on and with it off; exits
    1 when a mutant escapes some seed with its probe on or is caught at some seed with it off.
    ``not_alone``: pairs measured as caught without the probe too, run and printed (marked) but
    held only to the catch with the probe on."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=2, help="seeds 0..N-1 (probe on)")
    ap.add_argument("--off-seeds", type=int, default=None, help="seeds 0..M-1 with the probe off (default: --seeds)")
    ap.add_argument("--only", nargs="*", default=None, help="mutant or probe names")
    ap.add_argument("--no-off", action="store_true", help="skip the runs with the probe off")
    args = ap.parse_args()
    off_seeds = args.seeds if args.off_seeds is None else args.off_seeds
    bad = False
    print("| probe | mutant | seed | probe on | probe off |")
    print("|---|---|---|---|---|", flush=True)
    known = set(not_alone or [])
    for probe, name in [*pairs, *(not_alone or [])]:
        if args.only and name not in args.only and probe not in args.only:
            continue
        if CATALOGUE[name].protocol != protocol:
            raise SystemExit(f"{name} is a {CATALOGUE[name].protocol} mutant, not {protocol}")
        on = [catching_run(name, s) for s in range(args.seeds)]
        off: list[str] = []
        if not args.no_off:
            with probe_off(protocol, probe):
                off = [catching_run(name, s) for s in range(off_seeds)]
        bad |= any(escaped(r) or r.startswith("error") for r in on)
        bad |= (probe, name) not in known and any(not escaped(r) for r in off)
        mark = " (not its alone)" if (probe, name) in known else ""
        for s in range(max(args.seeds, len(off))):
            print(f"| {probe}{mark} | `{name}` | {s} | {on[s] if s < len(on) else '-'} "
                  f"| {off[s] if s < len(off) else '-'} |", flush=True)
    sys.exit(1 if bad else 0)
