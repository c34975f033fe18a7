"""Regenerate the verdict sections of docs/kafka-matrix.md from conformance runs (nothing by hand).

    nice -n 10 python bench/kafka_matrix.py all                  # every protocol, every release, seeds 0-4
    nice -n 10 python bench/kafka_matrix.py raft share           # some protocols
    nice -n 10 python bench/kafka_matrix.py raft --seeds 0 1 --versions 4.0.2 3.9.1
    python bench/kafka_matrix.py raft --from-dir DIR             # render runs already made

Each (release, seed) runs ``kspec conform PROTOCOL --target kafka:VERSION --seed S --json`` at
the default budget (no other option) in a fresh process (JPype runs one Kafka version per JVM),
and its JSON is kept in ``--out-dir`` (default ``bench/out/kafka-matrix/PROTOCOL``), so an
interrupted sweep resumes where it stopped (``--again`` reruns). A release whose runs diverge,
each on a catalogued deviation, gets one more run (seed 0) with the deviations catalogued for it
accepted: if that conforms, they are the only differences found.

The rows go between ``<!-- BEGIN GENERATED PROTOCOL -->`` and ``<!-- END GENERATED PROTOCOL -->``
in docs/kafka-matrix.md (a protocol without markers gets a section at the end): for each release
the verdict per seed; for each divergence its catalogued deviation (name, spec ID, Kafka issue
from ``conformance/deviations/PROTOCOL.toml``) or **not catalogued**; the shortest counterexample
over the seeds (step count and first line); the run with the deviations accepted. Exit status 1
when a run diverges on something not catalogued, errors or times out.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "kafka-matrix.md"

# The last patch release of every minor line that has the protocol (issue #17 for raft), and
# every share release (share changed behaviour at patch level). A release Maven does not serve,
# or a line the target refuses, shows as "refused" with the one-line reason kspec gives.
RELEASES: dict[str, list[str]] = {
    "raft": ["3.3.2", "3.4.1", "3.5.2", "3.6.2", "3.7.2", "3.8.1", "3.9.1", "4.0.2", "4.1.2", "4.2.2", "4.3.1",
             "4.4.0"],
    "voters": ["3.8.1", "3.9.0", "3.9.1", "4.0.2", "4.1.2", "4.2.2", "4.3.1", "4.4.0"],
    "share": ["4.0.0", "4.0.1", "4.0.2", "4.1.0", "4.1.1", "4.1.2", "4.2.0", "4.2.1", "4.2.2", "4.3.0", "4.3.1",
              "4.4.0"],
    "mm2": ["2.4.1", "2.5.1", "2.6.3", "2.7.2", "2.8.2", "3.0.2", "3.1.2", "3.2.3", "3.3.2", "3.4.1", "3.5.2",
            "3.6.2", "3.7.2", "3.8.1", "3.9.1", "4.0.2", "4.1.2", "4.2.2", "4.3.1", "4.4.0"],
    "streams": ["2.8.2", "3.0.2", "3.1.2", "3.2.3", "3.3.2", "3.4.1", "3.5.2", "3.6.2", "3.7.2", "3.8.1", "3.9.1",
                "4.0.2", "4.1.2", "4.2.2", "4.3.1", "4.4.0"],
}
NOT_A_VERDICT = ("refused", "timeout", "error")


def code_commit() -> str:
    """The kspec commit the runs are made with (``+dirty`` when the work tree has changes)."""
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=10", "HEAD"], capture_output=True,
                              text=True, check=True, timeout=30).stdout.strip()
        # the page this script writes is not the code the runs are made with
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no", "--",
                                ".", ":!docs/kafka-matrix.md"],
                               capture_output=True, text=True, check=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def _entry() -> list[str]:
    return [sys.executable, "-c", "import sys; from kspec.conformance.cli import main; sys.exit(main())"]


def run_one(protocol: str, version: str, seed: int, out_dir: Path, timeout: float,
            accept: list[str] | None = None) -> dict[str, Any]:
    """One conformance run in its own process; its JSON (or the refusal) is kept on disk."""
    out_dir.mkdir(parents=True, exist_ok=True)
    tag = "accept" if accept else f"seed{seed}"
    path = out_dir / f"{version}-{tag}.json"
    argv = ["conform", protocol, "--target", f"kafka:{version}", "--seed", str(seed), "--json"]
    if accept:
        argv += ["--accept", ",".join(accept)]
    # The commit is read before the run: a checkout during a run must not relabel it.
    commit = code_commit()
    start, before = time.monotonic(), os.times()
    try:
        proc = subprocess.run([*_entry(), *argv], capture_output=True, text=True, timeout=timeout, cwd=out_dir,
                              check=False)
        result: dict[str, Any]
        try:
            result = json.loads(proc.stdout)
        except json.JSONDecodeError:
            lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("kspec:")]
            reason = lines[-1] if lines else (proc.stderr.strip()[-300:] or f"exit {proc.returncode}, no output")
            result = {"verdict": "refused" if proc.returncode == 2 else "error", "reason": reason,
                      "exit": proc.returncode}
    except subprocess.TimeoutExpired:
        result = {"verdict": "timeout", "reason": f"no verdict within {timeout:.0f} s"}
    after = os.times()
    cpu = (after.children_user + after.children_system) - (before.children_user + before.children_system)
    result.update(version=version, seed=seed, wall_seconds=round(time.monotonic() - start, 1),
                  cpu_seconds=round(cpu, 1), command=" ".join(["kspec", *argv]), commit=commit)
    if accept:
        result["accept_run"] = True
    path.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return result


def load_runs(out_dir: Path) -> list[dict[str, Any]]:
    """The runs kept in ``out_dir`` (one JSON file per run)."""
    runs = []
    for p in sorted(out_dir.glob("*.json")):
        try:
            runs.append(json.loads(p.read_text(encoding="utf-8")))
        except (OSError, json.JSONDecodeError) as err:
            raise SystemExit(f"kafka_matrix: {p}: not a run ({err})") from None
    return runs


def catalogue(protocol: str) -> dict[str, dict[str, Any]]:
    """The protocol's deviation catalogue, read as data (the generator does not import kspec)."""
    path = ROOT / "conformance" / "deviations" / f"{protocol}.toml"
    if not path.exists():
        return {}
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return {d["name"]: d for d in data.get("deviation", [])}


