"""A profile's [processes] table: what it accepts, and a hostile name or value stopped at the
file with a one-line message."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from tuitune.core.session.profile import parse_toml
from tuitune.core.session.profile_model import ProfileError, Request


def test_processes_become_requests_and_need_no_interface() -> None:
    profile = parse_toml(
        tomllib.loads(
            '[processes]\nnuttcp = "node-local"\niperf3 = "irq:eth2-TxRx-0"\ndb = " 2-5 "\n'
        )
    )
    assert profile.requests == (
        Request("proc_affinity", "nuttcp", "node-local", "[processes] nuttcp"),
        Request("proc_affinity", "iperf3", "irq:eth2-TxRx-0", "[processes] iperf3"),
        Request("proc_affinity", "db", "2-5", "[processes] db"),
    )
    assert not profile.needs_interface


@pytest.mark.parametrize(
    ("toml", "says"),
    [
        ('[processes]\n"a\\nb" = "0"\n', "not a command name"),
        ('[processes]\n"../x" = "0"\n', "not a command name"),
        ("[processes]\nx = 3\n", "is not an affinity"),
        ('[processes]\nx = "0\\n1"\n', "is not an affinity"),
        ('[processes]\nx = ""\n', "is not an affinity"),
        ("processes = 3\n", "must be a table"),
        ("[process]\nx = 1\n", "expected sysctl, interface, processes"),
    ],
)
def test_a_bad_processes_table_is_one_line(toml: str, says: str) -> None:
    with pytest.raises(ProfileError) as exc:
        parse_toml(tomllib.loads(toml))
    assert says in str(exc.value) and "\n" not in str(exc.value)


def test_the_documented_processes_example_parses() -> None:
    text = (Path(__file__).resolve().parents[4] / "docs/profile.md").read_text()
    blocks = re.findall(r"```toml\n(.*?)```", text, re.S)
    (block,) = [b for b in blocks if b.startswith("[processes]")]
    got = {r.name: r.text for r in parse_toml(tomllib.loads(block)).requests}
    assert got == {"nuttcp": "node-local", "iperf3": "irq:eth2-TxRx-0", "mover": "nic-local"} | {
        "db": "2-5"
    }
