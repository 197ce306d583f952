# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Sizes as people write them: one parser (units.split_size) for every
option that takes a size; a table of inputs and the bytes or the exact error, then the
modules on libvirt's test driver: check mode, a real run, both again unchanged."""

from __future__ import annotations

import itertools
import json
import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import schema, volume
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import libvirt
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.units import SIZE_FORMS, split_size, to_bytes
from ansible_collections.devinfra.providers.plugins.modules import libvirt_domain, libvirt_volume

URI = "test:///default"
POOL = "default-pool"
Run = t.Callable[..., dict[str, t.Any]]
_names = itertools.count()

# (as written, default unit, bytes): libvirt's virScaleInteger rules, letters in any case.
SIZES: list[tuple[t.Any, str, int]] = [
    (1024, "bytes", 1024),
    (1024, "KiB", 1024 * 1024),  # an integer keeps its option's meaning
    ("1024", "KiB", 1024 * 1024),
    (0, "bytes", 0),
    ("10G", "bytes", 10 * 1024**3),
    ("10GiB", "bytes", 10 * 1024**3),
    ("10gib", "bytes", 10 * 1024**3),
    ("10GB", "bytes", 10 * 10**9),
    ("10gb", "bytes", 10 * 10**9),
    ("512M", "bytes", 512 * 1024**2),
    ("512 MiB", "bytes", 512 * 1024**2),
    ("512MB", "bytes", 512 * 10**6),
    ("2k", "bytes", 2048),
    ("2KB", "bytes", 2000),
    ("2KiB", "bytes", 2048),
    ("7b", "KiB", 7),
    ("7bytes", "KiB", 7),
    ("7 BYTE", "KiB", 7),
    ("1T", "bytes", 1024**4),
    ("1TB", "bytes", 10**12),
    ("1PiB", "bytes", 1024**5),
    ("1PB", "bytes", 10**15),
    ("1E", "bytes", 1024**6),
    ("1EB", "bytes", 10**18),
    (" 3G ", "bytes", 3 * 1024**3),
]


@pytest.mark.parametrize(("given", "default", "expected"), SIZES, ids=[repr(row[0]) + "/" + row[1] for row in SIZES])
def test_sizes_as_written(given: t.Any, default: str, expected: int) -> None:
    number, unit = split_size(given, path="capacity")
    assert to_bytes(number, unit, default=default) == expected


REFUSED: list[tuple[t.Any, str]] = [
    ("1.5G", f"capacity: expected a size, {SIZE_FORMS}; got '1.5G'"),
    ("-1G", f"capacity: expected a size, {SIZE_FORMS}; got '-1G'"),
    (-1, "capacity: a size cannot be negative, got -1"),
    ("", f"capacity: expected a size, {SIZE_FORMS}; got ''"),
    ("G", f"capacity: expected a size, {SIZE_FORMS}; got 'G'"),
    ("ten G", f"capacity: expected a size, {SIZE_FORMS}; got 'ten G'"),
    ("10 parsecs", f"capacity: unknown unit 'parsecs' in '10 parsecs'; expected {SIZE_FORMS}"),
    ("10GiBB", f"capacity: unknown unit 'GiBB' in '10GiBB'; expected {SIZE_FORMS}"),
    ("10Gi", f"capacity: unknown unit 'Gi' in '10Gi'; expected {SIZE_FORMS}"),
    (True, f"capacity: expected a size, {SIZE_FORMS}; got True"),
    (1.5, f"capacity: expected a size, {SIZE_FORMS}; got 1.5"),
    ([1], f"capacity: expected a size, {SIZE_FORMS}; got [1]"),
]


@pytest.mark.parametrize(("given", "message"), REFUSED, ids=[repr(row[0]) for row in REFUSED])
def test_other_forms_are_refused_naming_the_option(given: t.Any, message: str) -> None:
    with pytest.raises(LibvirtValidationError) as caught:
        split_size(given, path="capacity")
    assert str(caught.value) == message


