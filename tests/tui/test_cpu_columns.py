"""The CPU grid's columns: %iow and %stl, once shown, stay (issue 22 item 14: they came and
went from one tick to the next and shifted the whole grid)."""

from __future__ import annotations

from pathlib import Path

from tests.tui.conftest import Launch, Tui


def iowait_once(tree: Path) -> None:
    """CPU 0 waits on I/O for half a second between samples 0 and 1, never after."""
    for sample in sorted((tree / "samples").iterdir()):
        if sample.name == "0":
            continue
        stat = sample / "proc" / "stat"
        lines = []
        for line in stat.read_text().splitlines():
            f = line.split()
            if f and f[0] in ("cpu", "cpu0"):
                f[5] = str(int(f[5]) + 50)  # the iowait field, in USER_HZ ticks
                line = " ".join(f)
            lines.append(line)
        stat.write_text("\n".join(lines) + "\n")


def column_titles(tui: Tui) -> list[str]:
    return tui.text_of(tui.view("cpus"))[0].split()


async def test_iowait_column_stays_once_seen(launch: Launch) -> None:
    async with launch(limit=None, samples=6, interval=0.3, wait=1, prepare=iowait_once) as tui:
        await tui.wait(lambda: "%iow" in column_titles(tui), "the %iow column")
        seen = tui.app.samples_drawn
        await tui.wait(lambda: tui.app.samples_drawn >= seen + 2, "two ticks without iowait")
        sample = tui.app.sample
        assert sample is not None and sample.rates is not None
        assert sample.rates.cpus[0].iowait == 0  # nothing to show this tick: the column stays
        assert "%iow" in column_titles(tui)
