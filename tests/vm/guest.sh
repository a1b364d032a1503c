#!/usr/bin/env bash
# Runs INSIDE the guest scripts/vm boots (as root, on the guest's own kernel): loads the NIC
# drivers, brings both NICs up, runs `pytest -m vm tests/vm` and leaves its exit status and
# junit XML in OUT, a directory shared with the host. Never run it on a host.
#   tests/vm/guest.sh OUT [PYTEST ARGS...]
set -u
out=$1; shift
grep -qw tuitune_vm=1 /proc/cmdline || { echo "guest.sh: not in the bench's guest" >&2; exit 3; }
export TUITUNE_VM=1 PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 TERM=xterm-256color
cd "$(dirname "$0")/../.."
modprobe e1000e && modprobe virtio_net || { echo 3 >"$out/rc"; exit 3; }
ip link set lo up
# The drivers name their netdevs asynchronously: wait (bounded) for both.
for _ in $(seq 100); do
  n=0
  for d in /sys/class/net/*/device/driver; do
    case "$(readlink "$d")" in */e1000e|*/virtio_net) n=$((n + 1)) ;; esac
  done
  [ "$n" -ge 2 ] && break
  sleep 0.2
done
for d in /sys/class/net/*; do
  [ -e "$d/device" ] && ip link set "$(basename "$d")" up
done
echo "guest.sh: $(uname -r), $(nproc) CPUs, $(ls -d /sys/devices/system/node/node* | wc -l) NUMA nodes"
start=$(date +%s)
.venv/bin/python -m pytest -p no:cacheprovider -m vm tests/vm -v -rA \
  --junitxml="$out/junit.xml" "$@"
rc=$?
echo "guest.sh: pytest exit $rc after $(( $(date +%s) - start )) s"
echo "$rc" >"$out/rc"
