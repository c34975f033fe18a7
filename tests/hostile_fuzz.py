"""Generated hostile input for every reader and command (issue #24 item 5), shared by the
Hypothesis fuzz test (tests/test_fuzz_inputs.py, a few seconds in the default run) and the larger
run in bench/fuzz_inputs.py.

A case is a file (a mutated counterexample, ITF trace, JSON Lines corpus, explore/simulate JSON
or TLC output) or an argument list. :func:`check_file` and :func:`check_argv` run it in process
and return a description of what went wrong, or None: an outcome is fine when kspec answers with
exit 0 or 1, or exit 2 with one line on stderr starting ``kspec:`` (not ``kspec: internal
error``), and the TLC readers raise only ``TLCOutputError``.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kspec.conformance import protocols
from kspec.conformance.cli import main
from kspec.tla.readers import TLCOutputError, iter_error_traces, read_simulation_trace, read_state_dump

PROTOCOLS = [p.name for p in protocols.BUILTIN]  # the built-in protocols (conformance/protocols.py)

TLC_ERROR = """TLC2 Version 2.19
Error: Invariant NotAllDone is violated.
Error: The behavior up to this point is:
State 1: <Initial predicate>
/\\ count = (p1 :> 0 @@ p2 :> 0)
/\\ log = <<>>
/\\ done = {}

State 2: <Step line 20, col 5 to line 24, col 30 of module Tokens>
/\\ count = (p1 :> 1 @@ p2 :> 0)
/\\ log = <<[who |-> p1, n |-> 1]>>
/\\ done = {p1}

State 3: Back to state 1.

Finished in 00s at (2026-11-25 12:00:00)
"""

TLC_SIM = """---- MODULE trace ----
STATE_1 ==
/\\ count = (p1 :> 0 @@ p2 :> 0)
/\\ log = <<>>

STATE_2 ==
/\\ count = (p1 :> 1 @@ p2 :> 0)
/\\ log = <<"a", TRUE, -3>>

====
"""

TLC_DUMP = """State 1:
/\\ count = (p1 :> 0 @@ p2 :> 0)
/\\ log = <<>>

State 2:
/\\ count = (p1 :> 1 @@ p2 :> 0)
/\\ log = <<[who |-> p1, n |-> 1]>>

