"""Every command works with its defaults (issue #24 item 2): the commands README.md shows are run
here, each on small bounds where the command as written takes minutes (docs build writes into a
temporary directory instead of site/). bench/readme_commands.py runs them exactly as written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_run import run_cli
from tests.readme_commands import readme_commands, small


def test_readme_lists_every_command_kind() -> None:
    verbs = {" ".join(c[:2]) if c[0] in ("tla", "docs") else c[0] for c in readme_commands()}
    assert {"docs build", "tla check", "explore", "simulate", "conform"} <= verbs
    tla = {c[2] for c in readme_commands() if c[:2] == ["tla", "check"]}
    assert tla == {"raft", "voters", "share"}  # every protocol with a TLA+ spec (mm2, streams have none)
    assert ["conform", "raft", "--target", "reference"] in readme_commands()


@pytest.mark.parametrize("argv", readme_commands(), ids=" ".join)
def test_readme_command_works_with_its_defaults(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # a default output directory lands here
    run = small(argv)
    if run[:2] == ["docs", "build"]:
        run = [*run, "--out", str(tmp_path / "site")]
    code, out, err = run_cli([*run, "--json"], capsys)
    doc = json.loads(out) if out.strip() else {}
    if argv[0] == "explore" and run != argv:
        # At small bounds some witnesses are out of reach (a truncation needs three voters and
        # two epochs), so exit 1 with every property holding; the README's bounds reach them all
        # (bench/readme_commands.py).
        assert code in (0, 1) and doc["violations"] == [], err
        return
    assert code == 0, f"kspec {' '.join(run)}: exit {code}: {err.strip()}"
    if argv[:2] == ["tla", "check"]:
        assert doc["equal"] is True
        if argv[2] in ("raft", "voters"):
            assert doc["bounds"]["symmetry"] is False  # the default the spec models, not the model's
    if argv[0] == "conform":
        assert doc["verdict"] == "conforms"
