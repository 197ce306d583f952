# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the benchmarks share: playbooks of N copies of a task, one timed ansible-playbook
run, and the figures written as JSON."""

from __future__ import annotations

import json
import pathlib
import subprocess
import time
import typing as t


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


def write_figures(path: pathlib.Path | None, figures: dict[str, t.Any]) -> None:
    """Write the figures as JSON when a path is given (bench/results/ by scripts/bench.sh)."""
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(figures, indent=2) + "\n")
