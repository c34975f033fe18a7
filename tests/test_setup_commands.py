"""The README's set-up (issue #24 item 1): two commands, .ci/run runs exactly the second, every
dependency pinned in constraints.txt, nothing points outside the repository."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_every_dependency_is_pinned() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_name(r) for r in project["dependencies"]}
    wanted |= {_name(r) for extra in project["optional-dependencies"].values() for r in extra}
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not pinned with =="
            pins[name.lower().replace("_", "-")] = version
    assert not wanted - set(pins), f"not pinned in constraints.txt: {sorted(wanted - set(pins))}"
    assert "kspec" not in pins


def test_readme_has_two_setup_commands_and_ci_runs_the_second() -> None:
    readme = (ROOT / "README.md").read_text()
    setup = readme[readme.index("## Set up"):readme.index("## Every command")]
    commands = re.findall(r"```sh\n\s*(.*?)\n\s*```", setup, re.S)
    assert commands == ["./scripts/run-main-job", "./scripts/run-tests"]
    ci = [ln for ln in (ROOT / ".ci" / "run").read_text().splitlines()
          if ln and not ln.startswith(("#", "set ", "cd "))]
    assert ci == ["./scripts/run-tests"]
    for script in ("run-main-job", "run-tests", "setup-test-deps"):
        path = ROOT / "scripts" / script
        assert path.stat().st_mode & 0o111, f"{script} is not executable"
        assert subprocess.run(["bash", "-n", str(path)]).returncode == 0
        assert "constraints.txt" in (ROOT / "scripts" / "lib.sh").read_text()


def test_nothing_points_outside_the_repository() -> None:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for name in files:
        path = ROOT / name
        if path.suffix in (".md", ".py", ".yml", ".toml", ".sh", ".cfg", ".txt") or "scripts/" in name:
            text = path.read_text(errors="replace")
            assert "../" + "shared" not in text, name
