"""The generated pages of one protocol: its model (state, classes, role diagram, actions), its
properties, and example traces drawn as sequence diagrams (``site.generate_pages`` calls them)."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import random
import re
import types
import typing
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from kspec.conformance import protocols
from kspec.conformance.explain.site import SECTION_ORDER, SPEC_ID, UNION_SECTIONS, Site, _id_link, _rel
from kspec.conformance.render import describe_action
from kspec.model.catalog import get_protocol
from kspec.model.core.codec import encode

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


def _role_diagram(name: str) -> list[str]:
    """A state diagram drawn as inline SVG at build time (no script, no CDN: the site works
    offline), from the transition table the protocol declares (``transitions``), if any."""
    from kspec.conformance.explain.svg import state_diagram_svg

    declared = protocols.get(name)
    table = declared.transition_table()
    if table is not None:
        where = (declared.transitions or "").replace(":", ".")
        what = declared.transitions_note or ("the table the checked role constructors enforce: a transition "
                                             "not listed raises an error naming from-role, to-role and arguments")
        lines = ["## Role transitions", "",
                 f"Drawn from `{where}`, {what}.", ""]
        edges = [(src, dst, why) for (src, dst), why in table.items()]
        svg = state_diagram_svg(declared.initial_role, edges, f"{name} role transitions")
        rows = ["| from | to | when |", "|---|---|---|"] + [f"| {a} | {b} | {escape(w)} |" for a, b, w in edges]
        return [*lines, '<div class="kspec-diagram" markdown="0" style="overflow-x:auto">', svg, "</div>", "",
                *rows, ""]
    return []  # no role table declared (mm2 declares a rule table instead: _rules_matrix)


def _rules_matrix(name: str) -> list[str]:
    """The protocol's rule table (rows by columns), where it declares one."""
    declared = protocols.get(name)
    found = declared.rule_table()
    if found is None:
        return []
    columns, rows = found
    where = (declared.rules or "").replace(":", ".")
    lines = ["## Rules", "", f"Drawn from `{where}`: {declared.rules_note}.", "",
             "| | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
    lines += [f"| {row} | " + " | ".join(escape(o) for o in outcomes) + " |" for row, outcomes in rows.items()]
    return [*lines, ""]


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
    lines += _role_diagram(name)
    lines += _rules_matrix(name)
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
                  *([doc, ""] if doc else []), *([_needs_note(p, model.bounds), ""] if p.needs else [])]
    return "\n".join(lines) + "\n"


def _needs_note(p: Any, defaults: dict[str, int | bool]) -> str:
    """Where a property applies only from a bound of 1 (``Property.needs``)."""
    return (f"Applies only at bounds with `{p.needs}` >= 1 (default {defaults.get(p.needs, 0)}): at smaller "
            "bounds no run can reach it, and `kspec explore` reports it as not applicable.")


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
