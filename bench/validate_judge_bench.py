"""Judging alone: the traces of a corpus's first K splits, decoded once, judged by the lean loop
cold and then R times warm (every node step a memo hit: the steady state of a corpus that
repeats), in microseconds per event; and a digest of the outcomes to compare two trees by.

    nice -n 10 python bench/validate_judge_bench.py CORPUS [K=4] [R=5]
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections import defaultdict
from typing import Any

from kspec.conformance.pipeline import engine, fast, reader


def main() -> None:
    path = sys.argv[1]
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    groups: dict[str, list[Any]] = defaultdict(list)
    decoded: dict[str, list[Any]] = defaultdict(list)
    n = 1
    for split in reader.plan_splits([path], engine.SPLIT_BYTES)[:k]:
        data = reader.owned_bytes(split, reader.Limits())
        assert data is not None, split
        for raw in data.split(b"\n")[:-1]:
            ev = fast.decode_event(raw)
            assert ev is not None, raw[:80]
            groups[ev.trace].append((n, raw, None))
            decoded[ev.trace].append(ev)
            n += 1
    events = n - 1
    print(f"{len(groups)} traces, {events} events", flush=True)

    def run() -> tuple[float, list[Any]]:
        cpu = time.process_time()
        out = [fast.judge_lines_fast("raft", key, ((path, line) for line in lines), decoded[key])
               for key, lines in groups.items()]
        return time.process_time() - cpu, out

    fast._CACHES.clear()
    cold, outcomes = run()
    warm = sorted(run()[0] for _ in range(rounds))
    print(f"cold {cold / events * 1e6:.2f} us/event; warm best {warm[0] / events * 1e6:.2f}, "
          f"median {warm[len(warm) // 2] / events * 1e6:.2f} us/event")
    text = repr([(sorted(o.verdict.items(), key=str), sorted(o.actions.items()), sorted(o.features.items()),
                  o.quarantine) for o in outcomes])
    print("outcomes digest", hashlib.sha256(text.encode()).hexdigest()[:16])


if __name__ == "__main__":
    main()
