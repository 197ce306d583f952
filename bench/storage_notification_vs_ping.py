# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""storage_notification against the local notificationConfigs emulator, two figures:

1. requests per operation: each operation runs once as an ansible-playbook task and the
   emulator counts the API requests it received (the floor for a no-op is one list);
2. a no-op storage_notification task against an ansible.builtin.ping task, side by side:
   playbooks of N tasks each (and an empty one for the fixed start-up cost) run in turns,
   R rounds; prints the medians and the ratios.

Self-contained: it starts the emulator (tests/gcs_emulator/server.py) on 127.0.0.1 in this
process and points ANSIBLE_COLLECTIONS_PATH at a temporary tree linking this checkout."""

from __future__ import annotations

import argparse
import importlib.util
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
import typing as t

from benchlib import REPO, playbook_env, write_figures

TOKEN = "bench-token"  # the emulator's test token, not a secret
BUCKET = "bench-bucket"
TOPIC = "projects/bench-project/topics/bench-topic"


def load_emulator() -> t.Any:
    spec = importlib.util.spec_from_file_location("gcs_emulator_server", REPO / "tests" / "gcs_emulator" / "server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up by name
    spec.loader.exec_module(module)
    return module


def playbook(tasks: list[str], defaults: dict[str, t.Any]) -> str:
    lines = [
        "- hosts: localhost",
        "  gather_facts: false",
        "  module_defaults:",
        f"    group/devinfra.providers.storage: {json.dumps(defaults)}",
        "  tasks:",
    ]
    lines += [f"    - {task}" for task in tasks] if tasks else ["    - ansible.builtin.meta: noop"]
    return "\n".join(lines) + "\n"


def run_once(path: pathlib.Path, env: dict[str, str], *, check: bool = False) -> float:
    command = ["ansible-playbook", "-i", "localhost,", "-c", "local", str(path)]
    if check:
        command.append("--check")
    start = time.perf_counter()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, default=20, help="tasks per playbook (N)")
    parser.add_argument("--rounds", type=int, default=5, help="runs of each playbook (R)")
    parser.add_argument("--json", type=pathlib.Path, help="write the figures here")
    args = parser.parse_args()

    server = load_emulator()
    state = server.State(tokens={TOKEN: "write"}, topics={TOPIC: True})
    state.buckets[BUCKET] = server.Bucket(BUCKET)
    with server.Emulator(state) as emulator, tempfile.TemporaryDirectory() as tmp:
        env = playbook_env(pathlib.Path(tmp))
        defaults = {"api_endpoint": emulator.url, "auth_kind": "accesstoken", "access_token": TOKEN, "bucket": BUCKET}
        present = f"devinfra.providers.storage_notification: {{topic: '{TOPIC}', event_types: [OBJECT_FINALIZE]}}"

        # 1. Requests per operation, in an order where each one does what its name says.
        operations: list[tuple[str, str, bool]] = [
            ("create (check mode)", present, True),
            ("create", present, False),
            ("no-op present (check mode)", present, True),
            ("no-op present", present, False),
            ("info: list", "devinfra.providers.storage_notification_info:", False),
            ("info: get by id", "devinfra.providers.storage_notification_info: {id: '1'}", False),
            ("replace by id", f"devinfra.providers.storage_notification: {{topic: '{TOPIC}', id: '1'}}", False),
            ("purge (exclusive)", f"devinfra.providers.storage_notification: {{topic: '{TOPIC}', payload_format: NONE, purge: true}}", False),
            ("absent by id (check mode)", "devinfra.providers.storage_notification: {id: '3', state: absent}", True),
            ("absent by id", "devinfra.providers.storage_notification: {id: '3', state: absent}", False),
            ("absent by id, already gone", "devinfra.providers.storage_notification: {id: '3', state: absent}", False),
            ("absent by content, nothing there", f"devinfra.providers.storage_notification: {{topic: '{TOPIC}', state: absent}}", False),
        ]
        requests_per_op: dict[str, dict[str, int]] = {}
        for index, (name, task, check) in enumerate(operations):
            path = pathlib.Path(tmp, f"op{index}.yml")
            path.write_text(playbook([task], defaults))
            state.log.clear()
            run_once(path, env, check=check)
            requests_per_op[name] = state.stats()["by_method"]

        # 2. A no-op task against ping, side by side.
        state.buckets[BUCKET].configs.clear()
        setup = pathlib.Path(tmp, "setup.yml")
        setup.write_text(playbook([present], defaults))
        run_once(setup, env)
        kinds = {"empty": [], "ping": ["ansible.builtin.ping:"] * args.tasks, "storage_notification": [present] * args.tasks}
        paths = {}
        for name, tasks in kinds.items():
            paths[name] = pathlib.Path(tmp, f"{name}.yml")
            paths[name].write_text(playbook(tasks, defaults))
        for name in kinds:  # warm caches once, unmeasured
            run_once(paths[name], env)
        times: dict[str, list[float]] = {name: [] for name in kinds}
        state.log.clear()
        for _round in range(args.rounds):
            for name in kinds:
                times[name].append(run_once(paths[name], env))
        noop_requests = state.stats()["requests"]

    median = {name: statistics.median(values) for name, values in times.items()}
    per_task = {name: (median[name] - median["empty"]) / args.tasks for name in ("ping", "storage_notification")}
    figures = {
        "tasks": args.tasks,
        "rounds": args.rounds,
        "requests_per_operation": requests_per_op,
        "requests_per_noop_task": noop_requests / (args.tasks * args.rounds),
        "median_wall_s": median,
        "per_task_s": per_task,
        "ratio_wall": median["storage_notification"] / median["ping"],
        "ratio_per_task": per_task["storage_notification"] / per_task["ping"],
    }
    print("requests per operation (emulator counts, one task each)")
    for name, by_method in requests_per_op.items():
        detail = ", ".join(f"{method} {count}" for method, count in sorted(by_method.items())) or "none"
        print(f"  {name:<34} {sum(by_method.values()):>3}  ({detail})")
    print(f"  no-op task in the timed runs: {figures['requests_per_noop_task']:.2f} requests each")
    print(f"no-op storage_notification vs ansible.builtin.ping, {args.tasks} tasks x {args.rounds} rounds")
    print(f"  {'playbook':<22} {'median wall (s)':>16} {'per task (s)':>13}")
    for name in kinds:
        per = f"{per_task[name]:.4f}" if name in per_task else "-"
        print(f"  {name:<22} {median[name]:>16.3f} {per:>13}")
    print(f"  ratio storage_notification / ping: {figures['ratio_wall']:.2f}x wall, {figures['ratio_per_task']:.2f}x per task")
    write_figures(args.json, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
