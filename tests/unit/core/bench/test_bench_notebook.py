"""The notebook file (JSON Lines), its table (medians, spreads, deltas and changes against the
baseline), the Markdown/CSV exports and the side-by-side comparison."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tuitune.core.bench.iperf import parse_output
from tuitune.core.bench.model import BenchResult, BenchSpec, CpuLoad, Run
from tuitune.core.bench.notebook import Notebook, from_json, to_json
from tuitune.core.bench.runformat import compare, to_csv, to_markdown, to_text
from tuitune.core.bench.runtable import build_rows

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "iperf3"
SPEC = BenchSpec("198.18.0.2", duration=3)
BASE = {"tso": "on", "gso": "on", "sg": "on", "mtu": "1500", "net.core.rmem_max": "212992"}
OFF = BASE | {"tso": "off", "gso": "off", "sg": "off"}


def result(mbps: float, retr: int, cpu: float, complete: bool = True) -> BenchResult:
    return BenchResult(
        sent_bps=mbps * 1e6 + 1e6,
        received_bps=mbps * 1e6,
        retransmits=retr,
        local_cpu=cpu,
        remote_cpu=cpu / 2,
        complete=complete,
        error=None if complete else "the run failed after 1 s",
    )


def run(
    rid: str,
    group: str,
    res: BenchResult,
    settings: dict[str, str],
    load: CpuLoad | None = None,
    spec: BenchSpec = SPEC,
) -> Run:
    started = f"2026-11-20T10:00:0{rid[1:]}+00:00"
    return Run(rid, group, "veth-lab", started, spec, res, load or CpuLoad(), settings)


LOAD = CpuLoad(peak_sys={0: 40.0, 1: 97.5}, peak_soft={0: 55.0, 1: 3.0}, drops={0: 2, 1: 1})


def filled(tmp_path: Path) -> Notebook:
    nb = Notebook(tmp_path / "runs.jsonl")
    nb.add(run("r1", "r1", result(20000, 100, 50.0), BASE, LOAD))
    nb.add(run("r2", "r1", result(22000, 300, 60.0), BASE, LOAD))
    nb.add(run("r3", "r1", result(24000, 200, 70.0), BASE, LOAD))
    nb.add(run("r4", "r4", result(5000, 0, 90.0), OFF))
    nb.add(run("r5", "r4", result(7000, 50, 80.0), OFF))
    return nb


# -- JSON -----------------------------------------------------------------------------------------
def test_a_run_round_trips_through_json() -> None:
    parsed = parse_output(
        BenchSpec("10.254.77.2", direction="bidir"), (FIXTURES / "bidir-p1.txt").read_text()
    )
    r = run("r7", "r6", parsed, OFF, LOAD, BenchSpec("x", direction="bidir", client_cpu=1))
    assert from_json(to_json(r)) == r


def test_unknown_fields_are_ignored() -> None:
    doc = json.loads(to_json(run("r1", "r1", result(1000, 1, 1.0), BASE, LOAD)))
    doc["future"] = {"a": 1}
    doc["spec"]["pacing"] = "10G"
    doc["result"]["spin_bits"] = 0.1
    interval = {"start": 0, "end": 1, "bits_per_second": 5, "retransmits": 0, "role": "sender"}
    doc["result"]["intervals"] = [interval | {"omitted": False}]
    back = from_json(json.dumps(doc))
    assert back.result.intervals[0].bits_per_second == 5
    assert back.spec == SPEC and back.load == LOAD


# -- the file -------------------------------------------------------------------------------------
def test_add_appends_one_line_per_run(tmp_path: Path) -> None:
    nb = filled(tmp_path)
    lines = nb.path.read_text().splitlines()
    assert len(lines) == 5
    assert [json.loads(line)["id"] for line in lines] == ["r1", "r2", "r3", "r4", "r5"]
    assert [r.id for r in nb.runs()] == ["r1", "r2", "r3", "r4", "r5"]
    assert nb.next_id() == "r6"
    with pytest.raises(ValueError, match="already"):
        nb.add(run("r2", "r2", result(1, 1, 1.0), BASE))


def test_an_empty_notebook(tmp_path: Path) -> None:
    nb = Notebook(tmp_path / "none" / "runs.jsonl")
    assert (nb.runs(), nb.baseline(), nb.table(), nb.next_id()) == ([], None, [], "r1")


def test_bad_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    nb = filled(tmp_path)
    with nb.path.open("a") as f:
        f.write('{"type": "run", "id": "r9"}\n')  # no spec
        f.write('{"type": "run", "id": "r1')  # cut short by a crash
        f.write("\n[1, 2]\n")
        f.write('{"type": "comment", "text": "from a newer tuitune"}\n')
    assert len(nb.runs()) == 5
    assert nb.skipped == 3


def test_baseline_defaults_to_the_first_group_and_the_last_choice_wins(tmp_path: Path) -> None:
    nb = filled(tmp_path)
    assert nb.baseline() == "r1"
    nb.set_baseline("r5")  # any run of a group names the group
    assert nb.baseline() == "r4"
    nb.set_baseline("r1")
    nb.set_baseline("r4")
    assert Notebook(nb.path).baseline() == "r4"
    with pytest.raises(ValueError, match="no run r42"):
        nb.set_baseline("r42")
    records = [json.loads(line) for line in nb.path.read_text().splitlines()]
    assert [r["group"] for r in records if r["type"] == "baseline"] == ["r4", "r1", "r4"]


def test_default_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import socket

    host = socket.gethostname()
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert Notebook.default_path("eth2") == tmp_path / "tuitune" / "runs" / f"{host}-eth2.jsonl"
    lab = Notebook.default_path("veth-lab", netns="tuitune-lab-abc123")
    assert lab.name == f"{host}-tuitune-lab-abc123-veth-lab.jsonl"
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert Notebook.default_path("eth2").parent == tmp_path / "home/.local/state/tuitune/runs"
    assert Notebook.default_path("eth2", state_dir=tmp_path).parent == tmp_path


# -- the table ------------------------------------------------------------------------------------
def test_rows_median_spread_and_deltas(tmp_path: Path) -> None:
    base, off = filled(tmp_path).table()
    assert (base.group, base.ids, base.repeats, base.complete, base.baseline) == (
        "r1",
        ("r1", "r2", "r3"),
        3,
        3,
        True,
    )
    assert (base.throughput.median, base.throughput.low, base.throughput.high) == (
        22000e6,
        20000e6,
        24000e6,
    )
    assert (base.retransmits.median, base.cpu.median, base.remote_cpu.median) == (200, 60, 30)
    assert base.changed == () and base.changes == ""
    assert base.peak_sys == (1, 97.5) and base.peak_soft == (0, 55.0)
    assert base.drops == 9  # 3 per run, three runs
    assert off.throughput.median == 6000e6
    assert off.d_throughput == pytest.approx((6000 - 22000) / 22000 * 100)
    assert off.d_retransmits == 25 - 200
    assert off.d_cpu == pytest.approx((85 - 60) / 60 * 100)
    assert off.changes == "tso off, gso off, sg off"
    assert off.peak_sys is None and off.drops == 0


def test_another_baseline_moves_every_delta(tmp_path: Path) -> None:
    nb = filled(tmp_path)
    nb.set_baseline("r4")
    base, off = nb.table()
    assert off.baseline and not base.baseline
    assert base.changes == "tso on, gso on, sg on"
    assert base.d_throughput == pytest.approx((22000 - 6000) / 6000 * 100)


def test_failed_repeats_do_not_count_in_the_numbers(tmp_path: Path) -> None:
    runs = [
        run("r1", "r1", result(20000, 10, 50.0), BASE),
        run("r2", "r1", result(100, 10, 5.0, complete=False), BASE),
    ]
    (row,) = build_rows(runs, None)
    assert (row.repeats, row.complete, row.throughput.median) == (2, 1, 20000e6)
    assert row.error == "the run failed after 1 s"


def test_bidir_throughput_adds_both_directions() -> None:
    spec = BenchSpec("10.254.77.2", direction="bidir")
    res = parse_output(spec, (FIXTURES / "bidir-p1.txt").read_text())
    (row,) = build_rows([run("r1", "r1", res, BASE, spec=spec)], None)
    assert row.throughput.median == 10493e6 + 10268e6
    assert row.retransmits.median == 54139 + 56496
    assert row.spec == "10.254.77.2, 10 s, 1 stream, bidir"


# -- exports --------------------------------------------------------------------------------------
def test_markdown_has_the_shape_of_the_reference_tables(tmp_path: Path) -> None:
    md = to_markdown(filled(tmp_path).table()).splitlines()
    assert md[0] == (
        "| run | setting | value | throughput (Mb/s) | retransmits | CPU local % | "
        "peak sys / soft | drops | test |"
    )
    assert md[1] == "|---|---|---|---|---|---|---|---|---|"
    assert md[2] == (
        "| r1 | baseline |  | 22000 (20000..24000) | 200 (100..300) | 60.0 (50.0..70.0) | "
        "cpu1 98% / cpu0 55% | 9 | 198.18.0.2, 3 s, 1 stream x3 |"
    )
    assert md[3] == (
        "| r4 | tso, gso, sg | off | 6000 (5000..7000) -72.7% | 25 (0..50) -175 | "
        "85.0 (80.0..90.0) +41.7% | - / - | 0 | 198.18.0.2, 3 s, 1 stream x2 |"
    )


def test_csv_rows(tmp_path: Path) -> None:
    rows = list(csv.DictReader(io.StringIO(to_csv(filled(tmp_path).table()))))
    assert [r["run"] for r in rows] == ["r1", "r4"]
    off = rows[1]
    assert (off["setting"], off["value"], off["changes"]) == (
        "tso, gso, sg",
        "off",
        "tso off, gso off, sg off",
    )
    assert (off["throughput_mbps"], off["throughput_min_mbps"], off["throughput_delta_pct"]) == (
        "6000.0",
        "5000.0",
        "-72.7",
    )
    assert (off["retransmits"], off["retransmits_delta"], off["cpu_local_delta_pct"]) == (
        "25",
        "-175",
        "41.7",
    )
    assert (rows[0]["baseline"], off["baseline"], rows[0]["peak_sys_cpu"]) == ("yes", "", "1")
    assert off["runs"] == "r4 r5"


def test_text_table_is_aligned(tmp_path: Path) -> None:
    lines = to_text(filled(tmp_path).table()).splitlines()
    assert lines[0].startswith("run  setting")
    col = lines[0].index("throughput")
    assert lines[1][col:].startswith("22000") and lines[2][col:].startswith("6000")


def test_compare_side_by_side(tmp_path: Path) -> None:
    nb = filled(tmp_path)
    a, b = nb.find("r1"), nb.find("r4")
    assert a is not None and b is not None
    pairs = {name: (x, y) for name, x, y in compare(a, b)}
    assert pairs["run"] == ("r1", "r4")
    assert pairs["throughput Mb/s"] == ("20000", "5000")
    assert pairs["retransmits"] == ("100", "0")
    assert pairs["CPU local (iperf3)"] == ("50.0%", "90.0%")
    assert pairs["peak sys"] == ("cpu1 98%", "-")
    assert [n for n, _, _ in compare(a, b)][-3:] == ["tso", "gso", "sg"]
    assert pairs["tso"] == ("on", "off")
    assert "mtu" not in pairs  # the same in both


def test_runs_of_another_test_are_shown_but_not_compared() -> None:
    """Issue 20: a reverse run against a bidir baseline read "(same settings) +85 %"."""
    from tuitune.core.bench.model import BenchResult, BenchSpec, CpuLoad, Run
    from tuitune.core.bench.runformat import table_cells
    from tuitune.core.bench.runtable import build_rows

    def one(rid: str, spec: BenchSpec, gbps: float, settings: dict[str, str]) -> Run:
        result = BenchResult(gbps * 1e9, gbps * 1e9, 0, 10.0, 10.0)
        return Run(rid, rid, "eth0", "", spec, result, CpuLoad(), settings)

    base = BenchSpec("198.18.0.2", direction="bidir")
    runs = [
        one("r1", base, 10.0, {"tso": "on"}),
        one("r2", BenchSpec("198.18.0.2", direction="reverse"), 18.5, {"tso": "on"}),
        one("r3", BenchSpec("198.18.0.2", direction="bidir", client_cpu=2), 9.0, {"tso": "on"}),
        one("r4", base, 8.0, {"tso": "off"}),
    ]
    rows = {r.group: r for r in build_rows(runs, "r1")}
    assert rows["r2"].test_differs == "direction reverse, not bidir"
    assert rows["r2"].d_throughput is None and rows["r2"].d_cpu is None
    assert rows["r3"].test_differs == "client CPU 2, not none"
    cells = table_cells(rows["r2"])
    assert cells[1:3] == ["(test differs)", "direction reverse, not bidir"]
    assert "%" not in cells[3]
    # The same test with other settings still compares.
    assert rows["r4"].test_differs == "" and rows["r4"].d_throughput == -20.0
    assert table_cells(rows["r4"])[1:4] == ["tso", "off", "8000 -20.0%"]
