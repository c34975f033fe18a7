"""The step-by-step terminal view of a trace: what each node did, the state changes per step,
and the step where the property or the lockstep comparison failed."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from kspec.conformance.explain.load import display
from kspec.conformance.explain.trace import Trace

ARROW_TEXT = {"deliver": "→", "send": "⇢", "drop": "✕", "duplicate": "⇉", "missing": "⇢", "extra": "⇢",
              "flow": "⇒"}
ARROW_NOTE = {"deliver": "delivered", "send": "sent", "drop": "dropped", "duplicate": "duplicated",
              "missing": "MODEL ONLY", "extra": "TARGET ONLY", "flow": "replicates"}


def render_terminal(trace: Trace, console: Console, limit: int = 160) -> None:
    """Print ``trace`` on ``console`` (colour only when it is a terminal)."""
    console.print(f"[bold]{escape(trace.title)}[/bold]")
    meta = "  ".join(f"{k}={v}" for k, v in trace.meta.items())
    console.print(f"[dim]{escape(trace.source)} ({trace.format}){'  ' + escape(meta) if meta else ''}[/dim]")
    console.print("participants: " + ", ".join(display(p) for p in trace.participants))
    if trace.failure:
        console.print(f"[bold red]failure:[/bold red] {escape(trace.failure)}")
    console.print()
    for step in trace.steps:
        mark = "  [bold red]✗ FAILED HERE[/bold red]" if step.failed else ""
        who = f" [cyan]{escape(display(step.actor))}[/cyan]" if step.actor else ""
        console.print(f"[bold]step {step.index}[/bold]{who}  {escape(step.title)}{mark}")
        for a in step.arrows:
            colour = "red" if a.style in ("missing", "extra", "drop") else "green" if a.style == "deliver" else "blue"
            console.print(f"    [{colour}]{escape(display(a.src))} {ARROW_TEXT[a.style]} {escape(display(a.dst))}"
                          f"[/{colour}]  {escape(a.label)} [dim]({ARROW_NOTE[a.style]})[/dim]")
        for note in step.notes:
            colour = "red" if note.startswith(("model only", "target only")) else "yellow"
            console.print(f"    [{colour}]•[/{colour}] {escape(note)}")
        for change in step.changes:
            console.print(f"    [magenta]Δ[/magenta] {escape(change.text(limit))}")
        if step.mismatch:
            console.print("    [bold red]target differs from the model:[/bold red]")
            for change in step.mismatch:
                console.print(f"    [red]≠[/red] {escape(change.path)}: model {escape(_v(change.before, limit))}, "
                              f"target {escape(_v(change.after, limit))}")
    if trace.failure and trace.failed_step is not None:
        console.print()
        console.print(f"[bold red]failed at step {trace.failed_step}:[/bold red] {escape(trace.failure)}")


def _v(value: object, limit: int) -> str:
    from kspec.conformance.explain.values import short

    return short(value, limit)
