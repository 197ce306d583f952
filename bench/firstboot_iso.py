# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Seed ISO build time and size: the collection's pycdlib builder against genisoimage.

Both build the same cidata image (user-data, meta-data, network-config; volume label cidata;
Joliet and Rock Ridge) R times, in turns; genisoimage is timed as the process a user would
run (spawn included), the builder as the module runs it (in-process, written to a temporary
file, fsynced, renamed) and alone (in memory).
Prints medians, the ratio and both sizes; --json writes them too.

    PYTHONPATH=<dir holding ansible_collections> python bench/firstboot_iso.py [--rounds R] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.firstboot import write_atomic
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.iso import IsoFile, build_iso

FILES = {
    "user-data": "#cloud-config\nhostname: web01\nusers:\n  - name: ops\n    ssh_authorized_keys: [ssh-ed25519 AAAAC3Nza... ops@example]\n"
    "runcmd:\n  - [sh, -c, 'echo ready > /dev/ttyS0']\n",
    "meta-data": "instance-id: web01\nlocal-hostname: web01\n",
    "network-config": "version: 2\nethernets:\n  eth0:\n    dhcp4: true\n",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--json")
    args = parser.parse_args()
    genisoimage = shutil.which("genisoimage")
    if genisoimage is None:
        raise SystemExit("genisoimage is not installed (apt-get install genisoimage)")
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in FILES.items():
            with open(os.path.join(tmp, name), "w", encoding="utf-8") as fh:
                fh.write(text)
        ours, theirs, in_memory = [], [], []
        for _round in range(args.rounds):
            start = time.perf_counter()
            build_iso("cidata", [IsoFile(n, t.encode()) for n, t in FILES.items()])
            in_memory.append(time.perf_counter() - start)
            start = time.perf_counter()
            write_atomic(os.path.join(tmp, "ours.iso"), build_iso("cidata", [IsoFile(n, t.encode()) for n, t in FILES.items()]), 0o644)
            ours.append(time.perf_counter() - start)
            start = time.perf_counter()
            subprocess.run(
                [
                    genisoimage,
                    "-quiet",
                    "-output",
                    os.path.join(tmp, "theirs.iso"),
                    "-volid",
                    "cidata",
                    "-joliet",
                    "-rock",
                    "-input-charset",
                    "utf-8",
                    *(os.path.join(tmp, n) for n in FILES),
                ],
                check=True,
            )
            theirs.append(time.perf_counter() - start)
        result = {
            "rounds": args.rounds,
            "pycdlib_in_memory_median_s": round(statistics.median(in_memory), 5),
            "pycdlib_median_s": round(statistics.median(ours), 5),
            "genisoimage_median_s": round(statistics.median(theirs), 5),
            "ratio_pycdlib_over_genisoimage": round(statistics.median(ours) / statistics.median(theirs), 2),
            "pycdlib_size_bytes": os.path.getsize(os.path.join(tmp, "ours.iso")),
            "genisoimage_size_bytes": os.path.getsize(os.path.join(tmp, "theirs.iso")),
        }
    for key, value in result.items():
        print(f"{key}: {value}")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1)


if __name__ == "__main__":
    main()
