# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import hashlib
import io
import json
import os
import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import firstboot
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import libvirt
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.iso import read_iso
from ansible_collections.devinfra.providers.plugins.modules import libvirt_cloudinit_disk, libvirt_combustion, libvirt_ignition

Run = t.Callable[..., dict[str, t.Any]]

USER_DATA = "#cloud-config\nhostname: web01\n"
META_DATA = "instance-id: web01\nlocal-hostname: web01\n"
IGNITION = '{"ignition": {"version": "3.4.0"}}'
SCRIPT = "#!/bin/bash\n# combustion: network\necho hi\n"

# (module, result key, content options, changed content options)
CASES = [
    pytest.param(
        libvirt_cloudinit_disk.main, "cloudinit_disk", {"user_data": USER_DATA, "meta_data": META_DATA}, {"meta_data": "instance-id: web02\n"}, id="cloudinit"
    ),
    pytest.param(libvirt_combustion.main, "combustion", {"content": SCRIPT}, {"content": SCRIPT + "echo more\n"}, id="combustion"),
    pytest.param(libvirt_combustion.main, "combustion", {"content": SCRIPT, "format": "config_drive"}, {"content": "#!/bin/sh\n"}, id="combustion-drive"),
    pytest.param(libvirt_ignition.main, "ignition", {"content": IGNITION}, {"content": "{}"}, id="ignition"),
    pytest.param(libvirt_ignition.main, "ignition", {"content": IGNITION, "format": "config_drive"}, {"content": "{}"}, id="ignition-drive"),
]


def files_of(directory: t.Any) -> dict[str, tuple[int, int, float]]:
    """name -> (inode, mode, mtime) of the regular files, the store excluded."""
    return (
        {p.name: (p.stat().st_ino, p.stat().st_mode & 0o7777, p.stat().st_mtime_ns) for p in directory.iterdir() if p.is_file()} if directory.exists() else {}
    )


@pytest.mark.parametrize(("main", "key", "content", "changed_content"), CASES)
def test_lifecycle(run_module: Run, tmp_path: t.Any, main: t.Callable[[], None], key: str, content: dict[str, str], changed_content: dict[str, str]) -> None:
    dest = tmp_path / "seed"
    args = {"name": "web01", "dest": str(dest), **content}

    # check mode: changed, nothing written (not even the directory)
    checked = run_module(main, args, check_mode=True, diff=True)
    assert (checked["changed"], checked["operation"], checked["changed_paths"]) == (True, "create", [])
    assert not dest.exists()
    assert checked["diff"]["before"] == {"exists": False}
    assert checked["diff"]["after"]["id"] == checked[key]["id"]

    # real run: changed, upstream's file
    created = run_module(main, args, diff=True)
    assert (created["changed"], created["operation"]) == (True, "create")
    resource = created[key]
    assert resource == checked[key]  # the sizes too: check mode predicts the file it would write
    assert resource["path"].startswith(str(dest) + "/")
    assert os.path.getsize(resource["path"]) == resource["size"]
    first = files_of(dest)

    # again, check mode and real: not changed, nothing rewritten
    for check_mode in (True, False):
        again = run_module(main, args, check_mode=check_mode, diff=True)
        assert (again["changed"], again["operation"]) == (False, "none"), again
        assert again[key] == resource
        assert again["diff"]["before"] == again["diff"]["after"] | {"exists": True}
    assert files_of(dest) == first

    # changed content: a new file, the old one removed, the diff shows which content changed
    # (sha256 and size on both sides), never the text, old or new
    new_args = {**args, **changed_content}
    planned = run_module(main, new_args, check_mode=True, diff=True)
    changed = run_module(main, new_args, diff=True)
    assert (changed["changed"], changed["operation"]) == (True, "replace")
    assert (planned["operation"], planned["changed_paths"]) == ("replace", changed["changed_paths"])
    assert {"id", "path"} <= set(changed["changed_paths"])
    assert changed[key]["id"] != resource["id"]
    assert not os.path.exists(resource["path"])
    assert os.path.exists(changed[key]["path"])
    for option, value in changed_content.items():
        if option != "format":
            old = {**content}.get(option, args.get(option))
            assert isinstance(old, str)
            assert changed["diff"]["before"][f"{option}_sha256"] == hashlib.sha256(old.encode()).hexdigest()
            assert changed["diff"]["after"][f"{option}_sha256"] == hashlib.sha256(value.encode()).hexdigest()
            assert (changed["diff"]["before"][f"{option}_size"], changed["diff"]["after"][f"{option}_size"]) == (len(old.encode()), len(value.encode()))
    for option in ("user_data", "meta_data", "network_config", "content"):
        assert option not in changed["diff"]["before"] and option not in changed["diff"]["after"]
    assert len(files_of(dest)) == len(first)

    # absent: everything removed, reported; then nothing to do
    removed = run_module(main, {"name": "web01", "dest": str(dest), "state": "absent"}, diff=True)
    assert (removed["changed"], removed["operation"]) == (True, "delete")
    assert removed[key]["id"] == changed[key]["id"]
    assert sorted(removed[key]["files"]) == sorted(p for p in (changed[key]["path"], (changed[key].get("config_drive") or {}).get("path")) if p)
    assert files_of(dest) == {}
    gone = run_module(main, {"name": "web01", "dest": str(dest), "state": "absent"})
    assert (gone["changed"], gone[key]) == (False, {})


