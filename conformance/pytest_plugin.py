"""The pytest plugin: run the conformance suite inside a user's own test run.

``pytest --kspec-target=T`` adds one test item per protocol the target speaks
(``kspec-conform[raft:T]``); it fails with the shrunk divergence and the counterexample path.
Options: ``--kspec-protocol`` (needed for python: and exec: targets that do not declare one),
``--kspec-examples``, ``--kspec-steps``, ``--kspec-seed``, ``--kspec-out``. The
``kspec_conform`` fixture runs the suite on a target object from a test of one's own::

    def test_my_raft(kspec_conform):
        result = kspec_conform("raft", MyRaftTarget())
        assert result.verdict == "conforms", result.finding

Registered as the ``kspec`` pytest11 entry point; with no ``--kspec-target`` it adds nothing.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kspec", "kspec conformance suite")
    group.addoption("--kspec-target", action="append", default=[], metavar="T",
                    help="Run the kspec conformance suite against target T (repeatable).")
    group.addoption("--kspec-protocol", action="append", default=[], metavar="P",
                    help="Protocol(s) to check the targets on (default: what each target declares).")
    group.addoption("--kspec-examples", type=int, default=None, help="Hypothesis examples per protocol.")
    group.addoption("--kspec-steps", type=int, default=None, help="Largest number of steps per example.")
    group.addoption("--kspec-seed", type=int, default=0, help="Random seed.")
    group.addoption("--kspec-out", default="kspec-counterexamples", help="Directory for counterexample files.")


class KspecDivergence(Exception):
    """A target left the model's behaviour (or failed): the item's failure."""


class KspecConformItem(pytest.Item):
    """One ``kspec conform PROTOCOL --target T`` run as a test item."""

    def __init__(self, *, protocol: str, target: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.protocol = protocol
        self.target_name = target

    def runtest(self) -> None:
        from kspec.conformance.drivers.runner import DEFAULT_EXAMPLES, DEFAULT_STEPS, run_conformance
        from kspec.conformance.targets.registry import resolve_target

        opt = self.config.getoption
        target = resolve_target(self.target_name, self.protocol)
        result = run_conformance(self.protocol, target, examples=opt("kspec_examples") or DEFAULT_EXAMPLES,
                                 steps=opt("kspec_steps") or DEFAULT_STEPS, seed_value=opt("kspec_seed"),
                                 out_dir=Path(opt("kspec_out")))
        self.user_properties.append(("kspec", result.to_json()))
        if result.verdict != "conforms":
            lines = [f"kspec conform {self.protocol} --target {self.target_name}: {result.verdict}"]
            if result.finding is not None:
                lines.append(f"  {result.finding.line()}")
            lines += [f"  {rec.index:>3}. {rec.action}" for rec in result.steps]
            if result.counterexample:
                lines.append(f"  counterexample: {result.counterexample}")
                lines.append(f"  replay: kspec replay {shlex.quote(str(result.counterexample))} "
                             f"--target {shlex.quote(self.target_name)}")
            raise KspecDivergence("\n".join(lines))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, KspecDivergence):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, f"kspec conform {self.protocol} --target {self.target_name}"


def _protocols_of(name: str, asked: list[str]) -> list[str]:
    from kspec.conformance.targets.mutants import catalogue
    from kspec.conformance.targets.registry import reference_protocols

    mutants = catalogue()
    if name.startswith("mutant:") and name[len("mutant:"):] in mutants:
        return [mutants[name[len("mutant:"):]].protocol]  # a mutant speaks one protocol
    if asked:
        return asked
    if name == "reference":
        return reference_protocols()
    raise pytest.UsageError(f"--kspec-target {name!r}: give --kspec-protocol for this target")


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    for name in config.getoption("kspec_target"):
        for protocol in _protocols_of(name, config.getoption("kspec_protocol")):
            items.append(KspecConformItem.from_parent(session, name=f"kspec-conform[{protocol}:{name}]",
                                                      protocol=protocol, target=name))


@pytest.fixture
def kspec_conform(tmp_path: Path) -> Callable[..., Any]:
    """``kspec_conform(protocol, target, **options)`` -> ConformResult (counterexamples in tmp_path)."""
    from kspec.conformance.drivers.runner import run_conformance

    def run(protocol: str, target: Any, **options: Any) -> Any:
        options.setdefault("out_dir", tmp_path)
        return run_conformance(protocol, target, **options)

    return run
