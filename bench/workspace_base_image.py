# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The workspace_vm role's shared base image: the second workspace's volume step against the
first's, and the disk each workspace takes, for a 1 GiB base image.

Each round, on the real daemon's test pool and with a fresh name prefix: workspace 1 runs the
role (transition stop: the domain is defined, never booted) on a pool without the base, so its
volume step verifies the image against its checksum, uploads it into the base volume and makes
its overlay; workspace 2 then finds the base, compares it with the checksum and makes its
overlay; workspace 3 does the same with workspace_vm_base_image_verify false (the base is
trusted by its name and the upload markers, not read); then workspace 1 runs again and changes
nothing, with the checksum and without it (the no-op runs: what they read of the image and the
base). The volume step is the sum of the task times (ansible-core's junit callback) of the
role's base image tasks (tasks/base_image*.yml) and its root disk task. As a reference in the
same round, a full copy of the image into a volume of its own (libvirt_volume with
create.content.url, one task): what every workspace's root disk cost before the base was
shared. Then both workspaces are destroyed with the base (untimed). The image is random data
(no holes: the upload is not shortened by a sparse stream). Prints medians and ratios, and the
allocation (bytes taken in the pool) of each overlay against the base's; writes them as JSON."""

from __future__ import annotations

import argparse
import hashlib
import os
import pathlib
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import typing as t
import xml.etree.ElementTree as ET

import yaml
from benchlib import REPO, write_figures

ROLE_TASKS = REPO / "roles" / "workspace_vm" / "tasks"
ROOT_DISK_TASK = "The root disk"
MIB = 1 << 20


def volume_step_names(role_tasks: pathlib.Path) -> list[str]:
    """The names of the role's base image tasks, read from its task files, and its root disk task."""

    def names(tasks: list[dict[str, t.Any]]) -> list[str]:
        found = []
        for task in tasks:
            if "block" in task:
                found += names(task["block"]) + names(task.get("always", [])) + names(task.get("rescue", []))
            elif "name" in task:
                found.append(task["name"])
        return found

    files = ("base_image.yml", "base_image_upload.yml")
    return [*(name for file in files for name in names(yaml.safe_load((role_tasks / file).read_text()))), ROOT_DISK_TASK]


def make_image(path: pathlib.Path, size: int) -> str:
    """``size`` bytes of random data; returns their sha256."""
    digest = hashlib.sha256()
    with path.open("wb") as handle:
        for _chunk in range(size // (4 * MIB)):
            data = os.urandom(4 * MIB)
            digest.update(data)
            handle.write(data)
    return digest.hexdigest()


def playbook(args: argparse.Namespace, work: pathlib.Path) -> pathlib.Path:
    """The role for one workspace (``-e ws=... prefix=... transition=... prune=...``)."""
    path = work / "workspace.yml"
    path.write_text(
        f"""- hosts: localhost
  connection: local
  gather_facts: false
  vars:
    ansible_python_interpreter: {sys.executable}
  roles:
    - role: devinfra.providers.workspace_vm
      vars:
        workspace_vm_uri: {args.uri}
        workspace_vm_pool: {args.pool}
        workspace_vm_network: {args.network}
        workspace_vm_domain_type: {args.domain_type}
        workspace_vm_name: "{{{{ prefix }}}}-{{{{ ws }}}}"
        workspace_vm_transition: "{{{{ transition | default('stop') }}}}"
        workspace_vm_memory: 256
        workspace_vm_disk_size: 2
        workspace_vm_disk_format: raw
        workspace_vm_wait_for_ip: false
        workspace_vm_base_image: {work / "image.raw"}
        workspace_vm_base_image_checksum: "{{{{ checksum }}}}"
        workspace_vm_base_image_prune: "{{{{ prune | default(false) | bool }}}}"
        workspace_vm_base_image_verify: "{{{{ verify | default(true) | bool }}}}"
        workspace_vm_state_file: "{work}/{{{{ prefix }}}}-{{{{ ws }}}}.json"
        workspace_vm_seed_dir: "{work}/seeds"
"""
    )
    return path


def full_copy_playbook(args: argparse.Namespace, work: pathlib.Path) -> pathlib.Path:
    path = work / "full-copy.yml"
    path.write_text(
        f"""- hosts: localhost
  connection: local
  gather_facts: false
  vars:
    ansible_python_interpreter: {sys.executable}
  tasks:
    - name: {ROOT_DISK_TASK}, a full copy of the image
      devinfra.providers.libvirt_volume:
        uri: {args.uri}
        pool: {args.pool}
        name: "{{{{ prefix }}}}-copy.raw"
        state: "{{{{ state | default('present') }}}}"
        target:
          format:
            type: raw
        create:
          content:
            url: {work / "image.raw"}
"""
    )
    return path


def bytes_read() -> int:
    """What this process and its reaped descendants have read (``rchar`` of /proc/self/io: a
    child's reads are added to its parent's when it is waited for), page cache included."""
    for line in pathlib.Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    return 0


READS: dict[str, int] = {}  # the bytes the last run() read, under "last"


def run(path: pathlib.Path, extra: dict[str, str], junit: pathlib.Path | None = None) -> float:
    """Wall seconds of one ansible-playbook run (it must succeed); task times into ``junit``,
    the bytes the run read into READS["last"]."""
    env = dict(os.environ)
    if junit is not None:
        junit.mkdir(parents=True, exist_ok=True)
        env.update(ANSIBLE_CALLBACKS_ENABLED="ansible.builtin.junit", JUNIT_OUTPUT_DIR=str(junit), JUNIT_HIDE_TASK_ARGUMENTS="yes")
    command = ["ansible-playbook", "-i", "localhost,", str(path)]
    for key, value in extra.items():
        command += ["-e", f"{key}={value}"]
    start, before = time.perf_counter(), bytes_read()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    READS["last"] = bytes_read() - before
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stdout[-4000:]}\n{done.stderr[-2000:]}")
    return elapsed


def step_seconds(junit: pathlib.Path, names: list[str]) -> float:
    """The summed times of the test cases of the tasks named ``names`` (the root disk task's
    name is the start of its full name)."""
    total = 0.0
    for report in junit.glob("*.xml"):
        for case in ET.parse(report).getroot().iter("testcase"):
            name = case.get("name", "")
            task = name.rsplit(" : ", 1)[-1] if " : " in name else name.split(": ", 1)[-1]
            if task in names or task.startswith(ROOT_DISK_TASK):
                total += float(case.get("time", 0))
    return total


def allocation(args: argparse.Namespace, name: str) -> dict[str, int]:
    import libvirt  # noqa: PLC0415 - the benchmark's one direct libvirt call

    conn = libvirt.openReadOnly(args.uri)
    try:
        _type, capacity, allocated = conn.storagePoolLookupByName(args.pool).storageVolLookupByName(name).info()
        return {"capacity": int(capacity), "allocation": int(allocated)}
    finally:
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--size-mib", type=int, default=1024, help="the base image's size (default 1 GiB)")
    parser.add_argument("--uri", default="qemu:///system")
    parser.add_argument("--pool", default="devinfra-test")
    parser.add_argument("--network", default="devinfra-test")
    parser.add_argument("--domain-type", default="qemu")
    parser.add_argument("--work-dir", default="/var/cache/devinfra-test", help="where the image is made (on the libvirt host)")
    parser.add_argument("--json", type=pathlib.Path)
    parser.add_argument(
        "--role-tasks",
        type=pathlib.Path,
        default=ROLE_TASKS,
        help="the task files of the role under test (another version's, with ANSIBLE_COLLECTIONS_PATH naming it)",
    )
    args = parser.parse_args()
    names = volume_step_names(args.role_tasks)

    pathlib.Path(args.work_dir).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.work_dir, prefix="bench-base-image-") as tmp:
        work = pathlib.Path(tmp)
        checksum = make_image(work / "image.raw", args.size_mib * MIB)
        role, copy = playbook(args, work), full_copy_playbook(args, work)
        base = f"base-sha256-{checksum[:16]}.raw"
        rows: list[dict[str, t.Any]] = []
        for index in range(args.rounds):
            prefix = f"bench-{secrets.token_hex(3)}"
            common = {"prefix": prefix, "checksum": f"sha256:{checksum}"}
            row: dict[str, t.Any] = {}
            try:
                subprocess.run(["sync"], check=True)
                row["copy_wall"] = run(copy, {"prefix": prefix}, work / f"junit-{prefix}-copy")
                row["copy_step"] = step_seconds(work / f"junit-{prefix}-copy", [ROOT_DISK_TASK])
                run(copy, {"prefix": prefix, "state": "absent"})
                subprocess.run(["sync"], check=True)
                for ws in ("1", "2", "3"):
                    junit = work / f"junit-{prefix}-{ws}"
                    row[f"ws{ws}_wall"] = run(role, {**common, "ws": ws, "verify": str(ws != "3")}, junit)
                    row[f"ws{ws}_step"] = step_seconds(junit, names)
                # The no-op runs: workspace 1 again, with its checksum, and twice without it (the
                # file's digest names the base: the first such run reads the image, the next ones
                # find its digest recorded, where a role that records nothing reads it every time).
                for key, extra in (("noop", {}), ("noop_no_checksum_first", {"checksum": ""}), ("noop_no_checksum", {"checksum": ""})):
                    junit = work / f"junit-{prefix}-{key}"
                    row[f"{key}_wall"] = run(role, {**common, "ws": "1", **extra}, junit)
                    row[f"{key}_read_mib"] = READS["last"] / MIB
                    row[f"{key}_step"] = step_seconds(junit, names)
                row["base"] = allocation(args, base)
                for ws in ("1", "2", "3"):
                    row[f"ws{ws}_root"] = allocation(args, f"{prefix}-{ws}-root.qcow2")
            finally:
                for ws in ("1", "2", "3"):
                    run(role, {**common, "ws": ws, "transition": "destroy", "prune": "true"})
            rows.append(row)
            print(
                f"round {index + 1}: volume step ws1 {row['ws1_step']:.2f} s, ws2 {row['ws2_step']:.2f} s, ws3 (not verified) {row['ws3_step']:.2f} s, "
                f"full copy {row['copy_step']:.2f} s; no-op ws1 {row['noop_step']:.2f} s, without the checksum {row['noop_no_checksum_step']:.2f} s; "
                f"role wall ws1 {row['ws1_wall']:.2f} s, ws2 {row['ws2_wall']:.2f} s, no-op {row['noop_wall']:.2f} s",
                flush=True,
            )

    summarise(args, rows)


