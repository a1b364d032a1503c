"""What the generators need to know about the host besides the changes: the device's identity,
the versions of the consumers, which network manager runs, the device's other settings.

`gather_context` reads it all once (live host, namespace or recorded tree); the generators are
pure functions of (changes, context), so snapshot tests build an `ExportContext` by hand.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tuitune import __version__
from tuitune.core import proc
from tuitune.core.cpulist import CpuListError, parse_cpulist
from tuitune.core.export.device import DeviceMatch, identify
from tuitune.core.export.model import ProcFacts
from tuitune.core.host.irqbalance import CONFIG_FILES, IrqbalanceState, read_irqbalance
from tuitune.core.host.root import HostRoot
from tuitune.core.session.access import HostAccess
from tuitune.core.session.settings import Key
from tuitune.core.values import Unavailable

DEFAULT_ETHTOOL = "/usr/sbin/ethtool"
DEFAULT_TC = "/usr/sbin/tc"
DEFAULT_TUITUNE = "/usr/local/bin/tuitune"
DEFAULT_LINK_FILES = (
    Path("/usr/lib/systemd/network/99-default.link"),
    Path("/lib/systemd/network/99-default.link"),
)
# 99-default.link's policies in systemd 252, for when the installed file cannot be read:
# a .link file that replaces it for a device must keep them.
DEFAULT_POLICY = (
    "NamePolicy=keep kernel database onboard slot path",
    "AlternativeNamesPolicy=database onboard slot path",
    "MACAddressPolicy=persistent",
)


@dataclass(frozen=True)
class ExportContext:
    """Everything but the changes. `etc` is where installed files live (/etc, or DIR/etc of a
    recorded tree); `device` holds the interface's current settings (for .link keys that set a
    group of features at once); `now` is the export time (epoch seconds)."""

    ifname: str
    match: DeviceMatch
    netns: str | None = None
    host: str = "localhost"
    etc: Path = Path("/etc")
    now: float = 0.0
    systemd_version: int | None = None
    ethtool: str = DEFAULT_ETHTOOL
    tc: str = DEFAULT_TC
    tuitune: str = DEFAULT_TUITUNE
    tuitune_warning: str | None = None  # why the unit's tuitune may not be there at boot
    ncpus: int = 1
    network_manager: bool = False
    networkd: bool = False
    irqbalance: IrqbalanceState | None = None
    irqbalance_config: tuple[Path, str] | None = None  # (path, text) of its config file
    device: Mapping[Key, str] = field(default_factory=dict)
    link_policy: tuple[str, ...] = ()  # 99-default.link's policy lines, kept in our .link
    version: str = __version__
    mem_total: int | None = None  # bytes of RAM (MemTotal), to judge page-counted sysctls
    page_size: int = 4096
    processes: Mapping[Key, ProcFacts] = field(default_factory=dict)  # procs.process_facts


_POLICY_KEYS = ("NamePolicy", "AlternativeNamesPolicy", "MACAddressPolicy")


def default_policy(files: Sequence[Path] = DEFAULT_LINK_FILES) -> tuple[str, ...]:
    """The [Link] policy lines of the installed 99-default.link (naming, MAC)."""
    for path in files:
        try:
            text = path.read_text()
        except OSError:
            continue
        lines = [
            ln.strip()
            for ln in text.splitlines()
            if ln.strip().split("=", 1)[0]
            in ("NamePolicy", "AlternativeNamesPolicy", "MACAddressPolicy")
        ]
        if lines:
            return tuple(lines)
    return DEFAULT_POLICY


def systemd_version() -> int | None:
    """The installed udev/systemd version (`udevadm --version`: "252")."""
    try:
        out = proc.run(["udevadm", "--version"], timeout=10).stdout
    except (proc.ProgramRefused, OSError, subprocess.TimeoutExpired):
        return None
    m = re.match(r"\s*(\d+)", out)
    return int(m.group(1)) if m else None


def running(root: HostRoot, comm: str) -> bool:
    """Is a process with this command name (as /proc/PID/comm shows it) running?"""
    try:
        pids = [p for p in os.listdir(root.proc) if p.isdigit()]
    except OSError:
        return False
    for pid in pids:
        try:
            if root.read_proc(f"{pid}/comm").strip() == comm:
                return True
        except OSError:
            continue
    return False


def _root_only(path: str) -> bool:
    """`path` and the interpreter its #! line names: every component root's and writable by
    root alone (proc.check_program with root as the only owner). A script whose interpreter
    a user could replace runs that user's code as root just the same."""
    try:
        real = proc.check_program(path, owners=ROOT)
        with open(real, "rb") as f:
            head = f.read(256)
    except (proc.ProgramRefused, OSError):
        return False
    if head.startswith(b"#!"):
        words = head[2:].split(b"\n", 1)[0].split()
        if not words:
            return False
        try:
            proc.check_program(os.fsdecode(words[0]), owners=ROOT)
        except proc.ProgramRefused:
            return False
    return True


