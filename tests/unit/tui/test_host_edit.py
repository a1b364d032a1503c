"""What `e` on a Host view row changes (issue 32): FEC, a private flag, a module parameter;
every other row, or text of the wrong shape, is one line and nothing is written."""

from __future__ import annotations

import pytest

from tuitune.core.host.cpupower import IdleState
from tuitune.core.platformview import Row
from tuitune.core.session import Key
from tuitune.tui.host_edit import (
    HINTS,
    CpuContext,
    HostEdit,
    host_edit,
    parse_cpu_edit,
    parse_host_edit,
)

FEC = Row("firmware", "FEC", "active rs (configured auto rs)", None, False, "fec")
FLAGS = Row("driver", "private flags", "legacy-rx off", None, False, "priv_flag")
ITR = "InterruptThrottleRate"
PARAMS = Row(
    "driver",
    "igb params (*rw)",
    f"{ITR}=8000* debug=0 RSS=4*",
    None,
    False,
    "module_param",
    now=f"{ITR} 8000 RSS 4",
)
TWO = "type two words: "


def test_rows_say_how_they_are_edited() -> None:
    got = host_edit(FEC, "eth2", "igb")
    assert isinstance(got, HostEdit) and got.current == "auto rs"
    assert isinstance(host_edit(FLAGS, "eth2", "igb"), HostEdit)
    plain = Row("BIOS / platform", "IOMMU", "off", None)
    assert host_edit(plain, "eth2", "igb") == (
        "IOMMU: nothing to change here (e on CPU frequency, boost, C-states, SMT, FEC, "
        "private flags, module params)"
    )
    smt = Row("BIOS / platform", "SMT", "on, active", None, False, "smt")
    got_smt = host_edit(smt, None, None)
    assert isinstance(got_smt, HostEdit) and got_smt.current == "on"
    assert parse_host_edit("smt", None, None, "off") == (Key.smt(), "off")
    assert host_edit(PARAMS, "eth2", None) == "igb params (*rw): no module"
    none = Row("driver", "private flags", "the driver has no private flags", None, True)
    assert host_edit(none, "eth2", "igb") == (
        "private flags: cannot be changed here (the driver has no private flags)"
    )


@pytest.mark.parametrize(
    ("edit", "text", "want"),
    [
        ("fec", "RS", (Key.fec("eth2"), "RS")),
        ("priv_flag", "legacy-rx on", (Key.priv_flag("eth2", "legacy-rx"), "on")),
        (
            "module_param",
            " InterruptThrottleRate 3 ",
            (Key.module_param("igb", ITR), "3"),
        ),
        (
            "priv_flag",
            "legacy-rx",
            TWO + HINTS["priv_flag"],
        ),
        (
            "module_param",
            "a b c",
            TWO + HINTS["module_param"],
        ),
    ],
)
def test_typed_text_becomes_one_setting_or_one_line(
    edit: str, text: str, want: tuple[Key, str] | str
) -> None:
    assert parse_host_edit(edit, "eth2", "igb", text) == want


def test_the_module_parameter_editor_shows_what_is_in_force() -> None:
    """It said "now: -": now it names each writable parameter's value and starts from the
    first one, in the shape one types."""
    got = host_edit(PARAMS, "eth2", "igb")
    assert isinstance(got, HostEdit)
    assert (got.shown, got.current) == (f"{ITR} 8000 RSS 4", f"{ITR} 8000")


C6 = (IdleState(0, "POLL", "", 0, 0, False), IdleState(3, "C6", "", 92, 276, False))
CTX = CpuContext(
    policies=tuple((p, frozenset({p})) for p in range(8)),
    idle={c: C6 for c in range(8)},
    nic_cpus=frozenset({4, 5}),
    boost_file="no_turbo",
)
ALL = frozenset(range(8))


@pytest.mark.parametrize(
    ("edit", "text", "want"),
    [
        (
            "cpu_freq",
            "nic governor performance",
            [(Key.cpu_governor(4), "performance"), (Key.cpu_governor(5), "performance")],
        ),
        (
            "cpu_freq",
            "1 epp power governor powersave",  # the governor first: it may move the EPP
            [(Key.cpu_governor(1), "powersave"), (Key.cpu_epp(1), "power")],
        ),
        (
            "cstate",
            "6-7 C6 off",
            [(Key.cstate_disable(6, 3), "1"), (Key.cstate_disable(7, 3), "1")],
        ),
        ("cstate", "nic c6 on", [(Key.cstate_disable(4, 3), "0"), (Key.cstate_disable(5, 3), "0")]),
        ("cpu_boost", "off", [(Key.cpu_boost("no_turbo"), "off")]),
        ("cpu_freq", "governor", "type NAME VALUE pairs: " + HINTS["cpu_freq"]),
        ("cpu_freq", "freq 3", "'freq': say governor or epp"),
        ("cpu_freq", "12 governor performance", "no cpufreq policy covers CPUs 12"),
        ("cstate", "C7 off", "CPU 0 has no C-state 'C7'"),
        ("cstate", "C6 maybe", "C6: 'maybe' is not on or off"),
        ("cstate", "0-x C6 off", "'0-x': "),
    ],
)
def test_cpu_power_edits_name_their_keys_or_say_why_not(
    edit: str, text: str, want: list[tuple[Key, str]] | str
) -> None:
    got = parse_cpu_edit(edit, ALL, text, CTX)
    if isinstance(want, str):
        assert isinstance(got, str) and got.startswith(want) and "\n" not in got
    else:
        assert got == want


def test_cpu_power_refusals_without_the_host_parts() -> None:
    none = CpuContext()
    boost = parse_cpu_edit("cpu_boost", ALL, "on", none)
    assert isinstance(boost, str) and boost.startswith("no boost control here")
    assert parse_cpu_edit("cpu_freq", ALL, "nic governor performance", none) == (
        "the NIC's local CPUs are not known here: give a CPU list"
    )
    vm = Row("BIOS / platform", "CPU frequency", "no cpufreq here", "cpu-power", True)
    assert host_edit(vm, "eth0", None) == "CPU frequency: cannot be changed here (no cpufreq here)"


def test_a_kinds_own_row_that_cannot_be_edited_says_why() -> None:
    """FEC's row is its handler's (kinds/fec.py `host_rows`): where the driver reports no
    configuration the row has no edit, and `e` names the value rather than "nothing here"."""
    from types import SimpleNamespace

    from tuitune.core.session.kinds.fec import FecMode, FecShown

    platform = SimpleNamespace(
        driver=SimpleNamespace(kinds={"fec": FecShown("active none (configured none)", "none")})
    )
    (row,) = FecMode().host_rows("fec", platform)  # type: ignore[arg-type]
    assert row.edit is None and row.setting
    assert host_edit(row, "eth2", "igb") == (
        "FEC: cannot be changed here (active none (configured none))"
    )
