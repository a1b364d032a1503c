"""Private flags and FEC in the udev rules (issue 32): `ethtool --set-priv-flags` and
`--set-fec ... encoding` run where rings and coalescing run, read back by `verify`'s parser
to the values the journal holds; a .link or NetworkManager export leaves them to udev. The
device is the fake built from the i40e and E810 captures."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.fakes.ethtool_driver_text import (
    I40E_PRIV_FLAGS,
    ICE_FEC,
    parse_fec,
    parse_priv_flags,
)
from tests.support.session_fakes import FakeDevice, build_host
from tuitune.core.export import ExportPlan, build_plan, from_originals, gather_context, udev
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key
from tuitune.core.session.kinds.table import handler

DEV = "eno49"
EDITS = [
    (Key.priv_flag(DEV, "legacy-rx"), "on"),
    (Key.priv_flag(DEV, "LinkPolling"), "on"),
    (Key.fec(DEV), "rs"),
    (Key.field(DEV, "ring", "rx"), "4096"),
]


class Tuned:
    def __init__(self, base: Path) -> None:
        flags = parse_priv_flags(I40E_PRIV_FLAGS.read_text())
        fec = parse_fec(ICE_FEC.read_text())
        self.dev = FakeDevice(DEV, priv_flags_=flags, fec_=fec)
        tree = build_host(base / "host")
        self.access = HostAccess(HostRoot.fixture(tree), ethtool=lambda _n: self.dev)
        with Journal.open(self.access, base / "journal") as j:
            assert all(o.ok for o in j.apply_all(EDITS))
            originals = j.originals()
        self.changes, problems = from_originals(
            self.access, originals, DEV, {k: 1735812000.0 for k in originals}
        )
        assert problems == []
        ctx = gather_context(self.access, DEV)
        self.ctx = replace(ctx, etc=Path("/etc"), ethtool="/usr/sbin/ethtool", now=1735812000.0)

    def plan(self, *formats: str) -> ExportPlan:
        return build_plan(self.changes, self.ctx, formats, read_installed=False)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tuned]:
    t = Tuned(tmp_path_factory.mktemp("driver"))
    yield t
    t.access.close()


def test_udev_runs_ethtool_for_flags_and_fec_before_the_rings(tuned: Tuned) -> None:
    [rules] = tuned.plan("udev").files
    runs = [line for line in rules.text.splitlines() if line.startswith("RUN+=")]
    assert runs == [
        'RUN+="/usr/sbin/ethtool --set-priv-flags $name LinkPolling on legacy-rx on"',
        'RUN+="/usr/sbin/ethtool --set-fec $name encoding rs"',
        'RUN+="/usr/sbin/ethtool -G $name rx 4096"',
    ]
    assert "#   modes: was auto rs baser (" in rules.text
    # verify reads the file back to the values the journal holds, in the reader's form.
    read_back = {k: v for k, v, _ in udev.parse(rules.text, DEV)}
    for key, value in EDITS:
        want = handler(key.kind).canonical(key, value)
        assert handler(key.kind).canonical(key, read_back[key]) == want


def test_a_link_export_leaves_flags_and_fec_to_udev(tuned: Tuned) -> None:
    plan = tuned.plan("link")
    left = [s for s in plan.skipped if "private flag" in s or "FEC" in s]
    assert len(left) == 3 and all(".link has no key for" in s for s in left), plan.skipped


def test_a_hostile_flag_name_is_not_written(tuned: Tuned) -> None:
    bad = [replace(c, key=Key.priv_flag(DEV, 'x" RUN+="/bin/sh')) for c in tuned.changes[:1]]
    with pytest.raises(Exception, match="private flag"):
        build_plan(bad, tuned.ctx, ("udev",), read_installed=False)
