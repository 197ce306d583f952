# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""libvirt_secret and libvirt_secret_info against a stand-in for libvirt's secret driver.

test:///default has no secret driver (virConnectListAllSecrets: "this function is not supported
by the connection driver"); secrets live in virsecretd. The stand-in sits where the connection
is opened and answers as virsecretd 9.0 did when tried: a redefinition keeps the value and may
change the description and the ephemeral flag; it refuses another usage or private flag; a
private secret's value is never given out (VIR_ERR_INVALID_SECRET); a secret without a value
answers VIR_ERR_NO_SECRET."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import pwd
import typing as t
import uuid as uuidlib
import xml.etree.ElementTree as ET

import pytest
from ansible.module_utils import _internal as module_utils_internal
from ansible.module_utils.common import warnings as warnings_module

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import info_module, resource, secret_records
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import secret as secret_module
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import libvirt
from ansible_collections.devinfra.providers.plugins.modules import libvirt_secret, libvirt_secret_info

if t.TYPE_CHECKING:
    from collections.abc import Iterator

VALUE = "correct horse battery staple"
OTHER = "Tr0ub4dor&3"
MUTATORS = {"secretDefineXML", "setValue", "undefine"}


class FakeError(libvirt.libvirtError):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        # libvirtError takes its message from the thread's last libvirt error, if any: not here.
        self.args = (message,)
        self.err = (code, 0, message, 2, message, None, None, -1, -1)


class FakeSecret:
    def __init__(self, conn: FakeConn, xml: str) -> None:
        self.conn = conn
        self.value_bytes: bytes | None = None
        self.define(xml)

    def define(self, xml: str) -> None:
        root = ET.fromstring(xml)
        self.uuid = root.findtext("uuid") or str(uuidlib.uuid4())
        self.description = root.findtext("description")
        self.ephemeral = root.get("ephemeral") == "yes"
        self.private = root.get("private") == "yes"
        usage = root.find("usage")
        self.usage = None if usage is None else (usage.get("type"), "".join(usage.itertext()).strip())

    def UUIDString(self) -> str:  # libvirt's name
        return self.uuid

    def XMLDesc(self, flags: int = 0) -> str:
        root = ET.Element("secret", {"ephemeral": "yes" if self.ephemeral else "no", "private": "yes" if self.private else "no"})
        ET.SubElement(root, "uuid").text = self.uuid
        if self.description is not None:
            ET.SubElement(root, "description").text = self.description
        if self.usage is not None:
            node = ET.SubElement(root, "usage", {"type": t.cast("str", self.usage[0])})
            ET.SubElement(node, {"volume": "volume", "iscsi": "target"}.get(t.cast("str", self.usage[0]), "name")).text = self.usage[1]
        return ET.tostring(root, encoding="unicode")

    def value(self, flags: int = 0) -> bytes:
        self.conn.calls.append("value")
        if self.private:
            raise FakeError(65, "Invalid secret: secret is private")
        if self.value_bytes is None:
            raise FakeError(66, f"Secret not found: secret '{self.uuid}' does not have a value")
        return self.value_bytes

    def setValue(self, value: bytes, flags: int = 0) -> int:
        self.conn.calls.append("setValue")
        if self.conn.fail_set_value:
            raise FakeError(1, f"internal error: cannot store {value.decode()}")
        if not value:
            raise FakeError(8, "value in virSecretSetValue must not be NULL")
        self.value_bytes = value
        return 0

    def undefine(self) -> int:
        self.conn.calls.append("undefine")
        del self.conn.secrets[self.uuid]
        return 0


