"""Expanding ``kspec validate`` inputs: files, directories and globs of JSON Lines or ITF."""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field
from pathlib import Path

from kspec.conformance.clikit import InputError

ITF_SUFFIXES = (".itf.json", ".json")
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".jsonl.gz")


@dataclass
class Inputs:
    """The trace files to read, by format, as absolute paths in a stable order."""

    jsonl: list[str] = field(default_factory=list)
    itf: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.jsonl) + len(self.itf)


def is_itf(path: str) -> bool:
    return path.endswith(ITF_SUFFIXES)


def _trace_files(directory: Path) -> list[Path]:
    found: list[Path] = []
    for root, dirs, files in os.walk(directory, onerror=_walk_error):
        dirs.sort()
        found.extend(Path(root) / f for f in sorted(files) if f.endswith(ITF_SUFFIXES + JSONL_SUFFIXES))
    return found


def _walk_error(err: OSError) -> None:
    raise InputError(f"cannot read directory {err.filename}: {err.strerror}")


def expand_inputs(args: list[str] | tuple[str, ...]) -> Inputs:
    """Files as given (``.json`` / ``.itf.json`` are ITF, anything else JSON Lines);
    directories searched recursively for ``*.jsonl``, ``*.ndjson``, ``*.json``; globs
    expanded. A missing file, an empty glob or an unreadable directory is an input error; a
    file found in a directory that turns out unreadable (a dangling link, a FIFO) is passed on,
    for the reader to quarantine."""
    out = Inputs()
    seen: set[str] = set()

    def add(path: Path, found: bool = False) -> None:
        resolved = str(path.resolve())
        if resolved in seen:
            return
        seen.add(resolved)
        if not found and not os.access(resolved, os.R_OK):
            raise InputError(f"cannot read input file {path}")
        (out.itf if is_itf(resolved) else out.jsonl).append(resolved)

    for arg in args:
        matched = glob.has_magic(arg) and not Path(arg).exists()
        if matched:
            matches = sorted(glob.glob(arg, recursive=True))
            if not matches:
                raise InputError(f"input {arg!r} matches no file")
            paths = [Path(m) for m in matches]
        else:
            paths = [Path(arg)]
        for path in paths:
            if path.is_dir():
                if not os.access(path, os.R_OK | os.X_OK):
                    raise InputError(f"cannot read directory {path}")
                files = _trace_files(path)
                if not files and len(paths) == 1:
                    raise InputError(f"directory {path} holds no trace files (*.jsonl, *.ndjson, *.json)")
                for f in files:  # one found unreadable (a dangling link...) is quarantined, not fatal
                    add(f, found=True)
            elif path.is_file() or matched:  # a glob's match that is no file is quarantined, not lost
                add(path, found=matched)
            elif path.exists():
                raise InputError(f"input {arg} is not a regular file or a directory")
            else:
                raise InputError(f"input {arg} does not exist")
    if not len(out):
        raise InputError("no trace files among the inputs")
    return out
