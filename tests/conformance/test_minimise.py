"""The minimiser that runs after Hypothesis's shrinking (conformance/drivers/runner.py): it
leaves out whole actions while the run still diverges the same way, and what it returns is
one-minimal (leaving out any single further action loses the divergence)."""

from __future__ import annotations

import random
from pathlib import Path

from kspec.conformance.drivers import PROTOCOLS, macros
from kspec.conformance.drivers.runner import _replay_actions, minimise, run_conformance
from kspec.conformance.drivers.voters import StartUp
from kspec.conformance.harness import Divergence, Lockstep
from kspec.conformance.targets.mutants import CATALOGUE
from kspec.model.raft.system import Fire
from kspec.model.voters.node import AddVoter, directory_of


def _random_failing_run(name: str, config: dict[str, object], seed: int) -> tuple[Lockstep, Divergence]:
    """A random walk through the lockstep against mutant ``name`` until it diverges."""
    mutant = CATALOGUE[name]
    spec = PROTOCOLS[mutant.protocol]()
    rng = random.Random(seed)
    for _ in range(300):
        session = Lockstep(spec.driver(dict(config)), mutant.target())
        try:
            for category in getattr(session.driver, "opening", ()):
                session.apply(category, 0)
            for _ in range(40):
                live = [c for c in session.driver.categories if session.has_enabled(c)]
                if not live:
                    break
                session.apply(rng.choice(live), rng.randrange(256))
        except Divergence as err:
            return session, err
        finally:
            session.close()
    raise AssertionError(f"no random walk of 40 steps diverged against {name}")


def _same(session: Lockstep | None, err: Divergence) -> bool:
    return session is not None and session.finding is not None and (
        session.finding.kind, session.finding.field) == (err.finding.kind, err.finding.field)


def test_minimised_run_is_shorter_and_one_minimal() -> None:
    name = "raft-hw-before-epoch-commit"
    spec = PROTOCOLS["raft"]()
    config = dict(spec.configs[1])  # three voters, no faults
    session, err = _random_failing_run(name, config, seed=1)
    shorter = minimise("raft", CATALOGUE[name].target(), config, session.taken, err.finding)
    assert shorter is not None and len(shorter.taken) < len(session.taken)
    assert _same(shorter, err)
    for i in range(len(shorter.taken)):
        without = shorter.taken[:i] + shorter.taken[i + 1:]
        assert not _same(_replay_actions(spec, CATALOGUE[name].target(), config, without, 10.0), err), i


def test_minimiser_keeps_the_forced_opening() -> None:
    name = "voters-change-on-commit"
    spec = PROTOCOLS["voters"]()
    config = {**spec.configs[1], "level": "replica"}
    session, err = _random_failing_run(name, config, seed=2)
    shorter = minimise("voters", CATALOGUE[name].target(), config, session.taken, err.finding,
                       forced=("opening",)) or session
    assert shorter.taken[0][0] == "opening" and _same(shorter, err)


def test_conform_writes_the_minimised_run(tmp_path: Path) -> None:
    # Without Hypothesis's shrinking (cheap here), so the minimiser has the first failing run.
    # share-lower-count-wins: the first failing run (guided run 41) has 12 steps, the minimised one 6 (seed 0;
    # share-update-drops-state-epoch is now caught by a 3-step run, nothing left to minimise).
    mutant = CATALOGUE["share-lower-count-wins"]
    plain = run_conformance("share", mutant.target(), out_dir=None, shrink=False, minimal=False)
    minimal = run_conformance("share", mutant.target(), out_dir=tmp_path, shrink=False)
    assert plain.verdict == minimal.verdict == "diverges"
    assert plain.finding is not None and minimal.finding is not None
    assert (plain.finding.kind, plain.finding.field) == (minimal.finding.kind, minimal.finding.field)
    assert len(minimal.steps) < len(plain.steps)
    assert minimal.finding.step == len(minimal.steps)
    assert minimal.counterexample is not None and Path(minimal.counterexample).exists()


def test_a_macro_is_taken_apart_and_what_it_did_not_need_left_out() -> None:
    # AddVoter at the leader, then replica 2 deposes it: the mutant keeps the truncated entry.
    name = "voters-history-not-truncated"
    spec = PROTOCOLS["voters"]()
    config = {**spec.configs[1], "level": "replica"}
    run = [("opening", StartUp()), ("reconfig", Fire(1, AddVoter(4, directory_of(4)))),
           ("depose", macros.Depose(1, 2))]
    whole = _replay_actions(spec, CATALOGUE[name].target(), config, run, 10.0)
    assert whole is not None and whole.finding is not None
    shorter = minimise("voters", CATALOGUE[name].target(), config, whole.taken, whole.finding, forced=("opening",))
    assert shorter is not None and shorter.finding is not None
    assert (shorter.finding.kind, shorter.finding.field) == (whole.finding.kind, whole.finding.field)
    assert not any(isinstance(a, macros.MACRO_TYPES) for _, a in shorter.taken)
    assert len(shorter.steps) < len(whole.steps)  # the deposition's steps it did not need are gone


def test_minimised_run_has_no_removable_pair() -> None:
    # Brute force over every pair of the minimiser's result: none can be left out together.
    name = "raft-vote-twice"
    spec = PROTOCOLS["raft"]()
    config = dict(spec.configs[0])
    session, err = _random_failing_run(name, config, seed=3)
    shorter = minimise("raft", CATALOGUE[name].target(), config, session.taken, err.finding) or session
    assert _same(shorter, err)
    taken = shorter.taken
    assert len(session.taken) > len(taken) >= 3
    for i in range(len(taken)):
        for j in range(i + 1, len(taken)):
            without = [a for k, a in enumerate(taken) if k not in (i, j)]
            assert not _same(_replay_actions(spec, CATALOGUE[name].target(), config, without, 10.0), err), (i, j)
