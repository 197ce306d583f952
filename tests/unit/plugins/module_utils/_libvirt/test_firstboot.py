# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import fcntl
import hashlib
import io
import json
import os
import pwd
import stat
import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.firstboot import (
    CLOUDINIT_DISK,
    COMBUSTION,
    IGNITION,
    Artifact,
    FirstbootError,
    FirstbootResult,
    Kind,
    apply,
    check_dest,
    default_dest,
    desired_plan,
    remove,
    resource_id,
    validate,
)
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.iso import IsoFile, build_iso

# sha256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad (FIPS 180-2).
ABC = "ba7816bf8f01cfea"


@pytest.mark.parametrize(
    ("kind", "content", "expected"),
    [
        # upstream concatenates user_data, meta_data, network_config with no separator
        (CLOUDINIT_DISK, {"user_data": "abc", "meta_data": "", "network_config": None}, ABC),
        (CLOUDINIT_DISK, {"user_data": "a", "meta_data": "bc", "network_config": None}, ABC),
        (CLOUDINIT_DISK, {"user_data": "a", "meta_data": "b", "network_config": "c"}, ABC),
        (CLOUDINIT_DISK, {"user_data": "", "meta_data": "", "network_config": "abc"}, ABC),
        (CLOUDINIT_DISK, {"user_data": "abc", "meta_data": "", "network_config": ""}, ABC),  # empty adds nothing
        (CLOUDINIT_DISK, {"user_data": "", "meta_data": "", "network_config": None}, "e3b0c44298fc1c14"),
        (COMBUSTION, {"content": "abc"}, ABC),
        (IGNITION, {"content": "abc"}, ABC),
    ],
)
def test_resource_id(kind: Kind, content: dict[str, t.Any], expected: str) -> None:
    assert resource_id(kind, content) == expected


def test_resource_id_hashes_utf8() -> None:
    # Go hashes the string's UTF-8 bytes: sha256(c3 a9), not sha256 of a Latin-1 byte e9
    assert resource_id(COMBUSTION, {"content": "é"}) == hashlib.sha256(b"\xc3\xa9").hexdigest()[:16]
    assert resource_id(COMBUSTION, {"content": "é"}) != hashlib.sha256(b"\xe9").hexdigest()[:16]


@pytest.mark.parametrize(
    ("kind", "environ", "expected"),
    [
        # upstream's directory, per user: another user cannot make root's first
        (CLOUDINIT_DISK, {}, "/tmp/terraform-provider-libvirt-cloudinit-{euid}"),
        (CLOUDINIT_DISK, {"TMPDIR": ""}, "/tmp/terraform-provider-libvirt-cloudinit-{euid}"),  # Go: empty = unset
        (COMBUSTION, {"TMPDIR": "/var/tmp"}, "/var/tmp/terraform-provider-libvirt-combustion-{euid}"),
        (IGNITION, {"TMPDIR": "/run/user/0"}, "/run/user/0/terraform-provider-libvirt-ignition-{euid}"),
    ],
)
def test_default_dest(kind: Kind, environ: dict[str, str], expected: str) -> None:
    assert default_dest(kind, environ=environ) == expected.format(euid=os.geteuid())


@pytest.mark.parametrize(
    ("kind", "params", "expected_name", "drive"),
    [
        (CLOUDINIT_DISK, {"user_data": "abc", "meta_data": ""}, f"cloudinit-{ABC}.iso", None),
        (COMBUSTION, {"content": "abc"}, f"script-{ABC}.sh", None),
        (COMBUSTION, {"content": "abc", "format": "config_drive"}, f"script-{ABC}.sh", f"combustion-{ABC}.iso"),
        (IGNITION, {"content": "abc"}, f"ignition-{ABC}.ign", None),
        (IGNITION, {"content": "abc", "format": "config_drive"}, f"ignition-{ABC}.ign", f"ignition-{ABC}.iso"),
    ],
)
def test_upstream_paths_and_modes(kind: Kind, params: dict[str, t.Any], expected_name: str, drive: str | None) -> None:
    plan = desired_plan(kind, {"name": "n", "dest": "/d", "format": "file", **params})
    assert plan.main.path == f"/d/{expected_name}"
    assert plan.main.mode == {"cloudinit_disk": 0o644, "combustion": 0o755, "ignition": 0o644}[kind.key]
    assert (plan.drive.path if plan.drive else None) == (f"/d/{drive}" if drive else None)


