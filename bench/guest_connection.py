# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The libvirt_qemu connection against community.libvirt's libvirt_qemu connection, on the
same guest, side by side: a copy task of a 100 MiB file into the guest, a fetch task of a
100 MiB file out of it, and 50 command tasks. One guest (the Debian test guest with
qemu-guest-agent, on an overlay of the cached image, transient) is booted; the inventory names
it twice, once for each plugin, and every round runs the same playbook once through each (the
order alternates from round to round). A callback records when each task starts and ends, so
that ansible-playbook's start-up is not part of any figure. Prints MB/s (10^6 bytes per
second) of the copy and the fetch, command tasks per second, and our figure over theirs (more
than 1: ours is faster); writes them as JSON too. community.libvirt comes from the `ansible`
package on PyPI (--peer-collections, as scripts/bench.sh unpacks it). The guest and its files
are removed whatever happens."""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import typing as t

from benchlib import REPO, playbook_env, write_figures

MIB = 1 << 20
BUILD_GUEST = REPO / "tests/integration/targets/setup_libvirt_firstboot/files/build-cloudinit-guest.sh"

CALLBACK = """
import json, os, time
from ansible.plugins.callback import CallbackBase

class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "bench_times"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._times = []
        self._start = None

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._start = (task.get_name(), time.perf_counter())

    def _done(self, result, status):
        name, start = self._start
        self._times.append({"task": name, "status": status, "seconds": time.perf_counter() - start})

    def v2_runner_on_ok(self, result):
        self._done(result, "ok")

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._done(result, "failed")

    def v2_runner_on_unreachable(self, result):
        self._done(result, "unreachable")

    def v2_playbook_on_stats(self, stats):
        with open(os.environ["BENCH_TIMES"], "w") as out:
            json.dump(self._times, out)
"""


def domain_xml(name: str, image: pathlib.Path, overlay: pathlib.Path, console: pathlib.Path, domain_type: str) -> str:
    return f"""<domain type='{domain_type}'>
  <name>{name}</name>
  <memory unit='MiB'>1024</memory>
  <vcpu>1</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>{image}/vmlinuz</kernel>
    <initrd>{image}/initrd.img</initrd>
    <cmdline>console=ttyS0 root=/dev/vda rw panic=-1 cloud-init=disabled</cmdline>
  </os>
  <features><acpi/></features>
  <on_poweroff>destroy</on_poweroff><on_reboot>destroy</on_reboot><on_crash>destroy</on_crash>
  <devices>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2'/>
      <source file='{overlay}'/>
      <target dev='vda' bus='virtio'/>
    </disk>
    <serial type='file'><source path='{console}'/><target port='0'/></serial>
    <channel type='unix'><target type='virtio' name='org.qemu.guest_agent.0'/></channel>
    <video><model type='none'/></video>
  </devices>
