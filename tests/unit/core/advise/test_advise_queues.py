"""The per-queue rules on a recorded igb host (8 queues, eth0) with ethtool -S windows built
from the captures' names (rx_queue_N_packets / rx_queue_N_drops)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.unit.advise_hosts import one, recorded
from tuitune.core.advise import Context, Facts, advise
from tuitune.core.host.conns import Connection
from tuitune.core.host.ethtool import Channels
from tuitune.core.host.qdisc import Qdisc
from tuitune.core.host.rss import RssState, parse_ethtool_x
from tuitune.core.values import Unavailable


def stats(packets: list[int], drops: list[int]) -> tuple[tuple[str, int], ...]:
    out: list[tuple[str, int]] = []
    for q, (p, d) in enumerate(zip(packets, drops, strict=True)):
        out += [(f"rx_queue_{q}_packets", p), (f"rx_queue_{q}_bytes", p * 100)]
        out += [(f"rx_queue_{q}_drops", d), (f"tx_queue_{q}_packets", 0)]
    return tuple(out)


@pytest.fixture(scope="module")
def pegged(tmp_path_factory: pytest.TempPathFactory) -> Facts:
    return recorded(tmp_path_factory.mktemp("pegged"), "pegged")


def window(f: Facts, before: list[int], after: list[int], drops_after: list[int]) -> Facts:
    w = replace(
        f.window,
        driver_before=stats(before, [0] * len(before)),
        driver_after=stats(after, drops_after),
    )
    return replace(f, window=w)


def test_ring_drops_name_the_queue_and_the_ring(pegged: Facts) -> None:
    secs = pegged.window.seconds
    n = int(500 * secs)
    f = window(pegged, [0] * 4, [n] * 4, [0, 0, int(20 * secs), 0])
    lan = one(f, "queue-ring-drops")
    assert lan is not None and lan.severity == "bottleneck" and lan.change == ()
    assert "rx queue 2 20/s" in lan.evidence[0]
    assert lan.evidence[1].startswith("rx ring ")  # the ring's size beside the drops
    wan = one(replace(f, context=Context("wan")), "queue-ring-drops")
    assert wan is not None
    assert [(c.key.label, c.value) for c in wan.change] == [("eth0 rings rx", "4096")]


def test_no_ring_drops_no_finding(pegged: Facts) -> None:
    n = int(500 * pegged.window.seconds)
    assert one(window(pegged, [0] * 4, [n] * 4, [0] * 4), "queue-ring-drops") is None


def test_one_hot_queue_is_an_imbalance(pegged: Facts) -> None:
    secs = pegged.window.seconds
    hot = window(pegged, [0] * 4, [int(x * secs) for x in (9000, 300, 300, 400)], [0] * 4)
    found = one(hot, "queue-imbalance")
    assert found is not None
    assert "rx queue 0 takes 90 % of the packets for 25 % of the table" in found.title
    assert found.sources[0].id == "kernel-doc"


def test_an_even_spread_or_a_trickle_is_no_imbalance(pegged: Facts) -> None:
    secs = pegged.window.seconds
    even = window(pegged, [0] * 4, [int(x * secs) for x in (3000, 2500, 2000, 2500)], [0] * 4)
    assert one(even, "queue-imbalance") is None
    trickle = window(pegged, [0] * 4, [int(x * secs) for x in (900, 1, 1, 1)], [0] * 4)
    assert one(trickle, "queue-imbalance") is None


def test_without_ethtool_stats_the_rules_say_so(pegged: Facts) -> None:
    f = replace(pegged, window=replace(pegged.window, driver_before=None))
    notes = {n.rule for n in advise(f).notes}
    assert {"queue-ring-drops", "queue-imbalance"} <= notes


def test_without_a_table_the_advisor_gives_the_panels_reason(pegged: Facts) -> None:
    """The live screen's facts have no RssState, only the NIC state the panel shows: its
    reason is the advisor's, in both rules that would use the table."""
    nic = pegged.nic
    assert nic is not None and pegged.rss is None
    why = "RSS table: not supported by veth (Operation not supported)"
    f = replace(pegged, nic=replace(nic, rss=Unavailable("unsupported", why)))
    assert [n.text for n in advise(f).notes if n.rule == "rss-uncovered"] == [why]
    secs = f.window.seconds
    hot = window(f, [0] * 4, [int(x * secs) for x in (9000, 300, 300, 400)], [0] * 4)
    found = one(hot, "queue-imbalance")
    assert found is not None and f"assumed equal over 4 queues ({why})" in found.evidence[1]
    # Read by `advise`/`show` (an RssState): its own reason, the same words.
    st = replace(pegged, rss=RssState(None, {}, why))
    assert [n.text for n in advise(st).notes if n.rule == "rss-uncovered"] == [why]
    # Not read at all (a recorded tree): said so.
    assert [n.text for n in advise(pegged).notes if n.rule == "rss-uncovered"] == [
        "RSS table not read (ethtool -x)"
    ]


