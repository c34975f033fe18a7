"""Explorer throughput: distinct states per second for KRaft at two bound sizes and for the
voter-set model (KIP-853) at its defaults; with ``--versus-tlc``, the parallel explorer against
TLC ``-workers N`` on the same spec and bounds, in one run.

    python bench/explore_bench.py [--repeat N] [--only NAME ...]
    nice -n 10 python bench/explore_bench.py --versus-tlc [--workers 2] [--bounds max_epoch=2 ...]
    python bench/explore_bench.py --serial [--repeat N] [--bounds max_epoch=2 ...]

Prints a Markdown table (bounds, distinct states, transitions, seconds, CPU seconds, states/s)
for the record in docs/performance.md. Each configuration runs to completion; the best of N
runs is kept, since a shared machine only ever makes a run slower (CPU seconds less so than
wall seconds). ``--serial`` runs the serial explorer alone on ``--bounds`` and prints its CPU
microseconds per distinct state, the figure to compare between two versions of the model on a
loaded machine (issue #22 item 5, session 28).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import time

from kspec.model.core.explorer import explore
from kspec.model.raft import make
from kspec.model.voters import PROTOCOL as VOTERS

CONFIGS = [
    ("small", make, {"max_epoch": 1, "max_crashes": 0, "max_appends": 0}),
    ("default", make, {}),
    ("voters default", VOTERS.make, {}),
]


def _children_cpu() -> float:
    """CPU seconds of this process's waited-for children (the explorer's workers, TLC's JVM)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def versus_tlc(protocol: str, bounds: list[str], workers: int, timeout: float) -> None:
    """The serial explorer, the parallel explorer (``workers`` processes) and TLC ``-workers
    workers`` on the same spec and bounds, one after the other; TLC's distinct states must
    equal the explorer's (``kspec tla check`` proves the sets equal; this compares counts).
    Each row also gives the CPU seconds it took (the serial explorer's own, the workers'
    together, TLC's JVM): on a shared machine, wall seconds depend on the load."""
    from kspec.conformance.clikit import build_model, protocol_info
    from kspec.model.core.parallel import explore_parallel
    from kspec.tla.mappings import get_mapping
    from kspec.tla.runner import TLCError, run_tlc

    info = protocol_info(protocol)
    model, values = build_model(info, bounds)
    if values.get("symmetry") and not any(b.split("=", 1)[0] == "symmetry" for b in bounds):
        # TLC has no SYMMETRY for these specs: the same state space needs the explorer without
        # its symmetry reduction (as `kspec tla check` runs it)
        bounds = ["symmetry=false", *bounds]
        model, values = build_model(info, bounds)
    mapping = get_mapping(protocol)
    try:
        config_text = mapping.config(values)
    except TLCError as err:
        print(f"explore_bench: --bounds {' '.join(bounds)}: {err}", file=sys.stderr)
        raise SystemExit(2) from None
    print(f"{protocol} {' '.join(bounds) or '(defaults)'}: {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, "
          f"load {os.getloadavg()}", flush=True)
    rows: list[tuple[str, int, float, float | None]] = []
    cpu = time.process_time()
    serial = explore(model)
    rows.append(("kspec explore --workers 1", serial.distinct_states, serial.seconds, time.process_time() - cpu))
    print(rows[-1], flush=True)
    cpu = _children_cpu()
    par = explore_parallel(build_model(info, bounds)[0], workers=workers)
    rows.append((f"kspec explore --workers {workers}", par.distinct_states, par.seconds, _children_cpu() - cpu))
    print(rows[-1], os.getloadavg(), flush=True)
    workers_line = ", ".join(f"worker {w}: {c:.1f} CPU-s, {wt:.1f} s waiting at the exchanges"
                             for w, (c, wt) in enumerate(zip(par.worker_cpu, par.worker_wait, strict=True)))
    print(workers_line, flush=True)
    cpu = _children_cpu()
    tlc = run_tlc(mapping.spec_path(), config_text=config_text, check_deadlock=mapping.check_deadlock,
                  workers=workers, timeout=timeout)
    tlc_cpu = _children_cpu() - cpu
    rows.append((f"TLC -workers {workers} (wall, JVM start included)", tlc.distinct_states, tlc.seconds, tlc_cpu))
    rows.append((f"TLC -workers {workers} (its own 'Finished in')", tlc.distinct_states, tlc.tlc_seconds, None))
    print(rows[-2:], flush=True)
    assert serial.distinct_states == par.distinct_states == tlc.distinct_states, rows
    assert serial.transitions == par.transitions and serial.max_depth == par.max_depth, (serial, par)
    print(f"load at the end {os.getloadavg()}, {time.strftime('%H:%M:%S UTC', time.gmtime())}")
    print()
    print("| run | distinct states | wall seconds | CPU seconds |")
    print("|---|---|---|---|")
    for name, states, seconds, cpu_s in rows:
        print(f"| {name} | {states} | {seconds:.1f} | {'' if cpu_s is None else f'{cpu_s:.1f}'} |")
    print(f"\nparallel over serial: {serial.seconds / par.seconds:.2f}x; "
          f"parallel over TLC (wall): {tlc.seconds / par.seconds:.2f}x; "
          f"over TLC's own time: {(tlc.tlc_seconds or 0) / par.seconds:.2f}x; "
          f"CPU seconds, TLC over parallel: {tlc_cpu / (rows[1][3] or 1):.2f}x, "
          f"parallel over serial: {(rows[1][3] or 0) / (rows[0][3] or 1):.2f}x")
    print(workers_line)


