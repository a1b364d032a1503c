"""A host file the live screen cannot read is named in one line of words in the header, and
the files it can read keep their panels live. Before, the banner was Python's own exception
text ("'utf-8' codec can't decode byte 0xff in position ...") and the whole tick was lost."""

from __future__ import annotations

from pathlib import Path

from tests.support.hosttree import build_tree, hyperv_2cpu
from tests.support.screen_app import screen_app
from tests.support.screen_text import screen_text, until
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader


async def test_a_file_that_is_not_utf8_is_named_in_the_banner(tmp_path: Path) -> None:
    tree = build_tree(tmp_path / "hyperv", hyperv_2cpu())
    softirqs = tree / "proc/softirqs"
    softirqs.write_bytes(softirqs.read_bytes().replace(b"NET_RX", b"NET_\xffRX"))
    reader = HostReader(HostRoot.fixture(tree))
    app = screen_app(reader, "eth0", interval=0.1, journal_dir=tmp_path / "journal")
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            banner = "/proc/softirqs: not UTF-8 text, not read"
            await until(pilot, lambda: banner in screen_text(app) and app.samples_drawn >= 2)
            assert "codec" not in screen_text(app)
            s = app.sample
            assert s is not None and s.counters is not None  # /proc/stat still read
            assert app.panels["nic"].view.rows  # and the NIC panel has its rows
            await pilot.press("q")
            await until(pilot, lambda: not app.is_running)
    finally:
        reader.close()
