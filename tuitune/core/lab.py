"""`tuitune lab`: a two-host playground on one machine, built and removed without a trace.

Two network namespaces, `tuitune-lab-TAG` (the end tuitune watches and tunes) and
`tuitune-peer-TAG` (an iperf3 server), joined by a veth pair created directly inside them:
nothing is ever added to, or changed in, the machine's own namespace. Addresses come from the
benchmark range 198.18.0.0/15 (RFC 2544) and exist only inside the two namespaces.

The lab outlives the tuitune that built it (the iperf3 server is a daemon), so its state is
recorded in `STATE_DIR/lab.json` (written atomically), and a later tuitune finds it again,
reuses it, or cleans it up: a lab whose recorded owner died and whose server is gone (a crash,
a kill), or lab namespaces that no state file claims and that nothing runs in.

Only `ip` (iproute2) and `iperf3` are run, and their output is never parsed: which namespaces
exist is read from /run/netns, which processes are inside one from /proc/*/task/*/ns/net.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import secrets
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from tuitune.core import fsutil, paths, proc
from tuitune.core.host.root import HostRoot
from tuitune.core.names import ifname_problem
from tuitune.core.session.journal_file import DEFAULT_DIR as JOURNAL_DIR
from tuitune.core.session.journal_file import host_id, journal_path

DEFAULT_STATE_DIR = paths.RUN_DIR  # beside the change journals; emptied at boot
STATE_FILE = "lab.json"
STATE_LIMIT = 1 << 16  # a few hundred bytes in truth
NETNS_DIR = Path("/run/netns")  # where `ip netns add` names namespaces
# One lock for every lab on the machine, whatever its state dir: a build in progress (its
# namespaces made, its server not yet started) must not look stale to a concurrent cleanup.
LOCK_PATH = Path("/run/lock/tuitune-lab.lock")
LAB_PREFIX, PEER_PREFIX = "tuitune-lab-", "tuitune-peer-"
_LAB_NS = re.compile(r"^tuitune-(lab|peer)-([0-9a-f]{6})$")
LOCAL_ADDR, PEER_ADDR, PREFIX = "198.18.0.1", "198.18.0.2", 30
LOCAL_IF, PEER_IF = "veth-lab", "veth-peer"
IPERF3_PORT = 5201
SCHEMA, VERSION = "tuitune.lab", 1
_TCP_LISTEN = "0A"  # the state column of /proc/net/tcp


class LabError(Exception):
    """The lab could not be built or reached; the message says why in plain words."""


@dataclass(frozen=True)
class Lab:
    name: str  # the tag shared by both namespaces, 6 hex digits
    netns: str  # tuitune-lab-TAG: the end to watch and tune
    peer_netns: str  # tuitune-peer-TAG: the iperf3 server's end
    ifname: str  # the veth end inside `netns`
    peer_ifname: str
    local_addr: str  # without prefix length (PREFIX)
    peer_addr: str  # what `iperf3 -c` connects to, from inside `netns`
    server_pid: int | None
    owner_pid: int | None  # the tuitune that built or last reused it
    port: int = IPERF3_PORT
    state_dir: Path = field(default=DEFAULT_STATE_DIR, compare=False)

    @property
    def pidfile(self) -> Path:
        return self.state_dir / f"lab-{self.name}-iperf3.pid"

    def to_json(self) -> dict[str, Any]:
        doc = {k: v for k, v in asdict(self).items() if k != "state_dir"}
        return {"schema": SCHEMA, "version": VERSION, **doc}

    @classmethod
    def from_json(cls, doc: dict[str, Any], state_dir: Path) -> Lab:
        if doc.get("schema") != SCHEMA or doc.get("version") != VERSION:
            raise ValueError("not a tuitune lab state file (schema or version)")
        names = ("name", "netns", "peer_netns", "ifname", "peer_ifname", "local_addr", "peer_addr")
        text = {n: doc[n] for n in names}
        if not all(isinstance(v, str) and v for v in text.values()):
            raise ValueError("a name or address is missing")
        # `--down` deletes these namespaces as root: only a lab's own names are believed.
        tag = text["name"]
        if (text["netns"], text["peer_netns"]) != (LAB_PREFIX + tag, PEER_PREFIX + tag) or not (
            _LAB_NS.match(text["netns"])
        ):
            raise ValueError("its namespaces are not a tuitune lab's")
        if any(ifname_problem(text[n]) for n in ("ifname", "peer_ifname")):
            raise ValueError("an interface name is not one")
        server, owner = doc.get("server_pid"), doc.get("owner_pid")
        if not all(p is None or (isinstance(p, int) and p > 0) for p in (server, owner)):
            raise ValueError("a pid is not a positive integer")
        port = doc.get("port", IPERF3_PORT)
        if not isinstance(port, int):
            raise ValueError("port is not an integer")
        return cls(**text, server_pid=server, owner_pid=owner, port=port, state_dir=state_dir)


# -- public API ---------------------------------------------------------------------------------
def missing_tools() -> list[str]:
    """What the lab needs and this machine lacks, each with the command that installs it."""
    need = {"ip": "apt install iproute2", "iperf3": "apt install iperf3"}
    return [f"{tool} ({how})" for tool, how in need.items() if proc.find(tool) is None]


def build(state_dir: Path = DEFAULT_STATE_DIR) -> Lab:
    """Make a new lab, start its iperf3 server, record it; on any failure remove what was made.
    Refuses (LabError) when `state_dir` already records a live lab: it would be lost track of."""
    with _locked():
        _state_dir_ok(state_dir)
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
            _write_state(lab)
        except BaseException as exc:  # Ctrl+C included: never leave half a lab behind
            _remove(lab)
            if isinstance(exc, (OSError, subprocess.SubprocessError)):
                raise LabError(f"cannot build the lab: {exc}") from exc
            raise
        return lab


def current_lab(state_dir: Path = DEFAULT_STATE_DIR) -> Lab | None:
    """The recorded lab if both its namespaces still exist (its server may have died)."""
    lab = _read_state(state_dir)
    if isinstance(lab, Lab) and _ns_exists(lab.netns) and _ns_exists(lab.peer_netns):
        return lab
    return None


def reuse(lab: Lab) -> Lab:
    """Take over a live lab: this process becomes its owner, and a dead server is restarted."""
    with _locked():
        if not server_running(lab):
            lab = replace(lab, server_pid=_start_server(lab))
        lab = replace(lab, owner_pid=os.getpid())
        _write_state(lab)
        return lab


def remove(lab: Lab) -> list[str]:
    """`down` for a lab that knows its own state dir (what the TUI calls on leaving)."""
    return down(lab, lab.state_dir)


def down(lab: Lab | None = None, state_dir: Path = DEFAULT_STATE_DIR) -> list[str]:
    """Remove `lab` (None: the recorded one): its iperf3 processes, the veth pair, both
    namespaces, their change journals and the state file. Returns what it removed, one item
    each; removing what is already gone removes nothing and is not an error."""
    with _locked():
        recorded = _read_state(state_dir)
        if lab is None:
            lab = recorded if isinstance(recorded, Lab) else None
        if lab is None:
            return _drop_state(state_dir) if recorded is not None else []
        removed = _remove(lab)
        if recorded is not None and (not isinstance(recorded, Lab) or recorded.name == lab.name):
            removed += _drop_state(state_dir)
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
            removed += _drop_state(state_dir)
        return removed


def holders(lab: Lab) -> list[str]:
    """Processes other than iperf3 (which `down` stops) inside the lab's namespaces: deleting
    a namespace's name does not end it while one runs there (another tuitune watching it, a
    shell from `ip netns exec`)."""
    out = []
    for ns in (lab.netns, lab.peer_netns):
        for pid in _pids_in(ns):
            comm = _comm(pid)
            if comm is not None and comm != "iperf3":
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
    return pid is not None and ns is not None and _is_server(lab, pid) and _pid_ns(pid) == ns


def _is_server(lab: Lab, pid: int) -> bool:
    """pid is this lab's iperf3 server (its command line names the lab's pidfile), not some
    other process that got the pid after the server died."""
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return _comm(pid) == "iperf3" and os.fsencode(lab.pidfile) in args


def owner_alive(lab: Lab) -> bool:
    return lab.owner_pid is not None and _comm(lab.owner_pid) is not None


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
    _state_dir_ok(lab.state_dir)  # iperf3 writes its pidfile there as root, following links
    with contextlib.suppress(FileNotFoundError):
        lab.pidfile.unlink()  # iperf3 refuses to start over a pidfile it finds
    cmd = ["netns", "exec", lab.peer_netns, "iperf3", "-s", "-B", lab.peer_addr,
           "-p", str(lab.port), "-D", "--pidfile", str(lab.pidfile)]  # fmt: skip
    _ip(*cmd)
    # -D returns once it forked; the pidfile and the listening socket come a moment later.
    deadline = time.monotonic() + timeout
    pid: int | None = None
    while time.monotonic() < deadline:
        pid = pid or _read_pidfile(lab.pidfile)
        if pid is not None and _listening(pid, lab.port):
            return pid
        time.sleep(0.02)
    if pid is not None:
        _kill(pid)
    raise LabError(
        f"the iperf3 server in {lab.peer_netns} did not start listening on "
        f"{lab.peer_addr}:{lab.port} within {timeout:.0f} s"
    )


def _state_dir_ok(state_dir: Path) -> None:
    """Make the state directory (0700) or check it: root's, and no one else may write it."""
    try:
        fsutil.open_dir(state_dir, create=True, mode=0o700).close()
    except OSError as exc:
        raise LabError(f"cannot use the state directory: {exc}") from None


