"""Reading JSON Lines input in bounded memory: plain files in byte-range splits, gzip files
whole, every line with its number, and every way a file can be damaged turned into a
quarantinable line instead of an exception.

A split owns the lines that *start* in its byte range ``[start, end)`` (Hadoop's rule), so the
splits of a file read every line exactly once. Lines end at ``\\n`` only; a line that still
holds a ``\\r`` (a CRLF line end, or a bare CR used as a line end) is damage, as is a line longer
than ``Limits.max_line_bytes`` (its first bytes are kept for the quarantine output, the rest is
skipped without being held), and one that is not UTF-8. A path that is no regular file (a
directory, a FIFO, a dangling link) or cannot be read is one damaged line. A gzip file is read
member after member; a corrupt or truncated member, or an expansion past
``Limits.expanded_limit`` (a gzip bomb), ends the file with one damaged line that names the
limit or the error (the partial line before it, if any, is that line). Pure and picklable:
this runs in Spark executors.
"""

from __future__ import annotations

import os
import stat
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

CHUNK = 1 << 20  # bytes read (or inflated) at a time
IN_CHUNK = 1 << 16  # compressed bytes given to the inflater at a time (an error loses at most their output)
KEEP = 4096  # bytes of an oversized line kept for the quarantine output


MAX_LINE_BYTES = 16 << 20
MAX_RATIO = 200
MIN_EXPANDED_BYTES = 1 << 30


@dataclass(frozen=True, slots=True)
class Limits:
    """What one input may cost. A gzip file may expand to ``max(min_expanded_bytes,
    max_ratio x its compressed size)`` at most (deflate's own ceiling is about 1032:1)."""

    max_line_bytes: int = MAX_LINE_BYTES
    max_ratio: int = MAX_RATIO
    min_expanded_bytes: int = MIN_EXPANDED_BYTES

    def expanded_limit(self, compressed: int) -> int:
        return max(self.min_expanded_bytes, self.max_ratio * compressed)


@dataclass(frozen=True, slots=True)
class Split:
    """Lines of ``file`` starting in ``[start, end)``; a gzip file is one split, ``end = -1``."""

    index: int
    file: str
    start: int
    end: int


def plan_splits(files: list[str], split_bytes: int) -> list[Split]:
    """The splits of the files, in file order (an empty plain file still gets one split)."""
    splits: list[Split] = []
    for path in files:
        if path.endswith(".gz"):
            splits.append(Split(len(splits), path, 0, -1))
            continue
        try:
            size = os.path.getsize(path)
        except OSError:  # gone, or a dangling link: its one split reports it (read_split)
            size = 0
        start = 0
        while True:
            end = min(size, start + split_bytes)
            splits.append(Split(len(splits), path, start, end))
            if end >= size:
                break
            start = end
    return splits


def owned_bytes(split: Split, limits: Limits) -> bytes | None:
    """The bytes of the lines a plain split owns, read at once (each line ending in ``\\n`` but
    perhaps the file's last): what :func:`read_split` reads, as one block, for the engine's
    bulk path (``engine``) over a clean split. None when the split is a gzip file, not a
    regular file, unreadable, shrank since the plan, or a line at either end of it runs on past
    ``max_line_bytes`` (no line may start in it then): the caller then reads it line by line.
    The owned range is found first, so that the block is read into one buffer, never copied."""
    if split.end < 0 or split.end <= split.start:
        return None
    try:
        if not stat.S_ISREG(os.stat(split.file).st_mode):
            return None
        with open(split.file, "rb") as f:
            # The line that starts before the split (or exactly at it, after a "\n") is the
            # previous split's: the first owned line starts after the first "\n" at or after
            # start - 1; the last owned line runs to the first "\n" at or after end - 1.
            begin = 0 if split.start == 0 else _after_newline(f, split.start - 1, limits.max_line_bytes)
            if begin is None or begin > split.end:
                return None
            if begin == split.end:
                return b""
            stop = _after_newline(f, split.end - 1, limits.max_line_bytes)
            if stop is None:
                return None
            f.seek(begin)
            data = f.read(stop - begin)
            if len(data) != stop - begin:
                return None  # the file shrank since the plan
            return data
    except OSError:
        return None


def _after_newline(f: BinaryIO, pos: int, max_line: int) -> int | None:
    """The offset just after the first ``\\n`` at or after ``pos`` (the file's end when there
    is none), or None when none comes within ``max_line`` bytes (a line too long to hold)."""
    f.seek(pos)
    seen = 0
    while True:
        block = f.read(1 << 16)
        if not block:
            return pos + seen
        nl = block.find(b"\n")
        if nl >= 0:
            return pos + seen + nl + 1
        seen += len(block)
        if seen > max_line:
            return None


def has_long_line(data: bytes, max_line: int) -> bool:
    """Whether a ``\\n``-separated line of ``data`` is longer than ``max_line`` bytes (in about
    ``len(data) / max_line`` searches, not one per line)."""
    pos, size = 0, len(data)
    while size - pos > max_line:
        nl = data.rfind(b"\n", pos, pos + max_line + 1)
        if nl < 0:
            return True
        pos = nl + 1
    return False


# (raw line without its "\n", or its first KEEP bytes; the damage reason or None)
Line = tuple[bytes, str | None]


