#!/usr/bin/env bash
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# A private libvirt daemon for the faults_libvirt target, so that the target can kill it
# without touching the shared one on qemu:///system: libvirtd in session mode as an
# unprivileged user, with every directory (config, state, socket) under DIR.
#
#   private_libvirtd.sh start DIR    start it (again); prints the URI to connect to
#   private_libvirtd.sh kill DIR     SIGKILL, as a crash or an OOM kill would stop it
#   private_libvirtd.sh stop DIR     SIGTERM and wait (cleanup)
set -euo pipefail

cmd=${1:?usage: $0 start|kill|stop DIR}
dir=${2:?usage: $0 start|kill|stop DIR}
user=${PRIVATE_LIBVIRTD_USER:-nobody}
sock=$dir/run/libvirt/libvirt-sock
pidfile=$dir/run/libvirt/libvirtd.pid

pid() { [ -s "$pidfile" ] && cat "$pidfile"; }
alive() { local p; p=$(pid) && kill -0 "$p" 2>/dev/null; }

case $cmd in
  start)
    mkdir -p "$dir"/{config,cache,run}
    chown -R "$user:" "$dir"
    rm -f "$sock"
    runuser -u "$user" -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$dir" \
      XDG_CONFIG_HOME="$dir/config" XDG_CACHE_HOME="$dir/cache" XDG_RUNTIME_DIR="$dir/run" \
      libvirtd --timeout 0 >>"$dir/libvirtd.log" 2>&1 &
    uri="qemu+unix:///session?socket=$sock"
    for _ in $(seq 300); do
      if alive && virsh -q -c "$uri" version >/dev/null 2>&1; then
        echo "$uri"
        exit 0
      fi
      sleep 0.1
    done
    echo "the private libvirtd did not answer on $sock within 30 s (see $dir/libvirtd.log)" >&2
    exit 1
    ;;
  kill)
    p=$(pid) || { echo "no pid file in $dir" >&2; exit 1; }
    kill -KILL "$p"
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || exit 0; sleep 0.1; done
    exit 1
    ;;
  stop)
    p=$(pid) || exit 0
    kill -TERM "$p" 2>/dev/null || exit 0
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || exit 0; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
    ;;
  *) echo "usage: $0 start|kill|stop DIR" >&2; exit 2 ;;
esac