SECRET = "DVTSECRET-firstboot-0123456789abcdef"
SECRET_OLD = "DVTSECRET-firstboot-old-0123456789ab"

# (module, the content options with a secret in each, the same with another secret)
SECRET_CASES = [
    pytest.param(
        libvirt_cloudinit_disk.main,
        {
            "user_data": f"#cloud-config\npassword: {SECRET}-user\n",
            "meta_data": f"instance-id: {SECRET}-meta\n",
            "network_config": f"version: 2\n# {SECRET}-network\n",
        },
        id="cloudinit",
    ),
    pytest.param(libvirt_combustion.main, {"content": f"#!/bin/sh\necho 'root:{SECRET}-script' | chpasswd\n"}, id="combustion"),
    pytest.param(libvirt_ignition.main, {"content": json.dumps({"ignition": {"version": "3.4.0"}, "passwd": {"users": [{"name": SECRET}]}})}, id="ignition"),
]


@pytest.mark.parametrize(("main", "content"), SECRET_CASES)
def test_content_is_no_log(run_module: Run, tmp_path: t.Any, main: t.Callable[[], None], content: dict[str, str]) -> None:
    # The content options are no_log (as copy's content): the invocation a task shows at -v holds
    # none of them, nor do the result and the diff, in check mode, for real, when the content
    # changes (the diff's before side is read back from the replaced file, whose text is no
    # value of this run: Ansible would not mask it) and on removal.
    dest = tmp_path / "seed"
    old = {option: value.replace(SECRET, SECRET_OLD) for option, value in content.items()}
    base = {"name": "n", "dest": str(dest), "_ansible_inject_invocation": True}  # as the task executor asks
    results = [
        run_module(main, {**base, **old}, diff=True),
        run_module(main, {**base, **content}, check_mode=True, diff=True),
        run_module(main, {**base, **content}, diff=True),
        run_module(main, {**base, "state": "absent"}, diff=True),
    ]
    assert [r["changed"] for r in results] == [True, True, True, True]
    for option in content:
        assert results[2]["invocation"]["module_args"][option] == "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER"
        assert results[2]["diff"]["before"][f"{option}_sha256"] != results[2]["diff"]["after"][f"{option}_sha256"]
    for result in results:
        assert "DVTSECRET" not in json.dumps(result)


def test_cloudinit_image_layout(run_module: Run, tmp_path: t.Any) -> None:
    args = {"name": "n", "dest": str(tmp_path), "user_data": USER_DATA, "meta_data": META_DATA, "network_config": "version: 2\n"}
    result = run_module(libvirt_cloudinit_disk.main, args)["cloudinit_disk"]
    with open(result["path"], "rb") as fh:
        seen = read_iso(fh)
    want = {"user-data": USER_DATA.encode(), "meta-data": META_DATA.encode(), "network-config": b"version: 2\n"}
    assert (seen.label, seen.rock_ridge, seen.joliet) == ("cidata", want, want)
    assert (result["network_config_sha256"], result["network_config_size"]) == (hashlib.sha256(b"version: 2\n").hexdigest(), 11)
    assert os.stat(result["path"]).st_mode & 0o777 == 0o644


