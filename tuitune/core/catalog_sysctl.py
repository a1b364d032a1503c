"""The entries of the sysctl catalog (see tuitune.core.catalog for the types and lookup).

Every entry cites where its advice comes from (tuitune.core.sources): the five field reports,
each marked LAN or WAN by the network it tested, or "kernel-doc" / context "general" for what a
knob does when no report measured it. The texts paraphrase the reports; figures are theirs.

Scopes were checked on Linux 6.18 by listing /proc/sys/net inside a fresh network namespace.
Entries are built by `build()`, which imports the types when called, so that importing this
module on its own does not create an import cycle with tuitune.core.catalog.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tuitune.core.catalog import SysctlEntry

# Why many TCP knobs are per-netns: they were moved into struct net during the 4.x series
# (most of them by 4.15); on older kernels they were one value for the whole host.
_TCP_NETNS = "per network namespace since the 4.x series (most TCP knobs by 4.15)"


def build() -> tuple[SysctlEntry, ...]:
    from tuitune.core.catalog import INT_MAX, UINT_MAX, Advice, SysctlEntry

    A = Advice
    E = SysctlEntry
    return (
        # --- TCP options ---------------------------------------------------------------------
        E(
            key="net.ipv4.tcp_timestamps",
            kind="int",
            scope="netns",
            minimum=0,
            maximum=2,
            summary="TCP timestamp option; off saved CPU on a 40G LAN, keep on for WAN",
            help=(
                "Adds the RFC 7323 timestamp option to every segment, which TCP uses to measure "
                "RTT and to reject stale segments after the sequence number wraps (PAWS) - at "
                "10 Gb/s the 32-bit sequence space wraps in about 3.4 s. 0 = off, 1 = on with "
                "a random per-connection offset (default), 2 (newer kernels) = on without it. "
                "LAN: NASA found switching it off the only kernel change that paid on 40GbE "
                "(+300-400 Mb/s, less CPU per packet); CERN also turned it off. "
                "WAN: keep it on - RTT estimation and wrap protection matter far more on long, "
                "lossy paths than the 12 bytes per segment it costs. The LAN and WAN advice "
                "conflict; choose by where the traffic goes."
            ),
            sources=(
                A(
                    "nasa-40g",
                    "LAN",
                    "0",
                    "Single-stream nuttcp between two ConnectX-3 hosts on one 40G switch: "
                    "disabling timestamps gained 300-400 Mb/s by cutting CPU work; of the four "
                    "kernel settings tried it was the only one that helped, and it heads the "
                    "report's list of most useful changes.",
                ),
                A(
                    "cern-10g",
                    "LAN",
                    "0",
                    "Changed from the default 1 to 0 as part of CERN's 'improved' kernel set on "
                    "back-to-back 10GbE; the authors file it with the knobs whose own effect was "
                    "only a few percent.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "Named among the TCP protocol switches worth checking; no figure given.",
                ),
                A(
                    "kernel-doc",
                    "general",
                    None,
                    "Accepts 0, 1 or 2 (2 = no random offset, newer kernels only). The option "
                    "takes 12 bytes of header per segment (10 plus padding).",
                ),
            ),
            scope_note=_TCP_NETNS,
        ),
        E(
            key="net.ipv4.tcp_sack",
            kind="bool",
            scope="netns",
            summary="Selective ACKs; off was negligible on a LAN, helps WAN recovery",
            help=(
                "With SACK the receiver reports exactly which blocks arrived, so after a loss the "
                "sender resends only the holes instead of everything after the first gap. "
                "LAN: NASA saw no measurable change with it off on a loss-free 40G link, and "
                "CERN switched it off in its 'improved' set. WAN: the LOFAR trace shows both "
                "ends offering SACK, which keeps a drop on a long path from costing a window's "
                "worth of retransmits. Conflict: turning it off only makes sense on a clean LAN; "
                "leave it on (the default) anywhere packets can be lost."
            ),
            sources=(
                A(
                    "nasa-40g",
                    "LAN",
                    "0",
                    "Off made a negligible difference to single-stream 40G throughput.",
                ),
                A(
                    "cern-10g",
                    "LAN",
                    "0",
                    "Default 1 set to 0 in the improved kernel set; rated a few-percent knob.",
                ),
                A(
                    "lofar-wan",
                    "WAN",
                    None,
                    "Both SYNs of the LOFAR to SARA transfer carry sackOK; the page explains that "
                    "selective acknowledgement spares most retransmissions after a drop.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "Listed as the SACK on/off switch among important settings; not measured.",
                ),
            ),
            scope_note=_TCP_NETNS,
        ),
        E(
            key="net.ipv4.tcp_low_latency",
            kind="bool",
            scope="host",
            noop_since="4.14",
            summary="Old latency-over-throughput switch; does nothing since 4.14",
            help=(
                "Once made TCP skip its prequeue and process segments straight away in softirq "
                "context. The prequeue was deleted in Linux 4.14; the file is still there so old "
                "scripts keep working, but writing it has no effect. LAN: NASA set it to 1 on "
                "40GbE and measured no change even on its 2.6.32 kernel. Nothing to tune today."
            ),
            sources=(
                A(
                    "nasa-40g",
                    "LAN",
                    "1",
                    "Setting it to 1 left single-stream 40G throughput unchanged.",
                ),
                A(
                    "kernel-doc",
                    "general",
                    None,
                    "Prequeue processing was removed in 4.14; the knob is kept only for "
                    "compatibility and is ignored.",
                ),
            ),
            scope_note="host-wide; it was never moved into the network namespace",
        ),
        E(
            key="net.ipv4.tcp_window_scaling",
            kind="bool",
            scope="netns",
            summary="TCP window scaling; off cut LAN throughput by more than half",
            help=(
                "Lets TCP advertise windows beyond 64 KB by negotiating a shift count in the "
                "SYN (up to 14, i.e. about 1 GB). Without it no single flow can fill a fast or "
                "long path. LAN: Red Hat measured 2106 Mb/s with it off against 5055 Mb/s on "
                "(netperf, 10GbE), a test made because web advice disagreed. WAN: LOFAR checks "
                "the negotiated shift in tcpdump; it must be big enough for the socket buffers. "
                "Linux derives the shift from the larger of tcp_rmem's max and rmem_max. "
                "Leave it on (the default)."
            ),
            sources=(
                A(
                    "redhat-10g",
                    "LAN",
                    "1",
                    "netperf over 10GbE for 30 s: 2106.40 Mb/s with scaling disabled, "
                    "5054.68 Mb/s with it enabled.",
                ),
                A(
                    "lofar-wan",
                    "WAN",
                    None,
                    "The trace shows shifts of 8 and 10 in the two SYNs. The page asks for at "
                    "least 9 for buffers of about 4.7 MB; by arithmetic 7 (64 KB x 128, about "
                    "8.4 MB) already covers that.",
                ),
            ),
            scope_note=_TCP_NETNS,
        ),
        # --- receive path ----------------------------------------------------------------------
        E(
            key="net.core.netdev_max_backlog",
            kind="int",
            scope="host",
            minimum=1,
            maximum=INT_MAX,
            unit="packets",
            summary="Per-CPU queue of received packets waiting for the stack",
            help=(
                "Length of each CPU's input backlog (used by RPS, non-NAPI drivers and virtual "
                "devices). When it is full, packets are dropped and column 2 of "
                "/proc/net/softnet_stat counts them. Default 1000. A NAPI driver without RPS "
                "hands packets to the stack without this queue, which may be why NASA's 30000 "
                "changed nothing on 40GbE (LAN); CERN used 300000 (LAN). WAN: ESnet ran 250000 "
                "for its 98 Gb/s cross-country test and LOFAR suggests 30000 for 10 GigE. "
                "Raise it when softnet_stat shows drops, not by default."
            ),
            sources=(
                A(
                    "nasa-40g",
                    "LAN",
                    "30000",
                    "Raising it from 1000 to 30000 had a negligible effect on the 40G LAN; the "
                    "report says the default is enough unless latency is significant.",
                ),
                A(
                    "cern-10g",
                    "LAN",
                    "300000",
                    "Raised from 300 to 300000 within the improved kernel set.",
                ),
                A(
                    "esnet-100g",
                    "WAN",
                    "250000",
                    "Part of the standard TCP settings on every host of the 10 x 10G, "
                    "48.6 ms RTT run that reached 97.9 Gb/s.",
                ),
                A(
                    "lofar-wan",
                    "WAN",
                    "30000",
                    "Given (commented out) as the value to use for 10 GigE.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "Described as the count of unprocessed received packets before the kernel "
                    "drops; it also affects UDP. No figure.",
                ),
            ),
            scope_note="host-wide on all kernels",
        ),
        # --- socket buffers ---------------------------------------------------------------------
        E(
            key="net.core.rmem_default",
            kind="int",
            scope="host",
            minimum=2048,
            maximum=INT_MAX,
            unit="bytes",
            netns_readonly_copy=True,
            summary="Initial receive buffer of new sockets (TCP uses tcp_rmem)",
            help=(
                "The receive buffer every new socket starts with. TCP replaces it with the "
                "middle value of tcp_rmem, so in practice it sizes UDP and other non-TCP "
                "sockets - and costs memory for each of them. LAN: CERN raised it from 65535 to "
                "524287. WAN: LOFAR set it to one bandwidth-delay product (10 Gb/s x 3.77 ms = "
                "4712500 bytes). The kernel's own floor is a little above 2 KB."
            ),
            sources=(
                A(
                    "cern-10g",
                    "LAN",
                    "524287",
                    "Raised from 65535 to 524287 in the improved kernel set.",
                ),
                A(
                    "lofar-wan",
                    "WAN",
                    "4712500",
                    "Raised from 124928 to 4712500, one bandwidth-delay product of the "
                    "10 Gb/s, 3.77 ms path.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "Listed as the default socket receive size; also applies to UDP.",
                ),
            ),
            scope_note=(
                "host-wide; since about 6.11 child namespaces show the host value read-only"
            ),
        ),
        E(
            key="net.core.rmem_max",
            kind="int",
            scope="host",
            minimum=2048,
            maximum=INT_MAX,
            unit="bytes",
            netns_readonly_copy=True,
            summary="Largest receive buffer an app may request with SO_RCVBUF",
            help=(
                "Caps what setsockopt(SO_RCVBUF) may ask for (the kernel doubles the granted "
                "size for bookkeeping); tools like iperf -w and nuttcp -w hit this cap. TCP "
                "autotuning is NOT limited by it - that stops at tcp_rmem's max - although the "
                "window scale is chosen from the larger of the two. LAN: CERN went from 65535 "
                "to 524287. WAN: LOFAR used 10000000 (about twice the path's BDP) and ESnet "
                "64 MiB with a hand-set 50 MB window per stream."
            ),
            sources=(
                A(
                    "cern-10g",
                    "LAN",
                    "524287",
                    "Raised from 65535 to 524287 in the improved kernel set.",
                ),
                A(
                    "lofar-wan",
                    "WAN",
                    "10000000",
                    "Raised from 131071 together with the other buffers: one iperf stream went "
                    "from 240 Mb/s to 396 Mb/s with only the LOFAR end tuned, and to 5.44 Gb/s "
                    "once the SARA end was tuned as well.",
                ),
                A(
                    "esnet-100g",
                    "WAN",
                    "67108864",
                    "64 MiB on each host; with nuttcp windows of 50 MB the ten streams over "
                    "48.6 ms RTT ran at about 9.9 Gb/s each (9.4 on the third host), 97.9 Gb/s "
                    "in total, with 0 retransmits in the samples shown.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "Called the ceiling for receive socket buffers. The talk says it overrides "
                    "tcp_rmem; on current kernels it only caps explicit SO_RCVBUF requests.",
                ),
            ),
            scope_note=(
                "host-wide; since about 6.11 child namespaces show the host value read-only"
            ),
        ),
        E(
            key="net.core.wmem_default",
            kind="int",
            scope="host",
            minimum=2048,
            maximum=INT_MAX,
            unit="bytes",
            netns_readonly_copy=True,
            summary="Initial send buffer of new sockets (TCP uses tcp_wmem)",
            help=(
                "The send buffer every new socket starts with; TCP uses tcp_wmem's middle value "
                "instead, so this mostly matters for UDP and raw sockets. LAN: CERN raised it "
                "from 65535 to 524287. WAN: LOFAR sized it to one bandwidth-delay product, "
                "4712500 bytes for 10 Gb/s at 3.77 ms."
            ),
            sources=(
                A(
                    "cern-10g",
                    "LAN",
                    "524287",
                    "Raised from 65535 to 524287 in the improved kernel set.",
                ),
                A(
                    "lofar-wan",
                    "WAN",
                    "4712500",
                    "Raised from 124928 to one bandwidth-delay product of the path.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "Listed as the default socket send size; also applies to UDP.",
                ),
            ),
            scope_note=(
                "host-wide; since about 6.11 child namespaces show the host value read-only"
            ),
        ),
        E(
            key="net.core.wmem_max",
            kind="int",
            scope="host",
            minimum=2048,
            maximum=INT_MAX,
            unit="bytes",
            netns_readonly_copy=True,
            summary="Largest send buffer an app may request with SO_SNDBUF",
            help=(
                "Caps setsockopt(SO_SNDBUF); TCP send autotuning is bounded by tcp_wmem's max "
                "instead. LAN: CERN raised it from 65535 to 524287. WAN: LOFAR used 10000000 "
                "and ESnet 64 MiB, enough for the 50 MB windows its nuttcp streams asked for "
                "on a 48.6 ms path."
            ),
            sources=(
                A(
                    "cern-10g",
                    "LAN",
                    "524287",
                    "Raised from 65535 to 524287 in the improved kernel set.",
                ),
                A(
                    "lofar-wan",
                    "WAN",
                    "10000000",
                    "Raised from 131071, a little over twice the path's BDP; part of the change "
                    "that took one stream from 240 Mb/s to 5.44 Gb/s with both ends tuned.",
                ),
                A(
                    "esnet-100g",
                    "WAN",
                    "67108864",
                    "64 MiB on each host of the 97.9 Gb/s, 48.6 ms RTT run.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "Called the ceiling for send socket buffers; also applies to UDP.",
                ),
            ),
            scope_note=(
                "host-wide; since about 6.11 child namespaces show the host value read-only"
            ),
        ),
        E(
            key="net.core.optmem_max",
            kind="int",
            scope="netns",
            minimum=0,
            maximum=INT_MAX,
            unit="bytes",
            summary="Per-socket limit on option memory (cmsg, filters, zerocopy)",
            help=(
                "Bounds the small side allocations a socket may make: ancillary data, socket "
                "filters, multicast lists, MSG_ZEROCOPY notifications. It does not size data "
                "buffers, so it rarely limits bulk throughput. Default 20480 in CERN's day, "
                "128 KiB on recent kernels. LAN: CERN raised it to 524287 along with the "
                "buffers. A new namespace starts from the kernel default, not the host value."
            ),
            sources=(
                A(
                    "cern-10g",
                    "LAN",
                    "524287",
                    "Raised from 20480 to 524287 in the improved kernel set; not measured alone.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "Listed as the maximum amount of option memory; no figure.",
                ),
            ),
            scope_note="per network namespace since 6.8; host-wide before",
        ),
        E(
            key="net.ipv4.tcp_rmem",
            kind="int_triple",
            scope="netns",
            minimum=1,
            maximum=INT_MAX,
            unit="bytes",
            summary="TCP receive buffer min/default/max; autotuning grows to max",
            help=(
                "Three sizes in bytes: the floor each socket keeps under memory pressure, the "
                "size a new TCP socket starts with (replacing rmem_default), and the ceiling "
                "receive autotuning may grow to (not limited by rmem_max). The max must cover "
                "the bandwidth-delay product of the fastest flow: bandwidth x RTT, e.g. "
                "10 Gb/s x 3.77 ms = 4.7 MB (LOFAR, WAN). LAN: CERN pinned all three at "
                "1000000, which helped 1-4 streams with large frames but lowered the total for "
                "8 and 12 streams at MTU 1500. Conflict: a fixed large buffer suits a few LAN "
                "flows; on a WAN keep a small min and a large max and let autotuning work."
            ),
            sources=(
                A(
                    "cern-10g",
                    "LAN",
                    "1000000 1000000 1000000",
                    "From '4096 87380 174760'. With the improved kernel set one stream went "
                    "127 -> 203 MB/s at MTU 1500, 173 -> 329 at 9000 and 197 -> 399 at 16114; "
                    "at MTU 1500 the 8-stream total fell 523 -> 457 and the 12-stream total "
                    "523 -> 497 MB/s. Memory sizes were among the changes the authors rated "
                    "most important.",
                ),
                A(
                    "lofar-wan",
                    "WAN",
                    "4096 4712500 10000000",
                    "Start at one BDP (4712500) and allow about twice that; with both ends "
                    "tuned one iperf stream rose from 240 Mb/s to 5.44 Gb/s.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "In bytes; the talk reminds that Linux autotunes buffers, so set sizes "
                    "explicitly when a test depends on them.",
                ),
            ),
            scope_note=_TCP_NETNS,
        ),
        E(
            key="net.ipv4.tcp_wmem",
            kind="int_triple",
            scope="netns",
            minimum=1,
            maximum=INT_MAX,
            unit="bytes",
            summary="TCP send buffer min/default/max; autotuning grows to max",
            help=(
                "Three sizes in bytes: guaranteed floor, starting size of a new TCP socket's "
                "send buffer, and the most send autotuning may use (not capped by wmem_max). "
                "A sender needs at least a BDP of data in flight plus what is still unsent. "
                "LAN: CERN fixed all three at 1000000. WAN: LOFAR used 4096 / 4712500 / "
                "10000000 for a 10 Gb/s, 3.77 ms path. See tcp_rmem for the multi-stream "
                "caveat; tcp_notsent_lowat can keep a large max from holding unsent data."
            ),
            sources=(
                A(
                    "cern-10g",
                    "LAN",
                    "1000000 1000000 1000000",
                    "From '4096 16384 131072'; part of the improved set whose effect is given "
                    "under tcp_rmem.",
                ),
                A(
                    "lofar-wan",
                    "WAN",
                    "4096 4712500 10000000",
                    "Default sized to one BDP of the path, max about two.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "In bytes; listed with tcp_rmem as the TCP buffer triple to review.",
                ),
            ),
            scope_note=_TCP_NETNS,
        ),
        E(
            key="net.ipv4.tcp_mem",
            kind="int_triple",
            scope="host",
            minimum=0,
            maximum=2**63 - 1,
            unit="pages",
            parts=("low", "pressure", "high"),
            summary="Memory for all TCP sockets together, in PAGES (low/pressure/high)",
            help=(
                "Counts the memory of every TCP socket on the host together, in pages (4 KiB "
                "on x86-64), not bytes. Under low TCP does not restrain itself; above pressure "
                "it trims buffers; at high new allocations fail. The kernel sizes it from RAM "
                "at boot. LAN: CERN raised it to 1000000 pages (about 3.8 GiB). WAN: LOFAR "
                "wrote byte-sized numbers (high = 10000000), which the kernel reads as pages, "
                "about 38 GiB - in effect no limit; a units slip that Red Hat warns about."
            ),
            sources=(
                A(
                    "cern-10g",
                    "LAN",
                    "1000000 1000000 1000000",
                    "From '97280 97792 98304' pages (about 384 MiB) to 1000000 pages in the "
                    "improved kernel set.",
                ),
                A(
                    "lofar-wan",
                    "WAN",
                    "1542240 4712500 10000000",
                    "Set next to the byte-valued buffers as if it were bytes too; read as "
                    "pages these are roughly 5.9, 18 and 38 GiB.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "Stresses that this triple is in pages rather than bytes.",
                ),
            ),
            scope_note="host-wide: one TCP memory pool per kernel, not per namespace",
        ),
        # --- TCP behaviour between connections ---------------------------------------------------
        E(
            key="net.ipv4.tcp_no_metrics_save",
            kind="bool",
            scope="netns",
            summary="Don't seed new connections with ssthresh/RTT of old ones",
            help=(
                "When a connection closes Linux remembers per-destination RTT, ssthresh and "
                "cwnd, and the next connection to that host starts from them - so one lossy "
                "transfer can slow the following ones. 1 stops the saving. Since 3.6 the "
                "memory lives in the tcp_metrics table ('ip tcp_metrics show', 'ip tcp_metrics "
                "flush'), entries age out after an hour, and a route flush no longer clears "
                "them. WAN: LOFAR sets it to 1. LAN: NASA cleared this state between runs so "
                "remembered values could not flatter a result."
            ),
            sources=(
                A(
                    "lofar-wan",
                    "WAN",
                    "1",
                    "Set to 1 so a previous connection's ssthresh is not reused; the page warns "
                    "that slow values could otherwise stick for up to ten minutes (on current "
                    "kernels metrics entries live up to an hour).",
                ),
                A(
                    "nasa-40g",
                    "LAN",
                    None,
                    "Cached route state was flushed between every test so that saved metrics "
                    "could not produce a false improvement (on its 2.6.32 kernel the route "
                    "cache still held them).",
                ),
            ),
            scope_note=_TCP_NETNS,
        ),
        E(
            key="net.ipv4.tcp_moderate_rcvbuf",
            kind="bool",
            scope="netns",
            summary="Receive-buffer autotuning (on by default; leave it on)",
            help=(
                "When 1 (the default) the kernel grows each connection's receive buffer toward "
                "tcp_rmem's max as the flow's bandwidth-delay product requires. An application "
                "that sets SO_RCVBUF turns it off for that socket. WAN: LOFAR makes sure it is 1. "
                "Pinning tcp_rmem's three values to one number (as CERN did) leaves autotuning "
                "nothing to adjust."
            ),
            sources=(
                A(
                    "lofar-wan",
                    "WAN",
                    "1",
                    "Checked and set to 1 next to tcp_no_metrics_save.",
                ),
                A(
                    "kernel-doc",
                    "general",
                    None,
                    "Enables automatic receive buffer sizing, bounded by tcp_rmem.",
                ),
            ),
            scope_note=_TCP_NETNS,
        ),
        E(
            key="net.ipv4.tcp_tw_reuse",
            kind="int",
            scope="netns",
            minimum=0,
            maximum=2,
            summary="Reuse TIME-WAIT ports for new outgoing connections",
            help=(
                "Lets connect() take a local port still held by a TIME-WAIT socket when it is "
                "safe by timestamps. 0 = off, 1 = on, 2 = loopback only (the default on recent "
                "kernels). It helps hosts that open very many short outgoing connections and "
                "does nothing for bulk throughput. LAN: CERN turned it on in its improved set "
                "without measuring it alone."
            ),
            sources=(
                A(
                    "cern-10g",
                    "LAN",
                    "1",
                    "Default 0 set to 1 in the improved kernel set; not measured on its own.",
                ),
                A(
                    "kernel-doc",
                    "general",
                    None,
                    "Only affects outgoing connections and relies on TCP timestamps.",
                ),
            ),
            scope_note=_TCP_NETNS,
        ),
        E(
            key="net.ipv4.tcp_tw_recycle",
            kind="bool",
            scope="netns",
            removed_in="4.12",
            summary="Removed in 4.12: fast TIME-WAIT recycling that broke NAT users",
            help=(
                "Recycled TIME-WAIT sockets early, trusting per-host timestamps. Clients behind "
                "NAT share an address but not a timestamp clock, so their connections were "
                "silently dropped; with random timestamp offsets (4.10) it stopped working "
                "altogether and Linux 4.12 removed it. LAN: CERN enabled it in 2003; do not "
                "copy that today - the file no longer exists."
            ),
            sources=(
                A(
                    "cern-10g",
                    "LAN",
                    "1",
                    "Default 0 set to 1 in the improved kernel set; no separate figure.",
                ),
                A(
                    "kernel-doc",
                    "general",
                    None,
                    "Removed in Linux 4.12 because it broke connections from hosts behind NAT.",
                ),
            ),
            scope_note="briefly per network namespace just before its removal in 4.12",
        ),
        E(
            key="net.ipv4.route.flush",
            kind="trigger",
            scope="netns",
            readable=False,
            summary="Write-only trigger: invalidate cached IPv4 routes",
            help=(
                "Writing an integer (normally 1) marks every cached IPv4 route in this "
                "namespace stale so it is looked up again; reading is refused (mode 0200). "
                "Before 3.6 this emptied the route cache, which then also held per-host TCP "
                "metrics; today those are separate ('ip tcp_metrics flush'). It does not save "
                "anything: sysctl -w takes effect at once, and only /etc/sysctl.conf or "
                "sysctl.d makes values survive a reboot."
            ),
            sources=(
                A(
                    "lofar-wan",
                    "WAN",
                    "1",
                    "Run after changing the buffers; the page says it saves the changes, "
                    "though writing a sysctl already applies it.",
                ),
                A(
                    "nasa-40g",
                    "LAN",
                    None,
                    "The route cache was flushed between tests so no cached metrics or "
                    "settings could inflate a result.",
                ),
                A(
                    "redhat-10g",
                    "LAN",
                    None,
                    "Reminds that sysctl -w lasts only until reboot; persistent values belong in "
                    "/etc/sysctl.conf.",
                ),
            ),
            scope_note="per network namespace",
        ),
        # --- current knobs the reports predate --------------------------------------------------
        E(
            key="net.ipv4.tcp_congestion_control",
            kind="choice",
            scope="netns",
            choices_key="net.ipv4.tcp_available_congestion_control",
            summary="Congestion control for new TCP connections (cubic, bbr...)",
            help=(
                "The algorithm new TCP sockets use; an application may pick another with the "
                "TCP_CONGESTION socket option. cubic is the usual default. bbr paces by the "
                "measured bottleneck rate and RTT and often does better on long paths with "
                "some random loss; it is at its best with the fq qdisc. Writing a name not yet "
                "listed in tcp_available_congestion_control makes the kernel try to load "
                "module tcp_<name>. A new namespace starts with the host's choice. The field "
                "reports predate this knob's common use; nothing here was measured by them."
            ),
            sources=(
                A(
                    "kernel-doc",
                    "general",
                    None,
                    "Sets the default algorithm; choices are listed in "
                    "tcp_available_congestion_control, and unprivileged sockets are limited to "
                    "tcp_allowed_congestion_control.",
                ),
            ),
            scope_note="per network namespace since 4.15",
        ),
        E(
            key="net.ipv4.tcp_available_congestion_control",
            kind="string",
            scope="netns",
            writable=False,
            summary="Read-only list of congestion control algorithms now loaded",
            help=(
                "Space-separated names of the algorithms built in or loaded as modules; the "
                "choices for tcp_congestion_control. Loading a module (modprobe tcp_bbr) adds "
                "its name."
            ),
            sources=(
                A(
                    "kernel-doc",
                    "general",
                    None,
                    "Read-only list of registered congestion control algorithms.",
                ),
            ),
            scope_note="readable in every network namespace",
        ),
        E(
            key="net.core.default_qdisc",
            kind="string",
            scope="host",
            summary="Queueing discipline given to new interfaces (fq, fq_codel...)",
            help=(
                "The qdisc attached when an interface's root qdisc is created - new devices, or "
                "after the root qdisc is deleted; existing interfaces keep theirs. Multi-queue "
                "NICs get mq with one of these per TX queue. fq adds per-flow pacing that bbr "
                "and very fast senders benefit from; fq_codel is a common distribution default "
                "and pfifo_fast the kernel's own. Not measured by the field reports."
            ),
            sources=(
                A(
                    "kernel-doc",
                    "general",
                    None,
                    "Names the default queueing discipline for network devices.",
                ),
            ),
            scope_note="host-wide on 6.18 (absent inside child namespaces)",
        ),
        E(
            key="net.core.netdev_budget",
            kind="int",
            scope="host",
            minimum=1,
            maximum=INT_MAX,
            unit="packets",
            summary="Packet budget of one NET_RX softirq run across all NAPIs",
            help=(
                "How many packets one receive softirq run may process over all NAPI instances "
                "of a CPU before yielding (default 300; each driver poll is still capped by "
                "its weight, usually 64). If column 3 (time_squeeze) of /proc/net/softnet_stat "
                "keeps rising, the run ended with work left: raise this and "
                "netdev_budget_usecs a little, e.g. to 600. Not measured by the field reports."
            ),
            sources=(
                A(
                    "kernel-doc",
                    "general",
                    None,
                    "Maximum packets taken from all interfaces in one polling cycle.",
                ),
            ),
            scope_note="host-wide",
        ),
        E(
            key="net.core.netdev_budget_usecs",
            kind="int",
            scope="host",
            minimum=0,
            maximum=INT_MAX,
            unit="us",
            summary="Time limit of one NET_RX softirq run",
            help=(
                "Microseconds one receive softirq run may last before it yields, alongside the "
                "packet limit netdev_budget. Default is two jiffies (2000 us at HZ=1000, 8000 "
                "at HZ=250); present since 4.12. Raise together with netdev_budget when "
                "time_squeeze grows. Not measured by the field reports."
            ),
            sources=(
                A(
                    "kernel-doc",
                    "general",
                    None,
                    "Maximum duration of one NAPI polling cycle in microseconds.",
                ),
            ),
            scope_note="host-wide",
        ),
        E(
            key="net.core.busy_read",
            kind="int",
            scope="host",
            minimum=0,
            maximum=INT_MAX,
            unit="us",
            summary="Busy-poll the NIC queue on blocking reads (us); 0 = off",
            help=(
                "Default for the SO_BUSY_POLL socket option: a blocking read spins on the "
                "device queue for up to this many microseconds instead of sleeping until an "
                "interrupt. Cuts latency (50 is the documented starting point) at the cost of "
                "a busy CPU and more power; needs driver NAPI support. Setting SO_BUSY_POLL "
                "per socket is preferred. Not measured by the field reports."
            ),
            sources=(
                A(
                    "kernel-doc",
                    "general",
                    None,
                    "Busy-poll timeout for socket reads; 0 (off) by default.",
                ),
            ),
            scope_note="host-wide",
        ),
        E(
            key="net.core.busy_poll",
            kind="int",
            scope="host",
            minimum=0,
            maximum=INT_MAX,
            unit="us",
            summary="Busy-poll time for poll/select on sockets (us); 0 = off",
            help=(
                "Like busy_read, but for poll() and select(): how long to spin on device "
                "queues of the sockets polled before sleeping. The documentation suggests about "
                "50 for a few sockets and 100 for several hundred; use epoll beyond that. Burns "
                "CPU; only for latency-critical hosts. Not measured by the field reports."
            ),
            sources=(
                A(
                    "kernel-doc",
                    "general",
                    None,
                    "Busy-poll timeout for poll and select; 0 (off) by default.",
                ),
            ),
            scope_note="host-wide",
        ),
        E(
            key="net.ipv4.tcp_mtu_probing",
            kind="int",
            scope="netns",
            minimum=0,
            maximum=2,
            summary="Path MTU probing: 0 off, 1 after a black hole, 2 always",
            help=(
                "With jumbo frames, a path that drops large packets without sending the ICMP "
                "'fragmentation needed' message makes connections hang (a PMTU black hole). "
                "1 turns on packetization-layer probing (RFC 4821) once such a hole is "
                "detected, 2 probes from the start. Worth 1 on WAN hosts running MTU 9000, "
                "as LOFAR and ESnet did; the reports themselves did not test it."
            ),
            sources=(
                A(
                    "kernel-doc",
                    "general",
                    None,
                    "Controls TCP packetization-layer path MTU discovery; default 0.",
                ),
            ),
            scope_note=_TCP_NETNS,
        ),
        E(
            key="net.ipv4.tcp_slow_start_after_idle",
            kind="bool",
            scope="netns",
            summary="Restart slow start after idle; 0 keeps cwnd for WAN bursts",
            help=(
                "When 1 (default) a connection that sat idle longer than its retransmission "
                "timeout falls back to the initial congestion window. For long-RTT transfers "
                "that pause between files on one connection, 0 avoids ramping up again every "
                "time; on a LAN the ramp is short anyway. Not measured by the field reports."
            ),
            sources=(
                A(
                    "kernel-doc",
                    "general",
                    None,
                    "Decides whether the congestion window is reset after an idle period.",
                ),
            ),
            scope_note=_TCP_NETNS,
        ),
        E(
            key="net.ipv4.tcp_notsent_lowat",
            kind="int",
            scope="netns",
            minimum=0,
            maximum=UINT_MAX,
            unit="bytes",
            summary="Limit on unsent bytes a socket queues (default: unlimited)",
            help=(
                "A socket counts as writable only while less than this much data waits unsent "
                "in its queue; default 4294967295 means no limit. With big send buffers (ESnet "
                "allowed 64 MiB) a bound such as 131072 keeps memory and sender-side latency "
                "low for interactive or multiplexed traffic; check bulk throughput after "
                "changing it. Not measured by the field reports."
            ),
            sources=(
                A(
                    "kernel-doc",
                    "general",
                    None,
                    "Limits not-yet-sent data in the write queue; applications can set "
                    "TCP_NOTSENT_LOWAT per socket.",
                ),
            ),
            scope_note=_TCP_NETNS,
        ),
        E(
            key="net.core.somaxconn",
            kind="int",
            scope="netns",
            minimum=0,
            maximum=INT_MAX,
            unit="connections",
            summary="Cap on the accept backlog a listening socket may ask for",
            help=(
                "Upper bound on the backlog passed to listen(); raised from 128 to 4096 in "
                "Linux 5.4. It matters for servers taking bursts of new connections, not for "
                "the throughput of a single flow. Not measured by the field reports."
            ),
            sources=(
                A(
                    "kernel-doc",
                    "general",
                    None,
                    "Limit of the socket listen() backlog.",
                ),
            ),
            scope_note="per network namespace for a long time (2.6 era)",
        ),
        E(
            key="net.ipv4.conf.all.arp_filter",
            kind="bool",
            scope="netns",
            summary="Answer ARP only on the NIC that routes back to the asker",
            help=(
                "With several NICs on one subnet Linux may answer ARP for a local address on "
                "any of them, so a test can run over a different card than intended. 1 makes "
                "each interface reply only if the kernel would route to the asker through it. "
                "The effective value per interface is conf.all OR conf.<interface>. LAN: Red "
                "Hat sets it to 1 when two machines have more than one path, then confirms "
                "the card in use from /proc/interrupts or interface counters."
            ),
            sources=(
                A(
                    "redhat-10g",
                    "LAN",
                    "1",
                    "0 lets traffic take any path; with more than one path between the test "
                    "hosts set 1, and check which NIC's interrupt and packet counts rise.",
                ),
            ),
            scope_note="per network namespace",
        ),
    )
