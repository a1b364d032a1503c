"""Unbounded and malformed input (issue 14: item 5, item 8 and the smaller ones).

Every CPU list is bounded before it is expanded, in the kernel's own syntax; every float
option refuses NaN, infinities and out-of-range values; iperf3's -l is checked; interface and
namespace names are checked before they are ever part of a path; a slash-form sysctl key is
the dotted key. Each is a one-line message, exit status 2 for a command, and nothing written.

Nothing here touches this machine's interfaces: commands run on recorded trees (--root) or
stop at their arguments. Memory checks run in a forked child under RLIMIT_AS, so the code as
it was (a set of four billion CPUs) fails there with MemoryError instead of eating the host.
Only names that existed before the fix are imported, so this file runs against the old code.
"""

from __future__ import annotations

import contextlib
import io
import os
import resource
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.session_fakes import build_host
from tuitune.cli import main
from tuitune.core.cpulist import CpuListError, format_mask, parse_cpulist, parse_mask
from tuitune.tui.screens.bench_form import FormError, parse_form

HEADROOM = 256 << 20  # what a child may allocate: a CPU set of 8192 needs well under 1 MB
CPU_SECONDS = 60  # and the CPU time it may take (the fixed code takes milliseconds)
LONG = "a" * 5000


def _vmsize() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmSize in /proc/self/status")


def in_child(fn: Callable[[], str]) -> str:
    """fn() in a forked child whose address space may grow by HEADROOM only: its text, or the
    type and message of what it raised (MemoryError where the old code expanded a list)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(r)
        try:
            limit = _vmsize() + HEADROOM
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
            out = fn()
        except BaseException as exc:
            out = f"raised {type(exc).__name__}: {exc}"[:4000]
        os.write(w, out.encode("utf-8", "replace"))
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):  # SIGXCPU: it ran out of CPU_SECONDS
        return f"killed by signal {os.WTERMSIG(status)}\npeak ?"
    return data.decode()


def parse_peak(call: Callable[[], object]) -> Callable[[], str]:
    """A child job: call(), then what it raised and the peak memory it took."""

    def job() -> str:
        tracemalloc.start()
        try:
            call()
            what = "returned"
        except CpuListError as exc:
            what = f"CpuListError: {exc}"
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return f"{what}\npeak {peak}"

    return job


# ---- CPU lists: bounded before they are expanded ---------------------------------------------


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: parse_cpulist("0-4000000000"), "CPU 4000000000"),
        (lambda: parse_cpulist("0-999999"), "CPU 999999"),
        (lambda: parse_cpulist("3,0-4294967295"), "CPU 4294967295"),
        (lambda: parse_cpulist("0-4000000000", 32), "not on this host (CPUs 0-31)"),
        (lambda: parse_cpulist("99999", 4), "CPU 99999"),
        (lambda: parse_cpulist("0-8191:1/4000000000,0-9999999999"), "CPU 9999999999"),
        (lambda: parse_mask("ffffffff" + ",ffffffff" * 20_000), "wider than"),
        (lambda: format_mask({99999}, 4), "CPU 99999"),
    ],
)
def test_a_huge_cpu_list_is_refused_before_it_is_expanded(
    call: Callable[[], object], words: str
) -> None:
    what, peak = in_child(parse_peak(call)).splitlines()
    assert what.startswith("CpuListError: ") and words in what, what
    assert int(peak.split()[1]) < 4 << 20  # the text itself, not a set of its CPUs


def test_a_huge_number_is_a_cpu_list_error_not_a_python_one() -> None:
    with pytest.raises(CpuListError, match="not a CPU number"):
        parse_cpulist("1" * 5000)  # int() alone raises its own ValueError past 4300 digits


def test_the_message_quotes_a_long_list_briefly() -> None:
    with pytest.raises(CpuListError) as exc:
        parse_cpulist("x" * 5000)
    assert len(str(exc.value)) < 200 and "5000 characters" in str(exc.value)


# The kernel's syntax (lib/bitmap-str.c, bitmap_parselist), on a host of 32 possible CPUs.
KERNEL_SYNTAX = [
    ("0-3,8", {0, 1, 2, 3, 8}),
    ("0-7:2/4", {0, 1, 4, 5}),
    ("0-31:1/3,1-31:1/3", {c for c in range(32) if c % 3 != 2}),
    ("9-31:4/10", {9, 10, 11, 12, 19, 20, 21, 22, 29, 30, 31}),
    ("0-7:0/4", set()),
    ("0-7:4/4", set(range(8))),
    ("all", set(range(32))),
    ("ALL:1/2", set(range(0, 32, 2))),
    ("N", {31}),
    ("16-N", set(range(16, 32))),
    ("0,N", {0, 31}),
    ("007", {7}),
]
NOT_KERNEL_SYNTAX = [
    "0:1",  # a pattern needs a range
    "0-7:2",  # used/group, not a stride
    "0-7:1/0",  # empty group
    "0-7:5/4",  # more used than the group holds
    "0-7:1/",
    "allx",
    "n",
    "0-32",  # past the last possible CPU
    "32",
    "3-1",
    "1,,2",
    "1 2",
    "0x3",
    "-1",
    "²",
]


@pytest.mark.parametrize(("text", "cpus"), KERNEL_SYNTAX)
def test_the_kernel_cpu_list_syntax_is_accepted(text: str, cpus: set[int]) -> None:
    assert parse_cpulist(text, 32) == cpus


@pytest.mark.parametrize("text", NOT_KERNEL_SYNTAX)
def test_what_the_kernel_refuses_is_refused(text: str) -> None:
    with pytest.raises(CpuListError) as exc:
        parse_cpulist(text, 32)
    assert "\n" not in str(exc.value)


def test_n_and_all_need_the_hosts_cpus() -> None:
    """Without the host's possible CPUs (a tree without the file) "N" has no meaning."""
    for text in ("N", "0-N", "all"):
        with pytest.raises(CpuListError, match="CPUs are unknown"):
            parse_cpulist(text)


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def command_in_child(argv: list[str]) -> str:
    """The command in a child under RLIMIT_AS: its exit status and output."""

    def job() -> str:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
        return f"exit {code}\n{out.getvalue()}{err.getvalue()}"

    return in_child(job)


