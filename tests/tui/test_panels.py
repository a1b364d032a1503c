"""What every panel shows on the fixture hosts, checked against the recorded trees and the
captures they come from (expected values are computed here from the files, not from the app).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.fixture_hosts import SHARED_FIXTURES, host_4cpu_series, host_256cpu
from tests.tui.conftest import Launch, Tui
from tuitune.core.units import bitrate, rate

# The 32-CPU host: two threads per core, the second numbered 16 higher; node 0 holds cores
# 0-7, node 1 cores 8-15 (fixture_hosts.E5_2640_NODES). Topology order pairs the siblings.
ORDER_32 = [c for core in range(16) for c in (core, core + 16)]
# Percent busy the fixture gives the 256-CPU host's busy CPUs (fixture_hosts.host_256cpu).
BUSIEST_256 = [0, 64, 1, 2, 3, 65, 129]


def irq_counts(tree: Path, sample: int) -> dict[str, tuple[str, int]]:
    """IRQ number -> (action name, count summed over CPUs) of one recorded sample."""
    lines = (tree / "samples" / str(sample) / "proc" / "interrupts").read_text().splitlines()
    ncpus = len(lines[0].split())
    out = {}
    for line in lines[1:]:
        irq, _, rest = line.partition(":")
        fields = rest.split()
        counts = [int(x) for x in fields[:ncpus] if x.isdigit()]
        out[irq.strip()] = (fields[-1] if len(fields) > ncpus else "", sum(counts))
    return out


def link_stat(tree: Path, sample: int, name: str) -> int:
    path = tree / "samples" / str(sample) / "sys/class/net/eth0/statistics" / name
    return int(path.read_text())


def cells(tui: Tui, panel: str, line: str) -> dict[str, str]:
    """A rendered row cut into its columns at the places the panel draws them."""
    view = tui.view(panel)
    out, x = {}, 0
    for _, col, width in view.layout_for(view.scrollable_content_region.width):
        out[col.title] = line[x : x + width].strip()
        x += width + 1
    return out


async def all_rendered_rows(tui: Tui, name: str) -> list[str]:
    """Every row of a list as the screen draws it, scrolling page by page as a user would."""
    view = tui.view(name)
    page = view.scrollable_content_region.height - 1
    seen: dict[int, str] = {}
    for top in range(0, len(view.shown), page):
        view.scroll_to(y=top, animate=False)
        await tui.pilot.pause()
        first = int(view.scroll_y)
        for i, line in enumerate(tui.rows_seen(name)):
            if first + i < len(view.shown):
                seen[first + i] = line
    view.scroll_to(y=0, animate=False)
    await tui.pilot.pause()
    assert sorted(seen) == list(range(len(view.shown)))
    return [seen[i] for i in range(len(view.shown))]


# -- header --------------------------------------------------------------------------------


async def test_header_shows_host_nic_and_traffic(launch: Launch) -> None:
    async with launch() as tui:
        lines = tui.header().splitlines()
        assert lines[0].split()[:2] == ["tuitune", "2xE5-2640-i350"]
        assert "32 CPUs / 2 nodes" in lines[0]
        assert lines[1].split()[:2] == ["eth0", "igb"]  # the driver from the ethtool capture
        assert "NUMA 0" in lines[1] and "mtu 1500" in lines[1]
        # The third sample's rates: samples/2 against samples/1, one second apart.
        rx = link_stat(tui.tree, 2, "rx_bytes") - link_stat(tui.tree, 1, "rx_bytes")
        pps = link_stat(tui.tree, 2, "rx_packets") - link_stat(tui.tree, 1, "rx_packets")
        assert f"rx {bitrate(rx)} {rate(pps)} pps" in tui.header()


# -- CPU grid --------------------------------------------------------------------------------


async def test_cpu_list_follows_the_topology_by_node_with_the_local_mark(launch: Launch) -> None:
    async with launch() as tui:
        await tui.press("v")  # the other of what automatic shows, then the plain list
        if tui.app.grid_mode != "list":
            await tui.press("v")
        assert "─ CPUs (per CPU) ─" in tui.screen_text()
        shown = [r.key for r in tui.view("cpus").shown]
        node0, node1 = ORDER_32[:16], ORDER_32[16:]
        assert shown == [
            "cpu:all",
            "§node0",
            *(f"cpu:{c}" for c in node0),
            "§node1",
            *(f"cpu:{c}" for c in node1),
        ]
        seen = await all_rendered_rows(tui, "cpus")
        assert seen[1] == "node 0: CPUs 0-7,16-23 (NIC-local)"
        assert seen[18] == "node 1: CPUs 8-15,24-31"
        labels = [ln.split()[0] for ln in seen[2:18] + seen[19:]]
        assert labels == [f"{c}◆" for c in node0] + [str(c) for c in node1]

        # The pegged CPU: half system, half softirq, as in the field report.
        pegged = cells(tui, "cpus", seen[2])
        assert (pegged["%usr"], pegged["%sys"], pegged["%soft"], pegged["%idle"]) == (
            "0.0",
            "50.0",
            "50.0",
            "0.0",
        )
        busy = cells(tui, "cpus", seen[4])  # CPU 1 runs the application
        assert (busy["CPU"], busy["%usr"], busy["%sys"], busy["%soft"]) == (
            "1◆",
            "35.0",
            "10.0",
            "2.0",
        )
        await tui.press("down")
        strip = tui.help_strip("cpus")
        assert strip.startswith("cpu0 node 0 NIC-local: busy 100.0%")
        before, after = irq_counts(tui.tree, 1), irq_counts(tui.tree, 2)
        q0 = next(irq for irq, (name, _) in after.items() if name == "eth0-TxRx-0")
        assert f"NIC IRQs here: eth0-TxRx-0 {rate(after[q0][1] - before[q0][1])}/s" in strip


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
async def test_256_cpus_switch_to_the_heat_map(launch: Launch, size: tuple[int, int]) -> None:
    async with launch(host_256cpu, size=size) as tui:
        assert "─ CPUs (heat map, busiest first) ─" in tui.screen_text()
        heat = tui.text_of(tui.app.query_one("#heatmap"))
        labels = [ln[:4].strip() for ln in heat if ln.strip()]
        assert labels == ["n0", "", "n1", ""]  # 128 CPUs a node, 64 cells a line
        assert heat[0][4] == "█"  # CPU 0, pegged, first of node 0
        for line in heat[:4]:
            groups = line[4:].split(" ")
            assert [len(g) for g in groups[:8]] == [8] * 8
        # Below it, the list is busiest first (at 80x24, five rows: the hint line took one,
        # the header's message line, always there so that nothing jumps, another).
        first = [ln.split()[0].rstrip("◆") for ln in tui.rows_seen("cpus")[1:6]]
        assert first == [str(c) for c in BUSIEST_256[:5]]


async def test_every_one_of_256_cpus_is_reachable_in_the_list(launch: Launch) -> None:
    async with launch(host_256cpu, size=(80, 24)) as tui:
        seen = await all_rendered_rows(tui, "cpus")
        cpus = [ln.split()[0].rstrip("◆") for ln in seen[1:]]
        assert sorted(int(c) for c in cpus) == list(range(256))
        await tui.press("end")
        line = tui.cursor_line("cpus")
        assert line is not None and line.split()[0].rstrip("◆") == cpus[-1]


# -- IRQ panel -------------------------------------------------------------------------------


async def test_irq_panel_lists_the_nics_queues_at_their_rates(launch: Launch) -> None:
    async with launch() as tui:
        before, after = irq_counts(tui.tree, 1), irq_counts(tui.tree, 2)
        nic = {irq: name for irq, (name, _) in after.items() if name.startswith("eth0")}
        assert len(nic) == 9
        rows = [ln for ln in tui.rows_seen("irqs") if ln]
        assert len(rows) == len(nic)
        deltas = set()
        for line in rows:
            row = cells(tui, "irqs", line)
            irq = row["IRQ"]
            name = nic.pop(irq)
            delta = after[irq][1] - before[irq][1]
            deltas.add(delta)
            assert row["rate/s"] == rate(delta), (irq, name)
            if name == "eth0":
                assert row["queue"] == "misc"
            else:
                assert row["queue"] == name.removeprefix("eth0-").replace("-", " ")  # TxRx 3
                assert row["affinity"] == "0"
                assert row["where it lands (per CPU)"] == "cpu0 100%"
        assert nic == {}
        assert len(deltas) > 3  # the queues differ: a mix-up of rows would show


async def test_irq_panel_draws_where_each_queue_lands_per_cpu(launch: Launch) -> None:
    async with launch(host_4cpu_series) as tui:
        rows = [ln for ln in tui.rows_seen("irqs") if ln.startswith("TxRx")]
        assert len(rows) == 4
        for line in rows:
            row = cells(tui, "irqs", line)
            # A character per CPU (the home CPU lit), then that CPU by number and share.
            strip, label = row["where it lands (per CPU)"].split(" ", 1)
            assert len(strip) == 4
            home = int(row["affinity"])
            assert strip[home] not in ". " and strip.replace(strip[home], "") == "..."
            assert label == f"cpu{home} 100%"


# -- NIC panel -------------------------------------------------------------------------------


def capture(name: str) -> dict[str, str]:
    """`key: value` lines of an ethtool capture of the 32-CPU host's igb."""
    text = (SHARED_FIXTURES / "ethtool" / f"netutils_igb-i350_eth0_{name}.txt").read_text()
    return {k.strip(): v.strip() for k, _, v in (ln.partition(":") for ln in text.splitlines())}


