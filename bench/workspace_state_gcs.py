# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A no-op run of a 50-resource workspace with its state in Cloud Storage (gs://, on the
local emulator) against the same run with a local state file, side by side.

The workspace is bench/workspace_noop.py's (one agent and 49 resources attached to it, one
task each). It is created once in each state (the gs:// creating run's requests are counted),
then every measured run finds nothing to change (checked: the recap says changed=0). An empty
play, the run on the state file and the run on the state object take turns, R rounds after
one unmeasured warm-up, the order of the two workspace runs swapped every round. Prints the
medians and the ratio gs/file, and the requests per task the emulator received during the
measured gs:// runs (the floor for a no-op is one GET of the object per task; a change is a
GET then a conditional upload, a POST); writes them as JSON too.

Self-contained: it starts the emulator (tests/gcs_emulator/server.py) as a process of its own
on 127.0.0.1, points the modules at it through the environment (DEVINFRA_WORKSPACE_STATE,
STORAGE_EMULATOR_HOST, GCP_AUTH_KIND=accesstoken, GCP_ACCESS_TOKEN) and stops it at the end."""

from __future__ import annotations

import argparse
import contextlib
import json
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time
import typing as t
import urllib.request

from benchlib import REPO, playbook_env, write_figures
from workspace_noop import playbook, run_once, workspace_tasks

TOKEN = "bench-token"  # the emulator's test token, not a secret
BUCKET = "bench-bucket"
OBJECT = "workspaces/bench.json"


@contextlib.contextmanager
def emulator(tmp: str) -> t.Iterator[str]:
    """The emulator as a process; yields its base URL. It stops by itself after an hour if
    this script dies without stopping it."""
    port_file = pathlib.Path(tmp, "emulator.port")
    command = [sys.executable, str(REPO / "tests" / "gcs_emulator" / "server.py"), "--port", "0", "--port-file", str(port_file)]
    command += ["--token", TOKEN, "--bucket", BUCKET, "--lifetime", "3600"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not port_file.exists():
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the emulator did not start (exit status {process.returncode})")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{int(port_file.read_text())}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def control(url: str, method: str, path: str) -> dict[str, t.Any]:
    """A call to the emulator's control endpoints (never counted in its stats)."""
    with urllib.request.urlopen(urllib.request.Request(url + path, method=method, data=b"" if method == "POST" else None), timeout=10) as answer:
        body = answer.read()
    return t.cast("dict[str, t.Any]", json.loads(body)) if body.strip() else {}


def requests_by_method(url: str) -> dict[str, int]:
    return t.cast("dict[str, int]", control(url, "GET", "/_emulator/stats")["by_method"])