CAPTURES = Path(__file__).parents[3] / "fixtures" / "captures" / "ethtool_x"


def with_rss(f: Facts, name: str, flow: dict[str, str] | None = None, combined: int = 4) -> Facts:
    table = parse_ethtool_x((CAPTURES / name).read_text())
    nic = f.nic
    assert nic is not None
    channels = Channels(0, 0, 1, combined, 0, 0, 1, 64)
    return replace(f, nic=replace(nic, channels=channels), rss=RssState(table, flow or {}))


def test_a_table_left_behind_by_a_channel_change(pegged: Facts) -> None:
    # onload #208: 4 channels, every slot still on queue 0.
    f = with_rss(pegged, "sfc_enp2s0f0_-x_4rings_zeros_onload208.txt", combined=4)
    found = one(f, "rss-uncovered")
    assert found is not None and found.severity == "risk"
    assert "sends nothing to 3 of 4 rx queues" in found.title
    assert found.evidence[0].startswith("rx queues with no slot: 1, 2, 3")
    # one journaled step: the driver's own spread back (its default covers the 4 queues)
    assert [(c.key.kind, c.value) for c in found.change] == [("rss", "default")]


def test_an_equal_table_covers_every_queue(pegged: Facts) -> None:
    assert one(with_rss(pegged, "igb_em1_32cpu_rxfh_-x.txt", combined=8), "rss-uncovered") is None
    # ...but not 16 queues (channels raised, table not re-spread).
    wider = one(with_rss(pegged, "igb_em1_32cpu_rxfh_-x.txt", combined=16), "rss-uncovered")
    assert wider is not None and "8 of 16" in wider.title


def test_udp_hashed_on_addresses_only(pegged: Facts) -> None:
    flow = {"tcp4": "sdfn", "udp4": "sd"}
    found = one(with_rss(pegged, "igb_em1_32cpu_rxfh_-x.txt", flow, 8), "udp-hash-addresses")
    assert found is not None and "udp4" in found.title and "udp4: sd" in found.evidence[0]
    assert [(c.key.name, c.value) for c in found.change] == [("udp4", "sdfn")]
    ports = {"tcp4": "sdfn", "udp4": "sdfn", "udp6": "sdfn"}
    f = with_rss(pegged, "igb_em1_32cpu_rxfh_-x.txt", ports, 8)
    assert one(f, "udp-hash-addresses") is None


def test_imbalance_uses_the_tables_share_when_read(pegged: Facts) -> None:
    secs = pegged.window.seconds
    # Queue 0 takes 40 % of the packets: twice an equal share of 8 queues would be 25 %,
    # but the read table gives it 16 of 128 slots (12.5 %), so 40 % is over 2x and +25 pts.
    f = window(pegged, [0] * 8, [int(x * secs) for x in (4000,) + (857,) * 7], [0] * 8)
    found = one(with_rss(f, "igb_em1_32cpu_rxfh_-x.txt", combined=8), "queue-imbalance")
    assert found is not None and "for 12 % of the table" in found.title
    assert "16 of 128 slots (ethtool -x)" in found.evidence[1]


def conn(retrans: int = 0, wscale: tuple[int, int] | None = (7, 10)) -> Connection:
    return Connection("10.0.0.1", 40000, "10.0.0.2", 5201, "cubic", 10, 48.6, retrans,
                      None, 1_000_000, 1448, True, True, wscale)  # fmt: skip


def test_a_connection_without_window_scaling(pegged: Facts) -> None:
    f = replace(pegged, connections=(conn(), conn(wscale=None)))
    found = one(f, "connection-no-wscale")
    assert found is not None and found.sources[0].id == "lofar-wan"
    assert "1 connection(s)" in found.title
    assert one(replace(pegged, connections=(conn(),)), "connection-no-wscale") is None


