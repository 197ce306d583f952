#!/usr/bin/env bash
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# The real test host: a libvirt daemon with the QEMU driver on qemu:///system, started
# without systemd when nothing serves that URI yet, plus a `dir` storage pool and an
# isolated network with DHCP for the integration tests. Safe to run twice.
#
#   scripts/test-host.sh up       start daemons (if needed), define + start pool and network
#   scripts/test-host.sh down     remove pool and network; stop the daemons libvirtd.sh started
#                                 (--keep-daemon: leave them running)
#   scripts/test-host.sh status   print what is there
#   scripts/test-host.sh env      print the settings as shell assignments
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

URI=qemu:///system
NET=${DEVINFRA_TEST_NETWORK:-devinfra-test}
NET_BRIDGE=${DEVINFRA_TEST_BRIDGE:-dvtbr0}
NET_PREFIX=${DEVINFRA_TEST_SUBNET:-192.168.213}   # a /24 that stays on its bridge (no <forward>)
POOL=${DEVINFRA_TEST_POOL:-devinfra-test}
POOL_DIR=${DEVINFRA_TEST_POOL_DIR:-/var/lib/devinfra-test/pool}

virsh_() { as_root virsh -q -c "$URI" "$@"; }

# KVM only when a real hardware KVM module is loaded: /dev/kvm alone can be PVM, which
# cannot boot stock guest kernels (research: libvirt-real-stack.md §6.1).
domain_type() {
  if [ -e /dev/kvm ] && { [ -d /sys/module/kvm_intel ] || [ -d /sys/module/kvm_amd ]; }; then
    echo kvm
  else
    echo qemu
  fi
}

pool_up() {
  if ! virsh_ pool-info "$POOL" >/dev/null 2>&1; then
    log "defining pool $POOL at $POOL_DIR"
    local xml
    xml=$(mktemp)
    cat >"$xml" <<XML
<pool type='dir'><name>$POOL</name><target><path>$POOL_DIR</path></target></pool>
XML
    virsh_ pool-define "$xml" >/dev/null
    rm -f "$xml"
    virsh_ pool-build "$POOL" >/dev/null
  fi
  as_root mkdir -p "$POOL_DIR"
  [[ $(virsh_ pool-info "$POOL") =~ State:\ +running ]] || virsh_ pool-start "$POOL" >/dev/null
}

network_up() {
  if ! virsh_ net-info "$NET" >/dev/null 2>&1; then
    log "defining isolated network $NET ($NET_PREFIX.0/24 on $NET_BRIDGE)"
    local xml
    xml=$(mktemp)
    cat >"$xml" <<XML
<network>
  <name>$NET</name>
  <bridge name='$NET_BRIDGE' stp='on' delay='0'/>
  <ip address='$NET_PREFIX.1' netmask='255.255.255.0'>
    <dhcp><range start='$NET_PREFIX.100' end='$NET_PREFIX.199'/></dhcp>
  </ip>
</network>
XML
    virsh_ net-define "$xml" >/dev/null
    rm -f "$xml"
  fi
  [[ $(virsh_ net-info "$NET") =~ Active:\ +yes ]] || virsh_ net-start "$NET" >/dev/null
}

up() {
  "$(dirname "$0")/libvirtd.sh" up
  pool_up
  network_up
  status
}

down() {
  if virsh_ version >/dev/null 2>&1; then
    if virsh_ net-info "$NET" >/dev/null 2>&1; then
      virsh_ net-destroy "$NET" >/dev/null 2>&1 || true
      virsh_ net-undefine "$NET" >/dev/null
    fi
    if virsh_ pool-info "$POOL" >/dev/null 2>&1; then
      virsh_ pool-destroy "$POOL" >/dev/null 2>&1 || true
      virsh_ pool-undefine "$POOL" >/dev/null
    fi
  fi
  if [ "${1:-}" != --keep-daemon ]; then
    "$(dirname "$0")/libvirtd.sh" down
  fi
}

status() {
  echo "uri=$URI"
  echo "libvirt=$(virsh_ version 2>/dev/null | awk '/Running hypervisor/{print $3, $4}')"
  echo "domain_type=$(domain_type)"
  echo "pool=$POOL ($(virsh_ pool-info "$POOL" 2>/dev/null | awk '/^State/{print $2}'))"
  echo "network=$NET ($(virsh_ net-info "$NET" 2>/dev/null | awk '/^Active/{print $2}'))"
}

print_env() {
  cat <<ENV
DEVINFRA_TEST_URI=$URI
DEVINFRA_TEST_NETWORK=$NET
DEVINFRA_TEST_POOL=$POOL
DEVINFRA_TEST_POOL_DIR=$POOL_DIR
DEVINFRA_TEST_DOMAIN_TYPE=$(domain_type)
ENV
}

case "${1:-}" in
  up) up ;;
  down) down "${2:-}" ;;
  status) status ;;
  env) print_env ;;
  *) echo "usage: $0 up|down|status|env" >&2; exit 2 ;;
esac
