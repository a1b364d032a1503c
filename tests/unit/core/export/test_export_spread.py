"""`* = nic-local`: the affinity of a fleet export worked out on each host (the spread key's
plan over the NIC-local cores), by `tuitune apply-affinity` and `tuitune verify` alike, and
chosen in the Ansible role by `tuitune_affinity_cpus`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.command import tuitune
from tests.support.session_fakes import build_host
from tests.unit.core.export.test_export_files import Tuned, _fixed
from tuitune.core.export import DeviceMatch, build_plan, spread
from tuitune.core.export.affinity import parse
from tuitune.core.export.ansible import role_files

jinja2 = pytest.importorskip("jinja2", reason="jinja2 comes with ansible-core (test extra)")
DEV = "eno49"
MARK = "# tuitune-export: affinity iface=eno49 netns=-\n"


def test_nic_local_is_worked_out_on_the_host_that_applies_it(tmp_path: Path) -> None:
    tree = build_host(tmp_path / "host")  # eno49-TxRx-0 on IRQ 101 (CPUs 0-3), -1 on 102
    conf = tree / "etc/tuitune/affinity-eno49.conf"
    conf.parent.mkdir(parents=True)
    conf.write_text(MARK + "# the spread\n*   =  nic-local\n")
    res = tuitune("apply-affinity", DEV, "--root", tree)
    assert res.returncode == 0, res.stderr
    # One queue per core of the NIC's CPUs (no NUMA locality here: every online CPU, 0-2).
    assert (tree / "proc/irq/101/smp_affinity_list").read_text().strip() == "0"
    assert (tree / "proc/irq/102/smp_affinity_list").read_text().strip() == "1"
    res = tuitune("verify", conf, "--root", tree)
    assert res.returncode == 0 and res.stdout == "every setting matches: 2 in 1 file(s)\n"
    (tree / "proc/irq/102/smp_affinity_list").write_text("2\n")
    res = tuitune("verify", conf, "--root", tree)
    assert res.returncode == 1
    assert f"{conf}:3: IRQ 102 (eno49-TxRx-1) affinity: file says 1, live 2" in res.stdout


def test_a_pin_beside_the_directive_is_not_the_directive() -> None:
    assert spread.is_nic_local("# c\n* = nic-local\n")
    assert not spread.is_nic_local("* = nic-local\neno49-TxRx-0 = 1\n")
    assert not spread.is_nic_local("* = nic-locals\n")


def test_the_role_chooses_exported_or_nic_local(tmp_path: Path) -> None:
    t = Tuned(tmp_path)
    ctx = _fixed(t.ctx, match=DeviceMatch("path", "pci-0000:3b:00.0"))
    plan = build_plan(t.changes, ctx, read_installed=False)
    files = role_files(plan, ctx)
    assert 'tuitune_affinity_cpus: "exported"' in files["roles/tuitune_nic/defaults/main.yml"]
    task = next(
        ln for ln in files["roles/tuitune_nic/tasks/main.yml"].splitlines() if "nic-local" in ln
    )
    src_expr = json.loads(task.split("src: ", 1)[1])  # the YAML scalar is JSON-quoted
    env = jinja2.Environment(keep_trailing_newline=True)
    templates = "roles/tuitune_nic/templates/"
    for choice, nic_local in (("exported", False), ("nic-local", True)):
        src = env.from_string(src_expr).render(tuitune_affinity_cpus=choice)
        text = env.from_string(files[templates + src]).render(tuitune_iface=DEV)
        assert spread.is_nic_local(text) == nic_local
        if not nic_local:
            assert [p.queue for p in parse(text)] == ["eno49-TxRx-0", "eno49-TxRx-1"]
        else:
            assert "eno49-TxRx" not in text and "tuitune-export: affinity iface=eno49" in text
