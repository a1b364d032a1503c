"""The servers a lab run needs beyond the lab's own iperf3 daemon: one per stream of a
`--processes` run, and nuttcp's or sockperf's for those engines. Started in the peer namespace
in the foreground (their pids are tuitune's children), waited for until they listen, and
stopped when the run ends, whatever happened; `tuitune lab --down` also stops any left by a
crash (lab._remove, by their names in the peer namespace)."""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from tuitune.core import proc
from tuitune.core.bench.engines.base import Engine, joined, pinned
from tuitune.core.bench.model import BenchSpec
from tuitune.core.bench.multi import stream_specs
from tuitune.core.lab.procs import SERVER_PROGRAMS as SERVER_PROGRAMS
from tuitune.core.lab.procs import kill, listening
from tuitune.core.lab.state import Lab, LabError

LISTEN_TIMEOUT = 10.0


@dataclass
class Servers:
    """The servers of one run: their command lines (recorded with the run) and processes."""

    commands: list[str] = field(default_factory=list)
    procs: list[subprocess.Popen[str]] = field(default_factory=list)


def lab_daemon_command(lab: Lab) -> str:
    """The lab's own iperf3 server as `lab.build` started it."""
    return joined(
        [
            "iperf3",
            "-s",
            "-B",
            lab.peer_addr,
            "-p",
            str(lab.port),
            "-D",
            "--pidfile",
            str(lab.pidfile),
        ]
    )


@contextlib.contextmanager
def serve(lab: Lab, spec: BenchSpec, engine: Engine) -> Iterator[Servers]:
    """One server per stream process for `spec`, in `lab`'s peer namespace, while the block
    runs. The lab's own iperf3 daemon serves its port; every other port gets its own."""
    servers = Servers()
    if engine.name == "iperf3" and not spec.processes:  # the lab's daemon serves it
        servers.commands.append(lab_daemon_command(lab))
        yield servers
        return
    exe = proc.find(engine.program)
    if exe is None:
        raise LabError(f"{engine.program} is not installed: apt install {engine.package}")
    try:
        for s in stream_specs(spec, engine):
            if engine.name == "iperf3" and s.port == lab.port:
                servers.commands.append(lab_daemon_command(lab))
                continue
            # Pinned with taskset where the client cannot ask for it (-A N,M does for iperf3).
            cpu = s.server_cpu if engine.name != "iperf3" else None
            argv = ["ip", "netns", "exec", lab.peer_netns]
            argv += pinned(engine.server_argv(exe, lab.peer_addr, s.port), cpu)
            p = proc.popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            servers.procs.append(p)
            servers.commands.append(joined(argv[4:]))
            _wait_listening(p, s.port, lab)
        yield servers
    finally:
        for p in servers.procs:
            _stop(p)


def _wait_listening(p: subprocess.Popen[str], port: int, lab: Lab) -> None:
    # `ip netns exec` and taskset exec the server: its pid is p.pid once they have.
    deadline = time.monotonic() + LISTEN_TIMEOUT
    while time.monotonic() < deadline:
        if p.poll() is not None:
            raise LabError(
                f"the server for port {port} in {lab.peer_netns} exited ({p.returncode})"
            )
        if listening(p.pid, port):
            return
        time.sleep(0.02)
    raise LabError(f"no server listened on {lab.peer_addr}:{port} within {LISTEN_TIMEOUT:.0f} s")


def _stop(p: subprocess.Popen[str]) -> None:
    if p.poll() is None and not kill(p.pid):
        p.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        p.wait(5)


def server_commands(servers: Sequence[str]) -> tuple[str, ...]:
    return tuple(servers)