def test_a_huge_range_in_a_profile_is_a_message(tmp_path: Path) -> None:
    tree = build_host(tmp_path / "host")
    before = (tree / "sys/class/net/eno49/queues/rx-0/rps_cpus").read_text()
    profile = tmp_path / "p.toml"
    profile.write_text(
        '[interface]\nname = "eno49"\n[interface.rps_cpus]\n"rx-0" = "0-4000000000"\n'
    )
    argv = ["apply", str(profile), "--root", str(tree), "--journal-dir", str(tmp_path / "j")]
    got = command_in_child(argv)
    assert got.startswith("exit 1\n"), got
    assert "eno49 rx-0 rps_cpus: CPU 4000000000 in '0-4000000000' is beyond any host" in got
    assert "nothing was changed" in got
    assert (tree / "sys/class/net/eno49/queues/rx-0/rps_cpus").read_text() == before


def test_a_huge_range_in_an_affinity_file_is_a_message(tmp_path: Path) -> None:
    tree = build_host(tmp_path / "host")
    before = (tree / "proc/irq/101/smp_affinity_list").read_text()
    conf = tmp_path / "affinity.conf"
    conf.write_text("eno49-TxRx-0 = 0-4000000000\n")
    argv = ["apply-affinity", "eno49", "--file", str(conf), "--root", str(tree)]
    got = command_in_child(argv)
    assert got.startswith("exit 1\n"), got
    assert "line 1: IRQ ? (eno49-TxRx-0) affinity: CPU 4000000000" in got
    assert (tree / "proc/irq/101/smp_affinity_list").read_text() == before


# ---- float options: NaN, infinities and out-of-range values -----------------------------------

# Every float option of every subcommand. The rest of each command line stops it early on
# the old code too (a missing tree, `lab --status` in an empty state dir), never the TUI.
FLOAT_COMMANDS = {
    "show --interval": ["show", "--root", "/nonexistent-tree", "--interval"],
    "tui --interval": ["--root", "/nonexistent-tree", "--interval"],
    "lab --interval": ["lab", "--status", "--state-dir", "/nonexistent-state", "--interval"],
}
BAD_FLOATS = ["nan", "NaN", "inf", "-inf", "1e309", "-1", "0", "61", "0.01", "ten", ""]


@pytest.mark.parametrize("value", BAD_FLOATS)
@pytest.mark.parametrize("command", list(FLOAT_COMMANDS))
def test_every_float_option_refuses_nan_inf_and_out_of_range(
    command: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, [*FLOAT_COMMANDS[command], value])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "argument --interval:" in err, err


def test_a_good_interval_still_passes(capsys: pytest.CaptureFixture[str]) -> None:
    from tuitune.cli import build_parser

    assert build_parser().parse_args(["show", "--interval", "0.5"]).interval == 0.5


# ---- iperf3's -l, and the bench form's numbers ----------------------------------------------