class FakeConn:
    def __init__(self) -> None:
        self.secrets: dict[str, FakeSecret] = {}
        self.calls: list[str] = []
        self.fail_set_value = False

    def getURI(self) -> str:
        return "fake:///secrets"

    def secretDefineXML(self, xml: str, flags: int = 0) -> FakeSecret:
        self.calls.append("secretDefineXML")
        new = FakeSecret(self, xml)
        for other in self.secrets.values():
            if other.uuid != new.uuid and new.usage is not None and other.usage == new.usage:
                raise FakeError(1, f"internal error: a secret with UUID {other.uuid} already defined for use with {new.usage[1]}")
        existing = self.secrets.get(new.uuid)
        if existing is None:
            self.secrets[new.uuid] = new
            return new
        if existing.usage != new.usage:
            raise FakeError(1, f"internal error: a secret with UUID {new.uuid} is already defined for use with {existing.usage}")
        if existing.private != new.private:
            raise FakeError(1, "internal error: cannot change private flag on existing secret")
        existing.description, existing.ephemeral = new.description, new.ephemeral
        return existing

    def secretLookupByUUIDString(self, uuid: str) -> FakeSecret:
        if uuid not in self.secrets:
            raise FakeError(66, f"Secret not found: no secret with matching uuid '{uuid}'")
        return self.secrets[uuid]

    def secretLookupByUsage(self, usage_type: int, usage_id: str) -> FakeSecret:
        kind = {1: "volume", 2: "ceph", 3: "iscsi", 4: "tls", 5: "vtpm"}[usage_type]
        for found in self.secrets.values():
            if found.usage == (kind, usage_id):
                return found
        raise FakeError(66, f"Secret not found: no secret with matching usage '{usage_id}'")

    def listAllSecrets(self, flags: int = 0) -> list[FakeSecret]:
        return list(self.secrets.values())

    def mutations(self) -> list[str]:
        return [call for call in self.calls if call in MUTATORS]


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: t.Any) -> FakeConn:
    conn = FakeConn()
    opened: list[str | None] = []

    @contextlib.contextmanager
    def connect(uri: str | None, *, read_only: bool = False) -> Iterator[FakeConn]:
        opened.append(uri)
        yield conn

    monkeypatch.setattr(resource, "connect", connect)
    monkeypatch.setattr(info_module, "connect", connect)
    records = tmp_path / "records"
    monkeypatch.setattr(secret_records, "_location", lambda: str(records))
    conn.opened = opened  # type: ignore[attr-defined]
    conn.records = records  # type: ignore[attr-defined]
    return conn


def _records(fake: FakeConn) -> list[str]:
    directory = fake.records  # type: ignore[attr-defined]
    return sorted(name for name in os.listdir(directory) if name != "key") if os.path.isdir(directory) else []


Run = t.Callable[..., dict[str, t.Any]]
USAGE = {"type": "volume", "volume": "/var/lib/libvirt/images/data.luks"}


def _four_runs(run_module: Run, fake: FakeConn, args: dict[str, t.Any]) -> list[dict[str, t.Any]]:
    results = []
    for check_mode in (True, False, True, False):
        before = list(fake.mutations())
        results.append(run_module(libvirt_secret.main, args, check_mode=check_mode, diff=True))
        if check_mode:
            assert fake.mutations() == before, "check mode mutated libvirt"
    return results


@pytest.mark.parametrize("private", [True, False])
def test_create_then_unchanged(run_module: Run, fake: FakeConn, private: bool) -> None:
    args = {"usage": USAGE, "private": private, "value": VALUE, "description": "data"}
    check, real, check_again, real_again = _four_runs(run_module, fake, args)
    assert [r["changed"] for r in (check, real, check_again, real_again)] == [True, True, False, False]
    assert (check["operation"], real["operation"], real_again["operation"]) == ("create", "create", "none")
    assert check["secret"]["uuid"] is None
    uuid = real["secret"]["uuid"]
    assert list(fake.secrets) == [uuid]
    assert fake.secrets[uuid].value_bytes == VALUE.encode()
    assert real["secret"] == {"uuid": uuid, "description": "data", "ephemeral": False, "private": private, "usage": USAGE, "value_set": True}
    assert real["diff"]["after"]["value"] == "******** (changed)"
    assert real_again["diff"]["before"]["value"] == real_again["diff"]["after"]["value"] == "********"
    assert len(_records(fake)) == 1


def test_check_mode_makes_nothing(run_module: Run, fake: FakeConn) -> None:
    result = run_module(libvirt_secret.main, {"usage": USAGE, "value": VALUE, "private": True}, check_mode=True)
    assert result["changed"] is True
    assert fake.secrets == {}
    assert fake.mutations() == []
    assert _records(fake) == []


