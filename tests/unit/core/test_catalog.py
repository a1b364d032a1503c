"""The sysctl catalog, the device help and the sources: complete, consistent, parseable, and
written in tuitune's own words."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tuitune.core import catalog
from tuitune.core.catalog import (
    Advice,
    SysctlEntry,
    entry,
    format_value,
    noop_on,
    parse_value,
    path_of,
    removed_on,
    split_choices,
    version_tuple,
)
from tuitune.core.catalog.device import DEVICE_HELP, device_help
from tuitune.core.catalog.sources import SEED_SOURCES, SOURCE_IDS, SOURCES, source

SEEDS_DIR = Path(__file__).resolve().parents[4] / "shared" / "seeds"

REQUIRED_KEYS = (
    "net.ipv4.tcp_timestamps",
    "net.ipv4.tcp_sack",
    "net.ipv4.tcp_low_latency",
    "net.ipv4.tcp_window_scaling",
    "net.core.netdev_max_backlog",
    "net.core.rmem_default",
    "net.core.rmem_max",
    "net.core.wmem_default",
    "net.core.wmem_max",
    "net.core.optmem_max",
    "net.ipv4.tcp_rmem",
    "net.ipv4.tcp_wmem",
    "net.ipv4.tcp_mem",
    "net.ipv4.tcp_no_metrics_save",
    "net.ipv4.tcp_moderate_rcvbuf",
    "net.ipv4.tcp_tw_reuse",
    "net.ipv4.tcp_tw_recycle",
    "net.ipv4.route.flush",
    "net.ipv4.tcp_congestion_control",
    "net.ipv4.tcp_available_congestion_control",
    "net.core.default_qdisc",
    "net.core.netdev_budget",
    "net.core.netdev_budget_usecs",
    "net.core.busy_read",
    "net.core.busy_poll",
    "net.ipv4.tcp_mtu_probing",
    "net.ipv4.tcp_slow_start_after_idle",
    "net.ipv4.tcp_notsent_lowat",
    "net.core.somaxconn",
)

REQUIRED_DEVICE = (
    "tso",
    "gso",
    "gro",
    "lro",
    "rx-checksum",
    "tx-checksum",
    "sg",
    "ring",
    "rx-usecs",
    "adaptive-rx",
    "channels",
    "mtu",
    "txqueuelen",
    "irq-affinity",
    "cpu-affinity",
    "irqbalance",
    "pause",
)

# Facts checked on Linux 6.18 in a fresh network namespace (see tests/kernel for the live check).
EXPECTED_SCOPE = {
    "net.ipv4.tcp_timestamps": "netns",
    "net.ipv4.tcp_sack": "netns",
    "net.ipv4.tcp_window_scaling": "netns",
    "net.ipv4.tcp_rmem": "netns",
    "net.ipv4.tcp_wmem": "netns",
    "net.ipv4.tcp_congestion_control": "netns",
    "net.ipv4.tcp_mtu_probing": "netns",
    "net.ipv4.tcp_notsent_lowat": "netns",
    "net.core.somaxconn": "netns",
    "net.core.optmem_max": "netns",
    "net.ipv4.route.flush": "netns",
    "net.ipv4.tcp_mem": "host",
    "net.ipv4.tcp_low_latency": "host",
    "net.core.rmem_max": "host",
    "net.core.wmem_max": "host",
    "net.core.rmem_default": "host",
    "net.core.wmem_default": "host",
    "net.core.netdev_max_backlog": "host",
    "net.core.default_qdisc": "host",
    "net.core.busy_poll": "host",
}

ALL_ADVICE: list[tuple[str, Advice]] = [
    *((e.key, a) for e in catalog.SYSCTLS for a in e.sources),
    *((d.name, a) for d in DEVICE_HELP.values() for a in d.sources),
]


# --- completeness and shape ---


def test_every_required_key_present_exactly_once() -> None:
    keys = [e.key for e in catalog.SYSCTLS]
    for k in REQUIRED_KEYS:
        assert keys.count(k) == 1, k
    assert len(keys) == len(set(keys))


def test_lookup_and_clear_keyerror() -> None:
    assert entry("net.ipv4.tcp_rmem").kind == "int_triple"
    assert entry("net/ipv4/tcp_rmem").key == "net.ipv4.tcp_rmem"
    with pytest.raises(KeyError, match=r"not in tuitune's sysctl catalog.*tcp_rmem"):
        entry("net.ipv4.tcp_rmen")
    with pytest.raises(KeyError, match="not in tuitune's sysctl catalog"):
        entry("kernel.nonsense")
    assert catalog.keys() == tuple(e.key for e in catalog.SYSCTLS)


def test_path_of() -> None:
    assert path_of("net.ipv4.tcp_rmem") == "net/ipv4/tcp_rmem"
    assert path_of("net.ipv4.conf.all.arp_filter") == "net/ipv4/conf/all/arp_filter"
    assert entry("net.ipv4.route.flush").path == "net/ipv4/route/flush"
    for bad in ("", "net/ipv4", ".net", "net.", "net..x"):
        with pytest.raises(ValueError):
            path_of(bad)


@pytest.mark.parametrize("e", catalog.SYSCTLS, ids=lambda e: e.key)
def test_entry_shape(e: SysctlEntry) -> None:
    assert e.key.startswith("net.") and " " not in e.key
    assert 0 < len(e.summary) <= 70 and "\n" not in e.summary, e.summary
    assert e.help.strip() and len(e.help) > len(e.summary)
    assert e.sources, "needs at least one Advice"
    assert any(a.source in SOURCE_IDS for a in e.sources)
    if e.minimum is not None and e.maximum is not None:
        assert e.minimum <= e.maximum
    if e.kind == "choice":
        assert e.choices_key is not None
        assert entry(e.choices_key).writable is False
    else:
        assert e.choices_key is None
    if e.kind == "int_triple":
        assert len(e.parts) == 3
    assert e.unit in (None, "bytes", "packets", "us", "pages", "connections")
    assert e.scope in ("netns", "host")
    if e.netns_readonly_copy:
        assert e.scope == "host"


@pytest.mark.parametrize(("key", "a"), ALL_ADVICE, ids=lambda x: x if isinstance(x, str) else "")
def test_advice_shape(key: str, a: Advice) -> None:
    assert a.source in SOURCE_IDS, f"{key}: unknown source {a.source!r}"
    assert a.context in ("LAN", "WAN", "general")
    assert a.finding.strip() and "\n" not in a.finding
    src = source(a.source)
    if src.file is None:
        # Not a field report: only general statements, never a document's value.
        assert a.context == "general" and a.value is None, key
    else:
        assert a.context != "general", f"{key}: a field report's advice is LAN or WAN advice"


def test_scopes_as_verified_on_6_18() -> None:
    for key, scope in EXPECTED_SCOPE.items():
        assert entry(key).scope == scope, key


def test_removed_noop_and_trigger_facts() -> None:
    recycle = entry("net.ipv4.tcp_tw_recycle")
    assert recycle.removed_in == "4.12"
    assert removed_on(recycle, "4.12.0") and removed_on(recycle, "6.18.44-fc-v669")
    assert not removed_on(recycle, "4.11.9")
    low = entry("net.ipv4.tcp_low_latency")
    assert low.noop_since == "4.14" and low.removed_in is None
    assert noop_on(low, "4.14") and not noop_on(low, "4.13.16")
    flush = entry("net.ipv4.route.flush")
    assert flush.kind == "trigger" and flush.writable and not flush.readable
    assert entry("net.ipv4.tcp_mem").unit == "pages"
    assert entry("net.ipv4.tcp_mem").parts == ("low", "pressure", "high")
    cc = entry("net.ipv4.tcp_congestion_control")
    assert cc.choices_key == "net.ipv4.tcp_available_congestion_control"
    # Only route.flush may be unreadable, only the choices list read-only.
    assert [e.key for e in catalog.SYSCTLS if not e.readable] == ["net.ipv4.route.flush"]
    assert [e.key for e in catalog.SYSCTLS if not e.writable] == [
        "net.ipv4.tcp_available_congestion_control"
    ]


def test_version_tuple() -> None:
    assert version_tuple("6.18.44-fc-v669") == (6, 18, 44)
    assert version_tuple("4.12") == (4, 12)
    with pytest.raises(ValueError):
        version_tuple("linux")


def test_documents_gave_figures_where_expected() -> None:
    """The keys the field reports measured carry their values, with the report's id."""
    by = {
        (k, a.source): a.value for k, a in ((e.key, a) for e in catalog.SYSCTLS for a in e.sources)
    }
    assert by[("net.ipv4.tcp_timestamps", "nasa-40g")] == "0"
    assert by[("net.core.rmem_max", "esnet-100g")] == "67108864"
    assert by[("net.core.netdev_max_backlog", "esnet-100g")] == "250000"
    assert by[("net.ipv4.tcp_rmem", "lofar-wan")] == "4096 4712500 10000000"
    assert by[("net.ipv4.tcp_mem", "cern-10g")] == "1000000 1000000 1000000"
    assert "300-400" in next(
        a.finding for a in entry("net.ipv4.tcp_timestamps").sources if a.source == "nasa-40g"
    )
    assert "2106" in entry("net.ipv4.tcp_window_scaling").help


