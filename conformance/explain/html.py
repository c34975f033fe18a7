"""``kspec explain --html``: one self-contained page (inline CSS and SVG, no network) with the
sequence diagram and, per step, the action, the messages and the state changes."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

from kspec.conformance.explain.load import display
from kspec.conformance.explain.svg import sequence_svg
from kspec.conformance.explain.terminal import ARROW_NOTE
from kspec.conformance.explain.trace import Trace
from kspec.conformance.explain.values import short

CSS = """
body { font: 14px/1.45 ui-sans-serif, system-ui, sans-serif; margin: 24px; color: #0f172a; }
h1 { font-size: 20px; margin: 0 0 6px; } .meta { color: #475569; font-size: 12px; }
.failure { background: #fee2e2; border: 1px solid #dc2626; padding: 8px 12px; border-radius: 6px; margin: 12px 0; }
.diagram { overflow-x: auto; border: 1px solid #e2e8f0; border-radius: 6px; padding: 8px; margin: 12px 0; }
table { border-collapse: collapse; width: 100%; } td, th { border-top: 1px solid #e2e8f0; padding: 6px 8px;
  vertical-align: top; text-align: left; } th { background: #f1f5f9; }
tr.failed td { background: #fee2e2; } code { font-size: 12px; } ul { margin: 0; padding-left: 18px; }
.headline { font-size: 16px; margin: 8px 0 12px; }
table.lanes td { font-size: 12px; } table.lanes td.actor { background: #eff6ff; }
.mismatch { color: #b91c1c; } .missing, .extra, .drop { color: #b91c1c; } .send { color: #2563eb; }
"""

# Reports what the browser actually laid out, for the headless-browser test: the diagram's size
# and how many arrows have a non-zero length.
CHECK = """
addEventListener('load', () => {
  const svg = document.getElementById('sequence');
  const box = svg.getBoundingClientRect();
  const drawn = [...svg.querySelectorAll('.seq-arrow')].filter(e => e.getTotalLength() > 0).length;
  const out = document.getElementById('render-check');
  out.dataset.width = Math.round(box.width); out.dataset.height = Math.round(box.height);
  out.dataset.arrows = drawn; out.dataset.participants = svg.querySelectorAll('.seq-participant').length;
});
"""


def render_html(trace: Trace) -> str:
    """The page for ``trace`` as one HTML string."""
    meta = " · ".join(f"{escape(k)}={escape(v)}" for k, v in trace.meta.items())
    parts = [
        "<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>kspec explain: {escape(trace.title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{escape(trace.title)}</h1>",
        f'<p class="headline" id="headline">{escape(headline(trace))}</p>',
        f'<div class="meta">{escape(trace.source)} ({escape(trace.format)}) · {meta}</div>',
    ]
    if trace.failure:
        where = f" at step {trace.failed_step}" if trace.failed_step is not None else ""
        parts.append(f'<div class="failure" id="failure"><strong>Failed{where}:</strong> {escape(trace.failure)}</div>')
    parts.append(f'<div class="diagram">{sequence_svg(trace)}</div>')
    # Filled in by the script below with what the browser laid out (read by the browser test).
    parts.append('<p id="render-check" hidden></p>')
    parts += swim_lanes(trace)
    parts.append("<table><thead><tr><th>step</th><th>node</th><th>action</th><th>messages and effects</th>"
                 "<th>state changes</th></tr></thead><tbody>")
    for step in trace.steps:
        cls = ' class="failed"' if step.failed else ""
        msgs = [f'<li class="{a.style}">{escape(display(a.src))} → {escape(display(a.dst))}: '
                f"<code>{escape(a.label)}</code> ({ARROW_NOTE[a.style]})</li>" for a in step.arrows]
        msgs += [f"<li><code>{escape(n)}</code></li>" for n in step.notes]
        changes = [f"<li><code>{escape(c.text(240))}</code></li>" for c in step.changes]
        if step.mismatch:
            changes.append('<li class="mismatch"><strong>target differs from the model:</strong></li>')
            changes += [f'<li class="mismatch"><code>{escape(c.path)}: model {escape(short(c.before, 200))}, '
                        f"target {escape(short(c.after, 200))}</code></li>" for c in step.mismatch]
        mark = " ✗" if step.failed else ""
        parts.append(f'<tr id="step-{step.index}"{cls}><td><strong>{step.index}{mark}</strong></td>'
                     f"<td>{escape(display(step.actor)) if step.actor else ''}</td><td>{escape(step.title)}</td>"
                     f"<td><ul>{''.join(msgs)}</ul></td><td><ul>{''.join(changes)}</ul></td></tr>")
    parts.append("</tbody></table>")
    if trace.initial is not None:
        parts.append("<details><summary>initial state</summary><pre>"
                     f"{escape(json.dumps(trace.initial, indent=1))}</pre></details>")
    parts.append(f"<script>{CHECK}</script></body></html>")
    return "\n".join(parts)


def headline(trace: Trace) -> str:
    """One sentence in words: which node, which step, which rule, expected against got."""
    if trace.failure is None:
        return f"The trace holds: {len(trace.steps)} steps, no property violated and no divergence."
    step = next((s for s in trace.steps if s.index == trace.failed_step), None)
    if step is None:
        return f"It failed before any step: {trace.failure}."
    who = display(step.actor) if step.actor else "the system"
    what = step.title if len(step.title) <= 80 else step.title[:79] + "…"
    start = f"At step {step.index}, when {who} handled {what},"
    rule = trace.failure.split(":", 1)[0]
    if step.mismatch:
        c = step.mismatch[0]
        more = f" (and {len(step.mismatch) - 1} more differences)" if len(step.mismatch) > 1 else ""
        return (f"{start} the model expected {c.path} = {short(c.before, 80)} but the target had "
                f"{short(c.after, 80)}{more} ({rule}).")
    missing = [n.split(": ", 1)[1] for n in step.notes if n.startswith("model only: ")]
    missing += [a.label for a in step.arrows if a.style == "missing"]
    extra = [n.split(": ", 1)[1] for n in step.notes if n.startswith("target only: ")]
    extra += [a.label for a in step.arrows if a.style == "extra"]
    if missing or extra:
        expected = ", ".join(missing) or "nothing more"
        got = ", ".join(extra) or "nothing instead"
        return f"{start} the model expected the output {expected} but the target gave {got} ({rule})."
    return f"{start} {trace.failure[0].lower() + trace.failure[1:]}."


def swim_lanes(trace: Trace) -> list[str]:
    """One column per node, one row per step: what the node did and how its state changed."""
    lanes = list(trace.participants)
    names = {p: display(p) for p in lanes}
    head = "".join(f"<th>{escape(names[p])}</th>" for p in lanes)
    rows = [f'<h2>Per node</h2><table class="lanes" id="lanes"><thead><tr><th>step</th>{head}<th>other</th>'
            "</tr></thead><tbody>"]
    for step in trace.steps:
        cells: dict[str, list[str]] = {p: [] for p in [*lanes, ""]}
        if step.actor in cells:
            cells[step.actor].append(f"<strong>{escape(step.title)}</strong>")
        for c in step.changes:
            owner = next((p for p in lanes if c.path == names[p] or c.path.startswith(names[p] + ".")), "")
            text = c.text(160)
            if owner:
                text = text[len(names[owner]) + 1:] if text.startswith(names[owner] + ".") else text
            cells[owner].append(f"<code>{escape(text)}</code>")
        for c in step.mismatch:
            owner = step.actor if step.actor in cells else ""
            cells[owner].append(f'<code class="mismatch">{escape(c.path)}: model {escape(short(c.before, 80))}, '
                                f"target {escape(short(c.after, 80))}</code>")
        cls = ' class="failed"' if step.failed else ""
        tds = "".join(f'<td{" class=actor" if p == step.actor else ""}>{"<br>".join(cells[p])}</td>'
                      for p in [*lanes, ""])
        rows.append(f"<tr{cls}><td>{step.index}</td>{tds}</tr>")
    rows.append("</tbody></table><h2>Steps</h2>")
    return rows


def write_html(trace: Trace, out: Path) -> Path:
    """Write the page for ``trace`` to ``out`` (creating its folder); returns the path."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_html(trace), encoding="utf-8")
    return out
