"""The README's "Every command with its defaults", run exactly as written, from a scratch
directory (``docs build`` builds the project's own mkdocs.yml into site/ next to it, which git
ignores; ``conform`` would write a counterexample into the scratch directory). Minutes: the default explore and TLC
bounds are the full ones. Prints one JSON document: per command its exit code, wall seconds and
the key figures; exit 1 when any command does not exit 0.

    nice -n 10 python bench/readme_commands.py
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.readme_commands import readme_commands  # noqa: E402


def main() -> int:
    rows = []
    scratch = Path(tempfile.mkdtemp(prefix="kspec-readme-"))
    for argv in readme_commands():
        began = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "kspec.conformance.cli", *argv, "--json"], cwd=scratch,
                              capture_output=True, text=True)
        seconds = time.perf_counter() - began
        row: dict[str, object] = {"command": "kspec " + " ".join(argv), "exit": proc.returncode,
                                  "seconds": round(seconds, 1)}
        try:
            doc = json.loads(proc.stdout)
        except ValueError:
            row["stderr"] = proc.stderr.strip()[-300:]
        else:
            for key in ("equal", "tlc_distinct_states", "distinct_states", "verdict", "examples", "pages"):
                if isinstance(doc, dict) and key in doc:
                    row[key] = doc[key]
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    print(json.dumps({"machine": f"{platform.machine()}, {os.cpu_count()} cores", "commands": rows}, indent=2))
    return 0 if all(r["exit"] == 0 for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
