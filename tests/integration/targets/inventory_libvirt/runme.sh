#!/usr/bin/env bash
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# The libvirt inventory plugin on the real test host: a guest that takes a DHCP lease on the
# test network, a domain that is never started and a stopped workspace made by the
# workspace_vm role (up.yml), then ansible-inventory --graph
# and --list, a play that reaches the hosts through the inventory, the cache, the guest
# agent source, domains with hostile names, a cache directory others can write to, and a
# hypervisor that does not answer (its URI with a password, which must
# show nowhere). The guests are removed whatever happens (down.yml).
set -euo pipefail
trap 'echo "runme.sh failed at line $LINENO" >&2' ERR

INVENTORY_TEST_DIR=$(mktemp -d "${OUTPUT_DIR:-/tmp}/inventory-libvirt.XXXXXX")
export INVENTORY_TEST_DIR
work=$INVENTORY_TEST_DIR
export ANSIBLE_ROLES_PATH=..
# up.yml and down.yml run on the implicit localhost.
export ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false
# The test host's settings, as ansible-test hands them to the role targets.
extra=()
if [ -f ../../integration_config.yml ]; then extra=(-e @../../integration_config.yml); fi
cleanup() {
  ansible-playbook down.yml "${extra[@]}" || true
  rm -rf "$work"
}
trap cleanup EXIT

# The workspace the workspace_vm role makes in up.yml (and removes in down.yml).
export CODER_WORKSPACE_OWNER=joe CODER_WORKSPACE_NAME=api
ansible-playbook up.yml "${extra[@]}" "$@"
expected=$work/expected.json
get() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$expected" "$1"; }
uri=$(get uri)
run_name=$(get run_name)
off_name=$(get off_name)
ws_name=$(get ws_name)

# --graph: the groups of the hypervisor, of the states, and the constructed ones.
ansible-inventory -i "$work/test.libvirt.yml" --graph > "$work/graph.txt"
cat "$work/graph.txt"
python3 check_inventory.py graph "$expected" "$work/graph.txt"

# --list: every host variable; ansible_host is the lease's address.
ansible-inventory -i "$work/test.libvirt.yml" --list "$@" --output "$work/list.json"
python3 check_inventory.py list "$expected" "$work/list.json"

# A play on the inventory reaches the guest by its variables (the busybox guest runs no SSH
# server: the play asserts what a connection would use).
ansible-playbook -i "$work/test.libvirt.yml" reach.yml -e "@$expected" "$@"

# Addresses from the lease only, running domains only; from the guest agent only (the test
# guest has none: no address, no ansible_host, and no failure).
ansible-inventory -i "$work/lease.libvirt.yml" --list --output "$work/lease.json"
python3 check_inventory.py lease "$expected" "$work/lease.json"
ansible-inventory -i "$work/agent.libvirt.yml" --list --output "$work/agent.json"
python3 check_inventory.py agent "$expected" "$work/agent.json"

# The cache: a domain removed after the first run is still listed from the cache, until
# --flush-cache reads the hypervisor again.
ansible-inventory -i "$work/cached.libvirt.yaml" --list --output "$work/cached1.json"
python3 check_inventory.py hosts "$work/cached1.json" "$off_name" "$run_name" "$ws_name"
[ -n "$(ls -A "$work/cache")" ]
virsh -q -c "$uri" undefine "$off_name"
ansible-inventory -i "$work/cached.libvirt.yaml" --list --output "$work/cached2.json"
python3 check_inventory.py hosts "$work/cached2.json" "$off_name" "$run_name" "$ws_name"
ansible-inventory -i "$work/cached.libvirt.yaml" --list --flush-cache --output "$work/cached3.json"
python3 check_inventory.py hosts "$work/cached3.json" "$run_name" "$ws_name"

hostile_start=$SECONDS
# Domains another user named all, localhost and hypervisor_<x>: each left out with a warning
# naming it and its hypervisor, the other hosts listed. The same run has its cache in a
# directory others can write to: not used (a warning), the hosts read from the hypervisor,
# nothing written there.
mkdir -m 0777 "$work/unsafe-cache"
chmod 0777 "$work/unsafe-cache"
ansible-inventory -i "$work/hostile.libvirt.yml" --list --output "$work/hostile.json" "$@" > "$work/hostile.log" 2>&1
cat "$work/hostile.log"
python3 check_inventory.py hosts "$work/hostile.json" "$run_name" "$ws_name"  # $off_name is gone (above)
prefix=$(get prefix)
for name in all localhost "hypervisor_${prefix//-/_}"; do
  grep -qF "the domain '$name' of hypervisor test_host ($uri) is left out of the inventory" "$work/hostile.log"
done
grep -qF "the inventory cache in $work/unsafe-cache is not used: $work/unsafe-cache is writable by group or others (mode 0777)" "$work/hostile.log"
[ -z "$(ls -A "$work/unsafe-cache")" ]
echo "hostile names and unsafe cache: $((SECONDS - hostile_start)) s"

# A hypervisor that does not answer (nothing listens on port 1), its URI with a password.
password=DVTSECRET-inventory-$(python3 -c 'import secrets; print(secrets.token_hex(8))')
for file in unreachable skip; do
  cat > "$work/$file.libvirt.yml" <<YAML
plugin: devinfra.providers.libvirt
names: ["$run_name"]
skip_unreachable: $([ "$file" = skip ] && echo true || echo false)
uris:
  - uri: "$uri"
    name: test_host
  - uri: "qemu+tcp://jane:$password@127.0.0.1:1/system"
    name: gone
YAML
done
# It fails the source: Ansible warns and has no host from it, or fails with
# inventory_any_unparsed_is_failed.
ansible-inventory -i "$work/unreachable.libvirt.yml" --list --output "$work/unreachable.json" "$@" > "$work/unreachable.log" 2>&1
cat "$work/unreachable.log"
python3 check_inventory.py hosts "$work/unreachable.json"
grep -q "hypervisor gone (qemu+tcp://jane:\*\*\*\*\*\*\*\*@127.0.0.1:1/system): Unable to Connect to Libvirt" "$work/unreachable.log"
if ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED=true ansible-inventory -i "$work/unreachable.libvirt.yml" --list "$@" > "$work/failed.log" 2>&1; then
  echo "an unreachable hypervisor did not fail the inventory" >&2
  exit 1
fi
cat "$work/failed.log"
grep -q "Completely failed to parse inventory source" "$work/failed.log"
# skip_unreachable: a warning, and the hosts of the hypervisors that answer.
ansible-inventory -i "$work/skip.libvirt.yml" --graph "$@" > "$work/skip.log" 2>&1
cat "$work/skip.log"
grep -q "hypervisor gone (qemu+tcp://jane:\*\*\*\*\*\*\*\*@127.0.0.1:1/system): .*its domains are left out (skip_unreachable)" "$work/skip.log"
grep -q -- "--$run_name\$" "$work/skip.log"
grep -q "@hypervisor_gone:" "$work/skip.log"
# The password shows in no output.
if grep -rlF -- "$password" "$work"/*.log "$work"/*.json; then
  echo "the URI's password leaked" >&2
  exit 1
fi
