# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A no-op run of a 50-resource workspace against 50 ansible.builtin.ping tasks, side by side.

The workspace is one agent and 49 resources attached to it (apps, envs, scripts, metadata),
one task each, in one state file; it is created once, then every measured run finds nothing
to change (checked: the recap says changed=0). Playbooks run in turns, R rounds, after one
unmeasured warm-up: an empty play (the fixed start-up cost), the pings, the workspace.
Prints the medians and the ratios; writes them as JSON too. The workspace modules run as
action plugins on the controller (no module transfer), so this is the state file's read,
lock and compare per task against ping's round trip."""

from __future__ import annotations

import argparse
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import playbook_env, write_figures

AGENT_ID = "7f1c3a52-5d2e-4b7e-9c1a-2f4e6d8b0a13"


def workspace_tasks(count: int) -> list[str]:
    """One agent and count-1 children, cycling through the resource types."""
    tasks = [f"devinfra.providers.workspace_agent: {{name: main, agent_id: '{AGENT_ID}', arch: amd64, os: linux}}"]
    for index in range(count - 1):
        kind = index % 4
        if kind == 0:
            tasks.append(f"devinfra.providers.workspace_app: {{slug: app-{index}, agent_id: '{AGENT_ID}', url: 'http://localhost:{8000 + index}'}}")
        elif kind == 1:
            tasks.append(f"devinfra.providers.workspace_env: {{agent_id: '{AGENT_ID}', name: VAR_{index}, value: 'value {index}'}}")
        elif kind == 2:
            tasks.append(
                f"devinfra.providers.workspace_script: {{agent_id: '{AGENT_ID}', display_name: script {index}, script: 'echo {index}', run_on_start: true}}"
            )
        else:
            tasks.append(f"devinfra.providers.workspace_metadata: {{resource_id: 'vm-{index}', items: [{{key: size, value: '{index}'}}]}}")
    return tasks


def playbook(tasks: list[str]) -> str:
    lines = ["- hosts: localhost", "  gather_facts: false", "  tasks:"]
    lines += [f"    - {task}" for task in tasks] if tasks else ["    - ansible.builtin.meta: noop"]
    return "\n".join(lines) + "\n"


def run_once(path: pathlib.Path, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(["ansible-playbook", "-i", "localhost,", "-c", "local", str(path)], check=True, env=env, capture_output=True, text=True)
    return time.perf_counter() - start, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--resources", type=int, default=50, help="workspace resources, and pings (N)")
    parser.add_argument("--rounds", type=int, default=5, help="runs of each playbook (R)")
    parser.add_argument("--json", type=pathlib.Path, help="write the figures here")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        env = {**playbook_env(pathlib.Path(tmp)), "DEVINFRA_WORKSPACE_STATE": str(pathlib.Path(tmp, "workspace-state.json"))}
        kinds = {"empty": [], "ping": ["ansible.builtin.ping:"] * args.resources, "workspace": workspace_tasks(args.resources)}
        paths = {}
        for name, tasks in kinds.items():
            paths[name] = pathlib.Path(tmp, f"{name}.yml")
            paths[name].write_text(playbook(tasks))
        _elapsed, created = run_once(paths["workspace"], env)  # creates the workspace
        assert re.search(rf"changed={args.resources}\b", created), created
        times: dict[str, list[float]] = {name: [] for name in kinds}
        for name in kinds:  # warm caches once, unmeasured
            run_once(paths[name], env)
        for _round in range(args.rounds):
            for name in kinds:
                elapsed, out = run_once(paths[name], env)
                if name == "workspace":
                    assert re.search(r"ok=\d+\s+changed=0\b", out), out  # a no-op, really
                times[name].append(elapsed)

    median = {name: statistics.median(values) for name, values in times.items()}
    per_task = {name: (median[name] - median["empty"]) / args.resources for name in ("ping", "workspace")}
    figures = {
        "resources": args.resources,
        "rounds": args.rounds,
        "median_wall_s": median,
        "per_task_s": per_task,
        "ratio_wall": median["workspace"] / median["ping"],
        "ratio_per_task": per_task["workspace"] / per_task["ping"],
    }
    print(f"no-op run of a {args.resources}-resource workspace vs {args.resources} ansible.builtin.ping tasks, {args.rounds} rounds")
    print(f"  {'playbook':<12} {'median wall (s)':>16} {'per task (s)':>13}")
    for name in kinds:
        per = f"{per_task[name]:.4f}" if name in per_task else "-"
        print(f"  {name:<12} {median[name]:>16.3f} {per:>13}")
    print(f"  ratio workspace / ping: {figures['ratio_wall']:.2f}x wall, {figures['ratio_per_task']:.2f}x per task (target <= 1.2x)")
    write_figures(args.json, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