def test_lan_wan_conflicts_are_stated() -> None:
    for key in ("net.ipv4.tcp_timestamps", "net.ipv4.tcp_sack", "net.ipv4.tcp_rmem"):
        e = entry(key)
        contexts = {a.context for a in e.sources}
        assert {"LAN", "WAN"} <= contexts or "WAN" in e.help, key
        assert "onflict" in e.help, key
    assert "onflict" in DEVICE_HELP["ring"].help


# --- sources ---


def test_sources_one_per_seed_file() -> None:
    files = [s.file for s in SEED_SOURCES]
    assert len(files) == 5 and len(set(files)) == 5
    assert len({s.id for s in SOURCES}) == len(SOURCES)
    for s in SOURCES:
        assert s.title and s.organisation and s.citation and s.setting
        assert s.context in ("LAN", "WAN", "general")
    assert source("esnet-100g").year == 2012 and source("cern-10g").year == 2003
    with pytest.raises(KeyError, match="unknown source id 'nope'"):
        source("nope")


def test_every_source_is_cited() -> None:
    cited = {a.source for _, a in ALL_ADVICE}
    assert cited == SOURCE_IDS


# --- device help ---


def test_device_help_complete() -> None:
    for name in REQUIRED_DEVICE:
        d = device_help(name)
        assert d.name == name
    with pytest.raises(KeyError, match="no device help for 'warp'"):
        device_help("warp")
    for d in DEVICE_HELP.values():
        assert 0 < len(d.summary) <= 70 and "\n" not in d.summary, d.name
        assert d.help.strip() and d.sources
        assert any(a.source in SOURCE_IDS for a in d.sources)


