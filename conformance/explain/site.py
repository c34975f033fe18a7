"""The generated pages of the docs site, built from ``spec/``, ``tla/`` and the model itself.

Nothing here is committed as output: ``docs/hooks/generate.py`` calls :func:`generate_pages`
at every ``mkdocs build`` and hands the pages to mkdocs as generated files. Per protocol: the
model reference (state, roles, messages, actions with what enables them and what they change,
bounds, broken variants, a role or phase diagram), the properties with their spec IDs linked
to the TLA+ definition and the Z3 obligations that check them, and example traces from the
simulator as sequence diagrams.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import random
import re
import types
import typing
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from kspec.conformance import protocols
from kspec.conformance.render import describe_action
from kspec.model.catalog import get_protocol
from kspec.model.core.codec import encode

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

        site.obligations = list(all_obligations())
    except ImportError:
        site.obligations = []
    site.pages["reference/proofs.md"] = _proofs_page(site)
    site.pages["reference/cli.md"] = cli_page()
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


# -- per-protocol pages -------------------------------------------------------------------------------------


def _package_classes(name: str) -> tuple[dict[str, type], dict[str, Any]]:
    """The dataclasses and the union aliases defined in a protocol's package."""
    pkg = importlib.import_module(protocols.get(name).model)
    classes: dict[str, type] = {}
    unions: dict[str, Any] = {}
    path = pkg.__spec__.submodule_search_locations if pkg.__spec__ else None  # None: a one-module model
    modules = [pkg] + [importlib.import_module(f"{pkg.__name__}.{m.name}") for m in pkgutil.iter_modules(path or [])]
    for mod in modules:
        for key, value in vars(mod).items():
            if isinstance(value, type) and dataclasses.is_dataclass(value):
                classes.setdefault(value.__name__, value)
            elif (isinstance(value, types.UnionType) or typing.get_origin(value) is typing.Union) and \
                    value.__module__ if hasattr(value, "__module__") else True:
                if key not in unions:
                    unions[key] = value
    return classes, unions


def _members(union: Any) -> list[type]:
    out: list[type] = []
    for arg in typing.get_args(union):
        if typing.get_args(arg) and not isinstance(arg, type):
            out += [m for m in _members(arg) if m not in out]
        elif isinstance(arg, type) and dataclasses.is_dataclass(arg) and arg not in out:
            out.append(arg)
    return out


def _doc(cls: type) -> str:
    doc = cls.__doc__ or ""
    if doc.startswith(cls.__name__ + "("):  # the dataclass default: no docstring written
        return ""
    return " ".join(doc.split())


def _fields_table(cls: type) -> list[str]:
    fields = dataclasses.fields(cls)
    if not fields:
        return ["_(no fields)_", ""]
    rows = ["| field | type | default |", "|---|---|---|"]
    for f in fields:
        default = "" if f.default is dataclasses.MISSING else f"`{f.default!r}`"
        if f.default_factory is not dataclasses.MISSING:
            default = "(empty)"
        kind = str(f.type).replace("|", "\\|")
        rows.append(f"| `{f.name}` | `{kind}` | {default} |")
    return [*rows, ""]


def _class_block(cls: type, page: str, site: Site, level: str = "###") -> list[str]:
    doc = _link_ids(_doc(cls), page, site)
    return [f'<a id="{cls.__name__}"></a>', "", f"{level} {cls.__name__}", "", *([doc, ""] if doc else []),
            *_fields_table(cls)]


def _link_ids(text: str, page: str, site: Site) -> str:
    return SPEC_ID.sub(lambda m: _id_link(m.group(0), page, site).strip("`") if m.group(0) in site.spec_anchors
                       else m.group(0), text)


@dataclass
class ActionStats:
    tried: int = 0
    enabled: int = 0
    examples: list[tuple[str, list[str]]] = field(default_factory=list)


def _sample_actions(model: Any, seed: int = 7, walks: int = 4, steps: int = 60) -> dict[str, ActionStats]:
    """Random walks: how often each kind of action is enabled among those offered, and what it
    changed in the first states where it ran (the state diff)."""
    from kspec.conformance.explain.values import diff, plain

    stats: dict[str, ActionStats] = {}
    rng = random.Random(seed)
    for state in list(model.init_states())[:1] * walks:
        for _ in range(steps):
            enabled = []
            for action in model.actions(state):
                st = stats.setdefault(type(action).__name__, ActionStats())
                st.tried += 1
                nxt = model.next_state(state, action)
                if nxt is None:
                    continue
                st.enabled += 1
                enabled.append((action, nxt))
            if not enabled:
                break
            action, nxt = rng.choice(enabled)
            st = stats[type(action).__name__]
            if len(st.examples) < 2:
                title = describe_action(model, action)
                changes = [c.text(110) for c in diff(plain(encode(state)), plain(encode(nxt)))][:6]
                st.examples.append((title, changes))
            state = nxt
            if not model.within_bounds(state):
                break
    return stats


