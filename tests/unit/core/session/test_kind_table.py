"""Every kind of setting has a handler in the kind table, with every method of the Protocol:
adding a kind to settings.Kind without its row (or a row missing a method) fails here."""

from __future__ import annotations

import inspect

import pytest

from tuitune.core.session.kinds.base import KindHandler, well_formed
from tuitune.core.session.kinds.showform import (
    PARTS_HERE,
    ShowDoc,
    ShowSource,
    drop_mark,
    place,
)
from tuitune.core.session.kinds.table import (
    HANDLERS,
    PLATFORM_READS,
    SHOW_ORDER,
    WRITE_ORDER,
    show_order,
    show_parts,
)
from tuitune.core.session.settings import KINDS, Key

METHODS = sorted(
    n for n, f in vars(KindHandler).items() if not n.startswith("_") and inspect.isfunction(f)
)

SAMPLES: dict[str, Key] = {
    "sysctl": Key.sysctl("net.core.somaxconn"),
    "feature": Key.feature("eth2", "rx-gro-hw"),
    "ring": Key.field("eth2", "ring", "rx"),
    "coalesce": Key.field("eth2", "coalesce", "rx-usecs"),
    "channels": Key.field("eth2", "channels", "combined"),
    "pause": Key.field("eth2", "pause", "rx"),
    "mtu": Key.mtu("eth2"),
    "txqueuelen": Key.txqueuelen("eth2"),
    "rps_cpus": Key.rps_cpus("eth2", "rx-0"),
    "xps_cpus": Key.xps_cpus("eth2", "tx-0"),
    "rps_flow_cnt": Key.rps_flow_cnt("eth2", "rx-0"),
    "irq_affinity": Key.irq(45, "eth2-TxRx-3", "eth2"),
    "service": Key.service("irqbalance"),
    "proc_affinity": Key.proc_affinity(1234, 5678),
    "cpu_governor": Key.cpu_governor(0),
    "cpu_epp": Key.cpu_epp(0),
    "cstate_disable": Key.cstate_disable(0, 3),
    "cpu_boost": Key.cpu_boost(),
    "module_param": Key.module_param("virtio_net", "napi_tx"),
    "qdisc": Key.qdisc("eth2"),
    "rss": Key.rss("eth2"),
    "flow_hash": Key.flow_hash("eth2", "udp4"),
    "ntuple": Key.ntuple("eth2", 1023),
    "priv_flag": Key.priv_flag("eth2", "legacy-rx"),
    "fec": Key.fec("eth2"),
    "smt": Key.smt(),
}

# A value of each sample as the reader gives it, and one no reader gives (None: any text is
# the kernel's, or the service check's, to judge).
READ_AND_BAD: dict[str, tuple[str, str | None]] = {
    "sysctl": ("4096", None),
    "feature": ("on", "1"),
    "ring": ("4096", "4k"),
    "coalesce": ("50", "on"),
    "channels": ("4", "-1"),
    "pause": ("off", "no"),
    "mtu": ("9000", "9000 "),
    "txqueuelen": ("1000", "on"),
    "rps_cpus": ("0-3", "cpu0"),
    "xps_cpus": ("none", "0-3 8"),
    "rps_flow_cnt": ("32768", "0x8000"),
    "irq_affinity": ("0-1", "none"),
    "service": ("active", None),
    "proc_affinity": ("0-3", None),
    "cpu_governor": ("performance", None),
    "cpu_epp": ("balance_performance", None),
    "cstate_disable": ("1", "on"),
    "cpu_boost": ("on", "1"),
    "module_param": ("Y", None),
    "qdisc": ("mq fq limit 10000 flow_limit 100 quantum 3028 initial_quantum 15140", None),
    "rss": ("table 0*64 1*64", None),
    "flow_hash": ("sdfn", None),
    "ntuple": ("flow-type tcp4 dst-port 5201 action 2", None),
    "priv_flag": ("off", "1"),
    "fec": ("auto rs", None),
    "smt": ("on", "1"),
}


def test_the_protocol_names_every_handler_duty() -> None:
    assert set(METHODS) >= {"read", "validate", "write", "related", "label", "scope", "group"}
    # What the journal's original check and `verify` ask of a kind (no ladders over kinds).
    assert set(METHODS) >= {"form", "canonical"}


def test_every_kind_has_a_row() -> None:
    assert set(HANDLERS) == set(KINDS)
    assert set(SAMPLES) == set(KINDS)  # a new kind needs a sample here too
    assert set(READ_AND_BAD) == set(KINDS)


