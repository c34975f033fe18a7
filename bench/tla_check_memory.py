"""Peak memory of ``kspec tla check``: the streaming comparison against the in-memory one (#22).

Runs one comparison of TLC's distinct states with the model's at the given bounds, either as
``kspec tla check`` does it now (``--mode stream``: TLC's dump read one state at a time, each
state kept as a 128-bit fingerprint) or as it did up to session 10 (``--mode memory``: the whole
dump read and parsed, sets of canonical states compared; the code of
``tests/tla/test_tla_check_stream.py``'s ``in_memory``). Run each under ``/usr/bin/time -v`` in
its own process and compare "Maximum resident set size"::

    nice -n 10 /usr/bin/time -v python bench/tla_check_memory.py --mode memory symmetry=false max_epoch=2 \\
        max_appends=0 max_crashes=0
    nice -n 10 /usr/bin/time -v python bench/tla_check_memory.py --mode stream symmetry=false max_epoch=2 \\
        max_appends=0 max_crashes=0

Prints one JSON line: mode, bounds, counts, verdict, seconds. TLC runs in its own JVM, and
``time -v``'s "Maximum resident set size" is the largest of the Python process and the JVM, so
the line also gives each: ``python_peak_rss_kib`` (what the comparison holds) and
``tlc_jvm_peak_rss_kib`` (TLC's heap, the same in both modes).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "tla"))

from kspec.model.raft import make
from kspec.tla.check import check_agreement
from kspec.tla.mappings import get_mapping


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("stream", "memory"), required=True)
    parser.add_argument("bounds", nargs="*", help="raft bounds name=value (symmetry=false is required)")
    args = parser.parse_args()
    bounds: dict[str, int | bool] = {}
    for item in args.bounds:
        name, _, value = item.partition("=")
        bounds[name] = value == "true" if value in ("true", "false") else int(value)
    mapping = get_mapping("raft")
    model = make(**bounds)
    bounds = dict(model.bounds)
    started = time.perf_counter()
    if args.mode == "stream":
        doc = check_agreement(mapping, model, bounds, timeout=3600).as_json()
    else:
        from test_tla_check_stream import in_memory

        doc = in_memory(mapping, model, bounds, timeout=3600)
    # ru_maxrss is in KiB on Linux; the children's is the JVM's (TLC's heap, the same in both modes)
    print(json.dumps({"mode": args.mode, "bounds": bounds, "seconds": round(time.perf_counter() - started, 1),
                      "python_peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                      "tlc_jvm_peak_rss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
                      **{k: doc[k] for k in ("tlc_distinct_states", "model_distinct_states", "equal")}}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