def _read_pidfile(path: Path) -> int | None:
    try:
        data = fsutil.read_file(path, 64, follow=False)
    except OSError:
        return None
    text = (data or b"").decode("ascii", "replace").strip("\0 \n")  # the pid and a NUL
    return int(text) if text.isdigit() else None


def _listening(pid: int, port: int) -> bool:
    """A TCP socket on `port` in LISTEN state in pid's network namespace."""
    try:
        lines = Path(f"/proc/{pid}/net/tcp").read_text().splitlines()[1:]
    except OSError:
        return False
    for line in lines:
        f = line.split()
        if len(f) > 3 and f[3] == _TCP_LISTEN and int(f[1].rpartition(":")[2], 16) == port:
            return True
    return False


# -- state file ---------------------------------------------------------------------------------
class _Unreadable:
    """A state file that exists but holds no lab (torn, edited, another version)."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path, self.reason = path, reason


def _trusted_state(path: Path) -> bytes | None:
    """The state file's bytes, None when there is none. It names the namespaces `--down`
    deletes and the pid it kills, as root: only a file of ours, in a directory nobody else
    can write, is believed."""
    try:
        d, name = fsutil.locate(path, write=True, follow=False)
    except fsutil.FsError as exc:
        if exc.errno == errno.ENOENT:
            return None
        raise
    with d:
        st = d.lstat(name)
        if st is None:
            return None
        if st.st_uid != os.geteuid():
            raise fsutil.UnsafePath(path, f"owned by uid {st.st_uid}, not by this user")
        return d.read(name, STATE_LIMIT)


def _read_state(state_dir: Path) -> Lab | _Unreadable | None:
    path = state_dir / STATE_FILE
    try:
        data = _trusted_state(path)
        if data is None:
            return None
        doc = json.loads(data)
        if not isinstance(doc, dict):
            raise ValueError("not a JSON object")
        return Lab.from_json(doc, state_dir)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return _Unreadable(path, str(exc))


def _write_state(lab: Lab) -> None:
    """Write the state file whole or not at all: a crash leaves the old one or the new one
    (fsutil: a random temporary name made O_EXCL, never through a link, renamed in)."""
    data = (json.dumps(lab.to_json(), indent=2) + "\n").encode()
    with fsutil.open_dir(lab.state_dir, create=True, mode=0o700) as d:
        d.write_atomic(STATE_FILE, data, 0o600)


def _drop_state(state_dir: Path) -> list[str]:
    """Delete the state file, relative to its checked directory: a user's directory (or a
    link on the way to it) never has root delete a name there."""
    path = state_dir / STATE_FILE
    try:
        d, name = fsutil.locate(path, write=True, follow=False)
    except fsutil.FsError as exc:
        if exc.errno == errno.ENOENT:
            return []
        raise
    with d:
        try:
            os.unlink(name, dir_fd=d.fd)
        except FileNotFoundError:
            return []
    return [f"state file {path}"]


# -- removing -----------------------------------------------------------------------------------
def _remove(lab: Lab) -> list[str]:
    """Everything of one lab, in the order that leaves nothing: processes first (a process
    inside keeps a deleted namespace alive), then the veth, then the namespaces."""
    removed = []
    # The server is found by its command line even when its namespace lost its name.
    server = lab.server_pid if lab.server_pid and _is_server(lab, lab.server_pid) else None
    if server is not None and _kill(server):
        removed.append(f"iperf3 server (pid {server})")
    for ns in (lab.netns, lab.peer_netns):
        for pid in _pids_in(ns):
            if pid != server and _comm(pid) == "iperf3" and _kill(pid):
                removed.append(f"iperf3 (pid {pid}) in {ns}")
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


def _kill(pid: int, timeout: float = 3.0) -> bool:
    """SIGTERM, then SIGKILL if it lingers; True once it is gone."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return True
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if _comm(pid) is None or _state(pid) == "Z":
                return True
            time.sleep(0.02)
    return _comm(pid) is None


