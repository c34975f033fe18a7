"""Hostile input (issue #24): every case becomes a one-line error naming the input and the place
(exit 2) or a verdict ``error`` naming the step; never "internal error", never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from kspec.conformance.clikit import InputError, check_spark_master
from kspec.conformance.counterexample import read_counterexample
from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets.exec import DEFAULT_STARTUP_TIMEOUT, ExecTarget, harness_timeout, make_exec_target
from kspec.conformance.targets.mutants import CATALOGUE
from tests.cli_run import run_cli

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "exec" / "testdata" / "misbehaving_target.py"


def one_line_error(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert "internal error" not in err and "Traceback" not in err
    for needle in needles:
        assert needle in err, err


# -- files that are not what they say -----------------------------------------------------------------------


@pytest.mark.parametrize("verb", [["replay"], ["explain"]])
@pytest.mark.parametrize("content, needle", [
    (b'{"#meta": {"kind": "kspec-counterexample"}, "x": "\xff\xfe"}', "not UTF-8 (byte 50, line 1"),
    (b"[" * 100_000 + b"]" * 100_000, "nested"),
    (b'{"a":' * 70 + b"1" + b"}" * 70, "nested more than 64 levels"),
    (b"1" * 5000, "not JSON"),
])
def test_unreadable_files(verb: list[str], content: bytes, needle: str, tmp_path: Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    code, _, err = run_cli([*verb, str(path)], capsys)
    one_line_error(code, err, str(path), needle)


@pytest.mark.parametrize("value, needle", [
    ({"#bigint": "12x"}, "#bigint '12x' is not a decimal integer"),
    ({"#bigint": 12}, "#bigint '12' is not a decimal integer"),
    ({"#bigint": "9" * 100}, "at most 60 digits"),
    ({"#set": {"a": 1}}, "#set is not a list"),
    ({"#map": [[1]]}, "#map[0]: not a [key, value] pair"),
    ({"#map": "x"}, "#map is not a list"),
    ({"#tup": 3}, "#tup is not a list"),
])
def test_malformed_itf_values(value: object, needle: str, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    doc = {"#meta": {"format": "ITF"}, "vars": ["x"], "states": [{"x": 1}, {"x": value}]}
    path = tmp_path / "trace.itf.json"
    path.write_text(json.dumps(doc))
    code, _, err = run_cli(["explain", str(path)], capsys)
    one_line_error(code, err, str(path), needle)
    cx = {"#meta": {"kind": "kspec-counterexample", "protocol": "raft", "target": "reference",
                    "config": {"voters": value}}, "states": []}
    path.write_text(json.dumps(cx))
    code, _, err = run_cli(["replay", str(path)], capsys)
    one_line_error(code, err, "#meta.config.voters", needle)


PRUNED_LOAD = ROOT / "tests" / "share" / "testdata" / "kafka_4.4_prune_forgets_leader_fence.itf.json"


@pytest.mark.parametrize("value, shown", [
    ("2", "'2'"), (-3, "-3"), ({"#bigint": "1" + "0" * 40}, "1" + "0" * 39), (2.5, "2.5"), ([2], "[2]"),
    (True, "True"), (4, "4"), (None, ""),
])
def test_replayed_share_load_with_a_bad_log_start_offset(value: object, shown: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A Load's ``log_start_offset`` is an offset into its records (0 to 3 here): anything else in
    a replayed file is an input error naming the step, before a target sees it."""
    doc = json.loads(PRUNED_LOAD.read_text())
    load = doc["states"][4]["input"]
    assert load["type"] == "Load" and load["log_start_offset"] == 2 and len(load["records"]) == 3
    if value is None:
        del load["log_start_offset"]  # absent: nothing pruned, a plain Load
    else:
        load["log_start_offset"] = value
    path = tmp_path / "cx.itf.json"
    path.write_text(json.dumps(doc))
    code, _, err = run_cli(["replay", str(path), "--target", "reference"], capsys)
    if value is None:
        assert code == 0, err
    else:
        one_line_error(code, err, str(path), "step 5: input.log_start_offset: " + shown, "from 0 to 3")


