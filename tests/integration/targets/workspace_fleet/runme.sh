#!/usr/bin/env bash
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# The workspace_fleet playbook on the real test host: its first play prepares the hypervisor
# (a pool and an isolated network of this run), then three workspaces of an inventory (empty
# disks, built and not started) are brought up in parallel on it: in check mode (nothing
# made), for real, in check mode again and for real again (nothing changed). The libvirt
# inventory plugin then finds the fleet's domains under the same host names. One workspace is
# destroyed with --limit, one by its host variable, then the whole fleet. Nothing is left
# behind, whatever happens (the fleet destroyed, then virsh for what is left).
set -euo pipefail
trap 'echo "runme.sh failed at line $LINENO" >&2' ERR

FLEET_TEST_DIR=$(mktemp -d "${OUTPUT_DIR:-/tmp}/workspace-fleet.XXXXXX")
export FLEET_TEST_DIR
work=$FLEET_TEST_DIR
export ANSIBLE_ROLES_PATH=..
export ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false
# The test host's settings, as ansible-test hands them to the role targets.
extra=()
if [ -f ../../integration_config.yml ]; then extra=(-e @../../integration_config.yml); fi
# The fleet's inventory, and the libvirt inventory of its domains.
inventory=(-i "$work/fleet.yml")

cleanup() {
  if [ -f "$work/fleet.yml" ]; then
    ansible-playbook "${inventory[@]}" devinfra.providers.workspace_fleet -e workspace_vm_transition=destroy > "$work/cleanup.log" 2>&1 || cat "$work/cleanup.log"
  fi
  if [ -f "$work/names.json" ]; then
    read -r uri pool pool_path network prefix < <(python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))
print(m["uri"], m["pool"], m["pool_path"], m["network"], m["prefix"])' "$work/names.json")
    for domain in $(virsh -q -c "$uri" list --all --name | grep "^$prefix-" || true); do
      echo "left behind: domain $domain" >&2
      virsh -q -c "$uri" destroy "$domain" >/dev/null 2>&1 || true
      virsh -q -c "$uri" undefine "$domain" >/dev/null 2>&1 || true
    done
    for volume in $(virsh -q -c "$uri" vol-list --pool "$pool" 2>/dev/null | awk '{print $1}' || true); do
      echo "left behind: volume $volume" >&2
      virsh -q -c "$uri" vol-delete --pool "$pool" "$volume" >/dev/null 2>&1 || true
    done
    # The pool and the network the first play made.
    virsh -q -c "$uri" net-destroy "$network" >/dev/null 2>&1 || true
    virsh -q -c "$uri" net-undefine "$network" >/dev/null 2>&1 || true
    virsh -q -c "$uri" pool-destroy "$pool" >/dev/null 2>&1 || true
    virsh -q -c "$uri" pool-undefine "$pool" >/dev/null 2>&1 || true
    rm -rf "$pool_path"
  fi
  rm -rf "$work"
}
trap cleanup EXIT

ansible-playbook setup.yml "${extra[@]}" "$@"
members=$(python3 -c 'import json, sys; print(" ".join(json.load(open(sys.argv[1]))["members"]))' "$work/names.json")
read -r ws1 ws2 ws3 <<< "$members"

# Every run of the fleet with --diff, logged; changed: the sum of the recap's changed=.
fleet() {
  local name=$1
  shift
  ansible-playbook "${inventory[@]}" devinfra.providers.workspace_fleet --diff "$@" 2>&1 | tee "$work/$name.log"
  return "${PIPESTATUS[0]}"
}
changed() {
  sed -nE 's/^[^ ]+ +: ok=[0-9]+ +changed=([0-9]+) .*/\1/p' "$work/$1.log" | awk '{sum += $1} END {print sum + 0}'
}
recap_hosts() {
  sed -nE 's/^([^ ]+) +: ok=.*/\1/p' "$work/$1.log" | sort | xargs
}
verify() {
  ansible-playbook verify.yml -e "{\"present\": $(python3 -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "$@")}"
}

# Two workspaces that would share a domain are refused before anything is made.
python3 - "$work/fleet.yml" "$work/same-domain.yml" "$ws1" "$ws2" <<'PY'
import sys, yaml
source, dest, first, second = sys.argv[1:]
inventory = yaml.safe_load(open(source))
inventory["workspaces"]["hosts"][second] = {"workspace_vm_name": first}
open(dest, "w").write(yaml.safe_dump(inventory))
PY
if ansible-playbook -i "$work/same-domain.yml" devinfra.providers.workspace_fleet -e workspace_fleet_prepare_hosts=false > "$work/same-domain.log" 2>&1; then
  cat "$work/same-domain.log"
  echo "two workspaces with one domain were not refused" >&2
  exit 1
