"""The export as an Ansible playbook and role, for a fleet of hosts tuned alike.

One source of truth: each template is the text the export's own generators wrote for this
host (`build_plan`), escaped so Jinja renders it byte for byte, with the interface name made a
per-host variable (`tuitune_iface`). So the role installs exactly what `tuitune export
--install` would, and a fix to a generator reaches the playbook with the next export.

The role uses ansible-core's own modules only (ansible.builtin: file, template, command,
systemd_service, service, debug), so no collection is needed on the control host. Handlers make the
files take effect now, as `--install` leaves to the user: `sysctl -p` the sysctl file,
`udevadm control --reload` then `udevadm trigger --action=add` on the device (udev applies
rules and .link files on "add" only), restart the affinity unit, restart irqbalance when its
config changed, daemon-reload, enable and run the CPU power unit, and rebuild the initramfs
after a driver's modprobe.d file changed when `tuitune_initramfs_update` names the command
(else a note says when the options take effect). They run only when `tuitune_apply_now` is
true and `tuitune_root` is "/": loading a file staged under another root into the live kernel
would be wrong.

Nothing here touches the disk: `role_files` returns {relative path: text}; the CLI writes
them through fsutil.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from tuitune.core.export import affinity, spread, sysctld
from tuitune.core.export.ansible_install import (
    BOOTSTRAP_SCRIPT,
    WHEELHOUSE_TAR,
    bootstrap_script,
    install_defaults,
    install_tasks,
    wheelhouse_tar,
)
from tuitune.core.export.context import ExportContext
from tuitune.core.export.model import ExportFile, ExportPlan
from tuitune.core.export.platform_files import UNIT
from tuitune.core.export.wheelhouse import Install
from tuitune.core.export.yamlout import Comment, Expr, Node, dump, jinja_with
from tuitune.core.host.irqbalance import CONFIG_FILES

ROLE = "tuitune_nic"
GROUP = "tuitune_fleet"
IFACE_VAR = "tuitune_iface"
CPUS_VAR = "tuitune_affinity_cpus"
NETNS_VAR = "tuitune_netns"
# Handler names (notify targets).
H_SYSCTL = "tuitune load sysctl"
H_UDEV = "tuitune udev changed"
H_AFFINITY = "tuitune affinity unit"
H_IRQBALANCE = "tuitune restart irqbalance"
H_CPU = "tuitune cpu power unit"
H_MODPROBE = "tuitune modprobe.d changed"
INITRAMFS_VAR = "tuitune_initramfs_update"
# ansible-lint wants a role's variables prefixed with the role's name (tuitune_nic_); these
# are named for tuitune, shared by the role, verify.yml and the inventory, as docs/fleet.md says.
LINT_CONFIG = """---
# ansible-lint: the role's variables are tuitune_*, shared with verify.yml and the inventory.
skip_list:
  - var-naming[no-role-prefix]
"""
_LIVE = "tuitune_apply_now | bool and tuitune_root == '/'"


@dataclass(frozen=True, slots=True)
class Installed:
    """One file of the export as the role installs it: `rel` under /etc, `template` in the
    role's templates/, `notify` the handlers that make it take effect."""

    file: ExportFile
    rel: PurePosixPath
    template: str
    notify: tuple[str, ...]
    nic_local: str | None = None  # the affinity file's `* = nic-local` template

    @property
    def src(self) -> str:
        if self.nic_local is None:
            return self.template
        # Names of checked interface names and fixed words only: no quote can be in them.
        return Expr(
            f"{{{{ '{self.nic_local}' if {CPUS_VAR} == '{spread.NIC_LOCAL}' "
            f"else '{self.template}' }}}}"
        )


def _rel(f: ExportFile, ctx: ExportContext) -> PurePosixPath:
    return PurePosixPath(f.path.relative_to(ctx.etc).as_posix())


def _with_iface(text: str, ctx: ExportContext) -> str:
    return jinja_with(text, ctx.ifname, IFACE_VAR)


