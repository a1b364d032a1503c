"""Is irqbalance running (it will undo manual IRQ placement), and what is it told to leave alone."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace

from tuitune.core.cpulist import CpuListError, parse_cpulist, parse_mask
from tuitune.core.host.daemon import COMM_LEN, daemon_pids
from tuitune.core.host.root import HostRoot
from tuitune.core.values import Unavailable

CONFIG_FILES = ("default/irqbalance", "sysconfig/irqbalance")


@dataclass(frozen=True, slots=True)
class IrqbalanceState:
    running: bool
    pids: tuple[int, ...]
    config_file: str | None
    banned_cpus: frozenset[int]  # IRQBALANCE_BANNED_CPULIST / IRQBALANCE_BANNED_CPUS
    banned_irqs: tuple[str, ...]  # --banirq=N in IRQBALANCE_ARGS or OPTIONS
    oneshot: bool  # IRQBALANCE_ONESHOT: balances once at boot, then leaves IRQs alone


def irqbalance_pids(root: HostRoot) -> tuple[int, ...]:
    """The system's irqbalance: root's, from a binary only root can replace. A process anyone
    started and called irqbalance is not it (see host/daemon.py)."""
    return daemon_pids(root, "irqbalance")


def _parse_env(text: str) -> dict[str, str]:
    env: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        try:
            parts = shlex.split(value, comments=True)
        except ValueError:
            continue
        env[key.strip().removeprefix("export ").strip()] = " ".join(parts)
    return env


def read_irqbalance(root: HostRoot) -> IrqbalanceState:
    pids = irqbalance_pids(root)
    config_file = None
    env: dict[str, str] = {}
    for rel in CONFIG_FILES:
        path = root.etc / rel
        text = root.read_file(path, str(path))
        if isinstance(text, Unavailable):
            continue
        env = _parse_env(text)
        # The host's own path: a --root tree's file is that host's /etc/REL, not where the
        # tree happens to be unpacked (a capture's is a new temporary directory each time).
        config_file = str(path) if root.jail is None else f"/etc/{rel}"
        break
    banned: frozenset[int] = frozenset()
    try:
        if env.get("IRQBALANCE_BANNED_CPULIST"):
            banned = parse_cpulist(env["IRQBALANCE_BANNED_CPULIST"])
        elif env.get("IRQBALANCE_BANNED_CPUS"):
            banned = parse_mask(env["IRQBALANCE_BANNED_CPUS"])
    except CpuListError:
        banned = frozenset()
    args = (env.get("IRQBALANCE_ARGS", "") + " " + env.get("OPTIONS", "")).split()
    banned_irqs = []
    for i, arg in enumerate(args):
        for prefix in ("--banirq=", "-i"):
            if arg.startswith(prefix) and arg[len(prefix) :].isdigit():
                banned_irqs.append(arg[len(prefix) :])
        if arg in ("--banirq", "-i") and i + 1 < len(args) and args[i + 1].isdigit():
            banned_irqs.append(args[i + 1])
    oneshot = env.get("IRQBALANCE_ONESHOT", "").lower() in ("1", "yes", "true", "y")
    return IrqbalanceState(bool(pids), pids, config_file, banned, tuple(banned_irqs), oneshot)


def recheck_irqbalance(root: HostRoot, state: IrqbalanceState) -> IrqbalanceState:
    """`state` without the pids that have exited since it was read (one small read each, so
    it can run every tick, unlike the /proc scan of read_irqbalance). The same object when
    nothing changed. A pid taken over since by another irqbalance-named process still counts:
    at worst the warning stays until the next full read."""
    alive = tuple(pid for pid in state.pids if _still_named(root, pid))
    if alive == state.pids:
        return state
    return replace(state, running=bool(alive), pids=alive)


def _still_named(root: HostRoot, pid: int) -> bool:
    try:
        return root.read_proc(f"{pid}/comm").strip() == "irqbalance"[:COMM_LEN]
    except (OSError, UnicodeDecodeError):
        return False
