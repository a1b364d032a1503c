"""What a bisect goes between: the differing settings of two runs or of two profiles, by the
sweep's names, each with its good and bad value; what a sweep cannot set is named, not tried."""

from __future__ import annotations

import tomllib

from tuitune.core.session.profile import parse_toml
from tuitune.core.sweep.bisect_states import from_profiles, from_runs


def test_two_runs_give_their_differences_queues_included() -> None:
    good = {"tso": "on", "rx-0 rps_cpus": "none", "eth0-TxRx-0 affinity": "0", "mtu": "1500"}
    bad = {"tso": "off [requested on]", "rx-0 rps_cpus": "1", "eth0-TxRx-0 affinity": "3"}
    bad["mtu"] = "1500"
    states = from_runs(good, bad)
    assert states.names == ["tso", "rx-0 rps_cpus"]
    setting, was, now = states.values["rx-0 rps_cpus"]
    assert (setting.name, setting.kind, setting.field, was, now) == (
        "rps rx-0",
        "rps_cpus",
        "rx-0",
        "none",
        "1",
    )
    assert states.values["tso"][1:] == ("on", "off")
    assert states.not_tried == ["eth0-TxRx-0 affinity (not a setting a sweep sets)"]


def _profile(text: str) -> object:
    return parse_toml(tomllib.loads(text))


def test_two_profiles_give_what_differs_and_what_only_one_sets() -> None:
    good = _profile(
        '[sysctl]\n"net.ipv4.tcp_sack" = 1\n[interface]\nmtu = 1500\n'
        '[interface.features]\ntso = "on"\n[interface.rings]\nrx = 512\n'
    )
    bad = _profile(
        '[sysctl]\n"net.ipv4.tcp_sack" = 1\n[interface]\nmtu = 9000\n'
        '[interface.features]\ntso = "off"\n[interface.rps_cpus]\n"*" = [0, 1]\n'
        '[interface.irq_affinity]\n"eth0-TxRx-0" = 2\n'
    )
    states = from_profiles(good, bad)  # type: ignore[arg-type]
    assert states.names == ["mtu", "tso", "rings rx", "rps"]  # tcp_sack is the same in both
    assert states.values["mtu"][1:] == ("1500", "9000")
    assert states.values["rings rx"][1:] == ("512", None)  # bad: as this host has it
    assert states.values["rps"][1:] == (None, "0,1")
    assert states.not_tried == [
        "[interface.irq_affinity] eth0-TxRx-0 (a sweep does not set irq_affinity)"
    ]
