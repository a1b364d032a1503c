from __future__ import annotations

import datetime as dt
import os
import shutil
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tuitune.core.config import Config, config_path, dumps, load_config, save_config
from tuitune.core.text import is_plain


def test_config_path_prefers_xdg_config_home() -> None:
    env = {"XDG_CONFIG_HOME": "/x/cfg", "HOME": "/home/u"}
    assert config_path(env) == Path("/x/cfg/tuitune/config.toml")


def test_config_path_falls_back_to_home() -> None:
    assert config_path({"HOME": "/home/u"}) == Path("/home/u/.config/tuitune/config.toml")
    assert config_path({"HOME": "/home/u", "XDG_CONFIG_HOME": ""}) == Path(
        "/home/u/.config/tuitune/config.toml"
    )
    # The XDG spec: a relative path is invalid and ignored.
    assert config_path({"HOME": "/home/u", "XDG_CONFIG_HOME": "rel"}) == Path(
        "/home/u/.config/tuitune/config.toml"
    )


def test_missing_or_broken_file_gives_defaults(tmp_path: Path) -> None:
    assert load_config(tmp_path / "nope.toml") == Config()
    broken = tmp_path / "broken.toml"
    broken.write_text('theme = "unterminated\n')
    assert load_config(broken) == Config()
    broken.write_bytes(b"theme = '\xff\xfe'\n")
    assert load_config(broken) == Config()
    wrong_type = tmp_path / "wrong.toml"
    wrong_type.write_text("theme = 3\n")
    assert load_config(wrong_type) == Config()
    assert load_config(tmp_path) == Config()  # a directory


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "tuitune" / "config.toml"  # the directory does not exist yet
    assert save_config(Config(theme="tuitune-light"), path) is None
    assert load_config(path) == Config(theme="tuitune-light")
    assert tomllib.loads(path.read_text()) == {"theme": "tuitune-light"}
    assert save_config(Config(), path) is None
    assert load_config(path) == Config()
    assert tomllib.loads(path.read_text()) == {}


@given(st.text(min_size=1, max_size=64))
def test_any_theme_name_survives_the_round_trip(name: str) -> None:
    """Any name that can be shown as it is comes back; one holding control or bidi
    characters (a file another user wrote, under sudo -E) is no theme of ours: None."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "config.toml"
        assert save_config(Config(theme=name), path) is None
        assert load_config(path).theme == (name if is_plain(name) else None)


def test_unknown_keys_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        "# mine\n"
        'theme = "old"\n'
        "refresh = 0.5\n"
        "when = 1979-05-27T07:32:00Z\n"
        '"odd key" = ["a", 1, true]\n'
        "[ui]\n"
        "compact = true\n"
        "[ui.cpu]\n"
        "columns = [1, 2]\n"
        "[[hosts]]\n"
        'name = "lab1"\n'
        "[[hosts]]\n"
        'name = "lab2"\n'
        "sub = { x = 1 }\n"
    )
    before = tomllib.loads(path.read_text())
    assert save_config(Config(theme="tuitune-dark"), path) is None
    assert tomllib.loads(path.read_text()) == before | {"theme": "tuitune-dark"}


def test_broken_existing_file_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("theme = [\n")
    msg = save_config(Config(theme="tuitune-dark"), path)
    assert msg is not None and str(path) in msg
    assert path.read_text() == "theme = [\n"


def test_atomic_write_leaves_only_the_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('theme = "old"\n')
    old_inode = path.stat().st_ino
    assert save_config(Config(theme="new"), path) is None
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]
    # Replaced, not rewritten in place: a reader never sees a half-written file.
    assert path.stat().st_ino != old_inode


def test_new_file_mode_follows_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        assert save_config(Config(theme="x"), tmp_path / "config.toml") is None
    finally:
        os.umask(old)
    assert (tmp_path / "config.toml").stat().st_mode & 0o777 == 0o640


def test_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('theme = "old"\n')
    path.chmod(0o600)
    assert save_config(Config(theme="new"), path) is None
    assert path.stat().st_mode & 0o777 == 0o600


def test_failed_replace_leaves_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "config.toml"
    path.write_text('theme = "old"\n')

    def refuse(src: object, dst: object, **dir_fds: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    msg = save_config(Config(theme="new"), path)
    assert msg is not None and "No space left on device" in msg
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]
    assert path.read_text() == 'theme = "old"\n'


def test_symlinked_config_keeps_its_link(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "tuitune.toml"
    real.parent.mkdir()
    real.write_text('theme = "old"\n')
    link = tmp_path / "config.toml"
    link.symlink_to(real)
    assert save_config(Config(theme="new"), link) is None
    assert link.is_symlink()
    assert load_config(real) == Config(theme="new")


def test_parent_that_is_a_file_gives_a_message(tmp_path: Path) -> None:
    (tmp_path / "home").write_text("not a directory")
    path = tmp_path / "home" / ".config" / "tuitune" / "config.toml"
    msg = save_config(Config(theme="x"), path)
    assert msg is not None and str(path) in msg


def test_unwritable_directory_gives_a_message() -> None:
    """As a user who may not write the directory: root may write anywhere, so a forked child
    drops to nobody first (exec'ing a new interpreter would need read access to /root)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to run the save as another user")
    d = Path(tempfile.mkdtemp(prefix="tuitune-ro-"))
    try:
        d.chmod(0o555)
        path = d / "config.toml"
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            try:
                os.setgid(65534)
                os.setuid(65534)
                os.write(w, str(save_config(Config(theme="x"), path)).encode())
            finally:
                os._exit(0)
        os.close(w)
        with os.fdopen(r) as f:
            msg = f.read()
        os.waitpid(pid, 0)
        assert msg == f"{path}: not saved: Permission denied"
        assert list(d.iterdir()) == []
    finally:
        shutil.rmtree(d)


# What tomllib can give back, to check that dumps() writes it so that it reads the same.
_scalars = (
    st.text()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False)
    | st.datetimes()
    | st.dates()
    | st.times()
)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=12,
)


@given(st.dictionaries(st.text(), _values, max_size=5))
def test_dumps_round_trips_through_tomllib(doc: dict[str, Any]) -> None:
    assert tomllib.loads(dumps(doc)) == doc


def test_dumps_escapes() -> None:
    text = dumps({"theme": 'a"b\\c\nd\te\x01f\x7fg', "k.e y": 1, "inf": float("inf")})
    assert text == ('theme = "a\\"b\\\\c\\nd\\te\\u0001f\\u007fg"\n"k.e y" = 1\ninf = inf\n')
    assert tomllib.loads(text)["k.e y"] == 1


def test_dumps_writes_dates_as_toml_dates() -> None:
    d = dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    assert tomllib.loads(dumps({"t": d}))["t"] == d


def test_advisor_contexts_round_trip_and_hostile_entries(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    cfg = Config(theme="tuitune-light", contexts=(("eth2", "wan"), ("lab0", "lan")))
    assert save_config(cfg, path) is None
    assert load_config(path) == cfg
    # Saving the theme alone (a Config without contexts) leaves the remembered ones.
    assert save_config(Config(theme="tuitune-dark"), path) is None
    assert load_config(path).contexts == cfg.contexts
    path.write_text(
        '[advise.context]\neth2 = "wan"\n"a/b" = "lan"\neth3 = "moon"\neth4 = 7\n'
        '"' + "x" * 40 + '" = "lan"\n'
    )
    assert load_config(path).contexts == (("eth2", "wan"),)
