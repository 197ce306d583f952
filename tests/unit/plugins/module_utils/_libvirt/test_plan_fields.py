# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.resource import Outcome, plan_fields


def test_create_update_delete_none() -> None:
    assert plan_fields("domain", {"name": "web"}, Outcome(True, {}, {}, {"memory": 1})) == {
        "operation": "create",
        "address": "libvirt_domain.web",
        "changed_paths": [],
    }
    update = plan_fields("network", {"name": "n"}, Outcome(True, {}, {"ip": {"a": 1, "b": 2}, "x": 1}, {"ip": {"a": 1, "b": 3}, "x": 1}))
    assert update == {"operation": "update", "address": "libvirt_network.n", "changed_paths": ["ip.b"]}
    assert plan_fields("pool", {"name": "p"}, Outcome(True, {}, {"a": 1}, {}))["operation"] == "delete"
    assert plan_fields("pool", {"name": "p"}, Outcome(False, {}, {"a": 1}, {"a": 1}))["operation"] == "none"


def test_address_of_nested_objects_and_given_operation() -> None:
    assert plan_fields("volume", {"name": "d.qcow2", "pool": "default"}, Outcome(False, {}, {}, {}))["address"] == "libvirt_volume.default/d.qcow2"
    assert plan_fields("snapshot", {"name": "s1", "domain": "web"}, Outcome(False, {}, {}, {}))["address"] == "libvirt_domain_snapshot.web/s1"
    given = plan_fields("secret", {"name": "k"}, Outcome(True, {}, {"value": "x"}, {"value": "y"}, extra={"operation": "replace"}))
    assert given["operation"] == "replace"
    assert given["changed_paths"] == ["value"]  # the path, never a value


def test_replaced_volume() -> None:
    fields = plan_fields("volume", {"name": "d", "pool": "p"}, Outcome(True, {}, {"capacity": 1}, {"capacity": 2}, extra={"replaced": True}))
    assert fields["operation"] == "replace"
    assert fields["changed_paths"] == ["capacity"]


def test_modules_document_the_plan_fields_alike() -> None:
    import pathlib

    import yaml  # type: ignore[import-untyped]

    modules = pathlib.Path(__file__).parents[5] / "plugins" / "modules"
    texts: dict[str, set[str]] = {}
    for name in (
        "libvirt_domain",
        "libvirt_domain_snapshot",
        "libvirt_network",
        "libvirt_pool",
        "libvirt_volume",
        "libvirt_secret",
        "libvirt_cloudinit_disk",
        "libvirt_combustion",
        "libvirt_ignition",
    ):
        source = (modules / f"{name}.py").read_text()
        returns = yaml.safe_load(source.split('RETURN = r"""', 1)[1].split('"""', 1)[0])
        for key in ("operation", "address", "changed_paths"):
            assert key in returns, (name, key)
            if not (name == "libvirt_secret" and key == "operation"):
                texts.setdefault(key, set()).add(repr(returns[key]))
    assert all(len(v) == 1 for v in texts.values()), texts
