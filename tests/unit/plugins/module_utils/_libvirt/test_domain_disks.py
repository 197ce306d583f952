# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A disk knows its volume: a disk on a storage volume without driver.type gets the volume's
format, a contradicting driver.type is refused, on libvirt's test driver (its pool
default-pool, target path /default-pool; each test uses its own volume and domain names)."""

from __future__ import annotations

import itertools
import typing as t

import pytest

libvirt = pytest.importorskip("libvirt")
pytest.importorskip("lxml")

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import domain, domain_disks, schema
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtValidationError

URI = "test:///default"
POOL = "default-pool"
_names = itertools.count()


@pytest.fixture(scope="module")
def conn() -> t.Iterator[t.Any]:
    connection = libvirt.open(URI)
    yield connection
    connection.close()


def _name(what: str = "dom") -> str:
    return f"unit-disk-{what}-{next(_names)}"


def _volume(conn: t.Any, fmt: str | None, *, backing: str | None = None, pool: str = POOL) -> t.Any:
    """A volume of ``fmt`` (None: no format element) in ``pool``."""
    target = f"<target><format type='{fmt}'/></target>" if fmt else ""
    backing_store = f"<backingStore><path>{backing}</path><format type='raw'/></backingStore>" if backing else ""
    xml = f"<volume><name>{_name('vol')}.img</name><capacity>1048576</capacity>{target}{backing_store}</volume>"
    return conn.storagePoolLookupByName(pool).createXML(xml, 0)


def _params(name: str, disk: dict[str, t.Any], **options: t.Any) -> dict[str, t.Any]:
    out: dict[str, t.Any] = dict.fromkeys(domain.DOMAIN_ARGSPEC)
    out.update(state="present", uri=URI, name=name, type="test", memory=128, memory_unit="MiB", vcpu=1, os={"type": "hvm"})
    out.update(devices={"disks": [{"target": {"dev": "vda", "bus": "virtio"}, **disk}]}, **options)
    return out


def _on(vol: t.Any, **disk: t.Any) -> dict[str, t.Any]:
    return {"source": {"volume": {"pool": POOL, "volume": vol.name()}}, **disk}


def _driver_in_xml(conn: t.Any, name: str) -> dict[str, str]:
    driver = schema.parse(conn.lookupByName(name).XMLDesc(0)).find("devices/disk/driver")
    return dict(driver.attrib) if driver is not None else {}


def _defined(conn: t.Any, name: str) -> bool:
    return name in conn.listDefinedDomains() + [d.name() for d in conn.listAllDomains()]


# --- the rule, as data ---------------------------------------------------------------------

# (volume format, driver options given, driver options written, or the error's fragment)
RULES: list[tuple[str | None, dict[str, t.Any] | None, dict[str, t.Any] | str]] = [
    ("qcow2", None, {"type": "qcow2"}),
    ("qcow2", {"cache": "none"}, {"cache": "none", "type": "qcow2"}),  # the other driver options stay
    ("qcow2", {"name": "qemu", "type": "qcow2"}, {"name": "qemu", "type": "qcow2"}),
    ("qcow2", {"type": "raw"}, "devices.disks[0].driver.type: 'raw' contradicts the format of volume p/v, which libvirt reports as 'qcow2'"),
    ("raw", None, {"type": "raw"}),
    ("raw", {"type": "raw"}, {"type": "raw"}),
    ("raw", {"type": "qcow2"}, "devices.disks[0].driver.type: 'qcow2' contradicts the format of volume p/v, which libvirt reports as 'raw'"),
    ("iso", None, {"type": "raw"}),  # an ISO image is read as raw bytes
    ("iso", {"type": "raw"}, {"type": "raw"}),
    ("iso", {"type": "qcow2"}, "'qcow2' contradicts the format of volume p/v, which libvirt reports as 'iso'"),
    ("vmdk", None, {"type": "vmdk"}),
    # formats that say nothing of the content, or none: the disk stays as given
    (None, None, {}),
    ("none", {"type": "qcow2"}, {"type": "qcow2"}),
    ("linux", None, {}),
    ("luks", None, {}),
]


@pytest.mark.parametrize(("fmt", "given", "expected"), RULES)
def test_the_driver_type_follows_the_volume(fmt: str | None, given: dict[str, t.Any] | None, expected: dict[str, t.Any] | str) -> None:
    disk: dict[str, t.Any] = {"source": {"volume": {"pool": "p", "volume": "v"}}}
    if given is not None:
        disk["driver"] = dict(given)
    volume = domain_disks.Volume(name="p/v", path="/p/v", format=fmt, backing=None)
    if isinstance(expected, str):
        with pytest.raises(LibvirtValidationError, match=expected.replace("[", r"\[").replace("]", r"\]")):
            domain_disks.settle_driver_type(disk, volume, where="devices.disks[0]")
        return
    changed = domain_disks.settle_driver_type(disk, volume, where="devices.disks[0]")
    assert disk.get("driver", {}) == expected
    assert changed == (expected != (given or {}))


# --- on the test driver --------------------------------------------------------------------


def test_a_qcow2_volume_is_written_as_qcow2_and_converges(conn: t.Any) -> None:
    name, vol = _name(), _volume(conn, "qcow2")
    wanted = _params(name, _on(vol))
    checked = domain.ensure_domain(conn, wanted, True)
    assert checked.changed and not _defined(conn, name)  # check mode defines nothing
    assert checked.after["devices"]["disks"][0]["driver"] == {"type": "qcow2"}  # the diff shows it
    created = domain.ensure_domain(conn, wanted, False)
    assert created.changed and created.warnings == []
    assert _driver_in_xml(conn, name) == {"type": "qcow2"}
    assert "driver" not in wanted["devices"]["disks"][0]  # the task's arguments are left as given
    again = domain.ensure_domain(conn, wanted, False)
    assert not again.changed, again.before
    assert again.before == again.after
    assert again.after["devices"]["disks"][0]["driver"] == {"type": "qcow2"}
    assert not domain.ensure_domain(conn, wanted, True).changed


def test_a_raw_volume_is_written_as_raw(conn: t.Any) -> None:
    name, vol = _name(), _volume(conn, "raw")
    domain.ensure_domain(conn, _params(name, _on(vol)), False)
    assert _driver_in_xml(conn, name) == {"type": "raw"}
    assert not domain.ensure_domain(conn, _params(name, _on(vol)), False).changed


def test_a_contradicting_driver_type_fails_before_anything_is_defined(conn: t.Any) -> None:
    name, vol = _name(), _volume(conn, "qcow2")
    message = rf"^devices\.disks\[0\]\.driver\.type: 'raw' contradicts the format of volume {POOL}/{vol.name()}, which libvirt reports as 'qcow2'"
    for check_mode in (True, False):
        with pytest.raises(LibvirtValidationError, match=message):
            domain.ensure_domain(conn, _params(name, _on(vol, driver={"name": "qemu", "type": "raw"})), check_mode)
    assert not _defined(conn, name)


def test_a_contradiction_leaves_an_existing_domain_alone(conn: t.Any) -> None:
    name, vol = _name(), _volume(conn, "qcow2")
    domain.ensure_domain(conn, _params(name, _on(vol)), False)
    before = conn.lookupByName(name).XMLDesc(0)
    with pytest.raises(LibvirtValidationError, match=r"devices\.disks\[0\]\.driver\.type: 'vmdk' contradicts"):
        domain.ensure_domain(conn, _params(name, _on(vol, driver={"type": "vmdk"}), memory=256), False)
    assert conn.lookupByName(name).XMLDesc(0) == before


def test_a_file_path_of_a_volume_is_that_volume(conn: t.Any) -> None:
    name, vol = _name(), _volume(conn, "qcow2")
    wanted = _params(name, {"source": {"file": {"file": vol.path()}}})
    domain.ensure_domain(conn, wanted, False)
    assert _driver_in_xml(conn, name) == {"type": "qcow2"}
    assert not domain.ensure_domain(conn, wanted, False).changed
    with pytest.raises(LibvirtValidationError, match=rf"'raw' contradicts the format of volume {POOL}/{vol.name()}"):
        domain.ensure_domain(conn, _params(_name(), {"source": {"file": {"file": vol.path()}}, "driver": {"type": "raw"}}), False)


@pytest.mark.parametrize(
    "source",
    [
        {"volume": {"pool": POOL, "volume": "no-such-volume.qcow2"}},
        {"volume": {"pool": "no-such-pool", "volume": "v.qcow2"}},
        {"file": {"file": "/nowhere/disk.qcow2"}},  # in no pool
        {"file": {"file": f"/{POOL}/no-such-volume.qcow2"}},
    ],
)
def test_what_libvirt_does_not_know_is_left_as_given(conn: t.Any, source: dict[str, t.Any]) -> None:
    name = _name()
    for given in (None, {"type": "vmdk"}):  # no error invented either
        disk: dict[str, t.Any] = {"source": source, **({"driver": given} if given else {})}
        result = domain.ensure_domain(conn, _params(name, disk), False)
        assert result.warnings == []
        assert _driver_in_xml(conn, name) == (given or {})


def test_a_volume_of_an_inactive_pool_is_left_as_given(conn: t.Any) -> None:
    pool_name = _name("pool")
    pool = conn.storagePoolDefineXML(f"<pool type='dir'><name>{pool_name}</name><target><path>/{pool_name}</path></target></pool>", 0)
    pool.create(0)
    vol = _volume(conn, "qcow2", pool=pool_name)
    pool.destroy()
    try:
        name = _name()
        disk = {"source": {"volume": {"pool": pool_name, "volume": vol.name()}}, "driver": {"type": "raw"}}
        domain.ensure_domain(conn, _params(name, disk), False)
        assert _driver_in_xml(conn, name) == {"type": "raw"}
        domain.ensure_domain(conn, _params(_name(), {"source": disk["source"]}), False)
    finally:
        pool.undefine()


def test_an_existing_domain_gets_the_type_on_its_next_run(conn: t.Any) -> None:
    """A domain defined without a driver type (by an earlier version, or upstream) is a change:
    the definition gets the volume's format, shown in the diff; check mode leaves it alone."""
    name, vol = _name(), _volume(conn, "qcow2")
    conn.defineXML(
        f"<domain type='test'><name>{name}</name><memory unit='MiB'>128</memory><vcpu>1</vcpu><os><type>hvm</type></os><devices>"
        f"<disk type='volume' device='disk'><source pool='{POOL}' volume='{vol.name()}'/><target dev='vda' bus='virtio'/></disk>"
        "</devices></domain>"
    )
    wanted = _params(name, _on(vol))
    checked = domain.ensure_domain(conn, wanted, True)
    assert checked.changed
    assert "driver" not in checked.before["devices"]["disks"][0]
    assert checked.after["devices"]["disks"][0]["driver"] == {"type": "qcow2"}
    assert _driver_in_xml(conn, name) == {}
    changed = domain.ensure_domain(conn, wanted, False)
    assert changed.changed and changed.extra["update_method"] == "redefine"
    assert _driver_in_xml(conn, name) == {"type": "qcow2"}
    assert not domain.ensure_domain(conn, wanted, False).changed


