#!/bin/sh
# Install tuitune from this wheelhouse (scripts/wheelhouse built it), with no network:
#   ./install.sh [--venv DIR] [--bindir DIR] [--datadir DIR] [--python PYTHON]
# Defaults: a venv in /opt/tuitune, the command linked as /usr/local/bin/tuitune (where the
# affinity unit `tuitune export` writes looks, and on sudo's secure_path), bash/zsh/fish
# completions and the man page under /usr/local/share. Run it as root for those; a second run
# upgrades in place. PYTHON must be CPython 3.11 or newer with its venv module.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
venv=/opt/tuitune
bindir=/usr/local/bin
datadir=/usr/local/share
python=python3

die() { echo "install.sh: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
  case "$1" in
    --venv|--bindir|--datadir|--python)
      [ $# -ge 2 ] || die "$1 needs a value"
      case "$1" in
        --venv) venv=$2 ;; --bindir) bindir=$2 ;; --datadir) datadir=$2 ;; --python) python=$2 ;;
      esac
      shift 2 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done

command -v "$python" >/dev/null 2>&1 || die "no $python: install Python 3.11 or newer"
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
  || die "tuitune needs Python 3.11 or newer; $python is $("$python" -V 2>&1)"
"$python" -c 'import venv, ensurepip' 2>/dev/null \
  || die "$python has no venv module (Debian, Ubuntu: apt-get install python3-venv)"

# A venv runs its base interpreter: one under a private directory (root's pyenv in /root, say)
# leaves tuitune to root alone, "Permission denied" for every other user. Say so now.
real=$(readlink -f "$(command -v "$python")")
d=$real
while [ "$d" != / ]; do
  case "$(stat -Lc %A "$d")" in
    *x) d=$(dirname "$d") ;;
    *) echo "install.sh: warning: $real is not reachable by other users ($d is not o+x):" \
         "only root can run this tuitune; --python /usr/bin/python3 installs one for all" >&2
       break ;;
  esac
done

# The unit runs this venv's tuitune as root at boot: nobody else may own or write any of it.
umask 022
if [ "$(id -u)" -eq 0 ] && [ -e "$venv" ] && [ "$(stat -c %u "$venv")" != 0 ]; then
  die "$venv exists and is not root's: remove it or pick another --venv"
fi
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python" -m pip install -q --no-index \
  --find-links "$here/wheels" --require-hashes -r "$here/requirements.txt"

mkdir -p "$bindir"
ln -sfn "$venv/bin/tuitune" "$bindir/tuitune"
# The man page and the bash/zsh/fish completions (scripts/wheelhouse wrote them from this
# wheel's parser), where man and the shells look under /usr/local/share.
(cd "$here/share" && find . -type f) | while IFS= read -r rel; do
  mkdir -p "$(dirname "$datadir/$rel")"
  cp "$here/share/$rel" "$datadir/$rel.new" && chmod 0644 "$datadir/$rel.new"
  mv -f "$datadir/$rel.new" "$datadir/$rel"
done
echo "install.sh: $("$bindir/tuitune" --version) in $venv, linked as $bindir/tuitune"