@pytest.mark.parametrize("private", [True, False])
def test_value_change_detected(run_module: Run, fake: FakeConn, private: bool) -> None:
    run_module(libvirt_secret.main, {"usage": USAGE, "value": VALUE, "private": private})
    check = run_module(libvirt_secret.main, {"usage": USAGE, "value": OTHER}, check_mode=True, diff=True)
    assert (check["changed"], check["operation"], check["diff"]["after"]["value"]) == (True, "update", "******** (changed)")
    assert next(iter(fake.secrets.values())).value_bytes == VALUE.encode()
    changed = run_module(libvirt_secret.main, {"usage": USAGE, "value": OTHER})
    assert changed["changed"] is True
    assert next(iter(fake.secrets.values())).value_bytes == OTHER.encode()
    assert run_module(libvirt_secret.main, {"usage": USAGE, "value": OTHER})["changed"] is False


def test_value_forms_are_one_value(run_module: Run, fake: FakeConn, tmp_path: t.Any) -> None:
    path = tmp_path / "value"
    path.write_bytes(b"\x00\xffbinary")
    run_module(libvirt_secret.main, {"usage": USAGE, "value_file": str(path), "private": True})
    encoded = base64.b64encode(b"\x00\xffbinary").decode()
    assert run_module(libvirt_secret.main, {"usage": USAGE, "value_base64": encoded})["changed"] is False
    assert next(iter(fake.secrets.values())).value_bytes == b"\x00\xffbinary"


def test_private_secret_without_record_is_set_once(run_module: Run, fake: FakeConn) -> None:
    existing = fake.secretDefineXML("<secret private='yes'><usage type='ceph'><name>client.x</name></usage></secret>")
    existing.setValue(VALUE.encode())
    args = {"usage": {"type": "ceph", "name": "client.x"}, "value": VALUE}
    first = run_module(libvirt_secret.main, args)
    assert first["changed"] is True
    assert "no record of the value" in json.dumps(first["warnings"])
    assert run_module(libvirt_secret.main, args)["changed"] is False


def test_non_private_secret_without_record_is_compared(run_module: Run, fake: FakeConn) -> None:
    existing = fake.secretDefineXML("<secret><usage type='tls'><name>tls-x</name></usage></secret>")
    existing.setValue(VALUE.encode())
    fake.calls.clear()
    assert run_module(libvirt_secret.main, {"usage": {"type": "tls", "name": "tls-x"}, "value": VALUE})["changed"] is False
    assert fake.calls == ["value"]


def test_found_by_uuid_and_returned(run_module: Run, fake: FakeConn) -> None:
    uuid = "2A6A4B3C-0D5E-4F61-8A72-93B4C5D6E7F8"
    created = run_module(libvirt_secret.main, {"uuid": uuid, "usage": {"type": "iscsi", "target": "iqn.2026-01.x:t"}})
    assert created["secret"]["uuid"] == uuid.lower()
    assert run_module(libvirt_secret.main, {"uuid": uuid})["changed"] is False


def test_redefines_description_and_ephemeral_keeping_value(run_module: Run, fake: FakeConn) -> None:
    first = run_module(libvirt_secret.main, {"usage": USAGE, "value": VALUE, "description": "one"})
    result = run_module(libvirt_secret.main, {"usage": USAGE, "description": "two", "ephemeral": True}, diff=True)
    assert (result["changed"], result["operation"]) == (True, "update")
    assert result["diff"]["before"]["description"] == "one"
    assert result["diff"]["after"] == {**result["diff"]["before"], "description": "two", "ephemeral": True}
    kept = fake.secrets[first["secret"]["uuid"]]
    assert (kept.description, kept.ephemeral, kept.value_bytes) == ("two", True, VALUE.encode())


