"""`tuitune lab`: a two-host playground on one machine, built and removed without a trace.

Two network namespaces, `tuitune-lab-TAG` (the end tuitune watches and tunes) and
`tuitune-peer-TAG` (an iperf3 server), joined by a veth pair created directly inside them:
nothing is ever added to, or changed in, the machine's own namespace. Addresses come from the
benchmark range 198.18.0.0/15 (RFC 2544) and exist only inside the two namespaces.

The lab outlives the tuitune that built it (the iperf3 server is a daemon), so its state is
recorded in `STATE_DIR/lab.json` (written atomically), and a later tuitune finds it again,
reuses it, or cleans it up: a lab whose recorded owner died and whose server is gone (a crash,
a kill), or lab namespaces that no state file claims and that nothing runs in.

The state file lives in lab_state.py, the processes in lab_procs.py; this module builds,
finds and removes labs. Only `ip` (iproute2) and `iperf3` are run, and their output is never
parsed: which namespaces exist is read from /run/netns, which processes are inside one from
/proc/*/task/*/ns/net.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import subprocess
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from tuitune.core import fsutil, paths, proc
from tuitune.core.host.root import HostRoot

# Re-exported: the CLI, the TUI and the tests know these names as `lab.X`.
from tuitune.core.lab.procs import SERVER_PROGRAMS
from tuitune.core.lab.procs import is_server as is_server
from tuitune.core.lab.procs import kill as kill
from tuitune.core.lab.procs import listening as listening
from tuitune.core.lab.procs import proc_pids as proc_pids
from tuitune.core.lab.procs import process_comm as process_comm
from tuitune.core.lab.procs import read_pidfile as read_pidfile
from tuitune.core.lab.state import DEFAULT_STATE_DIR as DEFAULT_STATE_DIR
from tuitune.core.lab.state import IPERF3_PORT as IPERF3_PORT
from tuitune.core.lab.state import LAB_NS as LAB_NS
from tuitune.core.lab.state import LAB_PREFIX as LAB_PREFIX
from tuitune.core.lab.state import LOCAL_ADDR as LOCAL_ADDR
from tuitune.core.lab.state import LOCAL_IF as LOCAL_IF
from tuitune.core.lab.state import PEER_ADDR as PEER_ADDR
from tuitune.core.lab.state import PEER_IF as PEER_IF
from tuitune.core.lab.state import PEER_PREFIX as PEER_PREFIX
from tuitune.core.lab.state import PREFIX as PREFIX
from tuitune.core.lab.state import SCHEMA as SCHEMA
from tuitune.core.lab.state import STATE_FILE as STATE_FILE
from tuitune.core.lab.state import STATE_LIMIT as STATE_LIMIT
from tuitune.core.lab.state import VERSION as VERSION
from tuitune.core.lab.state import Lab as Lab
from tuitune.core.lab.state import LabError as LabError
from tuitune.core.lab.state import Unreadable as Unreadable
from tuitune.core.lab.state import drop_state as drop_state
from tuitune.core.lab.state import read_state as read_state
from tuitune.core.lab.state import state_dir_ok as state_dir_ok
from tuitune.core.lab.state import write_state as write_state
from tuitune.core.session.journal_file import DEFAULT_DIR as JOURNAL_DIR
from tuitune.core.session.journal_file import host_id, journal_path

NETNS_DIR = Path("/run/netns")  # where `ip netns add` names namespaces
# One lock for every lab on the machine, whatever its state dir: a build in progress (its
# namespaces made, its server not yet started) must not look stale to a concurrent cleanup.
# In /run/tuitune (root's, 0700), never /run/lock or /tmp: a user who could create the name
# first would hold every lab command off.
LOCK_PATH = paths.RUN_DIR / "lab.lock"


# -- public API ---------------------------------------------------------------------------------
def missing_tools() -> list[str]:
    """What the lab needs and this machine lacks, each with the command that installs it."""
    need = {"ip": "apt install iproute2", "iperf3": "apt install iperf3"}
    return [f"{tool} ({how})" for tool, how in need.items() if proc.find(tool) is None]


def build(state_dir: Path = DEFAULT_STATE_DIR) -> Lab:
    """Make a new lab, start its iperf3 server, record it; on any failure remove what was made.
    Refuses (LabError) when `state_dir` already records a live lab: it would be lost track of."""
    with _locked():
        state_dir_ok(state_dir)
        if current_lab(state_dir) is not None:
            raise LabError(f"{state_dir / STATE_FILE} already records a lab: reuse it or remove it")
        tag = secrets.token_hex(3)
        while _ns_exists(LAB_PREFIX + tag) or _ns_exists(PEER_PREFIX + tag):
            tag = secrets.token_hex(3)  # never adopt, nor on failure remove, another's
        lab = Lab(
            name=tag,
            netns=LAB_PREFIX + tag,
            peer_netns=PEER_PREFIX + tag,
            ifname=LOCAL_IF,
            peer_ifname=PEER_IF,
            local_addr=LOCAL_ADDR,
            peer_addr=PEER_ADDR,
            server_pid=None,
            owner_pid=os.getpid(),
            state_dir=state_dir,
        )
        try:
            _make_namespaces(lab)
            lab = replace(lab, server_pid=_start_server(lab))
            write_state(lab)
        except BaseException as exc:  # Ctrl+C included: never leave half a lab behind
            _remove(lab)
            if isinstance(exc, (OSError, subprocess.SubprocessError)):
                raise LabError(f"cannot build the lab: {exc}") from exc
            raise
        return lab


def current_lab(state_dir: Path = DEFAULT_STATE_DIR) -> Lab | None:
    """The recorded lab if both its namespaces still exist (its server may have died)."""
    lab = read_state(state_dir)
    if isinstance(lab, Lab) and _ns_exists(lab.netns) and _ns_exists(lab.peer_netns):
        return lab
    return None


def reuse(lab: Lab) -> Lab:
    """Take over a live lab: this process becomes its owner, and a dead server is restarted."""
    with _locked():
        if not server_running(lab):
            lab = replace(lab, server_pid=_start_server(lab))
        lab = replace(lab, owner_pid=os.getpid())
        write_state(lab)
        return lab


def remove(lab: Lab) -> list[str]:
    """`down` for a lab that knows its own state dir (what the TUI calls on leaving)."""
    return down(lab, lab.state_dir)


def down(lab: Lab | None = None, state_dir: Path = DEFAULT_STATE_DIR) -> list[str]:
    """Remove `lab` (None: the recorded one): its iperf3 processes, the veth pair, both
    namespaces, their change journals and the state file. Returns what it removed, one item
    each; removing what is already gone removes nothing and is not an error."""
    with _locked():
        recorded = read_state(state_dir)
        if lab is None:
            lab = recorded if isinstance(recorded, Lab) else None
        if lab is None:
            return drop_state(state_dir) if recorded is not None else []
        removed = _remove(lab)
        if recorded is not None and (not isinstance(recorded, Lab) or recorded.name == lab.name):
            removed += drop_state(state_dir)
        return removed


def find_stale(state_dir: Path = DEFAULT_STATE_DIR) -> list[str]:
    """Leftovers of labs that nobody will use again, described for a human (empty: none)."""
    with _locked():
        recorded, why, _ = _stale(state_dir)
    found = []
    if recorded is not None:
        found.append(f"lab {recorded.name} ({why})")
    elif why:
        found.append(why)
    return found


def find_orphans(state_dir: Path = DEFAULT_STATE_DIR) -> list[str]:
    """Lab namespace pairs no state file in `state_dir` claims and nothing runs in, one line
    each with how to remove them. Never removed here: another state dir (another user's lab,
    or a lab started with --state-dir) may claim them, and its server may only be down."""
    with _locked():
        _, _, orphans = _stale(state_dir)
    return [
        f"lab {tag}: no state file in {state_dir} claims it and nothing runs in it; left "
        f"alone (another --state-dir may own it): `ip netns del {LAB_PREFIX}{tag}; "
        f"ip netns del {PEER_PREFIX}{tag}` removes it"
        for tag in orphans
    ]


def clean_stale(state_dir: Path = DEFAULT_STATE_DIR) -> list[str]:
    """Remove what find_stale finds (the lab `state_dir` records, when stale; never a lab it
    does not record); returns what was removed."""
    with _locked():
        recorded, why, _ = _stale(state_dir)
        removed: list[str] = []
        if recorded is not None:
            removed += _remove(recorded)
        if recorded is not None or why:
            removed += drop_state(state_dir)
        return removed


def holders(lab: Lab) -> list[str]:
    """Processes other than the servers (which `down` stops) inside the lab's namespaces: deleting
    a namespace's name does not end it while one runs there (another tuitune watching it, a
    shell from `ip netns exec`)."""
    out = []
    for ns in (lab.netns, lab.peer_netns):
        for pid in _pids_in(ns):
            comm = process_comm(pid)
            if comm is not None and comm not in SERVER_PROGRAMS:
                out.append(
                    f"pid {pid} ({comm}) runs in netns {ns}: the namespace lives on, nameless, "
                    "until it exits"
                )
    return out


def down_command(state_dir: Path) -> str:
    """The command that removes the lab `state_dir` records."""
    extra = "" if state_dir == DEFAULT_STATE_DIR else f" --state-dir {state_dir}"
    return f"tuitune lab --down{extra}"


def server_running(lab: Lab) -> bool:
    """The recorded iperf3 server is alive, is the lab's, and runs in the peer namespace."""
    pid = lab.server_pid
    ns = _ns_id(NETNS_DIR / lab.peer_netns)
    return pid is not None and ns is not None and is_server(lab, pid) and _pid_ns(pid) == ns


