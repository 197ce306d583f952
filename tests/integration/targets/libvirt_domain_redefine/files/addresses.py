# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Print what the guest sees of a domain's devices, from its persistent definition: the address
(and alias) of each disk by target dev, each interface by MAC, each controller by type and index.

    python3 addresses.py URI DOMAIN
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET


def _seen(device: ET.Element) -> dict[str, object]:
    address = device.find("address")
    alias = device.find("alias")
    return {"address": dict(sorted(address.attrib.items())) if address is not None else None, "alias": alias.get("name") if alias is not None else None}


def main() -> None:
    uri, name = sys.argv[1:3]
    xml = subprocess.run(["virsh", "-c", uri, "dumpxml", "--inactive", name], check=True, capture_output=True, text=True).stdout
    devices = ET.fromstring(xml).find("devices")
    assert devices is not None
    out = {
        "disks": {d.find("target").get("dev"): _seen(d) for d in devices.iter("disk")},  # type: ignore[union-attr]
        "interfaces": {i.find("mac").get("address"): _seen(i) for i in devices.iter("interface")},  # type: ignore[union-attr]
        "controllers": {f"{c.get('type')}/{c.get('index')}": _seen(c) for c in devices.iter("controller")},
    }
    json.dump(out, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
