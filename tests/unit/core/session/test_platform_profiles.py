"""CPU power and module parameters in saved states (issue 32 item 1): `show --json` of a host
read back by `apply` gives back its governor, EPP, boost, C-states and writable module
parameters after they drifted; a TOML profile's [cpu] and [module_params.M]; a host without
cpufreq refuses as a state and nothing is written. The host: the 4-CPU session tree with
intel/pepc's recorded Cascade Lake CPU power (clx2s0) and an igb-style writable parameter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.platform_trees import TREE_OWNS, attach_nic, pepc_tree, vm_tree
from tests.support.session_fakes import build_host
from tuitune.core.host.platform import read_platform
from tuitune.core.host.root import HostRoot
from tuitune.core.jsondoc import show_document
from tuitune.core.session import HostAccess, Journal, Key
from tuitune.core.session.profile import ProfileError, parse_show_json, parse_toml, resolve
from tuitune.core.watch.hostreader import HostReader

DEV = "eno49"
CPU = "sys/devices/system/cpu"
ITR = "sys/module/igb/parameters/InterruptThrottleRate"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    t = build_host(tmp_path / "h")
    pepc_tree(t, "clx2s0", keep=TREE_OWNS)
    attach_nic(t, DEV, "devices/pci0000:00/0000:02:00.0", module="igb")
    params = t / "sys/module/igb/parameters"
    params.mkdir(parents=True)
    (params / "InterruptThrottleRate").write_text("8000\n")
    (params / "InterruptThrottleRate").chmod(0o644)
    (params / "RSS").write_text("0\n")
    (params / "RSS").chmod(0o444)  # read-only at run time: not asked for
    return t


def show_doc(tree: Path) -> dict[str, object]:
    root = HostRoot.fixture(tree)
    with HostReader(root) as reader:
        doc = show_document(reader.snapshot(DEV), None, platform=read_platform(root, DEV))
    loaded: dict[str, object] = json.loads(json.dumps(doc))
    return loaded


def put(tree: Path, rel: str, value: str) -> None:
    (tree / rel).write_text(value + "\n")


def get(tree: Path, rel: str) -> str:
    return (tree / rel).read_text().strip()


def apply(tree: Path, tmp_path: Path, profile_doc: object, toml: bool = False) -> list[str]:
    profile = parse_toml(profile_doc) if toml else parse_show_json(profile_doc)  # type: ignore[arg-type]
    with HostAccess(HostRoot.fixture(tree), call=lambda f, *a: f(*a)) as access:
        pairs, errors = resolve(access, profile, DEV)
        assert errors == []
        with Journal.open(access, tmp_path / "j") as j:
            outs = j.apply_all(pairs)
            j.detach()
    return [o.describe() for o in outs if o.status != "skipped"]


def test_show_json_round_trip_gives_back_cpu_power_and_parameters(
    tree: Path, tmp_path: Path
) -> None:
    doc = show_doc(tree)
    asked = {(r.kind, r.name) for r in parse_show_json(doc).requests}
    assert ("cpu_governor", "0-7") in asked and ("cstate_disable", "0-7|C6") in asked
    assert ("module_param", "igb/InterruptThrottleRate") in asked
    assert ("module_param", "igb/RSS") not in asked and ("cpu_boost", "") in asked
    # Drift: a governor, an EPP, C6 on one CPU (of the 4 this host has), turbo, the parameter.
    put(tree, f"{CPU}/cpufreq/policy2/scaling_governor", "performance")
    put(tree, f"{CPU}/cpufreq/policy5/energy_performance_preference", "power")
    put(tree, f"{CPU}/cpu2/cpuidle/state3/disable", "1")
    put(tree, f"{CPU}/intel_pstate/no_turbo", "1")
    put(tree, ITR, "3")
    said = apply(tree, tmp_path, doc)
    assert len(said) == 5, said
    assert get(tree, f"{CPU}/cpufreq/policy2/scaling_governor") == "powersave"
    assert get(tree, f"{CPU}/cpufreq/policy5/energy_performance_preference") == (
        "balance_performance"
    )
    assert get(tree, f"{CPU}/cpu2/cpuidle/state3/disable") == "0"
    assert get(tree, f"{CPU}/intel_pstate/no_turbo") == "0"
    assert get(tree, ITR) == "8000"
    assert apply(tree, tmp_path, doc) == []  # once more: nothing to do


def test_a_toml_profile_sets_cpu_power_and_a_parameter(tree: Path, tmp_path: Path) -> None:
    said = apply(
        tree,
        tmp_path,
        {
            "cpu": {"cpus": "0-1", "governor": "performance", "cstates": {"C6": "off"}},
            "module_params": {"igb": {"InterruptThrottleRate": 3}},
        },
        toml=True,
    )
    assert "module igb parameter InterruptThrottleRate: 8000 -> 3" in said
    assert get(tree, f"{CPU}/cpufreq/policy1/scaling_governor") == "performance"
    assert get(tree, f"{CPU}/cpufreq/policy2/scaling_governor") == "powersave"
    assert [get(tree, f"{CPU}/cpu{n}/cpuidle/state3/disable") for n in (0, 1, 2)] == [
        "1",
        "1",
        "0",
    ]


def test_no_cpufreq_is_a_refusal_and_nothing_is_written(tmp_path: Path) -> None:
    t = vm_tree(tmp_path / "vm")
    before = {p: p.read_bytes() for p in (t / CPU).rglob("*") if p.is_file()}
    profile = parse_toml({"cpu": {"governor": "performance"}})
    with HostAccess(HostRoot.fixture(t), call=lambda f, *a: f(*a)) as access:
        pairs, errors = resolve(access, profile, None)
        assert errors == [] and [k for k, _ in pairs] == [Key.cpu_governor(0)]
        outs = Journal.open(access, tmp_path / "j").apply_all(pairs)
    assert [o.status for o in outs] == ["refused"]
    assert "no cpufreq here" in outs[0].describe()
    assert {p: p.read_bytes() for p in before} == before


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"cpu": {"governor": "Performance!"}}, "is not a governor's or EPP's name"),
        ({"cpu": {"cpus": "0-x"}}, r"\[cpu\] cpus: '0-x'"),
        ({"cpu": {"cstates": {"C6": "maybe"}}}, 'is not "on" or "off"'),
        ({"cpu": {"cstates": {"../x": "off"}}}, "is not a C-state's name"),
        ({"cpu": {"boost": 1}}, "is not on or off"),  # 1 == True to a dict
        ({"cpu": {"cstates": {"C6": 0}}}, 'is not "on" or "off"'),
        ({"cpu": {"turbo": "on"}}, "unknown"),
        ({"module_params": {"igb": {"x y": 1}}}, "is not a parameter's name"),
        ({"module_params": {"../e": {"p": 1}}}, "is not a module's name"),
        ({"module_params": {"igb": {"p": "a\nb"}}}, "is not a parameter's value"),
    ],
)
def test_a_malformed_platform_table_is_one_line(data: dict[str, object], said: str) -> None:
    with pytest.raises(ProfileError, match=said) as err:
        parse_toml(data)
    assert "\n" not in str(err.value)


def test_a_malformed_show_platform_is_one_line(tree: Path) -> None:
    doc = show_doc(tree)
    platform = doc["platform"]
    assert isinstance(platform, dict)
    platform["cpu_power"]["frequency"][0]["governor"] = "a b"
    with pytest.raises(ProfileError, match="is not a governor's or EPP's name") as err:
        parse_show_json(doc)
    assert "\n" not in str(err.value)
