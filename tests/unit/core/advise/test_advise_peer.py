"""`tuitune advise --peer HOST`: the peer checked before it reaches an argv, ping's output read
defensively (outputs as iputils 20221126 printed them on this machine), and what the probe
tells buffers-below-bdp and mtu-small."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.unit.advise_hosts import DEFAULT_BUFFERS, one, recorded, with_sysctls
from tuitune.cli import main
from tuitune.core.advise import Context, Facts, advise
from tuitune.core.advise import peer as peer_mod
from tuitune.core.advise import thresholds as t
from tuitune.core.advise.peer import PeerProbe, Rtt, parse_rtt, peer_problem, probe_peer

V4 = """PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.

--- 127.0.0.1 ping statistics ---
3 packets transmitted, 3 received, 0% packet loss, time 413ms
rtt min/avg/max/mdev = 0.033/0.039/0.050/0.007 ms
"""
V6 = """PING ::1(::1) 56 data bytes

--- ::1 ping statistics ---
2 packets transmitted, 2 received, 0% packet loss, time 202ms
rtt min/avg/max/mdev = 0.026/0.029/0.032/0.003 ms
"""
LOST = """PING 10.254.93.9 (10.254.93.9) 56(84) bytes of data.

--- 10.254.93.9 ping statistics ---
5 packets transmitted, 0 received, 100% packet loss, time 826ms

"""


@pytest.mark.parametrize(
    "good", ["198.18.0.2", "::1", "fe80::1", "host.example.org", "a-b.c", "peer.", "x"]
)
def test_good_peers(good: str) -> None:
    assert peer_problem(good) is None


@pytest.mark.parametrize(
    "bad",
    [
        "-f",
        "--help",
        "-c1",
        "",
        "a b",
        "x;rm -rf /",
        "$(id)",
        "a..b",
        "é.example",
        "a" * 300,
        "host\n",
        "1.2.3.999",
        "foo_bar",
        "-.example",
        "a-.example",
    ],
)
def test_hostile_peers_are_refused(bad: str) -> None:
    problem = peer_problem(bad)
    assert problem is not None and "\n" not in problem


def test_parse_rtt_reads_what_ping_printed() -> None:
    assert parse_rtt(V4) == Rtt(3, 3, 0.033, 0.039, 0.050)
    assert parse_rtt(V6) == Rtt(2, 2, 0.026, 0.029, 0.032)
    assert parse_rtt(LOST) is None


@pytest.mark.parametrize(
    "text",
    [
        "",
        "garbage\n",
        V4.replace("3 received", "4 received"),  # more replies than requests
        V4.replace("0.039", "nan"),
        V4.replace("0.039", "-1"),
        V4.replace("0.039", "0.060"),  # avg above max
        V4.replace("0.033/0.039/0.050/0.007", "0.033/0.039/0.050"),
        V4.replace("rtt min", "xrtt min"),
    ],
)
def test_parse_rtt_refuses_what_does_not_add_up(text: str) -> None:
    assert parse_rtt(text) is None


def _fake_ping(monkeypatch: pytest.MonkeyPatch, outputs: list[str]) -> list[list[str]]:
    calls: list[list[str]] = []

    def run(argv: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        calls.append(list(argv))
        return subprocess.CompletedProcess(argv, 0, outputs.pop(0), "")

    monkeypatch.setattr(peer_mod.proc, "run", run)
    return calls


def test_probe_argv_never_takes_the_peer_as_an_option(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _fake_ping(monkeypatch, [V4, V4])
    got = probe_peer("198.18.0.2", "tuitune-lab-abcdef", 1500)
    assert got.rtt_ms == 0.039 and got.df_ok is True and got.mtu == 1500
    for argv in calls:
        assert argv[:4] == ["ip", "netns", "exec", "tuitune-lab-abcdef"]
        assert argv[-2:] == ["--", "198.18.0.2"]
    assert calls[1][calls[1].index("-s") + 1] == "1472"  # 1500 - IP and ICMP headers
    calls = _fake_ping(monkeypatch, [V6, LOST])
    got = probe_peer("::1", None, 1500)
    assert calls[1][calls[1].index("-s") + 1] == "1452" and got.df_ok is False
    with pytest.raises(peer_mod.BadPeer):
        probe_peer("-f", None, 1500)


def test_no_reply_is_said_not_guessed(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_ping(monkeypatch, [LOST])
    got = probe_peer("10.254.93.9", None, 1500)
    assert got.rtt is None and got.df_ok is None
    assert got.evidence() == "no RTT to 10.254.93.9: no reply to ping"


# ---- what the probe feeds ------------------------------------------------------------------
@pytest.fixture(scope="module")
def pegged(tmp_path_factory: pytest.TempPathFactory) -> Facts:
    return recorded(tmp_path_factory.mktemp("pegged"), "pegged")


PROBE = PeerProbe("198.18.0.2", Rtt(5, 5, 48.0, 50.0, 52.0), 1500, True)


def test_measured_rtt_is_the_bdp_evidence(pegged: Facts) -> None:
    facts = with_sysctls(pegged, DEFAULT_BUFFERS)
    ctx = Context("wan", rate_gbits=10, rtt_ms=PROBE.rtt_ms, peer=PROBE)
    f = one(replace(facts, context=ctx), "buffers-below-bdp")
    assert f is not None
    assert "RTT to 198.18.0.2: 50 ms average (48-52, 5 of 5 replies; ping)" in f.evidence
    # A peer but no rate: the rule says what it needs.
    notes = advise(replace(facts, context=Context("wan", rtt_ms=50.0, peer=PROBE))).notes
    assert any(n.rule == "buffers-below-bdp" and "--rate" in n.text for n in notes)


def test_df_probe_decides_mtu_small(pegged: Facts) -> None:
    nic = pegged.nic
    assert nic is not None
    link = replace(nic.link, speed_mbps=t.MTU_LINK_MBPS, mtu=t.MTU_SMALL, kind=None)
    base = replace(pegged, nic=replace(nic, link=link))
    f = one(replace(base, context=Context(peer=PROBE)), "mtu-small")
    assert f is not None and f.trial
    assert any("1500-byte packets with don't-fragment reach 198.18.0.2" in e for e in f.evidence)
    lost = replace(PROBE, df_ok=False)
    advice = advise(replace(base, context=Context(peer=lost)))
    assert "mtu-small" not in {x.id for x in advice.findings}
    assert any(n.rule == "mtu-small" and "get no reply" in n.text for n in advice.notes)


def test_cli_refuses_a_hostile_peer_before_running_anything(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def never(*_: Any, **__: Any) -> None:
        raise AssertionError("a program was run")

    monkeypatch.setattr(peer_mod.proc, "run", never)
    for bad in ("--peer=-f", "--peer=x;id", "--peer=a b"):
        with pytest.raises(SystemExit) as exc:
            main(["advise", "eth0", bad])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "argument --peer" in err
    assert main(["advise", "eth0", "--root", str(tmp_path), "--peer", "198.18.0.2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--peer" in err
