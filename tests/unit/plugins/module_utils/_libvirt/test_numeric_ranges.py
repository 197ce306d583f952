# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Every integer option of every libvirt object, negative, zero and huge, through the module's
argument spec and the XML writer, then (when we let it through) to libvirt's own parser on
``test:///default``. libvirt 9.0 aborts on some values (``vcpu: -2`` took the whole daemon down,
``vcpu: 4294967295`` crashes the client library's test driver the same way): each value must be
refused by us with the option's path, or be survived by libvirt. The test driver parses in
the client process, so the XML goes to a worker subprocess; a crash shows up as the worker
dying on that document, and the test names it."""

from __future__ import annotations

import collections
import json
import re
import subprocess
import sys
import typing as t

import pytest
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import schema
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.domain import DOMAIN_ARGSPEC
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.domain import _desired as domain_desired
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.network import NETWORK_ARGSPEC
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.pool import POOL_ARGSPEC
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.schema_generated import ROOTS, STRUCTS
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.volume import VOLUME_ARGSPEC

libvirt = pytest.importorskip("libvirt")

Options = dict[str, t.Any]
Route = tuple[tuple[str, dict[str, t.Any]], ...]  # (struct, entry) from the root down

# Values every integer option gets: the edges C's int and unsigned int wrap at, and beyond.
PROBES = (-(2**63), -(2**31), -2, -1, 0, 1, 2**31 - 1, 2**31, 2**32 - 2, 2**32 - 1, 2**32, 2**63, 2**64 - 1, 2**64)

# What each object needs to be parsed at all (the test driver wants an os type for a domain).
BASE: dict[str, Options] = {
    "Domain": {"type": "test", "name": "h15num", "memory": 1024, "os": {"type": "hvm"}},
    "Network": {"name": "h15num"},
    "StoragePool": {"type": "dir", "name": "h15num", "target": {"path": "/h15num"}},
    "StorageVolume": {"name": "h15num", "capacity": 1024},
}
ARGSPECS = {"Domain": DOMAIN_ARGSPEC, "Network": NETWORK_ARGSPEC, "StoragePool": POOL_ARGSPEC, "StorageVolume": VOLUME_ARGSPEC}
MODULE_ONLY = {"pool": "default-pool"}  # required module options that are not XML (a volume's pool)

# Each document is defined and removed in a fork of its own that also closes the connection:
# libvirt corrupts its heap on some values and glibc notices only at a later free, which then
# happens in the same child (its exit status names the document).
WORKER = r"""
import json, os, sys, libvirt
libvirt.registerErrorHandler(lambda *a: None, None)

def define(root, xml):
    conn = libvirt.open("test:///default")
    try:
        if root == "Domain":
            conn.defineXML(xml).undefine()
        elif root == "Network":
            conn.networkDefineXML(xml).undefine()
        elif root == "StoragePool":
            conn.storagePoolDefineXML(xml, 0).undefine()
        else:
            conn.storagePoolLookupByName("default-pool").createXML(xml, 0).delete(0)
        return "accepted"
    except libvirt.libvirtError as exc:
        return "refused: " + str(exc)
    finally:
        conn.close()

for line in sys.stdin:
    index, root, xml = json.loads(line)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        os.write(write_end, define(root, xml).encode())
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        outcome = pipe.read().decode(errors="replace")
    _, status = os.waitpid(pid, 0)
    if status != 0:
        outcome = "crashed (wait status %d)" % status
    print(json.dumps([index, outcome]), flush=True)
"""


def _filler(struct: str, depth: int = 0) -> Options:
    """The required options of ``struct`` with plausible values (required objects too)."""
    out: Options = {}
    for entry in STRUCTS[struct]["fields"]:
        if not entry.get("required") or entry.get("computed"):
            continue
        if entry["kind"] in ("object", "inline") and depth < 3:
            out[entry["name"]] = _filler(entry["struct"], depth + 1)
        elif entry["kind"] == "list" and depth < 3:
            out[entry["name"]] = [_filler(entry["struct"], depth + 1)]
        elif entry.get("type") == "int":
            out[entry["name"]] = max(entry["range"][0], min(1, entry["range"][1]))
        elif entry.get("type") in ("str",):
            out[entry["name"]] = (entry.get("choices") or ["h15num"])[0]
        elif entry.get("type") in ("bool", "yesno", "onoff"):
            out[entry["name"]] = False
    return out


def _routes() -> dict[tuple[str, str], tuple[str, Route]]:
    """One shortest route from a root to every (struct, integer option) of the schema."""
    found: dict[tuple[str, str], tuple[str, Route]] = {}
    for root in ROOTS.values():
        queue: collections.deque[tuple[str, Route]] = collections.deque([(root, ())])
        seen = {root}
        while queue:
            struct, route = queue.popleft()
            for entry in STRUCTS[struct]["fields"]:
                if entry.get("computed") or entry["kind"] == "provider":
                    continue
                if entry.get("type") == "int":
                    found.setdefault((struct, entry["name"]), (root, (*route, (struct, entry))))
                if "struct" in entry and entry["struct"] not in seen and STRUCTS[entry["struct"]].get("handler") is None:
                    seen.add(entry["struct"])
                    queue.append((entry["struct"], (*route, (struct, entry))))
    return found


def _options(root: str, route: Route, value: int) -> Options:
    """The root's base options with ``value`` at the end of the route."""
    options: Options = json.loads(json.dumps(BASE[root]))
    holder = options
    for _struct, entry in route[:-1]:
        given = holder.get(entry["name"])
        child = {**_filler(entry["struct"]), **(given if isinstance(given, dict) else {})}
        holder[entry["name"]] = [child] if entry["kind"] == "list" else child
        holder = child
    last = route[-1][1]
    holder[last["name"]] = [value] if last["kind"] == "list_text" else value
    return options