@pytest.mark.parametrize(
    ("args", "option"),
    [
        ({"usage": USAGE, "private": False}, "private:"),
        ({"usage": USAGE, "private": True}, None),
        ({"uuid": "SET", "usage": {"type": "volume", "volume": "/elsewhere"}}, "usage:"),
        ({"uuid": "SET", "usage": {"type": "ceph", "name": "x"}}, "usage:"),
        ({"uuid": "6f7d1b2a-0000-4000-8000-000000000001", "usage": USAGE}, "usage: secret"),
    ],
)
def test_unchangeable_properties_refused(run_module: Run, fake: FakeConn, args: dict[str, t.Any], option: str | None) -> None:
    uuid = run_module(libvirt_secret.main, {"usage": USAGE, "private": True, "value": VALUE})["secret"]["uuid"]
    if args.get("uuid") == "SET":
        args = {**args, "uuid": uuid}
    before = list(fake.mutations())
    result = run_module(libvirt_secret.main, args)
    if option is None:
        assert result["changed"] is False
        return
    assert result["failed"] is True
    assert result["msg"].startswith(option)
    assert fake.mutations() == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "uuid or usage: one of them is required"),
        ({"uuid": "not-a-uuid"}, "uuid: must be a UUID"),
        ({"usage": {"type": "volume", "name": "x"}}, "usage.name: not an option of a usage of type volume"),
        ({"usage": {"type": "volume"}}, "usage.volume: required by a usage of type volume"),
        ({"usage": {"type": "volume", "volume": "relative.img"}}, "usage.volume: must be an absolute path"),
        ({"usage": {"type": "ceph", "name": "a\nb"}}, "usage.name: contains a control character"),
        ({"usage": {"type": "iscsi", "name": "x"}}, "usage.name: not an option of a usage of type iscsi (it takes usage.target)"),
        ({"usage": {"type": "nfs", "name": "x"}}, "value of type must be one of"),
        ({"usage": USAGE, "description": "two\nlines"}, "description: contains a control character"),
        ({"usage": USAGE, "value": ""}, "value: a secret value must not be empty"),
        ({"usage": USAGE, "value_base64": "not base64!" + VALUE}, "value_base64: not valid base64"),
        ({"usage": USAGE, "value": VALUE, "value_base64": "eA=="}, "parameters are mutually exclusive: value|value_base64|value_file"),
        ({"usage": USAGE, "value_file": "/nonexistent/h28s"}, "value_file: cannot open /nonexistent/h28s"),
        ({"usage": USAGE, "value_file": "LINK"}, "value_file: cannot open"),
        ({"usage": USAGE, "value_file": "BIG"}, "value_file: "),
        ({"usage": USAGE, "value_file": "DIR"}, "value_file: "),
    ],
)
def test_bad_input_refused_before_connecting(run_module: Run, fake: FakeConn, tmp_path: t.Any, args: dict[str, t.Any], message: str) -> None:
    (tmp_path / "target").write_text(VALUE)
    os.symlink(tmp_path / "target", tmp_path / "link")
    (tmp_path / "big").write_bytes(b"x" * 65537)
    files = {"LINK": str(tmp_path / "link"), "BIG": str(tmp_path / "big"), "DIR": str(tmp_path)}
    if args.get("value_file") in files:
        args = {**args, "value_file": files[args["value_file"]]}
    result = run_module(libvirt_secret.main, args)
    assert result["failed"] is True
    assert message in result["msg"]
    assert fake.opened == []  # type: ignore[attr-defined]
    assert VALUE not in json.dumps(result)
    if "BIG" in str(args.get("value_file")) or args.get("value_file") == files["BIG"]:
        assert "more than 65536 bytes" in result["msg"]


# --- the value's file ----------------------------------------------------------


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    """ansible-core keeps a module's warnings in a global for the process: each test starts
    empty. Once controller code is imported (the plugin tests of the same run), it sends them to
    the display instead of the result: here the module runs as a module."""
    monkeypatch.setattr(warnings_module, "_global_warnings", {})
    monkeypatch.setattr(module_utils_internal, "is_controller", False)


def _messages(result: dict[str, t.Any]) -> list[str]:
    return [w["event"]["msg"] if isinstance(w, dict) else w for w in result.get("warnings", [])]