def summarise(args: argparse.Namespace, rows: list[dict[str, t.Any]]) -> None:
    """Print the medians and ratios of the rounds, and write them as JSON."""

    def median(key: str) -> float:
        return statistics.median(row[key] for row in rows)

    def ratio(key: str, baseline: str) -> float:
        """The median of the rounds' ratios (each taken side by side, so a busy round counts once)."""
        return statistics.median(row[key] / row[baseline] for row in rows)

    base_alloc = statistics.median(row["base"]["allocation"] for row in rows)
    overlay_alloc = statistics.median(max(row[f"ws{ws}_root"]["allocation"] for ws in "123") for row in rows)
    figures = {
        "rounds": args.rounds,
        "image_bytes": args.size_mib * MIB,
        "volume_step_seconds": {
            "first_workspace": median("ws1_step"),
            "second_workspace": median("ws2_step"),
            "second_workspace_not_verified": median("ws3_step"),
            "full_copy": median("copy_step"),
            "no_op": median("noop_step"),
            "no_op_without_checksum": median("noop_no_checksum_step"),
        },
        "no_op_vs_full_copy": ratio("noop_step", "copy_step"),
        "no_op_without_checksum_vs_full_copy": ratio("noop_no_checksum_step", "copy_step"),
        "no_op_role_wall_seconds": {"with_checksum": median("noop_wall"), "without_checksum": median("noop_no_checksum_wall")},
        "no_op_read_mib": {
            "with_checksum": median("noop_read_mib"),
            "without_checksum_first": median("noop_no_checksum_first_read_mib"),
            "without_checksum": median("noop_no_checksum_read_mib"),
        },
        "role_wall_seconds": {"first_workspace": median("ws1_wall"), "second_workspace": median("ws2_wall")},
        "second_vs_first_volume_step": ratio("ws2_step", "ws1_step"),
        "second_vs_full_copy": ratio("ws2_step", "copy_step"),
        "not_verified_vs_first_volume_step": ratio("ws3_step", "ws1_step"),
        "not_verified_vs_full_copy": ratio("ws3_step", "copy_step"),
        "second_vs_first_role_wall": ratio("ws2_wall", "ws1_wall"),
        "allocation_bytes": {"base": base_alloc, "overlay": overlay_alloc, "full_copy_per_workspace": args.size_mib * MIB},
        "overlay_vs_base_allocation": overlay_alloc / base_alloc,
        "rows": rows,
    }
    print(
        f"volume step (median of {args.rounds}; ratios: median of the rounds' ratios): first workspace {median('ws1_step'):.2f} s, "
        f"second {median('ws2_step'):.2f} s: "
        f"{figures['second_vs_first_volume_step']:.2f}x; full copy {median('copy_step'):.2f} s "
        f"(second workspace {figures['second_vs_full_copy']:.2f}x a copy); not verified {median('ws3_step'):.2f} s: "
        f"{figures['not_verified_vs_first_volume_step']:.2f}x the first, {figures['not_verified_vs_full_copy']:.2f}x a copy"
    )
    print(
        f"role run: first {median('ws1_wall'):.2f} s, second {median('ws2_wall'):.2f} s: {figures['second_vs_first_role_wall']:.2f}x; "
        f"disk per workspace: overlay {overlay_alloc / MIB:.2f} MiB vs base {base_alloc / MIB:.1f} MiB "
        f"({figures['overlay_vs_base_allocation']:.4f}x)"
    )
    print(
        f"no-op run of workspace 1: volume step {median('noop_step'):.2f} s ({figures['no_op_vs_full_copy']:.3f}x a full copy), "
        f"without the checksum {median('noop_no_checksum_step'):.2f} s ({figures['no_op_without_checksum_vs_full_copy']:.3f}x); "
        f"role wall {median('noop_wall'):.2f} s and {median('noop_no_checksum_wall'):.2f} s; "
        f"read by the run's processes {median('noop_read_mib'):.0f} MiB and {median('noop_no_checksum_read_mib'):.0f} MiB "
        f"(the first run without the checksum {median('noop_no_checksum_first_read_mib'):.0f} MiB) "
        f"(the image is {args.size_mib} MiB; libvirtd's own reads are not counted)"
    )
    write_figures(args.json, figures)


if __name__ == "__main__":
    main()