def _xml(root: str, options: Options) -> str:
    """What the module would send: the options through its argument spec, then the writer."""
    spec = ARGSPECS[root]
    result = ArgumentSpecValidator(spec).validate({**MODULE_ONLY, **options} if root == "StorageVolume" else options)
    if result.error_messages:
        raise LibvirtValidationError(result.error_messages[0])
    params = result.validated_parameters
    if root == "Domain":
        return str(schema.serialize(domain_desired(params)[1]))  # the module's path, with its own checks
    desired = schema.options_of(root, {key: params.get(key) for key in schema.argument_spec(root)})
    return str(schema.serialize(schema.build(root, desired)))


def _run_worker(documents: list[tuple[int, str, str]]) -> dict[int, str]:
    """Each document's outcome in libvirt's test driver: accepted, refused (libvirt's
    message) or crashed."""
    proc = subprocess.run(
        [sys.executable, "-c", WORKER],
        input="".join(json.dumps(doc) + "\n" for doc in documents),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    outcomes: dict[int, str] = dict(json.loads(line) for line in proc.stdout.splitlines())
    return outcomes


ROUTES = _routes()


def test_every_integer_option_has_a_route() -> None:
    """The probe reaches every integer option of the four objects (the schema has hundreds)."""
    ints = {(s, e["name"]) for s in STRUCTS for e in STRUCTS[s]["fields"] if e.get("type") == "int" and not e.get("computed")}
    reachable = set(ROUTES)
    assert len(reachable) > 250
    assert ints - reachable <= {(s, n) for s, n in ints if STRUCTS[s].get("handler")}


def test_no_integer_value_reaches_libvirt_out_of_range_or_crashes_it() -> None:
    documents: list[tuple[int, str, str]] = []
    labels: dict[int, str] = {}
    for root, route in (ROUTES[key] for key in sorted(ROUTES)):
        path = ".".join(e["name"] for _s, e in route)
        entry = route[-1][1]
        for value in PROBES:
            index = len(labels)
            labels[index] = f"{root} {path} = {value}"
            lowest, highest = entry["range"]
            try:
                xml = _xml(root, _options(root, route, value))
            except LibvirtValidationError as exc:
                # Out of range: refused by the range check, naming the option. In range: only a
                # check between options may refuse it (a NUMA distance), naming its option too.
                expected = f"{entry['name']}: must be from {lowest} to {highest}, got {value}" if not lowest <= value <= highest else ": "
                assert expected in str(exc) and re.match(r"^[a-z0-9_.\[\]]+: ", str(exc)), f"{labels[index]}: {exc}"
                continue
            assert lowest <= value <= highest, f"{labels[index]} reached libvirt"
            documents.append((index, root, xml))
    outcomes = _run_worker(documents)
    crashed = sorted(labels[i] for i, outcome in outcomes.items() if outcome.startswith("crashed"))
    assert not crashed, "libvirt crashed on:\n" + "\n".join(crashed)
    assert len(outcomes) == len(documents)
    # The probe must get through to libvirt for most options, or it proves little.
    accepted = sum(1 for outcome in outcomes.values() if outcome == "accepted")
    assert accepted > len(documents) // 3, collections.Counter(o.split(":")[0] for o in outcomes.values())


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"vcpu": -2}, "vcpu: must be from 1 to 16384, got -2"),
        ({"vcpu": 0}, "vcpu: must be from 1 to 16384, got 0"),
        ({"vcpu": 4294967294}, "vcpu: must be from 1 to 16384, got 4294967294"),
        ({"vcpu": 2, "vcpu_current": 0}, "vcpu_current: must be from 1 to 16384, got 0"),
        ({"memory": -1}, "memory: must be from 0 to 18446744073709551615, got -1"),
        ({"devices": {"disks": [{"device": "disk", "boot": {"order": -1}}]}}, "devices.disks[0].boot.order: must be from 0 to 4294967295, got -1"),
    ],
)
def test_the_message_names_the_option(options: Options, message: str) -> None:
    with pytest.raises(LibvirtValidationError) as caught:
        _xml("Domain", {**BASE["Domain"], **options})
    assert message in str(caught.value)
