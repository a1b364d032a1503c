"""Known kernel refusals are states on the row, not errors: a [fixed] feature (locked, nothing
tried), a driver's EOPNOTSUPP (not supported), a kernel-managed IRQ's EIO (locked), and EPERM
(read-only: needs root). The words are asserted where the user reads them: the message line
in the header and the row itself."""

from __future__ import annotations

import errno
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.support.edit_host import DEV, EditHost, ScreenDevice, editing
from tuitune.core.host.ethtool import Coalesce, EthtoolWriteError
from tuitune.core.session import kernel_said
from tuitune.core.values import Unavailable
from tuitune.tui.screens.dialogs import EditorScreen

FIXED = "tx-checksum-ipv4"  # fixed on the fake device, like on most virtual ones


class NoCoalescing(ScreenDevice):
    """igb answers EOPNOTSUPP to this coalescing write (as drivers do for a field they lack)."""

    def set_coalesce(self, values: Mapping[str, int]) -> None:
        self.writes.append(("coalesce", dict(values)))
        state = Unavailable("unsupported", "coalesce: not supported by igb")
        raise EthtoolWriteError("coalesce", state)


async def edit(h: EditHost, panel: str, row: str, value: str) -> None:
    await h.tui.press({"irqs": "2", "nic": "3", "sysctls": "4"}[panel])
    assert h.app.panels[panel].view.move_cursor_to(row)
    await h.tui.press("e")
    await h.wait(lambda: isinstance(h.app.screen, EditorScreen))
    await h.tui.press("ctrl+u")
    await h.type(value)
    await h.tui.press("enter")


async def test_a_fixed_feature_is_locked_and_never_tried(tmp_path: Path) -> None:
    async with editing(tmp_path) as h:
        await h.tui.press("3")
        row = h.row("nic", f"feature:{FIXED}")
        assert "⊘" in row  # drawn locked before anyone tries
        await h.tui.press("space")
        await h.wait(lambda: "is fixed by the driver" in h.tui.header())
        assert f"{FIXED} is fixed by the driver ([fixed] in ethtool -k): it cannot change" in (
            " ".join(h.tui.header().split())
        )
        assert h.device.writes == []


async def test_eopnotsupp_is_shown_as_not_supported(tmp_path: Path) -> None:
    async with editing(tmp_path, device=NoCoalescing(DEV)) as h:
        await edit(h, "nic", "coalesce:rx-usecs", "10")
        await h.wait(lambda: "refused" in h.tui.header())
        assert "refused eth0 coalesce rx-usecs: not supported by igb" in h.tui.header()
        # The row says so (cut to its column; the message line has it in full).
        await h.wait(lambda: "⊘ not supported" in h.row("nic", "coalesce:rx-usecs"))
        assert h.device.writes == [("coalesce", {"rx-usecs": 10})]  # tried once, kept nothing
        assert h.device.coalesce_["rx-usecs"] == 50
        # Nothing changed, so nothing is held to undo.
        await h.tui.press("u")
        await h.wait(lambda: "nothing to undo" in h.tui.header())


async def test_a_managed_irq_is_shown_locked(tmp_path: Path) -> None:
    refuse = {"proc/irq/92/smp_affinity_list": errno.EIO}
    async with editing(tmp_path, refuse=refuse) as h:
        await edit(h, "irqs", "irq:92", "5")
        await h.wait(lambda: "managed by the kernel" in h.tui.header())
        assert "refused IRQ 92 (eth0-TxRx-0) affinity: managed by the kernel" in h.tui.header()
        await h.wait(lambda: "⊘ locked" in h.row("irqs", "irq:92"))
        assert (h.tree / "proc/irq/92/smp_affinity_list").read_text().strip() == "0"
        assert "error" not in h.tui.header().lower()


async def test_eperm_is_shown_read_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """EPERM to a process without the privilege (a user, root without CAP_NET_ADMIN). With
    it, EPERM is the kernel refusing the value: tests/unit/core/session/test_kernel_said.py."""
    monkeypatch.setattr(kernel_said, "privileged", lambda: False)
    refuse = {"proc/sys/net/core/somaxconn": errno.EPERM}
    async with editing(tmp_path, refuse=refuse) as h:
        await edit(h, "sysctls", "sysctl:net.core.somaxconn", "8192")
        await h.wait(lambda: "needs root" in h.tui.header())
        assert "refused net.core.somaxconn: changing it needs root" in h.tui.header()
        await h.wait(lambda: "⊘ read-only" in h.row("sysctls", "sysctl:net.core.somaxconn"))
        assert (h.tree / "proc/sys/net/core/somaxconn").read_text().strip() == "4096"


class NoCoalesce(ScreenDevice):
    def coalesce(self) -> Coalesce | Unavailable:
        return Unavailable("unsupported", "coalesce: not supported by veth")


async def test_an_unsupported_group_reads_whole_across_the_panel(tmp_path: Path) -> None:
    """The reason is one line across the panel, not cut to the setting column (28 wide)."""
    async with editing(tmp_path, device=NoCoalesce(DEV)) as h:
        await h.tui.press("3")
        row = h.row("nic", "coalescing:unavailable")
        assert row.strip() == "coalesce: not supported by veth"