def owner_alive(lab: Lab) -> bool:
    return lab.owner_pid is not None and process_comm(lab.owner_pid) is not None


def describe(lab: Lab) -> list[str]:
    """How to use the lab, one line each (for `tuitune lab --no-tui` and `--status`)."""
    server = (
        f"iperf3 server pid {lab.server_pid} on {lab.peer_addr}:{lab.port}"
        if server_running(lab)
        else "iperf3 server NOT running (`tuitune lab` restarts it)"
    )
    return [
        f"lab {lab.name}:",
        f"  this end: {lab.ifname} {lab.local_addr}/{PREFIX} in netns {lab.netns}",
        f"  peer:     {lab.peer_ifname} {lab.peer_addr}/{PREFIX} in netns {lab.peer_netns}, "
        + server,
        f"watch and tune it:  tuitune --netns {lab.netns} {lab.ifname}",
        f"a 10 s run:         ip netns exec {lab.netns} iperf3 -c {lab.peer_addr} -t 10",
        f"remove it:          {down_command(lab.state_dir)}",
    ]


# -- building -----------------------------------------------------------------------------------
def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    try:
        done = proc.run(["ip", *args], timeout=30)
    except proc.ProgramRefused as exc:
        raise LabError(str(exc)) from None
    if check and done.returncode != 0:
        raise LabError(f"`ip {' '.join(args)}` failed: {done.stderr.strip() or done.returncode}")
    return done