@pytest.mark.parametrize(
    ("kind", "params", "volume"),
    [
        (CLOUDINIT_DISK, {"user_data": "u", "meta_data": "m", "pool": "p"}, "n.iso"),
        (COMBUSTION, {"content": "c", "pool": "p"}, "n.sh"),
        (COMBUSTION, {"content": "c", "pool": "p", "format": "config_drive"}, "n.iso"),
        (IGNITION, {"content": "{}", "pool": "p"}, "n.ign"),
        (IGNITION, {"content": "{}", "pool": "p", "volume": "seed.raw"}, "seed.raw"),
        (IGNITION, {"content": "{}"}, None),
    ],
)
def test_default_volume_names(kind: Kind, params: dict[str, t.Any], volume: str | None) -> None:
    assert desired_plan(kind, {"name": "n", "format": "file", **params}).volume == volume


BASE = {"name": "n", "state": "present", "dest": None, "pool": None, "volume": None, "format": "file"}


@pytest.mark.parametrize(
    ("kind", "params", "message"),
    [
        (CLOUDINIT_DISK, {"name": "", "user_data": "u", "meta_data": "m"}, "^name: must not be empty$"),
        (CLOUDINIT_DISK, {"user_data": "", "meta_data": "m"}, "^user_data: must not be empty$"),
        (CLOUDINIT_DISK, {"user_data": "u", "meta_data": ""}, "^meta_data: must not be empty$"),
        (COMBUSTION, {"content": ""}, "^content: must not be empty$"),
        (IGNITION, {"content": ""}, "^content: must not be empty$"),
        (
            IGNITION,
            {"content": "{"},
            r"^content: not valid JSON, so not an Ignition config: Expecting property name enclosed in double quotes: line 1 column 2",
        ),
        (IGNITION, {"content": "ignition: {}"}, r"^content: not valid JSON, so not an Ignition config: Expecting value: line 1 column 1 \(char 0\)"),
        (IGNITION, {"content": "[1]"}, "^content: an Ignition config is a JSON object, got a JSON list$"),
        (IGNITION, {"content": '"x"'}, "^content: an Ignition config is a JSON object, got a JSON str$"),
        (COMBUSTION, {"content": "x", "dest": "relative/dir"}, "^dest: must be an absolute path, got 'relative/dir'$"),
        (COMBUSTION, {"content": "x", "dest": "/etc/hostname/sub"}, "^dest: /etc/hostname is not a directory$"),
        (COMBUSTION, {"content": "x", "volume": "v"}, "^volume: needs pool$"),
        (COMBUSTION, {"content": "x", "pool": "p", "volume": "a/b"}, "^volume: must be a volume name without '/', got 'a/b'$"),
        (COMBUSTION, {"content": "x", "pool": "p", "volume": ""}, "^volume: must be a volume name without '/', got ''$"),
        # names that become file and volume names are one line (the cloud-init content may span lines)
        (CLOUDINIT_DISK, {"name": "seed\nx", "user_data": "u", "meta_data": "m"}, r"^name: contains .*control character.*U\+000A"),
        (COMBUSTION, {"content": "x", "pool": "p", "volume": "v\r.iso"}, r"^volume: contains .*control character.*U\+000D"),
        (COMBUSTION, {"content": "x", "pool": "p\x7f"}, r"^pool: contains .*control character.*U\+007F"),
        (IGNITION, {"content": "{}", "dest": "/var/tmp/a\tb"}, r"^dest: contains .*control character.*U\+0009"),
    ],
)
def test_validate(kind: Kind, params: dict[str, t.Any], message: str) -> None:
    if not os.path.isfile("/etc/hostname") and "hostname" in message:
        pytest.skip("needs /etc/hostname")
    with pytest.raises(LibvirtValidationError, match=message):
        validate(kind, {**BASE, **params})


def test_validate_accepts_absent_without_content() -> None:
    validate(CLOUDINIT_DISK, {**BASE, "state": "absent"})
    validate(IGNITION, {**BASE, "state": "absent", "content": "not json"})


