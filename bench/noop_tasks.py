# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""No-op tasks of the collection's modules against an ansible.builtin.ping task, measured
side by side: playbooks of N tasks each (and an empty one for the fixed start-up cost) run
in turns, R rounds. Prints the medians and the ratios; writes them as JSON too. The
libvirt resources are the test host's pool and network (scripts/test-host.sh) and a
volume the script creates first, so every task finds nothing to change."""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys

from benchlib import medians_in_turns, write_figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=20, help="tasks per playbook (N)")
    parser.add_argument("--rounds", type=int, default=5, help="runs of each playbook (R)")
    parser.add_argument("--uri", default=os.environ.get("LIBVIRT_DEFAULT_URI") or "qemu:///system")
    parser.add_argument("--pool", default="devinfra-test")
    parser.add_argument("--network", default="devinfra-test")
    parser.add_argument("--json", type=pathlib.Path, help="write the figures here")
    args = parser.parse_args()

    env = {**os.environ, "ANSIBLE_PYTHON_INTERPRETER": sys.executable, "ANSIBLE_NOCOLOR": "1"}
    uri = f"uri: '{args.uri}'"
    volume = f"devinfra.providers.libvirt_volume: {{{uri}, pool: {args.pool}, name: bench-noop.img, capacity: 1, capacity_unit: MiB}}"
    tasks = {
        "empty": None,
        "ping": "ansible.builtin.ping:",
        "libvirt_node_info": f"devinfra.providers.libvirt_node_info: {{{uri}}}",
        "libvirt_network": f"devinfra.providers.libvirt_network: {{{uri}, name: {args.network}}}",
        "libvirt_pool": f"devinfra.providers.libvirt_pool: {{{uri}, name: {args.pool}, type: dir}}",
        "libvirt_volume": volume,
    }
    # setup: the volume the no-op volume tasks find
    median, per_task = medians_in_turns(tasks, count=args.tasks, rounds=args.rounds, env=env, setup=volume)
    subprocess.run(["virsh", "-c", args.uri, "vol-delete", "--pool", args.pool, "bench-noop.img"], check=False, stdout=subprocess.DEVNULL)

    modules = [name for name in tasks if name not in ("empty", "ping")]
    figures = {
        "tasks": args.tasks,
        "rounds": args.rounds,
        "uri": args.uri,
        "median_wall_s": median,
        "per_task_s": per_task,
        "ratio_wall": {name: median[name] / median["ping"] for name in modules},
        "ratio_per_task": {name: per_task[name] / per_task["ping"] for name in modules},
    }
    print(f"no-op module tasks vs ansible.builtin.ping, {args.tasks} tasks x {args.rounds} rounds, uri {args.uri}")
    print(f"  {'playbook':<20} {'median wall (s)':>16} {'per task (s)':>13} {'ratio wall':>11} {'ratio per task':>15}")
    for name in tasks:
        per = f"{per_task[name]:.4f}" if name in per_task else "-"
        ratios = f"{figures['ratio_wall'][name]:>10.2f}x {figures['ratio_per_task'][name]:>14.2f}x" if name in modules else ""
        print(f"  {name:<20} {median[name]:>16.3f} {per:>13} {ratios}")
    write_figures(args.json, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
