"""ExecTarget against real misbehaving child processes: every failure is a TargetError naming the
step and the reason, the child is killed, and nothing hangs (spec/adapter-protocol.md)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from kspec.conformance.adapters.base import TargetError
from kspec.conformance.targets.exec import ExecTarget, make_exec_target

SCRIPT = Path(__file__).parent / "testdata" / "misbehaving_target.py"
WRITE = {"type": "WriteRequest", "group_id": "g", "topic_id": "T", "partition": 0}


def target(mode: str, at: int = 1, timeout: float = 5.0) -> ExecTarget:
    return ExecTarget([sys.executable, str(SCRIPT), mode, "--at", str(at)], "share", timeout=timeout)


def gone(pid: int) -> bool:
    """True when ``pid`` no longer runs (absent, or a zombie nobody reaped yet)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def fail_at(t: ExecTarget, steps: int) -> tuple[TargetError, int, float]:
    """Start node 0, step until the target fails; the error, the child's pid and the seconds taken."""
    inst = t.start(0, {})
    assert t._child is not None
    pid = t._child.proc.pid
    began = time.monotonic()
    for n in range(1, steps + 1):
        try:
            inst.step({**WRITE, "n": n})
        except TargetError as err:
            return err, pid, time.monotonic() - began
    raise AssertionError(f"no TargetError within {steps} steps")


def test_good_target_answers_every_step_and_closes() -> None:
    t = target("good")
    inst = t.start(3, {"snapshot_limit": 1})
    assert inst.initial_observation == {"node": 3, "steps": 0}
    for n in range(1, 4):
        result = inst.step({**WRITE, "n": n})
        assert result.outputs == [{**WRITE, "n": n}]
        assert result.observation == {"node": 3, "steps": n}
    assert t.hello["version"] == 1
    assert t._child is not None
    proc = t._child.proc
    inst.close()
    t.close()
    assert proc.returncode == 0  # it exited on the session close, it was not killed


def test_exit_mid_run_names_step_status_and_stderr() -> None:
    err, pid, _ = fail_at(target("exit", at=2), 5)
    msg = str(err)
    assert "step 2: process exited with status 3 before answering" in msg
    assert "(node 0, WriteRequest)" in msg
    assert "boom: giving up on purpose" in msg
    assert msg.startswith(sys.executable)
    assert "\n" not in msg
    assert gone(pid)


def test_hang_times_out_and_kills() -> None:
    err, pid, seconds = fail_at(target("hang", at=3, timeout=0.5), 5)
    assert "step 3: no answer within 0.5 s, killed" in str(err)
    assert "about to hang" in str(err)
    assert seconds < 5  # the timeout, not the child's hour of sleep
    assert gone(pid)


def test_half_a_line_then_hang_times_out() -> None:
    err, pid, _ = fail_at(target("partial", timeout=0.5), 2)
    assert "step 1: no answer within 0.5 s, killed" in str(err)
    assert gone(pid)