IGN = b'{"ignition": {"version": "3.4.0"}}'


@pytest.mark.parametrize(
    ("artifact", "blob", "matches"),
    [
        (Artifact(path="p", mode=0o644, data=IGN), IGN, True),
        (Artifact(path="p", mode=0o644, data=IGN), IGN + b"\0" * 5000, True),  # a volume rounded up
        (Artifact(path="p", mode=0o644, data=IGN), IGN[:-1], False),  # truncated
        (Artifact(path="p", mode=0o644, data=IGN), IGN + b"\n", False),
        (Artifact(path="p", mode=0o644, data=IGN), b"", False),
        (
            Artifact(path="p", mode=0o644, iso_label="cidata", iso_files=(IsoFile("user-data", b"u"), IsoFile("meta-data", b"m"))),
            build_iso("cidata", [IsoFile("meta-data", b"m"), IsoFile("user-data", b"u")]),
            True,
        ),
        (
            Artifact(path="p", mode=0o644, iso_label="cidata", iso_files=(IsoFile("user-data", b"u"), IsoFile("meta-data", b"m"))),
            build_iso("CIDATA", [IsoFile("user-data", b"u"), IsoFile("meta-data", b"m")]),
            False,
        ),
        (
            Artifact(path="p", mode=0o644, iso_label="cidata", iso_files=(IsoFile("user-data", b"u"), IsoFile("meta-data", b"m"))),
            build_iso("cidata", [IsoFile("user-data", b"u"), IsoFile("meta-data", b"m"), IsoFile("network-config", b"")]),
            False,
        ),
        (
            Artifact(path="p", mode=0o644, iso_label="combustion", iso_files=(IsoFile("combustion/script", b"s", 0o555),)),
            build_iso("combustion", [IsoFile("combustion/script", b"s", 0o444)]),
            False,  # the script must be executable
        ),
    ],
    ids=["plain", "plain-zero-padded", "plain-truncated", "plain-extra", "plain-empty", "iso", "iso-label", "iso-extra-file", "iso-mode"],
)
def test_content_matches(artifact: Artifact, blob: bytes, matches: bool) -> None:
    assert artifact.content_matches(io.BytesIO(blob)) is matches


# --- another local user prepares dest before root's run ------------------------------------
#
# The modules run as root on hosts other users share, and dest defaults to a directory in
# /tmp. Each case below is a state another user (nobody) can leave there; the module must
# refuse it and never delete, read or show what the records there name (a victim file in a
# root-only directory, a victim volume), in check mode neither.

SECRET = "root:$6$victim-password-hash:19000:0:99999:7:::\n"
NOBODY = pwd.getpwnam("nobody")
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")


def _no_libvirt() -> t.ContextManager[t.Any]:
    raise AssertionError("libvirt was contacted: a recorded volume would have been deleted")


def _params(kind: Kind, dest: t.Any, **extra: t.Any) -> dict[str, t.Any]:
    content = {"user_data": "#cloud-config\n", "meta_data": "instance-id: a\n", "network_config": None} if kind is CLOUDINIT_DISK else {"content": "{}"}
    return {**BASE, "name": "web01", "dest": str(dest), **content, **extra}


def _run(kind: Kind, params: dict[str, t.Any], *, check_mode: bool) -> FirstbootResult:
    validate(kind, params)
    if params["state"] == "present":
        return apply(desired_plan(kind, params), check_mode=check_mode, connect=_no_libvirt)
    return remove(kind, params, check_mode=check_mode, connect=_no_libvirt)


def _as_nobody(*paths: t.Any) -> None:
    for path in paths:
        os.lchown(path, NOBODY.pw_uid, NOBODY.pw_gid)


def _plant_record(dest: t.Any, files: list[str], *, kind: Kind = IGNITION, name: str = "web01", volume: t.Any = None, record_name: str | None = None) -> t.Any:
    store = dest / ".devinfra-firstboot"
    store.mkdir(parents=True, exist_ok=True)
    record = store / (record_name or f"{kind.key}-{hashlib.sha256(name.encode()).hexdigest()[:16]}.json")
    record.write_text(json.dumps({"kind": kind.key, "name": name, "id": "0123456789abcdef", "files": files, "volume": volume}))
    return record