def test_a_domain_from_xml_is_defined_as_written(conn: t.Any) -> None:
    name, vol = _name(), _volume(conn, "qcow2")
    xml = (
        f"<domain type='test'><name>{name}</name><memory unit='MiB'>128</memory><os><type>hvm</type></os><devices>"
        f"<disk type='volume' device='disk'><source pool='{POOL}' volume='{vol.name()}'/><target dev='vda'/></disk></devices></domain>"
    )
    params: dict[str, t.Any] = dict.fromkeys(domain.DOMAIN_ARGSPEC)
    params.update(state="present", uri=URI, xml=xml)
    domain.ensure_domain(conn, params, False)
    assert _driver_in_xml(conn, name) == {}
    assert not domain.ensure_domain(conn, params, False).changed


@pytest.mark.parametrize(
    ("backing", "warned"),
    [
        ("/elsewhere/base.qcow2", True),
        (f"/{POOL}-other/base.qcow2", True),  # a prefix of the name is not the directory
        (f"/{POOL}/base.qcow2", False),
        (f"/{POOL}/sub/../base.qcow2", False),
        (None, False),
    ],
)
def test_a_backing_file_outside_every_pool_is_warned_about(conn: t.Any, backing: str | None, warned: bool) -> None:
    name, vol = _name(), _volume(conn, "qcow2", backing=backing)
    for check_mode in (True, False, False):
        result = domain.ensure_domain(conn, _params(name, _on(vol)), check_mode)
        if warned:
            assert result.warnings == [
                f"devices.disks[0]: volume {POOL}/{vol.name()} has its backing file at {backing}, outside the target path of every "
                "storage pool of the host; libvirt does not manage that file (nothing removes or refreshes it with a pool, and QEMU may "
                "be denied access to it)"
            ]
        else:
            assert result.warnings == []
    assert _driver_in_xml(conn, name) == {"type": "qcow2"}  # a warning, not a failure


