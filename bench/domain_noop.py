# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A no-op libvirt_domain task against an ansible.builtin.ping task and against
community.libvirt's `virt command=define` of the same domain, side by side: playbooks of N
tasks each (and an empty one for the fixed start-up cost) run in turns, R rounds. The
domain is defined first (not started), so every task finds nothing to change.
community.libvirt comes from the `ansible` package on PyPI (--peer-collections).

Also side by side: the floor of any libvirt module, a module of the benchmark's own (written
into a temporary collection, bench.floor) that does only what every no-op of a libvirt
resource must: AnsibleModule, import libvirt and lxml, connect, look the domain up, read and
parse its definition, ask whether it runs. Its ratio is what a libvirt module pays over ping
on this machine before any of the collection's code."""

from __future__ import annotations

import argparse
import base64
import importlib.util
import io
import json
import marshal
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time
import typing as t
import zipfile

from benchlib import medians_in_turns, playbook, run_once, write_figures

NAME = "bench-domain-noop"
ZIP_DATA = re.compile(r"^zip_data='([A-Za-z0-9+/=]+)'", re.MULTILINE)


FLOOR_MODULE = """\
from __future__ import annotations

from ansible.module_utils.basic import AnsibleModule


def main() -> None:
    module = AnsibleModule(argument_spec={"uri": {"type": "str", "required": True}, "name": {"type": "str", "required": True}}, supports_check_mode=True)
    import libvirt
    from lxml import etree

    conn = libvirt.open(module.params["uri"])
    domain = conn.lookupByName(module.params["name"])
    definition = etree.fromstring(domain.XMLDesc(0))
    running = bool(domain.isActive())
    conn.close()
    module.exit_json(changed=False, domain={"name": definition.findtext("name"), "uuid": definition.findtext("uuid"), "running": running})


if __name__ == "__main__":
    main()
"""


def floor_collection(root: pathlib.Path) -> str:
    """A collections path holding bench.floor with its one module, libvirt_floor."""
    modules = root / "ansible_collections" / "bench" / "floor" / "plugins" / "modules"
    modules.mkdir(parents=True)
    (modules / "libvirt_floor.py").write_text(FLOOR_MODULE)
    return str(root)


def payloads(tasks: dict[str, str | None], env: dict[str, str], tmp: pathlib.Path, envs: dict[str, dict[str, str]]) -> dict[str, pathlib.Path]:
    """The AnsiballZ payload of each task, as the controller sends it (kept with
    ANSIBLE_KEEP_REMOTE_FILES in a remote tmp of our own)."""
    remote = tmp / "remote"
    found = {}
    for name, task in tasks.items():
        if task is None:
            continue
        path = tmp / f"{name}.yml"
        path.write_text(playbook(task, 1))
        before = set(remote.glob("*/AnsiballZ_*.py"))
        run_once(path, {**envs.get(name, env), "ANSIBLE_KEEP_REMOTE_FILES": "1", "ANSIBLE_REMOTE_TMP": str(remote)})
        (found[name],) = set(remote.glob("*/AnsiballZ_*.py")) - before
    return found


def precompiled(payload: pathlib.Path, prefix: str) -> pathlib.Path:
    """The payload with bytecode (checked-hash .pyc, for this interpreter) beside every source
    under ``prefix`` in its zip: what the module costs when none of that code is compiled on
    the managed node. AnsiballZ itself only ships sources, so this is a bound, not an option."""
    text = payload.read_text()
    match = ZIP_DATA.search(text)
    if match is None:
        raise SystemExit(f"{payload}: no zip_data")
    source = zipfile.ZipFile(io.BytesIO(base64.b64decode(match.group(1))))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = source.read(info)
            target.writestr(info, data)
            if info.filename.startswith(prefix) and info.filename.endswith(".py"):
                header = importlib.util.MAGIC_NUMBER + (0b11).to_bytes(4, "little") + importlib.util.source_hash(data)
                target.writestr(zipfile.ZipInfo(info.filename + "c", info.date_time), header + marshal.dumps(compile(data, info.filename, "exec")))
    encoded = base64.b64encode(out.getvalue()).decode()
    variant = payload.with_name(payload.stem + "_precompiled.py")
    variant.write_text(text[: match.start(1)] + encoded + text[match.end(1) :])
    return variant


def process_medians(paths: dict[str, pathlib.Path], rounds: int) -> dict[str, float]:
    """Median wall seconds of each payload run as its own process (as the controller runs
    it), in turns, after one unmeasured turn; a no-op must stay one."""
    times: dict[str, list[float]] = {name: [] for name in paths}
    for turn in range(rounds + 1):
        for name, path in paths.items():
            start = time.perf_counter()
            done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, check=True)
            elapsed = time.perf_counter() - start
            if name.startswith("libvirt_domain") and json.loads(done.stdout).get("changed") is not False:
                raise SystemExit(f"{name}: not a no-op: {done.stdout[:500]}")
            if turn:
                times[name].append(elapsed)
    return {name: statistics.median(values) for name, values in times.items()}


