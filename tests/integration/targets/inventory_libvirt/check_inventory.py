# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks of ansible-inventory's output, for runme.sh: check_inventory.py CHECK ARGS..."""

from __future__ import annotations

import json
import sys
import typing as t

WORKSPACE = {"owner": "jane", "name": "dev", "agent": {"name": "main"}}


def plain(value: t.Any) -> t.Any:
    """The value without the markers ansible-inventory puts on strings an inventory plugin gave."""
    if isinstance(value, dict):
        if set(value) == {"__ansible_unsafe"}:
            return value["__ansible_unsafe"]
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def load(path: str) -> dict[str, t.Any]:
    with open(path, encoding="utf-8") as stream:
        return t.cast("dict[str, t.Any]", plain(json.load(stream)))


def hosts(inventory: dict[str, t.Any]) -> list[str]:
    names = set(inventory.get("_meta", {}).get("hostvars", {}))
    for name, group in inventory.items():
        if name != "_meta":
            names.update(group.get("hosts", []))
    return sorted(names)


def group(inventory: dict[str, t.Any], name: str) -> list[str]:
    return sorted(inventory.get(name, {}).get("hosts", []))


def check(condition: bool, message: str) -> None:
    if not condition:
        raise SystemExit(f"check_inventory.py: {message}")


def check_graph(expected: dict[str, t.Any], path: str) -> None:
    run, off, ws = expected["run_name"], expected["off_name"], expected["ws_name"]
    with open(path, encoding="utf-8") as stream:
        graph = stream.read()
    # Groups in the order the hosts (sorted by name) first made them.
    wanted = f"""@all:
  |--@ungrouped:
  |--@hypervisor_test_host:
  |  |--{off}
  |  |--{run}
  |  |--{ws}
  |--@state_shutoff:
  |  |--{off}
  |  |--{ws}
  |--@state_running:
  |  |--{run}
  |--@autostarted:
  |  |--{run}
  |--@owner_jane:
  |  |--{run}
  |--@owner_joe:
  |  |--{ws}
"""
    check(graph == wanted, f"the graph is\n{graph}\nexpected\n{wanted}")


def check_list(expected: dict[str, t.Any], path: str) -> None:
    inventory = load(path)
    run, off, ws = expected["run_name"], expected["off_name"], expected["ws_name"]
    check(hosts(inventory) == sorted([run, off, ws]), f"hosts {hosts(inventory)}")
    hostvars = inventory["_meta"]["hostvars"]
    guest = {key: value for key, value in hostvars[run].items() if key not in ("libvirt_id",)}
    wanted = {
        "ansible_host": expected["address"],
        "ansible_user": "jane",
        "memory_mib": 256,
        "libvirt_name": run,
        "libvirt_uuid": expected["run_uuid"],
        "libvirt_state": "running",
        "libvirt_persistent": True,
        "libvirt_autostart": True,
        "libvirt_vcpu": 1,
        "libvirt_vcpu_current": 1,
        "libvirt_memory": 262144,
        "libvirt_current_memory": 262144,
        "libvirt_title": "Jane's dev workspace",
        "libvirt_description": "Built by the inventory test\nsecond line",
        "libvirt_workspace": WORKSPACE,
        "libvirt_interfaces": expected["interfaces"],
        "libvirt_uri": expected["uri"],
        "libvirt_hypervisor": "test_host",
        "libvirt_hypervisor_host": None,
    }
    check(guest == wanted, f"the guest's variables are\n{json.dumps(guest, indent=2)}\nexpected\n{json.dumps(wanted, indent=2)}")
    check(isinstance(hostvars[run]["libvirt_id"], int) and hostvars[run]["libvirt_id"] > 0, "libvirt_id of the running guest")
    stopped = hostvars[off]
    check("ansible_host" not in stopped, "the stopped domain has an ansible_host")
    check(stopped["ansible_user"] == "root", "the stopped domain's ansible_user (composed default)")
    check(
        (stopped["libvirt_state"], stopped["libvirt_id"], stopped["libvirt_autostart"], stopped["libvirt_interfaces"], stopped["libvirt_workspace"])
        == ("shutoff", None, False, [], {}),
        f"the stopped domain's variables {stopped}",
    )
    # What the workspace_vm role wrote into its domain.
    workspace = hostvars[ws]
    role_wrote = {"name": "api", "owner": "joe", "template": "", "template_version": "", "agent": "main", "agent_id": expected["ws_agent_id"]}
    check(workspace["libvirt_workspace"] == role_wrote, f"the role's workspace metadata {workspace['libvirt_workspace']}")
    check(
        (workspace["libvirt_state"], workspace["libvirt_vcpu"], workspace["libvirt_memory"], workspace["ansible_user"]) == ("shutoff", 1, 262144, "joe"),
        f"the role's domain {workspace}",
    )
    check(group(inventory, "hypervisor_test_host") == sorted([run, off, ws]), "group hypervisor_test_host")
    check(group(inventory, "state_running") == [run], "group state_running")
    check(group(inventory, "state_shutoff") == sorted([off, ws]), "group state_shutoff")
    check(group(inventory, "autostarted") == [run], "group autostarted")
    check(group(inventory, "owner_jane") == [run], "group owner_jane")
    check(group(inventory, "owner_joe") == [ws], "group owner_joe")


def check_lease(expected: dict[str, t.Any], path: str) -> None:
    inventory = load(path)
    run = expected["run_name"]
    check(hosts(inventory) == [run], f"states: [running] lists {hosts(inventory)}")
    check(inventory["_meta"]["hostvars"][run]["ansible_host"] == expected["address"], "ansible_host from the lease")


def check_agent(expected: dict[str, t.Any], path: str) -> None:
    inventory = load(path)
    run = expected["run_name"]
    guest = inventory["_meta"]["hostvars"][run]
    check("ansible_host" not in guest and guest["libvirt_interfaces"] == [], f"the agent source gave {guest.get('libvirt_interfaces')}")


def check_hosts(path: str, *names: str) -> None:
    inventory = load(path)
    check(hosts(inventory) == sorted(names), f"hosts {hosts(inventory)}, expected {sorted(names)}")


def main(argv: list[str]) -> None:
    name, args = argv[0], argv[1:]
    if name == "hosts":
        check_hosts(*args)
        return
    with open(args[0], encoding="utf-8") as stream:
        expected = json.load(stream)
    {"graph": check_graph, "list": check_list, "lease": check_lease, "agent": check_agent}[name](expected, args[1])


if __name__ == "__main__":
    main(sys.argv[1:])