BAD_LENGTHS = [
    *["2M", "1025K", "1G", "1T", "0", "-1", "x", "1.5K", "١٢٨K", "128KB"],
    pytest.param("9" * 5000, id="5000-digits"),
]


@pytest.mark.parametrize("value", BAD_LENGTHS)
def test_bench_length_is_checked_like_iperf3(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # An interface that does not exist: the old code stops there, before any iperf3 run.
    argv = ["bench", "nosuchif0", "--peer", "192.0.2.1", "--no-record", "-l", value]
    code, out, err = run(capsys, argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "argument -l:" in err, err
    got = parse_form({"peer": "192.0.2.1", "length": value}, "normal")
    assert isinstance(got, FormError) and got.field == "length", got
    assert len(got.text()) < 120


@pytest.mark.parametrize(("value", "passed"), [("128K", "128K"), ("1m", "1M"), ("1460", "1460")])
def test_bench_length_in_range_is_passed_on(value: str, passed: str) -> None:
    from tuitune.cli import build_parser

    args = build_parser().parse_args(["bench", "--peer", "192.0.2.1", "-l", value])
    assert args.length == passed
    got = parse_form({"peer": "192.0.2.1", "length": value}, "normal")
    assert not isinstance(got, FormError) and got.length == passed


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("duration", "²"),
        ("streams", "٣"),
        pytest.param("repeats", "9" * 5000, id="repeats-5000-digits"),
        pytest.param("port", "1" * 5000, id="port-5000-digits"),
    ],
)
def test_bench_form_numbers_are_ascii_and_bounded(field: str, value: str) -> None:
    got = parse_form({"peer": "192.0.2.1", field: value}, "normal")
    assert isinstance(got, FormError) and got.field == field
    assert len(got.text()) < 120


@pytest.mark.parametrize(
    "argv",
    [["-t", "99999999999999999999999"], ["-t", "86401"], ["-P", "129"], ["--repeats", "101"]],
)
def test_bench_numbers_stay_within_iperf3s_limits(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, ["bench", "nosuchif0", "--peer", "192.0.2.1", *argv])
    assert code == 2 and err.count("\n") == 1 and f"argument {argv[0]}" in err, err


# ---- interface and namespace names -----------------------------------------------------------

# Every command that takes a name; --root where it has one, so the old code reads no host.
NAME_COMMANDS: dict[str, list[str]] = {
    "show IFACE": ["show", "--root", "/nonexistent-tree", LONG],
    "show --netns": ["show", "--netns", LONG, "lo"],
    "tui IFACE": ["--root", "/nonexistent-tree", LONG],
    "tui --netns": ["--netns", LONG, "lo"],
    "apply IFACE": ["apply", "/dev/null", LONG, "--root", "/nonexistent-tree"],
    "apply --netns": ["apply", "/dev/null", "--netns", LONG],
    "restore --netns": ["restore", "--netns", LONG, "--journal-dir", "/nonexistent-dir"],
    "export IFACE": ["export", LONG, "--root", "/nonexistent-tree"],
    "export --netns": ["export", "eth0", "--netns", LONG],
    "verify --netns": ["verify", "--netns", LONG],
    "apply-affinity IFACE": ["apply-affinity", LONG, "--root", "/nonexistent-tree"],
    "apply-affinity --netns": ["apply-affinity", "eth0", "--netns", LONG],
    "bench IFACE": ["bench", LONG, "--peer", "192.0.2.1", "--no-record"],
    "bench --netns": ["bench", "eth0", "--netns", LONG, "--peer", "192.0.2.1", "--no-record"],
    "runs IFACE": ["runs", LONG, "--notebook", "/nonexistent-notebook"],
    "runs --netns": ["runs", "eth0", "--netns", LONG, "--notebook", "/nonexistent-notebook"],
    "advise IFACE": ["advise", LONG, "--root", "/nonexistent-tree"],
    "advise --netns": ["advise", "eth0", "--netns", LONG],
}


@pytest.mark.parametrize("command", list(NAME_COMMANDS))
def test_a_5000_character_name_is_one_line_everywhere(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, NAME_COMMANDS[command])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "is too long (5000 bytes" in err, err
    assert len(err) < 300


BAD_IFNAMES = ["", ".", "..", "a/b", "eth0:1", "a b", "a\nb", "tab\t", "sixteen-chars-xx", "é" * 8]
BAD_NETNS = ["", ".", "..", "a/b", "a\nb", pytest.param("x" * 129, id="129-bytes")]


@pytest.mark.parametrize("name", BAD_IFNAMES)
def test_what_no_device_can_be_called_is_refused(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, ["show", "--root", "/nonexistent-tree", name])
    assert code == 2 and err.count("\n") == 1 and "argument iface: " in err, err