"""

# JSON values a hostile file might hold anywhere.
HOSTILE_VALUES: list[Any] = [
    None, "", " ", "..", "../../etc/passwd", "a/b", "\u0000", "\u202e", "é" * 3, "x" * 5000, -1, 0, 2**63, -(2**63) - 1,
    10**40, 1.5, 1e308, True, False, [], {}, [[[[[]]]]], {"#bigint": "x"}, {"#bigint": "9" * 80}, {"#bigint": 5},
    {"#set": 1}, {"#set": [1, [2], {"#tup": []}]}, {"#map": [[1]]}, {"#map": [[[1], 2]]}, {"#map": {}}, {"#tup": 1},
    {"#tup": [1, 2]}, {"#tup": []}, {"#unserializable": 1}, {"type": 1}, {"type": "Bag", "items": 3},
    {"type": "Bag", "items": [[1, 2, 3]]}, {"src": 1, "dst": [2]}, {"src": None, "dst": None, "type": None},
    "exec:sh -c 'touch /tmp/kspec-fuzz-ran'", "python:os:system", "kafka:9.9.9", "mutant:nosuch",
    float("nan"), float("inf"),
]

KEYS = ["#meta", "kind", "protocol", "target", "config", "states", "vars", "step", "node", "input", "action",
        "model_outputs", "target_outputs", "model_observation", "target_observation", "divergence", "trace",
        "violations", "property", "type", "voters", "observers", "hosts", "instances", "level", "model_variant",
        "src", "dst", "epoch", "nodes", "id", "kafka_version", "policy", "separator"]


def _deep(depth: int) -> Any:
    value: Any = 1
    for i in range(depth):
        value = [value] if i % 2 else {"a": value}
    return value


# -- seed documents -----------------------------------------------------------------------------------------


def seed_documents(work: Path) -> dict[str, bytes]:
    """One valid document of every kind kspec reads (written by kspec itself where it can)."""
    from kspec.conformance.clikit import build_model, protocol_info
    from kspec.conformance.drivers.runner import run_conformance
    from kspec.conformance.targets.mutants import CATALOGUE
    from kspec.conformance.traces.writer import write_traces
    from kspec.model.core.explorer import simulate

    docs: dict[str, bytes] = {}
    result = run_conformance("share", CATALOGUE["share-update-drops-state-epoch"].target(), examples=50, steps=15,
                             seed_value=0, out_dir=work / "cx", minimal=False)
    assert result.counterexample is not None
    docs["counterexample"] = Path(result.counterexample).read_bytes()
    model, _ = build_model(protocol_info("raft"), (), "vote-twice", simulation=True)
    sim = simulate(model, seed=1, steps=12, traces=2, stop_on_violation=False)
    files = [Path(f) for f in write_traces(work / "traces", model, sim, variant="vote-twice")]
    itf = next(f for f in files if f.name.endswith(".itf.json"))
    docs["itf"] = itf.read_bytes()
    events = next(f for f in files if f.name.endswith(".jsonl"))
    docs["events"] = b"\n".join(events.read_bytes().splitlines()[:12]) + b"\n"
    code, out, _ = run_main(["simulate", "raft", "--variant", "vote-twice", "--steps", "30", "--traces", "5",
                             "--seed", "1", "--json"])
    assert code in (0, 1), out[:200]
    docs["explore_json"] = out.encode()
    docs["tlc_error"] = TLC_ERROR.encode()
    docs["tlc_sim"] = TLC_SIM.encode()
    docs["tlc_dump"] = TLC_DUMP.encode()
    return docs


# -- mutations ----------------------------------------------------------------------------------------------


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON document (bounded: the first 400)."""
    out: list[tuple[Any, ...]] = [prefix]
    stack = [(doc, prefix)]
    while stack and len(out) < 400:
        value, at = stack.pop()
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for k, v in items:
            out.append((*at, k))
            stack.append((v, (*at, k)))
    return out


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    parent = doc
    for k in path[:-1]:
        parent = parent[k]
    parent[path[-1]] = value
    return doc


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for k in path:
        doc = doc[k]
    return doc


