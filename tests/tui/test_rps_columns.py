"""Where RPS is on, the CPU grid shows softnet's received_rps and cpu_collision per CPU as
rates (issue 22 item 16: read, never shown). Without RPS the grid has no such columns."""

from __future__ import annotations

from pathlib import Path

from tests.tui.conftest import Launch, Tui


def softnet_moves(tree: Path) -> None:
    """CPU 1 takes 500 steered packets/s and 7 tx lock collisions/s (softnet columns 10, 9)."""
    for sample in (tree / "samples").iterdir():
        n = int(sample.name)
        path = sample / "proc" / "net" / "softnet_stat"
        rows = [line.split() for line in path.read_text().splitlines()]
        rows[1][9] = f"{int(rows[1][9], 16) + 500 * n:08x}"
        rows[1][8] = f"{int(rows[1][8], 16) + 7 * n:08x}"
        path.write_text("".join(" ".join(r) + "\n" for r in rows))


def rps_on(tree: Path) -> None:
    softnet_moves(tree)
    (tree / "sys" / "class" / "net" / "eth0" / "queues" / "rx-0" / "rps_cpus").write_text("e\n")


def cpu_cells(tui: Tui, cpu: str) -> dict[str, str]:
    lines = tui.text_of(tui.view("cpus"))
    titles = lines[0].split()
    # The label carries the NIC-local mark: "1◆".
    row = next(ln.split() for ln in lines[1:] if ln.split()[0].rstrip("◆ ") == cpu)
    return dict(zip(titles, row, strict=False))


async def test_rps_on_shows_steered_packets_and_collisions(launch: Launch) -> None:
    async with launch(size=(200, 60), prepare=rps_on) as tui:
        cells = cpu_cells(tui, "1")
        assert cells.get("rps/s") == "500", cells
        assert cells.get("coll/s") == "7.0", cells


async def test_without_rps_no_such_columns(launch: Launch) -> None:
    async with launch(size=(200, 60), prepare=softnet_moves) as tui:
        assert "rps/s" not in cpu_cells(tui, "1")
