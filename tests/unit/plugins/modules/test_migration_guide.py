# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The community.libvirt migration guide's worked examples do what it says.

Every task of this collection in docs/docsite/rst/migrating_from_community_libvirt.rst is run
as written (with libvirt's test driver as its ``uri``), in the guide's order: each must succeed,
and a second run of them all must change nothing. The community.libvirt tasks beside them name
only options community.libvirt has (its modules' option lists, as of its main branch)."""

from __future__ import annotations

import importlib
import pathlib
import typing as t

import pytest
import yaml  # type: ignore[import-untyped]

libvirt = pytest.importorskip("libvirt")

GUIDE = pathlib.Path(__file__).resolve().parents[4] / "docs/docsite/rst/migrating_from_community_libvirt.rst"
URI = "test:///default"
PREFIX = "devinfra.providers."
# The options of community.libvirt's modules (with the options of its doc fragments).
COMMUNITY_OPTIONS = {
    "virt": {"name", "state", "command", "autostart", "uri", "xml", "mutate_flags", "flags", "force"},
    "virt_net": {"name", "state", "command", "autostart", "uri", "xml"},
    "virt_pool": {"name", "state", "command", "autostart", "uri", "xml", "mode"},
    "virt_volume": {"name", "pool", "state", "command", "xml", "cloudinit_config", "clone_source", "wipe", "uri"},
}


def _yaml_blocks(text: str) -> list[t.Any]:
    blocks, lines = [], text.splitlines()
    for index, line in enumerate(lines):
        if line.strip() == ".. code-block:: yaml":
            body = []
            for following in lines[index + 1 :]:
                if following.strip() and not following.startswith("   "):
                    break
                body.append(following[3:])
            blocks.append(yaml.safe_load("\n".join(body)))
    return blocks


def _tasks() -> list[dict[str, t.Any]]:
    return [task for block in _yaml_blocks(GUIDE.read_text(encoding="utf-8")) for task in block]


def _ours(task: dict[str, t.Any]) -> tuple[str, dict[str, t.Any]] | None:
    for key, value in task.items():
        if key.startswith(PREFIX):
            return key[len(PREFIX) :], value
    return None


@pytest.fixture(scope="module")
def test_driver() -> t.Iterator[t.Any]:
    """The test driver forgets what it holds when its last connection closes: keep one open."""
    connection = libvirt.open(URI)
    yield connection
    connection.close()


def test_the_community_tasks_name_only_options_it_has() -> None:
    community = [task for task in _tasks() if any(key.startswith("community.libvirt.") for key in task)]
    assert len(community) >= 8
    for task in community:
        (module, options) = next((key.split(".")[-1], value) for key, value in task.items() if key.startswith("community.libvirt."))
        assert set(options) <= COMMUNITY_OPTIONS[module], (module, sorted(set(options) - COMMUNITY_OPTIONS[module]))


def _one_shot(module: str, args: dict[str, t.Any]) -> bool:
    """A task that ends or acts on what the others made: run once, after them."""
    return module == "libvirt_domain_action" or args.get("state") == "absent" or args.get("paused") is not None


def test_the_worked_examples_converge(test_driver: t.Any, run_module: t.Callable[..., dict[str, t.Any]]) -> None:
    # What the guide's tasks make (an info module reads only; an xml task's XML is a template).
    ours = [found for found in map(_ours, _tasks()) if found is not None and "xml" not in found[1] and not found[0].endswith("_info")]
    assert {module for module, _args in ours} >= {"libvirt_pool", "libvirt_volume", "libvirt_network", "libvirt_domain", "libvirt_domain_action"}

    def run(module: str, args: dict[str, t.Any], *, check_mode: bool = False) -> dict[str, t.Any]:
        main = importlib.import_module(f"ansible_collections.devinfra.providers.plugins.modules.{module}").main
        result = run_module(main, {**args, "uri": URI}, check_mode=check_mode)
        assert not result.get("failed"), (module, result.get("msg"))
        return result

    declared = [(module, args) for module, args in ours if not _one_shot(module, args)]
    for module, args in declared:
        if module == "libvirt_volume" and args.get("backing_store"):
            # The image the volume example overlays, as it would already be in the pool.
            name = pathlib.Path(args["backing_store"]["path"]).name
            test_driver.storagePoolLookupByName(args["pool"]).createXML(f"<volume><name>{name}</name><capacity>1048576</capacity></volume>", 0)
        assert run(module, args)["changed"], (module, args)
    for module, args in declared:
        assert not run(module, args)["changed"], (module, args)
    for module, args in ours:
        if module == "libvirt_volume" and args.get("wipe"):
            # The old volume, as it would be there; the test driver cannot wipe: check mode.
            test_driver.storagePoolLookupByName(args["pool"]).createXML(f"<volume><name>{args['name']}</name><capacity>1048576</capacity></volume>", 0)
            assert run(module, args, check_mode=True)["changed"], (module, args)
        elif _one_shot(module, args):
            assert run(module, args)["changed"], (module, args)
            if module != "libvirt_domain_action":
                assert not run(module, args)["changed"], (module, args)
