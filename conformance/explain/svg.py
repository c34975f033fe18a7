"""A sequence diagram as inline SVG: one lifeline per participant, one arrow per message, a
note box for a step with no message, the failing step banded in red. No JavaScript and no
network, so the page renders offline and in the docs alike."""

from __future__ import annotations

from html import escape

from kspec.conformance.explain.load import display
from kspec.conformance.explain.trace import Trace

COLUMN = 200
LEFT = 64
HEAD = 56
ROW = 30
COLOURS = {"deliver": "#1f2937", "send": "#2563eb", "drop": "#dc2626", "duplicate": "#6b7280", "missing": "#dc2626",
           "extra": "#ea580c", "flow": "#7c3aed"}
DASHED = {"send", "duplicate", "missing"}


def _clip(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: chars - 1] + "…"


def sequence_svg(trace: Trace, max_steps: int | None = None, link_steps: bool = True) -> str:
    """The SVG element (a string) for ``trace``; ``max_steps`` keeps the first steps only."""
    steps = trace.steps if max_steps is None else trace.steps[:max_steps]
    names = list(trace.participants)
    x = {name: LEFT + COLUMN * i + COLUMN // 2 for i, name in enumerate(names)}
    width = LEFT + COLUMN * len(names) + 16
    rows = sum(max(1, len(s.arrows)) for s in steps)
    height = HEAD + rows * ROW + HEAD + 12
    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" id="sequence" class="kspec-sequence" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" font-family="ui-sans-serif, system-ui, sans-serif" '
        f'font-size="12" role="img" aria-label="sequence diagram of {escape(trace.title)}">',
        "<defs>",
    ]
    for style, colour in COLOURS.items():
        out.append(f'<marker id="head-{style}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                   f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/>'
                   "</marker>")
    out.append("</defs>")
    # Step bands first, so lifelines and arrows are drawn over them.
    y = HEAD
    for n, step in enumerate(steps):
        h = max(1, len(step.arrows)) * ROW
        fill = "#fee2e2" if step.failed else ("#f8fafc" if n % 2 else "#ffffff")
        stroke = ' stroke="#dc2626" stroke-width="1.5"' if step.failed else ""
        cls = "seq-step seq-failed" if step.failed else "seq-step"
        out.append(f'<rect class="{cls}" data-step="{step.index}" x="2" y="{y}" width="{width - 4}" height="{h}" '
                   f'fill="{fill}"{stroke}/>')
        label = f'<text x="8" y="{y + 19}" font-weight="bold" fill="{"#dc2626" if step.failed else "#475569"}">' \
                f'{"✗ " if step.failed else ""}{step.index}</text>'
        out.append(f'<a href="#step-{step.index}">{label}</a>' if link_steps else label)
        y += h
    bottom = y
    for name in names:
        cx = x[name]
        out.append(f'<line class="seq-lifeline" x1="{cx}" y1="{HEAD - 8}" x2="{cx}" y2="{bottom + 8}" '
                   'stroke="#94a3b8" stroke-dasharray="4 4"/>')
        for top in (12, bottom + 8):
            out.append(f'<g class="seq-participant"><rect x="{cx - 70}" y="{top}" width="140" height="28" rx="5" '
                       f'fill="#e0e7ff" stroke="#4338ca"/><text x="{cx}" y="{top + 18}" text-anchor="middle" '
                       f'font-weight="bold">{escape(_clip(display(name), 20))}</text></g>')
    y = HEAD
    for step in steps:
        if not step.arrows:
            cx = x.get(step.actor or "", x[names[0]])
            text = _clip(step.title, 26)
            w = min(COLUMN - 10, 14 + 6.6 * len(text))
            colour = "#dc2626" if step.failed else "#a16207"
            out.append(f'<g class="seq-note"><title>{escape(step.title)}</title><rect x="{cx - w / 2:.0f}" '
                       f'y="{y + 5}" width="{w:.0f}" height="20" rx="3" fill="#fef9c3" stroke="{colour}"/>'
                       f'<text x="{cx}" y="{y + 19}" text-anchor="middle">{escape(text)}</text></g>')
            y += ROW
            continue
        for arrow in step.arrows:
            out.append(_arrow(x, arrow.src, arrow.dst, arrow.label, arrow.style, y))
            y += ROW
    out.append("</svg>")
    return "\n".join(out)


