"""The share and mm2 rows of docs/kafka-matrix.md: `kspec conform` at the default budget against
every release, seeds 0-4, one process per run (JPype holds one Kafka version per JVM).

    nice -n 10 python bench/kafka_matrix_share_mm2.py [--protocol share mm2] [--seeds 5]
        [--versions V ...] [--cache FILE] [--markdown FILE]

Each run is ``kspec conform P --target kafka:V --seed S --json`` (no other option: the default
budget). Results are kept in ``--cache`` (JSON, default /tmp/kspec-matrix-share-mm2.json), so an
interrupted sweep resumes where it stopped; ``--markdown`` writes the section the lead joins into
docs/kafka-matrix.md. Exit status 1 when some run diverges on something that is not a catalogued
deviation, or errors.

Versions: every share release (``kafka-share-coordinator``) and the newest served patch of each
``connect-mirror-client`` minor line, as the Maven repository reachable here serves them
(``maven-metadata.xml``, 2026-11-25); lines it does not serve are listed with that reason.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

SHARE_VERSIONS = ["4.0.0", "4.0.1", "4.0.2", "4.1.0", "4.1.1", "4.1.2", "4.2.0", "4.2.1", "4.2.2", "4.3.0",
                  "4.3.1", "4.4.0"]
# connect-mirror-client: the newest served patch of each minor line 2.4-4.4.
MM2_VERSIONS = ["2.6.0", "2.7.2", "2.8.2", "3.0.2", "3.1.2", "3.2.0", "3.3.2", "3.4.1", "3.5.1", "3.6.2", "3.7.2",
                "3.8.1", "3.9.1", "4.0.2", "4.1.2", "4.2.0", "4.3.1"]
MM2_NOT_SERVED = ["2.4", "2.5", "4.4"]


def known_deviations(protocol: str, version: str) -> list[str]:
    """The catalogued deviations seen on ``version`` (conformance/deviations/<protocol>.toml)."""
    from kspec.conformance.deviations import catalogue

    return sorted(name for name, d in catalogue(protocol).items() if version in d.releases)


def run_one(protocol: str, version: str, seed: int, timeout: float,
            accept: list[str] | None = None) -> dict[str, object]:
    """One ``kspec conform`` run in its own process; its JSON plus wall and CPU seconds."""
    cmd = ["kspec", "conform", protocol, "--target", f"kafka:{version}", "--seed", str(seed), "--json",
           "--out", "/tmp/kspec-matrix-counterexamples"]
    for name in accept or []:
        cmd += ["--accept", name]
    start = time.monotonic()
    before = os.times()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"verdict": "timeout", "wall": timeout}
    after = os.times()
    doc: dict[str, object]
    try:
        doc = json.loads(proc.stdout)
    except json.JSONDecodeError:
        tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        refused = proc.returncode == 2 and "not supported for" in tail
        doc = {"verdict": "refused" if refused else "error", "error": tail, "exit": proc.returncode}
    doc["wall"] = round(time.monotonic() - start, 1)
    used = (after.children_user + after.children_system) - (before.children_user + before.children_system)
    doc["cpu"] = round(used, 1)
    return doc


def verdict_cell(doc: dict[str, object]) -> str:
    v = str(doc.get("verdict"))
    if v == "diverges":
        div = doc.get("divergence") or {}
        dev = doc.get("deviation")
        step = div.get("step") if isinstance(div, dict) else None
        field = div.get("field") if isinstance(div, dict) else None
        return f"diverges: {dev}" if dev else f"**diverges (unnamed)** step {step} `{field}`"
    if v == "error":
        return f"error: {doc.get('error', '')}"
    if v == "refused":
        reason = str(doc.get("error", "")).partition("(")[2].rstrip(")")
        return f"refused up front ({reason})"
    accepted = doc.get("accepted")
    return f"{v}" + (f" (accepting {', '.join(map(str, accepted))})" if accepted else "")


def markdown(results: dict[str, dict[str, object]], protocols: list[str], seeds: int) -> str:
    """The share/mm2 verdict table, one row per (protocol, version)."""
    rows = ["| protocol | version | " + " | ".join(f"seed {s}" for s in range(seeds))
            + " | runs (min-max) | seed 0, its known deviations accepted |",
            "|---|---|" + "---|" * seeds + "---:|---|"]
    for protocol in protocols:
        versions = SHARE_VERSIONS if protocol == "share" else MM2_VERSIONS
        for v in versions:
            docs = [results.get(f"{protocol} {v} {s}") for s in range(seeds)]
            cells = [verdict_cell(d) if d else "not run" for d in docs]
            runs = [int(d["examples"]) for d in docs if d and isinstance(d.get("examples"), int)]
            spread = f"{min(runs)}-{max(runs)}" if runs else "-"
            acc = results.get(f"{protocol} {v} accept")
            like = next((u for u in versions if f"{protocol} {u} accept" in results
                         and known_deviations(protocol, u) == known_deviations(protocol, v)), None)
            cell = verdict_cell(acc) if acc else (f"as {like}" if like and known_deviations(protocol, v) else "-")
            rows.append(f"| {protocol} | {v} | " + " | ".join(cells) + f" | {spread} | {cell} |")
        if protocol == "mm2":
            for line in MM2_NOT_SERVED:
                rows.append(f"| mm2 | {line}.x | " + " | ".join(["not served by the Maven repository"] * seeds)
                            + " | - |")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--protocol", nargs="*", default=["share", "mm2"], choices=["share", "mm2"])
    ap.add_argument("--seeds", type=int, default=5, help="seeds 0..N-1")
    ap.add_argument("--versions", nargs="*", default=None, help="only these versions")
    ap.add_argument("--cache", default="/tmp/kspec-matrix-share-mm2.json")
    ap.add_argument("--markdown", default=None, help="write the table here as well")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per run")
    args = ap.parse_args()
    cache = Path(args.cache)
    results: dict[str, dict[str, object]] = json.loads(cache.read_text()) if cache.exists() else {}
    for protocol in args.protocol:
        versions = SHARE_VERSIONS if protocol == "share" else MM2_VERSIONS
        for v in versions:
            if args.versions and v not in args.versions:
                continue
            for seed in range(args.seeds):
                key = f"{protocol} {v} {seed}"
                if key in results:
                    continue
                results[key] = run_one(protocol, v, seed, args.timeout)
                cache.write_text(json.dumps(results, indent=1, sort_keys=True))
                print(f"{key}: {verdict_cell(results[key])} ({results[key].get('wall')} s wall)", flush=True)
            # A release whose runs diverged only on catalogued deviations conforms with them accepted.
            # Once per set of deviations: releases with the same set run the same model variant.
            known = known_deviations(protocol, v)
            key = f"{protocol} {v} accept"
            same = [u for u in versions[:versions.index(v)] if known_deviations(protocol, u) == known
                    and f"{protocol} {u} accept" in results]
            if known and key not in results and not same and (not args.versions or v in args.versions):
                results[key] = run_one(protocol, v, 0, args.timeout, known)
                cache.write_text(json.dumps(results, indent=1, sort_keys=True))
                print(f"{key}: {verdict_cell(results[key])} ({results[key].get('wall')} s wall)", flush=True)
    header = (f"Generated by `nice -n 10 python bench/kafka_matrix_share_mm2.py` on "
              f"{datetime.now(UTC):%Y-%m-%d} ({platform.machine()}, {os.cpu_count()} cores, shared): "
              f"`kspec conform P --target kafka:V --seed S` at the default budget.\n\n")
    table = header + markdown(results, args.protocol, args.seeds)
    print(table)
    if args.markdown:
        Path(args.markdown).write_text(table + "\n")
    bad = [k for k, d in results.items() if k.split()[0] in args.protocol
           and (d.get("verdict") in ("error", "timeout")
                or (d.get("verdict") == "diverges" and not d.get("deviation")))]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
