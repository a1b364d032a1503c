"""A driver's module parameter through the journal (issue 32), on this VM's own capture of
/sys/module/virtio_net/parameters (tests/fixtures/platform/SOURCES.md) as a --root tree:
napi_tx (mode 644) changed and restored exactly; csum (444) refused before any write."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.platform_trees import vm_tree
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key

PARAMS = "sys/module/virtio_net/parameters"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return vm_tree(tmp_path / "vm")


def journal(tree: Path, tmp: Path) -> Journal:
    access = HostAccess(HostRoot.fixture(tree), call=lambda f, *a: f(*a))
    return Journal.open(access, tmp / "journal")


def test_writable_parameter_restores(tree: Path, tmp_path: Path) -> None:
    j = journal(tree, tmp_path)
    out = j.apply(Key.module_param("virtio_net", "napi_tx"), "N")
    assert out.describe() == "module virtio_net parameter napi_tx: Y -> N"
    assert (tree / PARAMS / "napi_tx").read_text() == "N\n"
    assert all(o.ok for o in j.close_restoring())
    assert (tree / PARAMS / "napi_tx").read_text() == "Y\n"


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        (Key.module_param("virtio_net", "csum"), "N", "read-only at run time"),
        (Key.module_param("virtio_net", "napi_tx"), "Y\nN", "one line of printable ASCII"),
        (Key("module_param", None, "../../etc/x"), "1", "is not MODULE/PARAMETER"),
        (Key.module_param("virtio_net", "nope"), "1", "not present"),
    ],
)
def test_refusals_change_nothing(
    tree: Path, tmp_path: Path, key: Key, value: str, said: str
) -> None:
    before = {p.name: p.read_bytes() for p in (tree / PARAMS).iterdir()}
    out = journal(tree, tmp_path).apply(key, value)
    assert out.status != "changed" and said in out.describe(), out.describe()
    assert {p.name: p.read_bytes() for p in (tree / PARAMS).iterdir()} == before
