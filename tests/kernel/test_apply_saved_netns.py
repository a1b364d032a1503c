"""`apply` of a namespace's saved `show --json` (issue 31, item 12): the options may come
between the file and the interface, and applied without --netns the message names the
namespace the document was saved in."""

from __future__ import annotations

from pathlib import Path

import pytest

from tuitune.cli import main

from .conftest import VethNs

pytestmark = pytest.mark.kernel


def _saved(ns: VethNs, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    capsys.readouterr()
    assert main(["show", "--netns", ns.ns, ns.a, "--json"]) == 0
    doc = tmp_path / "saved.json"
    doc.write_text(capsys.readouterr().out)
    return doc


def test_options_between_file_and_interface(
    veth_ns: VethNs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _saved(veth_ns, tmp_path, capsys)
    journal = ["--journal-dir", str(tmp_path / "j")]
    rc = main(["apply", str(doc), "--dry-run", "--netns", veth_ns.ns, *journal, veth_ns.a])
    out, errs = capsys.readouterr()
    assert rc == 0, errs
    assert "nothing to change" in out
    # Two words left over is still a usage error, one line.
    with pytest.raises(SystemExit) as exc:
        main(["apply", str(doc), "--dry-run", "--netns", veth_ns.ns, veth_ns.a, "extra"])
    assert exc.value.code == 2
    assert f"unrecognized arguments: {veth_ns.a} extra" in capsys.readouterr().err


def test_without_netns_the_message_names_it(
    veth_ns: VethNs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _saved(veth_ns, tmp_path, capsys)
    rc = main(["apply", str(doc), "--dry-run", "--journal-dir", str(tmp_path / "j")])
    errs = capsys.readouterr().err
    assert rc == 2
    assert errs.count("\n") == 1, errs
    assert f"was saved in network namespace {veth_ns.ns}: add --netns {veth_ns.ns}" in errs