fi
grep -q "workspaces of this run share a domain" "$work/same-domain.log"
verify

# An owner's name of two lines (it goes into the domain's metadata) is refused before anything is made.
python3 - "$work/fleet.yml" "$work/bad-owner.yml" "$ws1" <<'PY'
import sys, yaml
source, dest, first = sys.argv[1:]
inventory = yaml.safe_load(open(source))
inventory["workspaces"]["hosts"][first] = {"workspace_vm_owner_name": "jane\nroot"}
open(dest, "w").write(yaml.safe_dump(inventory))
PY
if ansible-playbook -i "$work/bad-owner.yml" devinfra.providers.workspace_fleet -e workspace_fleet_prepare_hosts=false --limit "$ws1" > "$work/bad-owner.log" 2>&1; then
  cat "$work/bad-owner.log"
  echo "an owner's name with a newline was not refused" >&2
  exit 1
fi
grep -q "workspace_vm_owner_name contains a control character" "$work/bad-owner.log"
verify

# The first play prepares the hypervisor: a pool and a network of this run; a second time it
# changes nothing.
fleet prepare1 --limit hypervisors
[ "$(recap_hosts prepare1)" = test_host ]
[ "$(changed prepare1)" -gt 0 ]
fleet prepare2 --limit hypervisors
[ "$(changed prepare2)" -eq 0 ]

# Bring the fleet up: check mode makes nothing, the real run makes everything, and neither
# a check nor a real run changes anything after it.
fleet check1 --check
[ "$(changed check1)" -gt 0 ]
[ "$(recap_hosts check1)" = "$(printf '%s\n' "$ws1" "$ws2" "$ws3" test_host | sort | xargs)" ]
verify
fleet up1
[ "$(changed up1)" -gt 0 ]
grep -qE "^test_host +: ok=[1-9][0-9]* +changed=0 .* failed=0" "$work/up1.log"  # prepared already
verify "$ws1" "$ws2" "$ws3"
fleet check2 --check
[ "$(changed check2)" -eq 0 ]
fleet up2
[ "$(changed up2)" -eq 0 ]
verify "$ws1" "$ws2" "$ws3"

# The libvirt inventory plugin lists the domains under the names of the fleet's hosts: one
# inventory of both, each workspace with its domain's variables.
ansible-inventory "${inventory[@]}" -i "$work/fleet.libvirt.yml" --list --output "$work/both.json"
python3 check_inventory.py "$work/both.json" "$work/state" "$ws1" "$ws2" "$ws3"

# One member destroyed with --limit: only it goes; the others are not touched.
fleet destroy2 -e workspace_vm_transition=destroy --limit "$ws2"
[ "$(recap_hosts destroy2)" = "$ws2" ]
[ "$(changed destroy2)" -gt 0 ]
verify "$ws1" "$ws3"
fleet destroy2-again -e workspace_vm_transition=destroy --limit "$ws2"
[ "$(changed destroy2-again)" -eq 0 ]

# The inventory says which workspaces are destroyed (a host variable): in a run of the whole
# fleet the first goes, the second stays destroyed, the third is unchanged.
python3 - "$work/fleet.yml" "$ws1" "$ws2" <<'PY'
import sys, yaml
path, *destroyed = sys.argv[1:]
inventory = yaml.safe_load(open(path))
for member in destroyed:
    inventory["workspaces"]["hosts"][member] = {"workspace_vm_transition": "destroy"}
open(path, "w").write(yaml.safe_dump(inventory))
PY
fleet destroy1
[ "$(changed destroy1)" -gt 0 ]
grep -qE "^$ws3 +: ok=[0-9]+ +changed=0 .* failed=0" "$work/destroy1.log"
grep -qE "^$ws2 +: ok=[0-9]+ +changed=0 .* failed=0" "$work/destroy1.log"
verify "$ws3"

# The whole fleet.
fleet destroy-all -e workspace_vm_transition=destroy
[ "$(changed destroy-all)" -gt 0 ]
verify
fleet destroy-all-again -e workspace_vm_transition=destroy
[ "$(changed destroy-all-again)" -eq 0 ]
verify
[ -z "$(ls -A "$work/state")" ]  # no state file, no lock left