@pytest.fixture
def victim(tmp_path: t.Any) -> t.Any:
    vault = tmp_path / "vault"
    vault.mkdir(mode=0o700)
    shadow = vault / "shadow"
    shadow.write_text(SECRET)
    shadow.chmod(0o600)
    return shadow


def _dest_owned_by_nobody(tmp_path: t.Any, victim: t.Any) -> t.Any:
    dest = tmp_path / "dest"
    record = _plant_record(dest, [str(victim)])
    _as_nobody(dest, dest / ".devinfra-firstboot", record)
    return dest


def _dest_writable(mode: int) -> t.Callable[[t.Any, t.Any], t.Any]:
    def prepare(tmp_path: t.Any, victim: t.Any) -> t.Any:
        dest = tmp_path / "dest"
        _plant_record(dest, [str(victim)])
        dest.chmod(mode)
        return dest

    return prepare


def _parent_owned_by_nobody(tmp_path: t.Any, victim: t.Any) -> t.Any:
    (tmp_path / "shared").mkdir()
    _as_nobody(tmp_path / "shared")
    return tmp_path / "shared" / "dest"


def _parent_writable(tmp_path: t.Any, victim: t.Any) -> t.Any:
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared").chmod(0o777)  # no sticky bit: others can rename dest away
    return tmp_path / "shared" / "dest"


def _symlink_by_nobody(tmp_path: t.Any, victim: t.Any) -> t.Any:
    real = tmp_path / "real"
    _plant_record(real, [str(victim)])
    (tmp_path / "link").symlink_to(real)
    _as_nobody(tmp_path / "link")
    return tmp_path / "link"


def _store(owner_nobody: bool, mode: int = 0o755) -> t.Callable[[t.Any, t.Any], t.Any]:
    def prepare(tmp_path: t.Any, victim: t.Any) -> t.Any:
        dest = tmp_path / "dest"
        record = _plant_record(dest, [str(victim)], volume={"pool": "default", "name": "victim.qcow2"})
        (dest / ".devinfra-firstboot").chmod(mode)
        if owner_nobody:
            _as_nobody(dest / ".devinfra-firstboot", record)
        return dest

    return prepare


def _store_symlink(tmp_path: t.Any, victim: t.Any) -> t.Any:
    elsewhere = tmp_path / "elsewhere"
    _plant_record(elsewhere, [str(victim)])
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / ".devinfra-firstboot").symlink_to(elsewhere / ".devinfra-firstboot")
    return dest


HOSTILE_DESTS = [
    pytest.param(
        _dest_owned_by_nobody,
        r"^dest: \S+/dest is owned by nobody \(uid \d+\), not by root, who runs the module: its owner could replace",
        id="dest-owned-by-nobody",
    ),
    pytest.param(_dest_writable(0o777), r"^dest: \S+/dest is writable by group or others \(mode 0777\)", id="dest-world-writable"),
    pytest.param(_dest_writable(0o1777), r"^dest: \S+/dest is writable by group or others \(mode 1777\): the files' names are predictable", id="dest-sticky"),
    pytest.param(_dest_writable(0o775), r"^dest: \S+/dest is writable by group or others \(mode 0775\)", id="dest-group-writable"),
    pytest.param(_parent_owned_by_nobody, r"^dest: \S+/shared is owned by nobody", id="parent-owned-by-nobody"),
    pytest.param(_parent_writable, r"^dest: \S+/shared is writable by group or others \(mode 0777\): others could replace", id="parent-world-writable"),
    pytest.param(_symlink_by_nobody, r"^dest: \S+/link is a symlink owned by nobody", id="symlink-owned-by-nobody"),
    pytest.param(_store(owner_nobody=True), r"^dest: the record store \S+ is owned by nobody", id="store-owned-by-nobody"),
    pytest.param(_store(owner_nobody=False, mode=0o777), r"^dest: the record store \S+ is writable by group or others \(mode 0777", id="store-world-writable"),
    pytest.param(_store_symlink, r"^dest: the record store \S+ is a symbolic link", id="store-symlink"),
]


