"""Parser of /proc/interrupts against the real captures in shared/fixtures/interrupts."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tuitune.core.host.interrupts import (
    Interrupts,
    IrqRow,
    parse_interrupts,
    parse_interrupts_selected,
)

# file -> (cpus, has_header). The CPU counts are the "cpus" column of SOURCES.md; the header
# flag follows its "complete?" column ("subset (`grep ...`, no header)", "PARTIAL ... no header",
# "snippet (3 rows)"; the egrep "CPU|..." subsets keep their header).
EXPECTED: dict[str, tuple[int, bool]] = {
    "e1000e-laptop_8cpu_x86_64_pcp.txt": (8, True),
    "ena_8cpu_aarch64_graviton.txt": (8, True),
    "ena_3eni_4cpu_ec2_x86_nvme_full.txt": (4, True),
    "ena_4cpu_c5xlarge_centos7_egrep_CPU_ens.txt": (4, True),
    "mlx5_azure_vf_8cpu_centos7_lkml.txt": (8, True),
    "mlx5_12cpu_ryzen_cx5_grep_mlx_kernel6x.txt": (12, False),
    "virtio_net_1q_4cpu_kvm_procfs.txt": (4, True),
    "virtio_net_4q_16cpu_egrep_subset.txt": (16, True),
    "ixgbe_32cpu_centos7_grep_eno49.txt": (32, False),
    "igb_32cpu_centos7_grep_TxRx_em1_em2.txt": (32, False),
    "igb-style_16cpu_nehalem_kernel2.6.38_snapA_before.txt": (16, True),
    "igb-style_16cpu_nehalem_kernel2.6.38_snapB_after_0.14s.txt": (16, True),
    "igb-style_16cpu_sandybridge-ep_rhel6_snapA_before.txt": (16, True),
    "igb-style_16cpu_sandybridge-ep_rhel6_snapB_after.txt": (16, True),
    "tg3_32cpu_broadwell-ep_kernel4.13_snapA_before.txt": (32, True),
    "tg3_32cpu_broadwell-ep_kernel4.13_snapB_after.txt": (32, True),
    **{f"netutils_series_multiqueue_4cpu_snap{i}.txt": (4, True) for i in range(1, 6)},
    **{f"netutils_series_singlequeue_8cpu_snap{i}.txt": (8, True) for i in range(1, 6)},
    "netutils_ixgbe-82599_igb-i350_32cpu.txt": (32, True),
    "netutils_qlcnic_tg3_48cpu.txt": (48, True),
    "netutils_mlx4_be2net_tg3_16cpu.txt": (16, True),
    "netutils_bnx2_mlx4_12cpu.txt": (12, True),
    "netutils_i40e-x710_e1000e_igb_4cpu.txt": (4, True),
    "netutils_virtio_net_1cpu_vscale-vm.txt": (1, True),
    "netutils_mlx5_4cpu_core2quad-Q6700.txt": (4, True),
    "netutils_ixgbe_12cpu_E5645.txt": (12, True),
    "netutils_igb_rx-tx-split_4cpu_E5606.txt": (4, True),
    "netutils_igb-i350_rx-tx-split_4cpu_i5-6400.txt": (4, True),
    "netutils_strange-cpu-layout_8cpu_TxRx.txt": (8, True),
    "hyperv_netvsc_2cpu_no_nic_irqs.txt": (2, True),
    "ice_16cpu_PARTIAL_excerpt_metal-stack136.txt": (16, False),
    "gve_2cpu_grep_snippet_gve-issue30.txt": (2, False),
}

SINGLE_TOTAL_ROWS = {"ERR", "MIS", "Err"}


def _read(fixtures_dir: Path, name: str) -> str:
    return (fixtures_dir / "interrupts" / name).read_text()


def _parse(fixtures_dir: Path, name: str) -> Interrupts:
    return parse_interrupts(_read(fixtures_dir, name))


def test_every_fixture_file_is_in_the_table(fixtures_dir: Path) -> None:
    on_disk = {p.name for p in (fixtures_dir / "interrupts").glob("*.txt")}
    assert on_disk == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_cpu_count_and_row_widths(fixtures_dir: Path, name: str) -> None:
    ncpus, has_header = EXPECTED[name]
    parsed = _parse(fixtures_dir, name)
    assert parsed.has_header is has_header
    assert parsed.cpus == tuple(range(ncpus))
    assert parsed.ncpus == ncpus
    assert parsed.rows, "no rows parsed"
    for row in parsed.rows:
        if row.irq in SINGLE_TOTAL_ROWS:
            assert len(row.counts) == 1, row
        else:
            assert len(row.counts) == ncpus, row
        assert row.irq and not any(c.isspace() for c in row.irq)
        assert row.name == row.name.strip()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_rows_match_the_text_lines(fixtures_dir: Path, name: str) -> None:
    # Every non-blank line except the header is a row, in order, with the label it starts with.
    text = _read(fixtures_dir, name)
    parsed = parse_interrupts(text)
    labels = [
        line.split(":", 1)[0].strip() for line in text.splitlines() if ":" in line and line.strip()
    ]
    assert [r.irq for r in parsed.rows] == labels


def test_e1000e_laptop_values(fixtures_dir: Path) -> None:
    rows = _parse(fixtures_dir, "e1000e-laptop_8cpu_x86_64_pcp.txt").by_irq()
    nic = rows["29"]
    assert nic == IrqRow(
        "29",
        (3249898, 727145, 103573, 204127, 93052, 157195, 78865, 122291),
        "IR-PCI-MSI",
        "409600-edge",
        "enp0s25",
    )
    assert nic.numeric and nic.total == sum(nic.counts)
    assert rows["16"].name == "ehci_hcd:usb3, mmc0"
    assert rows["0"].chip == "IR-IO-APIC" and rows["0"].hwirq == "2-edge"
    assert rows["9"].hwirq == "9-fasteoi"
    assert rows["LOC"].name == "Local timer interrupts"
    assert rows["LOC"].counts[7] == 5946670
    assert not rows["LOC"].numeric
    assert rows["LOC"].chip == "" and rows["LOC"].hwirq == ""
    assert rows["ERR"] == IrqRow("ERR", (0,))
    assert rows["PIW"].name == "Posted-interrupt wakeup event"


def test_old_format_err_row_and_empty_names(fixtures_dir: Path) -> None:
    rows = _parse(fixtures_dir, "igb-style_16cpu_nehalem_kernel2.6.38_snapA_before.txt").by_irq()
    assert rows["ERR"].counts == (15,)
    assert rows["MIS"].counts == (0,)
    assert rows["3"] == IrqRow("3", (1,) + (0,) * 15, "IO-APIC-edge", "", "")
    assert rows["18"].name == "ehci_hcd:usb1, uhci_hcd:usb7"
    assert rows["129"].chip == "PCI-MSI-edge"
    assert rows["129"].hwirq == ""
    assert rows["129"].name == "eth0-TxRx-0"
    assert rows["129"].counts[11] == 13553501
    assert rows["LOC"].counts[0] == 1415


def test_arm64_gic_its_ipi_err(fixtures_dir: Path) -> None:
    parsed = _parse(fixtures_dir, "ena_8cpu_aarch64_graviton.txt")
    rows = parsed.by_irq()
    timer = rows["10"]
    assert (timer.chip, timer.hwirq, timer.name) == ("GICv3", "27 Level", "arch_timer")
    assert timer.counts[5] == 3641875466
    assert (rows["50"].chip, rows["50"].hwirq, rows["50"].name) == (
        "ARMH0061:00",
        "3 Edge",
        "ACPI:Event",
    )
    assert (rows["58"].chip, rows["58"].hwirq, rows["58"].name) == (
        "ITS-MSI",
        "81921 Edge",
        "eth0-Tx-Rx-0",
    )
    assert rows["58"].counts[2] == 1195697946
    # "IPI0:2768808080 ..." has no space after the colon.
    assert rows["IPI0"].counts[0] == 2768808080
    assert rows["IPI0"].name == "Rescheduling interrupts"
    assert rows["IPI3"].name == "CPU stop (for crash dump) interrupts"
    assert rows["Err"].counts == (0,)
    assert [r.irq for r in parsed.rows][-8:] == [f"IPI{i}" for i in range(7)] + ["Err"]


def test_new_per_device_msix_chip_without_header(fixtures_dir: Path) -> None:
    rows = _parse(fixtures_dir, "mlx5_12cpu_ryzen_cx5_grep_mlx_kernel6x.txt").by_irq()
    r = rows["117"]
    assert (r.chip, r.hwirq, r.name) == (
        "IR-PCI-MSIX-0000:01:00.0",
        "10-edge",
        "mlx5_comp9@pci:0000:01:00.0",
    )
    assert r.counts == (0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 651437)


def test_rows_without_leading_space_and_empty_name(fixtures_dir: Path) -> None:
    rows = _parse(fixtures_dir, "mlx5_azure_vf_8cpu_centos7_lkml.txt").by_irq()
    assert rows["12"].counts == (0, 0, 0, 0, 0, 0, 0, 5)
    assert rows["12"].name == "i8042"
    assert rows["47"].name == "mlx5_comp7@pci:83a4:00:02.0"
    assert rows["3"].name == ""
    assert rows["3"].chip == "IO-APIC-edge"
    assert rows["CAL"].counts[-1] == 2557


def test_names_with_spaces(fixtures_dir: Path) -> None:
    rows = _parse(fixtures_dir, "tg3_32cpu_broadwell-ep_kernel4.13_snapA_before.txt").by_irq()
    assert rows["110"].name == "ib_qib0 (buf avail)"
    assert rows["110"].hwirq == "2621441-edge"
    assert rows["25"].name == "PCIe PME"
    assert rows["121"].chip == "IR-PCI-MSI"
    assert rows["121"].hwirq == "1048576-edge"
    assert rows["121"].name == "eth0-tx-0"


def test_blank_line_inside_and_trailing_header_spaces(fixtures_dir: Path) -> None:
    rows = _parse(fixtures_dir, "virtio_net_1q_4cpu_kvm_procfs.txt").by_irq()
    assert rows["PIN"].name == "Posted-interrupt notification event"
    assert rows["36"].counts == (0, 335, 37, 0)
    assert (rows["36"].chip, rows["36"].hwirq) == ("PCI-MSI", "16385-edge")
    rows = _parse(fixtures_dir, "ena_3eni_4cpu_ec2_x86_nvme_full.txt").by_irq()
    assert rows["28"].counts == (1482671, 0, 0, 35400719)
    assert rows["27"].name == "ena-mgmnt@pci:0000:00:05.0"


def test_partial_paste_keeps_the_cut_row(fixtures_dir: Path) -> None:
    parsed = _parse(fixtures_dir, "ice_16cpu_PARTIAL_excerpt_metal-stack136.txt")
    last = parsed.rows[-1]
    assert last.irq == "81"
    assert last.counts[3] == 954 and len(last.counts) == 16
    assert (last.chip, last.hwirq, last.name) == ("", "", "")
    assert parsed.by_irq()["66"].name == "ice-0000:65:00.0:ctrl-TxRx-0"


def test_grep_snippet_two_cpus(fixtures_dir: Path) -> None:
    rows = _parse(fixtures_dir, "gve_2cpu_grep_snippet_gve-issue30.txt").by_irq()
    assert rows["25"].counts == (71, 1)
    assert rows["26"].name == "gve-mgmnt@pci:0000:00:04.0"


@pytest.mark.parametrize(
    "series", ["netutils_series_multiqueue_4cpu_snap", "netutils_series_singlequeue_8cpu_snap"]
)
def test_consecutive_snapshots_only_grow(fixtures_dir: Path, series: str) -> None:
    snaps = [_parse(fixtures_dir, f"{series}{i}.txt").by_irq() for i in range(1, 6)]
    for before, after in itertools.pairwise(snaps):
        assert before.keys() == after.keys()
        for irq, row in before.items():
            assert all(b <= a for b, a in zip(row.counts, after[irq].counts, strict=True))
    assert snaps[1]["LOC"].counts[0] - snaps[0]["LOC"].counts[0] > 0


def test_offline_cpu_gap_and_hotplug() -> None:
    before = parse_interrupts(
        "           CPU0       CPU1       CPU2       CPU3\n"
        "  1:          1          2          3          4   IO-APIC   1-edge      i8042\n"
    )
    after = parse_interrupts(
        "           CPU0       CPU2       CPU3\n"
        "  1:          1          3          4   IO-APIC   1-edge      i8042\n"
    )
    assert before.cpus == (0, 1, 2, 3)
    assert after.cpus == (0, 2, 3)
    assert after.rows[0].counts == (1, 3, 4)
    assert after.rows[0].name == "i8042"


def test_header_bounds_the_columns_even_if_a_name_starts_with_digits() -> None:
    parsed = parse_interrupts(
        "  CPU0 CPU1\n"
        " 5:  7  8  XICS 27  0000:00:1f.2\n"
        " 6:  1  2  PCI-MSI-edge  1394 ohci\n"
        "ERR:  3\n"
    )
    rows = parsed.by_irq()
    assert rows["5"] == IrqRow("5", (7, 8), "XICS", "27", "0000:00:1f.2")
    # Old format: the handler is glued to the chip, so "1394" starts the name, not a hwirq.
    assert rows["6"] == IrqRow("6", (1, 2), "PCI-MSI-edge", "", "1394 ohci")
    assert rows["ERR"].counts == (3,)


def test_headerless_inference_ignores_digits_after_the_chip() -> None:
    # "GICv3 27 Level": 27 is the hwirq, not a ninth CPU; integer-only rows do not count either.
    parsed = parse_interrupts(
        " 10:  1 2 3 4   GICv3  27 Level     arch_timer\nErr:          0\n 11:  5 6 7\n"
    )
    assert parsed.cpus == (0, 1, 2, 3)
    assert not parsed.has_header
    rows = parsed.by_irq()
    assert rows["10"].counts == (1, 2, 3, 4)
    assert rows["10"].hwirq == "27 Level"
    assert rows["11"].counts == (5, 6, 7)
    assert rows["Err"].counts == (0,)


def test_headerless_integer_only_rows_do_not_widen() -> None:
    # Only rows with text after their integers decide; the extra integer goes to the tail.
    parsed = parse_interrupts(" 1: 1 2 PCI-MSI 5-edge x\n 2: 3 4 5\n")
    assert parsed.cpus == (0, 1)
    assert parsed.rows[1] == IrqRow("2", (3, 4), "5")


def test_headerless_integer_only_rows_fall_back_to_widest() -> None:
    parsed = parse_interrupts(" 1: 5 6 7\n 2: 1 2\n")
    assert parsed.cpus == (0, 1, 2)
    assert [r.counts for r in parsed.rows] == [(5, 6, 7), (1, 2)]


def test_s390_style_rows() -> None:
    parsed = parse_interrupts(
        "           CPU0       CPU1       \n"
        "EXT:      21440      21046 \n"
        "I/O:        567        549 \n"
        " CLK:       4320       4156   [EXT] Clock Comparator\n"
        "  0:        235        152     CPU-Irq      EXT\n"
    )
    rows = parsed.by_irq()
    assert rows["I/O"] == IrqRow("I/O", (567, 549))
    assert rows["CLK"].name == "[EXT] Clock Comparator"
    assert rows["0"] == IrqRow("0", (235, 152), "CPU-Irq", "", "EXT")


def test_crlf_and_tabs() -> None:
    parsed = parse_interrupts("\tCPU0\tCPU1\r\n 30:\t4\t5\tPCI-MSI 1-edge\teth0-TxRx-0\r\n")
    assert parsed.cpus == (0, 1)
    assert parsed.rows == (IrqRow("30", (4, 5), "PCI-MSI", "1-edge", "eth0-TxRx-0"),)


def test_empty_and_garbage() -> None:
    assert parse_interrupts("") == Interrupts((), (), False)
    assert parse_interrupts("hello world\nfoo: bar\n").rows == ()
    huge = parse_interrupts("  CPU0\n 1: " + "9" * 5000 + " chip name\n")
    assert huge.rows == ()
    huge2 = parse_interrupts(" 1: " + "9" * 5000 + "\n 2: 4 chip n\n")
    assert huge2.by_irq()["2"].counts == (4,)


def test_selected_rows_equal_full_parse(fixtures_dir: Path) -> None:
    text = _read(fixtures_dir, "netutils_ixgbe-82599_igb-i350_32cpu.txt")
    full = parse_interrupts(text).by_irq()
    picked = parse_interrupts_selected(text, {"92", "LOC", "ERR", "nope"})
    assert [r.irq for r in picked.rows] == ["92", "LOC", "ERR"]
    assert picked.cpus == tuple(range(32))
    for row in picked.rows:
        assert row == full[row.irq]
    by_pred = parse_interrupts_selected(text, lambda label: label.isdigit() and int(label) > 238)
    assert [r.irq for r in by_pred.rows] == ["239", "240"]
    assert by_pred.rows[1].name == "eth3"


def test_selected_headerless_infers_cpus_from_all_rows(fixtures_dir: Path) -> None:
    text = _read(fixtures_dir, "gve_2cpu_grep_snippet_gve-issue30.txt")
    picked = parse_interrupts_selected(text, {"26"})
    assert picked.cpus == (0, 1)
    assert [r.irq for r in picked.rows] == ["26"]


def test_live_proc_interrupts() -> None:
    path = Path("/proc/interrupts")
    if not path.exists():
        pytest.skip("no /proc/interrupts")
    parsed = parse_interrupts(path.read_text())
    assert parsed.has_header
    # The header lists the online CPUs, as do the cpuN lines of /proc/stat.
    stat_cpus = [
        int(line.split()[0][3:])
        for line in Path("/proc/stat").read_text().splitlines()
        if line.startswith("cpu") and line[3:4].isdigit()
    ]
    assert list(parsed.cpus) == stat_cpus
    assert any(r.numeric for r in parsed.rows)
    for row in parsed.rows:
        assert len(row.counts) in (1, parsed.ncpus)


# --- never raise ---------------------------------------------------------------------------

_FIXTURE_NAMES = sorted(EXPECTED)
_ALPHABET = st.sampled_from([*" \t\n\r:0123456789-,.@CPUINMLOCErrabcdefxyz_()", "\u00b2"])


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=_ALPHABET, max_size=400) | st.text(max_size=200))
def test_never_raises_on_garbage(text: str) -> None:
    parsed = parse_interrupts(text)
    _check_invariants(parsed)
    _check_invariants(parse_interrupts_selected(text, lambda _label: True))


@settings(max_examples=200)
@given(
    name=st.sampled_from(_FIXTURE_NAMES),
    drop=st.sets(st.integers(min_value=0, max_value=200), max_size=30),
    cut=st.integers(min_value=0, max_value=100_000),
    noise=st.text(max_size=20),
)
def test_never_raises_on_mangled_fixtures(
    fixtures_dir: Path, name: str, drop: set[int], cut: int, noise: str
) -> None:
    lines = _read(fixtures_dir, name).split("\n")
    joined = "\n".join(line for i, line in enumerate(lines) if i not in drop)
    end = cut % (len(joined) + 1)
    parsed = parse_interrupts(joined[:end] + noise)
    _check_invariants(parsed)
    if EXPECTED[name][1] and 0 not in drop and end > len(lines[0]):
        # The whole header line survived: the CPU count cannot change whatever else is cut.
        assert parsed.ncpus == EXPECTED[name][0]
        assert parsed.has_header


def _check_invariants(parsed: Interrupts) -> None:
    assert isinstance(parsed, Interrupts)
    for row in parsed.rows:
        assert row.irq and not any(c.isspace() for c in row.irq)
        assert 1 <= len(row.counts) <= parsed.ncpus
        assert isinstance(row.chip, str) and isinstance(row.hwirq, str)
    parsed.by_irq()


def test_parsed_counts_are_packed_and_equal_to_the_tuples_of_their_numbers() -> None:
    """Issue 38: the parser keeps counts 4 bytes each (8 past 32 bits, a tuple past 64), and
    they are what a tuple of the same numbers is: equal, and hashed alike inside a row."""
    text = (
        "       CPU0       CPU1\n"
        " 38:  4294967295          7  PCI-MSI 1-edge  eth0\n"
        " 39:  4294967296          7  PCI-MSI 2-edge  eth1\n"
        "ERR:  " + "9" * 30 + "\n"
    )
    small, wide, huge = parse_interrupts(text).rows
    assert (small.counts.itemsize, wide.counts.itemsize) == (4, 8)
    assert huge.counts == (int("9" * 30),) and isinstance(huge.counts, tuple)
    assert small.counts == (4294967295, 7)
    assert small.counts in {(4294967295, 7)}  # hashed as the tuple, then the tuple's == asked
    assert small.counts != (4294967295, 8) and small.counts != (4294967295,)
    assert small == IrqRow("38", (4294967295, 7), "PCI-MSI", "1-edge", "eth0")
    assert hash(small) == hash(IrqRow("38", (4294967295, 7), "PCI-MSI", "1-edge", "eth0"))
    assert small.total == 4294967302 and wide.counts[0] == 4294967296


def test_a_parsed_row_is_written_to_json_with_its_counts_as_numbers() -> None:
    """`show --json`'s walker (jsonable) gives the parser's packed counts as a list."""
    import json

    from tuitune.core.jsondoc import jsonable

    row = parse_interrupts("       CPU0       CPU1\n 38:  5  7  PCI-MSI 1-edge  eth0\n").rows[0]
    assert json.loads(json.dumps(jsonable(row)))["counts"] == [5, 7]
