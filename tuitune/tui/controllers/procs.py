"""The processes view (`P`): who uses the NIC, where they may run and where they did, and
moving one of them (its CPU affinity) as a journaled step like any other change.

Readings of /proc run on worker threads (the watched namespace's kernel thread, where its
sockets are); two readings a few seconds apart give each process's CPU use per CPU. In the lab
the application is the iperf3 server on the far end of the veth, in the peer namespace: its
sockets are read there too, so the user finds it among the NIC's processes.

A move goes through the Editor's journal (original recorded first; u undoes, R reverts,
`tuitune restore` after a crash). Another user's process asks first; kernel threads are never
offered; a process that exited is shown as gone, never an error.
"""

from __future__ import annotations

import ipaddress
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from textual.message import Message

from tuitune.core.cpulist import CpuListError, format_cpulist, parse_cpulist
from tuitune.core.host.netns import KernelThread
from tuitune.core.host.root import HostRoot
from tuitune.core.procs.model import NicProcess
from tuitune.core.session.outcome import Outcome
from tuitune.core.session.risk import needs_consent
from tuitune.core.session.settings import Key
from tuitune.core.text import printable
from tuitune.core.watch.snapshot import HostState, NicState
from tuitune.tui.screens.dialogs import ChoiceScreen, EditorScreen
from tuitune.tui.shell import Shell

if TYPE_CHECKING:  # the lab's code loads with `tuitune lab`, not the live screen
    from tuitune.core.lab import Lab
    from tuitune.core.procs.discover import IPAddress, Reading
    from tuitune.core.session import Journal  # loaded with the first change (issue 38)

T = TypeVar("T")
WINDOW_READINGS = 4  # the CPU use is over the last few readings (about 3 s at 1 s)


class Journaled(Protocol):
    """What the view needs of the Editor: the journal off the UI thread, and its report."""

    def run_journal(self, work: Callable[[Journal], T], done: Callable[[T], None]) -> None: ...

    def report(self, outs: list[Outcome]) -> None: ...


@dataclass
class ProcsState:
    """What the screen draws: the processes over the window, and per process (its key name)
    a state word: "pending" while a move is written, "refused: ...", "gone"."""

    ifname: str | None = None
    procs: tuple[NicProcess, ...] = ()
    seconds: float = 0.0  # the window the CPU use is over
    states: dict[str, str] = field(default_factory=dict)
    peers: frozenset[int] = frozenset()  # PIDs found in the lab's peer namespace
    moved: dict[str, str] = field(default_factory=dict)  # key name -> original affinity
    local: frozenset[int] | None = None
    node: int | None = None
    note: str = ""  # the last one-line message (the view covers the header that says it)


def nic_local(nic: NicState | None, host: HostState | None) -> frozenset[int] | None:
    """The NIC's NUMA node's CPUs (its local_cpus where the node is unknown)."""
    if nic is None:
        return None
    node = nic.placement.numa_node
    if node is not None and host is not None and node in host.topology.nodes:
        return host.topology.nodes[node]
    return nic.placement.local_cpus


def pending_text(p: NicProcess) -> str | None:
    """A moved process whose threads have not run since: they still show their old CPU until
    the scheduler next runs them (a sleeping server moves at its next wake-up)."""
    off = sorted({t.last_cpu for t in p.threads if t.allowed and t.last_cpu not in t.allowed})
    if not off:
        return None
    return f"pending: last ran on cpu {format_cpulist(frozenset(off))}, moves when it next runs"


