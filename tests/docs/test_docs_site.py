"""kspec docs build: the strict mkdocs build with every protocol's generated pages."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from kspec.conformance import protocols


def test_docs_build_strict(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "kspec.conformance.cli", "docs", "build", "--out",
                           str(tmp_path / "site"), "--json"], capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(proc.stdout)
    site = Path(doc["site_dir"])
    for name in protocols.names():
        for page in ("index.html", "properties/index.html", "traces/index.html"):
            assert (site / "protocols" / name / page).exists(), f"{name}/{page} not built"
        traces = (site / "protocols" / name / "traces" / "index.html").read_text()
        assert 'class="kspec-sequence"' in traces and ("seq-arrow" in traces or "seq-note" in traces)
    raft = (site / "protocols" / "raft" / "index.html").read_text()
    # The role diagram is SVG drawn at build time from TRANSITIONS: one arrow per row of the table.
    from kspec.model.raft.node import TRANSITIONS

    assert 'class="kspec-states"' in raft and raft.count('class="state-edge"') == len(TRANSITIONS)
    assert "mermaid" not in raft
    # Offline: no page loads a script, style, font or image from the network.
    for page in site.rglob("*.html"):
        html = page.read_text()
        assert not re.search(r'<(script|img|link)[^>]+(src|href)="(https?:)?//', html), page
        assert "fonts.googleapis" not in html and "mermaid" not in html, page
    for page in ("design", "threat-model", "kafka-matrix"):
        assert (site / page / "index.html").exists(), page
    assert "VoteRequest" in raft and "Enabled in" in raft
    props = (site / "protocols" / "raft" / "properties" / "index.html").read_text()
    assert 'href="../../../spec/raft/#RAFT-INV-ELECTION-SAFETY"' in props
    assert "RAFT-PROOF-ONE-LEADER-PER-EPOCH" in props
    spec = (site / "spec" / "raft" / "index.html").read_text()
    assert 'id="RAFT-INV-ELECTION-SAFETY"' in spec
    share = (site / "protocols" / "share" / "properties" / "index.html").read_text()
    assert "tla/ShareCoordinator/#tla-no_loss" in share
    cli = (site / "reference" / "cli" / "index.html").read_text()
    assert "kspec explain" in cli and "kspec docs build" in cli
    assert (site / "performance" / "index.html").exists()
    # Nothing generated lands in docs/.
    assert not (Path(__file__).resolve().parents[2] / "docs" / "protocols").exists()
