# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one way the collection opens and writes its own files (workspace state, first-boot
records, digest records): a link, a FIFO, another user's file, a file others can write and a
hard-linked file are never ours; reads are bounded; writes are atomic and leave no temporary."""

from __future__ import annotations

import os
import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._common.safe_files import (
    UnsafeFileError,
    exposed_directory,
    is_temp_of,
    open_ours,
    read_bounded,
    write_atomic,
)

NOBODY = 65534


def make(path: t.Any, kind: str) -> None:
    """A file of the hostile kind ``kind`` at ``path``."""
    if kind == "symlink":
        (path.parent / "target").write_bytes(b"{}")
        os.symlink(path.parent / "target", path)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "other owner":
        path.write_bytes(b"{}")
        os.chown(path, NOBODY, NOBODY)
    elif kind == "group writable":
        path.write_bytes(b"{}")
        os.chmod(path, 0o620)
    elif kind == "world writable":
        path.write_bytes(b"{}")
        os.chmod(path, 0o602)
    elif kind == "hard link":
        (path.parent / "elsewhere").write_bytes(b"{}")
        os.link(path.parent / "elsewhere", path)
    elif kind == "directory":
        path.mkdir()


@pytest.mark.parametrize(
    ("kind", "why"),
    [
        ("symlink", "is a symbolic link"),
        ("fifo", "is not a regular file"),
        ("other owner", "is owned by"),
        ("group writable", "is writable by group or others (mode 0620)"),
        ("world writable", "is writable by group or others (mode 0602)"),
        ("hard link", "has 2 hard links"),
        ("directory", "is not a regular file"),
    ],
)
@pytest.mark.parametrize("flags", [os.O_RDONLY, os.O_RDWR | os.O_CREAT])
def test_what_is_not_ours_is_refused(tmp_path: t.Any, kind: str, why: str, flags: int) -> None:
    if kind == "other owner" and os.geteuid() != 0:
        pytest.skip("needs root to give a file away")
    path = tmp_path / "record.json"
    make(path, kind)
    with pytest.raises((UnsafeFileError, IsADirectoryError)) as raised:
        open_ours(str(path), flags)
    if isinstance(raised.value, UnsafeFileError):
        assert why in raised.value.why


def test_relative_to_a_directory_descriptor(tmp_path: t.Any) -> None:
    dir_fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        write_atomic(str(tmp_path / "state.json"), b"[1]", 0o600, dir_fd=dir_fd)
        fd = open_ours("state.json", os.O_RDONLY, dir_fd=dir_fd)
        try:
            assert read_bounded(fd, 10) == b"[1]"
        finally:
            os.close(fd)
    finally:
        os.close(dir_fd)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


@pytest.mark.parametrize(("size", "limit", "whole"), [(0, 4, True), (4, 4, True), (5, 4, False), (3 << 20, 3 << 20, True), ((3 << 20) + 1, 3 << 20, False)])
def test_reads_are_bounded(tmp_path: t.Any, size: int, limit: int, whole: bool) -> None:
    (tmp_path / "f").write_bytes(b"x" * size)
    fd = open_ours(str(tmp_path / "f"), os.O_RDONLY)
    try:
        data = read_bounded(fd, limit)
    finally:
        os.close(fd)
    assert data == (b"x" * size if whole else None)


def test_write_atomic_leaves_nothing_on_failure(tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "f"
    target.write_bytes(b"old")

    def fail(*_args: t.Any, **_kwargs: t.Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="No space left"):
        write_atomic(str(target), b"new", 0o644)
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]


@pytest.mark.parametrize("mode", [0o600, 0o644, 0o755])
def test_write_atomic_sets_the_exact_mode(tmp_path: t.Any, mode: int) -> None:
    old_umask = os.umask(0o077)
    try:
        write_atomic(str(tmp_path / "f"), b"x", mode)
    finally:
        os.umask(old_umask)
    assert (tmp_path / "f").stat().st_mode & 0o7777 == mode


def test_write_atomic_replaces_a_link_instead_of_writing_through_it(tmp_path: t.Any) -> None:
    (tmp_path / "victim").write_bytes(b"keep")
    os.symlink(tmp_path / "victim", tmp_path / "f")
    write_atomic(str(tmp_path / "f"), b"new", 0o600)
    assert (tmp_path / "victim").read_bytes() == b"keep"
    assert not os.path.islink(tmp_path / "f")


def test_temporary_names() -> None:
    assert is_temp_of("/d/state.json", ".state.json.ab_0x9zq.tmp")
    assert not is_temp_of("/d/state.json", ".state.json.ab_0x9zq.tmp.x")
    assert not is_temp_of("/d/state.json", ".other.json.ab_0x9zq.tmp")


@pytest.mark.parametrize(
    ("mode", "owner", "why"),
    [
        (0o700, None, None),
        (0o755, None, None),
        (0o777, None, "is writable by group or others (mode 0777)"),
        (0o1777, None, "is writable by group or others (mode 1777)"),
        (0o770, None, "is writable by group or others (mode 0770)"),
        (0o755, NOBODY, "is owned by nobody (uid 65534)"),
    ],
)
def test_exposed_directory(tmp_path: t.Any, mode: int, owner: int | None, why: str | None) -> None:
    """A file written where another user can reach it is named with the reason; one in a
    directory only its owner (root or the runner) can change is not."""
    directory = tmp_path / "out"
    directory.mkdir()
    os.chmod(tmp_path, 0o755)
    os.chmod(directory, mode)
    if owner is not None:
        os.chown(directory, owner, owner)
    found = exposed_directory(str(directory / "plan.json"), runner="the test")
    if why is None:
        assert found is None
    else:
        assert found is not None and found.startswith(f"{directory} {why}")


def test_exposed_directory_sees_the_way_there(tmp_path: t.Any) -> None:
    """A private directory below one others can write (not sticky) is exposed too."""
    shared = tmp_path / "shared"
    (shared / "mine").mkdir(parents=True)
    os.chmod(tmp_path, 0o755)
    os.chmod(shared, 0o777)
    os.chmod(shared / "mine", 0o700)
    found = exposed_directory(str(shared / "mine" / "playbook.yml"), runner="the test")
    assert found is not None and found.startswith(f"{shared} is writable by group or others")