def observed_on(protocol: str, version: str) -> list[str]:
    """The deviations catalogued for ``version``: seen on it, or seen on an earlier release of the
    same code and not fixed before it (``fixed_in`` above ``version``, or no fix yet)."""
    names = []
    for name, d in catalogue(protocol).items():
        seen = [str(v) for v in d.get("releases", ())]
        fixed = d.get("fixed_in")
        if version in seen or (seen and min(_vkey(v) for v in seen) <= _vkey(version)
                               and (fixed is None or _vkey(version) < _vkey(str(fixed)))):
            names.append(name)
    return sorted(names)


def _vkey(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split(".") if p.isdigit())


def _first_line(run: dict[str, Any]) -> str:
    div = run.get("divergence") or {}
    detail = str(div.get("detail", "")).splitlines()[0] if div else ""
    return f"step {div.get('step')}: {div.get('kind')} {div.get('field')}: {detail[:160]}".replace("|", "\\|")


def unexplained(run: dict[str, Any], known: dict[str, dict[str, Any]]) -> bool:
    """A run that is not a clean verdict: an error, a timeout, or a divergence nobody has named."""
    if run["verdict"] in ("error", "timeout"):
        return True
    if run.get("accept_run"):
        # every deviation catalogued for the release is accepted: any difference left is unexplained
        return run["verdict"] != "conforms"
    return run["verdict"] == "diverges" and run.get("deviation") not in known


def unjudged(protocol: str, version: str) -> dict[str, str]:
    """What the ``kafka:VERSION`` adapter holds without judging (``Target.unjudged``): read from the
    adapter code, which is the same for every run of a release (the 3.9+ raft heartbeat; voters'
    replica level runs the same raft client)."""
    if protocol not in ("raft", "voters"):
        return {}
    from kspec.conformance.targets.kafka.raft import unjudged_for

    return unjudged_for(version)


