"""The Host view (H) on a recorded host: the pegged 2xE5-2640 tree with the CPU power of
intel/pepc's recorded Cascade Lake (clx2s0: intel_pstate powersave, C6 enabled) and config
space built from the PCIe layout (tests/fixtures/platform/SOURCES.md). At 80x24 on the Linux
console it opens, names the worst finding, lists the rows in ESnet's order, Enter opens the
row's catalog help (CPU power here), and the NIC panel's title names the worst finding."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input, OptionList

from tests.support.fixture_hosts import host_32cpu
from tests.support.platform_trees import TREE_OWNS, pcie_config, pepc_tree
from tests.support.screen_text import screen_text, until
from tuitune.tui.app import TuituneApp
from tuitune.tui.screens.dialogs import EditorScreen, TextScreen
from tuitune.tui.screens.host import HostScreen


def console_app(
    tmp_path: Path, *, editable: bool = False, platform: bool = True, netns: str | None = None
) -> TuituneApp:
    """The app on the Linux console; `platform`: with pepc's CPU power and the NIC's config
    space in the tree (without: the recorded host as it is); `netns`: the tree stands for
    that network namespace and the host it lives on (as ReplayReader's `netns`)."""
    reader, ifname = host_32cpu(tmp_path, samples=5)
    if netns is not None:
        reader.root = replace(reader.root, netns=netns)
    tree = tmp_path / "host_32cpu"
    if platform:
        pepc_tree(tree, "clx2s0", keep=TREE_OWNS)
        cfg = pcie_config(mps=128, mps_supported=512, mrrs=512, msix_table=16)
        (tree / "sys/devices/pci0000:00/0000:02:00.0/config").write_bytes(cfg)
    return TuituneApp(
        reader,
        ifname,
        interval=0.05,
        env={"TERM": "linux", "LANG": "C"},
        limit=6,
        show_cost=False,
        save_settings=False,
        journal_dir=tmp_path / "journal",
        editable=editable,
    )


@asynccontextmanager
async def host_view(app: TuituneApp) -> AsyncIterator[tuple[Pilot[int], HostScreen]]:
    """The app at 80x24 with its first sample drawn and H pressed: the Host view open."""
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.nic is not None and app.samples_drawn >= 1)
        await pilot.press("H")
        # Its list composed, not only the screen pushed: under load the test once queried the
        # OptionList in between (NoMatches, seen at a load average of 13).
        await until(
            pilot,
            lambda: isinstance(app.screen, HostScreen) and bool(app.screen.query(OptionList)),
        )
        assert isinstance(app.screen, HostScreen)
        yield pilot, app.screen


def highlight(screen: HostScreen, label: str) -> None:
    """Put the Host view's highlight on the row labelled `label`."""
    options = screen.query_one(OptionList)
    ids = {r.label: oid for oid, r in screen._by_id.items()}
    options.highlighted = options.get_option_index(ids[label])


async def test_h_opens_the_host_view_at_80x24_on_the_console(tmp_path: Path) -> None:
    app = console_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.nic is not None and app.samples_drawn >= 1)
        await until(pilot, lambda: app.platform_note == "  host: risk cpu-governor (H)")
        await pilot.press("3")  # the NIC panel: its title names the worst finding
        await until(pilot, lambda: "NIC eth0  host: risk cpu-governor (H)" in screen_text(app))
        await pilot.press("H")
        await until(pilot, lambda: isinstance(app.screen, HostScreen))
        await until(pilot, lambda: "BIOS / platform" in screen_text(app))
        text = screen_text(app)
        assert "risk: the CPUs serving eth0 scale their clock down" in text
        assert "intel_pstate powersave" in text and "C6(92us)" in text
        assert isinstance(app.screen, HostScreen)
        values = {r.label: r.value for r in app.screen.rows}
        assert "MPS 128/512 MRRS 512" in values["PCIe 0000:02:00.0 NIC"]
        assert [r.section for r in app.screen.rows][-1] == "NIC"  # ESnet's order, NIC last
        assert all(ord(ch) < 128 for ch in text), "the Linux console gets ASCII only"
        assert all(len(line) <= 80 for line in text.splitlines())
        await pilot.press("enter")  # the first row: CPU frequency, whose help is cpu-power
        await until(pilot, lambda: isinstance(app.screen, TextScreen))
        assert isinstance(app.screen, TextScreen)
        body = str(app.screen.body)
        assert "CPU frequency scaling, power saving and hyperthreading" in body
        assert "What the reports found:" in body and "ESnet" in body
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, HostScreen))
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, HostScreen))