def installed(plan: ExportPlan, ctx: ExportContext) -> list[Installed]:
    """The installable files with where they go and what each one's change sets off."""
    irqbalance_rels = {PurePosixPath(r) for r in CONFIG_FILES}
    has_irqbalance = any(_rel(f, ctx) in irqbalance_rels for f in plan.files if f.installable)
    out = []
    for f in plan.files:
        if not f.installable:
            continue
        rel = _rel(f, ctx)
        notify: tuple[str, ...] = ()
        if f.format == "sysctl":
            notify = (H_SYSCTL,)
        elif f.format in ("udev", "link") or rel.parent == PurePosixPath("udev/rules.d"):
            notify = (H_UDEV,)
        elif rel in irqbalance_rels or rel == PurePosixPath(affinity.POLICY_SCRIPT):
            notify = (H_IRQBALANCE,) if has_irqbalance else ()
        elif f.format == "affinity":
            notify = (H_AFFINITY,)
        elif f.format == "cpu":
            notify = (H_CPU,)
        elif f.format == "modprobe":
            notify = (H_MODPROBE,)
        alt = None
        if f.path == affinity.conf_path(ctx.etc, ctx.ifname):
            alt = f"etc/{rel.with_suffix('.nic-local.conf')}.j2"
        out.append(Installed(f, rel, f"etc/{rel}.j2", notify, alt))
    return out


def _dest(rel: PurePosixPath, ctx: ExportContext) -> Expr:
    return Expr("{{ tuitune_etc }}/" + _with_iface(str(rel), ctx))


def install_files(install: Install, role: str = ROLE) -> dict[str, bytes]:
    """The wheelhouse as the role's one archive (none when installing from an index): a
    directory copied by Ansible is one module run per file on every host, about 70 s of a
    role's run for tuitune's 40-odd wheels where one archive is one unpack."""
    if install.from_index:
        return {}
    files = {**install.files, BOOTSTRAP_SCRIPT: bootstrap_script(install)}
    return {f"roles/{role}/files/{WHEELHOUSE_TAR}": wheelhouse_tar(files)}


def defaults(ctx: ExportContext, match_note: Sequence[str], install: Install | None = None) -> str:
    doc: dict[str, Node] = {
        "c1": Comment("Where /etc is: '/' on a real host; a scratch directory to stage or test."),
        "tuitune_root": "/",
        "tuitune_etc": Expr("{{ tuitune_root | regex_replace('/+$', '') }}/etc"),
        "c2": Comment("The interface on each host (set it per host when the names differ)."),
        IFACE_VAR: ctx.ifname,
        "c2b": Comment("The network namespace the interface lives in ('' for the host's own);"),
        "c2c": Comment("'' also when the play already runs inside it (ip netns exec ... ansible)."),
        NETNS_VAR: ctx.netns or "",
        "c3": Comment("false: install the files only; they take effect at the next boot."),
        "tuitune_apply_now": True,
        "c4": Comment("IRQ affinity: 'exported' pins the CPUs this host had; 'nic-local' has"),
        "c5": Comment("tuitune apply-affinity spread the queues over each host's NIC-local cores"),
        "c6": Comment("(for hosts that differ in cores, NUMA layout or queue count)."),
        CPUS_VAR: "exported",
        "c7": Comment("The tuitune the affinity unit and verify.yml run on the hosts."),
        "tuitune_command": ctx.tuitune,
        "c8": Comment("A driver's modprobe.d options are read when the module loads; a NIC driver"),
        "c9": Comment("often loads from the initramfs, before /etc is there: the command that"),
        "c10": Comment("rebuilds it, run when such a file changed ([] = not run, say so instead):"),
        "c11": Comment("['update-initramfs', '-u'] on Debian/Ubuntu, ['dracut', '-f'] on RHEL."),
        INITRAMFS_VAR: [],
    }
    if install is not None:
        doc |= install_defaults(install)
    return dump(doc, [f"Defaults of the {ROLE} role: override per host or group.", *match_note])


