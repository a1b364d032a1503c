#!/bin/sh
# NetworkManager settings for eno49 on fixture-host: what tuitune changed that NM can say.
# Written by tuitune 0.1.0.dev0 on 2025-01-02 10:00 UTC.
# NetworkManager runs here: this sets them on the connection that has the device now;
# they apply at its next activation (`nmcli connection up NAME` applies them now, and
# takes the link down for a moment).
# tuitune-export: nm iface=eno49 netns=-
set -e
conn=$(nmcli -g GENERAL.CONNECTION device show eno49)
[ -n "$conn" ] || { echo "eno49: no NetworkManager connection" >&2; exit 1; }
nmcli connection modify "$conn" \
    ethtool.channels-combined 2 \
    ethtool.ring-rx 4096 \
    ethtool.ring-tx 2048 \
    ethtool.coalesce-adaptive-rx 0 \
    ethtool.coalesce-rx-usecs 100 \
    ethtool.pause-autoneg off \
    ethtool.pause-rx off \
    ethtool.feature-gro off \
    ethtool.feature-tx-checksum-ip-generic off \
    ethtool.feature-tx-scatter-gather off \
    ethernet.mtu 9000
