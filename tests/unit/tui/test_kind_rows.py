"""Each kind's handler names its panel row and says how that row is edited (issue 37 step 1):
the two must agree, for every editable row the screen draws of a real host's state, and a
row no handler claims is refused in the words the screen always used.

The 32-CPU fixture host (its igb's real ethtool -g -c -l and its real /proc/interrupts)."""

from __future__ import annotations

import pytest

from tests.support.fixture_hosts import host_32cpu
from tuitune.core.session import Key
from tuitune.core.session.kinds.edit import EditSpec
from tuitune.core.session.readback import patch_nic
from tuitune.core.watch.snapshot import HostState, NicState
from tuitune.tui.controllers.editing import edit_spec, row_key_of


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, NicState, HostState]:
    reader, ifname = host_32cpu(tmp_path_factory.mktemp("h"), samples=1)
    return ifname, reader.nic_state(ifname), reader.host_state()


def _rows(nic: NicState, host: HostState) -> list[str]:
    rows = [f"sysctl:{s.key}" for s in host.sysctls]
    rows += [f"irq:{q.irq}" for q in nic.irqs]
    rows += [f"queue:{q.name}" for q in nic.queues]
    rows += ["link:mtu", "link:txqueuelen"]
    rows += [f"rings:{f}" for f in ("rx", "tx", "rx_mini", "rx_jumbo")]
    rows += [f"channels:{f}" for f in ("rx", "tx", "other", "combined")]
    rows += [f"pause:{f}" for f in ("autoneg", "rx", "tx")]
    return rows


def test_every_editable_row_edits_the_key_whose_row_it_is(
    host: tuple[str, NicState, HostState],
) -> None:
    ifname, nic, state = host
    edited = 0
    for row in _rows(nic, state):
        spec = edit_spec(row, ifname, nic, state)
        if isinstance(spec, EditSpec):
            assert row_key_of(spec.key) == row, (row, spec.key)
            edited += 1
    assert edited > 20  # the rings, channels, IRQs and queues of the igb at least


def test_rows_no_handler_claims_say_why_as_before(host: tuple[str, NicState, HostState]) -> None:
    ifname, nic, state = host
    assert edit_spec("bogus:1", ifname, nic, state) == "this line cannot be changed"
    assert edit_spec("bogus:1", None, None, state) == "pick an interface first"
    assert edit_spec("link:speed", ifname, nic, state) == "speed is read-only"
    assert edit_spec("§ heading", ifname, nic, state) == "nothing to change on this line"


def test_a_read_back_ring_size_is_patched_by_its_handler(
    host: tuple[str, NicState, HostState],
) -> None:
    ifname, nic, _ = host
    patched = patch_nic(nic, [(Key.field(ifname, "ring", "rx"), "1024", False)])
    assert patched is not None
    assert getattr(patched.rings, "rx", None) == 1024
    # A kind whose handler keeps the default waits for the re-read: nothing changes.
    same = patch_nic(nic, [(Key.rps_cpus(ifname, "rx-0"), "0-3", False)])
    assert same == nic
