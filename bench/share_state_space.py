"""The share state space at the explorer's default bounds: `kspec explore share` (distinct states,
witnesses) and `kspec tla check share` at the same bounds (TLC's distinct states equal the
model's), each timed. Too slow for the default test run (tests/tla/test_tla_share.py checks
agreement at smaller bounds); the figures go to docs/performance.md.

    nice -n 10 python bench/share_state_space.py [name=value ...]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from kspec.model.catalog import get_protocol


def timed(cmd: list[str]) -> tuple[dict[str, object], float, float, int]:
    """(JSON output, wall seconds, child CPU seconds, exit code) of one kspec command."""
    before, start = os.times(), time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    after = os.times()
    cpu = (after.children_user + after.children_system) - (before.children_user + before.children_system)
    try:
        doc = json.loads(proc.stdout)
    except json.JSONDecodeError:
        doc = {"error": (proc.stderr.strip().splitlines() or ["(no output)"])[-1]}
    return doc, time.monotonic() - start, cpu, proc.returncode


def main() -> None:
    bounds = {b.name: b.default for b in get_protocol("share").bounds}
    bounds.update({k: int(v) for k, v in (a.split("=", 1) for a in sys.argv[1:])})
    args = [f"{k}={v}" for k, v in bounds.items()]
    print(f"bounds: {' '.join(args)}")
    doc, wall, cpu, code = timed(["kspec", "explore", "share", *args, "--json"])
    print(f"kspec explore share: exit {code}, {doc.get('distinct_states')} distinct states, complete "
          f"{doc.get('complete')}, violations {[v.get('name') for v in doc.get('violations', [])]}, "
          f"witnesses {doc.get('witnesses')}; {wall:.1f} s wall, {cpu:.1f} s CPU")
    doc, wall, cpu, code = timed(["kspec", "tla", "check", "share", *args, "--json", "--timeout", "3000"])
    print(f"kspec tla check share: exit {code} ({'equal' if code == 0 else 'DIFFERENT or failed'}), "
          f"{json.dumps({k: v for k, v in doc.items() if not isinstance(v, list | dict)})}; "
          f"{wall:.1f} s wall, {cpu:.1f} s CPU")
    sys.exit(code)


if __name__ == "__main__":
    main()