@pytest.mark.parametrize("name", BAD_NETNS)
def test_what_ip_netns_cannot_name_is_refused(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, ["restore", "--netns", name, "--journal-dir", "/nonexistent"])
    assert code == 2 and err.count("\n") == 1 and "argument --netns: " in err, err


def test_a_profile_naming_a_5000_character_interface(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = build_host(tmp_path / "host")
    profile = tmp_path / "p.toml"
    profile.write_text(f'[interface]\nname = "{LONG}"\ntxqueuelen = 100\n')
    argv = ["apply", str(profile), "--root", str(tree), "--journal-dir", str(tmp_path / "j")]
    code, out, err = run(capsys, argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "is too long (5000 bytes" in err, err
    assert not (tmp_path / "j").exists()


# ---- a slash-form sysctl key -------------------------------------------------------------------


def test_a_slash_form_sysctl_key_is_the_dotted_key_through_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = build_host(tmp_path / "host")
    profile = tmp_path / "p.toml"
    profile.write_text('[sysctl]\n"net/core/somaxconn" = 1024\n')
    where = ["--root", str(tree), "--journal-dir", str(tmp_path / "j")]
    code, out, err = run(capsys, ["apply", str(profile), *where])
    assert (code, err) == (0, "")
    assert "changed net.core.somaxconn: 4096 -> 1024" in out
    assert (tree / "proc/sys/net/core/somaxconn").read_text().strip() == "1024"

    code, out, err = run(capsys, ["export", "eno49", *where])
    assert (code, err) == (0, ""), err
    assert "\nnet.core.somaxconn = 1024\n" in out

    code, out, err = run(capsys, ["restore", *where])
    assert (code, err) == (0, "")
    assert "put back net.core.somaxconn: 1024 -> 4096" in out
    assert (tree / "proc/sys/net/core/somaxconn").read_text().strip() == "4096"


# ---- every setting a profile or an editor can name, fed hostile text --------------------------

HOSTILE = [
    "nan",
    "-inf",
    "1e309",
    "0-4000000000",
    "0:1",
    pytest.param("9" * 5000, id="5000-digits"),
    pytest.param("x" * 5000, id="5000-letters"),
]


def _keys() -> list[object]:
    from tuitune.core.session import Key

    dev = "eno49"
    return [
        Key.field(dev, "ring", "rx"),
        Key.field(dev, "channels", "combined"),
        Key.field(dev, "coalesce", "rx-usecs"),
        Key.field(dev, "coalesce", "adaptive-rx"),
        Key.field(dev, "pause", "rx"),
        Key.feature(dev, "rx-gro"),
        Key.mtu(dev),
        Key.txqueuelen(dev),
        Key.rps_cpus(dev, "rx-0"),
        Key.xps_cpus(dev, "tx-1"),
        Key.rps_flow_cnt(dev, "rx-0"),
        Key.irq(101, "eno49-TxRx-0", dev),
        Key.sysctl("net.core.somaxconn"),
        Key.sysctl("net.ipv4.tcp_rmem"),
        Key.sysctl("net.ipv4.tcp_congestion_control"),
        Key.sysctl("net.ipv4.tcp_sack"),
    ]


@pytest.mark.parametrize("text", HOSTILE)
def test_every_setting_refuses_hostile_text_in_one_line(tmp_path: Path, text: str) -> None:
    """What each editor and each profile value goes through (HostAccess.validate): a message
    of one line, never a Python error, and nothing written. In a child: the old code expanded
    0-4000000000."""
    from tests.support.session_fakes import FakeDevice
    from tuitune.core.host.root import HostRoot
    from tuitune.core.session import HostAccess, InvalidValue

    tree = build_host(tmp_path / "host")
    before = {p: p.read_bytes() for p in sorted(tree.rglob("*")) if p.is_file()}
    dev = FakeDevice("eno49")

    def job() -> str:
        problems = []
        with HostAccess(HostRoot.fixture(tree), ethtool=lambda name: dev) as access:
            for key in _keys():
                try:
                    access.validate(key, text)  # type: ignore[arg-type]
                    problems.append(f"{key}: accepted")
                except InvalidValue as exc:
                    if "\n" in exc.message or len(exc.message) > 200:
                        problems.append(f"{key}: {len(exc.message)} characters")
                except Exception as exc:
                    problems.append(f"{key}: {type(exc).__name__}: {str(exc)[:100]}")
        problems += [f"written: {w}" for w in dev.writes]
        return "\n".join(problems)

    assert in_child(job) == ""
    assert {p: p.read_bytes() for p in sorted(tree.rglob("*")) if p.is_file()} == before
