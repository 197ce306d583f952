# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The volume upload as a person runs it: a libvirt_volume task whose create.content.url is a
local file, into a new raw volume of a dir pool on the same host, timed as the task less a
no-op libvirt_volume task (two playbooks of one task each, the no-op one finding its volume as
asked), against `virsh vol-upload` of the same file into a volume made beforehand (the process;
and with its `vol-create-as` counted too) and `cp`. The task runs without a checksum, with the
sha256 of create.content.checksum, and on a sparse image (1/64 data) with its sha256, whose
volume's allocated size is reported. Rounds rotate the order; every volume is compared with
its file and deleted, untimed, and the disks settle before each timed method. With
--before-collections, the tasks of another copy of the collection take turns with this one's
in the same rounds (their keys end in " (before)")."""

from __future__ import annotations

import argparse
import functools
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
import typing as t

from benchlib import playbook_env, run_once, write_figures
from volume_upload import file_sha256, make_images, settled, virsh


def task_playbook(path: pathlib.Path, args: argparse.Namespace, name: str, image: pathlib.Path, checksum: str | None) -> None:
    content: dict[str, t.Any] = {"url": str(image)}
    if checksum:
        content["checksum"] = f"sha256:{checksum}"
    task = {"pool": args.pool, "name": name, "create": {"content": content}, "target": {"format": {"type": "raw"}}}
    play = [{"hosts": "localhost", "gather_facts": False, "tasks": [{"devinfra.providers.libvirt_volume": task, "register": "made"}]}]
    path.write_text(json.dumps(play))


def run_playbook(path: pathlib.Path, env: dict[str, str]) -> float:
    settled()
    return run_once(path, env)


def timed(cmd: list[str]) -> float:
    settled()
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


BASELINES = ("cp", "virsh vol-upload", "virsh vol-create-as + vol-upload")
TASKS = ("no-op task", "upload task", "upload task + sha256", "sparse upload task + sha256")


def measure(args: argparse.Namespace, walls: dict[str, list[float]], allocated: list[int]) -> None:
    """Every method once per round, the order rotated by one each round."""
    size = args.size_mib * 1024 * 1024
    with tempfile.TemporaryDirectory(dir=os.path.dirname(args.pool_dir)) as tmp:
        work = pathlib.Path(tmp)
        envs = {"": playbook_env(work)}
        if args.before_collections:
            envs[" (before)"] = {**envs[""], "ANSIBLE_COLLECTIONS_PATH": args.before_collections}
        dense, sparse = make_images(work, args.size_mib)
        sums = {path: file_sha256(path) for path in (dense, sparse)}
        prefix = f"{args.prefix}-{os.getpid()}"
        noop = work / "noop.yml"
        task_playbook(noop, args, f"{prefix}-noop", dense, None)
        run_playbook(noop, envs[""])  # makes the volume the no-op task finds

        def the_task(key: str, image: pathlib.Path, with_sum: bool, suffix: str, index: int) -> None:
            name = f"{prefix}-{index}-{key.replace(' ', '-').replace('+', 'p')}{'-before' if suffix else ''}"
            path = work / f"{name}.yml"
            task_playbook(path, args, name, image, sums[image] if with_sum else None)
            walls[key + suffix].append(run_playbook(path, envs[suffix]))
            subprocess.run(["cmp", f"{args.pool_dir}/{name}", str(image)], check=True)
            if image == sparse:
                allocated.append(os.stat(f"{args.pool_dir}/{name}").st_blocks * 512)
            virsh(args.uri, "vol-delete", "--pool", args.pool, name)

        def virsh_upload(index: int, with_create: bool) -> None:
            name = f"{prefix}-{index}-virsh"
            create = ["virsh", "-q", "-c", args.uri, "vol-create-as", args.pool, name, str(size), "--format", "raw"]
            upload = ["virsh", "-q", "-c", args.uri, "vol-upload", "--pool", args.pool, name, str(dense)]
            if with_create:
                settled()
                start = time.perf_counter()
                subprocess.run(create, check=True, stdout=subprocess.DEVNULL)
                subprocess.run(upload, check=True, stdout=subprocess.DEVNULL)
                walls["virsh vol-create-as + vol-upload"].append(time.perf_counter() - start)
            else:
                subprocess.run(create, check=True, stdout=subprocess.DEVNULL)
                walls["virsh vol-upload"].append(timed(upload))
            subprocess.run(["cmp", f"{args.pool_dir}/{name}", str(dense)], check=True)
            virsh(args.uri, "vol-delete", "--pool", args.pool, name)

        def copy(index: int) -> None:
            walls["cp"].append(timed(["cp", str(dense), f"{tmp}/{index}.cp"]))
            os.unlink(f"{tmp}/{index}.cp")

        measurements: list[t.Callable[[int], None]] = [
            copy,
            functools.partial(virsh_upload, with_create=False),
            functools.partial(virsh_upload, with_create=True),
        ]
        for suffix, env in envs.items():
            measurements += [
                lambda _index, suffix=suffix, env=env: walls["no-op task" + suffix].append(run_playbook(noop, env)),
                functools.partial(the_task, "upload task", dense, False, suffix),
                functools.partial(the_task, "upload task + sha256", dense, True, suffix),
                functools.partial(the_task, "sparse upload task + sha256", sparse, True, suffix),
            ]
        for index in range(args.rounds):
            shift = index % len(measurements)
            for one in measurements[shift:] + measurements[:shift]:
                one(index)
        virsh(args.uri, "vol-delete", "--pool", args.pool, f"{prefix}-noop")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size-mib", type=int, default=512)
    parser.add_argument(
        "--rounds", type=int, default=7, help="a multiple of the methods' number (7, or 11 with --before-collections): each as often in every position"
    )
    parser.add_argument("--uri", default="qemu:///system")
    parser.add_argument("--pool", default="devinfra-test")
    parser.add_argument("--pool-dir", default="/var/lib/devinfra-test/pool")
    parser.add_argument("--prefix", default="bench-task", help="names of the volumes made")
    parser.add_argument("--before-collections", help="a collections path holding another copy of this collection, whose tasks take turns with this one's")
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args()
    size = args.size_mib * 1024 * 1024
    suffixes = ["", " (before)"] if args.before_collections else [""]
    walls: dict[str, list[float]] = {key: [] for key in BASELINES + tuple(task + suffix for suffix in suffixes for task in TASKS)}
    allocated: list[int] = []
    measure(args, walls, allocated)

    wall = {key: statistics.median(values) for key, values in walls.items()}
    sparse_data = min(size, -(-size // (64 << 20)) << 20)  # make_images writes 1 MiB at every 64 MiB
    task_s = {task + suffix: wall[task + suffix] - wall["no-op task" + suffix] for suffix in suffixes for task in TASKS if task != "no-op task"}
    mbps = {key: size / 1e6 / seconds for key, seconds in {**wall, **{f"{k} less no-op": v for k, v in task_s.items()}}.items()}
    figures = {
        "size_mib": args.size_mib,
        "rounds": args.rounds,
        "median_wall_s": wall,
        "wall_s_by_round": walls,
        "task_less_noop_s": task_s,
        "throughput_mb_s": mbps,
        "ratio_vs_virsh_vol_upload": {key: wall["virsh vol-upload"] / value for key, value in task_s.items()},
        "ratio_vs_virsh_create_and_upload": {key: wall["virsh vol-create-as + vol-upload"] / value for key, value in task_s.items()},
        "ratio_vs_cp": {key: wall["cp"] / value for key, value in task_s.items()},
        "sparse_volume_allocated_bytes": max(allocated),
        "sparse_image_data_bytes": sparse_data,
    }
    print(f"volume upload task, {args.size_mib} MiB into a dir pool, {args.rounds} rounds (median wall)")
    for key, seconds in wall.items():
        print(f"  {key:<34} {seconds:>7.3f} s  ({min(walls[key]):.2f}-{max(walls[key]):.2f})")
    for key, seconds in task_s.items():
        print(
            f"  {key + ' less no-op':<34} {seconds:>7.3f} s  {mbps[key + ' less no-op']:>6.0f} MB/s  "
            f"{figures['ratio_vs_virsh_vol_upload'][key]:.2f}x virsh vol-upload, "
            f"{figures['ratio_vs_virsh_create_and_upload'][key]:.2f}x with vol-create-as, {figures['ratio_vs_cp'][key]:.2f}x cp"
        )
    print(f"  the sparse image's volume allocates {max(allocated) / 1048576:.1f} MiB for {sparse_data / 1048576:.1f} MiB of data")
    write_figures(args.json, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