def serial_cpu(protocol: str, bounds: list[str], repeat: int) -> None:
    """The serial explorer on ``bounds``, ``repeat`` times: states, transitions, depth, CPU
    seconds and CPU microseconds per distinct state, with the load average."""
    from kspec.conformance.clikit import build_model, protocol_info

    info = protocol_info(protocol)
    for _ in range(repeat):
        model, _ = build_model(info, bounds)
        cpu = time.process_time()
        result = explore(model)
        cpu = time.process_time() - cpu
        print(f"{time.strftime('%H:%M:%S UTC', time.gmtime())} {protocol} {' '.join(bounds)}: "
              f"{result.distinct_states} states, {result.transitions} transitions, depth {result.max_depth}, "
              f"{cpu:.2f} CPU-s, {cpu / result.distinct_states * 1e6:.1f} us CPU/state, "
              f"{result.seconds:.2f} s wall, load {os.getloadavg()[0]:.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=None, help="only these configurations")
    parser.add_argument("--versus-tlc", action="store_true")
    parser.add_argument("--serial", action="store_true", help="the serial explorer's CPU per state on --bounds")
    parser.add_argument("--protocol", default="raft")
    parser.add_argument("--bounds", nargs="*", default=[])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=3600.0)
    args = parser.parse_args()
    if args.versus_tlc:
        versus_tlc(args.protocol, args.bounds, args.workers, args.timeout)
        return
    if args.serial:
        serial_cpu(args.protocol, args.bounds, args.repeat)
        return
    print(f"python {platform.python_version()} on {platform.machine()}, {time.strftime('%Y-%m-%d')}")
    print()
    print("| config | bounds | distinct states | transitions | seconds | CPU seconds | states/s |")
    print("|---|---|---|---|---|---|---|")
    for name, build, bounds in CONFIGS:
        if args.only and name not in args.only:
            continue
        best, best_cpu = None, 0.0
        for _ in range(args.repeat):
            cpu = time.process_time()
            result = explore(build(**bounds))
            cpu = time.process_time() - cpu
            if best is None or result.seconds < best.seconds:
                best, best_cpu = result, cpu
        assert best is not None and best.complete and not best.violations and all(best.witnesses.values())
        shown = " ".join(f"{k}={v}" for k, v in best.bounds.items())
        print(f"| {name} | {shown} | {best.distinct_states} | {best.transitions} | {best.seconds:.1f} | "
              f"{best_cpu:.1f} | {best.states_per_second:.0f} |", flush=True)


if __name__ == "__main__":
    main()
