"""``kspec validate`` on Spark against a corpus with planted violations and planted damage:
it finds exactly the planted violations, quarantines exactly the damaged records, its counts
add up, and the same run works with ``--master local[2]``; the Parquet outputs read back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pipeline_corpus import Corpus, build

from kspec.conformance.pipeline import summary
from kspec.conformance.pipeline.inputs import expand_inputs
from kspec.conformance.pipeline.local import run_local
from kspec.conformance.pipeline.spark import DRIVER_JAVA_OPTIONS, spark_session


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    c = build(tmp_path_factory.mktemp("validate"))
    assert len(c.planted) >= 3, "the variants must plant violations for the test to mean anything"
    return c


def validate(*args: str) -> tuple[int, dict[str, Any]]:
    """``kspec validate ARGS --json`` in this process: the JVM Spark starts for the first run is
    reused by the next ones (a session is stopped after each run, the JVM gateway stays)."""
    from click.testing import CliRunner

    from kspec.conformance.cli import _load_commands, cli

    _load_commands()
    result = CliRunner().invoke(cli, ["validate", *args, "--json"])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, json.loads(result.stdout)


@pytest.fixture(scope="module")
def default_run(corpus: Corpus) -> tuple[dict[str, Any], Path]:
    out = corpus.root.parent / "out"
    code, doc = validate(str(corpus.root), "--protocol", "raft", "--out", str(out))
    assert code == 1  # violations and quarantine: exit 1
    return doc, out


def _check_counts(doc: dict[str, Any], corpus: Corpus) -> None:
    assert doc["traces"] == doc["valid"] + doc["violating"] + doc["quarantined"]
    assert doc["events"] == sum(doc["events_by_status"].values()) == corpus.lines + corpus.itf_states
    # Every quarantined record has a row: the damaged ones and their traces' other records.
    assert doc["quarantined_records"] == doc["events_by_status"]["quarantined"]
    assert doc["traces"] == len(corpus.traces) + corpus.orphans
    assert doc["violating"] == len(corpus.planted)
    assert doc["quarantined"] == len(corpus.quarantined_traces) + corpus.orphans
    assert sum(doc["violations_by_property"].values()) == doc["violating"]
    assert sum(doc["quarantine_by_reason"].values()) == len(corpus.damaged)
    for key in ("traces", "events", "valid", "violating", "quarantined", "events_per_second",
                "violations_by_property"):
        assert key in doc


def test_default_master_counts_add_up(default_run: tuple[dict[str, Any], Path], corpus: Corpus) -> None:
    doc, _ = default_run
    assert doc["master"] == "local[*]"
    _check_counts(doc, corpus)
    assert doc["events_per_second"] > 0
    # The reference corpus covers elections, fetches and appends; the vote-twice traces violate
    # VoteOnce where the second vote shows in an observation.
    assert {"VoteRequest", "FetchRequest", "ClientAppend"} <= set(doc["coverage"]["actions"])
    assert "role=leader" in doc["coverage"]["features"]


def test_explicit_local2_same_result(default_run: tuple[dict[str, Any], Path], corpus: Corpus) -> None:
    code, doc = validate(str(corpus.root / "*.jsonl"), str(corpus.root / "itf"), "--protocol", "raft",
                         "--master", "local[2]")
    assert code == 1
    assert doc["master"] == "local[2]"
    _check_counts(doc, corpus)
    ignore = ("seconds", "events_per_second", "master", "out")
    assert {k: v for k, v in doc.items() if k not in ignore} == \
        {k: v for k, v in default_run[0].items() if k not in ignore}


def test_parquet_verdicts_and_quarantine(default_run: tuple[dict[str, Any], Path], corpus: Corpus) -> None:
    doc, out = default_run
    assert json.loads((out / "summary.json").read_text())["traces"] == doc["traces"]
    with spark_session("local[1]") as spark:
        # The driver JVM runs with C1 only (DRIVER_JAVA_OPTIONS): the flag reached the JVM.
        args = spark.sparkContext._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()
        assert DRIVER_JAVA_OPTIONS in [str(a) for a in args]
        verdicts = [r.asDict() for r in spark.read.parquet(str(out / "verdicts.parquet")).collect()]
        quarantine = [r.asDict() for r in spark.read.parquet(str(out / "quarantine.parquet")).collect()]
        coverage = [r.asDict() for r in spark.read.parquet(str(out / "coverage.parquet")).collect()]
    assert len(verdicts) == doc["traces"]
    violating = {v["trace"]: v for v in verdicts if v["status"] == "violating"}
    # Exactly the planted violations, each found at the step where the variant first diverged.
    assert {t: v["step"] for t, v in violating.items()} == corpus.planted
    assert all(v["property"] and v["action"] for v in violating.values())
    itf_quarantined = {v["trace"] for v in verdicts if v["status"] == "quarantined" and v["line"] == 0}
    event_quarantined = {v["trace"] for v in verdicts if v["status"] == "quarantined" and v["line"] != 0
                         and not v["trace"].startswith("\x00")}
    assert itf_quarantined | event_quarantined == corpus.quarantined_traces
    # Exactly the damaged records are quarantined as damage, with their reasons and positions.
    primary = {(q["file"], q["line"]): q["reason"] for q in quarantine if q["primary"]}
    assert set(primary) == set(corpus.damaged)
    for pos, reason in primary.items():
        assert reason.startswith(corpus.damaged[pos]), (pos, reason)
    # Nothing lost: every record of a quarantined trace is in the quarantine output.
    assert len(quarantine) == doc["quarantined_records"]
    assert {q["trace"] for q in quarantine if q["trace"]} == {t for t in corpus.quarantined_traces
                                                             if not t.endswith(".itf.json")}
    actions = {c["name"]: c["count"] for c in coverage if c["kind"] == "action"}
    assert actions["VoteRequest"] > 0 and "CheckQuorumTimeout" in actions


def test_single_process_engine_agrees(default_run: tuple[dict[str, Any], Path], corpus: Corpus) -> None:
    files = expand_inputs([str(corpus.root)])
    acc = summary.empty()
    for outcome in run_local("raft", files.jsonl, files.itf):
        summary.add(acc, outcome)
    doc = summary.finish(acc, protocol="raft", seconds=1.0, known_actions=default_run[0]["coverage"]
                         ["actions_not_covered"] and None)
    ignore = ("seconds", "events_per_second", "coverage")
    spark_doc = default_run[0]
    assert {k: v for k, v in doc.items() if k not in ignore} == \
        {k: spark_doc[k] for k in doc if k not in ignore}
    assert doc["coverage"]["actions"] == spark_doc["coverage"]["actions"]