def tasks(
    files: Sequence[Installed], plan: ExportPlan, ctx: ExportContext, install: Install | None = None
) -> str:
    dirs = sorted({str(i.rel.parent) for i in files})
    items: list[Node] = install_tasks(install) if install is not None else []
    if dirs:
        items.append(
            {
                "name": "Tuitune: the directories the files go in",
                "ansible.builtin.file": {
                    "path": Expr("{{ tuitune_etc }}/{{ item }}"),
                    "state": "directory",
                    "mode": "0755",
                },
                "loop": [_with_iface_expr(d, ctx) for d in dirs],
            }
        )
    for i in files:
        task: dict[str, Node] = {
            "name": f"Tuitune: /etc/{i.rel} ({i.file.format})",
            "ansible.builtin.template": {
                "src": i.src,
                "dest": _dest(i.rel, ctx),
                "mode": f"{i.file.mode:04o}",
                "backup": True,
            },
        }
        if i.notify:
            task["notify"] = list(i.notify)
        items.append(task)
    by_hand = [f for f in plan.files if not f.installable]
    header = [
        f"Installs what `tuitune export {ctx.ifname}` writes, rendered for each host.",
        *(f"Not installed (merge by hand): {f.path}" for f in by_hand),
    ]
    return dump(items, header)


def _with_iface_expr(text: str, ctx: ExportContext) -> Expr:
    return Expr(_with_iface(text, ctx))


def _unit_enable(plan: ExportPlan, ctx: ExportContext) -> bool:
    unit = affinity.unit_path(ctx.etc)
    return any(f.path == unit and "[Install]" in f.text for f in plan.files)


def _sysctl_handler(i: Installed, argv: list[Node], when: str) -> Node:
    where = "" if argv[0] == "sysctl" else f" in the namespace {NETNS_VAR} names"
    return {
        "name": f"Tuitune: sysctl -p /etc/{i.rel}{where}",
        "listen": H_SYSCTL,
        "ansible.builtin.command": {"argv": argv},
        "changed_when": True,
        "when": Expr(when),
    }