def test_offload_dependencies() -> None:
    assert DEVICE_HELP["rx-checksum"].turns_off_reported == ("gro",)
    assert DEVICE_HELP["tx-checksum"].turns_off_reported == ("sg", "tso")
    assert DEVICE_HELP["sg"].turns_off_reported == ("tso",)
    # What Linux 6.x does (checked with ethtool on veth, 6.18).
    assert DEVICE_HELP["tx-checksum"].turns_off == ("tso",)
    assert set(DEVICE_HELP["sg"].turns_off) == {"tso", "gso"}
    assert "gro" not in DEVICE_HELP["rx-checksum"].turns_off


# --- parse / format ---

ROUND_TRIPS: list[tuple[str, str, object, str]] = [
    # key, text as read, parsed value, text formatted back
    ("net.ipv4.tcp_sack", "1\n", True, "1"),
    ("net.ipv4.tcp_sack", "0", False, "0"),
    ("net.core.netdev_max_backlog", "250000", 250000, "250000"),
    ("net.ipv4.tcp_timestamps", "2", 2, "2"),
    ("net.ipv4.tcp_notsent_lowat", "4294967295", 4294967295, "4294967295"),
    (
        "net.ipv4.tcp_rmem",
        "4096\t131072\t33554432\n",
        (4096, 131072, 33554432),
        "4096 131072 33554432",
    ),
    (
        "net.ipv4.tcp_wmem",
        '"4096 4712500 10000000"',
        (4096, 4712500, 10000000),
        "4096 4712500 10000000",
    ),
    (
        "net.ipv4.tcp_mem",
        "1542240      4712500   10000000",
        (1542240, 4712500, 10000000),
        "1542240 4712500 10000000",
    ),
    ("net.ipv4.tcp_congestion_control", "bbr\n", "bbr", "bbr"),
    ("net.core.default_qdisc", "fq_codel", "fq_codel", "fq_codel"),
    (
        "net.ipv4.tcp_available_congestion_control",
        "reno bbr\tcubic\n",
        "reno bbr cubic",
        "reno bbr cubic",
    ),
    ("net.ipv4.route.flush", "1", 1, "1"),
]


@pytest.mark.parametrize(("key", "text", "value", "out"), ROUND_TRIPS)
def test_round_trip(key: str, text: str, value: object, out: str) -> None:
    e = entry(key)
    parsed = parse_value(e, text)
    assert parsed == value and type(parsed) is type(value)
    assert format_value(e, parsed) == out
    assert parse_value(e, format_value(e, parsed)) == parsed