# (options of a domain as the module gets them, what validate_params makes of them or the error)
DOMAIN_SIZES: list[tuple[dict[str, t.Any], dict[str, t.Any] | str]] = [
    ({"memory": "2GiB"}, {"memory": 2, "memory_unit": "GiB"}),
    ({"memory": "2048"}, {"memory": 2048, "memory_unit": None}),
    ({"memory": 2, "memory_unit": "GiB"}, {"memory": 2, "memory_unit": "GiB"}),
    ({"current_memory": "1g", "maximum_memory": "8G"}, {"current_memory": 1, "current_memory_unit": "g", "maximum_memory": 8, "maximum_memory_unit": "G"}),
    ({"memory_tune": {"hard_limit": "1GB"}}, {"memory_tune": {"hard_limit": 1, "hard_limit_unit": "GB"}}),
    ({"cpu": {"numa": {"cell": [{"memory": "512MiB", "cpus": "0"}]}}}, {"cpu": {"numa": {"cell": [{"memory": 512, "unit": "MiB", "cpus": "0"}]}}}),
    ({"memory": "2GiB", "memory_unit": "KiB"}, "memory: '2GiB' carries its unit, so memory_unit must not be given too"),
    (
        {"memory_tune": {"hard_limit": "1G", "hard_limit_unit": "MiB"}},
        "memory_tune.hard_limit: '1G' carries its unit, so memory_tune.hard_limit_unit must not be given too",
    ),
    ({"memory": "2 furlongs"}, f"memory: unknown unit 'furlongs' in '2 furlongs'; expected {SIZE_FORMS}"),
    ({"memory": "1.5GiB"}, f"memory: expected a size, {SIZE_FORMS}; got '1.5GiB'"),
    ({"memory_tune": {"soft_limit": "lots"}}, f"memory_tune.soft_limit: expected a size, {SIZE_FORMS}; got 'lots'"),
    ({"memory": "8EiB"}, "memory: '8EiB' is more than libvirt takes (9223372036854775807 bytes)"),
    ({"memory": 2**54}, f"memory: {2**54} is more than libvirt takes (9223372036854775807 bytes)"),
    ({"memory_tune": {"hard_limit": "16EiB"}}, "memory_tune.hard_limit: '16EiB' is more than libvirt takes (18446744073709551615 bytes)"),
    ({"memory": 1, "memory_unit": "parsecs"}, "memory_unit: unknown unit 'parsecs' (use bytes, KiB, MiB, GiB, TiB, KB, MB, GB...)"),
]


@pytest.mark.parametrize(("given", "expected"), DOMAIN_SIZES, ids=[str(row[0]) for row in DOMAIN_SIZES])
def test_domain_sizes_are_validated_before_anything(given: dict[str, t.Any], expected: dict[str, t.Any] | str) -> None:
    params: dict[str, t.Any] = {"memory_unit": None, "current_memory_unit": None, "maximum_memory_unit": None, **given}
    names = schema.argument_spec("Domain")
    if isinstance(expected, str):
        with pytest.raises(LibvirtValidationError) as caught:
            schema.validate_params("Domain", params, names, set())
        assert str(caught.value) == expected
    else:
        schema.validate_params("Domain", params, names, set())
        assert {key: params.get(key) for key in expected} == expected


def test_the_module_types_sizes_as_raw() -> None:
    spec = schema.argument_spec("Domain")
    assert spec["memory"] == {"type": "raw"} and spec["memory_unit"] == {"type": "str"}
    assert volume.VOLUME_ARGSPEC["capacity"]["type"] == "raw"


@pytest.fixture
def conn() -> t.Iterator[t.Any]:
    connection = libvirt.open(URI)  # keeps the test driver's state across module runs
    yield connection
    connection.close()


def _domain(name: str, **options: t.Any) -> dict[str, t.Any]:
    return {"uri": URI, "name": name, "type": "test", "vcpu": 1, "os": {"type": "hvm"}, **options}


def test_a_domain_memory_as_written_converges(conn: t.Any, run_module: Run) -> None:
    name = f"unit-size-{next(_names)}"
    wanted = _domain(name, memory="128MiB")
    assert run_module(libvirt_domain.main, wanted, check_mode=True)["changed"] is True
    assert name not in conn.listDefinedDomains()
    assert run_module(libvirt_domain.main, wanted)["changed"] is True
    assert conn.lookupByName(name).maxMemory() == 128 * 1024
    assert run_module(libvirt_domain.main, wanted, check_mode=True)["changed"] is False
    assert run_module(libvirt_domain.main, wanted)["changed"] is False
    # the same size written otherwise is no change, an integer still KiB
    for same in ("128M", "131072KiB", "134217728b", 131072):
        assert run_module(libvirt_domain.main, _domain(name, memory=same))["changed"] is False, same
    # a diff shows one unit per option: libvirt's 131072 KiB as 0.125 GiB cannot be, so MiB
    result = run_module(libvirt_domain.main, _domain(name, memory="256MiB"), check_mode=True, diff=True)
    assert result["changed"] is True
    before, after = result["diff"]["before"], result["diff"]["after"]
    assert (before["memory"], before["memory_unit"], after["memory"], after["memory_unit"]) == (128, "MiB", 256, "MiB")
    result = run_module(libvirt_domain.main, _domain(name, memory="1G"), check_mode=True, diff=True)
    before, after = result["diff"]["before"], result["diff"]["after"]
    assert (before["memory"], before["memory_unit"], after["memory"], after["memory_unit"]) == (131072, "KiB", 1048576, "KiB")
    conn.lookupByName(name).undefine()