def _value_file(tmp_path: t.Any, mode: int) -> t.Any:
    path = tmp_path / "value"
    path.write_text(OTHER)
    path.chmod(mode)
    return path


@pytest.mark.parametrize("which", ["file", "link"])
def test_a_value_file_with_hard_links_is_refused_before_it_is_read(
    run_module: Run, fake: FakeConn, tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    """Another user's hard link to a file they cannot read (root's) would have the module hand
    its content to libvirt: a file of more than one name is refused, whichever name is given."""
    path = _value_file(tmp_path, 0o600)
    os.link(path, tmp_path / "link")
    given = str(path if which == "file" else tmp_path / "link")

    def never(fd: int, limit: int) -> bytes:
        raise AssertionError("the file was read")

    monkeypatch.setattr(secret_module, "read_bounded", never)
    for check_mode in (True, False):
        result = run_module(libvirt_secret.main, {"usage": USAGE, "value_file": given}, check_mode=check_mode)
        assert result["failed"] is True
        assert result["msg"].startswith(f"value_file: {given} has 2 hard links")
        assert "put the value in a file of its own with one name" in result["msg"]
        assert OTHER not in json.dumps(result)
    assert fake.opened == []  # type: ignore[attr-defined]
    assert fake.secrets == {}


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o444], ids=oct)
def test_a_value_file_others_can_read_is_used_with_a_warning(run_module: Run, fake: FakeConn, tmp_path: t.Any, mode: int) -> None:
    path = _value_file(tmp_path, mode)
    owner = pwd.getpwuid(os.geteuid()).pw_name
    expected = f"value_file: {path} can be read by group or others (mode {mode:04o}, owner {owner} (uid {os.geteuid()}))"
    expected += f", so they have the secret's value: chmod 600 {path}"
    for check_mode in (True, False):
        result = run_module(libvirt_secret.main, {"usage": USAGE, "value_file": str(path)}, check_mode=check_mode)
        assert result["changed"] is True
        assert _messages(result) == [expected]
        assert OTHER not in json.dumps(result)
    assert next(iter(fake.secrets.values())).value_bytes == OTHER.encode()


@pytest.mark.parametrize("mode", [0o600, 0o400], ids=oct)
def test_a_private_value_file_gets_no_warning(run_module: Run, fake: FakeConn, tmp_path: t.Any, mode: int) -> None:
    path = _value_file(tmp_path, mode)
    result = run_module(libvirt_secret.main, {"usage": USAGE, "value_file": str(path)})
    assert result["changed"] is True
    assert _messages(result) == []


def test_a_value_file_that_is_a_fifo_is_refused_without_blocking(run_module: Run, fake: FakeConn, tmp_path: t.Any) -> None:
    os.mkfifo(tmp_path / "fifo", 0o600)
    result = run_module(libvirt_secret.main, {"usage": USAGE, "value_file": str(tmp_path / "fifo")})
    assert result["msg"] == f"value_file: {tmp_path / 'fifo'} is not a regular file"
    assert fake.opened == []  # type: ignore[attr-defined]