async def test_nic_panel_sections_and_values(launch: Launch) -> None:
    async with launch() as tui:
        await tui.press("3")
        headings = [r.cells[0] for r in tui.view("nic").shown if r.section]
        assert isinstance(headings[1], str)
        assert headings[1].startswith("offloads at a glance: ")  # issue 22 item 7
        assert headings[:1] + headings[2:] == [
            "link",
            "rings",
            "coalescing",
            "channels",
            "pause",
            "RPS/XPS",
            "offloads",
            "fixed offloads",
        ]
        seen = await all_rendered_rows(tui, "nic")
        rows = {ln.split()[0]: ln for ln in seen if ln}
        # Rings: current and maximum straight from `ethtool -g`.
        rings_at = seen.index("rings")
        ring_lines = [ln.split() for ln in seen[rings_at + 1 : rings_at + 3]]
        text = (SHARED_FIXTURES / "ethtool" / "netutils_igb-i350_eth0_-g.txt").read_text()
        maxima, current = text.split("Current hardware settings:")
        rx_max = maxima.split("RX:")[1].split()[0]
        rx_now = current.split("RX:")[1].split()[0]
        assert ring_lines[0] == ["rx", rx_now, "max", rx_max]
        assert rows["rx-usecs"].split()[1] == capture("-c")["rx-usecs"]
        # A group the capture lacks is one muted line under its heading, not a table.
        for group in ("channels", "pause"):
            at = seen.index(group)
            assert seen[at + 1].startswith(f"{group}: not recorded")
            assert seen[at + 2] in ("pause", "RPS/XPS")
        assert rows["mtu"].split()[1] == "1500"
        assert rows["rx-0"].split()[1:3] == ["rps", "off"]
        assert rows["rx-lro"].split()[1:4] == ["off", "⊘", "fixed"]


