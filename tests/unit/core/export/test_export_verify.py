"""`tuitune verify`: tune a recorded host, export and install into its own etc/, then find the
one value someone changed afterwards (and nothing else)."""

from __future__ import annotations

from pathlib import Path

from tests.support.command import tuitune
from tests.support.session_fakes import build_host

DEV = "eno49"
PROFILE = """
[sysctl]
"net.core.somaxconn" = 8192
"net.core.netdev_max_backlog" = 5000

[interface]
mtu = 9000
txqueuelen = 5000

[interface.rps_cpus]
"rx-0" = "1-2"
[interface.xps_cpus]
"tx-1" = "0"

[interface.irq_affinity]
"eno49-TxRx-0" = "2"
"""


def test_verify_finds_the_one_drifted_value(tmp_path: Path) -> None:
    tree = build_host(tmp_path / "host")
    profile = tmp_path / "tuned.toml"
    profile.write_text(PROFILE)
    journal = tmp_path / "journal"
    assert tuitune("apply", profile, DEV, "--root", tree, "--journal-dir", journal).returncode == 0
    res = tuitune("export", DEV, "--root", tree, "--journal-dir", journal, "--install")
    assert res.returncode == 0, res.stderr

    res = tuitune("verify", "--installed", "--root", tree)
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout == "every setting matches: 7 in 3 file(s)\n"

    # Someone changes one value behind tuitune's back.
    (tree / "proc/sys/net/core/somaxconn").write_text("4096\n")
    res = tuitune("verify", "--installed", "--root", tree)
    assert res.returncode == 1
    sysctl_file = tree / "etc/sysctl.d/90-tuitune.conf"
    line = next(
        n
        for n, text in enumerate(sysctl_file.read_text().splitlines(), 1)
        if text.startswith("net.core.somaxconn")
    )
    assert res.stdout.splitlines() == [
        f"{sysctl_file}:{line}: net.core.somaxconn: file says 8192, live 4096",
        "1 of 7 setting(s) differ",
    ]


def test_verify_names_files_it_cannot_use(tmp_path: Path) -> None:
    tree = build_host(tmp_path / "host")
    stray = tmp_path / "notes.txt"
    stray.write_text("hello\n")
    res = tuitune("verify", stray, tmp_path / "missing.conf", "--root", tree)
    assert res.returncode == 1
    assert "not a file tuitune wrote" in res.stderr
    assert "missing.conf: cannot read" in res.stderr


def test_a_foreign_sysctl_file_is_compared_too(tmp_path: Path) -> None:
    tree = build_host(tmp_path / "host")
    conf = tmp_path / "sysctl.d" / "99-local.conf"
    conf.parent.mkdir()
    conf.write_text("# mine\nnet.core.somaxconn=4096\n-net.core.rmem_max = 1\n")
    res = tuitune("verify", conf, "--root", tree)
    assert res.returncode == 1
    assert res.stdout.splitlines() == [
        f"{conf}:3: net.core.rmem_max: file says 1, live 212992",
        "1 of 2 setting(s) differ",
    ]
