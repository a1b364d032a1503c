"""The RSS table and ntuple rules in the udev rules (`ethtool -X`/`-N` after `ethtool -L`),
and `tuitune verify` reading them and the root qdisc's `tc` lines back to the values the
journal holds: what the file asks for is what the kernel would be compared with."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.fakes.rss_port import blocks
from tuitune.core.export import Change, DeviceMatch, ExportContext, ExportRefused, build_plan, udev
from tuitune.core.host.rss import table_value
from tuitune.core.host.rss_spec import weight_fill
from tuitune.core.session import Key
from tuitune.core.session.kinds.rss import NOT_WEIGHTS

DEV = "eno49"
FQ = "fq limit 10000 flow_limit 100 quantum 3028 initial_quantum 15140 maxrate unlimited"
CTX = ExportContext(
    ifname=DEV, match=DeviceMatch("path", "pci-0000:3b:00.0"), etc=Path("/nonexistent/etc")
)
RULE = "flow-type tcp4 dst-ip 10.0.0.2 dst-port 5201 action 1"


def export(*changes: Change) -> tuple[str, list[str]]:
    plan = build_plan(changes, CTX, ("udev",), read_installed=False)
    (f,) = plan.files
    return f.text, list(plan.skipped)


def runs(text: str) -> list[str]:
    return [n for n in text.splitlines() if n.startswith("RUN+=")]


def test_rss_and_rules_run_after_the_channel_change() -> None:
    igb = table_value(blocks(128, 4), 4)  # igb's own fill: four blocks of 32
    text, skipped = export(
        Change(Key.field(DEV, "channels", "combined"), "8", "4"),
        Change(Key.rss(DEV), "default", igb),
        Change(Key.ntuple(DEV, 1023), "none", RULE),
        Change(Key.ntuple(DEV, 7), "flow-type udp4 src-port 53 action drop", "none"),
    )
    assert not skipped
    r = runs(text)
    assert r[0].startswith('RUN+="/usr/sbin/ethtool -L $name combined 4')
    assert r[1] == 'RUN+="/usr/sbin/ethtool -X $name weight 32 32 32 32"'
    assert r[2] == f'RUN+="/usr/sbin/ethtool -N $name {RULE} loc 1023"'
    assert len(r) == 3  # a removed rule: nothing to run at boot
    assert weight_fill([32] * 4, 128) == blocks(128, 4)  # what ethtool -X makes of it


def test_equal_and_drop_in_ethtools_words() -> None:
    text, _ = export(
        Change(Key.rss(DEV), "default", "equal 2"),
        Change(Key.ntuple(DEV, 3), "none", "flow-type udp4 src-port 53 action drop"),
    )
    assert runs(text) == [
        'RUN+="/usr/sbin/ethtool -X $name equal 2"',
        'RUN+="/usr/sbin/ethtool -N $name flow-type udp4 src-port 53 action -1 loc 3"',
    ]


def test_a_table_ethtool_cannot_make_is_left_out_with_the_reason() -> None:
    plan = build_plan(
        [Change(Key.rss(DEV), "default", "table 1*64 0*64")], CTX, read_installed=False
    )
    assert list(plan.skipped) == [f"{DEV} RSS table: {NOT_WEIGHTS}"]


@pytest.mark.parametrize(
    "change",
    [
        Change(Key.rss(DEV), "default", 'equal 2"; RUN+="/bin/evil'),
        Change(Key.ntuple(DEV, 1), "none", 'flow-type tcp4 dst-port 1 action 0"'),
        Change(Key.ntuple(DEV, 1), "none", "flow-type tcp4 action 0 dst-port 1"),
    ],
)
def test_a_value_not_of_tuitunes_making_is_refused(change: Change) -> None:
    with pytest.raises(ExportRefused):
        build_plan([change], CTX, ("udev",))


def test_verify_reads_back_what_the_rules_ask_for() -> None:
    tbf = "tbf rate 100000000 burst 4000 limit 30000"
    paced = f"mq {FQ} ce_threshold 2000 timer_slack 20000 horizon_drop 0"
    for qdisc in ("mq " + FQ, tbf, "mq", "mq pfifo_fast", paced):
        text, _ = export(
            Change(Key.rss(DEV), "default", "table 0*64 1*64"),
            Change(Key.ntuple(DEV, 1023), "none", RULE),
            Change(Key.qdisc(DEV), "default", qdisc),
        )
        got = {k: v for k, v, _ in udev.parse(text, DEV)}
        assert got == {
            Key.rss(DEV): "table 0*64 1*64",
            Key.ntuple(DEV, 1023): RULE,
            Key.qdisc(DEV): qdisc,
        }
    text, _ = export(Change(Key.rss(DEV), "default", "equal 3"))
    assert udev.parse(text, DEV)[0][:2] == (Key.rss(DEV), "equal 3")


def test_fqs_own_options_in_tcs_words() -> None:
    text, _ = export(Change(Key.qdisc(DEV), "default", f"{FQ} horizon 1000000 horizon_drop 0"))
    (run,) = runs(text)
    assert run.endswith('initial_quantum 15140 horizon 1000000us horizon_cap"')