def handlers(files: Sequence[Installed], plan: ExportPlan, ctx: ExportContext) -> str:
    used = {n for i in files for n in i.notify}
    items: list[Node] = []
    if H_SYSCTL in used:
        for i in files:
            if i.file.format != "sysctl":
                continue
            words = sysctld.apply_command(i.file.path, plan.netns).split()
            argv: list[Node] = [_dest(i.rel, ctx) if w == str(i.file.path) else w for w in words]
            if words[0] != "ip":
                items.append(_sysctl_handler(i, argv, _LIVE))
                continue
            # A namespace's file is read inside the namespace each host names (the lab's other
            # end too), or as it is when ansible was itself started inside it (netns '').
            inside = Expr("{{ " + NETNS_VAR + " }}")
            argv = ["ip", "netns", "exec", inside, *argv[4:]]
            items.append(_sysctl_handler(i, argv, f"{_LIVE} and {NETNS_VAR} | length > 0"))
            items.append(_sysctl_handler(i, argv[4:], f"{_LIVE} and {NETNS_VAR} | length == 0"))
    if H_UDEV in used:
        items += [
            {
                "name": "Tuitune: udevadm control --reload",
                "listen": H_UDEV,
                "ansible.builtin.command": {"argv": ["udevadm", "control", "--reload"]},
                "changed_when": True,
                "when": Expr(_LIVE),
            },
            {
                "name": "Tuitune: replay the device's add event (udev applies rules on add)",
                "listen": H_UDEV,
                "ansible.builtin.command": {
                    "argv": [
                        "udevadm",
                        "trigger",
                        "--settle",
                        "--action=add",
                        Expr("/sys/class/net/{{ " + IFACE_VAR + " }}"),
                    ]
                },
                "changed_when": True,
                "when": Expr(_LIVE),
            },
        ]
    if H_AFFINITY in used:
        service: dict[str, Node] = {
            "name": Expr("tuitune-affinity@{{ " + IFACE_VAR + " }}.service"),
            "state": "restarted",
            "daemon_reload": True,
        }
        if _unit_enable(plan, ctx):
            service["enabled"] = True
        items.append(
            {
                "name": "Tuitune: (re)start the affinity unit",
                "listen": H_AFFINITY,
                "ansible.builtin.systemd_service": service,
                "when": Expr(_LIVE),
            }
        )
    if H_IRQBALANCE in used:
        items.append(
            {
                "name": "Tuitune: restart irqbalance (it reads its policy option at start)",
                "listen": H_IRQBALANCE,
                "ansible.builtin.service": {"name": "irqbalance", "state": "restarted"},
                "when": Expr(_LIVE),
            }
        )
    if H_CPU in used:
        items.append(
            {
                # A oneshot unit: restarted, it writes its values again; enabled, at each boot.
                "name": f"Tuitune: daemon-reload, enable and run {UNIT} (CPU power)",
                "listen": H_CPU,
                "ansible.builtin.systemd_service": {
                    "name": UNIT,
                    "state": "restarted",
                    "enabled": True,
                    "daemon_reload": True,
                },
                "when": Expr(_LIVE),
            }
        )
    if H_MODPROBE in used:
        items += [
            {
                "name": "Tuitune: rebuild the initramfs (the driver's options at early load)",
                "listen": H_MODPROBE,
                "ansible.builtin.command": {"argv": Expr("{{ " + INITRAMFS_VAR + " }}")},
                "changed_when": True,
                "when": Expr(f"{_LIVE} and {INITRAMFS_VAR} | length > 0"),
            },
            {
                "name": "Tuitune: the driver's options are read at its next load",
                "listen": H_MODPROBE,
                "ansible.builtin.debug": {
                    # One YAML line under ansible-lint's 160 columns.
                    "msg": (
                        "modprobe.d changed: in force at the driver's next load (reboot or "
                        f"reload); {INITRAMFS_VAR} rebuilds the initramfs"
                    )
                },
                "when": Expr(f"{INITRAMFS_VAR} | length == 0"),
            },
        ]
    return dump(items, ["Make the installed files take effect now (see defaults/main.yml)."])


@dataclass(frozen=True, slots=True)
class End:
    """One end of what a playbook tunes: its role, the inventory group it runs on (and the
    extra variable that overrides it), and the context it was exported in."""

    ctx: ExportContext
    role: str = ROLE
    group: str = GROUP
    hosts_var: str = "tuitune_hosts"
    what: str = "NIC tuning"

    @property
    def hosts(self) -> Expr:
        return Expr("{{ " + self.hosts_var + " | default('" + self.group + "') }}")


def playbook(ends: Sequence[End]) -> str:
    play: list[Node] = [
        {
            "name": f"Tuitune: {e.what} exported from {e.ctx.host}",
            "hosts": e.hosts,
            "become": True,
            "gather_facts": False,
            "roles": [e.role],
        }
        for e in ends
    ]
    return dump(play, ["ansible-playbook -i inventory.yml playbook.yml [--check --diff]"])


def verify_playbook(ends: Sequence[End]) -> str:
    argv = Expr(
        "{{ [tuitune_command, 'verify', '--installed']"
        " + ([] if tuitune_root == '/' else ['--root', tuitune_root]) }}"
    )
    play: list[Node] = [
        {
            "name": "Tuitune: fleet drift report (a host whose live state differs fails)",
            "hosts": e.hosts,
            "become": True,
            "gather_facts": False,
            "vars_files": ["roles/" + e.role + "/defaults/main.yml"],
            "tasks": [
                {
                    "name": "Tuitune: tuitune verify --installed",
                    "ansible.builtin.command": {"argv": argv},
                    "register": "tuitune_verify",
                    "changed_when": False,
                    "failed_when": Expr("tuitune_verify.rc != 0"),
                }
            ],
        }
        for e in ends
    ]
    return dump(play, ["ansible-playbook -i inventory.yml verify.yml"])