def _role_diagram(name: str, model: Any) -> list[str]:
    """A state diagram drawn as inline SVG at build time (no script, no CDN: the site works
    offline): from a transition table where the model has one (KRaft's role table), else the
    phases a ``phase`` field goes through in random walks."""
    from kspec.conformance.explain.svg import state_diagram_svg

    declared = protocols.get(name)
    table = declared.transition_table()
    if table is not None:
        where = (declared.transitions or "").replace(":", ".")
        lines = ["## Role transitions", "",
                 f"Drawn from `{where}`, the table the checked role constructors "
                 "enforce: a transition not listed raises an error naming from-role, to-role and arguments." +
                 (" The voter-set model steps its replicas with the same node." if name == "voters" else ""), ""]
        edges = [(src, dst, why) for (src, dst), why in table.items()]
        svg = state_diagram_svg(declared.initial_role, edges, f"{name} role transitions")
        rows = ["| from | to | when |", "|---|---|---|"] + [f"| {a} | {b} | {escape(w)} |" for a, b, w in edges]
        return [*lines, '<div class="kspec-diagram" markdown="0" style="overflow-x:auto">', svg, "</div>", "",
                *rows, ""]
    seen: Counter[tuple[str, str, str]] = Counter()
    rng = random.Random(3)
    state0 = model.init_states()[0]
    if not hasattr(state0, "phase"):
        return []
    for _ in range(20):
        state = state0
        for _ in range(40):
            options = [(a, n) for a in model.actions(state) if (n := model.next_state(state, a)) is not None]
            if not options:
                break
            action, nxt = rng.choice(options)
            if nxt.phase != state.phase or type(action).__name__ in ("Join", "Leave", "Assign"):
                seen[(state.phase, nxt.phase, type(action).__name__)] += 1
            state = nxt
    if not seen:
        return []
    lines = ["## Phases", "", "The values of the state's `phase` field and the actions that move between them, "
             "as observed in 20 random walks of the model.", ""]
    edges = sorted({(str(s), str(d), a) for s, d, a in seen})
    svg = state_diagram_svg(str(state0.phase), edges, f"{name} phases")
    return [*lines, '<div class="kspec-diagram" markdown="0" style="overflow-x:auto">', svg, "</div>", ""]


def _model_page(name: str, site: Site) -> str:
    page = f"protocols/{name}/index.md"
    info = get_protocol(name)
    model = info.make()
    classes, unions = _package_classes(name)
    state_cls = type(model.init_states()[0])
    declared = protocols.get(name)
    spec = declared.docs[0] if declared.docs else None
    lines = [f"# {name}", "", info.summary, "",
             (f"Spec: [{spec}]({_rel(page, spec)}) · " if spec else "")
             + "properties: [properties](properties.md) · example traces: [traces](traces.md) · model: "
             f"`{declared.model}`", ""]
    lines += _role_diagram(name, model)
    # The state: the system state class and every package dataclass its fields name.
    lines += ["## State", "", f"The system state is `{state_cls.__name__}`; below it, the classes its fields hold.", ""]
    lines += _class_block(state_cls, page, site)
    shown = {state_cls.__name__}
    sections: dict[str, list[type]] = {}
    for alias, union in unions.items():
        section = UNION_SECTIONS.get(alias)
        if section:
            for cls in _members(union):
                if cls.__name__ not in shown:
                    sections.setdefault(section, []).append(cls)
                    shown.add(cls.__name__)
    queue = [state_cls]
    while queue:
        cls = queue.pop()
        for f in dataclasses.fields(cls):
            for word in re.findall(r"[A-Za-z_]\w*", str(f.type)):
                ref = classes.get(word)
                if ref is not None and word not in shown:
                    shown.add(word)
                    lines += _class_block(ref, page, site)
                    queue.append(ref)
    for section in SECTION_ORDER:
        if section in sections:
            lines += [f"## {section}", ""]
            for cls in sections[section]:
                lines += _class_block(cls, page, site)
    # Actions: from the model's Action union, with what enables them and what they change.
    actions = _members(unions["Action"]) if "Action" in unions else []
    sim_bounds = {**{b.name: b.default for b in info.bounds}, **info.simulation_bounds}
    stats = _sample_actions(info.make(**sim_bounds))
    lines += ["## Actions", "",
              "The system-level actions (`actions(state)` offers them, `next_state` returns None when one is "
              "disabled). *Enabled* is how often an offered action of this kind was enabled in 4 random walks "
              "of 60 steps at the simulation bounds; *effect* is the state diff of the first steps it took.", ""]
    for cls in actions:
        lines += _class_block(cls, page, site)
        st = stats.get(cls.__name__)
        if st and st.tried:
            lines += [f"Enabled in {st.enabled} of {st.tried} offers ({100 * st.enabled / st.tried:.0f}%).", ""]
            for title, changes in st.examples:
                lines += [f"- example `{title}`:"] + [f"    - `{c}`" for c in changes or ["(no change)"]]
            lines.append("")
    # Bounds and broken variants.
    lines += ["## Bounds", "", "| bound | default | simulation | range | meaning |", "|---|---|---|---|---|"]
    for b in info.bounds:
        rng = f"{b.minimum}..{b.maximum if b.maximum is not None else ''}" if not isinstance(b.default, bool) else ""
        lines.append(f"| `{b.name}` | `{b.default}` | `{info.simulation_bounds.get(b.name, b.default)}` | {rng} | "
                     f"{b.help} |")
    lines += ["", "## Broken variants", "",
              f"Each is a deliberately wrong model: `kspec explore {name} --variant NAME` must find a violation.", ""]
    for v in sorted(info.variants):
        lines.append(f"- `{v}`")
    return "\n".join(lines) + "\n"


