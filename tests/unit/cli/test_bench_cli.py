"""`tuitune bench` and `tuitune runs` without a network: where the peer comes from (an option
or the lab), the usage errors, and the notebook printed as a table, Markdown, CSV and a
comparison. The real runs are in tests/kernel/test_bench_kernel.py."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.unit.core.bench.test_bench_notebook import filled
from tuitune import cli
from tuitune.cli import bench as cli_bench


@dataclass
class FakeLab:
    netns: str = "tuitune-lab-abc123"
    peer_netns: str = "tuitune-peer-abc123"
    ifname: str = "veth-lab"
    peer_addr: str = "198.18.0.2"
    port: int = 5201


def parse(*argv: str) -> argparse.Namespace:
    return cli.build_parser().parse_args(list(argv))


def test_the_lab_is_the_default_peer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_bench, "found_lab", lambda: FakeLab())
    ifname, netns, port, peer, lab = cli_bench._resolve(parse("bench"))
    assert (ifname, netns, port, peer) == ("veth-lab", "tuitune-lab-abc123", 5201, "198.18.0.2")
    assert "ip netns exec tuitune-peer-abc123 iperf3 -s -B 198.18.0.2 -D" in (
        cli_bench.lab_hint(lab)
    )
    # A peer given, or another namespace: the lab is not used.
    given = cli_bench._resolve(parse("bench", "eth2", "--peer", "10.0.0.9"))
    assert given[:4] == ("eth2", None, 5201, "10.0.0.9")
    assert cli_bench._resolve(parse("bench", "--netns", "other"))[3] is None


def test_no_peer_and_no_lab(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli_bench, "found_lab", lambda: None)
    assert cli.main(["bench", "eth2"]) == 2
    err = capsys.readouterr().err
    assert "give --peer ADDR (a host running `iperf3 -s`)" in err and "tuitune lab" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["bench", "-P", "0"], "must be 1 or more"),
        (["bench", "-A", "0,x"], "give a CPU number N, or N,M"),
        (["bench", "--port", "70000"], "is not a port"),
        (["bench", "--reverse", "--bidir"], "not allowed with"),
        (["bench", "-w", "2G"], "argument -w: '2G': a size like 512K"),
        (["bench", "-w", "1024M"], "out of range (1K..512M"),
        (["bench", "-u", "fast"], "a rate in bits/s"),
        (["bench", "-M", "20"], "MSS 20 is out of range"),
        (["bench", "-C", "bbr;rm"], "a congestion control name"),
        (["bench", "--cpus", "x"], "--cpus"),
        (["bench", "--engine", "netperf"], "invalid choice"),
        (["bench", "--processes", "--threads"], "not allowed with"),
    ],
)
def test_bad_options(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_spec_from_options() -> None:
    args = parse("bench", "-t", "5", "-P", "4", "-R", "-l", "128K", "-A", "0,1", "--repeats", "3")
    spec = cli_bench._spec(args, "10.0.0.2", 5202, "ns1")
    assert (spec.duration, spec.streams, spec.direction, spec.length) == (5, 4, "reverse", "128K")
    assert (spec.client_cpu, spec.server_cpu, spec.repeats, spec.netns) == (0, 1, 3, "ns1")
    assert spec.port == 5202


def test_runs_prints_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    nb = filled(tmp_path)
    assert cli.main(["runs", "--notebook", str(nb.path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:3] == ["run", "setting", "value"]
    assert out[1].startswith("r1   baseline")
    assert out[2].startswith("r4   tso, gso, sg  off")
    assert "-72.7%" in out[2]

    assert cli.main(["runs", "--notebook", str(nb.path), "--csv"]) == 0
    assert capsys.readouterr().out.startswith("run,runs,started,setting,value,changes,")

    assert cli.main(["runs", "--notebook", str(nb.path), "--baseline", "r4", "--markdown"]) == 0
    md = capsys.readouterr().out.splitlines()
    assert md[2].startswith("| r1 | tso, gso, sg | on | 22000 (20000..24000) +266.7% |")
    assert md[3].startswith("| r4 | baseline |")
    assert nb.baseline() == "r4"  # remembered


def test_runs_compare(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    nb = filled(tmp_path)
    assert cli.main(["runs", "--notebook", str(nb.path), "--compare", "r2", "r5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["run", "r2", "r5"]
    tso = next(line for line in lines if line.startswith("tso "))
    assert tso.split() == ["tso", "on", "off", "*"]
    assert not any(line.startswith("mtu ") for line in lines)
    assert cli.main(["runs", "--notebook", str(nb.path), "--compare", "r2", "r9"]) == 2
    assert "no run r9" in capsys.readouterr().err


def test_runs_without_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    book = tmp_path / "none.jsonl"
    assert cli.main(["runs", "--notebook", str(book)]) == 0
    assert "no runs yet" in capsys.readouterr().out
    nb = filled(tmp_path)
    assert cli.main(["runs", "--notebook", str(nb.path), "--baseline", "r42"]) == 2
    assert "no run r42" in capsys.readouterr().err


def test_pinning_is_checked_against_the_cpus_each_side_has() -> None:
    from tuitune.core.bench.limits import pin_problem

    online = frozenset({0, 1})
    assert pin_problem(7, None, online) == "-A: client CPU 7 is not online here (online: 0-1)"
    assert pin_problem(1, 7, online, online) == (
        "-A: server CPU 7 is not online here (online: 0-1)"
    )
    assert pin_problem(1, 7, online, None) is None  # a remote peer's CPUs are not known here
    assert pin_problem(None, None, online) is None


def test_new_options_in_the_spec() -> None:
    args = parse(
        "bench", "-P", "4", "-w", "4m", "-Z", "-M", "1400", "-C", "bbr", "--processes",
        "--cpus", "0-1", "--server-cpus", "1", "--engine", "nuttcp",
    )  # fmt: skip
    spec = cli_bench._spec(args, "10.0.0.2", 5000, None)
    assert (spec.engine, spec.window, spec.zerocopy, spec.mss, spec.congestion) == (
        "nuttcp", "4M", True, 1400, "bbr"
    )  # fmt: skip
    assert (spec.processes, spec.stream_cpus, spec.server_cpus) == (True, (0, 1), (1,))
    assert cli_bench._spec(parse("bench", "-u", "1g"), "x", 1, None).udp_rate == "1G"


def test_another_engine_takes_its_own_port(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_bench, "found_lab", lambda: FakeLab())
    assert cli_bench._resolve(parse("bench", "--engine", "nuttcp"))[2] == 5000
    assert cli_bench._resolve(parse("bench", "--engine", "sockperf"))[2] == 11111
    assert cli_bench._resolve(parse("bench", "--engine", "sockperf", "-p", "9"))[2] == 9


def test_what_an_engine_cannot_do_is_said_before_anything_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(cli_bench, "found_lab", lambda: None)
    code = cli.main(
        ["bench", "lo", "--peer", "127.0.0.1", "--engine", "nuttcp", "-Z",
         "--notebook", str(tmp_path / "n.jsonl")]
    )  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert "nuttcp 6 has no zero copy (-Z); nothing was run" in err
    assert not (tmp_path / "n.jsonl").exists()
