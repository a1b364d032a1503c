"""The formats each kind's handler names as its carriers (kinds/base.py) are export formats,
and the default formats follow them (export/build.py reads no kind by name for these)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tuitune.core.export.build import build_plan, default_formats
from tuitune.core.export.context import ExportContext
from tuitune.core.export.device import DeviceMatch
from tuitune.core.export.model import FORMATS, Change
from tuitune.core.session.kinds.table import HANDLERS
from tuitune.core.session.settings import Key

CTX = ExportContext("eth0", DeviceMatch("name", "eth0"), etc=Path("/nonexistent"))


@pytest.mark.parametrize("kind", sorted(HANDLERS))
def test_carriers_are_formats(kind: str) -> None:
    assert set(HANDLERS[kind].carriers) <= set(FORMATS)  # type: ignore[index]


@pytest.mark.parametrize(
    ("key", "formats"),
    [
        (Key.sysctl("net.core.rmem_max"), ("sysctl",)),
        (Key("fec", "eth0", "encoding"), ("udev",)),
        (Key("ring", "eth0", "rx"), ("udev",)),
        (Key("module_param", None, "ixgbe/RSS"), ("modprobe",)),
        (Key("cpu_governor", None, "0"), ("cpu",)),
        (Key("smt", None, "control"), ()),
    ],
)
def test_default_formats_follow_the_handlers(key: Key, formats: tuple[str, ...]) -> None:
    assert default_formats([Change(key, "0", "1")], CTX) == formats


def test_a_never_exported_kind_says_why() -> None:
    plan = build_plan([Change(Key("smt", None, "control"), "on", "off")], CTX, ())
    assert plan.skipped == (
        "SMT (hyperthreading): not exported: SMT at boot is the kernel command line's nosmt "
        "(printed by show)",
    )
