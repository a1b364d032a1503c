"""The reference documents behind tuitune's advice.

Five field reports (the seed files in shared/seeds) measured what the knobs do; every Advice in
the catalogs names one of them by id. A sixth record, "kernel-doc", stands for the kernel's own
documentation and marks statements that are general knowledge rather than something the
reports measured.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Setting = Literal["LAN", "WAN", "general"]


@dataclass(frozen=True, slots=True)
class Source:
    id: str  # short id used by Advice.source
    file: str | None  # seed file name in shared/seeds; None for a non-seed reference
    title: str
    organisation: str
    authors: str | None
    year: int | None  # only when the document states it
    link: str | None  # where the document itself lives, when it says so
    context: Setting  # the kind of network it tested
    setting: str  # the testbed or path it describes
    citation: str  # short form for help text and export comments
    see_also: tuple[str, ...] = ()  # further links the document itself points to


SOURCES: tuple[Source, ...] = (
    Source(
        id="nasa-40g",
        file="000_9cd66da88b9d87d9.txt",
        title="Comparison of 40G RDMA and Traditional Ethernet Technologies",
        organisation="NASA Advanced Supercomputing Division, NASA Ames Research Center",
        authors="Nichole Boscia, Harjot S. Sidhu",
        year=None,
        link=None,
        context="LAN",
        setting=(
            "LAN testbed: two Xeon E5-2667 (Sandy Bridge) servers with Mellanox ConnectX-3 40GbE "
            "cards in PCIe Gen3 slots, one Cisco Nexus 3016Q switch, CentOS 6.2 with Mellanox "
            "OFED 2.0; single-stream nuttcp, RTT about 0.24-0.31 ms"
        ),
        citation="Boscia & Sidhu, NASA Ames, 40G RDMA vs Ethernet (LAN)",
        see_also=("http://fasterdata.es.net/host-tuning/interrupt-binding/",),
    ),
    Source(
        id="cern-10g",
        file="001_7b775b4e1c48a009.txt",
        title="Preliminary test results of the 10 GB NICs in back-to-back connections",
        organisation="CERN openlab for DataGrid Applications",
        authors="A. Hirstius, S. Jarp",
        year=2003,
        link=None,
        context="LAN",
        setting=(
            "LAN, two IA-64 hosts cabled back to back with Intel 10GbE (ixgb 1.0.47) on PCI-X, "
            "Linux 2.5.67; gensink TCP with 1, 4, 8 and 12 streams at MTU 1500, 9000 and 16114"
        ),
        citation="Hirstius & Jarp, CERN openlab, 10GbE back-to-back, 2003 (LAN)",
    ),
    Source(
        id="redhat-10g",
        file="002_87d2064e8547423a.txt",
        title="10 Gb Ethernet",
        organisation="Red Hat",
        authors="Mark Wagner",
        year=None,
        link=None,
        context="LAN",
        setting=(
            "LAN testbed: RHEL5 hosts (Intel and AMD, 8 CPUs) with 10GbE cards from Chelsio "
            "(cxgb3), Intel (ixgbe) and Neterion (s2io); netperf TCP_STREAM, TCP_SENDFILE "
            "and TCP_RR on a local network"
        ),
        citation="Wagner, Red Hat, 10 Gb Ethernet tuning on RHEL5 (LAN)",
    ),
    Source(
        id="esnet-100g",
        file="003_0b23c615bdbc4f43.txt",
        title=(
            "Achieving 98Gbps of Cross-country TCP traffic using 2.5 hosts, 10 x 10G NICs, "
            "and 10 TCP streams"
        ),
        organisation="ESnet",
        authors="Eric Pouyoul, Brian Tierney",
        year=2012,
        link=None,
        context="WAN",
        setting=(
            "WAN path on the ANI 100G testbed: cross-country, 48.6 ms RTT; 10 Myricom 10G NICs "
            "across 2.5 hosts, 10 nuttcp streams, 97.9 Gb/s aggregate"
        ),
        citation="Pouyoul & Tierney, ESnet, 98 Gb/s cross-country, 2012 (WAN)",
        see_also=(
            "http://fasterdata.es.net/fasterdata/host-tuning/",
            "http://fasterdata.es.net/fasterdata/network-troubleshooting-tools/nuttcp/",
            "http://sites.google.com/a/lbl.gov/ani-testbed/",
        ),
    ),
    Source(
        id="lofar-wan",
        file="004_d8e86102982bfbd0.txt",
        title="Network tuning",
        organisation="LOFAR wiki (ASTRON)",
        authors=None,
        year=None,
        link="https://www.astron.nl/lofarwiki/doku.php?id=public:grid:network_tuning",
        context="WAN",
        setting=(
            "WAN path from a LOFAR host to SARA (Amsterdam) over 10 Gb/s, ping RTT 3.4-7.3 ms "
            "(3.77 ms average), MTU 9000; single-stream iperf, both ends tuned"
        ),
        citation="LOFAR wiki, Network tuning for 1-10 Gb/s links (WAN)",
        see_also=(
            "http://fasterdata.es.net/TCP-tuning/linux.html",
            "http://www.psc.edu/networking/perf_tune.html",
            "http://www-didc.lbl.gov/TCP-tuning/",
            "http://www.myri.com/scs/READMES/README.myri10ge-linux",
        ),
    ),
    Source(
        id="kernel-doc",
        file=None,
        title="Linux kernel documentation: networking/ip-sysctl and admin-guide/sysctl/net",
        organisation="The Linux kernel project",
        authors=None,
        year=None,
        link="https://docs.kernel.org/networking/ip-sysctl.html",
        context="general",
        setting="not a measurement: what the kernel documents a knob to do",
        citation="Linux kernel documentation (general, not from the field reports)",
        see_also=("https://docs.kernel.org/admin-guide/sysctl/net.html",),
    ),
)

_BY_ID: dict[str, Source] = {s.id: s for s in SOURCES}
SOURCE_IDS: frozenset[str] = frozenset(_BY_ID)
SEED_SOURCES: tuple[Source, ...] = tuple(s for s in SOURCES if s.file is not None)


def source(source_id: str) -> Source:
    """The source with this id; KeyError listing the known ids otherwise."""
    try:
        return _BY_ID[source_id]
    except KeyError:
        known = ", ".join(sorted(_BY_ID))
        raise KeyError(f"unknown source id {source_id!r} (known: {known})") from None