async def test_h_on_a_host_without_platform_files(tmp_path: Path) -> None:
    """The recorded host as it is (no cpufreq, no cpuidle, no config space): states, no
    traceback, nothing named in the NIC title."""
    app = console_app(tmp_path, platform=False)
    async with host_view(app) as (pilot, _):
        await until(pilot, lambda: "no cpufreq" in screen_text(app))
        assert "platform: nothing found" in screen_text(app)
        assert "host:" not in app.platform_note


def _with_igb_param(tree: Path) -> Path:
    """eth0's function bound to igb with one run-time writable parameter, as sysfs has it
    (the mode's owner write bit is what makes it writable)."""
    fn = tree / "sys/devices/pci0000:00/0000:02:00.0"
    drv = tree / "sys/bus/pci/drivers/igb"
    params = tree / "sys/module/igb/parameters"
    params.mkdir(parents=True, exist_ok=True)
    drv.mkdir(parents=True, exist_ok=True)
    (drv / "module").symlink_to("../../../../module/igb")
    if not (fn / "driver").exists():
        (fn / "driver").symlink_to("../../../bus/pci/drivers/igb")
    (params / "InterruptThrottleRate").write_text("8000\n")
    (params / "InterruptThrottleRate").chmod(0o644)
    return params / "InterruptThrottleRate"


async def test_e_changes_a_module_parameter_from_the_host_view(tmp_path: Path) -> None:
    """e on the module parameters row: one word is a one-line message in the editor and
    nothing is written; "NAME VALUE" goes through the journal and the view shows it."""
    app = console_app(tmp_path, editable=True)
    param = _with_igb_param(tmp_path / "host_32cpu")
    async with host_view(app) as (pilot, screen):
        highlight(screen, "igb params (*rw)")
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, EditorScreen))
        await pilot.press(*"InterruptThrottleRate", "enter")
        await until(pilot, lambda: "type two words" in screen_text(app))
        assert param.read_text() == "8000\n"
        app.screen.query_one(Input).value = "InterruptThrottleRate 3"
        await pilot.press("enter")
        await until(pilot, lambda: param.read_text() == "3\n")
        # The view comes back read again (the row is below the fold at 80x24).
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, HostScreen)
                and app.screen is not screen
                and any("InterruptThrottleRate=3*" in r.value for r in app.screen.rows)
            ),
        )


async def test_smt_off_from_the_host_view_names_the_cpus_and_goes_on_trial(
    tmp_path: Path,
) -> None:
    """e on the SMT row, "off": the CPUs it takes offline are named (siblings 4-7 of cores
    0-3 here) before anything is written; y writes it on trial; u puts it back."""
    app = console_app(tmp_path, editable=True)
    cpu = tmp_path / "host_32cpu/sys/devices/system/cpu"
    (cpu / "smt").mkdir(exist_ok=True)
    (cpu / "smt/control").write_text("on\n")
    for n in range(32):
        (cpu / f"cpu{n}/topology").mkdir(parents=True, exist_ok=True)
        sib = f"{n % 4},{n % 4 + 4}" if n < 8 else str(n)
        (cpu / f"cpu{n}/topology/thread_siblings_list").write_text(sib + "\n")
    async with host_view(app) as (pilot, screen):
        highlight(screen, "SMT")
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, EditorScreen))
        app.screen.query_one(Input).value = "off"
        await pilot.press("enter")
        await until(pilot, lambda: "SMT off takes CPUs 4-7 offline now" in screen_text(app))
        assert (cpu / "smt/control").read_text() == "on\n"  # nothing written before y
        await pilot.press("y")
        await until(pilot, lambda: (cpu / "smt/control").read_text() == "off\n")
        await until(pilot, lambda: app.editor.trial_deadline is not None)
        await pilot.press("u")
        await until(pilot, lambda: (cpu / "smt/control").read_text() == "on\n")


