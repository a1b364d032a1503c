"""What `tuitune show` prints for queues, qdiscs and connections (text as the user sees it)."""

from __future__ import annotations

import io

from rich.console import Console, RenderableType

from tuitune.core.host.conns import Connection
from tuitune.core.host.qdisc import Qdisc
from tuitune.report.queues import connections_table, qdisc_text


def text(r: RenderableType, width: int = 100) -> str:
    out = io.StringIO()
    Console(file=out, width=width, color_system=None).print(r)
    return out.getvalue()


def test_an_mq_of_alike_children_is_one_line() -> None:
    fq = [Qdisc("fq", f"8001:{q:x}", f"1:{q:x}", {"maxrate": 10**9}) for q in range(1, 9)]
    line = text(qdisc_text((Qdisc("mq", "1:", "root"), *fq)))
    assert "mq root; 8 x fq (pacing): fq 8001:1 parent 1:1 maxrate 1.00 Gb/s" in line


def test_connections_show_wscale_off_and_escape_the_cc_name() -> None:
    ok = Connection("10.0.0.1", 1, "10.0.0.2", 5201, "cubic", 10, 0.05, 0, None, 8000, 1448,
                    True, True, (7, 7))  # fmt: skip
    off = Connection("10.0.0.1", 2, "10.0.0.2", 5201, "[bold]x\x1b", 10, 0.05, 3, None, 8000,
                     1448, True, True, None)  # fmt: skip
    out = text(connections_table((ok, off), "eth0"), width=140)
    rows = [line for line in out.splitlines() if "10.0.0.2:5201" in line]
    assert rows[0].split()[-1] == "7,7" and rows[1].split()[-1] == "off"
    assert "[bold]x\\x1b" in rows[1]  # shown as text, the escape escaped