def render(protocol: str, runs: list[dict[str, Any]]) -> str:
    """The generated section: one row per release."""
    known = catalogue(protocol)
    by_version: dict[str, list[dict[str, Any]]] = {}
    accepted: dict[str, dict[str, Any]] = {}
    for run in runs:
        if run.get("accept_run"):
            accepted[run["version"]] = run
        else:
            by_version.setdefault(run["version"], []).append(run)
    dates = sorted({str(r.get("date", "")) for r in runs if r.get("date")})
    seeds = sorted({int(r["seed"]) for r in runs if not r.get("accept_run")})
    commits = sorted({str(r.get("commit") or "not recorded") for r in runs})
    lines = [
        f"Generated by `python bench/kafka_matrix.py {protocol} --seeds {' '.join(map(str, seeds))}` on "
        f"{dates[-1] if dates else time.strftime('%Y-%m-%d', time.gmtime())} ({platform.machine()}, "
        f"{os.cpu_count()} cores), kspec commit {', '.join(commits)}: "
        f"`kspec conform {protocol} --target kafka:V --seed S --json`, default budget, one process per run.",
        "",
        "| release | verdict per seed (runs) | divergences: deviation (spec ID, Kafka issue) "
        "| shortest counterexample | seed 0, the release's catalogued deviations accepted | CPU s |",
        "|---|---|---|---|---|---:|",
    ]
    for version in sorted(by_version, key=_vkey):
        vruns = sorted(by_version[version], key=lambda r: r["seed"])
        verdicts = ", ".join(f"{r['seed']}: {r['verdict']}" + (f" ({r['examples']})" if r.get("examples") else "")
                             for r in vruns)
        diverged = [r for r in vruns if r["verdict"] == "diverges"]
        names: set[str] = set()
        for r in diverged:
            name = r.get("deviation")
            if name and name in known:
                d = known[name]
                names.add(f"`{name}` ({d.get('spec_id', '?')}, {d.get('kafka_issue') or 'no Kafka issue'})")
            else:
                names.add("**not catalogued**")
        divs = "; ".join(sorted(names)) or "—"
        odd = [r for r in vruns if r["verdict"] in NOT_A_VERDICT]
        if odd and not diverged:
            divs = str(odd[0].get("reason") or "").replace("|", "\\|")[:200]
        shortest = ""
        if diverged:
            best = min(diverged, key=lambda r: r.get("steps") or 10**9)
            ce = f" `{Path(str(best['counterexample'])).name}`" if best.get("counterexample") else ""
            shortest = f"{best.get('steps')} steps (seed {best['seed']}): {_first_line(best)}{ce}"
        acc = accepted.get(version)
        acc_cell = (f"{acc['verdict']}" + (f" ({acc['examples']})" if acc.get("examples") else "")
                    + f" with {', '.join(acc.get('accepted') or [])}") if acc else "—"
        if acc and acc["verdict"] == "diverges":
            name = acc.get("deviation")
            acc_cell += (f": `{name}`" if name in known else ": **not catalogued**") + (
                f" at step {acc.get('steps')}" if acc.get("steps") else "")
        cpu = sum(float(r.get("cpu_seconds") or 0) for r in vruns) + float((acc or {}).get("cpu_seconds") or 0)
        lines.append(f"| {version} | {verdicts} | {divs} | {shortest} | {acc_cell} | {cpu:.0f} |")
    held: dict[tuple[str, str], list[str]] = {}
    for version in sorted(by_version, key=_vkey):
        if any(r["verdict"] not in NOT_A_VERDICT for r in by_version[version]):
            for name, why in unjudged(protocol, version).items():
                held.setdefault((name, why), []).append(version)
    for (name, why), versions in held.items():
        lines += ["", f"Held unjudged by the adapter on {', '.join(versions)} (`kspec conform` prints it, `--json` "
                  f"has `unjudged`): `{name}`: {why}."]
    bad = sum(unexplained(r, known) for rs in by_version.values() for r in rs)
    bad_accepts = sum(unexplained(r, known) for r in accepted.values())
    lines += ["", f"Runs: {sum(len(v) for v in by_version.values())}; not a clean verdict (error, timeout or "
              f"a divergence not catalogued): {bad}. Accept runs: {len(accepted)}; not conforming: {bad_accepts}."]
    return "\n".join(lines) + "\n"


