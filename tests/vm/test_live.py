"""The live screen in a real terminal (tmux at 160x48) inside the bench's guest, on the
4-queue virtio NIC and the e1000e: their real queue IRQs and driver appear on it."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import TUITUNE, Nics, queue_irqs

pytestmark = pytest.mark.vm


@pytest.fixture
def tmux_socket() -> Iterator[str]:
    if shutil.which("tmux") is None:
        pytest.fail("tmux missing (scripts/vm setup installs it)")
    sock = f"tt-vm-{uuid.uuid4().hex[:6]}"
    yield sock
    subprocess.run(["tmux", "-L", sock, "kill-server"], capture_output=True)


def screen_of(sock: str, ifname: str, tmp: Path, ok: object) -> str:
    env = f"TERM=xterm-256color LANG=C.UTF-8 XDG_CONFIG_HOME={tmp}"
    line = f"env -u COLUMNS -u LINES {env} {TUITUNE} {ifname}; echo TUITUNE-EXIT=$?; sleep 600"
    tmux = ["tmux", "-L", sock]
    subprocess.run([*tmux, "new-session", "-d", "-x", "160", "-y", "48", line], check=True)
    # Bounded wait for the first full frame: a Textual start takes minutes under TCG.
    end, text = time.monotonic() + 420, ""
    while time.monotonic() < end:
        text = subprocess.run(
            [*tmux, "capture-pane", "-p"], capture_output=True, text=True, check=True
        ).stdout
        if ok(text):  # type: ignore[operator]
            break
        time.sleep(2)
    subprocess.run([*tmux, "send-keys", "q"], check=False)
    return text


def expected_rows(ifname: str) -> set[tuple[str, str, str]]:
    """(kind, queue, IRQ) as the IRQ panel's rows read: "rx 0   44"."""
    rows = set()
    for name, irq in queue_irqs(ifname).items():
        m = re.search(r"(input|output|rx|tx)[.-](\d+)$", name)
        assert m, name
        kind = "rx" if m.group(1) in ("input", "rx") else "tx"
        rows.add((kind, m.group(2), str(irq)))
    return rows


def panel_rows(text: str) -> set[tuple[str, str, str]]:
    return {(k, q, i) for k, q, i in re.findall(r"│(rx|tx) (\d+)\s+(\d+)\s", text)}


@pytest.mark.parametrize("which", ["virtio", "e1000e"])
def test_live_screen_lists_the_real_queue_irqs(
    nics: Nics, which: str, tmux_socket: str, tmp_path: Path
) -> None:
    ifname = getattr(nics, which)
    want = expected_rows(ifname)
    text = screen_of(tmux_socket, ifname, tmp_path, lambda s: want <= panel_rows(s))
    assert f"IRQs of {ifname}" in text, text
    assert want <= panel_rows(text), text
    driver = "virtio_net" if which == "virtio" else "e1000e"
    assert f" {ifname}  {driver}" in text, text
