"""The generated pages of the docs site, built from ``spec/``, ``tla/`` and the model itself.

Nothing here is committed as output: ``docs/hooks/generate.py`` calls :func:`generate_pages`
at every ``mkdocs build`` and hands the pages to mkdocs as generated files. Per protocol: the
model reference (state, roles, messages, actions with what enables them and what they change,
bounds, broken variants, a role or phase diagram), the properties with their spec IDs linked
to the TLA+ definition and the Z3 obligations that check them, and example traces from the
simulator as sequence diagrams.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kspec.conformance import protocols

ROOT = Path(__file__).resolve().parents[2]
SPEC_ID = re.compile(r"\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+){2,}\b")
UNION_SECTIONS = {
    "Role": "Roles", "Message": "Messages", "Request": "Messages", "Response": "Messages", "Record": "Records",
    "Timer": "Inputs", "Input": "Inputs", "VoterInput": "Inputs", "Effect": "Effects", "Output": "Effects",
    "VoterOutput": "Effects",
}
SECTION_ORDER = ["Roles", "Messages", "Records", "Inputs", "Effects"]


@dataclass
class Site:
    """What the pages link between: spec anchors, TLA+ definitions, Z3 obligations."""

    spec_anchors: dict[str, str] = field(default_factory=dict)  # spec ID -> "spec/raft.md#ID"
    tla_defs: dict[str, str] = field(default_factory=dict)  # definition name -> "tla/X.md#tla-name"
    obligations: list[Any] = field(default_factory=list)
    pages: dict[str, str] = field(default_factory=dict)


def generate_pages(root: Path = ROOT) -> dict[str, str]:
    """Every generated page: docs-relative path -> Markdown."""
    site = Site()
    for spec in sorted((root / "spec").glob("*.md")):
        site.pages[f"spec/{spec.name}"] = _spec_page(spec, site)
    for tla in sorted((root / "tla").glob("*.tla")):
        site.pages[f"tla/{tla.stem}.md"] = _tla_page(tla, site)
    try:
        from kspec.model.proofs import all_obligations

        protocols.protocols()  # every declared protocol's obligation modules are registered
        site.obligations = list(all_obligations())
    except ImportError:
        site.obligations = []
    site.pages["reference/proofs.md"] = _proofs_page(site)
    site.pages["reference/cli.md"] = cli_page()
    from kspec.conformance.explain.protocol_pages import _model_page, _properties_page, _traces_page

    for name in protocols.names():
        base = f"protocols/{name}"
        site.pages[f"{base}/index.md"] = _model_page(name, site)
        site.pages[f"{base}/properties.md"] = _properties_page(name, site)
        site.pages[f"{base}/traces.md"] = _traces_page(name)
    return site.pages


def nav(pages: dict[str, str]) -> list[Any]:
    """The nav sections for the generated pages."""
    sections = [{name: [{"Model": f"protocols/{name}/index.md"}, {"Properties": f"protocols/{name}/properties.md"},
                        {"Example traces": f"protocols/{name}/traces.md"}]} for name in protocols.names()]
    specs = [{_title(p): p} for p in sorted(pages) if p.startswith("spec/")]
    tla = [{Path(p).stem: p} for p in sorted(pages) if p.startswith("tla/")]
    reference = [{"CLI": "reference/cli.md"}, {"Z3 proof obligations": "reference/proofs.md"}]
    if tla:
        reference.append({"TLA+ specs": tla})  # type: ignore[dict-item]
    return [{"Protocols": sections}, {"Specs": specs}, {"Reference": reference}]


def _title(page: str) -> str:
    return Path(page).stem.replace("-", " ")


def _rel(from_page: str, to: str) -> str:
    """A link from one docs page to another (mkdocs resolves links relative to the page)."""
    depth = from_page.count("/")
    return "../" * depth + to


# -- spec and TLA+ pages ------------------------------------------------------------------------------------


def _spec_page(path: Path, site: Site) -> str:
    """The spec with an anchor at the place each ID is defined (a bold list item or a table row)."""
    page = f"spec/{path.name}"
    out = []
    for line in path.read_text().splitlines():
        m = re.match(r"^(\s*[-*]\s+)\*\*(" + SPEC_ID.pattern[2:-2] + r")\*\*", line) or \
            re.match(r"^(\|\s*)(" + SPEC_ID.pattern[2:-2] + r")\s*\|", line)
        if m and m.group(2) not in site.spec_anchors:
            site.spec_anchors[m.group(2)] = f"{page}#{m.group(2)}"
            line = line[: m.end(1)] + f'<a id="{m.group(2)}"></a>' + line[m.end(1):]
        out.append(line)
    return "\n".join(out) + "\n"


TLA_DEF = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\([^)]*\))?\s*==", re.M)


def _tla_page(path: Path, site: Site) -> str:
    text = path.read_text()
    page = f"tla/{path.stem}.md"
    defs = list(TLA_DEF.finditer(text))
    cfg = path.with_suffix(".cfg")
    checked = set(re.findall(r"^\s+([A-Za-z_]\w*)\s*$", cfg.read_text(), re.M)) if cfg.exists() else set()
    lines = [f"# {path.stem}", "", f"The TLA+ module `tla/{path.name}`" +
             (f", checked by TLC with `tla/{cfg.name}`" if cfg.exists() else "") +
             ". Each definition below has an anchor; the protocol pages link a property to the definition of "
             "the same name.", ""]
    if checked:
        lines += ["Checked by TLC: " + ", ".join(f"[`{n}`](#tla-{n})" for n in sorted(checked)
                                                 if any(m.group(1) == n for m in defs)), ""]
    head = text[: defs[0].start()] if defs else text
    lines += ["## Module header", "", "```", head.rstrip(), "```", "", "## Definitions", ""]
    for i, m in enumerate(defs):
        name = m.group(1)
        end = defs[i + 1].start() if i + 1 < len(defs) else len(text)
        body = text[m.start():end].rstrip()
        if name in site.tla_defs and site.tla_defs[name].startswith(page):
            continue  # a second definition of the same name (a LET or a redefinition): keep the first
        site.tla_defs.setdefault(name, f"{page}#tla-{name}")
        mark = " (checked by TLC)" if name in checked else ""
        lines += [f'<a id="tla-{name}"></a>', "", f"### {name}{mark}", "", "```", body, "```", ""]
    return "\n".join(lines)


def _proofs_page(site: Site) -> str:
    page = "reference/proofs.md"
    lines = ["# Z3 proof obligations", "",
             "Each obligation is a claim about the model's rules, discharged with Z3 by `kspec prove`. "
             "Expected `refuted` obligations are deliberate: they show that a weaker rule is unsafe.", "",
             "| ID | name | rules | expected |", "|---|---|---|---|"]
    for ob in site.obligations:
        rules = ", ".join(_id_link(r, page, site) for r in ob.rules)
        lines.append(f'| <a id="{ob.id}"></a>`{ob.id}` | {ob.name} | {rules} | {ob.expected} |')
    lines.append("")
    for ob in site.obligations:
        doc = " ".join((ob.doc or "").split())
        if doc:
            lines += [f"**{ob.id}**: {doc}", ""]
    if not site.obligations:
        lines.append("No obligations found.")
    return "\n".join(lines) + "\n"


def _id_link(spec_id: str, page: str, site: Site) -> str:
    target = site.spec_anchors.get(spec_id)
    return f"[`{spec_id}`]({_rel(page, target)})" if target else f"`{spec_id}`"


# -- CLI reference ------------------------------------------------------------------------------------------


def cli_page() -> str:
    """Every ``kspec`` verb: usage, help and options, read from the Click commands."""
    import click

    from kspec.conformance.cli import _load_commands, cli

    _load_commands()
    lines = ["# CLI reference", "", "Generated from the `kspec` command itself. Every verb takes `--json` and "
             "prints one JSON document; exit 0 holds / conforms, 1 violation or divergence, 2 usage or input "
             "error (one line on stderr).", ""]
    root = click.Context(cli, info_name="kspec")

    def walk(cmd: click.Command, ctx: click.Context, path: str) -> Iterator[tuple[str, click.Command, click.Context]]:
        yield path, cmd, ctx
        if isinstance(cmd, click.Group):
            for name in sorted(cmd.commands):
                sub = cmd.commands[name]
                yield from walk(sub, click.Context(sub, info_name=name, parent=ctx), f"{path} {name}")

    for path, cmd, ctx in walk(cli, root, "kspec"):
        if path == "kspec":
            continue
        lines += [f"## `{path}`", "", "```", cmd.get_usage(ctx).replace("Usage: ", ""), "```", ""]
        help_text = (cmd.help or "").strip()
        if help_text:
            lines += [help_text.replace("\b\n", ""), ""]
        rows = []
        for param in cmd.params:
            record = param.get_help_record(ctx) if isinstance(param, click.Option) else None
            if record:
                rows.append(f"| `{record[0]}` | {record[1].replace('|', '/')} |")
        if rows:
            lines += ["| option | meaning |", "|---|---|", *rows, ""]
    return "\n".join(lines) + "\n"