# -- sysctl panel ----------------------------------------------------------------------------


def record_sysctls(tree: Path) -> None:
    """Give the recorded host two sysctls, as a real capture would have."""
    for key, value in (
        ("net/core/rmem_max", "16777216"),
        ("net/ipv4/tcp_rmem", "4096\t131072\t6291456"),
    ):
        path = tree / "proc" / "sys" / key
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value + "\n")


async def test_sysctl_panel_sections_and_values(launch: Launch) -> None:
    async with launch(prepare=record_sysctls) as tui:
        await tui.press("4")
        seen = await all_rendered_rows(tui, "sysctls")
        headings = [ln for ln in seen if ln and ln.split()[0] in ("core:", "TCP:", "other")]
        assert headings == [
            "core: socket buffers, backlog, busy polling",
            "TCP: windows, congestion control, timestamps",
            "other",
        ]
        core, tcp, other = (seen.index(h) for h in headings)
        assert all(ln.startswith("core.") for ln in seen[core + 1 : tcp])
        assert all(ln.startswith("ipv4.tcp") for ln in seen[tcp + 1 : other])
        rows = {ln.split()[0]: ln for ln in seen if ln}
        assert rows["core.rmem_max"].split()[1:3] == ["16777216", "host"]
        assert rows["ipv4.tcp_rmem"].split()[1:5] == ["4096", "131072", "6291456", "ns"]
        assert rows["core.wmem_max"].split()[1:3] == ["not", "recorded"]
