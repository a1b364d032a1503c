"""A throughput profile's platform settings (core/profiles/platform.py): the performance
governor on every CPU where the host's cpufreq offers it (Red Hat LAN, ESnet WAN), shown with
the governors now, resolved per cpufreq policy as `tuitune apply` writes them; none without
cpufreq, already so, or for a latency profile; irqbalance said, never stopped. On the recorded
2-node E5-2640 host (test_recommend's) given the cpufreq policies pepc recorded on real Intel
hosts (tests/fixtures/platform/SOURCES.md: clx2s0 runs powersave, gnr3 performance)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.command import tuitune
from tests.support.platform_trees import widen_cpu_power
from tests.unit.core.test_recommend import host_10g  # noqa: F401 (the fixture)
from tuitune.core.host.root import HostRoot
from tuitune.core.profiles import find
from tuitune.core.profiles.platform import extra_parts, governors, with_platform
from tuitune.core.session import HostAccess, Key, Session
from tuitune.core.session.profile import resolve
from tuitune.core.session.profile_model import Profile
from tuitune.core.watch.hostreader import HostReader


@pytest.fixture(params=["clx2s0", "gnr3"])
def with_cpufreq(request: pytest.FixtureRequest, host_10g: Path, tmp_path: Path) -> Path:  # noqa: F811
    import shutil

    tree = tmp_path / "tree"
    shutil.copytree(host_10g, tree, symlinks=True)
    widen_cpu_power(tree, request.param, 32)
    return tree


def _host(tree: Path):  # type: ignore[no-untyped-def]
    with HostReader(HostRoot.fixture(tree)) as r:
        return r.snapshot("eth2").host


def test_the_performance_governor_where_cpufreq_offers_it(with_cpufreq: Path) -> None:
    root = HostRoot.fixture(with_cpufreq)
    govs = governors(root)
    assert len(govs.now) == 32 and govs.offered
    prof = find("lan-10g")
    assert prof is not None
    placed, scaled, kept = with_platform(prof, govs, _host(with_cpufreq))
    assert any(line.startswith("irqbalance: ") for line in kept)
    if set(govs.now) == {"performance"}:  # gnr3: already so, nothing asked
        assert placed.extra == () and not scaled
        assert any(line.startswith("CPU governor: already performance") for line in kept)
        return
    assert [(s.setting, s.was, s.value) for s in scaled] == [
        ("cpu governor (every CPU)", "powersave", "performance")
    ]
    assert "Red Hat" in scaled[0].why and "ESnet" in scaled[0].why
    [(part, cite, reqs)] = extra_parts(placed)
    assert part == "cpu-governor" and "redhat-10g" in cite
    session = Session(root, journal_dir=with_cpufreq / "j", access=lambda: HostAccess(root))
    try:  # resolved as `tuitune apply` resolves it: one governor a cpufreq policy
        pairs, errors = resolve(session.access(), Profile(None, reqs, "profile"), "eth2")
    finally:
        session.close()
    assert not errors
    assert {k for k, _ in pairs} == {Key("cpu_governor", None, f"policy{n}") for n in range(32)}
    assert {t for _, t in pairs} == {"performance"}
    # From a namespace (a lab): the CPUs are the whole machine's, never a profile's there.
    placed, scaled, kept = with_platform(prof, govs, _host(with_cpufreq), "lab")
    assert placed.extra == () and not scaled
    assert any("not the namespace's" in line for line in kept)


def test_no_cpufreq_a_latency_profile_and_a_running_irqbalance(host_10g: Path) -> None:  # noqa: F811
    root = HostRoot.fixture(host_10g)
    host = _host(host_10g)
    prof = find("lan-10g")
    low = find("low-latency")
    assert prof is not None and low is not None
    _, scaled, kept = with_platform(prof, governors(root), host)
    assert not scaled and any("no cpufreq here" in line for line in kept)
    busy = replace(host, irqbalance=replace(host.irqbalance, running=True))
    _, _, kept = with_platform(prof, governors(root), busy)
    assert any("systemctl stop irqbalance" in line for line in kept)
    _, scaled, kept = with_platform(low, governors(root), host)
    assert not scaled and any("a latency profile" in line for line in kept)


@pytest.mark.parametrize("with_cpufreq", ["clx2s0"], indirect=True)
def test_recommend_prints_the_governor_it_would_set(with_cpufreq: Path) -> None:
    done = tuitune("recommend", "eth2", "--root", with_cpufreq)
    assert done.returncode == 0, done.stderr
    assert "cpu governor (every CPU): powersave -> performance" in done.stdout, done.stdout
    assert "as the report: irqbalance: not running" in done.stdout
