#!/usr/bin/env bash
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# The libvirt_qemu connection plugin on the real test host, with the hosts from the libvirt
# inventory plugin (guest_agent_connection, over a URI of the remote driver's syntax): the Debian
# test guest, booted once with the guest agent's channel, takes a play through its agent (setup,
# copy, command, raw, fetch, the output and time bounds); two busybox guests, one with the
# channel and no agent and one without the channel, make their hosts unreachable with a message
# that names the domain and says what to do. Then day 2 on the same running Debian guest (day2.yml):
# what a person changes on it reaches the guest, live or on a restart. The guests are removed
# whatever happens (down.yml).
set -euo pipefail
trap 'echo "runme.sh failed at line $LINENO" >&2' ERR

CONNECTION_TEST_DIR=$(mktemp -d "${OUTPUT_DIR:-/tmp}/connection-libvirt-qemu.XXXXXX")
export CONNECTION_TEST_DIR
work=$CONNECTION_TEST_DIR
export ANSIBLE_ROLES_PATH=..
export ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false
# An inventory source that fails must fail the run, not leave the plays without hosts.
export ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED=true
extra=()
if [ -f ../../integration_config.yml ]; then extra=(-e @../../integration_config.yml); fi
cleanup() {
  ansible-playbook down.yml "${extra[@]}" || true
  rm -rf "$work"
}
trap cleanup EXIT

start=$SECONDS
ansible-playbook up.yml "${extra[@]}" "$@"
echo "guests started: $((SECONDS - start)) s"

# While the Debian guest boots: the hosts whose agent cannot answer.
ansible-playbook -i "$work/guests.libvirt.yml" -e "@$work/expected.json" errors.yml "$@"
echo "agent errors checked: $((SECONDS - start)) s"

if ! ansible-playbook -i "$work/guests.libvirt.yml" -e "@$work/expected.json" guest.yml "$@"; then
  console=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["console"])' "$work/expected.json")
  echo "--- the end of the Debian guest's console ($console)" >&2
  tail -n 60 "$console" >&2 || true
  exit 1
fi
echo "play through the guest agent done: $((SECONDS - start)) s"

# Day 2 on the same running guest: what a person changes reaches it, live or on a restart.
if ! ansible-playbook -i "$work/guests.libvirt.yml" -e "@$work/expected.json" day2.yml "$@"; then
  echo "--- the end of the Debian guest's console" >&2
  tail -n 60 "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["console"])' "$work/expected.json")" >&2 || true
  exit 1
fi
echo "day 2 on the running guest done: $((SECONDS - start)) s"
