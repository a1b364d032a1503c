"""Help for the knobs that are not sysctls: offloads, rings, coalescing, queues, MTU, affinity.

Same Advice shape as the sysctl catalog (tuitune.core.catalog); keyed by a short name.

Offload dependencies: NASA reported, on CentOS 6.2 (kernel 2.6.32), that toggling rx checksumming
also toggled GRO, tx checksumming also toggled SG and TSO, and SG also toggled TSO. On Linux 6.18
(checked with ethtool on a veth pair) the kernel's rules are narrower: tx checksumming off drops
TSO but leaves SG alone, SG off drops TSO and GSO, and rx checksumming off leaves software GRO on
(only hardware GRO, rx-gro-hw, needs it). Drivers may add rules of their own, so re-read the
features after every change. `turns_off` holds the 6.x behaviour, `turns_off_reported` NASA's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from tuitune.core.catalog import Advice


@dataclass(frozen=True, slots=True)
class DeviceHelp:
    name: str
    summary: str  # one line, <= 70 chars
    help: str
    sources: tuple[Advice, ...]
    tool: str | None = None  # how it is changed by hand, for the help pane
    turns_off: tuple[str, ...] = ()  # features the kernel also clears when this goes off (6.x)
    turns_off_reported: tuple[str, ...] = ()  # what NASA saw flip with it on 2.6.32


def _build() -> tuple[DeviceHelp, ...]:
    A = Advice
    D = DeviceHelp
    return (
        # --- offloads ----------------------------------------------------------------------------
        D(
            name="tso",
            summary="TCP segmentation offload: the NIC cuts large sends into segments",
            tool="ethtool -K DEV tso on|off",
            help=(
                "The stack hands the NIC TCP chunks of up to 64 KB and the NIC splits them into "
                "MTU-sized segments, saving sender CPU. Needs SG and TX checksumming. LAN: NASA "
                "lost 15100 -> 12900 Mb/s at MTU 1500 with it off, but nothing beyond noise at "
                "9000; old TSO bugs are why some guides still switch it off. WAN: with TSO/GSO "
                "on, a LOFAR sender reached 8.44 Gb/s, more than its older SARA receivers could "
                "absorb. Keep it on unless the peer cannot keep up or a driver bug is known."
            ),
            sources=(
                A(
                    "nasa-40g",
                    "LAN",
                    "on",
                    "With all offloads on: 15100 Mb/s at MTU 1500, 19100 at 9000; TSO off: "
                    "12900 and 19000 (noise is +/- 300 Mb/s).",
                ),
                A(
                    "lofar-wan",
                    "WAN",
                    "on",
                    "TSO plus GSO on the LOFAR side allowed up to 8.44 Gb/s, but SARA's older "
                    "kernel could not follow. With it the start-up rate wobbles around 4 Gb/s; "
                    "without it the sender overshoots until its buffer is full, then settles.",
                ),
                A(
                    "cern-10g",
                    "LAN",
                    None,
                    "Notes that the ixgb driver turns TSO on by default when available.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "Lists TSO, UFO and GSO among the driver settings to try.",
                ),
            ),
        ),
        D(
            name="gso",
            summary="Generic segmentation offload: segment late, in software",
            tool="ethtool -K DEV gso on|off",
            help=(
                "Software counterpart of TSO: the stack carries large chunks down to just "
                "before the driver and segments them there, so most of the path is paid once "
                "per chunk even without hardware TSO. On 6.x kernels it needs SG. WAN: LOFAR "
                "toggled it together with TSO (see tso). Note that NASA's offload table labels "
                "a row 'Generic Segmentation Offload (GRO)' but its commands toggle gro; that "
                "row is receive offload."
            ),
            sources=(
                A(
                    "lofar-wan",
                    "WAN",
                    "on",
                    "Switched together with TSO; the pair raised the LOFAR sender to 8.44 Gb/s.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "ethtool -k on a cxgb3 card under RHEL5 showed GSO off; listed as a knob to "
                    "try, not measured.",
                ),
            ),
        ),
        D(
            name="gro",
            summary="Generic receive offload: merge a flow's packets before the stack",
            tool="ethtool -K DEV gro on|off",
            help=(
                "Software receive merging: consecutive segments of one flow are joined into "
                "large packets before the protocol layers, cutting per-packet CPU on the "
                "receiver; safe for routing and bridging, unlike LRO. LAN: NASA measured "
                "15100 -> 12800 Mb/s at MTU 1500 with it off and no change at 9000. NASA saw "
                "it flip along with rx checksumming; on 6.x kernels only hardware GRO does."
            ),
            sources=(
                A(
                    "nasa-40g",
                    "LAN",
                    "on",
                    "Off: 12800 Mb/s at MTU 1500 (from 15100) and 19100 at 9000 (unchanged).",
                ),
            ),
        ),
        D(
            name="lro",
            summary="Large receive offload: the NIC merges segments itself",
            tool="ethtool -K DEV lro on|off",
            help=(
                "The NIC or driver merges received segments; fast, but it loses header detail, "
                "so the kernel disables it on interfaces that forward (bridges, routers, some "
                "virtual setups). GRO is the safer successor. LAN: NASA measured 13300 Mb/s at "
                "MTU 1500 and 18700 at 9000 with it off (15100 / 19100 on) and counts it with "
                "checksumming and SG as offloads that matter."
            ),
            sources=(
                A(
                    "nasa-40g",
                    "LAN",
                    "on",
                    "Off: 13300 Mb/s at MTU 1500 and 18700 at 9000; the conclusion calls "
                    "checksumming, SG and LRO critical.",
                ),
            ),
        ),
        D(
            name="rx-checksum",
            summary="RX checksum offload: the NIC verifies incoming checksums",
            tool="ethtool -K DEV rx on|off",
            turns_off=("rx-gro-hw",),
            turns_off_reported=("gro",),
            help=(
                "The NIC checks IP/TCP/UDP checksums of received packets so the CPU does not. "
                "LAN: switching it off (which also switched GRO off on NASA's kernel) halved "
                "throughput at MTU 1500, 15100 -> 7500 Mb/s, and cost 19100 -> 17300 at 9000; "
                "NASA names RX/TX checksumming the key knobs at 40G. On 6.x kernels only "
                "hardware GRO follows this switch."
            ),
            sources=(
                A(
                    "nasa-40g",
                    "LAN",
                    "on",
                    "Off (with GRO): 7500 Mb/s at MTU 1500 and 17300 at 9000, against "
                    "15100 / 19100 on.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "Checksum offload shown in ethtool -k as a way to spare the CPU.",
                ),
            ),
        ),
        D(
            name="tx-checksum",
            summary="TX checksum offload; off also drops TSO (and SG on old kernels)",
            tool="ethtool -K DEV tx on|off",
            turns_off=("tso",),
            turns_off_reported=("sg", "tso"),
            help=(
                "The NIC fills in checksums of outgoing packets. Without it TSO cannot work, "
                "so the kernel clears TSO too (and on NASA's 2.6.32 kernel SG as well). LAN: "
                "off gave 10000 Mb/s at MTU 1500 (from 15100) and collapsed to 50 Mb/s at "
                "9000 - the worst result in NASA's offload table. Keep it on."
            ),
            sources=(
                A(
                    "nasa-40g",
                    "LAN",
                    "on",
                    "Off (with SG and TSO): 10000 Mb/s at MTU 1500 and 50 Mb/s at MTU 9000.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "Listed among the hardware assists that offload checksum work.",
                ),
            ),
        ),
        D(
            name="sg",
            summary="Scatter-gather DMA; off also drops TSO and GSO",
            tool="ethtool -K DEV sg on|off",
            turns_off=("tso", "gso"),
            turns_off_reported=("tso",),
            help=(
                "Lets the NIC send a packet gathered from several memory fragments, so the "
                "kernel need not copy data into one buffer; TSO and (on 6.x) GSO require it. "
                "LAN: with SG off NASA measured 10300 Mb/s at MTU 1500 and only 70 Mb/s at "
                "9000, and could not tell whether 40GbE or the SG code was to blame. Keep on."
            ),
            sources=(
                A(
                    "nasa-40g",
                    "LAN",
                    "on",
                    "Off (with TSO): 10300 Mb/s at MTU 1500 and 70 Mb/s at MTU 9000.",
                ),
            ),
        ),
        # --- rings and interrupts ---------------------------------------------------------------
        D(
            name="ring",
            summary="RX/TX DMA ring size; smallest won on a LAN, WAN wants large",
            tool="ethtool -g DEV / ethtool -G DEV rx N tx N",
            help=(
                "Descriptors per RX/TX ring: how many packets the NIC can hold before the CPU "
                "takes them (a count of buffers, not bytes). LAN: NASA's best single stream "
                "used 16 slots, 21000 Mb/s, against 18700 at 1024 and 18100 at 4096 or 8192 "
                "(default 256, max 8192). CERN's larger descriptor counts gave only a few "
                "percent. WAN: NASA itself advises big rings to soak up bursts on long paths. "
                "Conflict: small for latency on a quiet LAN, large where bursts and RTT are big; "
                "watch the NIC's drop counters (ethtool -S) after shrinking."
            ),
            sources=(
                A(
                    "nasa-40g",
                    "LAN",
                    "16",
                    "Throughput by ring size: 16 -> 21000 Mb/s, 1024 -> 18700, 4096 -> 18100, "
                    "8192 -> 18100.",
                ),
                A(
                    "nasa-40g",
                    "WAN",
                    None,
                    "Not measured; the report expects larger rings to serve high-latency paths "
                    "better.",
                ),
                A(
                    "cern-10g",
                    "LAN",
                    "2048",
                    "RxDescriptors 1024 -> 2048 and TxDescriptors 256 -> 2048: a few percent "
                    "at most, as long as they are not below the defaults.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "ethtool -g showed a 16384 maximum and 1024 in use; on some NICs more "
                    "buffers means smaller ones, which adds overhead.",
                ),
            ),
        ),
        D(
            name="rx-usecs",
            summary="RX interrupt coalescing delay (us): latency vs CPU load",
            tool="ethtool -c DEV / ethtool -C DEV rx-usecs N",
            help=(
                "How long the NIC waits after a packet before interrupting (rx-frames caps the "
                "count instead). Lower = less latency, more interrupts. LAN: Red Hat got 10010 "
                "request/response transactions per second at 100 us against 8000 at 125 us. "
                "CERN's RxIntDelay 0 (from about 52 us) doubled one large-frame stream but "
                "hurt 12 streams. WAN: ESnet raised it to 100 us because interrupts were the "
                "cost at 10 x 10G. Conflict: tune low for latency, high for bulk throughput."
            ),
            sources=(
                A(
                    "redhat-10g",
                    "LAN",
                    "100",
                    "netperf TCP_RR with 1-byte messages: 8000.27 transactions/s at rx-usecs "
                    "125, 10009.83 at 100.",
                ),
                A(
                    "cern-10g",
                    "LAN",
                    "0",
                    "RxIntDelay 64 units of 0.8192 us (about 52 us) -> 0, with 2048 "
                    "descriptors: one stream 329 -> 693 MB/s at MTU 9000 and 203 -> 275 at "
                    "1500, but 12 streams at 1500 fell 497 -> 295 MB/s.",
                ),
                A(
                    "esnet-100g",
                    "WAN",
                    "100",
                    "Raised to cut interrupt load, part of the 97.9 Gb/s, 48.6 ms RTT setup.",
                ),
            ),
        ),
        D(
            name="adaptive-rx",
            summary="Adaptive RX coalescing; off collapsed 40G to about 110 Mb/s",
            tool="ethtool -C DEV adaptive-rx on|off",
            help=(
                "Lets the driver adjust rx-usecs/rx-frames to the traffic by itself. LAN: with "
                "rx-usecs 16 and rx-frames 88, NASA got 21000 Mb/s with adaptive RX on, "
                "whatever adaptive TX was, and about 110 Mb/s with it off; manual settings "
                "gave erratic results. Prefer it where the driver supports it, then fine-tune "
                "rx-usecs only if measurements say so."
            ),
            sources=(
                A(
                    "nasa-40g",
                    "LAN",
                    "on",
                    "adaptive-rx on: 21000 Mb/s (adaptive-tx on or off); off: 110 and 112 Mb/s.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "The cxgb3 card shown reported adaptive RX and TX off, rx-usecs 5.",
                ),
            ),
        ),
        D(
            name="channels",
            summary="Number of RX/TX queues, each with its own interrupt",
            tool="ethtool -l DEV / ethtool -L DEV combined N",
            help=(
                "Multi-queue NICs spread flows over several rings, each with its own MSI-X "
                "vector that can be pinned to a CPU. LAN: Red Hat ran four netperf streams "
                "through one RX queue for 3696 Mb/s in total with CPU 0 saturated by softirq "
                "work, and through several queues for 7171 Mb/s. WAN: ESnet bound each "
                "interface's queues to their own core. Pin queue IRQs and applications to "
                "match."
            ),
            sources=(
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "4 netperf flows: single RX queue 3696 Mb/s (CPU 0 at 100% soft IRQ); "
                    "multiple RX queues 7171 Mb/s, one queue per CPU (eth2 q0-q6).",
                ),
                A(
                    "esnet-100g",
                    "WAN",
                    None,
                    "MSI-X lets each rx/tx queue be bound to one core; each 10G port got its own.",
                ),
            ),
        ),
        D(
            name="mtu",
            summary="Interface MTU; 9000 beat 1500 in every report",
            tool="ip link set DEV mtu 9000",
            help=(
                "Bigger frames mean fewer packets, interrupts and headers per byte. LAN: NASA "
                "15100 -> 19100 Mb/s (1500 -> 9000); Red Hat 6690 -> 9889 Mb/s; CERN one "
                "stream 127 / 173 / 197 MB/s at 1500 / 9000 / 16114 with defaults and "
                "275 / 693 / 755 fully tuned. WAN: LOFAR calls it the first thing to change. "
                "Every hop and the peer must carry the size, or large packets vanish; "
                "tcp_mtu_probing helps on paths with such black holes."
            ),
            sources=(
                A(
                    "nasa-40g",
                    "LAN",
                    "9000",
                    "All offloads on: 15100 Mb/s at 1500, 19100 at 9000; jumbo frames listed "
                    "as critical, and larger frames (64K) wished for.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    "9000",
                    "After IRQ and process affinity and sendfile: 6689.77 Mb/s at 1500, "
                    "9888.66 Mb/s at 9000.",
                ),
                A(
                    "cern-10g",
                    "LAN",
                    "9000",
                    "One stream: 127/173/197 MB/s (MTU 1500/9000/16114) with defaults, "
                    "275/693/755 with tuned kernel and driver; with tuned parameters at 1500 "
                    "the multi-stream totals got worse.",
                ),
                A(
                    "lofar-wan",
                    "WAN",
                    "9000",
                    "Named the most important parameter; set 9000 on both ends of the path.",
                ),
            ),
        ),
        D(
            name="txqueuelen",
            summary="Device transmit queue length (packets)",
            tool="ip link set DEV txqueuelen N",
            help=(
                "Limit of the packet queue in front of the driver for qdiscs that use it "
                "(pfifo_fast; fq_codel and fq keep their own limits). LAN: NASA saw no change "
                "from raising it on a one-switch LAN and keeps the default 1000. WAN: ESnet "
                "used 10000 for long fast paths, and NASA's appendix suggests the same there."
            ),
            sources=(
                A(
                    "nasa-40g",
                    "LAN",
                    "1000",
                    "Larger values made no noticeable difference between two hosts on one "
                    "switch; the default was enough.",
                ),
                A(
                    "nasa-40g",
                    "WAN",
                    "10000",
                    "Appendix: high-speed networks with more end-to-end latency need longer "
                    "queues.",
                ),
                A(
                    "esnet-100g",
                    "WAN",
                    "10000",
                    "Raised on each 10G interface of the 98 Gb/s cross-country run.",
                ),
            ),
        ),
        # --- CPU placement ------------------------------------------------------------------------
        D(
            name="irq-affinity",
            summary="Which CPUs handle a NIC queue's interrupt (smp_affinity)",
            tool="echo MASK > /proc/irq/N/smp_affinity",
            help=(
                "Pins an interrupt (and so the softirq work after it) to chosen CPUs. LAN: "
                "with IRQs on CPU 0, NASA's best run also put the application on CPU 0 at both "
                "ends: 18.5-19.5 Gb/s with no loss, against 7.1-17.4 Gb/s and 15k-45k "
                "retransmits on other CPUs. Red Hat found the receive CPU 0 pegged, moved the "
                "IRQs and gained 5012 -> 5150 Mb/s. WAN: ESnet gave every 10G NIC its own "
                "core. Stop irqbalance first; settings vanish on reboot."
            ),
            sources=(
                A(
                    "nasa-40g",
                    "LAN",
                    "01",
                    "IRQ on CPU 0; client/server application CPU: 0/0 18500-19500 Mb/s, 0 "
                    "retransmits in 30 s; 2/2 11600-17400 (43447); 6/6 7100-7400 (15149); "
                    "13/13 12000-12200 (44891). The busy core showed about half system, half "
                    "softirq time.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "mpstat -P ALL showed the receiving CPU 0 at 0% idle (about 39% sys, 60% "
                    "soft); moving TX and RX IRQs to CPUs 6 and 7 gave 5012 -> 5150 Mb/s. "
                    "Check /proc/cpuinfo: CPU numbers may alternate between sockets.",
                ),
                A(
                    "esnet-100g",
                    "WAN",
                    None,
                    "One whole core per 10G interface, its rx/tx queue IRQs bound there through "
                    "smp_affinity.",
                ),
            ),
        ),
        D(
            name="cpu-affinity",
            summary="Pin the application near its NIC interrupts (taskset)",
            tool="taskset -p MASK PID, nuttcp -xc, netperf -T",
            help=(
                "Where the sending or receiving process runs relative to the interrupt CPU. "
                "LAN: NASA's same-CPU pairing (0/0) beat every other pair it tried (see "
                "irq-affinity); with IRQs on CPU 0 and the application on CPU 1 it got 13771 "
                "Mb/s and 57412 retransmits against 20801 Mb/s and none on CPU 0. Red Hat's "
                "sister-core placement moved the bottleneck to the sender (5150 -> 4927 Mb/s). "
                "WAN: ESnet pinned each nuttcp stream to its NIC's core. Conflict: same core "
                "vs. neighbouring core depends on the CPU; measure both."
            ),
            sources=(
                A(
                    "nasa-40g",
                    "LAN",
                    "0/0",
                    "30 s nuttcp: application on CPU 1, IRQs on CPU 0: 13770.9 Mb/s with "
                    "57412 retransmits; both on CPU 0: 20800.9 Mb/s with 0.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "netperf -T 5,5 next to the IRQ cores: 4927 Mb/s (from 5150), sending "
                    "core now the limit.",
                ),
                A(
                    "esnet-100g",
                    "WAN",
                    None,
                    "nuttcp -xc2/2, -xc3/3 ... put each stream on its own core at both ends.",
                ),
            ),
        ),
        D(
            name="irqbalance",
            summary="irqbalance daemon; stop it before pinning IRQs by hand",
            tool="systemctl stop irqbalance (or configure it to skip IRQs/CPUs)",
            help=(
                "The daemon rewrites IRQ affinities periodically, undoing manual pinning; it "
                "can also be told to leave certain IRQs or CPUs alone. LAN: NASA saw many "
                "retransmits with IRQ balancing, and Red Hat turns it off for throughput "
                "tests. WAN: ESnet switched it off for the 98 Gb/s run."
            ),
            sources=(
                A(
                    "nasa-40g",
                    "LAN",
                    None,
                    "With IRQ balancing, the test produced many retransmits; the report says to "
                    "make sure the service is not running before binding.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "Stop and disable irqbalance as a first general step for throughput.",
                ),
                A(
                    "esnet-100g",
                    "WAN",
                    "off",
                    "Turned off; interrupts were the main cost at 10 x 10G.",
                ),
            ),
        ),
        D(
            name="pause",
            summary="Ethernet pause frames (flow control)",
            tool="ethtool -a DEV / ethtool -A DEV autoneg on rx on tx on",
            help=(
                "A receiver short of buffers asks the link partner to stop briefly. Needed for "
                "lossless fabrics such as RoCE (with Priority Flow Control); for plain TCP it "
                "can stall all traffic on the link, so check both the host and the switch. "
                "NASA enabled them on host and switch for its RDMA tests; no TCP figure."
            ),
            sources=(
                A(
                    "nasa-40g",
                    "LAN",
                    None,
                    "Pause frames turned on (autonegotiated) on host and switch to give RDMA "
                    "the lossless fabric it needs; not measured for TCP.",
                ),
            ),
        ),
        D(
            name="msi-x",
            summary="MSI-X interrupts: one vector per queue",
            tool="check /proc/interrupts for PCI-MSI-X; driver or firmware option",
            help=(
                "Gives each RX/TX queue its own interrupt so queues can be spread over cores. "
                "WAN: ESnet calls it a major optimisation, worth up to 20% on a host with four "
                "10G ports. LAN: Red Hat notes some cards do not enable it by default."
            ),
            sources=(
                A(
                    "esnet-100g",
                    "WAN",
                    None,
                    "Up to 20% more throughput on a 4 x 10G system; needs chipset, card and OS "
                    "support.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "Can make a big difference; check the interrupt type after loading the driver.",
                ),
            ),
        ),
        D(
            name="cpu-power",
            summary="CPU frequency scaling, power saving and hyperthreading",
            tool="cpupower frequency-set -g performance; BIOS settings",
            help=(
                "Clock changes and deep idle states add latency to interrupt handling. WAN: "
                "ESnet disabled hyperthreading, frequency scaling and power saving and ran "
                "memory at full speed. LAN: Red Hat replaces the ondemand governor with "
                "performance. Neither gives a separate figure."
            ),
            sources=(
                A(
                    "esnet-100g",
                    "WAN",
                    None,
                    "BIOS: hyperthreading off, frequency scaling and energy saving off, memory "
                    "bus at maximum.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "Disable cpuspeed / use the performance governor.",
                ),
            ),
        ),
        D(
            name="pcie-link",
            summary="PCIe slot speed and width the NIC actually negotiated",
            tool="lspci -vv -s BUS:DEV.FN (LnkSta)",
            help=(
                "A NIC in a slow or narrow slot cannot reach line rate whatever else is tuned. "
                "LAN: CERN's card in a half-speed PCI-X slot gave about 470 MB/s at 60% CPU, "
                "and 750 MB/s in a full-speed slot. NASA needed PCIe Gen3 for 40GbE; Red Hat "
                "showed an x8 card running at x4."
            ),
            sources=(
                A(
                    "cern-10g",
                    "LAN",
                    None,
                    "Slot 4 (half speed): about 470 MB/s single stream; slot 1: 750 MB/s.",
                ),
                A(
                    "nasa-40g",
                    "LAN",
                    None,
                    "A Gen2 slot would cap the ConnectX-3 below its rated speed.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "lspci showed a link capable of x8 trained at x4.",
                ),
            ),
        ),
        D(
            name="firewall",
            summary="Packet filtering cost (iptables/nftables)",
            tool="nft list ruleset / iptables -L",
            help=(
                "Every filtering rule and connection tracking entry costs CPU per packet. LAN: "
                "NASA switched the firewall off at both ends for its best runs; no separate "
                "figure. Prefer lean rules or exempting the data path over switching it off "
                "on production hosts."
            ),
            sources=(
                A(
                    "nasa-40g",
                    "LAN",
                    None,
                    "System firewalls disabled on client and server; listed among the best "
                    "changes.",
                ),
            ),
        ),
        D(
            name="nice",
            summary="Scheduling priority of the transfer process",
            tool="nice -n -5 CMD / renice",
            help=(
                "On a busy shared host a higher priority keeps the transfer process on the "
                "CPU. A lower nice value means higher priority: NASA's own example uses +2, "
                "which lowers it; raise priority with a negative value (root only). Not "
                "measured."
            ),
            sources=(
                A(
                    "nasa-40g",
                    "LAN",
                    None,
                    "Suggested for heavily used or multi-user systems; no figure.",
                ),
            ),
        ),
        D(
            name="sendfile",
            summary="Zero-copy sending (sendfile) instead of send()",
            tool="application choice, e.g. netperf -t TCP_SENDFILE",
            help=(
                "sendfile() hands file pages to the socket without copying them through user "
                "space. LAN: Red Hat's netperf went 4927 -> 6690 Mb/s, and the sending core "
                "from 0% to about 70% idle."
            ),
            sources=(
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "TCP_STREAM 4927.19 Mb/s vs TCP_SENDFILE 6689.77 Mb/s; about 10% of the "
                    "whole system's CPU came back.",
                ),
            ),
        ),
    )


DEVICE_HELP: Mapping[str, DeviceHelp] = MappingProxyType({d.name: d for d in _build()})


def device_help(name: str) -> DeviceHelp:
    try:
        return DEVICE_HELP[name]
    except KeyError:
        known = ", ".join(DEVICE_HELP)
        raise KeyError(f"no device help for {name!r} (known: {known})") from None