@pytest.mark.parametrize(
    ("source", "named"),
    [
        ({"volume": {"pool": POOL, "volume": "planned.qcow2"}}, f"{POOL}/planned.qcow2"),
        ({"volume": {"pool": "planned-pool", "volume": "v.qcow2"}}, "planned-pool/v.qcow2"),
        ({"file": {"file": f"/{POOL}/planned.qcow2"}}, f"/{POOL}/planned.qcow2"),
    ],
)
def test_a_check_run_says_the_driver_type_of_a_volume_not_there_yet_is_not_planned(conn: t.Any, source: dict[str, t.Any], named: str) -> None:
    """In a check run the volume an earlier task would make is not there: the real run writes its
    format as driver.type, the check run cannot, and says so (a real run finds it, or leaves the
    disk as given when it is still missing, without a warning)."""
    desired: dict[str, t.Any] = {"devices": {"disks": [{"source": source, "target": {"dev": "vda"}}]}}
    changed, warnings = domain_disks.settle_disks(conn, desired, check_mode=True)
    assert not changed
    assert warnings == [
        f"devices.disks[0]: volume {named} is not there, so the driver type its format gives is not planned; the real run writes it "
        "(give driver.type to plan it) (yet: in check mode, an earlier task may only have predicted it)"
    ]
    assert domain_disks.settle_disks(conn, desired) == (False, [])
    with_type: dict[str, t.Any] = {"devices": {"disks": [{"source": source, "driver": {"type": "qcow2"}}]}}
    assert domain_disks.settle_disks(conn, with_type, check_mode=True) == (False, [])
    outside: dict[str, t.Any] = {"devices": {"disks": [{"source": {"file": {"file": "/nowhere/disk.qcow2"}}}]}}
    assert domain_disks.settle_disks(conn, outside, check_mode=True) == (False, [])