def _arrow(x: dict[str, int], src: str, dst: str, label: str, style: str, y: int) -> str:
    colour = COLOURS[style]
    dash = ' stroke-dasharray="6 4"' if style in DASHED else ""
    x1, x2 = x.get(src, LEFT), x.get(dst, LEFT)
    ly = y + 20
    title = f"<title>{escape(f'{display(src)} → {display(dst)}: {label} ({style})')}</title>"
    if x1 == x2:
        path = f"M{x1},{ly - 6} h36 v12 h-34"
        body = (f'<path class="seq-arrow seq-{style}" d="{path}" fill="none" stroke="{colour}" stroke-width="1.6"'
                f'{dash} marker-end="url(#head-{style})"/>'
                f'<text x="{x1 + 42}" y="{ly + 2}" fill="{colour}">{escape(_clip(label, 22))}</text>')
        return f'<g>{title}{body}</g>'
    end = x2 - 4 if x2 > x1 else x2 + 4
    if style == "drop":
        end = (x1 + x2) // 2 + (30 if x2 > x1 else -30)
    body = (f'<line class="seq-arrow seq-{style}" x1="{x1}" y1="{ly}" x2="{end}" y2="{ly}" stroke="{colour}" '
            f'stroke-width="1.6"{dash}' + ("" if style == "drop" else f' marker-end="url(#head-{style})"') + "/>")
    if style == "drop":
        body += (f'<path d="M{end - 5},{ly - 5} l10,10 m0,-10 l-10,10" stroke="{colour}" stroke-width="2"/>')
    chars = max(8, abs(x2 - x1) // 7)
    body += (f'<text x="{(x1 + x2) / 2:.0f}" y="{ly - 5}" text-anchor="middle" fill="{colour}">'
             f"{escape(_clip(label, chars))}</text>")
    return f"<g>{title}{body}</g>"


def state_diagram_svg(initial: str, edges: list[tuple[str, str, str]], title: str) -> str:
    """A state diagram as inline SVG, drawn from a transition table: the states on a circle, one
    arrow per (from, to, label), a self-loop as a small arc, the initial state ringed. No script,
    no network: the docs site renders it offline."""
    import math

    states = list(dict.fromkeys([initial, *(s for e in edges for s in e[:2])]))
    n = len(states)
    radius = 90 + 45 * n
    cx, cy = radius + 170, radius + 50
    width, height = 2 * cx, 2 * cy
    pos = {s: (cx + radius * math.cos(2 * math.pi * i / n - math.pi / 2),
               cy + radius * math.sin(2 * math.pi * i / n - math.pi / 2)) for i, s in enumerate(states)}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="kspec-states" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="ui-sans-serif, system-ui, sans-serif" font-size="11" '
           f'role="img" aria-label="{escape(title)}">',
           '<defs><marker id="state-head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#1f2937"/></marker></defs>']
    box_w, box_h = 110, 30
    pairs = {(a, b) for a, b, _ in edges}
    for src, dst, label in edges:
        (x1, y1), (x2, y2) = pos[src], pos[dst]
        if src == dst:
            out.append(f'<path class="state-edge" d="M{x1 - 20:.0f},{y1 - box_h / 2:.0f} C{x1 - 40:.0f},{y1 - 70:.0f} '
                       f'{x1 + 40:.0f},{y1 - 70:.0f} {x1 + 20:.0f},{y1 - box_h / 2:.0f}" fill="none" stroke="#1f2937" '
                       'marker-end="url(#state-head)"/>')
            out.append(f'<text x="{x1:.0f}" y="{y1 - 62:.0f}" text-anchor="middle">{escape(_clip(label, 40))}</text>')
            continue
        dx, dy = x2 - x1, y2 - y1
        length = math.hypot(dx, dy) or 1.0
        ux, uy = dx / length, dy / length
        # Two-way pairs are drawn side by side, each shifted to its own right.
        shift = 7 if (dst, src) in pairs else 0
        ox, oy = -uy * shift, ux * shift
        trim = 0.5 * min(box_w / max(abs(ux), 1e-6), box_h / max(abs(uy), 1e-6)) + 4
        sx, sy = x1 + ux * trim + ox, y1 + uy * trim + oy
        ex, ey = x2 - ux * trim + ox, y2 - uy * trim + oy
        out.append(f'<line class="state-edge" x1="{sx:.0f}" y1="{sy:.0f}" x2="{ex:.0f}" y2="{ey:.0f}" stroke="#1f2937" '
                   'marker-end="url(#state-head)"/>')
        mx, my = (sx + ex) / 2 + ox * 2, (sy + ey) / 2 + oy * 2
        out.append(f'<text x="{mx:.0f}" y="{my:.0f}" text-anchor="middle" fill="#334155">'
                   f'<title>{escape(label)}</title>{escape(_clip(label, 28))}</text>')
    for s, (x, y) in pos.items():
        ring = ' stroke-width="3"' if s == initial else ""
        out.append(f'<rect class="state" x="{x - box_w / 2:.0f}" y="{y - box_h / 2:.0f}" width="{box_w}" '
                   f'height="{box_h}" rx="8" fill="#eff6ff" stroke="#2563eb"{ring}/>')
        out.append(f'<text x="{x:.0f}" y="{y + 4:.0f}" text-anchor="middle" font-size="12">{escape(s)}</text>')
    out.append("</svg>")
    return "\n".join(out)
