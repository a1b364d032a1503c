"""The shipped profiles: every value is a catalog entry's advice with its source and context."""

from __future__ import annotations

import pytest

from tuitune.core.catalog.sources import SOURCE_IDS
from tuitune.core.profiles import find, shipped


def test_the_five_profiles_of_the_issue_are_shipped() -> None:
    assert [p.name for p in shipped()] == [
        "lan-10g",
        "lan-40g",
        "wan-100g-dtn",
        "wan-10g",
        "low-latency",
    ]
    assert {p.name: p.context for p in shipped()}["wan-100g-dtn"] == "WAN"
    assert find("low-latency") is not None and find("nope") is None


@pytest.mark.parametrize("prof", shipped(), ids=lambda p: p.name)
def test_every_value_cites_a_report_and_its_context(prof: object) -> None:
    from tuitune.core.profiles import ShippedProfile

    assert isinstance(prof, ShippedProfile)
    for pick in prof.picks:
        assert pick.advice.source in SOURCE_IDS and pick.advice.source != "kernel-doc"
        assert pick.advice.context in ("LAN", "WAN")
        assert pick.value == pick.advice.value and pick.advice.finding
    # Every pick becomes a request the journal can resolve (the sweep's setting names).
    assert len(prof.to_profile().requests) == len(prof.picks)


def test_a_profile_takes_the_value_its_source_gave() -> None:
    esnet = find("wan-100g-dtn")
    assert esnet is not None
    values = {p.setting: (p.value, p.advice.source) for p in esnet.picks}
    assert values["net.core.rmem_max"] == ("67108864", "esnet-100g")
    assert values["txqueuelen"] == ("10000", "esnet-100g")


def test_the_cli_lists_and_shows(capsys: pytest.CaptureFixture[str]) -> None:
    from tuitune import cli

    assert cli.main(["profile", "list"]) == 0
    assert "wan-10g" in capsys.readouterr().out
    assert cli.main(["profile", "show", "lan-40g"]) == 0
    out = capsys.readouterr().out
    assert "net.ipv4.tcp_timestamps = 0   [nasa-40g, LAN]" in out
    assert cli.main(["profile", "show", "nope"]) == 2
