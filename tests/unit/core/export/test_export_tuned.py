"""The tuned profile export (`--format tuned`): tuned's documented [sysctl], [net] and [sysfs]
options only, and every value it writes read back by `tuitune verify` as the change made."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.core.export.test_export_files import DEV, Tuned
from tuitune.core.export import build_plan, tuned
from tuitune.core.export.build import parse_formats
from tuitune.core.export.verify import file_kind, installed_files
from tuitune.core.session.kinds.table import handler


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tuned]:
    t = Tuned(tmp_path_factory.mktemp("tuned"))
    yield t
    t.access.close()


def test_every_device_change_and_sysctl_reads_back_as_made(state: Tuned) -> None:
    plan = state.plan()
    [conf] = plan.by_format("tuned")
    assert conf.path == Path("/etc/tuned/tuitune-eno49/tuned.conf")
    assert file_kind(conf.path, conf.text) == ("tuned", {"iface": DEV, "netns": "-"})
    got = {k: (v, n) for k, v, n in tuned.parse(conf.text, DEV)}
    made = {c.key: c.current for c in state.changes if c.key.kind != "irq_affinity"}
    grouped = {k for k in made if k.kind == "feature" and tuned.GROUPED.fullmatch(k.name)}
    assert grouped  # tx-checksum-ip-generic, tx-scatter-gather: said left out, below
    assert set(got) == set(made) - grouped
    # The feature names tuned's net plugin takes (`ethtool -k`'s, shortened): rx-gro is gro.
    assert "features=gro off" in conf.text.splitlines()
    plan_lines = build_plan(state.changes, state.ctx, ("tuned",), read_installed=False).skipped
    for key in grouped:
        assert any(key.name in s and "whole groups" in s for s in plan_lines), key
        made.pop(key)
    for key, value in made.items():
        canon = handler(key.kind).canonical
        assert canon(key, got[key][0]) == canon(key, value), key.label
    # One [net] line per ethtool group, as tuned's net plugin takes them.
    assert "ring=rx 4096 tx 2048" in conf.text.splitlines()
    assert "pause=autoneg off rx off" in conf.text.splitlines()


def test_tuned_is_a_format_export_knows() -> None:
    assert parse_formats("tuned") == ("tuned",)


def test_irq_affinity_alone_is_said_left_out(state: Tuned) -> None:
    irqs = [c for c in state.changes if c.key.kind == "irq_affinity"]
    plan = build_plan(irqs, state.ctx, ("tuned",), read_installed=False)
    assert plan.files == ()
    assert plan.skipped and all("CPU mask, not by queue name" in s for s in plan.skipped)


def test_an_unsafe_value_refuses_the_whole_file(state: Tuned) -> None:
    from dataclasses import replace

    from tuitune.core.export import ExportRefused

    bad = [replace(state.changes[0], current="1\n[main]\ninclude=x")]
    with pytest.raises(ExportRefused):
        build_plan(bad, state.ctx, ("tuned",), read_installed=False)


def test_verify_finds_installed_tuned_profiles(tmp_path: Path) -> None:
    conf = tmp_path / "tuned/tuitune-eno49/tuned.conf"
    conf.parent.mkdir(parents=True)
    conf.write_text("# tuitune-export: tuned iface=eno49 netns=-\n[main]\n")
    assert installed_files(tmp_path) == [conf]