@pytest.mark.parametrize(
    ("main", "key", "content", "label", "inner", "mode"),
    [
        (libvirt_combustion.main, "combustion", SCRIPT, "combustion", "combustion/script", 0o555),
        (libvirt_ignition.main, "ignition", IGNITION, "ignition", "ignition/config.ign", 0o444),
    ],
)
def test_config_drive_layout(run_module: Run, tmp_path: t.Any, main: t.Callable[[], None], key: str, content: str, label: str, inner: str, mode: int) -> None:
    result = run_module(main, {"name": "n", "dest": str(tmp_path), "content": content, "format": "config_drive"})[key]
    drive = result["config_drive"]
    assert (drive["label"], drive["file"]) == (label, inner)
    with open(drive["path"], "rb") as fh:
        seen = read_iso(fh)
    assert (seen.label, seen.rock_ridge, seen.joliet, seen.modes) == (label, {inner: content.encode()}, {inner: content.encode()}, {inner: mode})
    with open(result["path"], "rb") as fh:
        assert fh.read() == content.encode()
    assert result["mode"] == {"combustion": "0755", "ignition": "0644"}[key]
    assert os.stat(result["path"]).st_mode & 0o777 == int(result["mode"], 8)


def overwrite(path: str, offset: int, data: bytes) -> None:
    with open(path, "r+b") as fh:
        fh.seek(offset)
        fh.write(data)


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda path: os.truncate(path, 40000), id="truncated"),
        pytest.param(lambda path: overwrite(path, 32768, b"garbage"), id="descriptor-overwritten"),
        pytest.param(lambda path: overwrite(path, os.path.getsize(path) - 2048, USER_DATA.upper().encode()), id="data-overwritten"),
        pytest.param(lambda path: os.chmod(path, 0o600), id="mode"),
        pytest.param(os.unlink, id="deleted"),
    ],
)
def test_a_damaged_file_is_rebuilt(run_module: Run, tmp_path: t.Any, damage: t.Callable[[str], t.Any]) -> None:
    args = {"name": "n", "dest": str(tmp_path), "user_data": USER_DATA, "meta_data": META_DATA}
    path = run_module(libvirt_cloudinit_disk.main, args)["cloudinit_disk"]["path"]
    damage(path)
    assert run_module(libvirt_cloudinit_disk.main, args, check_mode=True)["changed"] is True
    assert run_module(libvirt_cloudinit_disk.main, args)["changed"] is True
    with open(path, "rb") as fh:
        assert read_iso(fh).rock_ridge["user-data"] == USER_DATA.encode()
    assert os.stat(path).st_mode & 0o777 == 0o644
    assert run_module(libvirt_cloudinit_disk.main, args)["changed"] is False


def test_a_shared_file_stays_while_referenced(run_module: Run, tmp_path: t.Any) -> None:
    one = {"name": "one", "dest": str(tmp_path), "content": IGNITION}
    two = {**one, "name": "two"}
    path = run_module(libvirt_ignition.main, one)["ignition"]["path"]
    shared = run_module(libvirt_ignition.main, two)
    assert shared["changed"] is True  # a new resource, even though its file was already there
    assert shared["ignition"]["path"] == path
    # "one" moves on: the file stays for "two" (upstream removes it: the other's file is gone)
    run_module(libvirt_ignition.main, {**one, "content": "{}"})
    assert os.path.exists(path)
    removed = run_module(libvirt_ignition.main, {**two, "state": "absent"})
    assert removed["ignition"]["files"] == [path]
    assert not os.path.exists(path)


def test_absent_without_a_record_removes_the_content_file(run_module: Run, tmp_path: t.Any) -> None:
    # a file upstream (or an earlier tool) left: named by its content
    path = tmp_path / f"ignition-{firstboot.resource_id(firstboot.IGNITION, {'content': IGNITION})}.ign"
    path.write_text(IGNITION)
    result = run_module(libvirt_ignition.main, {"name": "n", "dest": str(tmp_path), "content": IGNITION, "state": "absent"})
    assert (result["changed"], result["ignition"]["files"]) == (True, [str(path)])
    assert not path.exists()


