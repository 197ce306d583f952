# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A fleet of 20 workspaces against 1, side by side: the wall time of the workspace_fleet playbook.

Two inventories of the fleet on the test host (its pool and network, empty 1 GiB disks, the
transition stop: built, never started), one of N workspaces (20) and one of 1. Each round runs,
for each fleet in turn (the order alternates from round to round): the bring-up from nothing
(timed; checked to change something), a second run (timed; checked to change nothing), and
the destroy transition (timed too, and it must leave nothing). ansible-playbook runs with
--forks (10 by default, at most as many as the large fleet has workspaces). Prints the
medians, the CPU time of each run (user + system, of ansible-playbook and everything it
started) and the ratios N / 1; writes them as JSON too. Whatever happens, the fleets are
destroyed at the end and anything left of them is removed with virsh."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pathlib
import re
import resource
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import typing as t

from benchlib import playbook_env, write_figures

PHASES = ("create", "noop", "destroy")


def inventory(members: list[str], *, work: pathlib.Path, uri: str, pool: str, network: str, domain_type: str) -> dict[str, object]:
    return {
        "hypervisors": {"hosts": {"bench_host": {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}}},
        "workspaces": {
            "vars": {
                "workspace_fleet_hypervisor": "bench_host",
                "workspace_fleet_state_dir": str(work / "state"),
                "workspace_vm_uri": uri,
                "workspace_vm_pool": pool,
                "workspace_vm_network": network,
                "workspace_vm_domain_type": domain_type,
                "workspace_vm_seed_dir": str(work / "seeds"),
                "workspace_vm_disk_size": 1,
                "workspace_vm_memory": 256,
                "workspace_vm_cpu": 1,
                "workspace_vm_transition": "stop",
            },
            "hosts": {member: {} for member in members},
        },
    }


