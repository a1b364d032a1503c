"""The far end's advise document as autotune candidates (core/autotune/far.py): a recorded
document from a real namespace (tests/fixtures/autotune/SOURCES), and what a hostile or
broken one gives instead: one line, never a traceback, nothing for another interface."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tuitune.core.autotune.far import FarAdviceError, far_candidates, far_end_candidates
from tuitune.core.autotune.host import AtPeer
from tuitune.core.autotune.search import Candidate
from tuitune.core.autotune.sources import host_wide
from tuitune.core.session import Key

DOC = Path(__file__).resolve().parents[2] / "fixtures" / "autotune" / "far-advise-veth.json"


def recorded() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(DOC.read_text())
    return doc


def test_the_recorded_far_ends_offload_fix_is_a_candidate_there() -> None:
    cands, skipped = far_candidates(recorded(), "i36cb", host_wide)
    assert [c.id for c in cands] == ["peer:offload-disabled"]
    assert (AtPeer(Key.feature("i36cb", "tx-scatter-gather")), "on") in cands[0].changes
    assert skipped == []


def test_a_change_to_another_interface_drops_the_finding_in_one_line() -> None:
    doc = recorded()
    doc["findings"][0]["change"][0]["key"][1] = "eth0"  # this machine's own NIC
    cands, skipped = far_candidates(doc, "i36cb", host_wide)
    assert cands == []
    assert skipped == ["peer:offload-disabled: eth0 is not the far end's interface"]


def test_a_host_wide_sysctl_is_not_the_far_ends_to_change() -> None:
    doc = recorded()
    change = {"key": ["sysctl", None, "net.core.rmem_max", None], "value": "67108864"}
    doc["findings"].append({"id": "buffers", "title": "t", "change": [change]})
    cands, skipped = far_candidates(doc, "i36cb", host_wide)
    assert [c.id for c in cands] == ["peer:offload-disabled"]
    assert skipped == ["peer:buffers: net.core.rmem_max is host-wide (one value for both ends)"]


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda d: d.update(schema="tuitune.report.show"), "not a `tuitune advise --json`"),
        (lambda d: d.update(version=2), "of version 2"),
        (lambda d: d.update(findings={}), "no list of findings"),
        (lambda d: d["findings"].append({"id": 7}), "a finding without an id"),
    ],
)
def test_a_broken_document_is_one_line(edit: Any, said: str) -> None:
    doc = copy.deepcopy(recorded())
    edit(doc)
    with pytest.raises(FarAdviceError, match=said.replace("`", ".").replace("(", ".")):
        far_candidates(doc, "i36cb", host_wide)


def test_a_bad_value_drops_the_finding() -> None:
    doc = recorded()
    doc["findings"][0]["change"][0]["value"] = "on\nmtu 9000"
    cands, skipped = far_candidates(doc, "i36cb", host_wide)
    assert cands == [] and skipped[0].startswith("peer:offload-disabled: ")


def test_what_an_earlier_candidate_sets_there_is_tried_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tuitune.core.autotune import far

    monkeypatch.setattr(far, "judge_far_end", lambda *_: recorded())
    key = AtPeer(Key.feature("i36cb", "tx-tcp-segmentation"))
    have: list[Candidate[Any]] = [Candidate("offload-disabled", "both ends", ((key, "on"),))]
    said: list[str] = []
    more, skipped = far_end_candidates("far", "i36cb", "any", have, said.append)
    assert more == [] and skipped == []


def test_a_far_end_that_cannot_be_judged_is_a_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from tuitune.core.autotune import far

    def fails(*_: object) -> object:
        raise FarAdviceError("the far end's advisor failed: no namespace")

    monkeypatch.setattr(far, "judge_far_end", fails)
    more, skipped = far_end_candidates("far", "i36cb", "any", [], lambda _: None)
    assert more == []
    assert skipped == ["the far end's findings: the far end's advisor failed: no namespace"]