def _make_namespaces(lab: Lab) -> None:
    for ns in (lab.netns, lab.peer_netns):
        _ip("netns", "add", ns)
        # No IPv6 autoconfiguration chatter: the counters move only when someone sends.
        off = [f"net.ipv6.conf.{scope}.disable_ipv6=1" for scope in ("default", "all")]
        _ip("netns", "exec", ns, "sysctl", "-qw", *off)
        _ip("-n", ns, "link", "set", "lo", "up")
    # Both ends are born inside their namespaces: the host's namespace never holds either.
    _ip("-n", lab.netns, "link", "add", lab.ifname, "type", "veth",
        "peer", "name", lab.peer_ifname, "netns", lab.peer_netns)  # fmt: skip
    for ns, dev, addr in (
        (lab.netns, lab.ifname, lab.local_addr),
        (lab.peer_netns, lab.peer_ifname, lab.peer_addr),
    ):
        _ip("-n", ns, "addr", "add", f"{addr}/{PREFIX}", "dev", dev)
        _ip("-n", ns, "link", "set", dev, "up")


def _start_server(lab: Lab, timeout: float = 10.0) -> int:
    """Start `iperf3 -s` as a daemon in the peer namespace; its pid once it listens."""
    if proc.find("iperf3") is None:
        raise LabError("iperf3 is not installed: apt install iperf3")
    state_dir_ok(lab.state_dir)  # iperf3 writes its pidfile there as root, following links
    with contextlib.suppress(FileNotFoundError):
        lab.pidfile.unlink()  # iperf3 refuses to start over a pidfile it finds
    cmd = ["netns", "exec", lab.peer_netns, "iperf3", "-s", "-B", lab.peer_addr,
           "-p", str(lab.port), "-D", "--pidfile", str(lab.pidfile)]  # fmt: skip
    _ip(*cmd)
    # -D returns once it forked; the pidfile and the listening socket come a moment later.
    deadline = time.monotonic() + timeout
    pid: int | None = None
    while time.monotonic() < deadline:
        pid = pid or read_pidfile(lab.pidfile)
        if pid is not None and listening(pid, lab.port):
            return pid
        time.sleep(0.02)
    if pid is not None:
        kill(pid)
    raise LabError(
        f"the iperf3 server in {lab.peer_netns} did not start listening on "
        f"{lab.peer_addr}:{lab.port} within {timeout:.0f} s"
    )


# -- state file ---------------------------------------------------------------------------------


