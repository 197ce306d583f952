# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""For runme.sh: the fleet's inventory and the libvirt inventory of its domains, read together
by ansible-inventory --list, give each workspace host its domain's variables.

check_inventory.py LIST.json STATE_DIR MEMBER..."""

from __future__ import annotations

import json
import sys
import typing as t


def plain(value: t.Any) -> t.Any:
    """The value without the markers ansible-inventory puts on strings an inventory plugin gave."""
    if isinstance(value, dict):
        if set(value) == {"__ansible_unsafe"}:
            return value["__ansible_unsafe"]
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def main() -> int:
    listed_path, state_dir, *members = sys.argv[1:]
    with open(listed_path, encoding="utf-8") as stream:
        listed = plain(json.load(stream))
    hostvars = listed["_meta"]["hostvars"]
    for group in ("workspaces", "state_shutoff", "hypervisor_test_host"):
        found = sorted(listed.get(group, {}).get("hosts", []))
        assert found == sorted(members), f"group {group}: {found}, expected {members}"
    for member in members:
        host = hostvars[member]
        with open(f"{state_dir}/{member}.json", encoding="utf-8") as stream:
            agent_id = json.load(stream)["resources"]["workspace_agent.main"]["computed"]["id"]
        # The fleet's variables and the domain's, on one host.
        assert host["workspace_fleet_hypervisor"] == "test_host", host
        assert host["libvirt_name"] == member, host
        assert host["libvirt_state"] == "shutoff", host
        assert host["libvirt_workspace"]["agent_id"] == agent_id, (member, host["libvirt_workspace"])
        # Each workspace is named after its host, and its owner is the one the inventory gives.
        assert host["libvirt_workspace"]["name"] == member, (member, host["libvirt_workspace"])
        owner = host.get("workspace_vm_owner_name") or "default"  # else the owner lookup's, without CODER_WORKSPACE_OWNER
        assert host["libvirt_workspace"]["owner"] == owner, (member, host["libvirt_workspace"])
        assert "ansible_host" not in host, host  # not running: no address
    print(f"{len(members)} workspace hosts carry their domains' variables")
    return 0


if __name__ == "__main__":
    sys.exit(main())
