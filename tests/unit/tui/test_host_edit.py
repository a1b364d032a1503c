"""What `e` on a Host view row changes (issue 32): FEC, a private flag, a module parameter;
every other row, or text of the wrong shape, is one line and nothing is written."""

from __future__ import annotations

import pytest

from tuitune.core.platformview import Row
from tuitune.core.session import Key
from tuitune.tui.host_edit import HINTS, HostEdit, host_edit, parse_host_edit

FEC = Row("firmware", "FEC", "active rs (configured auto rs)", None, False, "fec")
FLAGS = Row("driver", "private flags", "legacy-rx off", None, False, "priv_flag")
ITR = "InterruptThrottleRate"
PARAMS = Row("driver", "igb params (*rw)", f"{ITR}=8000*", None, False, "module_param")
TWO = "type two words: "


def test_rows_say_how_they_are_edited() -> None:
    got = host_edit(FEC, "eth2", "igb")
    assert isinstance(got, HostEdit) and got.current == "auto rs"
    assert isinstance(host_edit(FLAGS, "eth2", "igb"), HostEdit)
    plain = Row("BIOS / platform", "IOMMU", "off", None)
    assert host_edit(plain, "eth2", "igb") == (
        "IOMMU: nothing to change here (e on SMT, FEC, private flags, module params)"
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
