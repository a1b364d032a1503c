"""The platform's changes as files (issue 32): module parameters to a modprobe.d file (the
initramfs note in it), governor, EPP and C-state `disable` to a systemd oneshot unit (governor
before its EPP), chosen by default when such a change is there, read back to the same values,
and hostile names or values refused before a file is written."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.session_fakes import build_host
from tuitune.core.export import ExportContext, ExportRefused, build_plan, gather_context
from tuitune.core.export.model import Change
from tuitune.core.export.platform_files import parse
from tuitune.core.export.verify import expectations, file_kind, installed_files
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Key

WHEN = 1735812000.0
CHANGES = [
    Change(Key.module_param("e1000e", "InterruptThrottleRate"), "3", "8000", WHEN),
    Change(Key.module_param("e1000e", "SmartPowerDownEnable"), "0", "1", WHEN),
    Change(Key.cpu_epp(0), "balance_performance", "performance", WHEN),
    Change(Key.cpu_governor(0), "powersave", "performance", WHEN),
    Change(Key.cstate_disable(2, 3), "0", "1", WHEN),
]


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExportContext]:
    tree = build_host(tmp_path_factory.mktemp("p") / "host")
    with HostAccess(HostRoot.fixture(tree)) as access:
        got = gather_context(access, "eno49")
    yield replace(got, etc=Path("/etc"), now=WHEN, host="fixture-host")


def test_both_files_by_default_and_read_back(ctx: ExportContext) -> None:
    plan = build_plan(CHANGES, ctx, read_installed=False)
    files = {f.path.as_posix(): f.text for f in plan.files}
    assert set(files) == {
        "/etc/modprobe.d/90-tuitune-e1000e.conf",
        "/etc/systemd/system/tuitune-cpu-power.service",
    }
    assert plan.skipped == ()
    conf = files["/etc/modprobe.d/90-tuitune-e1000e.conf"]
    assert "options e1000e InterruptThrottleRate=8000 SmartPowerDownEnable=1\n" in conf
    assert "update-initramfs -u" in conf
    unit = files["/etc/systemd/system/tuitune-cpu-power.service"]
    execs = [line for line in unit.splitlines() if line.startswith("ExecStart")]
    assert execs == [
        "ExecStart=-/bin/sh -c 'echo performance > "
        "/sys/devices/system/cpu/cpufreq/policy0/scaling_governor'",
        "ExecStart=-/bin/sh -c 'echo performance > "
        "/sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference'",
        "ExecStart=-/bin/sh -c 'echo 1 > /sys/devices/system/cpu/cpu2/cpuidle/state3/disable'",
    ]
    assert "Type=oneshot" in unit and "WantedBy=multi-user.target" in unit
    read = {k: v for text in files.values() for k, v, _ in parse(text)}
    assert read == {c.key: c.current for c in CHANGES}


@pytest.mark.parametrize(
    "change",
    [
        Change(Key.module_param("e1000e", "x"), "0", "1 ; rm -rf /", WHEN),
        Change(Key("module_param", None, "../e1000e/x"), "0", "1", WHEN),
        Change(Key.cpu_governor(0), "powersave", "performance'; reboot; '", WHEN),
        Change(Key("cstate_disable", None, "cpu0/../../x"), "0", "1", WHEN),
        Change(Key.cstate_disable(0, 1), "0", "yes", WHEN),
    ],
)
def test_a_hostile_value_writes_no_file(ctx: ExportContext, change: Change) -> None:
    with pytest.raises(ExportRefused):
        build_plan([change], ctx, read_installed=False)


def test_verify_installed_finds_and_reads_them(ctx: ExportContext, tmp_path: Path) -> None:
    plan = build_plan(CHANGES, replace(ctx, etc=tmp_path), read_installed=False)
    for f in plan.files:
        f.path.parent.mkdir(parents=True, exist_ok=True)
        f.path.write_text(f.text)
    found = installed_files(tmp_path)
    assert sorted(p.name for p in found) == ["90-tuitune-e1000e.conf", "tuitune-cpu-power.service"]
    wanted = set()
    for path in found:
        kind = file_kind(path, path.read_text())
        assert kind is not None
        got = expectations(None, kind[0], kind[1], path.read_text())  # type: ignore[arg-type]
        assert not isinstance(got, str)
        wanted |= {(e.key, e.value) for e in got}
    assert wanted == {(c.key, c.current) for c in CHANGES}


@pytest.mark.parametrize(
    ("name", "value", "line"),
    [
        ("no_turbo", "off", "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo"),
        ("boost", "off", "echo 0 > /sys/devices/system/cpu/cpufreq/boost"),
    ],
)
def test_boost_in_the_unit_as_the_file_spells_it(
    ctx: ExportContext, name: str, value: str, line: str
) -> None:
    """The boost kind is on/off; the unit writes the file's own digit (no_turbo inverted),
    and reading the unit back gives on/off again (what verify compares with the host)."""
    key = Key.cpu_boost(name)
    plan = build_plan([Change(key, "on", value, WHEN)], ctx, read_installed=False)
    (unit,) = [f.text for f in plan.files]
    assert f"ExecStart=-/bin/sh -c '{line}'" in unit
    assert [(k, v) for k, v, _ in parse(unit)] == [(key, value)]
