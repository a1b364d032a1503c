"""How the screen names what a change moved along with it (issue 22 item 14: raising channels
reported "(it also changed rx-1, rx-1)" for rx-1's rps_cpus and rps_flow_cnt)."""

from __future__ import annotations

from tuitune.core.session import Key
from tuitune.core.session.outcome import Effect, Outcome


def test_each_setting_named_whole_once() -> None:
    out = Outcome(
        Key.field("veth0", "channels", "rx"),
        "changed",
        "1",
        "2",
        also=(
            Effect(Key.rps_cpus("veth0", "rx-1"), None, "0"),
            Effect(Key.rps_flow_cnt("veth0", "rx-1"), None, "0"),
            Effect(Key.rps_cpus("veth0", "rx-1"), None, "0"),
        ),
    )
    assert out.also_text() == "rx-1 rps_cpus, rx-1 rps_flow_cnt"


def test_another_devices_setting_keeps_its_name_and_the_rest_is_counted() -> None:
    out = Outcome(
        Key.feature("eth0", "tx-checksumming"),
        "changed",
        "on",
        "off",
        also=tuple(
            Effect(Key.feature(dev, name), "on", "off")
            for dev, name in (("eth0", "tso"), ("eth1", "gso"), ("eth0", "a"), ("eth0", "b"))
        ),
    )
    assert out.also_text() == "tso, eth1 gso, a and 1 more"
