# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import libvirt
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtError, LibvirtValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.snapshot import (
    check_snapshot_name,
    describe_snapshot,
    ensure_snapshot,
    list_snapshots,
)
from ansible_collections.devinfra.providers.plugins.modules import libvirt_domain_snapshot

TEST_URI = "test:///default"
Run = t.Callable[..., dict[str, t.Any]]


@pytest.fixture
def conn() -> t.Iterator[t.Any]:
    """Holds test:///default open, so its state lives across the module runs of a test; the
    domain ``test`` is running and has no snapshot before and after each test (the driver's
    state outlives a test while anything still refers to the connection)."""
    connection = libvirt.open(TEST_URI)
    _reset(connection)
    yield connection
    _reset(connection)
    connection.close()


def _reset(connection: t.Any) -> None:
    dom = connection.lookupByName("test")
    for snap in dom.listAllSnapshots(0):
        snap.delete(0)
    if not dom.isActive():
        dom.create()


def names(conn: t.Any) -> list[str]:
    return sorted(snap.getName() for snap in conn.lookupByName("test").listAllSnapshots(0))


def params(**overrides: t.Any) -> dict[str, t.Any]:
    base = {"domain": "test", "name": "s1", "state": "present", "revert": False, "disk_only": None, "description": None, "metadata_only": False}
    return {**base, **overrides}


SNAP = {"uri": TEST_URI, "domain": "test", "name": "before-upgrade", "description": "Before the upgrade"}


def test_lifecycle(conn: t.Any, run_module: Run) -> None:
    result = run_module(libvirt_domain_snapshot.main, SNAP, check_mode=True, diff=True)
    assert result["changed"] is True
    assert result["current_snapshot"] == "before-upgrade"
    assert result["diff"] == {
        "before": {},
        "after": {"name": "before-upgrade", "description": "Before the upgrade", "disk_only": False, "current": True, "domain_state": "running"},
    }
    assert names(conn) == []  # check mode took nothing

    result = run_module(libvirt_domain_snapshot.main, SNAP, diff=True)
    assert result["changed"] is True
    snap = result["snapshot"]
    assert (snap["name"], snap["domain"], snap["description"], snap["current"], snap["disk_only"]) == (
        "before-upgrade",
        "test",
        "Before the upgrade",
        True,
        False,
    )
    assert (snap["state"], snap["memory"], snap["parent"]) == ("running", "internal", None)
    assert isinstance(snap["creation_time"], int)
    assert result["current_snapshot"] == "before-upgrade"
    assert names(conn) == ["before-upgrade"]

    again = run_module(libvirt_domain_snapshot.main, SNAP, diff=True)
    assert again["changed"] is False
    assert again["snapshot"] == snap
    assert again["diff"]["before"] == again["diff"]["after"]
    assert run_module(libvirt_domain_snapshot.main, SNAP, check_mode=True)["changed"] is False
    # Without a description or a kind, an existing snapshot is taken as it is.
    assert run_module(libvirt_domain_snapshot.main, {**SNAP, "description": None})["changed"] is False
    assert run_module(libvirt_domain_snapshot.main, {**SNAP, "disk_only": False})["changed"] is False

    absent = {**SNAP, "state": "absent"}
    result = run_module(libvirt_domain_snapshot.main, absent, check_mode=True, diff=True)
    assert (result["changed"], result["diff"]["after"], result["snapshot"]["name"]) == (True, {}, "before-upgrade")
    assert names(conn) == ["before-upgrade"]
    result = run_module(libvirt_domain_snapshot.main, absent)
    assert (result["changed"], result["current_snapshot"]) == (True, None)
    assert names(conn) == []
    result = run_module(libvirt_domain_snapshot.main, absent)
    assert (result["changed"], result["snapshot"]) == (False, {})


def test_description_is_changed_in_place(conn: t.Any, run_module: Run) -> None:
    run_module(libvirt_domain_snapshot.main, SNAP)
    created = describe_snapshot(conn.lookupByName("test").snapshotLookupByName("before-upgrade", 0))
    changed = {**SNAP, "description": "Before the upgrade\nof the kernel"}
    result = run_module(libvirt_domain_snapshot.main, changed, check_mode=True, diff=True)
    assert result["changed"] is True
    assert (result["diff"]["before"]["description"], result["diff"]["after"]["description"]) == ("Before the upgrade", "Before the upgrade\nof the kernel")
    assert describe_snapshot(conn.lookupByName("test").snapshotLookupByName("before-upgrade", 0))["description"] == "Before the upgrade"

    result = run_module(libvirt_domain_snapshot.main, changed)
    assert result["changed"] is True
    now = describe_snapshot(conn.lookupByName("test").snapshotLookupByName("before-upgrade", 0))
    assert now == {**created, "description": "Before the upgrade\nof the kernel"}  # the same snapshot, still current
    assert run_module(libvirt_domain_snapshot.main, changed)["changed"] is False