def mutate_json(rng: random.Random, doc: Any) -> Any:
    """One structural change: a value replaced by a hostile one, a key deleted or added, a list
    emptied or repeated, a value nested deep."""
    path = rng.choice(_paths(doc))
    op = rng.randrange(7)
    if op == 0:
        return _set(doc, path, rng.choice(HOSTILE_VALUES))
    if op == 1 and path:
        parent = _get(doc, path[:-1])
        with contextlib.suppress(KeyError, IndexError, TypeError):
            del parent[path[-1]]
        return doc
    if op == 2:
        target = _get(doc, path)
        if isinstance(target, dict):
            target[rng.choice(KEYS)] = rng.choice(HOSTILE_VALUES)
        return doc
    if op == 3:
        target = _get(doc, path)
        if isinstance(target, list):
            target[:] = [] if rng.random() < 0.5 else target * rng.randrange(2, 5)
        return doc
    if op == 4:
        depth = rng.choice([10, 63, 64, 65, 200, 3000])
        # json.dumps cannot write 3000 levels: a placeholder, replaced in the text by mutate().
        return _set(doc, path, _deep(depth) if depth < 500 else f"DEEP-{depth}-PLACEHOLDER")
    if op == 5:
        target = _get(doc, path)
        if isinstance(target, int) and not isinstance(target, bool):
            return _set(doc, path, rng.choice([target + 1, -target, target * 10**9, 10**30, -1]))
        return _set(doc, path, rng.choice(HOSTILE_VALUES))
    target = _get(doc, path)
    if isinstance(target, str):
        return _set(doc, path, rng.choice(["", target * 50, target + "/../..", target.upper(), "\udcff"[:0] + "ü"]))
    return _set(doc, path, rng.choice(HOSTILE_VALUES))


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    """One byte-level change: a cut, a flipped or inserted byte (often not UTF-8), a repeated slice."""
    if not data:
        return bytes([rng.randrange(256)])
    i = rng.randrange(len(data))
    op = rng.randrange(6)
    if op == 0:
        return data[:i]
    if op == 1:
        return data[:i] + bytes([rng.randrange(256)]) + data[i + 1:]
    if op == 2:
        junk = [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\r", b"\n\n", b"{", b"]"]
        return data[:i] + rng.choice(junk) + data[i:]
    if op == 3:
        j = min(len(data), i + rng.randrange(1, 200))
        return data[:j] + data[i:j] * rng.randrange(1, 4) + data[j:]
    if op == 4:
        return data[:i] + rng.choice([b"[" * 5000, b'{"a":' * 100, b"NaN", b"Infinity", b"1" * 5000, b"-"]) + data[i:]
    j = min(len(data), i + rng.randrange(1, 50))
    return data[:i] + data[j:]


def mutate_text_lines(rng: random.Random, data: bytes) -> bytes:
    """TLC output and JSON Lines: lines dropped, repeated, swapped or rewritten."""
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    op = rng.randrange(5)
    if op == 0:
        del lines[i]
    elif op == 1:
        lines.insert(i, lines[i])
    elif op == 2:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif op == 3:
        lines[i] = rng.choice([b"State 1: <x>", b"State 99:", b"/\\ x = ", b"/\\ x = <<", b"/\\ x = " + b"<<" * 3000,
                               b"/\\ x = " + b"9" * 5000, b"====", b"---- MODULE m ----", b"STATE_7 ==",
                               b"State 2: Back to state 9.", b"Error: The behavior up to this point is:",
                               b"/\\ x = [a |-> 1, a |-> 2]", b"/\\ x = (1 :> 2 @@ 1 :> 3)", b'{"node": 1}',
                               b'{"trace": 1, "node": [], "input": 5}', b"\xff\xfe"])
    else:
        lines[i] = mutate_bytes(rng, lines[i])
    return b"\n".join(lines)


def mutate(rng: random.Random, kind: str, data: bytes, rounds: int) -> bytes:
    """``rounds`` mutations of a seed document of ``kind``."""
    for _ in range(rounds):
        pick = rng.random()
        if kind in ("counterexample", "itf", "explore_json") and pick < 0.6:
            try:
                doc = json.loads(data)
            except (ValueError, RecursionError):
                data = mutate_bytes(rng, data)
                continue
            text = json.dumps(mutate_json(rng, doc))
            for depth in (3000,):
                text = text.replace(f'"DEEP-{depth}-PLACEHOLDER"', "[" * depth + "1" + "]" * depth)
            data = text.encode("utf-8", "surrogatepass")
        elif kind.startswith("tlc") or kind == "events" or pick < 0.8:
            data = mutate_text_lines(rng, data) if pick < 0.9 else mutate_bytes(rng, data)
        else:
            data = mutate_bytes(rng, data)
    return data


# -- argument lists -----------------------------------------------------------------------------------------

BAD_SECONDS = ["nan", "inf", "-inf", "-1", "0", "-0", "1e309", "abc", "", "0x10", "\u0661", "1e-9"]
# Not a huge valid count: --traces 10**35 is a run the user asked for, not hostile input.
BAD_COUNTS = ["0", "-1", "abc", "", "1.5", "nan", "1e3", "\u0661"]
BAD_SEEDS = ["-1", "abc", "99999999999999999999999999999999999", "1.5", ""]
BAD_NAMES = ["", "nosuch", "../../x", "a/b", "\x00", "\udcff", "é", "x" * 300, "-", "--json", "RAFT", " raft"]
BAD_TARGETS = ["", "exec:", "exec:/nonexistent/prog", "exec:'unclosed", "python:", "python:os", "python:nosuch:X",
               "python:os:getcwd", "kafka:", "kafka:../../x", "kafka:0.1.0", "kafka:1.0\x00", "mutant:",
               "mutant:nosuch", "mutant:../x", "reference:nosuch", "nosuch:x", "\udcff"]
BAD_BOUNDS = ["x", "=", "=1", "max_epoch=", "max_epoch=-1", "max_epoch=abc", "max_epoch=nan", "max_epoch=1e9",
              "nosuch=1", "voters=0", "voters=-3", "voters=1000000000", "max_epoch=99999999999999999999",
              "symmetry=maybe", "max_epoch=1=2", "\udcff=1"]
JUNK = ["--nosuch", "-x", "--", "--json", "--help-me", "\udcff", "", "-", "--seed", "--out"]


@dataclass
class Files:
    """Paths an argument list may name (made once per run)."""

    root: Path
    cx: Path
    itf: Path
    paths: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        blocker = self.root / "a-file"
        blocker.write_text("")
        garbage = self.root / "garbage.yml"
        garbage.write_bytes(b"\xff: [")
        self.paths = [str(self.cx), str(self.itf), str(self.root), str(self.root / "missing.json"), str(blocker),
                      str(blocker / "sub"), str(garbage), "/dev/null", "", "\udcff", str(self.root / ("x" * 300))]


def _with(rng: random.Random, argv: list[str], flag: str, pool: list[str]) -> list[str]:
    return [*argv, flag, rng.choice(pool)]


def hostile_argv(rng: random.Random, files: Files) -> list[str]:
    """A cheap base command of some verb with one to three hostile changes."""
    out = str(files.root / "out")
    p = rng.choice(PROTOCOLS)
    bases: list[tuple[list[str], list[Callable[[list[str]], list[str]]]]] = [
        (["explore", p, "--max-states", "30"],
         [lambda a: _with(rng, a, "--variant", BAD_NAMES), lambda a: _with(rng, a, "--max-states", BAD_COUNTS),
          lambda a: [*a, rng.choice(BAD_BOUNDS)], lambda a: [a[0], rng.choice(BAD_NAMES), *a[2:]]]),
        (["simulate", p, "--steps", "5", "--traces", "1"],
         [lambda a: _with(rng, a, "--steps", BAD_COUNTS), lambda a: _with(rng, a, "--traces", BAD_COUNTS),
          lambda a: _with(rng, a, "--seed", BAD_SEEDS), lambda a: _with(rng, a, "--out", files.paths),
          lambda a: [*a, rng.choice(BAD_BOUNDS)], lambda a: _with(rng, a, "--variant", BAD_NAMES)]),
        (["conform", p, "--target", "reference", "--examples", "1", "--steps", "3", "--out", out],
         [lambda a: _with(rng, a, "--target", BAD_TARGETS), lambda a: _with(rng, a, "--timeout", BAD_SECONDS),
          lambda a: _with(rng, a, "--time-limit", BAD_SECONDS), lambda a: _with(rng, a, "--out", files.paths[4:6]),
          lambda a: _with(rng, a, "--examples", BAD_COUNTS[:6]), lambda a: _with(rng, a, "--model-variant", BAD_NAMES),
          lambda a: _with(rng, a, "--set", BAD_BOUNDS), lambda a: _with(rng, a, "--accept", [*BAD_NAMES, "@/dev/null",
                                                                                              "@" + files.paths[3]]),
          lambda a: [a[0], rng.choice(BAD_NAMES), *a[2:]]]),
        (["replay", str(files.cx), "--target", "reference"],
         [lambda a: _with(rng, a, "--target", BAD_TARGETS), lambda a: _with(rng, a, "--timeout", BAD_SECONDS),
          lambda a: [a[0], rng.choice(files.paths), *a[2:]], lambda a: a[:2]]),
        (["explain", str(files.itf)],
         [lambda a: _with(rng, a, "--html", files.paths), lambda a: _with(rng, a, "--violation", BAD_COUNTS),
          lambda a: _with(rng, a, "--trace", BAD_NAMES), lambda a: [a[0], rng.choice(files.paths)]]),
        (["tla", "check", p, rng.choice(BAD_BOUNDS[:-4])],
         [lambda a: _with(rng, a, "--timeout", BAD_SECONDS), lambda a: _with(rng, a, "--workers", BAD_COUNTS),
          lambda a: [*a[:2], rng.choice(BAD_NAMES), *a[3:]]]),
        (["prove", "NO-SUCH-OBLIGATION"], [lambda a: [*a, rng.choice(BAD_NAMES)]]),
        (["targets", "--json"], [lambda a: [*a, rng.choice(JUNK)]]),
        (["deviations", p, "--json"], [lambda a: [a[0], rng.choice(BAD_NAMES), *a[2:]]]),
        (["docs", "build", "--config", rng.choice(files.paths[2:])],
         [lambda a: _with(rng, a, "--out", files.paths), lambda a: [*a, "--json"]]),
        # validate: local[0] starts a JVM that fails (clikit.check_spark_master catches it; the
        # validate command, helper perf's, is to call it), so not in this in-process run.
        (["validate", files.paths[3], "--protocol", p],
         [lambda a: _with(rng, a, "--master", ["bogus", "", "spark://", "\udcff"]),
          lambda a: _with(rng, a, "--protocol", BAD_NAMES)]),
    ]
    argv, changes = rng.choice(bases)
    for _ in range(rng.randrange(1, 4)):
        # Not for validate: a junk "" input is the current directory, a real Spark run.
        junk = [] if argv[0] == "validate" else [lambda a: [*a, rng.choice(JUNK)]]
        argv = rng.choice([*changes, *junk])(list(argv))
    return argv


# -- running a case -----------------------------------------------------------------------------------------


# Exit codes seen, by verb (for the benchmark's report: how deep the cases got).
OUTCOMES: Counter[str] = Counter()


def run_main(argv: list[str]) -> tuple[int, str, str]:
    """``kspec ARGV`` in process: exit code, stdout, stderr. An exception other than SystemExit
    escaping ``main`` is reported as exit -1 with the exception on stderr."""
    out, err = io.StringIO(), io.StringIO()
    code = -1
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else -1)
        except BaseException as exc:
            err.write(f"escaped: {type(exc).__name__}: {exc}\n")
    OUTCOMES[f"{argv[0] if argv else ''} exit {code}"] += 1
    return code, out.getvalue(), err.getvalue()