def measure(count: int, rounds: int) -> dict[str, t.Any]:
    """The creating runs, then the no-op runs in turns; the figures."""
    with tempfile.TemporaryDirectory() as tmp, emulator(tmp) as url:
        common = {
            **playbook_env(pathlib.Path(tmp)),
            # Both runs see the credentials; only the state's location differs.
            "STORAGE_EMULATOR_HOST": url,
            "GCP_AUTH_KIND": "accesstoken",
            "GCP_ACCESS_TOKEN": TOKEN,
        }
        envs = {
            "empty": common,
            "file": {**common, "DEVINFRA_WORKSPACE_STATE": str(pathlib.Path(tmp, "workspace-state.json"))},
            "gs": {**common, "DEVINFRA_WORKSPACE_STATE": f"gs://{BUCKET}/{OBJECT}"},
        }
        paths = {"empty": pathlib.Path(tmp, "empty.yml"), "file": pathlib.Path(tmp, "workspace.yml")}
        paths["empty"].write_text(playbook([]))
        paths["file"].write_text(playbook(workspace_tasks(count)))
        paths["gs"] = paths["file"]  # the same playbook; the environment names the state

        # The creating runs: the first one in each state; the requests of the gs:// one.
        creating_wall: dict[str, float] = {}
        creating_requests: dict[str, int] = {}
        for name in ("file", "gs"):
            control(url, "POST", "/_emulator/stats/reset")
            creating_wall[name], out = run_once(paths[name], envs[name])
            assert re.search(rf"changed={count}\b", out), out
            if name == "gs":
                creating_requests = requests_by_method(url)
            else:
                assert not requests_by_method(url), "the file run sent requests"

        for name, env in envs.items():  # warm caches once, unmeasured
            run_once(paths[name], env)
        times: dict[str, list[float]] = {name: [] for name in envs}
        noop_requests: dict[str, int] = {}
        for round_ in range(rounds):
            for name in ("empty", "file", "gs") if round_ % 2 == 0 else ("empty", "gs", "file"):
                control(url, "POST", "/_emulator/stats/reset")
                elapsed, out = run_once(paths[name], envs[name])
                sent = requests_by_method(url)
                if name != "empty":
                    assert re.search(r"ok=\d+\s+changed=0\b", out), out  # a no-op, really
                if name == "gs":
                    for method, number in sent.items():
                        noop_requests[method] = noop_requests.get(method, 0) + number
                else:
                    assert not sent, f"the {name} run sent requests: {sent}"
                times[name].append(elapsed)

    median = {name: statistics.median(values) for name, values in times.items()}
    per_task = {name: (median[name] - median["empty"]) / count for name in ("file", "gs")}
    measured_tasks = count * rounds
    return {
        "resources": count,
        "rounds": rounds,
        "median_wall_s": median,
        "min_max_wall_s": {name: [min(values), max(values)] for name, values in times.items()},
        "per_task_s": per_task,
        "ratio_wall": median["gs"] / median["file"],
        "ratio_per_task": per_task["gs"] / per_task["file"],
        "noop_requests_per_task": {method: number / measured_tasks for method, number in sorted(noop_requests.items())},
        "noop_requests_per_task_total": sum(noop_requests.values()) / measured_tasks,
        "creating_wall_s": creating_wall,
        "creating_requests_per_task": {method: number / count for method, number in sorted(creating_requests.items())},
        "creating_requests_per_task_total": sum(creating_requests.values()) / count,
    }


def describe(per_method: dict[str, float]) -> str:
    return ", ".join(f"{method} {number:.2f}" for method, number in per_method.items()) or "none"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--resources", type=int, default=50, help="workspace resources (N)")
    parser.add_argument("--rounds", type=int, default=5, help="runs of each playbook (R)")
    parser.add_argument("--json", type=pathlib.Path, help="write the figures here")
    args = parser.parse_args()

    figures = measure(args.resources, args.rounds)
    median, per_task = figures["median_wall_s"], figures["per_task_s"]
    print(f"no-op run of a {args.resources}-resource workspace, state in gs:// (emulator) vs a local file, {args.rounds} rounds")
    print(f"  {'playbook':<18} {'median wall (s)':>16} {'min-max (s)':>14} {'per task (s)':>13}")
    for name, label in (("empty", "empty"), ("file", "state file"), ("gs", "state gs://")):
        per = f"{per_task[name]:.4f}" if name in per_task else "-"
        low, high = figures["min_max_wall_s"][name]
        print(f"  {label:<18} {median[name]:>16.3f} {f'{low:.2f}-{high:.2f}':>14} {per:>13}")
    print(f"  ratio gs / file: {figures['ratio_wall']:.2f}x wall, {figures['ratio_per_task']:.2f}x per task")
    print(
        f"  requests per task, measured no-op runs: {figures['noop_requests_per_task_total']:.2f} "
        f"({describe(figures['noop_requests_per_task'])}; the floor is GET 1.00)"
    )
    creating = figures["creating_wall_s"]
    print(
        f"  requests per task, creating run: {figures['creating_requests_per_task_total']:.2f} "
        f"({describe(figures['creating_requests_per_task'])}); the creating runs took "
        f"{creating['file']:.2f} s (file) and {creating['gs']:.2f} s (gs://)"
    )
    write_figures(args.json, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