def run(path: pathlib.Path, *, forks: int, env: dict[str, str], transition: str | None = None) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + system of the finished children) of one fleet run, and its output."""
    command = ["ansible-playbook", "-i", str(path), "-f", str(forks), "devinfra.providers.workspace_fleet", "-e", "workspace_fleet_prepare_hosts=false"]
    if transition:
        command += ["-e", f"workspace_vm_transition={transition}"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def changed(output: str) -> int:
    """The sum of changed= over the recap."""
    return sum(int(count) for count in re.findall(r"^\S+\s+: ok=\d+\s+changed=(\d+)", output, flags=re.MULTILINE))


def virsh(*args: str) -> str:
    return subprocess.run(["virsh", "-q", *args], capture_output=True, text=True, check=False).stdout


def leftovers(uri: str, pool: str, prefix: str) -> list[str]:
    domains = virsh("-c", uri, "list", "--all", "--name").split()
    volumes = [line.split()[0] for line in virsh("-c", uri, "vol-list", "--pool", pool).splitlines() if line.strip()]
    return [f"domain {name}" for name in domains if name.startswith(prefix)] + [f"volume {name}" for name in volumes if name.startswith(prefix)]


def remove_leftovers(uri: str, pool: str, prefix: str) -> None:
    for what in leftovers(uri, pool, prefix):
        kind, name = what.split(" ", 1)
        print(f"left behind: {what}", file=sys.stderr)
        if kind == "domain":
            virsh("-c", uri, "destroy", name)
            virsh("-c", uri, "undefine", name)
        else:
            virsh("-c", uri, "vol-delete", "--pool", pool, name)


Series = dict[str, dict[str, list[float]]]


@contextlib.contextmanager
def fleets(args: argparse.Namespace, sizes: dict[str, int]) -> t.Iterator[tuple[str, dict[str, str], dict[str, pathlib.Path]]]:
    """The name prefix of new fleets (one per size), the environment of this copy's runs and
    each fleet's inventory, in a temporary directory. Whatever happens, the fleets are
    destroyed at the end and anything left of them is removed with virsh."""
    prefix = f"dvt-bench-{secrets.token_hex(3)}"
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        env = {**playbook_env(work), "ANSIBLE_LOCALHOST_WARNING": "false"}
        paths = {}
        for size, count in sizes.items():
            members = [f"{prefix}-{size}{index}" for index in range(1, count + 1)]
            paths[size] = work / f"{size}.yml"
            paths[size].write_text(json.dumps(inventory(members, work=work, uri=args.uri, pool=args.pool, network=args.network, domain_type=args.domain_type)))
        try:
            yield prefix, env, paths
        finally:
            for path in paths.values():
                subprocess.run(
                    ["ansible-playbook", "-i", str(path), "devinfra.providers.workspace_fleet", "-e", "workspace_vm_transition=destroy"],
                    env=env,
                    capture_output=True,
                    check=False,
                )
            remove_leftovers(args.uri, args.pool, prefix)


def measure(args: argparse.Namespace, sizes: dict[str, int]) -> tuple[Series, Series]:
    """Wall and CPU seconds of every timed run, by fleet and phase."""
    forks = min(args.forks, args.workspaces)
    times: Series = {size: {phase: [] for phase in PHASES} for size in sizes}
    cpu: Series = {size: {phase: [] for phase in PHASES} for size in sizes}
    with fleets(args, sizes) as (prefix, env, paths):
        # One unmeasured round warms the caches (the collection's files, the daemon).
        for size in sizes:
            run(paths[size], forks=forks, env=env)
            run(paths[size], forks=forks, env=env, transition="destroy")
        for index in range(args.rounds):
            order = list(sizes) if index % 2 == 0 else list(reversed(sizes))
            for size in order:
                for phase in PHASES:
                    wall, used, out = run(paths[size], forks=forks, env=env, transition="destroy" if phase == "destroy" else None)
                    if phase == "noop":
                        assert changed(out) == 0, out  # a second run changes nothing
                    else:
                        assert changed(out) > 0, out
                    times[size][phase].append(wall)
                    cpu[size][phase].append(used)
                left = leftovers(args.uri, args.pool, f"{prefix}-{size}")
                assert not left, left
    return times, cpu


def noop_before_after(args: argparse.Namespace, sizes: dict[str, int]) -> dict[str, dict[str, dict[str, float]]]:
    """The second run (no change) of the same fleets with another copy of the collection
    (--before-collections) and this one, taking turns, then the destroy of the one workspace
    (built again by this copy before each): median wall and CPU seconds by copy and run. The
    fleets are built once (by this copy) and destroyed at the end."""
    forks = min(args.forks, args.workspaces)
    runs = [*sizes, "destroy one"]
    with fleets(args, sizes) as (prefix, env, paths):
        envs = {"before": {**env, "ANSIBLE_COLLECTIONS_PATH": args.before_collections}, "after": env}
        walls: Series = {copy: {name: [] for name in runs} for copy in envs}
        cpus: Series = {copy: {name: [] for name in runs} for copy in envs}
        for size in sizes:
            run(paths[size], forks=forks, env=env)
        for index in range(args.rounds + 1):  # the first round warms up, unmeasured
            order = list(envs) if index % 2 == 0 else list(reversed(envs))
            for size in sizes:
                for copy in order:
                    wall, used, out = run(paths[size], forks=forks, env=envs[copy])
                    assert changed(out) == 0, out
                    if index:
                        walls[copy][size].append(wall)
                        cpus[copy][size].append(used)
        # Then the destroy of the one workspace, built again by this copy before each.
        for index in range(args.rounds + 1):
            order = list(envs) if index % 2 == 0 else list(reversed(envs))
            for copy in order:
                run(paths["one"], forks=forks, env=env)
                wall, used, out = run(paths["one"], forks=forks, env=envs[copy], transition="destroy")
                assert changed(out) > 0, out
                assert not leftovers(args.uri, args.pool, f"{prefix}-one"), out
                if index:
                    walls[copy]["destroy one"].append(wall)
                    cpus[copy]["destroy one"].append(used)
    return {copy: {name: {"wall_s": statistics.median(walls[copy][name]), "cpu_s": statistics.median(cpus[copy][name])} for name in runs} for copy in envs}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workspaces", type=int, default=20, help="workspaces of the large fleet (N)")
    parser.add_argument("--forks", type=int, default=10, help="ansible-playbook's forks")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (R)")
    parser.add_argument("--uri", default=os.environ.get("DEVINFRA_TEST_URI", "qemu:///system"))
    parser.add_argument("--pool", default=os.environ.get("DEVINFRA_TEST_POOL", "devinfra-test"))
    parser.add_argument("--network", default=os.environ.get("DEVINFRA_TEST_NETWORK", "devinfra-test"))
    parser.add_argument("--domain-type", default=os.environ.get("DEVINFRA_TEST_DOMAIN_TYPE", "qemu"))
    parser.add_argument("--json", type=pathlib.Path, help="write the figures here")
    parser.add_argument(
        "--before-collections",
        help="a collections path holding another copy of this collection: time the second run and the destroy of one, both copies in turns",
    )
    args = parser.parse_args()

    sizes = {"one": 1, "fleet": args.workspaces}
    if args.before_collections:
        compared = noop_before_after(args, sizes)
        print(f"workspace_fleet second run (no change), before and after in turns, {args.rounds} rounds, median:")
        for copy, by_size in compared.items():
            one, fleet = by_size["one"], by_size["fleet"]
            print(
                f"  {copy:<7} 1: {one['wall_s']:.2f} s wall, {one['cpu_s']:.2f} s CPU;"
                f" {args.workspaces}: {fleet['wall_s']:.2f} s wall, {fleet['cpu_s']:.2f} s CPU; ratio {fleet['wall_s'] / one['wall_s']:.2f}x;"
                f" destroy of 1: {by_size['destroy one']['wall_s']:.2f} s wall"
            )
        write_figures(args.json, {"rounds": args.rounds, "workspaces": args.workspaces, "second_run": compared})
        return 0
    load_before = os.getloadavg()[0]
    times, cpu = measure(args, sizes)
    median = {size: {phase: statistics.median(times[size][phase]) for phase in PHASES} for size in sizes}
    median_cpu = {size: {phase: statistics.median(cpu[size][phase]) for phase in PHASES} for size in sizes}
    ratio = {phase: median["fleet"][phase] / median["one"][phase] for phase in PHASES}
    figures = {
        "workspaces": args.workspaces,
        "rounds": args.rounds,
        "forks": min(args.forks, args.workspaces),
        "cpus": os.cpu_count(),
        "load_average_before": load_before,
        "median_wall_s": median,
        "median_cpu_s": median_cpu,
        "ratio_wall": ratio,
        "all_wall_s": times,
    }
    n = args.workspaces
    print(f"workspace_fleet: {n} workspaces vs 1 (empty disks, not started), {args.rounds} rounds, {figures['forks']} forks,", end=" ")
    print(f"{os.cpu_count()} CPUs, load average {load_before:.1f} before")
    print(f"  {'run':<10} {'1 wall (s)':>11} {'1 cpu (s)':>10} {f'{n} wall (s)':>11} {f'{n} cpu (s)':>10} {'ratio wall':>11}")
    for phase in PHASES:
        print(
            f"  {phase:<10} {median['one'][phase]:>11.2f} {median_cpu['one'][phase]:>10.2f}"
            f" {median['fleet'][phase]:>11.2f} {median_cpu['fleet'][phase]:>10.2f} {ratio[phase]:>10.2f}x"
        )
    print(f"  bring-up: {n} workspaces take {ratio['create']:.2f}x the wall time of 1 (target <= 4x); no-op {ratio['noop']:.2f}x (target <= 2x)")
    write_figures(args.json, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