ROOT = frozenset({0})
# systemd's own search path for a unit's bare command names (and sudo's secure_path): a
# tuitune installed here is found again after a reinstall puts a new one in its place.
SYSTEM_BIN = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")


def tuitune_command() -> tuple[str, str | None]:
    """(the tuitune a root unit should start, a warning or None). The unit runs it as root at
    every boot, so only a path root alone can change is taken (its interpreter too), and a
    system directory first: a virtualenv's script is gone when the venv is, and a reinstall
    elsewhere would leave the unit pointing at the old one."""
    for directory in SYSTEM_BIN:
        path = os.path.join(directory, "tuitune")
        if os.path.lexists(path) and _root_only(path):
            return path, None  # kept as found: a link there follows the next install
    found = shutil.which("tuitune")
    script = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else None
    candidates = [os.path.abspath(found)] if found else []
    if script is not None and os.path.basename(script) == "tuitune":
        candidates.append(script)
    for path in candidates:
        if _root_only(path):
            return path, (
                f"tuitune-affinity@.service runs {path}, this installation's own script: "
                "removing or moving it breaks the unit. Put tuitune where systemd looks "
                f"(`ln -s {path} /usr/local/bin/tuitune`) and export again"
            )
    return DEFAULT_TUITUNE, (
        "no tuitune only root can change was found (on PATH, in /usr/local/bin, or this "
        f"one): the unit names {DEFAULT_TUITUNE}; install it there before enabling it"
    )


def _ncpus(root: HostRoot) -> int:
    try:
        cpus = parse_cpulist(root.read_sys("devices/system/cpu/present"))
    except (OSError, CpuListError):
        return os.cpu_count() or 1
    return max(cpus, default=0) + 1


def _irqbalance_config(root: HostRoot) -> tuple[Path, str] | None:
    for rel in CONFIG_FILES:
        path = root.etc / rel
        try:
            return path, path.read_text()
        except OSError:
            continue
    return None


def _mem_total(root: HostRoot) -> int | None:
    """MemTotal in bytes, from /proc/meminfo ("MemTotal:  8039548 kB")."""
    try:
        text = root.read_proc("meminfo")
    except OSError:
        return None
    for line in text.splitlines():
        parts = line.split()
        if parts[:1] == ["MemTotal:"] and len(parts) >= 2 and parts[1].isdigit():
            return int(parts[1]) * 1024
    return None


def gather_context(access: HostAccess, ifname: str, *, now: float | None = None) -> ExportContext:
    root = access.root
    match = identify(root, ifname)
    current = access.read_many(access.device_keys(ifname))
    device = {k: v for k, v in current.items() if not isinstance(v, Unavailable)}
    try:
        host = root.read_proc("sys/kernel/hostname").strip() or "localhost"
    except OSError:
        host = "localhost"
    ethtool = proc.find("ethtool") or DEFAULT_ETHTOOL
    tuitune, tuitune_warning = tuitune_command()
    return ExportContext(
        ifname=ifname,
        match=match,
        netns=root.netns,
        host=host,
        etc=root.etc,
        now=time.time() if now is None else now,
        systemd_version=systemd_version(),
        ethtool=ethtool,
        tc=proc.find("tc") or DEFAULT_TC,
        tuitune=tuitune,
        tuitune_warning=tuitune_warning,
        ncpus=_ncpus(root),
        network_manager=running(root, "NetworkManager"),
        networkd=running(root, "systemd-network"),  # comm is cut at 15 characters
        irqbalance=read_irqbalance(root),
        irqbalance_config=_irqbalance_config(root),
        device=device,
        link_policy=default_policy(),
        mem_total=_mem_total(root),
        page_size=os.sysconf("SC_PAGE_SIZE") if root.live else 4096,
    )