def test_revert(conn: t.Any, run_module: Run) -> None:
    run_module(libvirt_domain_snapshot.main, SNAP)  # of the running domain, with its memory
    dom = conn.lookupByName("test")
    dom.destroy()
    run_module(libvirt_domain_snapshot.main, {**SNAP, "name": "stopped", "description": None})
    assert dom.snapshotCurrent(0).getName() == "stopped"

    revert = {**SNAP, "revert": True}
    result = run_module(libvirt_domain_snapshot.main, revert, check_mode=True, diff=True)
    assert result["changed"] is True
    assert result["current_snapshot"] == "before-upgrade"
    assert (result["diff"]["before"]["domain_state"], result["diff"]["after"]["domain_state"]) == ("shutoff", "running")
    assert (result["diff"]["before"]["current"], result["diff"]["after"]["current"]) == (False, True)
    assert (dom.isActive(), dom.snapshotCurrent(0).getName()) == (0, "stopped")  # check mode reverted nothing

    result = run_module(libvirt_domain_snapshot.main, revert)
    assert (result["changed"], result["current_snapshot"], result["snapshot"]["current"]) == (True, "before-upgrade", True)
    assert dom.isActive() == 1  # back to the running guest the snapshot saved
    # Reverting is an action: it happens (and is reported) on every run.
    assert run_module(libvirt_domain_snapshot.main, revert)["changed"] is True

    result = run_module(libvirt_domain_snapshot.main, {**revert, "name": "stopped", "description": None}, diff=True)
    assert (result["changed"], result["diff"]["after"]["domain_state"], dom.isActive()) == (True, "shutoff", 0)


def test_new_snapshot_takes_the_current_one_as_parent(conn: t.Any) -> None:
    ensure_snapshot(conn, params(name="a"), False)
    checked = ensure_snapshot(conn, params(name="b"), True)
    assert checked.resource["parent"] == "a"
    made = ensure_snapshot(conn, params(name="b"), False)
    assert (made.resource["parent"], made.extra["current_snapshot"]) == ("a", "b")
    # Removing the current snapshot: check mode predicts what libvirt makes current.
    predicted = ensure_snapshot(conn, params(name="b", state="absent"), True).extra["current_snapshot"]
    assert ensure_snapshot(conn, params(name="b", state="absent"), False).extra["current_snapshot"] == predicted


def test_kind_mismatch_is_refused(conn: t.Any) -> None:
    ensure_snapshot(conn, params(), False)
    with pytest.raises(LibvirtValidationError, match=r"^disk_only: snapshot 's1' of domain 'test' exists as a snapshot with the disks"):
        ensure_snapshot(conn, params(disk_only=True), False)
    assert names(conn) == ["s1"]


def test_domain_by_uuid(conn: t.Any) -> None:
    uuid = conn.lookupByName("test").UUIDString()
    made = ensure_snapshot(conn, params(domain=uuid), False)
    assert (made.changed, made.resource["domain"]) == (True, "test")
    assert ensure_snapshot(conn, params(), False).changed is False