def test_default_dest_is_upstreams_per_user(run_module: Run, tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    result = run_module(libvirt_combustion.main, {"name": "n", "content": SCRIPT})["combustion"]
    assert result["dest"] == str(tmp_path / f"terraform-provider-libvirt-combustion-{os.geteuid()}")
    assert result["path"] == f"{result['dest']}/script-{result['id']}.sh"
    assert oct(os.stat(result["dest"]).st_mode & 0o777) == "0o755"


@pytest.mark.parametrize(
    ("main", "args", "message"),
    [
        (libvirt_cloudinit_disk.main, {"meta_data": META_DATA}, "state is present but all of the following are missing: user_data"),
        (libvirt_cloudinit_disk.main, {"user_data": "", "meta_data": META_DATA}, "user_data: must not be empty"),
        (libvirt_combustion.main, {}, "state is present but all of the following are missing: content"),
        (libvirt_ignition.main, {"content": "{oops"}, "content: not valid JSON, so not an Ignition config: Expecting property name"),
        (libvirt_ignition.main, {"content": "[]"}, "content: an Ignition config is a JSON object, got a JSON list"),
        (libvirt_ignition.main, {"content": "{}", "format": "iso"}, "value of format must be one of: file, config_drive, got: iso"),
        (libvirt_ignition.main, {"content": "{}", "dest": "rel"}, "dest: must be an absolute path"),
        (libvirt_ignition.main, {"content": "{}", "volume": "v"}, "volume: needs pool"),
    ],
)
def test_bad_input_touches_nothing(run_module: Run, tmp_path: t.Any, main: t.Callable[[], None], args: dict[str, t.Any], message: str) -> None:
    dest = tmp_path / "d"
    result = run_module(main, {"name": "n", "dest": str(dest), **args})
    assert result["failed"] is True
    assert message in result["msg"]
    assert not dest.exists()


def test_unwritable_dest_fails_cleanly(run_module: Run) -> None:
    # /proc takes no new directories, not even from root
    result = run_module(libvirt_ignition.main, {"name": "n", "dest": "/proc/devinfra-firstboot", "content": "{}"})
    assert result["failed"] is True
    assert result["msg"].startswith("Failed to Create Temp Directory: Could not create directory /proc/devinfra-firstboot: ")


def test_a_failed_write_leaves_nothing(run_module: Run, tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    args = {"name": "n", "dest": str(tmp_path), "content": IGNITION}
    old = run_module(libvirt_ignition.main, args)["ignition"]["path"]

    def fail(*_args: t.Any, **_kwargs: t.Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    result = run_module(libvirt_ignition.main, {**args, "content": "{}"})
    assert result["failed"] is True
    assert result["msg"].startswith(f"Failed to Write File: Could not write {tmp_path}/ignition-")
    assert result["msg"].endswith(": No space left on device")
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == [os.path.basename(old)]
    monkeypatch.undo()
    # the record still names the old file: the next run replaces it as usual
    assert run_module(libvirt_ignition.main, {**args, "content": "{}"})["changed"] is True
    assert not os.path.exists(old)


def test_a_foreign_record_is_an_error(run_module: Run, tmp_path: t.Any) -> None:
    args = {"name": "n", "dest": str(tmp_path), "content": IGNITION}
    run_module(libvirt_ignition.main, args)
    (record,) = (tmp_path / ".devinfra-firstboot").glob("ignition-*.json")
    record.write_text(json.dumps(["not", "ours"]))
    result = run_module(libvirt_ignition.main, args)
    assert result["failed"] is True
    assert result["msg"] == f"dest: the reference file {record} is not one of ours (not a JSON object); remove it to start afresh"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"pool": "no-such-pool"}, "pool: storage pool 'no-such-pool' not found"),
        # test:///default has no virStorageVolUpload: the volume made for the upload is removed again
        ({"pool": "default-pool", "volume": "firstboot-unit.iso"}, "Failed to upload "),
    ],
)
def test_pool_errors(run_module: Run, tmp_path: t.Any, args: dict[str, t.Any], message: str) -> None:
    dest = tmp_path / "d"
    result = run_module(libvirt_ignition.main, {"name": "n", "dest": str(dest), "content": IGNITION, "uri": "test:///default", **args})
    assert result["failed"] is True
    assert message in result["msg"]
    # a missing pool is bad input: found before any file is written
    assert dest.exists() is (args["pool"] == "default-pool")
    conn = libvirt.open("test:///default")
    try:
        assert "firstboot-unit.iso" not in conn.storagePoolLookupByName("default-pool").listVolumes()
    finally:
        conn.close()


