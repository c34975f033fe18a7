"""A child process spoken to in lines: stdin writes, stdout read with ``select``, stderr kept.

The harness must never block on a target. Stdout is read only when ``select`` says bytes are
there, against a deadline, so a child that hangs (or writes half a line) costs at most the
timeout. Stderr is drained by a daemon thread, so a chatty child never blocks on a full pipe;
its last lines are kept for error messages (ADAPTER-STDERR). The child runs in its own session
so :meth:`LineProcess.kill` also reaches anything it spawned (a shell wrapper's children would
otherwise keep the pipes open).
"""

from __future__ import annotations

import collections
import contextlib
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence

STDERR_KEEP = 20        # lines of the child's stderr kept in memory
STDERR_SHOWN = 5        # of which the last ones go into an error message
STDERR_LINE_CHARS = 200


class ChildExited(Exception):
    """The child closed stdout (it exited, or is exiting); ``status`` is its exit status or None."""

    def __init__(self, status: int | None) -> None:
        super().__init__(f"exited with status {status}" if status is not None else "closed its stdout")
        self.status = status


class ChildTimeout(Exception):
    """No line arrived within the timeout."""


class LineProcess:
    """One running child process: write lines to its stdin, wait for lines from its stdout."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str] | None = None, cwd: str | None = None,
                 echo_stderr: bool = False) -> None:
        """Start ``argv``; raises ``OSError`` when it cannot be started."""
        self.argv = list(argv)
        self.echo_stderr = echo_stderr
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_KEEP)
        self.proc = subprocess.Popen(
            self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=None if env is None else dict(env), cwd=cwd, start_new_session=True)
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self._err_thread = threading.Thread(target=self._read_stderr, args=(self.proc.stderr,), daemon=True,
                                            name=f"kspec-exec-stderr-{self.proc.pid}")
        self._err_thread.start()
        self._stdout_fd = self.proc.stdout.fileno()
        self._buffer = bytearray()
        self._eof = False

    # -- the stderr thread ------------------------------------------------------------------------

    def _read_stderr(self, stream: object) -> None:
        try:
            for raw in iter(stream.readline, b""):  # type: ignore[attr-defined]
                text = raw.decode("utf-8", "replace").rstrip("\r\n")
                self._stderr.append(text)
                if self.echo_stderr:
                    print(f"[{os.path.basename(self.argv[0])}] {text}", file=sys.stderr, flush=True)
        except (OSError, ValueError):
            pass
        finally:
            with contextlib.suppress(OSError, ValueError):
                stream.close()  # type: ignore[attr-defined]

    # -- I/O -----------------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None and not self._eof

    def send(self, line: bytes) -> None:
        """Write one line (``line`` ends with a newline) and flush; ChildExited when the pipe broke."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line)
            self.proc.stdin.flush()
        except (BrokenPipeError, ConnectionResetError, ValueError, OSError):
            raise ChildExited(self._status_after_eof()) from None

    def receive(self, timeout: float) -> bytes:
        """The next stdout line (with its newline). ChildTimeout / ChildExited otherwise.

        Reads happen here, on the caller's thread, with ``select``: no thread hand-off per answer
        (a reader thread and a queue cost about twice the round trip).
        """
        deadline = time.monotonic() + timeout
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end + 1])
                del self._buffer[:end + 1]
                return line
            if self._eof:
                raise ChildExited(self._status_after_eof())
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ChildTimeout()
            ready, _, _ = select.select([self._stdout_fd], [], [], remaining)
            if not ready:
                raise ChildTimeout()
            try:
                chunk = os.read(self._stdout_fd, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self._eof = True
            self._buffer += chunk

    def _status_after_eof(self) -> int | None:
        # Stdout closed usually means the process is exiting; give it a moment to be reaped
        # so the error can name the exit status.
        try:
            return self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return None

    # -- ending --------------------------------------------------------------------------------

    def stderr_tail(self, lines: int = STDERR_SHOWN) -> list[str]:
        """The last ``lines`` lines the child wrote to stderr, each cut to a readable length."""
        # The stderr thread may still be draining what a dying child wrote last.
        if self.proc.poll() is not None:
            self._err_thread.join(timeout=0.5)
        tail = list(self._stderr)[-lines:] if lines > 0 else []
        return [t if len(t) <= STDERR_LINE_CHARS else t[:STDERR_LINE_CHARS] + "..." for t in tail]

    def kill(self) -> None:
        """Kill the child and everything in its session; reap it."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5.0)
        self._close_pipes()

    def finish(self, grace: float) -> int | None:
        """Close stdin (the child's cue to exit), wait up to ``grace`` seconds, then kill."""
        assert self.proc.stdin is not None
        with contextlib.suppress(OSError, ValueError):
            self.proc.stdin.close()
        deadline = time.monotonic() + grace
        while self.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        if self.proc.poll() is None:
            self.kill()
        return self.proc.returncode

    def _close_pipes(self) -> None:
        # Not stderr: it belongs to its reader thread, which closes it at EOF (closing a
        # buffered reader another thread is blocked in is not safe).
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()
