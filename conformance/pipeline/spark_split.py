"""A split read in bulk: the lines and trace ids of a clean split at C speed, for the Spark
engine's tasks (and its cheap first pass).

``reader.read_split`` and ``records.trace_key`` handle every kind of damage line by line; most
splits have none. A split is *clean* when the bytes it owns (the lines starting in ``[start,
end)``, Hadoop's rule, as ``reader`` reads them) are ASCII without a CR, no line is longer
than ``Limits.max_line_bytes``, no byte is a backslash, and every non-blank line opens as the
trace writer writes it (``{"trace": "<printable ASCII>"``) and names ``"trace"`` exactly once:
then every line is what ``read_split`` gives without damage and its key is the id the opening
names (``trace_key``'s own shortcut, checked here for the block at once). Anything else (a gzip
file, a file that is not regular or not readable, one damaged byte) returns None and the
caller takes the line-by-line path. ``tests/pipeline/test_pipeline_spark_split.py`` holds both
readings equal on clean and damaged files cut at many split sizes.
"""

from __future__ import annotations

import os
import stat

from kspec.conformance.pipeline.reader import CHUNK, Limits, Split
from kspec.conformance.pipeline.records import _WRITTEN_TRACE_RE as _OPENING

# (1-based offset of the line within the split, raw line, trace id); blank lines left out
KeyedLine = tuple[int, bytes, str]


def _owned(split: Split, limits: Limits) -> bytes | None:
    """The bytes of the lines the split owns (each ending in ``\\n`` but perhaps the file's
    last), or None when the split is not a plain regular file read without surprise."""
    if split.end < 0 or split.end <= split.start:
        return None
    try:
        if not stat.S_ISREG(os.stat(split.file).st_mode):
            return None
        with open(split.file, "rb") as f:
            begin = split.start - 1 if split.start > 0 else 0
            f.seek(begin)
            data = f.read(split.end - begin)
            if len(data) != split.end - begin:
                return None  # the file shrank since the plan
            # The last owned line runs to the first "\n" at or after end - 1.
            if not data.endswith(b"\n"):
                more = []
                seen = 0
                while True:
                    block = f.read(CHUNK)
                    if not block:
                        break
                    nl = block.find(b"\n")
                    if nl >= 0:
                        more.append(block[:nl + 1])
                        break
                    more.append(block)
                    seen += len(block)
                    if seen > limits.max_line_bytes:
                        return None
                data += b"".join(more)
    except OSError:
        return None
    if split.start > 0:
        # The line that starts before the split (or exactly at it, after a "\n") is the
        # previous split's: drop through the first "\n" at or after start - 1.
        nl = data.find(b"\n")
        if nl < 0 or nl + 1 > split.end - begin:
            return None  # no line starts in the split (one long line crosses it): rare
        data = data[nl + 1:]
    return data


def clean_lines(split: Split, limits: Limits) -> tuple[int, list[KeyedLine]] | None:
    """(the number of lines the split owns, its non-blank lines with their offsets and trace
    ids) when the split is clean, else None."""
    data = _owned(split, limits)
    if data is None or not data.isascii() or b"\r" in data or b"\\" in data:
        return None
    parts = data.split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()  # the terminator of the last line, not a line
    if parts and max(map(len, parts)) > limits.max_line_bytes:
        return None
    numbered = [(i, p) for i, p in enumerate(parts, start=1) if p.strip()]
    match = _OPENING.match
    opened = [match(raw) for _, raw in numbered]
    if not all(opened) or data.count(b'"trace"') != len(opened):
        return None  # a line that does not open with its id, or names "trace" twice
    # Every non-blank line opens with its id, and "trace" appears once per line: the id is the line's key.
    return len(parts), [(i, raw, m.group(1).decode("ascii"))  # type: ignore[union-attr]
                        for (i, raw), m in zip(numbered, opened, strict=True)]