BAD_INPUT: list[tuple[str, str, str]] = [
    ("net.ipv4.tcp_rmem", "abc", "tcp_rmem needs three integers min default max, got 'abc'"),
    ("net.ipv4.tcp_rmem", "", "tcp_rmem needs three integers min default max, got ''"),
    (
        "net.ipv4.tcp_rmem",
        "4096 87380",
        "tcp_rmem needs three integers min default max, got '4096 87380'",
    ),
    ("net.ipv4.tcp_rmem", "1 2 3 4", "tcp_rmem needs three integers"),
    ("net.ipv4.tcp_rmem", "4096 -1 6291456", "tcp_rmem default value must be between 4096 and"),
    ("net.ipv4.tcp_rmem", "0 87380 6291456", "tcp_rmem min value must be between 4096 and"),
    (
        "net.ipv4.tcp_rmem",
        "9000 4096 6291456",
        "tcp_rmem needs min <= default <= max, got 9000 4096 6291456",
    ),
    ("net.ipv4.tcp_mem", "a b c", "tcp_mem needs three integers low pressure high, got 'a b c'"),
    ("net.ipv4.tcp_sack", "", "tcp_sack needs 0 or 1, got ''"),
    ("net.ipv4.tcp_sack", "yes", "tcp_sack needs 0 or 1, got 'yes'"),
    ("net.ipv4.tcp_sack", "2", "tcp_sack needs 0 or 1, got '2'"),
    ("net.ipv4.tcp_sack", "-1", "tcp_sack needs 0 or 1, got '-1'"),
    ("net.core.somaxconn", "", "somaxconn needs an integer, got ''"),
    ("net.core.somaxconn", "lots", "somaxconn needs an integer, got 'lots'"),
    ("net.core.somaxconn", "1_000", "somaxconn needs an integer, got '1_000'"),
    ("net.core.somaxconn", "-5", "somaxconn must be between 0 and 2147483647 connections, got -5"),
    ("net.core.somaxconn", "2147483648", "somaxconn must be between 0 and 2147483647"),
    ("net.ipv4.tcp_timestamps", "3", "tcp_timestamps must be between 0 and 2, got 3"),
    ("net.ipv4.tcp_tw_reuse", "-1", "tcp_tw_reuse must be between 0 and 2, got -1"),
    (
        "net.ipv4.tcp_notsent_lowat",
        "4294967296",
        "tcp_notsent_lowat must be between 0 and 4294967295 bytes",
    ),
    ("net.core.netdev_max_backlog", "0", "netdev_max_backlog must be between 1 and"),
    (
        "net.ipv4.route.flush",
        "now",
        "route.flush is a write-only trigger: give an integer such as 1, got 'now'",
    ),
    ("net.ipv4.route.flush", "", "route.flush is a write-only trigger"),
    (
        "net.ipv4.tcp_congestion_control",
        "",
        "tcp_congestion_control needs one name such as 'cubic', got ''",
    ),
    ("net.ipv4.tcp_congestion_control", "bbr cubic", "tcp_congestion_control needs one name"),
    (
        "net.core.default_qdisc",
        "fq codel",
        "default_qdisc needs one name without spaces, got 'fq codel'",
    ),
    ("net.core.default_qdisc", "", "default_qdisc needs one name without spaces"),
]


