"""A rule set named by the target itself (``model_config``; an exec hello's lands there too) is
input like ``--set``: a value the driver has no rules for is a one-line error naming the target,
the key and the value, exit 2, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-c", "from kspec.conformance.cli import main; main()"]
MODULE = '''
from kspec.conformance.targets.reference.share import ShareShard, ShareTarget
class Shard(ShareShard):
    kafka_version = {version!r}
def target():
    return ShareTarget("claims-{version}", Shard)
'''


@pytest.mark.parametrize(("version", "why"), [("4.9", "no share coordinator rules for Kafka 4.9"),
                                              ("five", "'five' is not a Kafka version")])
def test_bad_kafka_version_from_the_target(tmp_path: Path, version: str, why: str) -> None:
    (tmp_path / "claims.py").write_text(MODULE.format(version=version))
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    env.pop("KSPEC_DEBUG", None)
    done = subprocess.run([*CLI, "conform", "share", "--target", "python:claims:target", "--examples", "1",
                           "--out", str(tmp_path)], capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith("kspec: error: --target claims-") and f"kafka_version={version!r}" in lines[0]
    assert why in lines[0]