def test_pool_in_check_mode_only_looks(run_module: Run, tmp_path: t.Any) -> None:
    args = {"name": "n", "dest": str(tmp_path), "content": IGNITION, "uri": "test:///default", "pool": "default-pool"}
    result = run_module(libvirt_ignition.main, args, check_mode=True)
    assert result["changed"] is True
    assert result["ignition"]["volume"] == {"pool": "default-pool", "name": "n.ign"}


def test_check_mode_plans_a_volume_in_a_pool_not_made_yet(run_module: Run, tmp_path: t.Any) -> None:
    args = {"name": "n", "dest": str(tmp_path / "seed"), "content": IGNITION, "uri": "test:///default", "pool": "made-later"}
    planned = run_module(libvirt_ignition.main, args, check_mode=True)
    assert (planned["changed"], planned["operation"]) == (True, "create")
    assert planned["ignition"]["volume"] == {"pool": "made-later", "name": "n.ign"}
    assert "pool: storage pool 'made-later' not found (yet: in check mode, an earlier task may only have predicted it)" in str(planned["warnings"])
    failed = run_module(libvirt_ignition.main, args)
    assert (failed["failed"], failed["msg"]) == (True, "pool: storage pool 'made-later' not found")
    assert not (tmp_path / "seed").exists()


def test_result_in_check_mode_matches_the_real_run(run_module: Run, tmp_path: t.Any) -> None:
    args = {"name": "n", "dest": str(tmp_path), "user_data": USER_DATA, "meta_data": META_DATA}
    checked = run_module(libvirt_cloudinit_disk.main, args, check_mode=True)["cloudinit_disk"]
    real = run_module(libvirt_cloudinit_disk.main, args)["cloudinit_disk"]
    assert checked == real  # the ISO's size predicted: the plan of a replace names the paths the real run changes
    with open(real["path"], "rb") as fh:
        assert read_iso(io.BytesIO(fh.read())).label == "cidata"


@pytest.mark.parametrize("check_mode", [True, False])
def test_absent_removes_the_default_volume_without_files(run_module: Run, tmp_path: t.Any, check_mode: bool) -> None:
    conn = libvirt.open("test:///default")  # kept open: the test driver's state lives while a connection does
    try:
        pool = conn.storagePoolLookupByName("default-pool")
        pool.createXML("<volume><name>firstboot-n.ign</name><capacity>10</capacity></volume>", 0)
        args = {"name": "firstboot-n", "dest": str(tmp_path / "none"), "uri": "test:///default", "pool": "default-pool", "state": "absent"}
        try:
            result = run_module(libvirt_ignition.main, args, check_mode=check_mode)
            assert result["changed"] is True
            assert result["ignition"]["volume"]["name"] == "firstboot-n.ign"
            assert ("firstboot-n.ign" in pool.listVolumes()) is check_mode
            assert not (tmp_path / "none").exists()
        finally:
            if "firstboot-n.ign" in pool.listVolumes():
                pool.storageVolLookupByName("firstboot-n.ign").delete(0)
    finally:
        conn.close()


@pytest.mark.parametrize(("main", "key", "content", "changed_content"), CASES)
def test_the_result_and_the_diff_carry_digests(
    run_module: Run, tmp_path: t.Any, main: t.Callable[[], None], key: str, content: dict[str, str], changed_content: dict[str, str]
) -> None:
    # the contents carry passwords and keys and can be megabytes: never whole in the result nor the diff
    args = {"name": "n", "dest": str(tmp_path), **content}
    for check_mode in (True, False):
        result = run_module(main, args, check_mode=check_mode, diff=True)
        resource = result[key]
        for option in ("user_data", "meta_data", "network_config") if key == "cloudinit_disk" else ("content",):
            assert option not in resource
            value = content.get(option)
            assert resource[f"{option}_sha256"] == (hashlib.sha256(value.encode()).hexdigest() if value is not None else None)
            assert resource[f"{option}_size"] == (len(value.encode()) if value is not None else None)
            if value is not None:
                assert value not in json.dumps(resource)
            assert option not in result["diff"]["after"]
            assert result["diff"]["after"][f"{option}_sha256"] == resource[f"{option}_sha256"]
            assert result["diff"]["after"][f"{option}_size"] == resource[f"{option}_size"]