def test_hang_kills_the_childs_own_children() -> None:
    err, pid, _ = fail_at(target("spawn-hang", timeout=1.0), 2)
    assert "step 1: no answer within 1 s, killed" in str(err)
    grandchild = int(str(err).split("grandchild ")[1].split()[0])
    deadline = time.monotonic() + 5
    while not gone(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(pid) and gone(grandchild)


@pytest.mark.parametrize(("mode", "reason"), [
    ("malformed", "step 2: malformed answer (not JSON): 'this is not json'"),
    ("not-object", "step 2: malformed answer (not a JSON object)"),
    ("wrong-id", "step 2: answered id 4, expected 3"),
    ("no-observation", "step 2: malformed answer: 'observation' is missing or not an object"),
])
def test_malformed_answers_kill_the_child(mode: str, reason: str) -> None:
    t = target(mode, at=2)
    err, pid, _ = fail_at(t, 3)
    assert reason in str(err)
    assert gone(pid)
    assert t._child is None


def test_error_answer_keeps_the_process() -> None:
    t = target("error", at=1)
    inst = t.start(0, {})
    with pytest.raises(TargetError, match=r"step 1: target error: WriteRequest is not implemented"):
        inst.step(WRITE)
    assert t._child is not None and t._child.alive
    assert inst.step(WRITE).observation == {"node": 0, "steps": 2}
    t.close()


def test_after_a_kill_old_nodes_are_refused_and_start_relaunches() -> None:
    t = target("exit", at=1)
    inst = t.start(0, {})
    with pytest.raises(TargetError, match="step 1: process exited"):
        inst.step(WRITE)
    with pytest.raises(TargetError, match="the process serving node 0 was killed"):
        inst.step(WRITE)
    fresh = t.start(0, {})  # a new process; its first step succeeds (the script fails at its step 1)
    assert fresh.initial_observation == {"node": 0, "steps": 0}
    with pytest.raises(TargetError, match="step 1: process exited"):
        fresh.step(WRITE)  # the new example's step count starts again at 1
    t.close()


def test_version_mismatch_at_hello() -> None:
    with pytest.raises(TargetError, match=r": hello: speaks adapter protocol version 2, kspec speaks 1"):
        target("version").start(0, {})


def test_protocol_not_implemented_at_hello() -> None:
    t = ExecTarget([sys.executable, str(SCRIPT), "good"], "raft")
    with pytest.raises(TargetError, match=r"hello: does not implement protocol 'raft' \(implements share\)"):
        t.start(0, {})


def test_missing_program() -> None:
    with pytest.raises(TargetError, match=r"^/nonexistent/target: cannot start: No such file or directory$"):
        ExecTarget("/nonexistent/target", "share").start(0, {})


def test_close_kills_a_program_that_lingers() -> None:
    t = target("linger", timeout=0.5)
    inst = t.start(0, {})
    inst.step(WRITE)
    assert t._child is not None
    proc = t._child.proc
    began = time.monotonic()
    with pytest.raises(TargetError, match=r"close of node 0: no answer within 0.5 s, killed"):
        inst.close()
    t.close()
    assert time.monotonic() - began < 5
    assert proc.returncode is not None and proc.returncode < 0  # killed by a signal


def test_make_exec_target_splits_like_a_shell(tmp_path: Path) -> None:
    spaced = tmp_path / "a target.py"
    spaced.write_text(SCRIPT.read_text())
    t = make_exec_target(f"exec:{sys.executable} '{spaced}' good", "share")
    assert t.argv == [sys.executable, str(spaced), "good"]
    assert t.name == f"exec:{sys.executable} '{spaced}' good"
    assert t.protocol == "share"
    assert t.start(0, {}).step(WRITE).observation == {"node": 0, "steps": 1}
    t.close()
    with pytest.raises(ValueError, match="empty command"):
        make_exec_target("exec:  ", "share")
    with pytest.raises(ValueError, match="No closing quotation"):
        make_exec_target("exec:prog 'unterminated", "share")


def test_no_child_left_behind() -> None:
    """Every test above closed or killed what it started: no child of this process runs the script."""
    mine = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().decode(errors="replace")
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        if ppid == os.getpid() and str(SCRIPT) in cmd and not gone(int(entry)):
            mine.append(cmd)
    assert mine == []


def test_hello_declares_unsupported_categories() -> None:
    """An exec: target declines driver categories in its hello (``"unsupported"``), as a python:
    target's ``unsupported``; anything but a list of strings is a malformed hello."""
    t = target("declines")
    try:
        assert t.unsupported == frozenset({"summary"})
    finally:
        t.close()
    good = target("good")
    try:
        assert good.unsupported == frozenset()
    finally:
        good.close()
    with pytest.raises(TargetError, match=r"hello: malformed answer: 'unsupported' is not a list of strings"):
        target("declines-badly").start(0, {})