@pytest.mark.parametrize("kind", KINDS)
def test_every_row_has_every_method(kind: str) -> None:
    h = HANDLERS[kind]  # type: ignore[index]
    assert isinstance(h.calling_thread, bool)
    assert isinstance(h.of_interface, bool)
    for name in METHODS:
        method = getattr(h, name, None)
        assert callable(method), f"{kind}: no {name}"
        want = list(inspect.signature(getattr(KindHandler, name)).parameters)[1:]
        assert list(inspect.signature(method).parameters) == want, f"{kind}.{name}"


@pytest.mark.parametrize("kind", KINDS)
def test_every_row_describes_its_keys(kind: str) -> None:
    key = SAMPLES[kind]
    h = HANDLERS[key.kind]
    assert h.label(key) == key.label and key.label
    assert h.scope(key) in ("netns", "host")
    assert isinstance(h.group(key), tuple)
    assert h.absent(key).reason.startswith(key.label)
    # Exports take a kind's keys with their interface, or (the host's) into every export.
    assert h.of_interface == (key.ifname is not None)


@pytest.mark.parametrize("kind", KINDS)
def test_every_row_knows_its_values_shape(kind: str) -> None:
    key = SAMPLES[kind]
    h = HANDLERS[key.kind]
    read, bad = READ_AND_BAD[kind]
    assert well_formed(h.form(key), read)
    assert h.canonical(key, read) == read  # what the reader gives is already canonical
    if bad is not None:
        assert not well_formed(h.form(key), bad)


def test_the_handlers_say_what_goes_on_trial() -> None:
    """session/risk.py asks the handlers: the link-resetting kinds and SMT (on trial wherever
    they change), nothing else by its kind alone."""
    resets = {k for k in KINDS if HANDLERS[k].resets_link(SAMPLES[k])}
    always = {k for k in KINDS if HANDLERS[k].always_on_trial}
    assert resets == {"mtu", "channels", "ring", "pause"}
    assert always == {"smt"}
    assert not HANDLERS["txqueuelen"].resets_link(Key("txqueuelen", "eth0", "txqueuelen"))


@pytest.mark.parametrize("kind", KINDS)
def test_every_row_says_how_it_is_exported(kind: str) -> None:
    h = HANDLERS[kind]  # type: ignore[index]
    assert isinstance(h.always_on_trial, bool)
    # Written by some format, or never exported with a reason (export/build.py's hints).
    assert bool(h.carriers) != (h.not_exported is not None)
    assert h.not_exported is None or h.not_exported.startswith("not exported: ")


def test_the_handlers_say_how_ethtool_and_udev_set_them() -> None:
    """export/udev.py runs the ethtool kinds in their handlers' order and writes the sysfs
    attributes they name: the order and names the rules files have always had."""
    sets = {k: h.ethtool_set for k, h in HANDLERS.items() if h.ethtool_set is not None}
    order = sorted(sets, key=lambda k: sets[k].step)  # type: ignore[union-attr]
    assert order == ["channels", "priv_flag", "fec", "ring", "coalesce", "pause", "feature"]
    assert [sets[k].option for k in order] == [  # type: ignore[union-attr]
        "-L", "--set-priv-flags", "--set-fec", "-G", "-C", "-A", "-K"
    ]  # fmt: skip
    attrs = {k: HANDLERS[k].sysfs_attr(SAMPLES[k]) for k in KINDS}
    assert {k: a for k, a in attrs.items() if a is not None} == {
        "mtu": "mtu",
        "txqueuelen": "tx_queue_len",
        "rps_cpus": "rps_cpus",
        "xps_cpus": "xps_cpus",
        "rps_flow_cnt": "rps_flow_cnt",
    }


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_a_profile_places_has_its_turn(kind: str) -> None:
    """A kind a TOML profile's [interface] holds is written in WRITE_ORDER's turn (profile.py
    sorts by it); its names are checked by its handler."""
    h = HANDLERS[kind]  # type: ignore[index]
    placed = h.profile_field(kind)  # type: ignore[arg-type]
    if placed is not None:
        assert kind in WRITE_ORDER
        assert placed.name


def test_the_host_view_rows_have_their_handlers() -> None:
    rows = {h.host_row.row for h in HANDLERS.values() if h.host_row is not None}
    assert rows == {"fec", "priv_flag", "smt", "module_param"}


def test_a_show_document_is_read_once_per_kind_in_its_order() -> None:
    """showdoc.py asks every kind's handler once (SHOW_ORDER's first, the rest after), so a
    new kind's handler is asked without an edit of showdoc.py or of SHOW_ORDER."""
    assert len(set(SHOW_ORDER)) == len(SHOW_ORDER) and set(SHOW_ORDER) <= set(HANDLERS)
    assert sorted(show_order()) == sorted(KINDS)
    assert show_order()[: len(SHOW_ORDER)] == SHOW_ORDER


