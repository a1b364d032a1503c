"""Every threshold of the Advisor's rules, named in one place, with where its value comes from.

Tests read these names (never the numbers), so a threshold moved here moves its tests' edges.
"""

from __future__ import annotations

# cpu-saturated. NASA's server core read 49.7 %sy + 50.0 %si (100 %) in its best run; Red
# Hat's receive core 38.9 %sys + 0.6 %irq + 60.4 %soft with every other core 100 % idle. 90 %
# leaves room for the sampling's own jitter while staying far above a merely busy core.
CPU_BUSY_PCT = 90.0  # sys + irq + soft, percent of one step
MOST_OF_WINDOW = 0.6  # fraction of the window's steps the core must be that busy
NIC_SHARE = 0.5  # share of the NIC's queue interrupts (or of NET_RX) landing on that core
ROOM_PCT = 50.0  # another NIC-local CPU busier than this has no room to take queues

# softnet-drops / softnet-squeeze: any rise in the window counts (the kernel drops a packet
# for every unit of the first; the second means a receive run ended with work left).
SOFTNET_DROPS_PER_S = 0.0  # drops/s summed over CPUs: above this fires
SQUEEZE_PER_S = 1.0  # time_squeeze/s summed over CPUs: at or above this fires
# NASA (LAN) tried 30000 (Table 3: negligible; it reports no drop counts for it). LOFAR (WAN)
# suggests the same 30000 for 10 GigE: a WAN source, so not the reason for the LAN value.
BACKLOG_LAN = 30000
BACKLOG_WAN = 250000  # ESnet's standard TCP tuning for its 48.6 ms path
BUDGET_FACTOR = 2  # netdev_budget(_usecs) doubled: not measured by the reports

# nic-rx-drops: link or driver drop/missed/no-buffer counters rising in the window.
NIC_DROPS_PER_S = 0.0

# coalesce-off: Red Hat's pegged receive core took 10,680 interrupts/s.
COALESCE_IRQ_PER_QUEUE = 10000.0  # interrupts/s of one queue IRQ
ESNET_RX_USECS = 100  # ESnet's coalescing for its 10G NICs (WAN)

# mtu-small: links of 10 Gb/s and faster (CERN 10 GbE, NASA 40 GbE, LOFAR 1-10 Gb/s).
MTU_LINK_MBPS = 10000
MTU_SMALL = 1500
MTU_JUMBO = 9000

# txqueuelen-wan: ESnet set 10000 on its WAN hosts; NASA saw no effect over 1000 on a LAN.
TXQUEUELEN_WAN = 10000

# app-on-irq-cpu: a process using less than this share of one CPU over the window is not the
# one moving the NIC's bytes (NASA's pegged server core was 100 % busy; this is far below).
APP_CPU_PCT = 5.0

# A window "has load" when the link moved at least this many packets per second, or a CPU
# spent this share on interrupts and softirqs: below both the dynamic rules have nothing to
# judge and say so.
LOADED_PPS = 1000.0
LOADED_SOFT_PCT = 20.0

# cstates-deep: an idle state counts as deep past this exit latency. Intel's C1/C1E exit in
# 2-10 us, C3/C6 in 33-210 us (intel/pepc's recorded hosts); the kernel's cpuidle docs: a
# state's exit latency is paid on every wake-up. Not from the seeds.
CSTATE_DEEP_US = 20

# pcie-payload: MaxReadReq below this is the small-read default vendors raise (Red Hat's lspci
# showed 512 on its 10G card; NIC vendor guides go to 4096). Not a measured threshold.
PCIE_MRRS_MIN = 512

# iommu-translated: below this packet rate (rx + tx per second) the per-buffer mapping costs
# little; about 1 Mpps is where one core's budget for mapping starts to matter. A judgement,
# not from the seeds.
IOMMU_PPS = 1_000_000.0
