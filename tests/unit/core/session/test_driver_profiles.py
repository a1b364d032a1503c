"""Private flags and FEC in saved states (issue 32): a TOML profile's [interface.priv_flags]
and `fec`, and a `show --json` document's platform.driver read back by `apply`: the state a
device is in, saved and applied to it after a change, gives back exactly what was there.
The device is the fake built from the i40e and E810 captures (test_driver_kinds.py)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.fakes.ethtool_driver_text import (
    I40E_PRIV_FLAGS,
    ICE_FEC,
    parse_fec,
    parse_priv_flags,
)
from tests.support.session_fakes import FakeDevice, build_host
from tuitune.core.host.platform import DriverPlatform, read_platform
from tuitune.core.host.root import HostRoot
from tuitune.core.jsondoc import show_document
from tuitune.core.session import HostAccess, Journal, Key
from tuitune.core.session.kinds.fec import Fec, FecShown
from tuitune.core.session.profile import ProfileError, parse_show_json, parse_toml, resolve
from tuitune.core.watch.hostreader import HostReader

DEV = "eno49"
FLAGS = parse_priv_flags(I40E_PRIV_FLAGS.read_text())
FEC = parse_fec(ICE_FEC.read_text())


def show_doc(tree: Path) -> dict[str, object]:
    """`show --json` of the recorded host with the captured driver state (a tree holds none:
    the ioctls answer only on a live host)."""
    root = HostRoot.fixture(tree)
    platform = read_platform(root, DEV)
    fec = f"active {FEC.active_names} (configured {FEC.configured_names})"
    kinds = {"fec": FecShown(fec, FEC.configured_names)}  # as the kind's live read gives it
    driver = DriverPlatform(None, platform.driver.params, FLAGS, kinds=kinds)
    with HostReader(root) as reader:
        doc = show_document(reader.snapshot(DEV), None, platform=replace(platform, driver=driver))
    loaded: dict[str, object] = json.loads(json.dumps(doc))
    return loaded


def test_show_json_round_trip_restores_flags_and_fec(tmp_path: Path) -> None:
    tree = build_host(tmp_path / "h")
    profile = parse_show_json(show_doc(tree))
    asked = {(r.kind, r.name): r.text for r in profile.requests if r.kind in ("priv_flag", "fec")}
    assert asked[("priv_flag", "disable-source-pruning")] == "on"
    assert asked[("fec", "")] == "auto rs baser"
    assert len(asked) == len(FLAGS) + 1
    # The device has drifted since: legacy-rx turned on, FEC fixed to RS.
    dev = FakeDevice(DEV, priv_flags_=FLAGS, fec_=FEC)
    dev.set_priv_flags({"legacy-rx": True})
    dev.set_fec(1 << 3)
    with HostAccess(HostRoot.fixture(tree), ethtool=lambda _n: dev) as access:
        pairs, errors = resolve(access, profile, profile.ifname)
        assert errors == []
        with Journal.open(access, tmp_path / "j") as j:
            changed = [o for k, t in pairs if (o := j.apply(k, t)).status == "changed"]
            assert {o.key for o in changed} == {Key.priv_flag(DEV, "legacy-rx"), Key.fec(DEV)}
            assert dev.priv_flags_ == FLAGS
            assert isinstance(dev.fec_, Fec) and dev.fec_.configured == FEC.configured
            j.detach()


def test_a_toml_profile_sets_flags_and_fec(tmp_path: Path) -> None:
    profile = parse_toml(
        {"interface": {"name": DEV, "fec": "RS", "priv_flags": {"legacy-rx": True}}}
    )
    dev = FakeDevice(DEV, priv_flags_=FLAGS, fec_=FEC)
    with HostAccess(HostRoot.fixture(build_host(tmp_path / "h")), ethtool=lambda _n: dev) as a:
        pairs, errors = resolve(a, profile, DEV)
        assert errors == [] and dict(pairs) == {
            Key.priv_flag(DEV, "legacy-rx"): "on",
            Key.fec(DEV): "RS",
        }
        assert a.validate(Key.fec(DEV), "RS") == "rs"


@pytest.mark.parametrize(
    ("driver", "said"),
    [
        ({"private_flags": ["legacy-rx"]}, "private_flags: expected an object"),
        ({"private_flags": {"legacy-rx": "yes"}}, "is not true or false"),
        ({"private_flags": {"../x": True}}, "is not a field name"),
        ({"fec_configured": "rs fire-code"}, "is not FEC modes"),
        ({"fec_configured": 3}, "is not FEC modes"),
    ],
)
def test_a_malformed_driver_section_is_one_line(
    tmp_path: Path, driver: dict[str, object], said: str
) -> None:
    doc = show_doc(build_host(tmp_path / "h"))
    platform = doc["platform"]
    assert isinstance(platform, dict)
    platform["driver"] = driver
    with pytest.raises(ProfileError, match=said) as err:
        parse_show_json(doc)
    assert "\n" not in str(err.value)


def test_a_refusal_or_none_in_the_document_asks_for_nothing(tmp_path: Path) -> None:
    doc = show_doc(build_host(tmp_path / "h"))
    platform = doc["platform"]
    assert isinstance(platform, dict)
    refused = {"unavailable": "missing", "reason": "not recorded"}
    platform["driver"] = {"private_flags": refused, "fec": refused, "fec_configured": "none"}
    kinds = {r.kind for r in parse_show_json(doc).requests}
    assert not kinds & {"priv_flag", "fec"}