def test_no_fq_on_a_wan_path_with_retransmits(pegged: Facts) -> None:
    wan = replace(pegged, context=Context("wan"), connections=(conn(retrans=42),))
    found = one(replace(wan, qdiscs=(Qdisc("pfifo_fast", "0:", "root"),)), "no-pacing-wan")
    assert found is not None and "42 segments retransmitted" in found.evidence[1]
    (change,) = found.change
    assert change.key.kind == "qdisc" and change.value.startswith("fq limit 10000 flow_limit 100")
    mq = one(replace(wan, qdiscs=(Qdisc("mq", "0:", "root"),)), "no-pacing-wan")
    assert mq is not None and mq.change[0].value.startswith("mq fq limit 10000")
    fq = (Qdisc("mq", "1:", "root"), Qdisc("fq", "8001:", "1:1"))
    assert one(replace(wan, qdiscs=fq), "no-pacing-wan") is None  # paced
    clean = replace(wan, connections=(conn(),), qdiscs=(Qdisc("pfifo_fast", "0:", "root"),))
    assert one(clean, "no-pacing-wan") is None  # no retransmits
    lan = replace(wan, context=Context("lan"), qdiscs=(Qdisc("pfifo_fast", "0:", "root"),))
    assert one(lan, "no-pacing-wan") is None  # a LAN is not judged


def test_the_live_screen_judges_the_table_its_nic_state_holds(pegged: Facts) -> None:
    """The live advisor has no `show`-style reading (rss=None): the NIC state the screen read
    carries the table and the hash fields, and the rules judge those, not "not read"."""
    read = with_rss(pegged, "sfc_enp2s0f0_-x_4rings_zeros_onload208.txt", {"udp4": "sd"}, 4)
    assert read.rss is not None and read.rss.table is not None and read.nic is not None
    table = read.rss.table
    nic = replace(
        read.nic,
        rss_indir=table.indir,
        rss_rings=table.rings,
        flow_hash=(("udp4", "sd"),),
    )
    live = replace(read, rss=None, nic=nic)
    found = one(live, "rss-uncovered")
    assert found is not None and "sends nothing to 3 of 4 rx queues" in found.title
    udp = one(live, "udp-hash-addresses")
    assert udp is not None and "udp4: sd" in udp.evidence[0]
    # No table in the NIC state either: the rule says why, as before.
    bare = replace(live, nic=replace(nic, rss_indir=(), flow_hash=()))
    assert one(bare, "rss-uncovered") is None and one(bare, "udp-hash-addresses") is None


def test_no_fq_judged_from_the_nic_states_root_qdisc_as_the_live_screen_has_it(
    pegged: Facts,
) -> None:
    """The live screen has no qdisc tree, only the NIC state's root qdisc value (the panel's
    row): the rule judges that, so `A` after a WAN benchmark is not "the qdisc not read"."""
    from tuitune.core.watch.snapshot import SysctlValue

    assert pegged.nic is not None
    wan = replace(pegged, context=Context("wan"), connections=(conn(retrans=42),), qdiscs=None)

    def root(value: str, default_qdisc: str = "pfifo_fast") -> Facts:
        assert wan.nic is not None
        others = tuple(s for s in wan.host.sysctls if s.key != "net.core.default_qdisc")
        host = replace(
            wan.host, sysctls=(*others, SysctlValue("net.core.default_qdisc", default_qdisc))
        )
        return replace(wan, nic=replace(wan.nic, qdisc=value), host=host)

    tbf = one(root("tbf rate 100mbit burst 32k limit 655360"), "no-pacing-wan")
    assert tbf is not None and tbf.evidence[0] == "qdisc: tbf (tc qdisc show)"
    assert one(root("mq fq limit 10000 flow_limit 100"), "no-pacing-wan") is None
    assert one(root("default", "fq"), "no-pacing-wan") is None  # the kernel's root is fq
    default = one(root("default"), "no-pacing-wan")
    assert default is not None and "pfifo_fast" in default.evidence[0]
    veth = root("default", "fq")
    assert veth.nic is not None
    veth = replace(veth, nic=replace(veth.nic, link=replace(veth.nic.link, kind="veth")))
    noqueue = one(veth, "no-pacing-wan")  # a veth's own root is noqueue, whatever the default
    assert noqueue is not None and noqueue.evidence[0] == "qdisc: noqueue (tc qdisc show)"
    other = advise(root("other: htb with classes"))
    (note,) = [n for n in other.notes if n.rule == "no-pacing-wan"]
    assert note.text == "connections or the qdisc not read"