def judge(argv: list[str], code: int, out: str, err: str) -> str | None:
    """None when the outcome keeps the CLI contract, else what broke it."""
    shown = " ".join(repr(a)[:60] for a in argv)
    if "internal error" in err or "Traceback" in err or "Traceback" in out or "escaped:" in err:
        return f"kspec {shown}: {err.strip()[:300]}"
    if code not in (0, 1, 2):
        return f"kspec {shown}: exit {code}"
    if code == 2 and err.strip() and not out.startswith("Usage:"):
        lines = err.strip().splitlines()
        if len(lines) != 1 or not lines[0].startswith("kspec"):
            return f"kspec {shown}: exit 2 with {len(lines)} lines on stderr: {err.strip()[:300]}"
    return None


def check_file(kind: str, data: bytes, work: Path) -> list[str]:
    """Every reader and command that takes a file, on ``data``; the failures."""
    failures: list[str] = []
    if kind.startswith("tlc") or kind == "any":
        text = data.decode("utf-8", errors="replace")
        for reader in (read_state_dump, read_simulation_trace, lambda t: list(iter_error_traces(t))):
            try:
                reader(text)
            except TLCOutputError:
                pass
            except Exception as exc:
                failures.append(f"TLC reader on {kind}: {type(exc).__name__}: {str(exc)[:200]}")
        if kind != "any":
            return failures
    path = work / f"case-{kind}.json"
    path.write_bytes(data)
    for argv in (["explain", str(path), "--json"], ["replay", str(path), "--target", "reference", "--json"],
                 ["replay", str(path)]):
        code, out, err = run_main(argv)
        problem = judge(argv, code, out, err)
        if problem:
            failures.append(problem)
    return failures


def check_argv(argv: list[str]) -> list[str]:
    code, out, err = run_main(argv)
    problem = judge(argv, code, out, err)
    return [problem] if problem else []


def no_stray_files(before: set[Path], root: Path) -> list[str]:
    """Files a case wrote outside ``root`` would be found by the caller; inside, only known ones."""
    return [str(p) for p in set(root.rglob("*")) - before if "out" not in p.parts and not p.name.startswith("case-")]


if __name__ == "__main__":  # pragma: no cover - a quick look at one case
    print(hostile_argv(random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0),
                       Files(Path("/tmp"), Path("/tmp/cx"), Path("/tmp/itf"))))