def inventory(ends: Sequence[End], names: Sequence[str] = ()) -> str:
    """The example inventory; with `names` (one checked host name per end), the real one."""
    doc: dict[str, Node] = {}
    for n, e in enumerate(ends):
        hosts: dict[str, Node] = {
            f"host{2 * n + i}.example.org": {IFACE_VAR: e.ctx.ifname} for i in (1, 2)
        }
        if len(ends) > 1:  # a pair: one host per end
            hosts = {f"{e.group.removeprefix('tuitune_')}.example.org": {IFACE_VAR: e.ctx.ifname}}
        if names:
            hosts = {names[n]: {IFACE_VAR: e.ctx.ifname, NETNS_VAR: e.ctx.netns or ""}}
        doc[e.group] = {"hosts": hosts}
    if names:
        return dump(doc, ["Both ends of the link, as exported: each host with its interface."])
    return dump(doc, ["An example: one line per host, its interface name where it differs."])


def _role(
    end: End, plan: ExportPlan, match_note: Sequence[str], install: Install | None = None
) -> dict[str, str]:
    ctx = end.ctx
    files = installed(plan, ctx)
    base = f"roles/{end.role}"
    out = {
        f"{base}/defaults/main.yml": defaults(ctx, match_note, install),
        f"{base}/tasks/main.yml": tasks(files, plan, ctx, install),
        f"{base}/handlers/main.yml": handlers(files, plan, ctx),
    }
    for i in files:
        out[f"{base}/templates/{i.template}"] = _with_iface(i.file.text, ctx)
        if i.nic_local is not None:
            text = spread.nic_local_text(i.file.text)
            out[f"{base}/templates/{i.nic_local}"] = _with_iface(text, ctx)
    return out


PEER_ROLE = "tuitune_nic_peer"
PEER_GROUP = "tuitune_peer"


def pair_files(
    near: tuple[ExportPlan, ExportContext],
    far: tuple[ExportPlan, ExportContext],
    match_note: Sequence[str] = (),
    hosts: Sequence[str] = (),
    install: Install | None = None,
) -> dict[str, str]:
    """One playbook for both ends of a link: this end's role on `tuitune_fleet`, the far
    end's own (from its own journal or show --json file) on `tuitune_peer`, each verified by
    verify.yml. `hosts`: the two ends' host names (checked), for an inventory.yml of both;
    not written when they are one name (one host's variables cannot differ by group)."""
    ends = [
        End(near[1], what="NIC tuning (this end)"),
        End(far[1], PEER_ROLE, PEER_GROUP, "tuitune_peer_hosts", "NIC tuning (the far end)"),
    ]
    out = {
        "playbook.yml": playbook(ends),
        "verify.yml": verify_playbook(ends),
        "inventory.example.yml": inventory(ends),
        ".ansible-lint": LINT_CONFIG,
    }
    if len(hosts) == 2 and hosts[0] != hosts[1]:
        out["inventory.yml"] = inventory(ends, hosts)
    out |= _role(ends[0], near[0], match_note, install)
    out |= _role(ends[1], far[0], match_note, install)
    return out


def role_files(
    plan: ExportPlan,
    ctx: ExportContext,
    match_note: Sequence[str] = (),
    install: Install | None = None,
) -> dict[str, str]:
    """Every file of the playbook and role: {path relative to the output directory: text}
    (with `install`, the wheelhouse's files come from `install_files`)."""
    ends = [End(ctx)]
    out = {
        "playbook.yml": playbook(ends),
        "verify.yml": verify_playbook(ends),
        "inventory.example.yml": inventory(ends),
        ".ansible-lint": LINT_CONFIG,
    }
    out |= _role(ends[0], plan, match_note, install)
    return out