@needs_root
@pytest.mark.parametrize(("prepare", "message"), HOSTILE_DESTS)
@pytest.mark.parametrize("state", ["present", "absent"])
@pytest.mark.parametrize("check_mode", [True, False], ids=["check", "real"])
def test_a_dest_another_user_controls_is_refused(
    tmp_path: t.Any, victim: t.Any, prepare: t.Callable[[t.Any, t.Any], t.Any], message: str, state: str, check_mode: bool
) -> None:
    dest = prepare(tmp_path, victim)
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    with pytest.raises(LibvirtValidationError, match=message) as caught:
        _run(IGNITION, _params(IGNITION, dest, state=state, pool="default" if state == "absent" else None), check_mode=check_mode)
    assert victim.read_text() == SECRET
    assert SECRET.strip() not in str(caught.value)
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before  # nothing made, nothing removed


def _record_file(change: t.Callable[[t.Any, t.Any, t.Any], t.Any]) -> t.Callable[[t.Any, t.Any], t.Any]:
    def prepare(tmp_path: t.Any, victim: t.Any) -> t.Any:
        dest = tmp_path / "dest"
        dest.mkdir()
        change(dest, victim, _plant_record(dest, [str(victim)], volume={"pool": "default", "name": "victim.qcow2"}))
        return dest

    return prepare


def _names(files: t.Callable[[t.Any, t.Any], list[str]], **extra: t.Any) -> t.Callable[[t.Any, t.Any], t.Any]:
    def prepare(tmp_path: t.Any, victim: t.Any) -> t.Any:
        dest = tmp_path / "dest"
        dest.mkdir()
        (dest / "notes.txt").write_text(SECRET)
        _plant_record(dest, files(dest, victim), **extra)
        return dest

    return prepare


def _symlinked_record(dest: t.Any, victim: t.Any, record: t.Any) -> None:
    real = dest / "elsewhere.json"
    record.rename(real)
    record.symlink_to(real)


HOSTILE_RECORDS = [
    pytest.param(_record_file(lambda dest, victim, record: _as_nobody(record)), r"is owned by nobody", id="record-owned-by-nobody"),
    pytest.param(_record_file(lambda dest, victim, record: record.chmod(0o666)), r"is writable by group or others \(mode 0666\)", id="record-world-writable"),
    pytest.param(_record_file(_symlinked_record), r"is a symbolic link", id="record-symlink"),
    # The one safe-file rule (_common.safe_files), not first-boot's own laxer one of before.
    pytest.param(_record_file(lambda dest, victim, record: record.chmod(0o660)), r"is writable by group or others \(mode 0660\)", id="record-group-writable"),
    pytest.param(_record_file(lambda dest, victim, record: os.link(record, dest.parent / "second-name")), r"has 2 hard links", id="record-hard-linked"),
    pytest.param(_names(lambda dest, victim: [str(victim)]), r"is not a file of ignition in", id="names-a-file-outside-dest"),
    pytest.param(_names(lambda dest, victim: [f"{dest}/../vault/shadow"]), r"is not a file of ignition in", id="names-dotdot"),
    pytest.param(_names(lambda dest, victim: [f"{dest}/notes.txt"]), r"is not a file of ignition in", id="names-another-file-in-dest"),
    pytest.param(_names(lambda dest, victim: [f"{dest}/cloudinit-0123456789abcdef.iso"]), r"is not a file of ignition in", id="names-another-kinds-file"),
    pytest.param(
        _names(lambda dest, victim: [], name="other", record_name=f"ignition-{hashlib.sha256(b'web01').hexdigest()[:16]}.json"),
        r"its kind and name do not match its file name",
        id="name-does-not-match-file-name",
    ),
]


@needs_root
@pytest.mark.parametrize(("prepare", "message"), HOSTILE_RECORDS)
@pytest.mark.parametrize("state", ["present", "absent"])
@pytest.mark.parametrize("check_mode", [True, False], ids=["check", "real"])
def test_a_record_that_is_not_ours_is_refused(
    tmp_path: t.Any, victim: t.Any, prepare: t.Callable[[t.Any, t.Any], t.Any], message: str, state: str, check_mode: bool
) -> None:
    dest = prepare(tmp_path, victim)
    with pytest.raises(FirstbootError, match=rf"^dest: the reference file \S+ .*{message}") as caught:
        _run(IGNITION, _params(IGNITION, dest, state=state), check_mode=check_mode)
    assert victim.read_text() == SECRET
    assert (dest / "notes.txt").read_text() == SECRET if (dest / "notes.txt").exists() else True
    assert SECRET.strip() not in str(caught.value)


