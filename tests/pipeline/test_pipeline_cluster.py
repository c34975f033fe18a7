"""``kspec validate --master spark://HOST:PORT`` on a real standalone cluster: a master and a
worker started from the installed pyspark (``spark-class``), on loopback; the same verdicts as
the single-process engine. A master that does not answer is a one-line error."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pipeline_corpus import simulate_into

from kspec.conformance.pipeline import summary
from kspec.conformance.pipeline.local import iter_local


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _spark_class() -> str:
    import pyspark

    path = Path(pyspark.__file__).parent / "bin" / "spark-class"
    if not path.exists():
        pytest.fail(f"the installed pyspark has no {path}: cannot start a standalone cluster")
    return str(path)


def _wait_for(proc: subprocess.Popen[bytes], log: Path, text: str, seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if text in log.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            pytest.fail(f"standalone process exited {proc.returncode}: {log.read_text()[-2000:]}")
        time.sleep(0.5)
    pytest.fail(f"no {text!r} after {seconds}s: {log.read_text()[-2000:]}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("cluster")
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOG_DIR": str(root), "SPARK_WORKER_DIR": str(root)}
    port = _free_port()
    url = f"spark://127.0.0.1:{port}"
    procs: list[subprocess.Popen[bytes]] = []
    try:
        master_log = root / "master.log"
        with master_log.open("wb") as out:
            procs.append(subprocess.Popen(
                [_spark_class(), "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                 "--webui-port", str(_free_port())], stdout=out, stderr=subprocess.STDOUT, env=env))
        _wait_for(procs[0], master_log, "I have been elected leader")
        worker_log = root / "worker.log"
        with worker_log.open("wb") as out:
            procs.append(subprocess.Popen(
                [_spark_class(), "org.apache.spark.deploy.worker.Worker", url, "--host", "127.0.0.1",
                 "--cores", "2", "--memory", "1g", "--webui-port", str(_free_port()), "--work-dir", str(root / "work")],
                stdout=out, stderr=subprocess.STDOUT, env=env))
        _wait_for(procs[1], worker_log, "Successfully registered with master")
        yield url
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in reversed(procs):
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(root / "work", ignore_errors=True)


def test_validate_on_a_standalone_cluster_gives_the_local_verdicts(cluster: str, tmp_path: Path) -> None:
    simulate_into(tmp_path / "ref", None, 51, 4, steps=40)
    simulate_into(tmp_path / "bad", "quorum-state-lost", 32, 4, steps=60)
    # Damage of several kinds in a third file: a badly typed record, a CRLF line end, a
    # truncated line whose trace id is still readable, and a line that is not JSON at all.
    lines = (tmp_path / "ref" / "events.jsonl").read_bytes().splitlines()
    other = (tmp_path / "bad" / "events.jsonl").read_bytes().splitlines()
    damaged = [lines[0].replace(b'"node": ', b'"node": [1], "x": ', 1), lines[1] + b"\r", other[0][:60], b"}{"]
    (tmp_path / "damaged.jsonl").write_bytes(b"\n".join(damaged) + b"\n")
    files = [str(tmp_path / d / "events.jsonl") for d in ("ref", "bad")] + [str(tmp_path / "damaged.jsonl")]
    records = sum(1 for f in files for line in Path(f).read_bytes().splitlines() if line.strip())
    try:
        proc = subprocess.run([sys.executable, "-m", "kspec.conformance.cli", "validate", *files, "--protocol",
                               "raft", "--master", cluster, "--split-bytes", "30000", "--json"],
                              capture_output=True, text=True, timeout=600,
                              env={**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"})
    except subprocess.TimeoutExpired as err:  # (the fixture's finally stops the cluster)
        tail = (err.stderr or b"")[-2000:]
        pytest.fail(f"kspec validate --master {cluster} did not finish in 600 s (no executor? see the worker "
                    f"log); its stderr ends: {tail!r}")
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    doc = json.loads(proc.stdout)
    assert doc["master"] == cluster
    acc = summary.empty()
    for outcome in iter_local("raft", files, [], split_bytes=30000):
        summary.add(acc, outcome)
    local = summary.finish(acc, protocol="raft", seconds=1.0)
    for key in ("traces", "events", "valid", "violating", "quarantined", "violations_by_property", "events_by_status",
                "quarantined_records", "quarantine_by_reason"):
        assert doc[key] == local[key], key
    for key in ("actions", "features"):  # (actions_not_covered needs the CLI's list of known actions)
        assert doc["coverage"][key] == local["coverage"][key], key
    assert doc["violating"] > 0 and doc["valid"] > 0 and doc["quarantined"] >= 3
    # Exact accounting: every record is in a valid, violating or quarantined trace.
    assert doc["events"] == sum(doc["events_by_status"].values()) == records
    assert set(doc["quarantine_by_reason"]) == {"CRLF line end", "field", "malformed JSON"}, doc["quarantine_by_reason"]


def test_a_master_that_does_not_answer_is_a_one_line_error(tmp_path: Path) -> None:
    simulate_into(tmp_path / "ref", None, 53, 1, steps=10)
    proc = subprocess.run([sys.executable, "-m", "kspec.conformance.cli", "validate", str(tmp_path / "ref"),
                           "--protocol", "raft", "--master", f"spark://127.0.0.1:{_free_port()}"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr and "no Spark master answers" in lines[0], proc.stderr
