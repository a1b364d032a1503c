"""A --root tree is another user's files: mutated real captures give states, never tracebacks.

Host trees are built from the real captures (support/hosttree.py), then broken byte-wise (bytes
changed, inserted, cut; a truncated or a huge line; bytes that are not UTF-8) and file-wise (a
file missing, a directory or a symlink loop where a file should be, a file past any sane size).
`tuitune show --json` and the sampler behind the live screen are run on each: the only
outcomes allowed are output with Unavailable parts (problems named on one line each) or a
one-line error with a non-zero exit. Before the fix 158 of 400 such trees gave a traceback.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.command import ran
from tests.support.hosttree import TreeSpec, build_tree, hyperv_2cpu
from tuitune.core.host.interrupts import parse_interrupts
from tuitune.core.host.procfs import parse_softirqs, parse_softnet, parse_stat
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader
from tuitune.core.watch.rates import compute_rates
from tuitune.core.watch.sampler import Sample, Sampler
from tuitune.core.watch.snapshot import Counters

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "captures"
IFNAME = {"ixgbe": "eno49", "hyperv": "eth0"}
BYTE_OPS = ("flip", "insert", "delete", "truncate", "not_utf8", "huge_line")
FILE_OPS = ("missing", "directory", "loop", "oversize")


def _read(rel: str) -> str:
    return (CAPTURES / rel).read_text()


def _trees(dest: Path) -> dict[str, Path]:
    """Two recorded hosts: the 32-CPU ixgbe one (with a PCI device, NUMA nodes, topology,
    sysctls and an IRQ's affinity) and the 2-CPU Hyper-V one (all four counter files real)."""
    ixgbe = build_tree(
        dest / "ixgbe",
        TreeSpec(
            ncpus=32,
            interrupts=_read("interrupts/ixgbe_32cpu_centos7_grep_eno49.txt"),
            softnet=_read("softnet_stat/ixgbe_host_32cpu_centos7_10col.txt"),
            ifname="eno49",
            bus="0000:03:00.0",
            numa_node="0",
            local_cpulist="0-15",
            nodes={0: "0-15", 1: "16-31"},
            cpu_topology={c: (c // 16, c % 16, str(c)) for c in (0, 1, 16, 17)},
            rx_queues=2,
            tx_queues=2,
            irq_affinity={"101": "5"},
            link_stats={"rx_bytes": 1000, "tx_bytes": 2000},
            sysctls={"net.core.netdev_max_backlog": "250000", "net.core.somaxconn": "4096"},
        ),
    )
    (ixgbe / "etc/default").mkdir(parents=True)
    (ixgbe / "etc/default/irqbalance").write_text('IRQBALANCE_BANNED_CPULIST="0-1"\n')
    hyperv = build_tree(dest / "hyperv", hyperv_2cpu())
    return {"ixgbe": ixgbe, "hyperv": hyperv}


@pytest.fixture(scope="module")
def bases() -> Iterator[dict[str, Path]]:
    with tempfile.TemporaryDirectory(prefix="tuitune-fuzz-") as d:
        yield _trees(Path(d))


def _targets(tree: Path) -> list[Path]:
    """Every file and directory of the tree a mutation may hit, in a stable order."""
    return sorted(p for p in tree.rglob("*") if p.name != "SYNTHESISED")


Mutation = tuple[int, str, bytes, int]
mutations = st.lists(
    st.tuples(
        st.integers(0, 10**6),  # which file or directory
        st.sampled_from(BYTE_OPS + FILE_OPS),
        st.binary(min_size=1, max_size=8),
        st.integers(0, 10**9),  # where in the file
    ),
    min_size=1,
    max_size=3,
)


def _mutate(path: Path, op: str, data: bytes, pos: int) -> None:
    if not os.path.lexists(path) or (path.is_symlink() and op in BYTE_OPS):
        return  # a parent was already replaced, or it is a link already (no bytes to change)
    if path.is_dir() and not path.is_symlink():
        if op in BYTE_OPS or op == "oversize":
            op = "missing"
        shutil.rmtree(path)
    else:
        if op in BYTE_OPS:
            _mutate_bytes(path, op, data, pos)
            return
        path.unlink()
    if op == "directory":
        path.mkdir()
        (path / "x").write_text("1\n")
    elif op == "loop":
        path.symlink_to(path.name)  # a link to itself: ELOOP
    elif op == "oversize":
        with path.open("wb") as f:  # sparse: past what any one-value file may hold
            f.truncate(2 << 20)


def _mutate_bytes(path: Path, op: str, data: bytes, pos: int) -> None:
    b = bytearray(path.read_bytes())
    at = pos % (len(b) + 1)
    if op == "flip" and b:
        b[at % len(b)] = data[0]
    elif op == "insert":
        b[at:at] = data
    elif op == "delete":
        del b[at : at + len(data)]
    elif op == "truncate":
        del b[at:]
    elif op == "not_utf8":
        b[at:at] = b"\xff\xc3("  # an invalid start byte, then a cut two-byte sequence
    elif op == "huge_line":
        first = bytes(b.split(b"\n", 1)[0]) or b"0"
        b[at:at] = (first * (300_000 // len(first) + 1))[:300_000]  # one line of 300 KB
    path.write_bytes(bytes(b))


def _apply(base: Path, dest: Path, muts: list[Mutation]) -> Path:
    tree = dest / "tree"
    shutil.copytree(base, tree, symlinks=True)
    for index, op, data, pos in muts:
        targets = _targets(tree)
        if targets:
            _mutate(targets[index % len(targets)], op, data, pos)
    return tree


def _show(tree: Path, ifname: str) -> None:
    rc, out, err = ran("show", "--root", tree, ifname, "--json")
    lines = err.splitlines()
    # Every message is one line of its own, from tuitune, in words.
    assert all(line.startswith("tuitune: ") for line in lines), err
    if rc == 0:
        doc = json.loads(out)
        assert doc["schema"] == "tuitune.report.show"
    else:
        assert len(lines) == 1 and out == "", (rc, err)


def _sample(tree: Path, ifname: str) -> None:
    got: queue.Queue[Sample] = queue.Queue()
    with HostReader(HostRoot.fixture(tree)) as reader:
        sampler = Sampler(reader, ifname, got.put, interval=0.0, slow_every=1, limit=2)
        sampler.start()
        try:
            samples = [got.get(timeout=60)]
            sampler.ack()
            samples.append(got.get(timeout=60))
        finally:
            sampler.stop()
    for s in samples:
        # A file that cannot be read costs its own numbers, never the whole tick: the CPU
        # grid still gets its sample, and the banner names the file in one line.
        assert s.counters is not None, s.error
        if s.error is not None:
            assert "\n" not in s.error and s.error.startswith(("/proc/", "/sys/")), s.error


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(host=st.sampled_from(sorted(IFNAME)), muts=mutations)
def test_mutated_trees_give_states_never_tracebacks(
    bases: dict[str, Path], host: str, muts: list[Mutation]
) -> None:
    with tempfile.TemporaryDirectory(prefix="tuitune-fuzz-") as d:
        tree = _apply(bases[host], Path(d), muts)
        _show(tree, IFNAME[host])
        _sample(tree, IFNAME[host])


# Consecutive real samples of one host: the rates between two mutated ones never raise.
SERIES = {
    "interrupts": (
        "interrupts/igb-style_16cpu_sandybridge-ep_rhel6_snapA_before.txt",
        "interrupts/igb-style_16cpu_sandybridge-ep_rhel6_snapB_after.txt",
    ),
    "softirqs": (
        "softirqs/netutils_series_i7_8cpu_snap1.txt",
        "softirqs/netutils_series_i7_8cpu_snap2.txt",
    ),
    "softnet": ("softnet_stat/netutils_series_snap1.txt", "softnet_stat/netutils_series_snap2.txt"),
}
STAT = _read("stat/procfs_fixture_8cpu.txt")


def _counters(t: float, texts: dict[str, str]) -> Counters:
    stat = parse_stat(texts["stat"])
    return Counters(
        time=t,
        stat=stat,
        interrupts=parse_interrupts(texts["interrupts"]),
        softirqs=parse_softirqs(texts["softirqs"]),
        softnet=parse_softnet(texts["softnet"], sorted(stat.cpus)),
        link=None,
    )


@settings(max_examples=150, deadline=None)
@given(
    which=st.sampled_from(["interrupts", "softirqs", "softnet", "stat"]),
    op=st.sampled_from(BYTE_OPS),
    data=st.binary(min_size=1, max_size=8),
    pos=st.integers(0, 10**9),
)
def test_rates_between_mutated_samples_never_raise(
    which: str, op: str, data: bytes, pos: int
) -> None:
    """The same cut or change in both samples (a row cut short in each, say): the rates are
    computed, whatever they say."""
    with tempfile.TemporaryDirectory(prefix="tuitune-fuzz-") as d:
        texts = []
        for i in (0, 1):
            names = {k: v[i] for k, v in SERIES.items()}
            sample = {k: _read(v) for k, v in names.items()} | {"stat": STAT}
            path = Path(d) / f"{which}{i}"
            path.write_text(sample[which])
            _mutate_bytes(path, op, data, pos)
            sample[which] = path.read_bytes().decode("utf-8", "replace")
            texts.append(sample)
        compute_rates(_counters(0.0, texts[0]), _counters(1.0, texts[1]))
