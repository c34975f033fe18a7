"""``kspec validate INPUT... --protocol P [--master URL] [--out DIR]``: recorded traces against
the model, at scale on Spark (``spec/trace-format.md``).

Exit 0 when every trace is valid, 1 when a trace violates the model or a record is
quarantined, 2 on a usage or input error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from kspec.conformance.cli import cli
from kspec.conformance.clikit import InputError, emit_json, json_option, on_terminal, progress_bar, protocol_info
from kspec.conformance.pipeline import summary
from kspec.conformance.pipeline.engine import SPLIT_BYTES
from kspec.conformance.pipeline.inputs import expand_inputs
from kspec.conformance.pipeline.judge import event_protocols
from kspec.conformance.pipeline.nodes import known_actions
from kspec.conformance.pipeline.reader import MAX_LINE_BYTES, MAX_RATIO, MIN_EXPANDED_BYTES, Limits


@cli.command("validate")
@click.argument("inputs", nargs=-1, required=True)
@click.option("--protocol", "-p", required=True, help="The protocol the traces record (raft, voters, ...).")
@click.option("--master", default="local[*]", show_default=True,
              help="Spark master URL: local[N], local[*], spark://HOST:PORT, yarn, k8s://...")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write verdicts.parquet, quarantine.parquet, coverage.parquet and summary.json here.")
@click.option("--max-line-bytes", type=click.IntRange(min=1), default=MAX_LINE_BYTES, show_default=True,
              help="A longer JSON Lines line is quarantined (its first bytes kept).")
@click.option("--max-expanded-bytes", type=click.IntRange(min=1), default=MIN_EXPANDED_BYTES,
              show_default=True, help="A .gz input may expand to this many bytes, or to "
              f"{MAX_RATIO}x its size if more; past that the rest of it is quarantined (a gzip bomb).")
@click.option("--split-bytes", type=click.IntRange(min=1), default=SPLIT_BYTES, show_default=True,
              help="Bytes of a plain JSON Lines file one task reads (a .gz file is one task).")
@json_option
def validate_cmd(inputs: tuple[str, ...], protocol: str, master: str, out: Path | None, max_line_bytes: int,
                 max_expanded_bytes: int, split_bytes: int, as_json: bool) -> None:
    """Replay every trace in INPUTS (JSON Lines event traces or ITF state traces: files,
    directories or globs) through PROTOCOL's model on Spark, and report what was violated,
    what was quarantined and what was covered."""
    protocol_info(protocol)
    files = expand_inputs(inputs)
    if files.jsonl and protocol not in event_protocols():
        raise InputError(f"JSON Lines event traces of {protocol} cannot be replayed node by node "
                         f"(only {', '.join(event_protocols())}); validate its ITF traces (*.itf.json): "
                         f"{files.jsonl[0]}")
    if out is not None:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise InputError(f"cannot create output directory {out}: {err.strerror}") from None
    from kspec.conformance.pipeline.spark import check_master, run_spark, spark_session

    check_master(master)
    known = sorted(known_actions(protocol)) if files.jsonl else []
    with progress_bar(f"validate {protocol}", None, on_terminal() and not as_json) as update, \
            spark_session(master) as spark:
        acc, seconds = run_spark(spark, protocol, files.jsonl, files.itf, None if out is None else str(out.resolve()),
                                 update=update, known_actions=known,
                                 limits=Limits(max_line_bytes=max_line_bytes, min_expanded_bytes=max_expanded_bytes),
                                 split_bytes=split_bytes)
    doc = summary.finish(acc, protocol=protocol, seconds=seconds, known_actions=known,
                         extra={"master": master, "inputs": len(files), "out": None if out is None else str(out)})
    if out is not None:
        (out / "summary.json").write_text(json.dumps(doc, indent=2))
    if as_json:
        emit_json(doc)
    else:
        _print_summary(doc)
    raise click.exceptions.Exit(1 if doc["violating"] or doc["quarantined"] else 0)


def _print_summary(doc: dict[str, Any]) -> None:
    click.echo(f"validated {doc['traces']} {doc['protocol']} traces, {doc['events']} events "
               f"({doc['events_per_second']} events/s on {doc['master']}): {doc['valid']} valid, "
               f"{doc['violating']} violating, {doc['quarantined']} quarantined")
    for prop, n in doc["violations_by_property"].items():
        click.echo(f"  VIOLATED {prop}: {n} traces")
    for reason, n in doc["quarantine_by_reason"].items():
        click.echo(f"  quarantined ({reason}): {n} records")
    cov = doc["coverage"]
    if cov["actions_not_covered"]:
        click.echo(f"  actions never covered: {', '.join(cov['actions_not_covered'])}")
    if doc["out"]:
        click.echo(f"  wrote verdicts.parquet, quarantine.parquet, coverage.parquet, summary.json to {doc['out']}")
