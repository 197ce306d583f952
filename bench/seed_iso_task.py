# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The seed ISO build as a task: a libvirt_cloudinit_disk task that writes its cidata image to
``dest`` against an ansible.builtin.command task running ``genisoimage -V cidata -J -R`` on
the same user-data and meta-data, side by side: playbooks of N tasks each (and an empty one
for the fixed start-up cost) run in turns, R rounds. The module's tasks alternate between two
contents, so every task builds and writes its image; a playbook of module tasks that find
their image as wanted (no-ops) shows what the build itself costs."""

from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile

from benchlib import medians_in_turns, playbook_env, write_figures

USER_DATA = "#cloud-config\nhostname: web01\nusers:\n  - name: ops\n    ssh_authorized_keys: [ssh-ed25519 AAAAC3Nza... ops@example]\n"


def seed_task(dest: pathlib.Path, host: str) -> str:
    user_data = USER_DATA.replace("web01", host).replace("\n", "\\n")
    return f'devinfra.providers.libvirt_cloudinit_disk: {{name: bench-seed, dest: {dest}, user_data: "{user_data}", meta_data: "instance-id: {host}\\n"}}'


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=20, help="tasks per playbook (N, even)")
    parser.add_argument("--rounds", type=int, default=5, help="runs of each playbook (R)")
    parser.add_argument("--before-collections", help="a collections path holding another copy of this collection, whose tasks take turns with this one's")
    parser.add_argument("--json", type=pathlib.Path, help="write the figures here")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        env = playbook_env(work)
        for name, text in {"user-data": USER_DATA, "meta-data": "instance-id: web01\n"}.items():
            (work / name).write_text(text)
        (work / "ours").mkdir()
        (work / "noop").mkdir()
        genisoimage = f"ansible.builtin.command: genisoimage -quiet -output {work}/theirs.iso -V cidata -J -R {work}/user-data {work}/meta-data"
        builds = [seed_task(work / "ours", "web01"), seed_task(work / "ours", "web02")]
        # medians_in_turns repeats one task N times: the alternating pair is one "task" of two.
        tasks: dict[str, str | None] = {
            "empty": None,
            "command_genisoimage": f"{genisoimage}\n    - {genisoimage}",
            "cloudinit_disk_build": f"{builds[0]}\n    - {builds[1]}",
            "cloudinit_disk_noop": f"{seed_task(work / 'noop', 'web01')}\n    - {seed_task(work / 'noop', 'web01')}",
        }
        envs = {}
        if args.before_collections:
            for name in ("cloudinit_disk_build", "cloudinit_disk_noop"):
                tasks[f"{name}_before"] = tasks[name]
                envs[f"{name}_before"] = {**env, "ANSIBLE_COLLECTIONS_PATH": args.before_collections}
        median, per_pair = medians_in_turns(tasks, count=args.tasks // 2, rounds=args.rounds, env=env, setup=tasks["cloudinit_disk_noop"], envs=envs)
    per_task = {name: value / 2 for name, value in per_pair.items()}
    ours = [name for name in tasks if name.startswith("cloudinit_disk")]
    figures = {
        "tasks": args.tasks // 2 * 2,
        "rounds": args.rounds,
        "median_wall_s": median,
        "per_task_s": per_task,
        "ratio_wall_vs_command": {name: median[name] / median["command_genisoimage"] for name in ours},
        "ratio_per_task_vs_command": {name: per_task[name] / per_task["command_genisoimage"] for name in ours},
        "build_over_noop_s": per_task["cloudinit_disk_build"] - per_task["cloudinit_disk_noop"],
    }
    print(f"seed ISO task vs a genisoimage command task, {figures['tasks']} tasks x {args.rounds} rounds")
    print(f"  {'playbook':<29} {'median wall (s)':>16} {'per task (s)':>13} {'wall vs command':>16} {'per task vs command':>20}")
    for name in tasks:
        per = f"{per_task[name]:.4f}" if name in per_task else "-"
        ratios = ""
        if name in figures["ratio_wall_vs_command"]:
            ratios = f"{figures['ratio_wall_vs_command'][name]:>15.2f}x {figures['ratio_per_task_vs_command'][name]:>19.2f}x"
        print(f"  {name:<29} {median[name]:>16.3f} {per:>13} {ratios}")
    print(f"  the build over a no-op of the same module: {1000 * figures['build_over_noop_s']:.1f} ms per task")
    write_figures(args.json, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
