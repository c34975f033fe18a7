"""The example protocol (tests/lease_protocol, a toy lease register) goes through the whole of kspec
from its own files alone: it registers itself, the explorer checks its model, the conformance suite
drives its reference target (conforms) and its mutant (caught), and the docs generator draws it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kspec.conformance import protocols
from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets.registry import resolve_target
from kspec.model.catalog import UnknownProtocol, get_protocol
from kspec.model.core.explorer import explore

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
PACKAGE = TESTS / "lease_protocol"


@pytest.fixture
def lease() -> Iterator[protocols.ConformanceProtocol]:
    from lease_protocol import DECLARATION

    protocols.register(DECLARATION)
    yield DECLARATION
    protocols.unregister("lease")


def test_the_example_touches_at_most_five_files() -> None:
    files = sorted(p.name for p in PACKAGE.iterdir() if p.is_file())
    assert len(files) <= 5, files
    # Nothing outside its package (and this test) names it: adding it edited no kspec file.
    proc = subprocess.run(["git", "grep", "-l", "-e", "lease_protocol", "-e", "lease-write-without-lease", "--",
                           ":!tests/lease_protocol", ":!tests/conformance/test_example_protocol.py",
                           ":!CONTRIBUTING.md"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 1 and not proc.stdout, proc.stdout


def test_an_unregistered_name_is_an_error() -> None:
    with pytest.raises(UnknownProtocol, match="unknown protocol 'lease'"):
        protocols.get("lease")


def test_explore_conform_and_docs(lease: protocols.ConformanceProtocol, tmp_path: Path) -> None:
    info = get_protocol("lease")
    result = explore(info.make(**{b.name: b.default for b in info.bounds}))
    assert result.ok and result.distinct_states > 1
    assert all(result.witnesses.values()), result.witnesses

    good = run_conformance("lease", resolve_target("reference", "lease"), examples=20, seed_value=0,
                           out_dir=tmp_path)
    assert good.verdict == "conforms", good.finding and good.finding.line()
    bad = run_conformance("lease", resolve_target("mutant:lease-write-without-lease", "lease"), examples=40,
                          seed_value=0, out_dir=tmp_path)
    assert bad.verdict == "diverges" and bad.finding is not None, bad.verdict

    from kspec.conformance.explain.site import generate_pages, nav

    pages = generate_pages()
    model_page = pages["protocols/lease/index.md"]
    assert "Role transitions" in model_page and "lease_protocol.model.TRANSITIONS" in model_page
    assert "LEASE-INV-HOLDER-HAS-EPOCH" in pages["protocols/lease/properties.md"]
    assert "protocols/lease/traces.md" in pages
    assert any("lease" in section for section in nav(pages)[0]["Protocols"])


def test_an_entry_point_registers_it_for_the_cli(tmp_path: Path) -> None:
    # An installed plugin, as pip would leave it: a dist-info with an entry point in kspec.protocols.
    dist = tmp_path / "kspec_lease-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: kspec-lease\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[{protocols.ENTRY_POINT_GROUP}]\nlease = lease_protocol:DECLARATION\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(TESTS)])}

    def kspec(*args: str) -> Any:
        proc = subprocess.run([sys.executable, "-m", "kspec.conformance.cli", *args, "--json"], env=env,
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert proc.returncode in (0, 1), proc.stderr[-2000:]
        return json.loads(proc.stdout)

    listed = {(row["name"], row["kind"]) for row in kspec("targets") if row["protocol"] == "lease"}
    assert listed == {("reference", "reference"), ("mutant:lease-write-without-lease", "mutant")}, listed
    conforms = kspec("conform", "lease", "--target", "reference", "--examples", "20", "--seed", "0",
                     "--out", str(tmp_path / "out"))
    assert conforms["verdict"] == "conforms", conforms

    explored = kspec("explore", "lease")
    assert explored["protocol"] == "lease" and explored["complete"] and not explored["violations"], explored
    caught = kspec("conform", "lease", "--target", "mutant:lease-write-without-lease", "--examples", "40",
                   "--seed", "0", "--out", str(tmp_path / "out"))
    assert caught["verdict"] == "diverges", caught