def before_copy(tasks: dict[str, str | None], env: dict[str, str], collections: str | None) -> dict[str, dict[str, str]]:
    """With another copy of the collection: its own libvirt_domain task, run with that copy."""
    if not collections:
        return {}
    tasks["libvirt_domain_before"] = tasks["libvirt_domain"]
    return {"libvirt_domain_before": {**env, "ANSIBLE_COLLECTIONS_PATH": collections}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=20, help="tasks per playbook (N)")
    parser.add_argument("--rounds", type=int, default=5, help="runs of each playbook (R)")
    parser.add_argument("--uri", default=os.environ.get("LIBVIRT_DEFAULT_URI") or "qemu:///system")
    parser.add_argument("--domain-type", default="qemu")
    parser.add_argument("--peer-collections", help="a collections path holding community.libvirt")
    parser.add_argument("--before-collections", help="a collections path holding another copy of this collection, whose task takes turns with this one's")
    parser.add_argument("--process-rounds", type=int, default=30, help="runs of each module payload by itself (0: none)")
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
    envs = before_copy(tasks, env, args.before_collections)
    with tempfile.TemporaryDirectory() as floor_dir:
        tasks["libvirt_floor"] = f"bench.floor.libvirt_floor: {{uri: '{args.uri}', name: {NAME}}}"
        envs["libvirt_floor"] = {**env, "ANSIBLE_COLLECTIONS_PATH": f"{env.get('ANSIBLE_COLLECTIONS_PATH', '')}:{floor_collection(pathlib.Path(floor_dir))}"}
        median, per_task = medians_in_turns(tasks, count=args.tasks, rounds=args.rounds, env=env, setup=tasks["libvirt_domain"], envs=envs)
        process: dict[str, float] = {}
        if args.process_rounds:
            with tempfile.TemporaryDirectory() as tmp:
                paths = payloads(tasks, env, pathlib.Path(tmp), envs)
                paths["libvirt_domain_precompiled"] = precompiled(paths["libvirt_domain"], "ansible_collections/devinfra/")
                process = process_medians(paths, args.process_rounds)
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
    if process:
        # The module processes over ping's, and the task ratio if none of the collection's
        # code had to be compiled on the managed node.
        compile_s = process["libvirt_domain"] - process["libvirt_domain_precompiled"]
        figures["module_process_s"] = process
        figures["module_process_over_ping_s"] = {name: value - process["ping"] for name, value in process.items() if name != "ping"}
        figures["collection_compile_s"] = compile_s
        figures["ratio_wall_vs_ping_without_compile"] = (median["libvirt_domain"] - args.tasks * compile_s) / median["ping"]
    # What the collection's code adds to what any libvirt module pays (per task, over ping's).
    figures["per_task_over_ping_s"] = {name: per_task[name] - per_task["ping"] for name in others}
    if "virt_define" in tasks:
        figures["ratio_per_task_vs_virt_define"] = per_task["libvirt_domain"] / per_task["virt_define"]
    print_figures(figures, tasks, process, args)
    write_figures(args.json, figures)
    return 0


def print_figures(figures: dict[str, t.Any], tasks: dict[str, str | None], process: dict[str, float], args: argparse.Namespace) -> None:
    print(f"no-op libvirt_domain vs ansible.builtin.ping and community.libvirt virt define, {args.tasks} tasks x {args.rounds} rounds")
    print(f"  {'playbook':<16} {'median wall (s)':>16} {'per task (s)':>13} {'wall vs ping':>13} {'per task vs ping':>17}")
    for name in tasks:
        per = f"{figures['per_task_s'][name]:.4f}" if name in figures["per_task_s"] else "-"
        ratios = (
            f"{figures['ratio_wall_vs_ping'][name]:>12.2f}x {figures['ratio_per_task_vs_ping'][name]:>16.2f}x" if name in figures["ratio_wall_vs_ping"] else ""
        )
        print(f"  {name:<16} {figures['median_wall_s'][name]:>16.3f} {per:>13} {ratios}")
    over_ping = figures["per_task_over_ping_s"]
    print(
        f"  per task over ping: libvirt_floor +{1000 * over_ping['libvirt_floor']:.1f} ms (any libvirt module), "
        f"libvirt_domain +{1000 * over_ping['libvirt_domain']:.1f} ms"
    )
    if "ratio_per_task_vs_virt_define" in figures:
        print(f"  libvirt_domain per task / virt define per task: {figures['ratio_per_task_vs_virt_define']:.2f}x")
    if process:
        print(f"  module processes (median of {args.process_rounds}, each payload run by itself):")
        for name, value in process.items():
            over = f"  +{1000 * (value - process['ping']):.1f} ms over ping" if name != "ping" else ""
            print(f"    {name:<28} {1000 * value:7.1f} ms{over}")
        print(
            f"  the collection's code compiled per run: {1000 * figures['collection_compile_s']:.1f} ms; without it the wall ratio "
            f"would be {figures['ratio_wall_vs_ping_without_compile']:.2f}x"
        )


if __name__ == "__main__":
    sys.exit(main())
