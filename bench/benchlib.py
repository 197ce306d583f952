# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the benchmarks share: playbooks of N copies of a task, one timed ansible-playbook
run, and the figures written as JSON."""

from __future__ import annotations

import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
import typing as t

REPO = pathlib.Path(__file__).resolve().parent.parent


def playbook(task: str | None, count: int) -> str:
    """A play on localhost with ``count`` copies of ``task`` (a no-op meta task when None)."""
    lines = ["- hosts: localhost", "  gather_facts: false", "  tasks:"]
    if task is None:
        lines.append("    - ansible.builtin.meta: noop")
    else:
        lines += [f"    - {task}"] * count
    return "\n".join(lines) + "\n"


def run_once(path: pathlib.Path, env: dict[str, str]) -> float:
    """Wall seconds of one ansible-playbook run of ``path`` (it must succeed)."""
    start = time.perf_counter()
    subprocess.run(["ansible-playbook", "-i", "localhost,", "-c", "local", str(path)], check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def medians_in_turns(
    tasks: dict[str, str | None], *, count: int, rounds: int, env: dict[str, str], setup: str, envs: dict[str, dict[str, str]] | None = None
) -> tuple[dict[str, float], dict[str, float]]:
    """Run a playbook of ``count`` copies of each task (None: the empty one, whose time is the
    fixed start-up cost) in turns, ``rounds`` times, after ``setup`` once and one unmeasured
    warm-up round. ``envs``: the environment of some tasks' runs instead of ``env`` (another
    copy of the collection, taking turns with this one). Returns the median wall seconds of
    each and the per-task seconds of each but the empty one."""
    envs = envs or {}
    times: dict[str, list[float]] = {name: [] for name in tasks}
    with tempfile.TemporaryDirectory() as tmp:
        setup_path = pathlib.Path(tmp, "setup.yml")
        setup_path.write_text(playbook(setup, 1))
        run_once(setup_path, env)
        paths = {}
        for name, task in tasks.items():
            paths[name] = pathlib.Path(tmp, f"{name}.yml")
            paths[name].write_text(playbook(task, count))
        for name in tasks:  # warm caches once, unmeasured
            run_once(paths[name], envs.get(name, env))
        for _round in range(rounds):
            for name in tasks:
                times[name].append(run_once(paths[name], envs.get(name, env)))
    median = {name: statistics.median(values) for name, values in times.items()}
    empty = next(name for name, task in tasks.items() if task is None)
    per_task = {name: (median[name] - median[empty]) / count for name in tasks if name != empty}
    return median, per_task


def playbook_env(work: pathlib.Path) -> dict[str, str]:
    """The environment of ansible-playbook runs of this checkout: the collection as
    ANSIBLE_COLLECTIONS_PATH names it, else this checkout linked under ``work``; modules run
    by this interpreter; no colour."""
    env = {**os.environ, "ANSIBLE_PYTHON_INTERPRETER": sys.executable, "ANSIBLE_NOCOLOR": "1"}
    if not env.get("ANSIBLE_COLLECTIONS_PATH"):
        tree = work / "collections" / "ansible_collections" / "devinfra"
        tree.mkdir(parents=True)
        (tree / "providers").symlink_to(REPO)
        env["ANSIBLE_COLLECTIONS_PATH"] = str(work / "collections")
    return env


def write_figures(path: pathlib.Path | None, figures: dict[str, t.Any]) -> None:
    """Write the figures as JSON when a path is given (bench/results/ by scripts/bench.sh)."""
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(figures, indent=2) + "\n")