async def test_e_on_a_read_only_session_changes_nothing(tmp_path: Path) -> None:
    app = console_app(tmp_path)  # a recorded tree, not made editable: read-only
    param = _with_igb_param(tmp_path / "host_32cpu")
    async with host_view(app) as (pilot, screen):
        highlight(screen, "igb params (*rw)")
        await pilot.press("e")
        await until(pilot, lambda: "read-only here" in screen_text(app))
        assert isinstance(app.screen, HostScreen) and param.read_text() == "8000\n"


async def test_e_sets_a_governor_and_a_c_state_from_the_host_view(tmp_path: Path) -> None:
    """e on the CPU frequency row with a CPU list: those policies' governor (their EPP goes
    with it in the journal); e on the C-states row: C6 off on every CPU of the row, one
    step; u puts back the last step exactly."""
    app = console_app(tmp_path, editable=True)
    cpu = tmp_path / "host_32cpu/sys/devices/system/cpu"

    def gov(p: int) -> str:
        return (cpu / f"cpufreq/policy{p}/scaling_governor").read_text().strip()

    def c6(n: int) -> str:
        return (cpu / f"cpu{n}/cpuidle/state3/disable").read_text().strip()

    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.nic is not None and app.samples_drawn >= 1)
        await pilot.press("H")
        await until(pilot, lambda: isinstance(app.screen, HostScreen))
        screen = app.screen
        assert isinstance(screen, HostScreen)
        options = screen.query_one(OptionList)
        ids = {r.label: oid for oid, r in screen._by_id.items()}
        options.highlighted = options.get_option_index(ids["CPU frequency"])
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, EditorScreen))
        assert "now: governor powersave epp balance_performance (cpus 0-7)" in screen_text(app)
        app.screen.query_one(Input).value = "0-3 governor turbo"
        await pilot.press("enter")
        await until(pilot, lambda: "'turbo': choose performance, powersave" in screen_text(app))
        assert gov(0) == "powersave"  # refused before any write, the reason on the view
        assert isinstance(app.screen, HostScreen)
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, EditorScreen))
        app.screen.query_one(Input).value = "0-3 governor performance"
        await pilot.press("enter")
        await until(pilot, lambda: gov(3) == "performance")
        assert gov(4) == "powersave"
        await until(pilot, lambda: isinstance(app.screen, HostScreen) and app.screen is not screen)
        again = app.screen
        assert isinstance(again, HostScreen)
        assert "and 3 more changed" in again.notice
        options = again.query_one(OptionList)
        ids = {r.label: oid for oid, r in again._by_id.items()}
        options.highlighted = options.get_option_index(ids["C-states"])
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, EditorScreen))
        app.screen.query_one(Input).value = "C6 off"
        await pilot.press("enter")
        await until(pilot, lambda: all(c6(n) == "1" for n in range(8)))
        await until(pilot, lambda: isinstance(app.screen, HostScreen))
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, HostScreen))
        await pilot.press("u")
        await until(pilot, lambda: all(c6(n) == "0" for n in range(8)))
        assert gov(3) == "performance"  # one step back: the C-states only


async def test_the_advisor_view_judges_the_platform_the_host_view_read(tmp_path: Path) -> None:
    """A (the live Advisor) judges the platform read for the NIC panel's note: the recorded
    powersave governor and C6 are findings there, not only in `advise` and on H."""
    app = console_app(tmp_path)
    async with app.run_test(size=(200, 60)) as pilot:
        await until(pilot, lambda: app.platform_note == "  host: risk cpu-governor (H)")
        assert app.advisor.platform is not None and app.advisor.platform[0] == "eth0"
        await pilot.press("A")
        await until(
            pilot, lambda: "the CPUs serving eth0 scale their clock down" in screen_text(app)
        )
