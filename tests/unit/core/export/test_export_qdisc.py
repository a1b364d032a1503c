"""The root qdisc in the udev rules: `tc` by full path after every ethtool command, an mq's
children made per tx queue that exists when the rules run, the kernel's default left alone,
and a value that is not tuitune's own refused before any file is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tuitune.core.export import Change, DeviceMatch, ExportContext, ExportRefused, build_plan
from tuitune.core.session import Key

DEV = "eno49"
FQ = "fq limit 10000 flow_limit 100 quantum 3028 initial_quantum 15140 maxrate 1000000000"
CTX = ExportContext(
    ifname=DEV, match=DeviceMatch("path", "pci-0000:3b:00.0"), etc=Path("/nonexistent/etc")
)


def rules(*changes: Change) -> list[str]:
    plan = build_plan(changes, CTX, ("udev",), read_installed=False)
    (f,) = plan.files
    assert not plan.skipped
    return f.text.splitlines()


def test_mq_fq_after_ethtool_with_a_child_per_tx_queue() -> None:
    lines = rules(
        Change(Key.qdisc(DEV), "default", "mq " + FQ),
        Change(Key.field(DEV, "channels", "combined"), "8", "4"),
    )
    runs = [n for n in lines if n.startswith("RUN+=")]
    assert runs[0].startswith('RUN+="/usr/sbin/ethtool -L $name combined 4')
    assert runs[1] == 'RUN+="/usr/sbin/tc qdisc replace dev $name root handle 1: mq"'
    # udev turns $$ into $ and %% into %: the shell sees ${q##*-}, $((n + 1)), printf %x.
    assert runs[2] == (
        "RUN+=\"/bin/sh -c 'for q in /sys/class/net/$name/queues/tx-*; do n=$${q##*-}; "
        "/usr/sbin/tc qdisc replace dev $name parent 1:$$(printf %%x $$((n + 1))) fq "
        "limit 10000 flow_limit 100 quantum 3028 initial_quantum 15140 maxrate 1000000000bit; "
        "done'\""
    )
    assert "# root qdisc: was default" in "\n".join(lines)


def test_a_leaf_at_the_root_and_default_runs_nothing() -> None:
    tbf = "tbf rate 100000000 burst 4000 limit 30000"
    lines = rules(Change(Key.qdisc(DEV), "default", tbf))
    assert (
        'RUN+="/usr/sbin/tc qdisc replace dev $name root tbf rate 100000000bit burst 4000 '
        'limit 30000"'
    ) in lines
    lines = rules(Change(Key.qdisc(DEV), tbf, "default"))
    assert not [n for n in lines if n.startswith("RUN+=")]
    assert any("the kernel's default: nothing to run" in n for n in lines)


@pytest.mark.parametrize(
    "value",
    [
        'fq limit 1"; RUN+="/bin/evil',
        "fq limit 10000 flow_limit 100 quantum 3028 initial_quantum 15140 maxrate $name",
        "htb default 10",
        "fq maxrate 1000000000 limit 10000 flow_limit 100 quantum 3028 initial_quantum 1",
    ],
)
def test_a_value_not_of_tuitunes_making_is_refused(value: str) -> None:
    with pytest.raises(ExportRefused):
        build_plan([Change(Key.qdisc(DEV), "default", value)], CTX, ("udev",))
