"""The replay's property checks on one long trace: the incremental checks
(``NodeReplay._check``) against the whole-state checks they replaced (``WholeState`` in
``tests/pipeline/test_pipeline_checks.py``), on the same observation stream, in one run.

    nice -n 10 python bench/checks_bench.py [--entries 2000] [--events 20000]

The stream: three voters and a leader replicating one log of ``--entries`` entries, each
node's high watermark following its log, observations as the replay sees them (a node's log a
fresh list whenever it grew). Reported: CPU seconds of each, their ratio, and the load.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "pipeline"))

from test_pipeline_checks import WholeState

from kspec.conformance.pipeline.nodes import NodeReplay


def stream(entries: int, events: int) -> list[tuple[int, dict[str, Any]]]:
    log: list[list[Any]] = []
    lengths = {1: 0, 2: 0, 3: 0}
    views: dict[int, list[list[Any]]] = {1: [], 2: [], 3: []}
    out = []
    for k in range(events):
        node = 1 + k % 3
        if node == 1 and len(log) < entries * (k + 1) // events:
            log.append([1, "data"])
        if lengths[node] != len(log):
            lengths[node] = len(log)
            views[node] = [list(e) for e in log]
        # the high watermark lags one entry behind the log's end: a majority holds it
        hw = max(0, min(len(views[n]) for n in (1, 2, 3)) - 1)
        out.append((node, {"epoch": 1, "high_watermark": hw, "leader": 1, "log": views[node],
                           "role": "leader" if node == 1 else "follower", "voted_for": 1}))
    return out


def run(cls: type[NodeReplay], events: list[tuple[int, dict[str, Any]]]) -> float:
    replay = cls("raft", {"voters": 3})
    started = time.process_time()
    for node, obs in events:
        assert replay._properties(node, "FetchResponse", obs) is None
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--events", type=int, default=20000)
    args = parser.parse_args()
    events = stream(args.entries, args.events)
    print(f"load at start {os.getloadavg()}")
    whole = run(WholeState, events)
    incremental = run(NodeReplay, events)
    print(f"{args.events} events, log of {args.entries} entries: whole-state checks {whole:.2f} CPU-s, "
          f"incremental {incremental:.2f} CPU-s: {whole / incremental:.1f}x; load at end {os.getloadavg()}")


if __name__ == "__main__":
    main()
