"""`tuitune advise` for people: the findings as Rich text (the core stays Rich-free)."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from tuitune.core.advise import Advice
from tuitune.core.text import printable

STYLE = {"bottleneck": "bold red", "risk": "yellow", "hint": "cyan"}


def print_advice(
    advice: Advice,
    ifname: str,
    context: str,
    seconds: float,
    loaded: bool,
    console: Console | None = None,
) -> None:
    out = console or Console(highlight=False, soft_wrap=False)
    load = "with NIC traffic" if loaded else "no NIC traffic in it"
    out.print(Text(f"{ifname}: {seconds:.0f} s window ({load}), context {context}", style="bold"))
    if not advice.findings:
        out.print("no findings: nothing the rules know holds this interface back")
    else:
        summary = Table(box=box.SIMPLE, show_edge=False, pad_edge=False)
        summary.add_column("severity")
        summary.add_column("id")
        summary.add_column("finding", overflow="fold")
        for f in advice.findings:
            summary.add_row(
                Text(f.severity, style=STYLE[f.severity]), f.id, Text(printable(f.title))
            )
        out.print(summary)
    for f in advice.findings:
        out.print(Text(f"{f.id}", style=STYLE[f.severity]) + Text(f"  {printable(f.title)}"))
        # Evidence quotes the host (names, values, a peer's ping): the one sanitiser.
        for line in f.evidence:
            out.print(f"  evidence: {printable(line, 2000)}", markup=False)
        if f.change:
            for c in f.change:
                out.print(f"  change:   {printable(f'{c.key.label} -> {c.value}')}", markup=False)
            how = "from the live screen (on trial)" if f.trial else f"--apply {f.id}"
            out.print(f"  apply:    {how}", markup=False)
        else:
            out.print("  change:   none tuitune can make (see the evidence)", markup=False)
        for s in f.sources:
            out.print(f"  source:   {s.citation}: {s.measured}", markup=False)
        out.print()
    for n in advice.notes:
        out.print(Text(printable(f"not judged: {n.rule}: {n.text}", 2000), style="dim"))