@pytest.mark.parametrize("kind", KINDS)
def test_a_kind_reads_nothing_of_an_empty_show_document(kind: str) -> None:
    """No interface, into a namespace: nothing of any kind is asked for (a handler whose part
    is the interface's or the host's says so itself)."""
    empty = ShowDoc({"schema": "x", "version": 1}, None, None, "lab")
    assert HANDLERS[kind].show_requests(kind, empty) == []  # type: ignore[index,arg-type]


def test_the_kinds_with_their_own_udev_lines_run_in_their_turn() -> None:
    """The RSS table, its hash fields and the ntuple rules after `ethtool -L`, the root qdisc
    last (export/udev.py asks each handler's `udev_lines` in `udev_turn` order); an ethtool
    kind of one `encoding` value brings the check of that value."""
    from tuitune.core.export.udev import OWN_LINES_KINDS

    assert OWN_LINES_KINDS == ("rss", "flow_hash", "ntuple", "qdisc")
    for kind, h in HANDLERS.items():
        how = h.ethtool_set
        if how is not None:
            assert (how.words == "encoding") == (how.encoding is not None), kind


def test_a_show_document_part_is_written_only_from_what_was_read() -> None:
    """`show --json`'s parts come from the handlers (show_json): with nothing read, no kind
    writes a part, and a part whose parent the frame lacks (no platform) is left out."""
    assert show_parts(ShowSource()) == {}
    doc: dict[str, object] = {"platform": None, "rss": None}
    place(doc, {("platform", "smt"): {"control": "on"}, ("rss",): {"setting": "equal 2"}})
    assert doc == {"platform": None, "rss": {"setting": "equal 2"}}


def test_a_part_the_frame_does_not_name_goes_at_its_mark() -> None:
    """A kind's part needs no frame entry: a new key goes before the parent's PARTS_HERE (the
    platform's driver object: after private_flags, before module_eeprom), a named one stays."""
    frame: dict[str, object] = {"a": None, PARTS_HERE: None, "z": 1}
    place(frame, {("b",): 2, ("c",): 3, ("a",): 0})
    drop_mark(frame)
    assert list(frame.items()) == [("a", 0), ("b", 2), ("c", 3), ("z", 1)]


def test_the_kinds_platform_reads_and_host_rows_come_from_their_handlers() -> None:
    """host/platform.py runs PLATFORM_READS and platformview.py the handlers' host_rows:
    neither names a kind, so a kind with a read of its own adds it in its handler only."""
    assert {r.kind for r in PLATFORM_READS} == {"fec"}
    for r in PLATFORM_READS:
        assert HANDLERS[r.kind].platform_read is r  # type: ignore[index]


FQ = "fq limit 10000 flow_limit 100 quantum 3028 initial_quantum 15140 maxrate 1000000000"
OWN_LINES: dict[str, tuple[Key, str]] = {
    "rss": (Key.rss("eth0"), "equal 2"),
    "flow_hash": (Key.flow_hash("eth0", "tcp4"), "sdfn"),
    "ntuple": (Key.ntuple("eth0", 7), "flow-type tcp4 dst-port 5201 action 1"),
    "qdisc": (Key.qdisc("eth0"), "mq " + FQ),
}


@pytest.mark.parametrize("kind", sorted(OWN_LINES))
def test_a_kind_reads_back_what_its_own_udev_lines_set(kind: str) -> None:
    """What `udev_lines` writes, `udev_readback` gives back (verify compares it with the
    kernel); another kind's lines are not its."""
    from tuitune.core.export.udev import OWN_LINES_KINDS
    from tuitune.core.session.kinds.base import UdevRun
    from tuitune.core.session.kinds.safe import Checker

    key, value = OWN_LINES[kind]
    run = UdevRun(key, value, "was default", "/usr/sbin/ethtool", "/usr/sbin/tc")
    lines, why = HANDLERS[key.kind].udev_lines(run, Checker())
    assert why is None
    commands = [n.removeprefix('RUN+="').removesuffix('"') for n in lines if n.startswith("RUN")]
    read: list[tuple[Key, str]] = []
    for command in commands:
        for other in OWN_LINES_KINDS:
            for got in HANDLERS[other].udev_readback(command, "eth0"):
                assert other == kind, f"{other} read {kind}'s line {command}"
                if got.after is None:
                    read.append((got.key, got.value))
                elif read and read[-1] == (got.key, got.after):
                    read[-1] = (got.key, got.value)  # an mq's children complete its line
    assert read == [(key, value)]