class ProcsController:
    class PickInGrid(Message):
        """`g` in the view: pick this process's CPUs in the main screen's CPU grid."""

        def __init__(self, proc: NicProcess) -> None:
            super().__init__()
            self.proc = proc

    def __init__(
        self,
        shell: Shell,
        editor: Journaled,
        call: Callable[..., Any],
        root: HostRoot,
        lab: Lab | None = None,
    ) -> None:
        self.shell = shell
        self.editor = editor
        self._call = call  # runs a function on the watched namespace's kernel thread
        self.root = root
        self.lab = lab
        self._peer: KernelThread | None = None
        self._readings: deque[Reading] = deque(maxlen=WINDOW_READINGS)
        self._last: dict[str, NicProcess] = {}  # for a process that exits: shown as gone
        self._reading = False
        self.readings_taken = 0
        self.state = ProcsState()
        self.on_change: Callable[[ProcsState], None] | None = None  # the open screen's redraw

    # -- readings --------------------------------------------------------------------------
    def _read(self, ifname: str, known: dict[str, int]) -> tuple[Reading, frozenset[int]]:
        """Worker thread: the NIC's processes, and in the lab those of the peer's end. A
        process of the last reading (`known`: key name -> pid) that has no socket there now
        but still runs is kept: iperf3's server closes and reopens its sockets between tests,
        and a process must not look gone for that."""
        # The discovery loads with the P view's first reading, not the screen (issue 38).
        from tuitune.core.procs.discover import Reading, read_nic_processes, read_process

        lab = self.lab if self.root.live else None
        # The lab's addresses are known: named, so that a busy host's failed address read
        # (getifaddrs under load) cannot make its processes vanish for one reading.
        mine = _addresses(lab.local_addr) if lab is not None and ifname == lab.ifname else ()
        got: Reading = self._call(lambda: read_nic_processes(self.root, ifname, addresses=mine))
        peers: frozenset[int] = frozenset()
        if lab is not None:
            try:
                if self._peer is None:
                    self._peer = KernelThread(lab.peer_netns)
                peer_root = HostRoot(netns=lab.peer_netns)
                far = self._peer.call(
                    lambda: read_nic_processes(
                        peer_root, lab.peer_ifname, addresses=_addresses(lab.peer_addr)
                    )
                )
            except OSError:
                far = None  # the lab went away: its own side is still read
            if far is not None:
                peers = frozenset(far.procs) - frozenset(got.procs)
                got = Reading(got.at, {**far.procs, **got.procs}, got.addresses | far.addresses)
        seen = {r.ident.name for r in got.procs.values()}
        still = {}
        for name, pid in known.items():
            if name in seen:
                continue
            again = read_process(self.root, pid)
            if again is not None and again.ident.name == name:  # not a reused PID
                still[pid] = again
        if still:
            got = Reading(got.at, {**still, **got.procs}, got.addresses)
        return got, peers

    def refresh(self) -> None:
        """Take a reading (off the UI thread) and redraw when it is in."""
        sel = self.shell.selection()
        if sel.ifname is None or self._reading:
            return
        self._reading = True
        ifname = sel.ifname
        known = (
            {n: p.ident.pid for n, p in self._last.items()} if self.state.ifname == ifname else {}
        )

        def done(result: tuple[Reading, frozenset[int]] | None) -> None:
            self._reading = False
            if result is not None:
                self._update(ifname, *result)

        def work() -> tuple[Reading, frozenset[int]] | None:
            try:
                return self._read(ifname, known)
            except OSError:
                return None

        self.shell.in_thread(work, done, group="procs")

    def _update(self, ifname: str, reading: Reading, peers: frozenset[int]) -> None:
        if self.state.ifname != ifname:
            self._readings.clear()
            self._last.clear()
        self._readings.append(reading)
        self.readings_taken += 1
        sel = self.shell.selection()
        local = nic_local(sel.nic, sel.host)
        first = self._readings[0] if len(self._readings) > 1 else None
        from tuitune.core.procs.discover import window  # loaded by the reading already

        procs = window(first, reading, local_cpus=local)
        now = {p.ident.name for p in procs}
        states = dict(self.state.states) if self.state.ifname == ifname else {}
        moved = self._moved()
        # A process that was moved (or being moved) and is no longer there: gone, kept shown.
        kept = [p for n, p in self._last.items() if n not in now and (n in moved or n in states)]
        for p in kept:
            states[p.ident.name] = "gone (the process exited)"
        for n in now:  # a state from before that no longer holds (the process is there)
            if states.get(n, "").startswith("gone"):
                del states[n]
        self._last = {p.ident.name: p for p in procs} | {p.ident.name: p for p in kept}
        self.state = ProcsState(
            ifname=ifname,
            procs=procs + tuple(kept),
            seconds=reading.at - first.at if first is not None else 0.0,
            note=self.state.note,
            states=states,
            peers=peers | (self.state.peers & frozenset(reading.procs)),
            moved=moved,
            local=local,
            node=sel.nic.placement.numa_node if sel.nic is not None else None,
        )
        self._changed()

    def _moved(self) -> dict[str, str]:
        """Processes this session's journal holds an original for: name -> original."""
        journal = self.shell.session.journal
        if journal is None:
            return {}
        try:
            originals = self.shell.session.originals()
        except OSError:
            return {}
        return {
            k.name: v or "?"
            for k, v in originals.items()
            if k.kind == "proc_affinity" and "/" not in k.name
        }

    def notice(self, text: str) -> None:
        """The App's one-line message, kept for the open view (UI thread); escaped, as it
        may quote a name another user chose."""
        self.state.note = printable(text, 1000)
        self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self.state)

    def close(self) -> None:
        self.on_change = None
        self._readings.clear()  # the next open starts its own window, not one from before
        peer, self._peer = self._peer, None
        if peer is not None:
            self.shell.in_thread(peer.close, group="procs-close")

    # -- moving ----------------------------------------------------------------------------
    def pick_in_grid(self, proc: NicProcess) -> None:
        """Hand `proc` to the main screen's CPU grid (the view has closed itself)."""
        self.shell.post_message(ProcsController.PickInGrid(proc))

    def targets_local(self) -> frozenset[int] | str:
        sel = self.shell.selection()
        local = nic_local(sel.nic, sel.host)
        if not local:
            return (
                f"{sel.ifname} has no NUMA node (a veth, or one node): no NIC-local CPUs; "
                "c picks CPUs, e types a list"
            )
        return local

    def irq_cpus(self) -> list[tuple[str, frozenset[int]]] | str:
        """(queue or IRQ name, the CPUs its interrupts are delivered to), per queue IRQ."""
        nic = self.shell.selection().nic
        if nic is None or not nic.irqs:
            name = nic.link.ifname if nic is not None else "this interface"
            return (
                f"{name} has no queue IRQs (a veth receives on the sending CPU): "
                "c picks CPUs, e types a list"
            )
        out = []
        for q in nic.irqs:
            aff = nic.irq_affinity.get(q.irq)
            cpus: frozenset[int] = frozenset()
            for got in (aff.effective, aff.smp_affinity) if aff is not None else ():
                if isinstance(got, frozenset) and got:
                    cpus = got
                    break
            if cpus:
                out.append((f"{q.name} (IRQ {q.irq})", cpus))
        return out or "its IRQs' affinities are unknown: c picks CPUs, e types a list"

    def type_list(self, proc: NicProcess, error: str = "", typed: str = "") -> None:
        current = format_cpulist(proc.allowed)
        self.shell.push_screen(
            EditorScreen(
                f"{proc.shown_name} (pid {proc.ident.pid}) CPUs",
                current,
                "a CPU list: 0-3,8",
                error,
                typed=typed,  # empty: a list is typed whole (the current one is shown above)
            ),
            lambda text: self._typed(proc, text) if text is not None else None,
        )

    def _typed(self, proc: NicProcess, text: str) -> None:
        host = self.shell.selection().host
        try:
            cpus = parse_cpulist(text.strip())
        except CpuListError as exc:
            self.type_list(proc, str(exc), text)
            return
        if not cpus:
            self.type_list(proc, "no CPUs in that list: a process needs at least one", text)
            return
        if host is not None and cpus - host.topology.online:
            bad = format_cpulist(cpus - host.topology.online)
            self.type_list(proc, f"cpu {bad} not online", text)
            return
        self.move(proc, cpus)

    def move(self, proc: NicProcess, cpus: frozenset[int]) -> None:
        """Ask first for another user's process, then write it as one journal step."""
        if proc.kernel_thread:
            self.shell.notify_line("a kernel thread: tuitune never moves one", True)
            return
        if self.shell.session.read_only:
            self.shell.notify_line(f"nothing moved: {self.shell.session.read_only}", True)
            return
        if not cpus:
            self.shell.notify_line("no CPUs picked: nothing moved", True)
            return
        name = proc.ident.name
        if self.state.states.get(name, "").startswith("gone"):
            self.shell.notify_line(f"{proc.shown_name} (pid {proc.ident.pid}) is gone", True)
            return
        key = Key.proc_affinity(proc.ident.pid, proc.ident.start_ticks, comm=proc.ident.comm)
        value = format_cpulist(cpus)
        root = self.root

        def asked(question: str | None) -> None:
            if question is None:
                self._apply(key, value)
                return

            def answer(choice: str | None) -> None:
                if choice == "y":
                    self.shell.session.agree(key)
                    self._apply(key, value)

            self.shell.push_screen(
                ChoiceScreen("Another user's process", question, [("y", "move it")]), answer
            )

        self.shell.in_thread(lambda: needs_consent(key, root), asked, group="procs-ask")

    def _apply(self, key: Key, value: str) -> None:
        self.state.states[key.name] = "pending: being written"
        self._changed()

        def done(out: Outcome) -> None:
            if out.ok and not (out.after is None and out.reason):
                self.state.states.pop(key.name, None)
            elif _gone(out) or "gone (" in (out.reason or ""):
                self.state.states[key.name] = "gone (the process exited)"
            else:
                word = "refused" if out.status in ("refused", "invalid") else out.status
                self.state.states[key.name] = f"{word}: {_short(out.reason or '', key)}"
            # Its threads move with it (that is what moving a process means): not news.
            also = tuple(e for e in out.also if not e.key.name.startswith(key.name + "/"))
            self.editor.report([replace(out, also=also)])
            if self.on_change is not None:  # the view is open (a grid pick moves it closed)
                self.refresh()

        self.editor.run_journal(lambda j: j.apply(key, value), done)


def _short(reason: str, key: Key) -> str:
    """A refusal without the process's label in front (the row names it already)."""
    label = key.label + ": "
    return reason[len(label) :] if reason.startswith(label) else reason


def _addresses(addr: str) -> tuple[IPAddress, ...]:
    try:
        return (ipaddress.ip_address(addr),)
    except ValueError:
        return ()


def _gone(out: Outcome) -> bool:
    """The process exited before its move: the session's test, loaded with the first move."""
    from tuitune.core.session.proc_affinity import is_gone

    return is_gone(out.state)