@pytest.mark.parametrize("verb", [["replay"], ["explain"]])
def test_reading_a_fifo_does_not_block(verb: list[str], tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    proc = subprocess.run([sys.executable, "-m", "kspec.conformance.cli", *verb, str(fifo)], capture_output=True,
                          text=True, timeout=120)
    one_line_error(proc.returncode, proc.stderr, str(fifo), "not a regular file")


@pytest.mark.parametrize("verb", [["replay"], ["explain"]])
def test_a_directory_or_missing_file(verb: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli([*verb, str(tmp_path)], capsys)
    one_line_error(code, err, str(tmp_path))
    code, _, err = run_cli([*verb, str(tmp_path / "missing.json")], capsys)
    one_line_error(code, err, "missing.json")


def test_events_file_with_a_bad_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "events.jsonl"
    good = json.dumps({"trace": "raft-0", "step": 0, "node": 1, "input": {"type": "Tick"}})
    path.write_text(good + "\n" + "[" * 200 + "\n")
    code, _, err = run_cli(["explain", str(path)], capsys)
    one_line_error(code, err, "line 2")


# -- flags --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "-1"])
@pytest.mark.parametrize("argv", [["conform", "raft", "--target", "reference", "--timeout"],
                                  ["conform", "raft", "--target", "reference", "--time-limit"],
                                  ["replay", "x.json", "--timeout"]])
def test_seconds_must_be_finite_and_positive(argv: list[str], value: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli([*argv, value], capsys)
    one_line_error(code, err)
    assert value in err


def test_unwritable_out_is_found_before_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "started"
    (tmp_path / "kspec_marker_target.py").write_text(textwrap.dedent(f"""
        from kspec.conformance.adapters.base import Target as Base
        from kspec.conformance.targets.registry import reference_target
        class Target(Base):
            protocol = "raft"
            name = "marker"
            def __init__(self):
                self.inner = reference_target("raft")
            def start(self, node, config):
                open({str(marker)!r}, "w").close()
                return self.inner.start(node, config)
            def close(self):
                self.inner.close()
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    blocker = tmp_path / "file"
    blocker.write_text("")
    for out in (blocker, blocker / "sub"):
        code, _, err = run_cli(["conform", "raft", "--target", "python:kspec_marker_target:Target", "--examples", "2",
                                "--out", str(out)], capsys)
        one_line_error(code, err, "--out", str(out))
        assert not marker.exists()
    code, _, err = run_cli(["simulate", "raft", "--out", str(blocker / "sub")], capsys)
    one_line_error(code, err, "--out")


# -- targets that misbehave ---------------------------------------------------------------------------------


PY_TARGETS = textwrap.dedent("""
    import sys, time
    from kspec.conformance.adapters.base import Target
    from kspec.conformance.targets.registry import reference_target

    class _Wrapped(Target):
        protocol = "raft"
        def __init__(self):
            self.inner = reference_target("raft")
        def start(self, node, config):
            return self.Instance(self.inner.start(node, config))
        def close(self):
            self.inner.close()

    class Exits(_Wrapped):
        name = "exits"
        class Instance:
            def __init__(self, inner):
                self.inner = inner
            def step(self, inp):
                sys.exit(7)

    class ExitsInFactory:
        def __init__(self):
            sys.exit(5)

    class Slow(_Wrapped):
        name = "slow"
        class Instance:
            def __init__(self, inner):
                self.inner = inner
            def step(self, inp):
                time.sleep(0.05)
                return self.inner.step(inp)
""")


@pytest.fixture
def py_targets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "kspec_hostile_targets.py").write_text(PY_TARGETS)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_python_target_calling_sys_exit_is_verdict_error(py_targets: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = py_targets / "out"
    code, stdout, err = run_cli(["conform", "raft", "--target", "python:kspec_hostile_targets:Exits", "--out",
                                 str(out), "--json"], capsys)
    doc = json.loads(stdout)
    assert code == 2 and doc["verdict"] == "error" and "sys.exit(7)" in doc["divergence"]["detail"]
    assert "failed at step 1" in err and len(err.strip().splitlines()) == 1
    code, _, err = run_cli(["conform", "raft", "--target", "python:kspec_hostile_targets:ExitsInFactory"], capsys)
    one_line_error(code, err, "SystemExit")


def test_time_limit_ends_the_run_with_the_partial_counterexample(py_targets: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = py_targets / "out"
    code, stdout, err = run_cli(["conform", "raft", "--target", "python:kspec_hostile_targets:Slow",
                                 "--time-limit", "1", "--out", str(out), "--json"], capsys)
    doc = json.loads(stdout)
    assert code == 2 and doc["verdict"] == "error" and doc["time_limit"] == {"seconds": 1.0, "reached": True}
    assert "kspec: error: time limit: 1 s reached at step" in err and "partial counterexample" in err
    assert 1 <= doc["examples"] < 10  # the default budget is hundreds of runs: the limit ended it
    assert doc["configurations"]["refused"] == 0  # the limit is never a refusal of a configuration
    meta, steps = read_counterexample(Path(doc["counterexample"]))
    assert meta["verdict"] == "error" and "time limit" in meta["divergence"]["detail"] and steps
    assert doc["divergence"]["detail"] == "time limit: 1 s reached"


def test_default_time_limit_is_in_the_report(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run_cli(["conform", "share", "--target", "reference", "--examples", "3", "--out", str(tmp_path),
                            "--json"], capsys)
    assert code == 0 and json.loads(out)["time_limit"] == {"seconds": 1800.0, "reached": False}


def test_hello_gets_the_30_seconds_the_stdio_spec_gives() -> None:
    spec = (ROOT / "spec" / "adapter-protocol.md").read_text()
    assert "`hello` gets 30 s" in spec and DEFAULT_STARTUP_TIMEOUT == 30.0
    target = make_exec_target("exec:true", "raft", timeout=0.5)
    assert target.startup_timeout == 30.0
    # The harness's own watchdog must not cut the hello short (it was --timeout + 5 s).
    assert harness_timeout(0.5) > DEFAULT_STARTUP_TIMEOUT and harness_timeout(60.0) > 60.0


def test_a_slow_hello_within_30_s_is_not_a_hang(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A target answering hello after 6 s, replayed with --timeout 0.5: the old harness watchdog
    (timeout + 5 s) called it a hang; the spec gives hello 30 s."""
    target = CATALOGUE["share-update-drops-state-epoch"].target()
    result = run_conformance("share", target, examples=50, steps=20, seed_value=0, out_dir=tmp_path, minimal=False)
    assert result.counterexample is not None
    cmd = f"exec:{sys.executable} {SCRIPT} slow-hello --hello-seconds 6"
    code, out, err = run_cli(["replay", result.counterexample, "--target", cmd, "--timeout", "0.5", "--json"], capsys)
    doc = json.loads(out)
    assert "hello" not in json.dumps(doc["divergence"]) and "hung" not in err
    assert doc["verdict"] == "diverges" and code == 1  # the fixed-answer target diverges, it does not hang


def test_exec_target_timeouts_are_finite() -> None:
    with pytest.raises(ValueError):
        ExecTarget(["true"], "raft", timeout=0)


# -- Spark master -------------------------------------------------------------------------------------------


def test_unreachable_spark_master_is_one_line() -> None:
    # A port nothing listens on: the check answers in well under Spark's minute of retries.
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(InputError, match="no Spark master answers"):
        check_spark_master(f"spark://127.0.0.1:{port}")
    with pytest.raises(InputError, match="not HOST:PORT"):
        check_spark_master("spark://nohostport")
    for bad in ("local[0]", "local[-1]", "local[x]", "localhost"):
        with pytest.raises(InputError, match="--master"):
            check_spark_master(bad)
    for good in ("local", "local[*]", "local[2]", "local[2,3]", "yarn"):
        check_spark_master(good)


def test_reachable_spark_master_passes() -> None:
    import socket

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        accepted = threading.Thread(target=lambda: server.accept()[0].close(), daemon=True)
        accepted.start()
        check_spark_master(f"spark://127.0.0.1:{port}")
        accepted.join(5)


def test_bad_spark_master_syntax_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events = tmp_path / "e.jsonl"
    events.write_text(json.dumps({"trace": "raft-0", "step": 0, "node": 1, "input": {"type": "Tick"}}) + "\n")
    code, _, err = run_cli(["validate", str(events), "--protocol", "raft", "--master", "bogus"], capsys)
    one_line_error(code, err, "--master 'bogus'")


# -- docs build ---------------------------------------------------------------------------------------------


def _tiny_site(root: Path, broken: bool) -> None:
    (root / "docs").mkdir()
    (root / "docs" / "index.md").write_text("# Home\n\n" + ("[gone](missing.md)\n" if broken else "hello\n"))
    (root / "mkdocs.yml").write_text("site_name: t\ndocs_dir: docs\nnav:\n  - Home: index.md\n")


@pytest.mark.parametrize("as_json", [[], ["--json"]])
def test_docs_build_json_keeps_strict(as_json: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _tiny_site(tmp_path, broken=True)
    code, out, err = run_cli(["docs", "build", "--config", str(tmp_path / "mkdocs.yml"), "--out",
                              str(tmp_path / "site"), *as_json], capsys)
    assert code == 2 and "mkdocs build --strict" in err and out == ""


def test_docs_build_relative_config(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _tiny_site(tmp_path, broken=False)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(["docs", "build", "--config", "mkdocs.yml", "--out", "out", "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["pages"] >= 1 and (tmp_path / "out" / "index.html").exists()
