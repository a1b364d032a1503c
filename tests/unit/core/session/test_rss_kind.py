"""The RSS indirection table through the journal, against a fake driver at the SIOCETHTOOL
port (tests/support/fakes/rss_port.py) that starts from real `ethtool -x` captures: igb's
own 128-slot default (contiguous blocks) and sfc's table after a channel change (onload
#208). The whole table is recorded first and put back slot for slot; a driver default goes
back as the kernel's reset, so it follows channel changes again."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from tests.support.fakes.rss_port import FakeRssPort, blocks
from tests.support.session_fakes import FakeDevice, build_host
from tuitune.core.host.root import HostRoot
from tuitune.core.host.rss import RssState, parse_ethtool_x, read_rss, table_value
from tuitune.core.host.rss_spec import RssSpecError, parse_rss, weight_fill
from tuitune.core.session import HostAccess, Journal, Key
from tuitune.report.queues import rss_table

DEV = "eno49"
CAPTURES = Path(__file__).parents[3] / "fixtures" / "captures" / "ethtool_x"


class RssDevice(FakeDevice):
    port: FakeRssPort

    @property
    def ioctl(self) -> FakeRssPort:
        return self.port


def igb(tmp_path: Path) -> tuple[Journal, FakeRssPort]:
    t = parse_ethtool_x((CAPTURES / "igb_em1_32cpu_rxfh_-x.txt").read_text())
    assert t.rings == 8 and len(t.indir) == 128
    dev = RssDevice(DEV)
    dev.port = FakeRssPort(list(t.indir), t.rings, fill=blocks)
    access = HostAccess(
        HostRoot.fixture(build_host(tmp_path / "host")),
        call=lambda f, *a: f(*a),
        ethtool=lambda name: dev,
    )
    return Journal.open(access, tmp_path / "journal"), dev.port


def test_values_like_ethtool_x() -> None:
    assert table_value([i % 4 for i in range(128)], 4) == "default"
    assert table_value([i % 2 for i in range(128)], 4) == "equal 2"
    assert table_value(blocks(128, 8), 8) == "table " + " ".join(f"{q}*16" for q in range(8))
    assert weight_fill([1, 1], 4) == [0, 0, 1, 1]  # ethtool -X weight: contiguous runs
    assert weight_fill([1, 0, 3], 8) == [0, 0, 2, 2, 2, 2, 2, 2]
    assert parse_rss("weight 1 1 2 2", 12, 4) == "table 0*2 1*2 2*4 3*4"
    assert parse_rss("equal 8", 128, 8) == "default"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("equal 9", "above 8"),
        ("equal 0", "at least 1"),
        ("weight 0 0", "all 0"),
        ("weight 1 1 1 1 1 1 1 1 1", "9 weights for 8"),
        ("table 0*100", "has 100 slots"),
        ("table 9*128", "queue 9 is above 7"),
        ("spread", "expected default"),
        ("", "empty"),
    ],
)
def test_bad_text_names_why(text: str, says: str) -> None:
    with pytest.raises(RssSpecError, match=says):
        parse_rss(text, 128, 8)


def test_equal_2_then_revert_gives_igbs_own_table_back(tmp_path: Path) -> None:
    journal, port = igb(tmp_path)
    original = list(port.indir)
    out = journal.apply(Key.rss(DEV), "equal 2")
    assert out.status == "changed", out.reason
    assert out.before == "table " + " ".join(f"{q}*16" for q in range(8))
    assert out.after == "equal 2"
    assert port.indir == [i % 2 for i in range(128)] and port.configured
    (back,) = journal.revert_all()
    assert back.status == "changed", back.reason
    assert port.indir == original
    # igb's own fill: put back by the kernel's reset, so the table is the driver's again.
    assert not port.configured and port.writes[-1] is None


def test_a_configured_table_goes_stale_after_a_channel_change(tmp_path: Path) -> None:
    journal, port = igb(tmp_path)
    assert journal.apply(Key.rss(DEV), "equal 4").status == "changed"
    port.set_channels(16)  # someone raises the channels: the user's table stays put
    t = read_rss(port)
    assert table_value(t.indir, t.rings) == "equal 4"
    assert t.uncovered() == tuple(range(4, 16))
    shown = Console(width=100, record=True)
    shown.print(rss_table(RssState(t, {}), None))
    rows = {
        r[0]: r[1] for r in (ln.split() for ln in shown.export_text().splitlines()) if len(r) > 1
    }
    assert (rows["3"], rows["4"], rows["15"]) == ("32", "0", "0")  # no slot: shown red
    with pytest.raises(OSError):
        port.set_channels(2)  # below a queue the configured table uses: the kernel says no
    (back,) = journal.revert_all()
    # The original slots come back exactly: igb's 8-queue blocks, which on 16 rings are no
    # driver default any more, so the table is written (configured), queues 8-15 uncovered.
    assert back.status == "changed", back.reason
    assert port.indir == blocks(128, 8) and port.configured
    assert read_rss(port).uncovered() == tuple(range(8, 16))


def test_onloads_stale_table_reads_as_equal_1_and_a_bad_table_writes_nothing(
    tmp_path: Path,
) -> None:
    sfc = parse_ethtool_x((CAPTURES / "sfc_enp2s0f0_-x_4rings_zeros_onload208.txt").read_text())
    dev = RssDevice(DEV)
    dev.port = FakeRssPort([i % 4 for i in range(128)], 4)
    access = HostAccess(
        HostRoot.fixture(build_host(tmp_path / "host")),
        call=lambda f, *a: f(*a),
        ethtool=lambda name: dev,
    )
    journal = Journal.open(access, tmp_path / "journal")
    assert set(sfc.indir) == {0}  # what onload #208 saw: every slot on queue 0
    assert journal.apply(Key.rss(DEV), "equal 1").after == "equal 1"
    out = journal.apply(Key.rss(DEV), "table 9*128")
    assert out.status == "invalid" and "queue 9 is above 3" in out.reason
    assert dev.port.indir == [0] * 128  # nothing written