@pytest.mark.parametrize(
    ("overrides", "error", "message"),
    [
        ({"name": "a/b"}, LibvirtValidationError, r"^name: 'a/b' contains '/'"),
        ({"name": ""}, LibvirtValidationError, r"^name: must not be empty"),
        ({"name": "a\nb"}, LibvirtValidationError, r"^name: contains .*control character.*U\+000A"),
        ({"name": "a\x7fb"}, LibvirtValidationError, r"^name: contains .*control character.*U\+007F"),
        # The collection's one-line rule: C1 controls, the line separators, the bidirectional controls.
        ({"name": "a\x85b"}, LibvirtValidationError, r"^name: contains .*control character.*U\+0085"),
        ({"name": "a\u2028b"}, LibvirtValidationError, r"^name: contains .*control character.*U\+2028"),
        ({"name": "a\u202eb"}, LibvirtValidationError, r"^name: contains .*bidirectional control.*U\+202E"),
        ({"name": "a\u2066b"}, LibvirtValidationError, r"^name: contains .*bidirectional control.*U\+2066"),
        # Longer than the file libvirt keeps the snapshot in can be named (<name>.xml.new, 255 bytes).
        ({"name": "x" * 248}, LibvirtValidationError, r"^name: is 248 bytes long \(UTF-8\); a snapshot's name has at most 247"),
        ({"name": "x" * 300}, LibvirtValidationError, r"^name: is 300 bytes long"),
        ({"name": "\u00e9" * 124}, LibvirtValidationError, r"^name: is 248 bytes long"),  # 124 characters, 248 bytes
        ({"domain": "te\tst"}, LibvirtValidationError, r"^domain: contains .*control character.*U\+0009"),
        ({"domain": ""}, LibvirtValidationError, r"^domain: must not be empty"),
        ({"description": "bell\x07"}, LibvirtValidationError, r"^description: contains a character XML cannot hold \(U\+0007\)"),
        ({"state": "absent", "revert": True}, LibvirtValidationError, r"^revert: cannot be combined with state: absent"),
        ({"metadata_only": True}, LibvirtValidationError, r"^metadata_only: only applies to state: absent"),
        ({"domain": "ghost"}, LibvirtError, r"^domain: no domain has the name or UUID 'ghost'"),
        ({"revert": True}, LibvirtError, r"^name: domain 'test' has no snapshot 's1' to revert to"),
    ],
)
def test_errors_touch_nothing(conn: t.Any, overrides: dict[str, t.Any], error: type[Exception], message: str) -> None:
    for check_mode in (True, False):
        with pytest.raises(error, match=message):
            ensure_snapshot(conn, params(**overrides), check_mode)
    assert names(conn) == []


def test_libvirt_refusal_is_reported(conn: t.Any) -> None:
    # The test driver takes no disk-only snapshot: libvirt's own message comes through.
    with pytest.raises(LibvirtError, match=r"^Failed to create snapshot 's1' of domain 'test': .*unsupported flags \(0x10\)"):
        ensure_snapshot(conn, params(disk_only=True), False)
    assert names(conn) == []
    assert ensure_snapshot(conn, params(disk_only=True), True).resource["disk_only"] is True  # check mode predicts it


def test_absent_of_a_missing_domain_is_no_change(conn: t.Any) -> None:
    outcome = ensure_snapshot(conn, params(domain="ghost", state="absent"), False)
    assert (outcome.changed, outcome.resource, outcome.extra) == (False, {}, {"current_snapshot": None})


def test_metadata_only_removal(conn: t.Any) -> None:
    ensure_snapshot(conn, params(), False)
    assert ensure_snapshot(conn, params(state="absent", metadata_only=True), True).changed is True
    # The test driver knows no metadata-only removal (0x2 is VIR_DOMAIN_SNAPSHOT_DELETE_METADATA_ONLY);
    # the integration target removes a snapshot that way on the real daemon.
    with pytest.raises(LibvirtError, match=r"^Failed to delete snapshot 's1' of domain 'test': unsupported flags \(0x2\)"):
        ensure_snapshot(conn, params(state="absent", metadata_only=True), False)
    assert names(conn) == ["s1"]


@pytest.mark.parametrize("name", ["before upgrade", "ünïcode", "a.b", "-dash", "x" * 200, "x" * 247, "\u00e9" * 123 + "x"])
def test_names_libvirt_keeps(name: str) -> None:
    assert check_snapshot_name(name) == name


def test_module_errors(conn: t.Any, run_module: Run) -> None:
    result = run_module(libvirt_domain_snapshot.main, {**SNAP, "name": "a/b"})
    assert result["failed"] is True
    assert result["msg"].startswith("name: 'a/b' contains '/'")
    result = run_module(libvirt_domain_snapshot.main, {"uri": TEST_URI, "name": "x"})
    assert "missing required arguments: domain" in result["msg"]
    assert names(conn) == []


def test_listed_parent_first(conn: t.Any) -> None:
    for name in ("zeta", "alpha", "mid"):  # taken within the same second: each the child of the one before
        ensure_snapshot(conn, params(name=name), False)
    listed = list_snapshots(conn.lookupByName("test"))
    assert [(s["name"], s["parent"]) for s in listed] == [("zeta", None), ("alpha", "zeta"), ("mid", "alpha")]
    assert [s["current"] for s in listed] == [False, False, True]