def read_split(split: Split, limits: Limits) -> Iterator[Line]:
    """Every line the split owns, in order, with its damage (None when the bytes are a line)."""
    try:
        mode = os.stat(split.file).st_mode
        if not stat.S_ISREG(mode):  # a directory, a FIFO (opening it could block forever), a device
            yield b"", f"not a regular file ({_file_kind(mode)})"
            return
        if split.end < 0:
            yield from _gzip_lines(split.file, limits)
        else:
            yield from _plain_lines(split, limits)
    except OSError as err:  # the file went away or became unreadable mid-run
        yield b"", f"unreadable file: {err.strerror or err}"


def _file_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device"


def _plain_lines(split: Split, limits: Limits) -> Iterator[Line]:
    with open(split.file, "rb") as f:
        pos = split.start
        skip_first = False
        if split.start > 0:
            # The line that starts before this split (or exactly at it, after a "\n") belongs to
            # the previous split: skip through the first "\n" at or after start - 1.
            f.seek(split.start - 1)
            pos = split.start - 1
            skip_first = True

        def chunks() -> Iterator[bytes]:
            while True:
                block = f.read(CHUNK)
                if not block:
                    return
                yield block

        for start, line in _split_lines(chunks(), limits.max_line_bytes, pos):
            if skip_first:
                skip_first = False
                continue
            if start >= split.end:
                return
            yield line


def _gzip_lines(path: str, limits: Limits) -> Iterator[Line]:
    compressed = os.path.getsize(path)
    budget = limits.expanded_limit(compressed)
    failure: list[str] = []

    def chunks() -> Iterator[bytes]:
        expanded = 0
        with open(path, "rb") as f:
            inflater = zlib.decompressobj(wbits=31)
            data = b""  # compressed bytes not yet taken by the inflater
            started = False  # a member has begun: bytes went into the inflater
            at_end = False
            while True:
                if not data and not at_end:
                    data = f.read(IN_CHUNK)
                    at_end = not data
                if at_end and not started:
                    return
                started = True
                try:
                    out = inflater.decompress(data, CHUNK)  # at most CHUNK bytes: a bomb stays small
                except zlib.error as err:
                    failure.append(f"corrupt gzip member: {err}")
                    return
                if inflater.eof:  # the member ended; what follows is the next member
                    data = inflater.unused_data  # (unconsumed_tail repeats it at eof)
                    inflater = zlib.decompressobj(wbits=31)
                    started = False
                else:
                    data = inflater.unconsumed_tail
                    if at_end and not out and not data:
                        failure.append("truncated gzip member (the file ends inside it)")
                        return
                expanded += len(out)
                if expanded > budget:
                    failure.append(f"gzip expands past {budget} bytes (limit max({limits.min_expanded_bytes}, "
                                   f"{limits.max_ratio} x {compressed} compressed bytes)); the rest is not read")
                    return
                if out:
                    yield out

    tail: list[Line] = []
    for _, line in _split_lines(chunks(), limits.max_line_bytes, 0, tail):
        yield line
    if failure:
        yield (tail[0][0] if tail else b""), failure[0]
    elif tail:
        yield tail[0]


def _split_lines(chunks: Iterator[bytes], max_line: int, pos: int,
                 tail: list[Line] | None = None) -> Iterator[tuple[int, Line]]:
    """(start offset, line) for each ``\\n``-terminated line of the stream that starts at offset
    ``pos``; the unterminated last line is yielded too, or handed back in ``tail`` when given
    (the gzip reader decides what it is). Never holds more than ``max_line`` bytes of a line."""
    data = b""  # unread bytes, from stream offset `off`, starting at a line start
    off = pos
    over = -1  # >= 0: the current line is oversized and this many of its bytes were seen
    over_start, kept = 0, b""
    for block in chunks:
        if over >= 0:
            nl = block.find(b"\n")
            if nl < 0:
                over += len(block)
                continue
            over += nl
            yield over_start, (kept, _oversized(over, max_line))
            off = over_start + over + 1
            over = -1
            data = block[nl + 1:]
        else:
            data = data + block if data else block
        at = 0
        if data.isascii() and b"\r" not in data:  # every line in it is clean (_checked): split at once
            parts = data.split(b"\n")
            parts.pop()  # the unterminated rest
            for part in parts:
                if len(part) > max_line:
                    yield off + at, (part[:KEEP], _oversized(len(part), max_line))
                else:
                    yield off + at, (part, None)
                at += len(part) + 1
        while True:
            nl = data.find(b"\n", at)
            if nl < 0:
                break
            if nl - at > max_line:
                yield off + at, (data[at:min(nl, at + KEEP)], _oversized(nl - at, max_line))
            else:
                yield off + at, _checked(data[at:nl])
            at = nl + 1
        if len(data) - at > max_line:
            over, over_start, kept = len(data) - at, off + at, data[at:at + KEEP]
            data = b""
        else:
            data = data[at:]
            off += at
    last: tuple[int, Line] | None = None
    if over >= 0:
        last = over_start, (kept, _oversized(over, max_line))
    elif data:
        last = off, _checked(data)
    if last is not None:
        if tail is not None:
            tail.append(last[1])
        else:
            yield last


def _checked(raw: bytes) -> Line:
    if not raw.isascii():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as err:
            return raw, f"invalid UTF-8 at byte {err.start} of the line"
    if b"\r" in raw:
        if raw.endswith(b"\r") and b"\r" not in raw[:-1]:
            return raw, "CRLF line end (lines must end in LF alone)"
        return raw, "bare CR in line (lines must end in LF alone)"
    return raw, None


def _oversized(length: int, max_line: int) -> str:
    return f"line longer than {max_line} bytes (limit --max-line-bytes; {length} bytes)"
