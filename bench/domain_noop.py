# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A no-op libvirt_domain task against an ansible.builtin.ping task and against
community.libvirt's `virt command=define` of the same domain, side by side: playbooks of N
tasks each (and an empty one for the fixed start-up cost) run in turns, R rounds. The
domain is defined first (not started), so every task finds nothing to change.
community.libvirt comes from the `ansible` package on PyPI (--peer-collections)."""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys

from benchlib import medians_in_turns, write_figures

NAME = "bench-domain-noop"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=20, help="tasks per playbook (N)")
    parser.add_argument("--rounds", type=int, default=5, help="runs of each playbook (R)")
    parser.add_argument("--uri", default=os.environ.get("LIBVIRT_DEFAULT_URI") or "qemu:///system")
    parser.add_argument("--domain-type", default="qemu")
    parser.add_argument("--peer-collections", help="a collections path holding community.libvirt")
    parser.add_argument("--json", type=pathlib.Path, help="write the figures here")
    args = parser.parse_args()

    env = {**os.environ, "ANSIBLE_PYTHON_INTERPRETER": sys.executable, "ANSIBLE_NOCOLOR": "1"}
    if args.peer_collections:
        env["ANSIBLE_COLLECTIONS_PATH"] = f"{env.get('ANSIBLE_COLLECTIONS_PATH', '')}:{args.peer_collections}"
    options = (
        f"{{uri: '{args.uri}', name: {NAME}, type: {args.domain_type}, memory: 128, memory_unit: MiB, vcpu: 1, "
        "os: {type: hvm, type_arch: x86_64, type_machine: pc}, features: {acpi: true}, "
        "devices: {serials: [{source: {pty: {}}, target: {port: 0}}]}}"
    )
    xml = (
        f"<domain type='{args.domain_type}'><name>{NAME}</name><memory unit='MiB'>128</memory><vcpu>1</vcpu>"
        "<os><type arch='x86_64' machine='pc'>hvm</type></os><features><acpi/></features>"
        "<devices><serial type='pty'><target port='0'/></serial></devices></domain>"
    )
    tasks: dict[str, str | None] = {
        "empty": None,
        "ping": "ansible.builtin.ping:",
        "libvirt_domain": f"devinfra.providers.libvirt_domain: {options}",
    }
    if args.peer_collections:
        tasks["virt_define"] = f"community.libvirt.virt: {{uri: '{args.uri}', command: define, xml: \"{xml}\"}}"
    median, per_task = medians_in_turns(tasks, count=args.tasks, rounds=args.rounds, env=env, setup=tasks["libvirt_domain"])
    subprocess.run(["virsh", "-c", args.uri, "undefine", NAME], check=False, stdout=subprocess.DEVNULL)

    others = [name for name in tasks if name not in ("empty", "ping")]
    figures = {
        "tasks": args.tasks,
        "rounds": args.rounds,
        "uri": args.uri,
        "median_wall_s": median,
        "per_task_s": per_task,
        "ratio_wall_vs_ping": {name: median[name] / median["ping"] for name in others},
        "ratio_per_task_vs_ping": {name: per_task[name] / per_task["ping"] for name in others},
    }
    if "virt_define" in tasks:
        figures["ratio_per_task_vs_virt_define"] = per_task["libvirt_domain"] / per_task["virt_define"]
    print(f"no-op libvirt_domain vs ansible.builtin.ping and community.libvirt virt define, {args.tasks} tasks x {args.rounds} rounds")
    print(f"  {'playbook':<16} {'median wall (s)':>16} {'per task (s)':>13} {'wall vs ping':>13} {'per task vs ping':>17}")
    for name in tasks:
        per = f"{per_task[name]:.4f}" if name in per_task else "-"
        ratios = f"{figures['ratio_wall_vs_ping'][name]:>12.2f}x {figures['ratio_per_task_vs_ping'][name]:>16.2f}x" if name in others else ""
        print(f"  {name:<16} {median[name]:>16.3f} {per:>13} {ratios}")
    if "ratio_per_task_vs_virt_define" in figures:
        print(f"  libvirt_domain per task / virt define per task: {figures['ratio_per_task_vs_virt_define']:.2f}x")
    write_figures(args.json, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