@needs_root
def test_a_record_of_another_resource_that_is_not_ours_is_refused(tmp_path: t.Any, victim: t.Any) -> None:
    # an old file is kept while another record names it: every record is checked
    dest = tmp_path / "dest"
    _run(IGNITION, _params(IGNITION, dest), check_mode=False)
    _as_nobody(_plant_record(dest, [], name="other"))
    with pytest.raises(FirstbootError, match="is owned by nobody"):
        _run(IGNITION, _params(IGNITION, dest, content='{"a": 1}'), check_mode=False)


@needs_root
@pytest.mark.parametrize("check_mode", [True, False], ids=["check", "real"])
def test_a_recorded_symlink_is_never_read_nor_followed(tmp_path: t.Any, victim: t.Any, check_mode: bool) -> None:
    # a record of ours whose file was replaced by a symlink to the victim: the diff must
    # not show the victim, nothing is deleted through the link
    dest = tmp_path / "dest"
    _run(IGNITION, _params(IGNITION, dest), check_mode=False)
    (old,) = dest.glob("ignition-*.ign")
    old.unlink()
    old.symlink_to(victim)
    with pytest.raises(FirstbootError, match="exists and is not a regular file"):
        _run(IGNITION, _params(IGNITION, dest, content='{"a": 1}'), check_mode=check_mode)
    assert victim.read_text() == SECRET
    assert old.is_symlink()


@needs_root
def test_a_foreign_file_is_not_read_into_the_diff(tmp_path: t.Any, victim: t.Any) -> None:
    dest = tmp_path / "dest"
    _run(IGNITION, _params(IGNITION, dest, content=json.dumps({"secret": SECRET})), check_mode=False)
    (old,) = dest.glob("ignition-*.ign")
    _as_nobody(old)
    result = _run(IGNITION, _params(IGNITION, dest), check_mode=True)
    assert "content" not in result.diff["before"] and "content_sha256" not in result.diff["before"]


@needs_root
@pytest.mark.parametrize("kind", [CLOUDINIT_DISK, COMBUSTION, IGNITION])
def test_a_correct_file_another_user_owns_is_rewritten(tmp_path: t.Any, kind: Kind) -> None:
    dest = tmp_path / "dest"
    params = _params(kind, dest)
    path = _run(kind, params, check_mode=False).resource["path"]
    _as_nobody(path)
    assert _run(kind, params, check_mode=True).changed is True
    assert _run(kind, params, check_mode=False).changed is True
    assert os.stat(path).st_uid == os.geteuid()
    assert _run(kind, params, check_mode=False).changed is False


@pytest.mark.parametrize("kind", [CLOUDINIT_DISK, COMBUSTION, IGNITION])
@pytest.mark.parametrize("change", ["group-writable", "hard-linked"])
def test_a_correct_file_others_could_change_is_rewritten(tmp_path: t.Any, kind: Kind, change: str) -> None:
    """The one safe-file rule for first-boot files as for the workspace state: a file with the
    right content that the group may write, or that has a second name (through which its owner
    could change it), is not taken as the module's: it is written anew, as its own file."""
    dest = tmp_path / "dest"
    params = _params(kind, dest)
    path = _run(kind, params, check_mode=False).resource["path"]
    mode = stat.S_IMODE(os.stat(path).st_mode)
    if change == "group-writable":
        os.chmod(path, mode | 0o020)
    else:
        os.link(path, tmp_path / "second-name")
    assert _run(kind, params, check_mode=True).changed is True
    assert _run(kind, params, check_mode=False).changed is True
    after = os.stat(path)
    assert (stat.S_IMODE(after.st_mode), after.st_nlink) == (mode, 1)
    assert _run(kind, params, check_mode=False).changed is False