def write_section(protocol: str, body: str, doc: Path = DOC) -> None:
    """Replace the protocol's generated block in ``doc`` (or add a section at the end)."""
    begin, end = f"<!-- BEGIN GENERATED {protocol} -->", f"<!-- END GENERATED {protocol} -->"
    text = doc.read_text(encoding="utf-8")
    block = f"{begin}\n{body}{end}"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        text = head + block + tail
    else:
        text = text.rstrip("\n") + f"\n\n## {protocol}: verdicts by release (generated)\n\n{block}\n"
    doc.write_text(text, encoding="utf-8")


def sweep(protocol: str, versions: list[str], seeds: list[int], out_dir: Path, timeout: float,
          again: bool) -> None:
    """Run what is missing in ``out_dir``; then the accept run of each release that needs one."""
    known = catalogue(protocol)
    for version in versions:
        runs = []
        for seed in seeds:
            path = out_dir / f"{version}-seed{seed}.json"
            if path.exists() and not again:
                runs.append(json.loads(path.read_text(encoding="utf-8")))
                continue
            r = run_one(protocol, version, seed, out_dir, timeout)
            r["date"] = time.strftime("%Y-%m-%d", time.gmtime())
            path.write_text(json.dumps(r, indent=1) + "\n", encoding="utf-8")
            runs.append(r)
            print(f"{protocol} kafka:{version} seed {seed}: {r['verdict']}"
                  + (f" on {r.get('deviation')}" if r.get("deviation") else "")
                  + f" ({r['wall_seconds']} s wall, {r['cpu_seconds']} s CPU)", flush=True)
        named = [r for r in runs if r["verdict"] == "diverges" and r.get("deviation") in known]
        accept = observed_on(protocol, version)
        acc_path = out_dir / f"{version}-accept.json"
        if named and accept and (again or not acc_path.exists()):
            r = run_one(protocol, version, 0, out_dir, timeout, accept)
            print(f"{protocol} kafka:{version} accepting {', '.join(accept)}: {r['verdict']}", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("protocols", nargs="+", choices=[*sorted(RELEASES), "all"])
    p.add_argument("--versions", nargs="*", help="releases to run (default: every release of the protocol)")
    p.add_argument("--seeds", nargs="*", type=int, default=[0, 1, 2, 3, 4])
    p.add_argument("--out-dir", type=Path, help="where runs are kept (default bench/out/kafka-matrix/PROTOCOL)")
    p.add_argument("--from-dir", type=Path, help="render the runs in this directory, run nothing (one protocol)")
    p.add_argument("--again", action="store_true", help="rerun runs already kept")
    p.add_argument("--timeout", type=float, default=3600.0, help="seconds per run")
    args = p.parse_args(argv)
    protocols = sorted(RELEASES) if "all" in args.protocols else list(dict.fromkeys(args.protocols))
    if args.from_dir is not None and len(protocols) != 1:
        p.error("--from-dir renders one protocol")
    status = 0
    for protocol in protocols:
        out_dir = (args.from_dir or args.out_dir or ROOT / "bench" / "out" / "kafka-matrix" / protocol).resolve()
        if args.out_dir is not None and len(protocols) > 1:
            out_dir = (args.out_dir / protocol).resolve()
        if args.from_dir is None:
            sweep(protocol, args.versions or RELEASES[protocol], args.seeds, out_dir, args.timeout, args.again)
        runs = load_runs(out_dir)
        write_section(protocol, render(protocol, runs))
        print(f"wrote the {protocol} section of {DOC.relative_to(ROOT)}")
        known = catalogue(protocol)
        if any(unexplained(r, known) for r in runs):
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
