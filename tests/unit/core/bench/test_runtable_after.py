"""The runs table names the finding a run followed (tags the live screen writes), once: a
setting the finding's own words already name is not repeated after it."""

from __future__ import annotations

from tuitune.core.bench.model import BenchResult, BenchSpec, CpuLoad, Run
from tuitune.core.bench.runtable import build_rows


def _run(rid: str, settings: dict[str, str], tags: dict[str, str] | None = None) -> Run:
    result = BenchResult(4.6e9, 4.6e9, 3, 16.0, 12.7)
    spec = BenchSpec("198.18.0.2")
    return Run(rid, rid, "veth-lab", "", spec, result, CpuLoad(), settings, tags or {})


def test_after_a_finding_then_the_other_changes() -> None:
    before = _run("r1", {"net.ipv4.tcp_timestamps": "1", "tso": "on"})
    after = _run(
        "r2",
        {"net.ipv4.tcp_timestamps": "0", "tso": "off"},
        {"after": "timestamps-lan", "after_change": "net.ipv4.tcp_timestamps 0"},
    )
    plain = _run("r3", {"net.ipv4.tcp_timestamps": "0", "tso": "off"})
    rows = {r.group: r for r in build_rows([before, after, plain], "r1")}
    assert rows["r2"].changes == "after timestamps-lan: net.ipv4.tcp_timestamps 0; tso off"
    assert rows["r3"].changes == "tso off, net.ipv4.tcp_timestamps 0"
    assert rows["r1"].changes == ""
