"""spec/raft.md and the KRaft model agree: every spec ID the model cites is defined, every
property has its own entry, and the tables the spec reproduces match the code."""

from __future__ import annotations

import re
from pathlib import Path

from kspec.model.raft import BOUNDS
from kspec.model.raft.node import TRANSITIONS
from kspec.model.raft.properties import raft_properties
from kspec.model.raft.variants import CATALOGUE

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec" / "raft.md"
MODEL = ROOT / "model" / "raft"
ID = re.compile(r"RAFT-[A-Z0-9-]+[A-Z0-9]")


def _spec() -> str:
    assert SPEC.is_file(), f"{SPEC} is missing"
    return SPEC.read_text(encoding="utf-8")


def _rows(text: str) -> list[list[str]]:
    """The cells of every Markdown table row (separator rows left out)."""
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("|") and line.endswith("|") and not re.fullmatch(r"\|[-| :]+\|", line):
            rows.append([c.strip() for c in line[1:-1].split("|")])
    return rows


def defined_ids(text: str) -> set[str]:
    """IDs the spec defines: a bold ``**ID**`` entry, or the first cell of a table row."""
    found = set(re.findall(r"\*\*(RAFT-[A-Z0-9-]+[A-Z0-9])\*\*", text))
    found |= {row[0] for row in _rows(text) if ID.fullmatch(row[0])}
    return found


def cited_ids() -> dict[str, set[str]]:
    """Spec IDs cited in model/raft/*.py, by file."""
    cited: dict[str, set[str]] = {}
    for path in sorted(MODEL.glob("*.py")):
        ids = set(ID.findall(path.read_text(encoding="utf-8")))
        if ids:
            cited[path.name] = ids
    return cited


def test_defined_ids_parser() -> None:
    text = "- **RAFT-RULE-X** — a rule\n| RAFT-INV-Y | Y |\n|---|---|\nsee RAFT-RULE-Z\n"
    assert defined_ids(text) == {"RAFT-RULE-X", "RAFT-INV-Y"}


def test_model_cites_ids() -> None:
    # The regex must find the IDs the model is known to cite, or the next test proves nothing.
    everything = set().union(*cited_ids().values())
    assert {"RAFT-RULE-VOTE-GRANT", "RAFT-RULE-HW", "RAFT-MODEL-INERT-RESPONSES", "RAFT-OBS"} <= everything


def test_every_cited_id_is_defined() -> None:
    defined = defined_ids(_spec())
    missing = sorted(f"{name}: {i}" for name, ids in cited_ids().items() for i in ids if i not in defined)
    assert not missing, "cited in model/raft but not defined in spec/raft.md:\n" + "\n".join(missing)


def test_every_property_has_its_own_entry() -> None:
    rows = {row[0]: row for row in _rows(_spec()) if ID.fullmatch(row[0])}
    problems = []
    for prop in raft_properties():
        row = rows.get(prop.id)
        if row is None:
            problems.append(f"{prop.id} ({prop.name}) has no table row")
        elif len(row) < 3 or row[1] != prop.name or row[2] != prop.kind:
            problems.append(f"{prop.id}: row {row[:3]} does not name {prop.name} ({prop.kind})")
    assert not problems, "\n".join(problems)


def test_property_rows_name_their_witnesses_and_variants() -> None:
    rows = {row[0]: row for row in _rows(_spec()) if ID.fullmatch(row[0])}
    breaks: dict[str, set[str]] = {}
    for variant, entry in CATALOGUE.items():
        breaks.setdefault(entry.breaks, set()).add(variant)
    problems = []
    for prop in raft_properties():
        if prop.kind not in ("always", "always_step"):
            continue
        row = rows[prop.id]
        witnesses = {w.strip() for w in row[4].split(",")}
        if witnesses != set(prop.witnessed_by):
            problems.append(f"{prop.id}: witnesses {sorted(witnesses)} != {sorted(prop.witnessed_by)}")
        named = set(re.findall(r"`([a-z-]+)`", row[5]))
        if named != breaks.get(prop.name, set()):
            problems.append(f"{prop.id}: variants {sorted(named)} != {sorted(breaks.get(prop.name, set()))}")
    assert not problems, "\n".join(problems)


def test_variant_table_matches_catalogue() -> None:
    rows = {row[0].strip("`"): row for row in _rows(_spec()) if re.fullmatch(r"`[a-z-]+`", row[0])}
    problems = []
    for variant, entry in CATALOGUE.items():
        prop_name = entry.breaks
        row = rows.get(variant)
        if row is None or not row[-1].startswith(prop_name):
            problems.append(f"{variant} breaks {prop_name}: spec row {row}")
    assert not problems, "\n".join(problems)


def test_transition_table_is_reproduced() -> None:
    table = {(r[0], r[1]): r[2] for r in _rows(_spec()) if len(r) == 3 and (r[0], r[1]) in TRANSITIONS}
    assert table == TRANSITIONS


def test_bounds_table_matches_bounds() -> None:
    rows = {row[0].strip("`"): row for row in _rows(_spec()) if row and row[0].startswith("`")}
    problems = []
    for bound in BOUNDS:
        row = rows.get(bound.name)
        shown = str(bound.default).lower()
        if row is None or row[1] != shown:
            problems.append(f"bound {bound.name} (default {shown}): spec row {row}")
    assert not problems, "\n".join(problems)
