#!/usr/bin/env bash
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# The local libvirt daemon with the QEMU driver, for qemu:///system. When something already
# answers there (systemd's libvirtd or virtqemud, or an earlier run), nothing is done;
# otherwise libvirtd and virtlogd are started without systemd. Safe to run twice.
#
#   scripts/libvirtd.sh up      make qemu:///system answer
#   scripts/libvirtd.sh down    stop the daemons this script started (and only those)
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

URI=qemu:///system
STARTED_MARK=/run/devinfra-libvirtd.started

answers() { as_root virsh -q -c "$URI" version >/dev/null 2>&1; }
running() { pgrep -x -r R,S,D,I "$1" >/dev/null; }   # -r skips zombies left after a kill

# /dev/kvm as udev leaves it on a stock host (root:kvm 0660). Without udev it is root's alone:
# libvirt then finds KVM unusable for libvirt-qemu but probed usable, and probes QEMU again on
# every call that needs its capabilities (seen: defineXML hanging for minutes).
kvm_device() {
  [ -c /dev/kvm ] || return 0
  getent group kvm >/dev/null || as_root groupadd -r kvm
  as_root chgrp kvm /dev/kvm
  as_root chmod 0660 /dev/kvm
}

# swtpm's local CA (the EK certificates of new emulated TPMs), owned by tss as swtpm-tools'
# postinst leaves it. libvirtd runs swtpm_setup as tss when that user existed at its start, as
# root otherwise: what a root run wrote there makes every later run as tss fail ("Need
# read/write rights on /var/lib/swtpm-localca/.lock.swtpm-localca for user tss").
swtpm_localca() {
  local dir=/var/lib/swtpm-localca
  getent passwd tss >/dev/null && [ -d "$dir" ] && [ ! -L "$dir" ] || return 0
  as_root chown -R -h tss "$dir"   # -h: a link in it is changed itself, never what it names
}

up() {
  kvm_device
  swtpm_localca
  if answers; then return; fi
  log "starting libvirtd and virtlogd without systemd"
  # Debian's QEMU driver resolves user and group libvirt-qemu at start, whatever qemu.conf says.
  getent group libvirt-qemu >/dev/null || as_root groupadd -r libvirt-qemu
  getent group kvm >/dev/null || as_root groupadd -r kvm
  getent passwd libvirt-qemu >/dev/null \
    || as_root useradd -r -g libvirt-qemu -G kvm -d /var/lib/libvirt -s /usr/sbin/nologin libvirt-qemu
  as_root mkdir -p /var/log/libvirt /etc/libvirt   # libvirtd -d exits 1 without the log dir
  # QEMU runs as a stock Debian host runs it: as libvirt-qemu, with libvirt's DAC driver
  # relabelling what a domain names (dynamic_ownership). Earlier versions of this script wrote
  # a qemu.conf that ran it as root: that file (and only that exact file) is removed.
  if [ "$(as_root cat /etc/libvirt/qemu.conf 2>/dev/null)" = "$(printf 'user = "root"\ngroup = "root"')" ]; then
    as_root rm -f /etc/libvirt/qemu.conf
  fi
  running virtlogd || as_root virtlogd -d   # libvirtd -d does not start it; domains need it
  running libvirtd || as_root libvirtd -d
  as_root touch "$STARTED_MARK"
  local _i
  for _i in $(seq 1 600); do
    answers && return
    sleep 0.1
  done
  die "libvirtd did not answer on $URI within 60 s (see /var/log/libvirt/libvirtd.log)"
}

down() {
  as_root test -e "$STARTED_MARK" || return 0
  log "stopping the libvirt daemons started by $0"
  as_root pkill -x libvirtd || true
  as_root pkill -x virtlogd || true
  local _i
  for _i in $(seq 1 100); do
    running libvirtd || running virtlogd || break
    sleep 0.1
  done
  as_root rm -f "$STARTED_MARK"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