# -- removing -----------------------------------------------------------------------------------
def _remove(lab: Lab) -> list[str]:
    """Everything of one lab, in the order that leaves nothing: processes first (a process
    inside keeps a deleted namespace alive), then the veth, then the namespaces."""
    removed = []
    # The server is found by its command line even when its namespace lost its name.
    server = lab.server_pid if lab.server_pid and is_server(lab, lab.server_pid) else None
    if server is not None and kill(server):
        removed.append(f"iperf3 server (pid {server})")
    for ns in (lab.netns, lab.peer_netns):
        for pid in _pids_in(ns):
            comm = process_comm(pid)
            if pid != server and comm in SERVER_PROGRAMS and kill(pid):
                removed.append(f"{comm} (pid {pid}) in {ns}")
    # Deleting one end deletes both, at once, even if some process still holds a namespace.
    gone = _ns_exists(lab.netns) and _ip("-n", lab.netns, "link", "del", lab.ifname, check=False)
    if gone and gone.returncode == 0:
        removed.append(f"veth {lab.ifname}/{lab.peer_ifname}")
    for ns in (lab.netns, lab.peer_netns):
        if _ns_exists(ns) and _ip("netns", "del", ns, check=False).returncode == 0:
            removed.append(f"netns {ns}")
    with contextlib.suppress(FileNotFoundError):
        lab.pidfile.unlink()
    # Journals of a namespace that no longer exists have nothing left to restore (the live
    # screen keeps them in the default journal dir, whatever the lab's state dir).
    for ns in (lab.netns, lab.peer_netns):
        for where in dict.fromkeys((lab.state_dir, JOURNAL_DIR)):
            jpath = journal_path(where, host_id(HostRoot(netns=ns)))
            for path in (jpath, jpath.with_suffix(".lock")):
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                    removed.append(f"change journal {path}")
    return removed


# -- staleness ----------------------------------------------------------------------------------
def _stale(state_dir: Path) -> tuple[Lab | None, str, list[str]]:
    """(the recorded lab if it is stale, why, tags of orphan namespace pairs)."""
    recorded = read_state(state_dir)
    stale: Lab | None = None
    why = ""
    if isinstance(recorded, Unreadable):
        why = f"state file {recorded.path} holds no lab ({recorded.reason})"
    elif recorded is not None:
        if not (_ns_exists(recorded.netns) and _ns_exists(recorded.peer_netns)):
            stale, why = recorded, "its namespaces are gone"
        elif not owner_alive(recorded) and not server_running(recorded):
            stale, why = recorded, f"owner pid {recorded.owner_pid} gone, iperf3 server gone"
    claimed = recorded.name if isinstance(recorded, Lab) else None
    tags = sorted({m.group(2) for n in _netns_names() if (m := LAB_NS.match(n))})
    orphans = [t for t in tags if t != claimed and not _in_use(t)]
    return stale, why, orphans


def _in_use(tag: str) -> bool:
    """Anything (a process, or a thread such as tuitune's kernel thread) in either namespace:
    a lab another state dir claims has its iperf3 server there."""
    return any(_pids_in(prefix + tag) for prefix in (LAB_PREFIX, PEER_PREFIX))


# -- /proc and /run/netns -----------------------------------------------------------------------
def _netns_names() -> list[str]:
    try:
        return sorted(os.listdir(NETNS_DIR))
    except OSError:
        return []


def _ns_exists(name: str) -> bool:
    return _ns_id(NETNS_DIR / name) is not None


def _ns_id(path: Path) -> tuple[int, int] | None:
    """The namespace a /run/netns name or a /proc/.../ns/net link stands for. An unmounted
    leftover file in /run/netns (a deleted namespace) is not one."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    # A live namespace is a file on nsfs; the placeholder file under /run/netns is on tmpfs.
    if path.parent == NETNS_DIR and os.stat(NETNS_DIR).st_dev == st.st_dev:
        return None
    return st.st_dev, st.st_ino


def _pid_ns(pid: int) -> tuple[int, int] | None:
    return _ns_id(Path(f"/proc/{pid}/ns/net"))


def _pids_in(ns: str) -> list[int]:
    """Processes with any thread inside namespace `ns` (not this process)."""
    want = _ns_id(NETNS_DIR / ns)
    if want is None:
        return []
    found = []
    for entry in proc_pids():
        if entry == os.getpid():
            continue
        with contextlib.suppress(OSError):
            for tid in os.listdir(f"/proc/{entry}/task"):
                if _ns_id(Path(f"/proc/{entry}/task/{tid}/ns/net")) == want:
                    found.append(entry)
                    break
    return found


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    # The lock's directory must be root's alone (fsutil.open_dir refuses any other); the lock
    # is made O_EXCL|O_NOFOLLOW, or must be a root-owned file with one name already.
    try:
        with fsutil.open_dir(LOCK_PATH.parent, create=True, mode=0o700) as d:
            fd = d.open_or_create(LOCK_PATH.name, os.O_RDWR, 0o600)
    except OSError as exc:
        raise LabError(f"cannot take the lab lock: {exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