@needs_root
@pytest.mark.parametrize("what", ["dest", "store"])
def test_a_directory_made_between_check_and_mkdir_is_refused(tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch, what: str) -> None:
    dest = tmp_path / "dest"
    if what == "store":
        dest.mkdir()
    target = str(dest if what == "dest" else dest / ".devinfra-firstboot")
    real_mkdir = os.mkdir

    def racing_mkdir(path: t.Any, mode: int = 0o777) -> None:
        if str(path) == target:  # the other user is faster
            real_mkdir(path, 0o777)
            os.chmod(path, 0o777)
            _as_nobody(path)
        real_mkdir(path, mode)

    monkeypatch.setattr(os, "mkdir", racing_mkdir)
    with pytest.raises(LibvirtValidationError, match=r"^dest: .* is owned by nobody"):
        _run(IGNITION, _params(IGNITION, dest), check_mode=False)
    assert [p.name for p in (tmp_path / "dest").iterdir()] == ([] if what == "dest" else [".devinfra-firstboot"])
    assert list((dest / ".devinfra-firstboot").iterdir()) == [] if what == "store" else True


@needs_root
@pytest.mark.parametrize("lock", ["symlink", "nobody"])
def test_a_lock_file_that_is_not_ours_is_refused(tmp_path: t.Any, victim: t.Any, lock: str) -> None:
    dest = tmp_path / "dest"
    (dest / ".devinfra-firstboot").mkdir(parents=True, mode=0o700)
    path = dest / ".devinfra-firstboot" / "lock"
    if lock == "symlink":
        path.symlink_to(victim)
    else:
        path.touch()
        _as_nobody(path)
    with pytest.raises(FirstbootError, match=rf"^dest: the lock file {path} is (a symbolic link|owned by nobody)"):
        _run(IGNITION, _params(IGNITION, dest), check_mode=False)
    assert victim.read_text() == SECRET
    assert os.stat(victim).st_mode & 0o777 == 0o600


def test_new_dest_and_store_modes_whatever_the_umask(tmp_path: t.Any) -> None:
    dest = tmp_path / "a" / "dest"
    old_umask = os.umask(0o077)
    try:
        _run(IGNITION, _params(IGNITION, dest), check_mode=False)
    finally:
        os.umask(old_umask)
    modes = {p: p.stat().st_mode & 0o777 for p in (tmp_path / "a", dest, dest / ".devinfra-firstboot", dest / ".devinfra-firstboot" / "lock")}
    assert list(modes.values()) == [0o755, 0o755, 0o700, 0o600]
    (record,) = (dest / ".devinfra-firstboot").glob("*.json")
    assert record.stat().st_mode & 0o777 == 0o600


def test_dotdot_in_dest_is_refused(tmp_path: t.Any) -> None:
    with pytest.raises(LibvirtValidationError, match=r"^dest: must not contain '\.\.', got "):
        validate(IGNITION, _params(IGNITION, f"{tmp_path}/a/../b"))


@needs_root
def test_a_symlink_of_root_on_the_way_is_fine(tmp_path: t.Any) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    result = _run(IGNITION, _params(IGNITION, tmp_path / "link" / "dest"), check_mode=False)
    assert result.resource["path"].startswith(f"{tmp_path}/link/dest/")
    assert (tmp_path / "real" / "dest" / os.path.basename(result.resource["path"])).is_file()


@needs_root
def test_a_symlink_to_a_directory_another_user_owns_is_refused(tmp_path: t.Any) -> None:
    (tmp_path / "theirs").mkdir()
    _as_nobody(tmp_path / "theirs")
    (tmp_path / "link").symlink_to(tmp_path / "theirs")
    with pytest.raises(LibvirtValidationError, match=r"^dest: \S+/theirs is owned by nobody"):
        _run(IGNITION, _params(IGNITION, tmp_path / "link" / "dest"), check_mode=True)


def test_a_store_of_the_earlier_release_is_still_read(tmp_path: t.Any) -> None:
    # mode 0755 store, 0644 lock and record: not writable by others, so still ours
    dest = tmp_path / "dest"
    params = _params(IGNITION, dest)
    first = _run(IGNITION, params, check_mode=False).resource["path"]
    store = dest / ".devinfra-firstboot"
    store.chmod(0o755)
    for entry in store.iterdir():
        entry.chmod(0o644)
    changed = _run(IGNITION, {**params, "content": '{"a": 1}'}, check_mode=False)
    assert changed.diff["before"]["content_sha256"] == hashlib.sha256(b"{}").hexdigest()
    assert not os.path.exists(first)


