#!/usr/bin/env bash
# Runs INSIDE the guest scripts/vm boots (as root, on the guest's own kernel): loads the NIC
# drivers (and netdevsim), brings the NICs up, runs the `vm` tests and leaves their exit status and junit XML
# in OUT, a directory shared with the host. Never run it on a host.
#   tests/vm/guest.sh OUT BOOT [PYTEST ARGS...]
# BOOT 1: every `vm` test but the reboot test's second half (OUT/rc, OUT/junit.xml).
# BOOT 2: only that second half (OUT/rc2, OUT/junit-boot2.xml). It runs what a booting Debian
# machine runs itself (tests/vm/test_reboot.py), so here no udevd runs (the one virtme-ng
# started is stopped) and the NIC drivers are not loaded: udev's coldplug loads them.
set -u
out=$1 boot=$2; shift 2
grep -qw tuitune_vm=1 /proc/cmdline || { echo "guest.sh: not in the bench's guest" >&2; exit 3; }
export TUITUNE_VM=1 TUITUNE_VM_OUT="$out" TUITUNE_VM_BOOT="$boot" PYTHONDONTWRITEBYTECODE=1 \
  PYTHONUNBUFFERED=1 PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 TERM=xterm-256color
# scripts/vm shares the checkout and the venv's standard library again, read-only, to be
# mounted with the guest's own cache (OUT/fastfs: TAG PATH per line); the root's 9p has none.
if [ -f "$out/fastfs" ]; then
  while read -r tag path; do
    mount -t 9p -o trans=virtio,version=9p2000.L,cache=loose,msize=512000,ro "$tag" "$path" \
      || echo "guest.sh: $tag not mounted over $path (the run goes on, slower)" >&2
  done <"$out/fastfs"
fi
cd "$(dirname "$0")/../.." && cd "$(pwd -P)"  # again: the old cwd is under the mount
rcfile="$out/rc" junit="$out/junit.xml"
[ "$boot" = 1 ] || { rcfile="$out/rc$boot" junit="$out/junit-boot$boot.xml"; }
# virtme-ng's /etc is a throwaway overlay: the directories `tuitune export --install` writes
# are the host's OUT/persist/etc/..., the same in both boots, so boot 2 finds boot 1's files.
for d in sysctl.d udev/rules.d systemd/system systemd/network tuitune modprobe.d; do
  mkdir -p "/etc/$d" && mount --bind "$out/persist/etc/$d" "/etc/$d" \
    || { echo "guest.sh: cannot bind $out/persist/etc/$d over /etc/$d" >&2; echo 3 >"$rcfile"; exit 3; }
done
# The exported unit runs the first tuitune in systemd's search path: as installed, the
# checkout's (the guest's /usr is a throwaway overlay too, so each boot links it again).
[ -e /usr/local/bin/tuitune ] || ln -s "$PWD/.venv/bin/tuitune" /usr/local/bin/tuitune
if [ "$boot" != 1 ]; then
  # virtme-ng's udevd loaded and named the NICs before this script ran, without the files
  # boot 1 installed: stop it and unload the drivers. The test then starts udevd, whose
  # coldplug loads them again (modalias), as a Debian boot does for a NIC driver.
  udevadm control --exit || echo "guest.sh: udevadm control --exit failed" >&2
  modprobe -r e1000e virtio_net vmxnet3 || { echo "guest.sh: cannot unload the NIC drivers" >&2; echo 3 >"$rcfile"; exit 3; }
else
  modprobe e1000e && modprobe virtio_net && modprobe vmxnet3 && modprobe virtio_blk \
    || { echo 3 >"$rcfile"; exit 3; }
  # netdevsim, built by scripts/vm for this kernel: device 1, one port, 4 queues. Its
  # debugfs sets the ring maxima (tests/vm/test_netdevsim.py).
  mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
  modprobe psample && insmod "$out/netdevsim.ko" && echo "1 1 4" >/sys/bus/netdevsim/new_device \
    || { echo "guest.sh: cannot load netdevsim" >&2; echo 3 >"$rcfile"; exit 3; }
fi
ip link set lo up
# The drivers name their netdevs asynchronously: wait (bounded) for all four (boot 1).
for _ in $(seq 100); do
  [ "$boot" = 1 ] || break
  n=0
  for d in /sys/class/net/*/device/driver; do
    case "$(readlink "$d")" in */e1000e|*/virtio_net|*/vmxnet3|*/netdevsim) n=$((n + 1)) ;; esac
  done
  [ "$n" -ge 4 ] && break
  sleep 0.2
done
echo "guest.sh: boot $boot, $(uname -r), $(nproc) CPUs, $(ls -d /sys/devices/system/node/node* | wc -l) NUMA nodes"
start=$(date +%s)
if [ "$boot" = 1 ]; then
  for d in /sys/class/net/*; do
    [ -e "$d/device" ] && ip link set "$(basename "$d")" up
  done
  .venv/bin/python -m pytest -p no:cacheprovider -m "vm and not second_boot" tests/vm -v -rA \
    --junitxml="$junit" "$@"
else
  .venv/bin/python -m pytest -p no:cacheprovider -m "vm and second_boot" tests/vm/test_reboot.py \
    -v -rA --junitxml="$junit" "$@"
fi
rc=$?
echo "guest.sh: boot $boot: pytest exit $rc after $(( $(date +%s) - start )) s"
echo "$rc" >"$rcfile"
