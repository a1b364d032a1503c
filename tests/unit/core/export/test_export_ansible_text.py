"""The Ansible export's text, without running Ansible: hostile host state stays text in YAML
and in Jinja, the interface name is a per-host variable, the fleet match is chosen and said.
(test_export_ansible.py runs the playbook for real.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.command import tuitune
from tests.support.session_fakes import build_host
from tests.unit.core.export.test_export_files import DEV, Tuned, _fixed
from tests.unit.core.export.test_export_verify import PROFILE
from tuitune.core.export import DeviceMatch, build_plan
from tuitune.core.export.ansible import install_files, role_files
from tuitune.core.export.fleet import write_tree
from tuitune.core.export.model import Change
from tuitune.core.export.wheelhouse import Install
from tuitune.core.export.yamlout import Expr, dump, jinja_literal, jinja_with
from tuitune.core.session import Key

jinja2 = pytest.importorskip("jinja2", reason="jinja2 comes with ansible-core (test extra)")
yaml = pytest.importorskip("yaml", reason="PyYAML comes with ansible-core (test extra)")

HOSTILE = [
    "{{ lookup('pipe', 'id') }}",
    "{% raw %}x{% endraw %}{{ 7*7 }}",
    "{# c #}{%- if 1 %}",
    "#jinja2: variable_start_string: '[[', variable_end_string: ']]'\n[[ 7*7 ]]",
    '"\n- evil: !!python/object/apply:os.system ["id"]\n',
    "a: b\n---\n? x",
]


def render(template: str, **variables: str) -> str:
    # Ansible's own settings that matter here: trim_blocks, and the trailing newline kept.
    env = jinja2.Environment(trim_blocks=True, keep_trailing_newline=True, autoescape=False)
    return env.from_string(template).render(**variables)


@pytest.mark.parametrize("text", HOSTILE)
def test_a_template_renders_hostile_text_as_itself(text: str) -> None:
    assert render(jinja_literal(text)) == text
    assert render(jinja_with(text, "eno49", "iface"), iface="eno49") == text


@settings(deadline=None)  # a loaded machine is slow, not wrong
@given(st.text())
def test_any_text_renders_as_itself(text: str) -> None:
    assert render(jinja_literal(text)) == text


def _load(text: str) -> object:
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!unsafe", lambda loader, node: ("UNSAFE", node.value))
    return yaml.load(text, Loader=Loader)


@pytest.mark.parametrize("text", HOSTILE)
def test_a_hostile_scalar_is_one_unsafe_string(text: str) -> None:
    doc = _load(dump([{"name": text, "path": Expr("{{ tuitune_etc }}/x")}]))
    want = ("UNSAFE", text) if "{" in text else text
    assert doc == [{"name": want, "path": "{{ tuitune_etc }}/x"}]


def test_the_interface_is_a_per_host_variable(tmp_path: Path) -> None:
    t = Tuned(tmp_path)
    match = DeviceMatch("path", "pci-0000:3b:00.0")
    ctx = _fixed(t.ctx, match=match)
    plan = build_plan(t.changes, ctx, read_installed=False)
    files = role_files(plan, ctx)
    base = "roles/tuitune_nic/templates/etc/udev/rules.d/90-tuitune-eno49.rules.j2"
    rules = files[base]
    [exported] = [f for f in plan.files if f.path.name == "90-tuitune-eno49.rules"]
    assert render(rules, tuitune_iface=DEV) == exported.text
    other = render(rules, tuitune_iface="ens1f0")
    # The same rules for the host whose NIC is called ens1f0: still matched by its ID_PATH.
    assert DEV not in other and 'GOTO="tuitune_ens1f0_end"' in other
    assert 'ENV{ID_PATH}!="pci-0000:3b:00.0"' in other
    tasks = files["roles/tuitune_nic/tasks/main.yml"]
    assert "90-tuitune-{{ tuitune_iface }}.rules" in tasks
    assert 'tuitune_iface: "eno49"' in files["roles/tuitune_nic/defaults/main.yml"]
    assert "udevadm" in files["roles/tuitune_nic/handlers/main.yml"]
    _load(tasks)


def test_ansible_needs_out_and_a_match_it_can_have(tmp_path: Path) -> None:
    tree = build_host(tmp_path / "host")  # its NIC is on no bus: no ID_PATH
    profile = tmp_path / "tuned.toml"
    profile.write_text(PROFILE)
    journal = tmp_path / "journal"
    assert tuitune("apply", profile, DEV, "--root", tree, "--journal-dir", journal).returncode == 0
    where = ("--root", tree, "--journal-dir", journal)
    res = tuitune("export", DEV, *where, "--ansible")
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "--out DIR" in res.stderr
    out = tmp_path / "play"
    res = tuitune("export", DEV, *where, "--ansible", "--out", out)
    assert res.returncode == 2 and "no ID_PATH" in res.stderr and not out.exists()
    res = tuitune("export", DEV, *where, "--ansible", "--match", "mac", "--out", out)
    assert res.returncode == 0, res.stderr
    rules = out / "roles/tuitune_nic/templates/etc/udev/rules.d/90-tuitune-eno49.rules.j2"
    assert 'ATTR{address}!="00:1b:21:00:00:01"' in render(rules.read_text(), tuitune_iface=DEV)
    # Plain export takes --match too; name warns that every host must use the same name.
    res = tuitune("export", DEV, *where, "--match", "name", "--format", "udev")
    assert res.returncode == 0 and 'KERNEL!="eno49"' in res.stdout
    assert "every host must name that NIC the same" in res.stderr


def test_help_lists_the_matches() -> None:
    out = tuitune("export", "--help").stdout
    assert "--ansible" in out and "{path,mac,name,driver}" in out


def test_ansible_lint_finds_nothing(tmp_path: Path) -> None:
    """ansible-lint (in the test extra) finds nothing in the generated files: a missing one
    fails rather than skips, so CI cannot pass without having linted them."""
    beside = Path(sys.executable).parent / "ansible-lint"
    lint = str(beside) if beside.exists() else shutil.which("ansible-lint")
    assert lint is not None, "ansible-lint is missing: pip install -e '.[test]'"
    t = Tuned(tmp_path / "src")
    ctx = _fixed(t.ctx, match=DeviceMatch("path", "pci-0000:3b:00.0"), host="{{ x }}")
    # The platform's files too: their handlers (CPU unit, modprobe.d and initramfs) linted.
    platform = [
        Change(Key.module_param("igb", "InterruptThrottleRate"), "8000", "3"),
        Change(Key.cpu_governor(0), "powersave", "performance"),
    ]
    t.changes = [*t.changes, *platform]
    out = tmp_path / "play"
    # With the install tasks (--install-tuitune): the wheelhouse's bytes do not matter to lint.
    install = Install(
        {
            "requirements.txt": b"tuitune==0\n",
            "bootstrap/pip-25.3-py3-none-any.whl": b"pip",
            "share/man/man1/tuitune.1": b".TH\n",
        }
    )
    files: dict[str, str | bytes] = {
        **role_files(build_plan(t.changes, ctx, read_installed=False), ctx, install=install),
        **install_files(install),
    }
    write_tree(files, out)
    tasks = (out / "roles/tuitune_nic/tasks/main.yml").read_text()
    assert "ansible.builtin.command" in tasks and "install-venv.sh" in tasks
    handlers = (out / "roles/tuitune_nic/handlers/main.yml").read_text()
    assert 'name: "tuitune-cpu-power.service"' in handlers and "daemon_reload: true" in handlers
    assert 'argv: "{{ tuitune_initramfs_update }}"' in handlers
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}
    cmd = [lint, "--offline", "playbook.yml", "verify.yml", "roles/"]
    res = subprocess.run(cmd, cwd=out, capture_output=True, text=True, env=env, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