@needs_root
def test_for_another_user_root_may_own_the_directories_not_the_store(tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    dest = tmp_path / "dest"
    (dest / ".devinfra-firstboot").mkdir(parents=True)
    monkeypatch.setattr(os, "geteuid", lambda: NOBODY.pw_uid)
    with pytest.raises(LibvirtValidationError, match=r"^dest: the record store \S+ is owned by root \(uid 0\), not by nobody \(uid \d+\) who runs"):
        check_dest(str(dest))
    (dest / ".devinfra-firstboot").rmdir()
    assert check_dest(str(dest)) is True


# --- the last resource of a dest leaves nothing behind -------------------------------------------


def _leftovers(dest: t.Any) -> list[str]:
    return sorted(os.listdir(dest)) if os.path.lexists(dest) else []


@pytest.mark.parametrize("kind", [CLOUDINIT_DISK, COMBUSTION, IGNITION], ids=lambda kind: kind.key)
def test_removing_the_last_resource_removes_the_store_and_its_lock(tmp_path: t.Any, kind: Kind) -> None:
    dest = tmp_path / "dest"
    _run(kind, _params(kind, dest, format="config_drive") if kind is not CLOUDINIT_DISK else _params(kind, dest), check_mode=False)
    _run(kind, _params(kind, dest, name="web02"), check_mode=False)  # the same content: shared files
    _run(kind, _params(kind, dest, state="absent"), check_mode=False)
    assert ".devinfra-firstboot" in _leftovers(dest)  # web02 still uses the store and its file
    assert _run(kind, _params(kind, dest, name="web02", state="absent"), check_mode=True).changed is True
    assert ".devinfra-firstboot" in _leftovers(dest)
    _run(kind, _params(kind, dest, name="web02", state="absent"), check_mode=False)
    assert _leftovers(dest) == []  # a dest given stays, empty: it is the user's directory
    assert dest.is_dir()
    assert _run(kind, _params(kind, dest, name="web02", state="absent"), check_mode=False).changed is False
    assert _leftovers(dest) == []


def test_the_default_dest_goes_with_its_last_resource(tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    params = {**_params(IGNITION, None), "dest": None}
    _run(IGNITION, params, check_mode=False)
    dest = default_dest(IGNITION)
    assert os.path.isdir(os.path.join(dest, ".devinfra-firstboot"))
    _run(IGNITION, {**params, "state": "absent"}, check_mode=False)
    assert os.listdir(tmp_path) == []


def test_a_dest_with_other_files_keeps_them(tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    params = {**_params(IGNITION, None), "dest": None}
    _run(IGNITION, params, check_mode=False)
    dest = default_dest(IGNITION)
    with open(os.path.join(dest, "notes.txt"), "w", encoding="utf-8") as handle:
        handle.write("mine")
    _run(IGNITION, {**params, "state": "absent"}, check_mode=False)
    assert os.listdir(dest) == ["notes.txt"]


def test_a_run_that_waited_on_a_removed_lock_takes_the_new_one(tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    dest = tmp_path / "dest"
    _run(IGNITION, _params(IGNITION, dest), check_mode=False)
    real_flock = fcntl.flock
    waited: list[int] = []

    def flock(fd: int, operation: int) -> None:
        if not waited:
            # While this run waits for the lock, the run that holds it removes the last resource,
            # and with it the store and the lock this run opened.
            waited.append(fd)
            _run(IGNITION, _params(IGNITION, dest, state="absent"), check_mode=False)
            assert _leftovers(dest) == []
        real_flock(fd, operation)

    monkeypatch.setattr(fcntl, "flock", flock)
    result = _run(IGNITION, _params(IGNITION, dest, name="web02", content='{"ignition": {}}'), check_mode=False)
    assert result.changed is True
    store = dest / ".devinfra-firstboot"
    assert sorted(p.name for p in store.iterdir()) == sorted(["lock", f"ignition-{hashlib.sha256(b'web02').hexdigest()[:16]}.json"])
    assert os.path.isfile(result.resource["path"])
    assert len(waited) == 1