def _properties_page(name: str, site: Site) -> str:
    page = f"protocols/{name}/properties.md"
    model = get_protocol(name).make()
    by_rule: dict[str, list[Any]] = {}
    for ob in site.obligations:
        for r in ob.rules:
            by_rule.setdefault(r, []).append(ob)
    lines = [f"# {name}: properties", "",
             "Every `always` property has `sometimes` witnesses that show it is not vacuous. The spec ID links to "
             "its definition in the spec; *TLA+* links to the definition of the same name in a TLA+ module; "
             "*Z3* lists the proof obligations that cite the ID.", "",
             "| spec ID | name | kind | TLA+ | Z3 | witnessed by |", "|---|---|---|---|---|---|"]
    props = list(model.properties())
    for p in props:
        tla = site.tla_defs.get(p.name)
        tla_cell = f"[`{p.name}`]({_rel(page, tla)})" if tla else "—"
        obs = by_rule.get(p.id, [])
        z3 = ", ".join(f"[`{o.id}`]({_rel(page, 'reference/proofs.md')}#{o.id})" for o in obs) or "—"
        wit = ", ".join(f"[{w}](#{_slug(w)})" for w in p.witnessed_by) or ""
        lines.append(f"| {_id_link(p.id, page, site)} | [{p.name}](#{_slug(p.name)}) | {p.kind} | {tla_cell} | "
                     f"{z3} | {wit} |")
    lines.append("")
    for p in props:
        doc = _link_ids(" ".join(p.doc.split()), page, site)
        lines += [f'<a id="{_slug(p.name)}"></a>', "", f"### {p.name}", "", f"`{p.id}` · {p.kind}", "",
                  *([doc, ""] if doc else [])]
    return "\n".join(lines) + "\n"


def _slug(name: str) -> str:
    return "prop-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _traces_page(name: str) -> str:
    """A simulated trace and, for the first broken variant, its shortest counterexample, both as
    sequence diagrams with their steps."""
    from kspec.conformance.explain.load import _from_model_trace
    from kspec.conformance.explain.svg import sequence_svg
    from kspec.conformance.render import trace_json
    from kspec.model.core.explorer import explore, simulate

    info = get_protocol(name)
    sim_bounds = {**{b.name: b.default for b in info.bounds}, **info.simulation_bounds}
    result = simulate(info.make(**sim_bounds), seed=1, steps=24, traces=1, stop_on_violation=False)
    lines = [f"# {name}: example traces", "",
             f"Generated at build time by the simulator (`kspec simulate {name} --seed 1 --steps 24`), drawn as a "
             "sequence diagram; `kspec explain` draws the same for any trace or counterexample.", "",
             "## A simulated run", ""]
    doc = {"protocol": name, "trace": trace_json(result.traces[0])}
    lines += _trace_block(_from_model_trace(Path(f"simulate {name} --seed 1"), doc, name, None), sequence_svg)
    if info.variants:
        variant = sorted(info.variants)[0]
        found = explore(info.variants[variant](**{b.name: b.default for b in info.bounds}), max_states=50_000)
        lines += [f"## A counterexample: variant `{variant}`", ""]
        if found.violations:
            v = found.violations[0]
            doc = {"protocol": name, "property": v.property, "name": v.name, "trace": trace_json(v.trace)}
            lines += [f"`kspec explore {name} --variant {variant}` finds the shortest trace to a violation of "
                      f"`{v.property}` ({v.name}):", ""]
            lines += _trace_block(_from_model_trace(Path(f"explore {name} --variant {variant}"), doc, name, variant),
                                  sequence_svg)
        else:
            lines += [f"No violation within 50000 states at the default bounds; run `kspec explore {name} "
                      f"--variant {variant}` with larger bounds.", ""]
    return "\n".join(lines) + "\n"


def _trace_block(trace: Any, sequence_svg: Any) -> list[str]:
    svg = sequence_svg(trace, link_steps=False)
    lines = ['<div class="kspec-diagram" markdown="0" style="overflow-x:auto">', svg, "</div>", "",
             "| step | node | action | state changes |", "|---|---|---|---|"]
    for s in trace.steps:
        changes = "<br>".join(escape(c.text(90)).replace("|", "\\|") for c in s.changes[:5])
        if len(s.changes) > 5:
            changes += f"<br>… {len(s.changes) - 5} more"
        mark = " ✗" if s.failed else ""
        title = escape(s.title).replace("|", "\\|")
        lines.append(f"| {s.index}{mark} | {escape(s.actor or '')} | {title} | {changes} |")
    if trace.failure:
        lines += ["", f"**Failed at step {trace.failed_step}:** {escape(trace.failure)}"]
    return [*lines, ""]
