#!/bin/sh
# irqbalance --policyscript. Written by tuitune 0.1.0.dev0 on 2025-01-02 10:00 UTC.
# irqbalance runs it for each IRQ (the IRQ number is the last argument) and leaves
# an IRQ alone when it prints ban=true: here, the IRQs of the queues tuitune pins,
# found by queue name (IRQ numbers change) in:
#   /etc/tuitune/affinity-*.conf
PROC="${TUITUNE_PROC:-/proc}"
for irq in "$@"; do :; done
case "$irq" in ''|*[!0-9]*) exit 0 ;; esac
pinned=$(sed -n 's/^\([^#= ][^= ]*\) *=.*/\1/p' /etc/tuitune/affinity-*.conf 2>/dev/null)
[ -n "$pinned" ] || exit 0
for dir in "$PROC/irq/$irq"/*/; do
    [ -d "$dir" ] || continue
    name="${dir%/}"
    name="${name##*/}"
    if printf '%s\n' "$pinned" | grep -qxF -e "$name"; then
        echo ban=true
        exit 0
    fi
done
exit 0