</domain>"""


def virsh(uri: str, *args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["virsh", "-q", "-c", uri, *args], capture_output=True, text=True, check=check)


def wait_for_agent(uri: str, name: str, timeout: float) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if virsh(uri, "qemu-agent-command", name, '{"execute":"guest-ping"}').returncode == 0:
            return time.monotonic() - start
        time.sleep(1)
    raise SystemExit(f"the guest agent of {name} did not answer within {timeout} s")


PLAY = """- hosts: all
  gather_facts: false
  tasks:
    - name: copy
      ansible.builtin.copy:
        src: "{{{{ bench_source }}}}"
        dest: "/var/tmp/bench-copy-{{{{ bench_run }}}}"
        mode: "0600"
    - name: fetch
      ansible.builtin.fetch:
        src: /var/tmp/bench-fetch.bin
        dest: "{{{{ bench_work }}}}/fetched-{{{{ bench_run }}}}"
        flat: true
{commands}
"""
COMMAND = "    - name: command\n      ansible.builtin.command: /bin/true\n      changed_when: false"


def run_play(env: dict[str, str], paths: dict[str, pathlib.Path], host: str, run: str) -> dict[str, float]:
    """Seconds of the copy task, the fetch task and the command tasks (summed) of one run."""
    times = paths["work"] / f"times-{run}.json"
    command = [
        "ansible-playbook", "-i", str(paths["inventory"]), "--limit", host, str(paths["play"]),
        "-e", f"bench_source={paths['source']}", "-e", f"bench_run={run}", "-e", f"bench_work={paths['work']}",
    ]  # fmt: skip
    done = subprocess.run(command, env={**env, "BENCH_TIMES": str(times)}, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout[-4000:]}\n{done.stderr[-2000:]}")
    by = {"copy": 0.0, "fetch": 0.0, "commands": 0.0}
    for item in json.loads(times.read_text()):
        if item["status"] != "ok":
            raise RuntimeError(f"{host}: {item}")
        by["commands" if item["task"] == "command" else item["task"]] += item["seconds"]
    return by


def prepare(args: argparse.Namespace, name: str, work: pathlib.Path) -> tuple[dict[str, str], dict[str, pathlib.Path]]:
    """The environment of the runs and the files they use: the source of the copy, the
    inventory (the guest once for each plugin), the play and the callback; the file to fetch
    made in the guest."""
    source = work / "source.bin"
    with source.open("wb") as out:
        for _mib in range(args.size_mib):
            out.write(os.urandom(MIB))
    env = playbook_env(work)
    env["ANSIBLE_COLLECTIONS_PATH"] += f":{args.peer_collections}"
    env.update({"ANSIBLE_CALLBACK_PLUGINS": str(work / "callbacks"), "ANSIBLE_CALLBACKS_ENABLED": "bench_times"})
    (work / "callbacks").mkdir()
    (work / "callbacks" / "bench_times.py").write_text(CALLBACK)
    hosts = {
        "ours": {"ansible_connection": "devinfra.providers.libvirt_qemu", "ansible_libvirt_domain": name, **args.ours_vars},
        "theirs": {"ansible_connection": "community.libvirt.libvirt_qemu", "ansible_host": name},
    }
    # community.libvirt runs commands with the agent's environment, which has no HOME: "~" does
    # not expand there, so both get the same absolute remote tmp.
    variables = {"ansible_libvirt_uri": args.uri, "ansible_python_interpreter": "/usr/bin/python3", "ansible_remote_tmp": "/var/tmp/.ansible-bench"}
    inventory = work / "inventory.json"
    inventory.write_text(json.dumps({"all": {"hosts": hosts, "vars": variables}}))
    play = work / "play.yml"
    play.write_text(PLAY.format(commands="\n".join([COMMAND] * args.commands)))
    made = work / "prepare.yml"
    made.write_text(
        "- hosts: ours\n  gather_facts: false\n  tasks:\n"
        f"    - ansible.builtin.command: dd if=/dev/urandom of=/var/tmp/bench-fetch.bin bs=1M count={args.size_mib}\n"
        # The guest's disk (a qcow2 overlay) grows by what is written: grown beforehand by twice a
        # copy, so that whichever copy comes first does not pay for it.
        f"    - ansible.builtin.shell: dd if=/dev/zero of=/var/tmp/bench-grow.bin bs=1M count={2 * args.size_mib} && sync && rm /var/tmp/bench-grow.bin\n"
    )
    subprocess.run(
        ["ansible-playbook", "-i", str(inventory), str(made)], env={**env, "BENCH_TIMES": str(work / "prepare.json")}, check=True, stdout=subprocess.DEVNULL
    )
    return env, {"work": work, "source": source, "inventory": inventory, "play": play}


def measure(args: argparse.Namespace, name: str, env: dict[str, str], paths: dict[str, pathlib.Path]) -> dict[str, dict[str, list[float]]]:
    """The seconds of each part, for each plugin, round after round (the order alternates)."""
    results: dict[str, dict[str, list[float]]] = {host: {"copy": [], "fetch": [], "commands": []} for host in ("ours", "theirs")}
    for number in range(args.rounds):
        order = list(results) if (number % 2 == 0) == (args.first == "ours") else list(reversed(results))
        for host in order:
            run = f"{host}-{number}"
            by = run_play(env, paths, host, run)
            for key, value in by.items():
                results[host][key].append(value)
            fetched = paths["work"] / f"fetched-{run}"
            if fetched.stat().st_size != args.size_mib * MIB:
                raise RuntimeError(f"{fetched}: wrong size")
            fetched.unlink()
            remove = {"execute": "guest-exec", "arguments": {"path": "/bin/rm", "arg": ["-f", f"/var/tmp/bench-copy-{run}"]}}
            virsh(args.uri, "qemu-agent-command", name, json.dumps(remove))
            print(
                f"  round {number + 1} {host}: copy {by['copy']:.2f} s, fetch {by['fetch']:.2f} s, {args.commands} commands {by['commands']:.2f} s", flush=True
            )
    return results


def report(args: argparse.Namespace, results: dict[str, dict[str, list[float]]], load: tuple[float, ...]) -> dict[str, t.Any]:
    size_mb = args.size_mib * MIB / 1e6
    figures: dict[str, t.Any] = {"size_mib": args.size_mib, "commands": args.commands, "rounds": args.rounds, "load_average": load}
    rates: dict[str, dict[str, float]] = {}
    for host, by in results.items():
        median = {key: statistics.median(values) for key, values in by.items()}
        rates[host] = {
            "copy_mb_s": size_mb / median["copy"],
            "fetch_mb_s": size_mb / median["fetch"],
            "command_tasks_s": args.commands / median["commands"] if args.commands else 0.0,
        }
        figures[f"{host}_median_s"] = median
    figures["rates"] = rates
    ratio = figures["ours_over_theirs"] = {key: rates["ours"][key] / rates["theirs"][key] if rates["theirs"][key] else 0.0 for key in rates["ours"]}
    print(f"libvirt_qemu connections on one guest, {args.size_mib} MiB copy and fetch, {args.commands} command tasks, {args.rounds} rounds")
    print(f"  load average at the start {load[0]:.2f}, at the end {load[1]:.2f}")
    print(f"  {'':<11} {'copy MB/s':>10} {'fetch MB/s':>11} {'tasks/s':>8}")
    for host, rate in rates.items():
        print(f"  {host:<11} {rate['copy_mb_s']:>10.2f} {rate['fetch_mb_s']:>11.2f} {rate['command_tasks_s']:>8.2f}")
    print(f"  {'ours/theirs':<11} {ratio['copy_mb_s']:>9.2f}x {ratio['fetch_mb_s']:>10.2f}x {ratio['command_tasks_s']:>7.2f}x")
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size-mib", type=int, default=100)
    parser.add_argument("--commands", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=1, help="playbook runs through each plugin")
    parser.add_argument("--first", choices=("ours", "theirs"), default="ours", help="which plugin goes first in the first round")
    parser.add_argument("--uri", default=os.environ.get("LIBVIRT_DEFAULT_URI") or "qemu:///system")
    parser.add_argument("--domain-type", default="qemu")
    parser.add_argument("--peer-collections", required=True, help="a collections path holding community.libvirt")
    parser.add_argument("--guest-dir", type=pathlib.Path, default=pathlib.Path("/var/cache/devinfra-test/guest"), help="the test guests' cache")
    parser.add_argument(
        "--ours-var", dest="ours_vars", action="append", default=[], metavar="NAME=VALUE", help="a host variable of our plugin's host (an option to try)"
    )
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args()
    args.ours_vars = dict(item.split("=", 1) for item in args.ours_vars)

    # The integration tests' Debian guest (built once, then reused from the cache).
    built = subprocess.run([str(BUILD_GUEST), str(args.guest_dir / "cloudinit")], capture_output=True, text=True, check=True)
    image = pathlib.Path(built.stdout.splitlines()[-1])
    name = f"bench-guestconn-{secrets.token_hex(3)}"
    work = pathlib.Path(tempfile.mkdtemp(prefix="devinfra-guestconn-", dir="/var/tmp"))
    work.chmod(0o755)  # QEMU (another user) opens the overlay and writes the console here
    try:
        overlay = work / "root.qcow2"
        subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-b", str(image / "disk.raw"), "-F", "raw", str(overlay)], check=True)
        (work / "domain.xml").write_text(domain_xml(name, image, overlay, work / "console.log", args.domain_type))
        virsh(args.uri, "create", str(work / "domain.xml"), check=True)
        print(f"guest {name} booted, its agent answered after {wait_for_agent(args.uri, name, 900):.0f} s", flush=True)
        env, paths = prepare(args, name, work)
        start_load = os.getloadavg()[0]
        results = measure(args, name, env, paths)
        write_figures(args.json, report(args, results, (start_load, os.getloadavg()[0])))
    finally:
        virsh(args.uri, "destroy", name)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