@pytest.mark.parametrize(("key", "text", "message"), BAD_INPUT)
def test_parse_errors(key: str, text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_value(entry(key), text)
    assert message in str(info.value)


def test_choice_checked_against_available() -> None:
    e = entry("net.ipv4.tcp_congestion_control")
    avail = split_choices("reno bbr cubic")
    assert parse_value(e, "cubic", choices=avail) == "cubic"
    with pytest.raises(
        ValueError, match=r"'vegas' is not available here \(available: bbr, cubic, reno\)"
    ):
        parse_value(e, "vegas", choices=avail)


FORMAT_ERRORS: list[tuple[str, object, str]] = [
    ("net.ipv4.tcp_sack", 2, "tcp_sack needs a boolean"),
    ("net.ipv4.tcp_sack", "1", "tcp_sack needs a boolean"),
    ("net.core.somaxconn", True, "somaxconn needs an integer"),
    ("net.core.somaxconn", "4096", "somaxconn needs an integer"),
    ("net.core.somaxconn", -1, "somaxconn must be between 0 and"),
    ("net.ipv4.tcp_rmem", (1, 2), "tcp_rmem needs three integers min default max"),
    ("net.ipv4.tcp_rmem", [1, 2, 3], "tcp_rmem needs three integers"),
    ("net.ipv4.tcp_wmem", (3, 2, 1), "tcp_wmem needs min <= default <= max"),
    ("net.ipv4.tcp_rmem", (0, 2, 3), "tcp_rmem min value must be between 4096 and"),
    ("net.ipv4.tcp_congestion_control", 5, "tcp_congestion_control needs a name"),
    ("net.ipv4.tcp_congestion_control", "two words", "tcp_congestion_control needs one name"),
    ("net.ipv4.route.flush", "1", "route.flush needs an integer"),
]


@pytest.mark.parametrize(("key", "value", "message"), FORMAT_ERRORS)
def test_format_errors(key: str, value: object, message: str) -> None:
    with pytest.raises(ValueError) as info:
        format_value(entry(key), value)  # type: ignore[arg-type]
    assert message in str(info.value)


def test_bool_format_accepts_0_and_1() -> None:
    e = entry("net.ipv4.tcp_sack")
    assert format_value(e, 1) == "1" and format_value(e, 0) == "0"


def test_document_values_parse() -> None:
    """Every value a report used for a sysctl is a valid value of that sysctl."""
    for e in catalog.SYSCTLS:
        for a in e.sources:
            if a.value is not None:
                parse_value(e, a.value)


# --- the reports' own words ---

NGRAM = 12
_WORD = re.compile(r"[a-z0-9]+(?:['.][a-z0-9]+)*")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _ngrams(text: str, n: int = NGRAM) -> Iterator[tuple[str, ...]]:
    w = _words(text)
    for i in range(len(w) - n + 1):
        yield tuple(w[i : i + n])


@pytest.fixture(scope="module")
def seed_text() -> dict[str, str]:
    if not SEEDS_DIR.is_dir():
        # The reports are the team's reading, not ours to redistribute: checked when present.
        pytest.skip(f"seed documents not found at {SEEDS_DIR} (outside a team checkout)")
    texts = {s.id: (SEEDS_DIR / s.file).read_text(errors="replace") for s in SEED_SOURCES if s.file}
    assert len(texts) == 5
    return texts


@pytest.fixture(scope="module")
def seed_ngrams(seed_text: dict[str, str]) -> set[tuple[str, ...]]:
    grams: set[tuple[str, ...]] = set()
    for t in seed_text.values():
        grams.update(_ngrams(t))
    return grams


def _copied(text: str, grams: set[tuple[str, ...]]) -> list[str]:
    return [" ".join(g) for g in _ngrams(text) if g in grams]


def _all_texts() -> Iterator[tuple[str, str]]:
    for e in catalog.SYSCTLS:
        yield f"{e.key} summary", e.summary
        yield f"{e.key} help", e.help
        for a in e.sources:
            yield f"{e.key} [{a.source}] finding", a.finding
    for d in DEVICE_HELP.values():
        yield f"{d.name} summary", d.summary
        yield f"{d.name} help", d.help
        for a in d.sources:
            yield f"{d.name} [{a.source}] finding", a.finding
    for s in SOURCES:
        yield f"source {s.id} setting", s.setting


def test_help_is_in_own_words(seed_ngrams: set[tuple[str, ...]]) -> None:
    copied = {where: hits for where, text in _all_texts() if (hits := _copied(text, seed_ngrams))}
    assert not copied, f"runs of {NGRAM}+ words copied from the reports: {copied}"


def test_own_words_guard_can_fail(
    seed_text: dict[str, str], seed_ngrams: set[tuple[str, ...]]
) -> None:
    """A sentence lifted from a report must be caught, even with changed case and spacing."""
    lifted = (
        "It is important to remember that the testing described in this document is "
        "intended explicitly for lowlatency LAN environments."
    )
    assert "intended explicitly" in seed_text["nasa-40g"]
    assert _copied(lifted.upper().replace(" ", "  \n"), seed_ngrams)
    assert not _copied(
        "tuitune says this in its own words, with numbers like 300-400 Mb/s.", seed_ngrams
    )


def test_document_values_appear_in_their_document(seed_text: dict[str, str]) -> None:
    """An Advice.value is what the document wrote (whitespace and case aside)."""

    def norm(s: str) -> str:
        return " ".join(s.lower().split())

    for where, a in ALL_ADVICE:
        if a.value is None or a.source not in seed_text:
            continue
        assert norm(a.value) in norm(seed_text[a.source]), f"{where}: {a.value!r} not in {a.source}"