def test_a_bad_memory_fails_naming_the_option(conn: t.Any, run_module: Run) -> None:
    name = f"unit-size-{next(_names)}"
    result = run_module(libvirt_domain.main, _domain(name, memory="2 GiB-ish"))
    assert result["failed"] is True
    assert result["msg"] == f"memory: expected a size, {SIZE_FORMS}; got '2 GiB-ish'"
    assert name not in conn.listDefinedDomains()


def test_a_volume_capacity_as_written_converges(conn: t.Any, run_module: Run) -> None:
    name = f"unit-size-{next(_names)}.img"
    wanted = {"uri": URI, "pool": POOL, "name": name, "capacity": "2MiB"}
    assert run_module(libvirt_volume.main, wanted, check_mode=True)["changed"] is True
    assert name not in conn.storagePoolLookupByName(POOL).listVolumes()
    result = run_module(libvirt_volume.main, wanted, diff=True)
    assert result["changed"] is True and result["volume"]["capacity"] == 2 << 20
    assert (result["diff"]["after"]["capacity"], result["diff"]["after"]["capacity_unit"]) == (2 << 20, "bytes")
    assert run_module(libvirt_volume.main, wanted, check_mode=True)["changed"] is False
    assert run_module(libvirt_volume.main, wanted)["changed"] is False
    for same in ("2M", "2048k", "2097152B", 2 << 20, "2097152"):
        assert run_module(libvirt_volume.main, {**wanted, "capacity": same})["changed"] is False, same
    assert run_module(libvirt_volume.main, {**wanted, "capacity": 2, "capacity_unit": "MiB"})["changed"] is False
    grown = run_module(libvirt_volume.main, {**wanted, "capacity": "3MB"}, check_mode=True, diff=True)
    assert grown["changed"] is True and grown["diff"]["after"]["capacity"] == 3 * 10**6
    run_module(libvirt_volume.main, {**wanted, "state": "absent"})


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"capacity": "10Gibibytes"}, f"capacity: unknown unit 'Gibibytes' in '10Gibibytes'; expected {SIZE_FORMS}"),
        ({"capacity": "1.5G"}, f"capacity: expected a size, {SIZE_FORMS}; got '1.5G'"),
        ({"capacity": "1G", "capacity_unit": "MiB"}, "capacity: '1G' carries its unit, so capacity_unit must not be given too"),
        ({"capacity": "16EiB"}, "capacity: '16EiB' is more than libvirt takes (18446744073709551615 bytes)"),
        ({"capacity": -5}, "capacity: a size cannot be negative, got -5"),
    ],
)
def test_a_bad_capacity_touches_nothing(conn: t.Any, run_module: Run, args: dict[str, t.Any], message: str) -> None:
    name = f"unit-size-{next(_names)}.img"
    result = run_module(libvirt_volume.main, {"uri": URI, "pool": POOL, "name": name, **args})
    assert result["failed"] is True and result["msg"] == message
    assert name not in conn.storagePoolLookupByName(POOL).listVolumes()


def test_memory_in_bytes_without_a_unit_warns_against_the_host(conn: t.Any, run_module: Run) -> None:
    """Item 6: an integer is KiB; 4 GiB written in bytes is 4 TiB, more than the test host's 3 GiB."""
    name = f"unit-size-{next(_names)}"
    result = run_module(libvirt_domain.main, _domain(name, memory=4294967296), check_mode=True)
    assert result["changed"] is True
    shown = json.dumps(result.get("warnings"))
    assert "memory: 4294967296 has no memory_unit" in shown and "more than this host's 3 GiB" in shown, shown