# -- staleness ----------------------------------------------------------------------------------
def _stale(state_dir: Path) -> tuple[Lab | None, str, list[str]]:
    """(the recorded lab if it is stale, why, tags of orphan namespace pairs)."""
    recorded = _read_state(state_dir)
    stale: Lab | None = None
    why = ""
    if isinstance(recorded, _Unreadable):
        why = f"state file {recorded.path} holds no lab ({recorded.reason})"
    elif recorded is not None:
        if not (_ns_exists(recorded.netns) and _ns_exists(recorded.peer_netns)):
            stale, why = recorded, "its namespaces are gone"
        elif not owner_alive(recorded) and not server_running(recorded):
            stale, why = recorded, f"owner pid {recorded.owner_pid} gone, iperf3 server gone"
    claimed = recorded.name if isinstance(recorded, Lab) else None
    tags = sorted({m.group(2) for n in _netns_names() if (m := _LAB_NS.match(n))})
    orphans = [t for t in tags if t != claimed and not _in_use(t)]
    return stale, why, orphans


def _in_use(tag: str) -> bool:
    """Anything (a process, or a thread such as tuitune's kernel thread) in either namespace:
    a lab another state dir claims has its iperf3 server there."""
    return any(_pids_in(prefix + tag) for prefix in (LAB_PREFIX, PEER_PREFIX))


def _orphan_lab(tag: str, state_dir: Path) -> Lab:
    return Lab(tag, LAB_PREFIX + tag, PEER_PREFIX + tag, LOCAL_IF, PEER_IF, LOCAL_ADDR,
               PEER_ADDR, None, None, state_dir=state_dir)  # fmt: skip


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
    for entry in _proc_pids():
        if entry == os.getpid():
            continue
        with contextlib.suppress(OSError):
            for tid in os.listdir(f"/proc/{entry}/task"):
                if _ns_id(Path(f"/proc/{entry}/task/{tid}/ns/net")) == want:
                    found.append(entry)
                    break
    return found


def _proc_pids() -> Iterator[int]:
    for name in os.listdir("/proc"):
        if name.isdigit():
            yield int(name)


def _comm(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None


def _state(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return None


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    # /run/lock is world-writable (sticky): the lock is made O_EXCL|O_NOFOLLOW, or must be a
    # root-owned file already, never another user's link or a file they could hold forever.
    try:
        with fsutil.open_dir(LOCK_PATH.parent, create=True) as d:
            fd = d.open_or_create(LOCK_PATH.name, os.O_RDWR, 0o600)
    except OSError as exc:
        raise LabError(f"cannot take the lab lock: {exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