def test_value_never_in_results_diffs_or_errors(run_module: Run, fake: FakeConn, tmp_path: t.Any, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "value"
    path.write_text(OTHER)
    outputs = [
        run_module(libvirt_secret.main, {"usage": USAGE, "value": VALUE}, diff=True),
        run_module(libvirt_secret.main, {"usage": USAGE, "value": VALUE}, diff=True),
        run_module(libvirt_secret.main, {"usage": USAGE, "value_file": str(path)}, diff=True, check_mode=True),
        run_module(libvirt_secret.main, {"usage": USAGE, "value_file": str(path)}, diff=True),
        run_module(libvirt_secret_info.main, {}),
    ]
    fake.fail_set_value = True  # libvirt's message would carry the value here
    outputs.append(run_module(libvirt_secret.main, {"usage": USAGE, "value": VALUE + "!"}, diff=True))
    assert outputs[-1]["failed"] is True
    assert "message withheld" in outputs[-1]["msg"]
    text = json.dumps(outputs) + capsys.readouterr().err
    for secret in (VALUE, OTHER, base64.b64encode(VALUE.encode()).decode(), hashlib.sha256(VALUE.encode()).hexdigest()):
        assert secret not in text
    for name in _records(fake):
        record = (fake.records / name).read_text()  # type: ignore[attr-defined]
        assert VALUE not in record and OTHER not in record and hashlib.sha256(OTHER.encode()).hexdigest() not in record
        assert (os.stat(fake.records / name).st_mode & 0o777) == 0o600  # type: ignore[attr-defined]


def test_record_of_another_key_is_no_match(run_module: Run, fake: FakeConn) -> None:
    run_module(libvirt_secret.main, {"usage": USAGE, "value": VALUE, "private": True})
    key = fake.records / "key"  # type: ignore[attr-defined]
    key.write_bytes(os.urandom(32))
    assert run_module(libvirt_secret.main, {"usage": USAGE, "value": VALUE})["changed"] is True


def test_record_not_private_is_ignored(run_module: Run, fake: FakeConn) -> None:
    run_module(libvirt_secret.main, {"usage": USAGE, "value": VALUE, "private": True})
    record = fake.records / _records(fake)[0]  # type: ignore[attr-defined]
    os.chmod(record, 0o644)
    assert run_module(libvirt_secret.main, {"usage": USAGE, "value": VALUE})["changed"] is True


def test_absent(run_module: Run, fake: FakeConn) -> None:
    missing = run_module(libvirt_secret.main, {"usage": USAGE, "state": "absent"})
    assert (missing["changed"], missing["secret"], missing["operation"], fake.calls) == (False, {}, "none", [])
    uuid = run_module(libvirt_secret.main, {"usage": USAGE, "value": VALUE, "private": True})["secret"]["uuid"]
    check = run_module(libvirt_secret.main, {"uuid": uuid, "state": "absent"}, check_mode=True)
    assert (check["changed"], check["operation"], list(fake.secrets)) == (True, "delete", [uuid])
    removed = run_module(libvirt_secret.main, {"uuid": uuid, "state": "absent"})
    assert (removed["changed"], removed["secret"]["uuid"], fake.secrets, _records(fake)) == (True, uuid, {}, [])
    assert run_module(libvirt_secret.main, {"uuid": uuid, "state": "absent"})["changed"] is False


def test_info_lists_without_values(run_module: Run, fake: FakeConn) -> None:
    one = run_module(libvirt_secret.main, {"usage": USAGE, "value": VALUE, "private": True})["secret"]["uuid"]
    two = run_module(libvirt_secret.main, {"usage": {"type": "tls", "name": "tls-a"}, "value": VALUE, "description": "d"})["secret"]["uuid"]
    three = run_module(libvirt_secret.main, {"usage": {"type": "ceph", "name": "ceph-a"}})["secret"]["uuid"]
    listed = run_module(libvirt_secret_info.main, {})
    assert listed["changed"] is False
    by_uuid = {s["uuid"]: s for s in listed["secrets"]}
    assert set(by_uuid) == {one, two, three}
    assert (by_uuid[one]["value_set"], by_uuid[two]["value_set"], by_uuid[three]["value_set"]) == (None, True, False)
    assert by_uuid[two] == {
        "uuid": two,
        "description": "d",
        "ephemeral": False,
        "private": False,
        "usage": {"type": "tls", "name": "tls-a"},
        "usage_type": "tls",
        "usage_id": "tls-a",
        "value_set": True,
    }
    assert [s["uuid"] for s in run_module(libvirt_secret_info.main, {"usage_type": ["volume"]})["secrets"]] == [one]
    assert [s["uuid"] for s in run_module(libvirt_secret_info.main, {"usage_id": ["*-a"], "usage_type": ["ceph"]})["secrets"]] == [three]
    assert [s["uuid"] for s in run_module(libvirt_secret_info.main, {"uuid": [two.upper()]})["secrets"]] == [two]
    assert run_module(libvirt_secret_info.main, {"uuid": ["bogus"]})["msg"].startswith("uuid[0]: must be a UUID")
