# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The emulator's objects calls answer as the real JSON API does (status codes, error bodies,
key names, checksums, preconditions, customer-supplied keys), driven over HTTP."""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import re
import threading
import time
import typing as t
from urllib.parse import quote

import pytest
import requests

from ansible_collections.devinfra.providers.tests.gcs_emulator import server
from ansible_collections.devinfra.providers.tests.gcs_emulator.server import Bucket, Emulator, State

TOKEN = "objects-test-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
READER = {"Authorization": "Bearer reader"}
KEY = bytes(range(32))
OTHER_KEY = bytes(range(1, 33))
PRECONDITION_FAILED = "At least one of the pre-conditions you specified did not hold."


def csek(key: bytes = KEY) -> dict[str, str]:
    return {
        "x-goog-encryption-algorithm": "AES256",
        "x-goog-encryption-key": base64.b64encode(key).decode(),
        "x-goog-encryption-key-sha256": base64.b64encode(hashlib.sha256(key).digest()).decode(),
    }


@pytest.fixture
def emu() -> t.Iterator[Emulator]:
    state = State(tokens={TOKEN: "write", "reader": "read"})
    state.buckets["state"] = Bucket("state")
    state.buckets["paid"] = Bucket("paid", requester_pays=True)
    with Emulator(state) as emulator:
        yield emulator


def upload(emu: Emulator, name: str, data: bytes, *, bucket: str = "state", headers: dict[str, str] | None = None, **params: t.Any) -> requests.Response:
    return requests.post(
        f"{emu.url}/upload/storage/v1/b/{bucket}/o",
        params={"uploadType": "media", "name": name, **params},
        data=data,
        headers={**AUTH, "Content-Type": "application/json", **(headers or {})},
        timeout=5,
    )


def obj(emu: Emulator, method: str, name: str, *, bucket: str = "state", headers: dict[str, str] | None = None, **params: t.Any) -> requests.Response:
    return requests.request(method, f"{emu.url}/storage/v1/b/{bucket}/o/{quote(name, safe='')}", params=params, headers={**AUTH, **(headers or {})}, timeout=5)


def listing(emu: Emulator, *, bucket: str = "state", headers: dict[str, str] | None = None, **params: t.Any) -> requests.Response:
    return requests.get(f"{emu.url}/storage/v1/b/{bucket}/o", params=params, headers=headers or AUTH, timeout=5)


def assert_error(response: requests.Response, status: int, reason: str, message: str, **extra: str) -> dict[str, t.Any]:
    assert response.status_code == status, response.text
    assert response.headers["Content-Type"] == "application/json; charset=UTF-8"
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "errors"}
    assert body["error"]["code"] == status
    assert message in body["error"]["message"]
    detail = body["error"]["errors"][0]
    assert (detail["domain"], detail["reason"], detail["message"]) == ("global", reason, body["error"]["message"])
    for key, value in extra.items():
        assert detail[key] == value
    return t.cast("dict[str, t.Any]", body)


def assert_media_error(response: requests.Response, status: int, message: str) -> None:
    """A refused download carries the bare message, as the real service sends it."""
    assert response.status_code == status
    assert response.headers["Content-Type"] == "text/html; charset=UTF-8"
    assert response.content == message.encode()


def multipart(metadata: dict[str, t.Any], data: bytes, *, part_type: str | None = "application/octet-stream", boundary: str = "==sep==") -> tuple[bytes, str]:
    media_head = f"Content-Type: {part_type}\r\n" if part_type else ""
    body = (
        f"--{boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n{json.dumps(metadata)}\r\n--{boundary}\r\n{media_head}\r\n".encode()
        + data
        + f"\r\n--{boundary}--".encode()
    )
    return body, f'multipart/related; boundary="{boundary}"'


def post_multipart(emu: Emulator, body: bytes, content_type: str, **params: t.Any) -> requests.Response:
    return requests.post(
        f"{emu.url}/upload/storage/v1/b/state/o",
        params={"uploadType": "multipart", **params},
        data=body,
        headers={**AUTH, "Content-Type": content_type},
        timeout=5,
    )


def raw_request(emu: Emulator, method: str, path: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    """A request with the path as written: requests would normalise "..", http.client does not."""
    host, port = emu.server.address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=5)
    try:
        connection.request(method, path, headers={**AUTH, **(headers or {})})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


# -- checksums and the resource ----------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"123456789", 0xE3069283),  # the check value of CRC-32C
        (b"", 0),
        (bytes(32), 0x8A9136AA),  # RFC 3720 B.4
        (b"\xff" * 32, 0x62A8AB43),
        (bytes(range(32)), 0x46DD794E),
        (bytes(range(31, -1, -1)), 0x113FDB5C),
    ],
)
def test_crc32c_known_vectors(data: bytes, expected: int) -> None:
    assert server.crc32c(data) == expected


def test_crc32c_continues_across_chunks() -> None:
    assert server.crc32c(b"56789", server.crc32c(b"1234")) == 0xE3069283


def test_upload_get_download_delete(emu: Emulator) -> None:
    created = upload(emu, "env/dev/state.json", b"123456789")
    assert created.status_code == 200
    resource = created.json()
    generation = resource["generation"]
    assert re.fullmatch(r"[1-9][0-9]{15}", generation)
    assert resource == {
        "kind": "storage#object",
        "id": f"state/env/dev/state.json/{generation}",
        "selfLink": f"{emu.url}/storage/v1/b/state/o/env%2Fdev%2Fstate.json",
        "mediaLink": f"{emu.url}/download/storage/v1/b/state/o/env%2Fdev%2Fstate.json?generation={generation}&alt=media",
        "name": "env/dev/state.json",
        "bucket": "state",
        "generation": generation,
        "metageneration": "1",
        "contentType": "application/json",
        "storageClass": "STANDARD",
        "size": "9",
        "md5Hash": base64.b64encode(hashlib.md5(b"123456789").digest()).decode(),
        "crc32c": "4waSgw==",  # base64 of the big-endian 0xE3069283
        "etag": resource["etag"],
        "timeCreated": resource["timeCreated"],
        "updated": resource["timeCreated"],
        "timeStorageClassUpdated": resource["timeCreated"],
    }
    assert resource["md5Hash"] == "JfnnlDI7RTiF9RgfG2JNCw=="
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", resource["timeCreated"])
    # The etag is the protobuf encoding of (generation, metageneration), as real etags are.
    etag = base64.b64decode(resource["etag"])
    assert etag[0] == 0x08 and etag[-2:] == b"\x10\x01"
    assert obj(emu, "GET", "env/dev/state.json").json() == resource

    for response in (obj(emu, "GET", "env/dev/state.json", alt="media"), requests.get(resource["mediaLink"], headers=AUTH, timeout=5)):
        assert response.status_code == 200
        assert response.content == b"123456789"
        assert response.headers["Content-Type"] == "application/json"
        assert response.headers["x-goog-generation"] == generation
        assert response.headers["x-goog-metageneration"] == "1"
        assert response.headers["x-goog-hash"] == "crc32c=4waSgw==,md5=JfnnlDI7RTiF9RgfG2JNCw=="
        assert response.headers["x-goog-stored-content-length"] == "9"
        assert response.headers["ETag"] == f'"{resource["etag"]}"'

    deleted = obj(emu, "DELETE", "env/dev/state.json")
    assert (deleted.status_code, deleted.content) == (204, b"")
    assert_error(obj(emu, "GET", "env/dev/state.json"), 404, "notFound", "No such object: state/env/dev/state.json")
    assert_error(obj(emu, "DELETE", "env/dev/state.json"), 404, "notFound", "No such object: state/env/dev/state.json")
    assert_media_error(obj(emu, "GET", "env/dev/state.json", alt="media"), 404, "No such object: state/env/dev/state.json")


def test_content_type_defaults_to_octet_stream(emu: Emulator) -> None:
    response = requests.post(
        f"{emu.url}/upload/storage/v1/b/state/o", params={"uploadType": "media", "name": "blob"}, data=b"\x00\x01", headers=AUTH, timeout=5
    )
    assert response.json()["contentType"] == "application/octet-stream"
    assert obj(emu, "GET", "blob", alt="media").headers["Content-Type"] == "application/octet-stream"


def test_empty_object(emu: Emulator) -> None:
    resource = upload(emu, "lock", b"").json()
    assert (resource["size"], resource["crc32c"], resource["md5Hash"]) == ("0", "AAAAAA==", "1B2M2Y8AsgTpgAmY7PhCfg==")
    download = obj(emu, "GET", "lock", alt="media")
    assert (download.status_code, download.content) == (200, b"")


def test_generation_and_alt_parameters(emu: Emulator) -> None:
    generation = upload(emu, "s", b"x").json()["generation"]
    assert obj(emu, "GET", "s", generation=generation).status_code == 200
    assert_error(obj(emu, "GET", "s", generation=str(int(generation) - 1)), 404, "notFound", "No such object: state/s")
    assert_error(obj(emu, "GET", "s", generation="latest"), 400, "invalidParameter", "Invalid value 'latest'", location="generation")
    assert_error(obj(emu, "GET", "s", alt="xml"), 400, "invalidAltValue", "alt")
    assert_error(obj(emu, "PATCH", "s"), 405, "methodNotAllowed", "PATCH")


# -- generations ---------------------------------------------------------------------------


def test_generations_strictly_increase(emu: Emulator) -> None:
    generations = [int(upload(emu, "s", str(n).encode()).json()["generation"]) for n in range(20)]
    assert generations == sorted(set(generations))
    assert obj(emu, "GET", "s", alt="media").content == b"19"
    assert obj(emu, "GET", "s").json()["metageneration"] == "1"  # a new generation starts at 1


def test_generations_never_repeat_within_one_microsecond(monkeypatch: pytest.MonkeyPatch) -> None:
    state = State()
    monkeypatch.setattr(time, "time_ns", lambda: 1_700_000_000_000_000_000)
    assert [state.next_generation() for _n in range(3)] == [1_700_000_000_000_000, 1_700_000_000_000_001, 1_700_000_000_000_002]
    monkeypatch.setattr(time, "time_ns", lambda: 1_600_000_000_000_000_000)  # the clock stepped back
    assert state.next_generation() == 1_700_000_000_000_003


# -- multipart -----------------------------------------------------------------------------


def test_multipart_upload(emu: Emulator) -> None:
    data = b"binary \x00\xff --==sep== not at a line start\r\n-- ==sep==\r\n"
    body, content_type = multipart({"name": "m/one", "contentType": "text/plain"}, data, part_type="application/octet-stream")
    created = post_multipart(emu, body, content_type)
    assert created.status_code == 200
    resource = created.json()
    assert (resource["name"], resource["contentType"], resource["size"]) == ("m/one", "text/plain", str(len(data)))  # the metadata's type wins
    assert resource["crc32c"] == base64.b64encode(server.crc32c(data).to_bytes(4, "big")).decode()
    assert obj(emu, "GET", "m/one", alt="media").content == data
    body, content_type = multipart({"name": "m/two"}, b"{}", part_type="application/json")
    assert post_multipart(emu, body, content_type).json()["contentType"] == "application/json"  # else the part's
    body, content_type = multipart({"name": "m/three"}, b"{}", part_type=None)
    assert post_multipart(emu, body, content_type).json()["contentType"] == "application/octet-stream"
    body, content_type = multipart({}, b"q")
    assert post_multipart(emu, body, content_type, name="m/four").json()["name"] == "m/four"  # the name as a parameter


@pytest.mark.parametrize(
    ("body", "content_type", "params", "status", "reason"),
    [
        (*multipart({"name": "a"}, b"x"), {"name": "b"}, 400, "invalidParameter"),
        (*multipart({"contentType": "text/plain"}, b"x"), {}, 400, "required"),
        (*multipart({"name": 5}, b"x"), {}, 400, "invalid"),
        (b"--b\r\n\r\n{\r\n--b\r\n\r\nx\r\n--b--", 'multipart/related; boundary="b"', {}, 400, "parseError"),
        (b"--b\r\n\r\n[]\r\n--b\r\n\r\nx\r\n--b--", "multipart/related; boundary=b", {}, 400, "parseError"),
        (b"--b\r\n\r\n{}\r\n--b--", "multipart/related; boundary=b", {}, 400, "parseError"),  # no media part
        (b"--b\r\n\r\n{}\r\n--b\r\n\r\nx", "multipart/related; boundary=b", {}, 400, "parseError"),  # no closing boundary
        (b"--b\r\n\r\n{}\r\n--b\r\nno header end", "multipart/related; boundary=b", {}, 400, "parseError"),
        (b"{}", "application/json", {}, 400, "parseError"),
        (b"{}", "multipart/related", {}, 400, "parseError"),  # no boundary
    ],
)
def test_multipart_refusals(emu: Emulator, body: bytes, content_type: str, params: dict[str, str], status: int, reason: str) -> None:
    response = post_multipart(emu, body, content_type, **params)
    assert_error(response, status, reason, "")
    assert emu.state.buckets["state"].objects == {}


def test_upload_urls(emu: Emulator) -> None:
    wrong = "Upload requests must include an uploadType URL parameter and a URL path beginning with /upload/"
    metadata_url = requests.post(f"{emu.url}/storage/v1/b/state/o", params={"name": "x"}, data=b"x", headers=AUTH, timeout=5)
    assert_error(metadata_url, 400, "wrongUrlForUpload", wrong)
    no_type = requests.post(f"{emu.url}/upload/storage/v1/b/state/o", params={"name": "x"}, data=b"x", headers=AUTH, timeout=5)
    assert_error(no_type, 400, "wrongUrlForUpload", wrong)
    assert_error(upload(emu, "x", b"x", uploadType="resumable"), 400, "invalidParameter", "resumable", location="uploadType")
    assert_error(requests.get(f"{emu.url}/upload/storage/v1/b/state/o", headers=AUTH, timeout=5), 405, "methodNotAllowed", "GET")
    assert_error(requests.delete(f"{emu.url}/download/storage/v1/b/state/o/x", headers=AUTH, timeout=5), 405, "methodNotAllowed", "DELETE")
    assert emu.state.buckets["state"].objects == {}


# -- preconditions -------------------------------------------------------------------------


def test_upload_preconditions(emu: Emulator) -> None:
    first = upload(emu, "s", b"1", ifGenerationMatch="0")
    assert first.status_code == 200
    generation = first.json()["generation"]
    body = assert_error(upload(emu, "s", b"2", ifGenerationMatch="0"), 412, "conditionNotMet", PRECONDITION_FAILED, locationType="header", location="If-Match")
    assert body["error"]["message"] == PRECONDITION_FAILED
    assert_error(upload(emu, "s", b"2", ifGenerationMatch=str(int(generation) + 1)), 412, "conditionNotMet", PRECONDITION_FAILED)
    assert_error(upload(emu, "s", b"2", ifGenerationNotMatch=generation), 412, "conditionNotMet", PRECONDITION_FAILED)  # a change: 412, not 304
    assert_error(upload(emu, "s", b"2", ifMetagenerationMatch="2"), 412, "conditionNotMet", PRECONDITION_FAILED)
    assert_error(upload(emu, "s", b"2", ifMetagenerationNotMatch="1"), 412, "conditionNotMet", PRECONDITION_FAILED)
    assert_error(upload(emu, "new", b"2", ifGenerationMatch=generation), 412, "conditionNotMet", PRECONDITION_FAILED)  # no live object
    assert_error(upload(emu, "new", b"2", ifMetagenerationMatch="1"), 412, "conditionNotMet", PRECONDITION_FAILED)
    assert_error(upload(emu, "new", b"2", ifGenerationNotMatch="0"), 412, "conditionNotMet", PRECONDITION_FAILED)  # 0: "exists"
    assert obj(emu, "GET", "s", alt="media").content == b"1"
    assert "new" not in emu.state.buckets["state"].objects
    second = upload(emu, "s", b"2", ifGenerationMatch=generation, ifMetagenerationMatch="1", ifGenerationNotMatch="0", ifMetagenerationNotMatch="7")
    assert second.status_code == 200
    assert int(second.json()["generation"]) > int(generation)
    assert upload(emu, "other", b"3", ifMetagenerationNotMatch="1", ifGenerationNotMatch="5").status_code == 200


def test_read_and_delete_preconditions(emu: Emulator) -> None:
    generation = upload(emu, "s", b"1").json()["generation"]
    for params in ({"ifGenerationNotMatch": generation}, {"ifMetagenerationNotMatch": "1"}):
        for alt in ("json", "media"):
            unchanged = obj(emu, "GET", "s", alt=alt, **params)
            assert (unchanged.status_code, unchanged.content) == (304, b"")
    assert obj(emu, "GET", "s", ifGenerationMatch=generation, ifMetagenerationMatch="1", ifGenerationNotMatch="1").status_code == 200
    assert_error(obj(emu, "GET", "s", ifGenerationMatch="1"), 412, "conditionNotMet", PRECONDITION_FAILED, location="If-Match")
    assert_error(obj(emu, "GET", "s", ifMetagenerationMatch="2"), 412, "conditionNotMet", PRECONDITION_FAILED)
    media = obj(emu, "GET", "s", alt="media", ifGenerationMatch="1")
    assert_media_error(media, 412, PRECONDITION_FAILED)
    assert_error(obj(emu, "DELETE", "s", ifGenerationMatch="1"), 412, "conditionNotMet", PRECONDITION_FAILED)
    assert_error(obj(emu, "DELETE", "s", ifGenerationNotMatch=generation), 412, "conditionNotMet", PRECONDITION_FAILED)  # a change: 412
    assert_error(obj(emu, "GET", "missing", ifGenerationMatch="0"), 404, "notFound", "No such object: state/missing")  # 404 first
    assert obj(emu, "DELETE", "s", ifGenerationMatch=generation, ifMetagenerationMatch="1").status_code == 204


@pytest.mark.parametrize("value", ["abc", "", "1.5", "0x10", "1" * 20, " 1"])
@pytest.mark.parametrize("name", server.PRECONDITIONS)
def test_malformed_preconditions(emu: Emulator, name: str, value: str) -> None:
    response = requests.post(f"{emu.url}/upload/storage/v1/b/state/o?uploadType=media&name=s&{name}={quote(value)}", data=b"x", headers=AUTH, timeout=5)
    if value == "":  # an empty parameter is no parameter
        assert response.status_code == 200
        return
    assert_error(response, 400, "invalidParameter", f"Invalid value '{value}'", locationType="parameter", location=name)
    assert emu.state.buckets["state"].objects == {}


@pytest.mark.parametrize("existing", [False, True])
def test_concurrent_conditional_uploads_have_one_winner(emu: Emulator, existing: bool) -> None:
    generation = upload(emu, "lock", b"seed").json()["generation"] if existing else "0"
    writers = 8
    barrier = threading.Barrier(writers)
    statuses: list[int] = []

    def write(index: int) -> None:
        barrier.wait()
        statuses.append(upload(emu, "lock", f"writer {index}".encode(), ifGenerationMatch=generation).status_code)

    threads = [threading.Thread(target=write, args=(index,)) for index in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200] + [412] * (writers - 1)
    assert obj(emu, "GET", "lock", alt="media").content.startswith(b"writer ")


# -- customer-supplied encryption keys -----------------------------------------------------


def test_csek_round_trip(emu: Emulator) -> None:
    secret = b'{"serial": 1, "password": "hunter2"}'
    created = upload(emu, "enc", secret, headers=csek())
    assert created.status_code == 200
    resource = created.json()
    key_sha = base64.b64encode(hashlib.sha256(KEY).digest()).decode()
    assert resource["customerEncryption"] == {"encryptionAlgorithm": "AES256", "keySha256": key_sha}
    assert resource["crc32c"] == base64.b64encode(server.crc32c(secret).to_bytes(4, "big")).decode()
    stored = emu.state.buckets["state"].objects["enc"]
    assert stored.data != secret and len(stored.data) == len(secret)  # kept transformed by the key
    assert stored.key_sha256 == key_sha
    assert base64.b64encode(KEY).decode() not in repr(stored)  # never the key itself
    # Metadata needs no key, but without it the hashes (encrypted with the key) are left out.
    plain = obj(emu, "GET", "enc").json()
    assert "md5Hash" not in plain and "crc32c" not in plain
    assert plain["customerEncryption"]["keySha256"] == key_sha
    assert obj(emu, "GET", "enc", headers=csek()).json() == resource
    assert "md5Hash" not in listing(emu).json()["items"][0]
    download = obj(emu, "GET", "enc", alt="media", headers=csek())
    assert download.status_code == 200
    assert download.content == secret
    assert download.headers["x-goog-hash"] == f"crc32c={resource['crc32c']},md5={resource['md5Hash']}"
    assert download.headers["x-goog-encryption-key-sha256"] == key_sha
    state = requests.get(f"{emu.url}/_emulator/state", timeout=5).json()
    assert state["buckets"]["state"]["objects"] == [
        {"name": "enc", "generation": int(resource["generation"]), "metageneration": 1, "size": len(secret), "keySha256": key_sha}
    ]
    assert "hunter2" not in json.dumps(state)
    # Overwriting and deleting need no key.
    assert upload(emu, "enc", b"plain now").json().get("customerEncryption") is None
    assert obj(emu, "GET", "enc", alt="media").content == b"plain now"
    assert upload(emu, "enc", secret, headers=csek(OTHER_KEY)).status_code == 200
    assert obj(emu, "DELETE", "enc").status_code == 204


def test_csek_refusals(emu: Emulator) -> None:
    upload(emu, "enc", b"secret", headers=csek())
    upload(emu, "plain", b"open")
    assert_media_error(obj(emu, "GET", "enc", alt="media"), 400, "The target object is encrypted by a customer-supplied encryption key.")
    assert_media_error(obj(emu, "GET", "enc", alt="media", headers=csek(OTHER_KEY)), 400, "The provided encryption key is incorrect.")
    assert_media_error(obj(emu, "GET", "plain", alt="media", headers=csek()), 400, "The target object is not encrypted by a customer-supplied encryption key.")
    assert_error(obj(emu, "GET", "enc", headers=csek(OTHER_KEY)), 400, "customerEncryptionKeyIsIncorrect", "The provided encryption key is incorrect.")
    assert_error(
        obj(emu, "GET", "plain", headers=csek()),
        400,
        "resourceNotEncryptedWithCustomerEncryptionKey",
        "The target object is not encrypted by a customer-supplied encryption key.",
    )


ALGORITHM = ("customerEncryptionAlgorithmIsInvalid", 'Missing an encryption algorithm, or the provided algorithm is not "AES256."')
KEY_FORMAT = (
    "customerEncryptionKeyFormatIsInvalid",
    "Missing an encryption key, or it is not Base64 encoded, or it does not meet the required length of the encryption algorithm.",
)
KEY_SHA = (
    "customerEncryptionKeySha256IsInvalid",
    "Missing a SHA256 hash of the encryption key, or it is not Base64 encoded, or it does not match the encryption key.",
)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"x-goog-encryption-algorithm": "AES128"}, ALGORITHM),
        ({"x-goog-encryption-algorithm": None}, ALGORITHM),
        ({"x-goog-encryption-key": None}, KEY_FORMAT),
        ({"x-goog-encryption-key": "not base64!"}, KEY_FORMAT),
        ({"x-goog-encryption-key": base64.b64encode(bytes(31)).decode()}, KEY_FORMAT),
        ({"x-goog-encryption-key": base64.b64encode(bytes(33)).decode()}, KEY_FORMAT),
        ({"x-goog-encryption-key-sha256": None}, KEY_SHA),
        ({"x-goog-encryption-key-sha256": "%%%"}, KEY_SHA),
        ({"x-goog-encryption-key-sha256": base64.b64encode(hashlib.sha256(OTHER_KEY).digest()).decode()}, KEY_SHA),
    ],
)
def test_malformed_keys_are_refused(emu: Emulator, change: dict[str, str | None], expected: tuple[str, str]) -> None:
    headers = {name: value for name, value in {**csek(), **change}.items() if value is not None}
    response = upload(emu, "enc", b"secret", headers=headers)
    assert_error(response, 400, expected[0], expected[1], extendedHelp=server.CSEK_HELP)
    assert emu.state.buckets["state"].objects == {}
    upload(emu, "enc", b"secret", headers=csek())
    assert_error(obj(emu, "GET", "enc", headers=headers), 400, expected[0], expected[1])
    assert_media_error(obj(emu, "GET", "enc", alt="media", headers=headers), 400, expected[1])


# -- auth, buckets, names ------------------------------------------------------------------


def test_authentication_and_permissions(emu: Emulator) -> None:
    upload(emu, "s", b"x")
    anonymous = obj(emu, "GET", "s", headers={"Authorization": ""})
    assert_error(
        anonymous,
        401,
        "required",
        "Anonymous caller does not have storage.objects.get access to the Google Cloud Storage object. "
        "Permission 'storage.objects.get' denied on resource (or it may not exist).",
        location="Authorization",
    )
    assert "WWW-Authenticate" in anonymous.headers
    assert_error(listing(emu, headers={"Authorization": "Bearer nope"}), 401, "authError", "Invalid Credentials")
    assert_error(
        requests.get(f"{emu.url}/storage/v1/b/state/o", timeout=5),
        401,
        "required",
        "Anonymous caller does not have storage.objects.list access to the Google Cloud Storage bucket.",
    )
    assert obj(emu, "GET", "s", headers=READER).status_code == 200
    assert obj(emu, "GET", "s", alt="media", headers=READER).content == b"x"
    assert listing(emu, headers=READER).status_code == 200
    assert_error(
        upload(emu, "s", b"y", headers=READER),
        403,
        "forbidden",
        "read@emulator.iam.gserviceaccount.com does not have storage.objects.create access to the Google Cloud Storage object. "
        "Permission 'storage.objects.create' denied on resource (or it may not exist).",
    )
    assert_error(obj(emu, "DELETE", "s", headers=READER), 403, "forbidden", "does not have storage.objects.delete access to the Google Cloud Storage object.")
    assert obj(emu, "GET", "s", alt="media").content == b"x"


def test_buckets(emu: Emulator) -> None:
    assert_error(upload(emu, "s", b"x", bucket="nope"), 404, "notFound", "The specified bucket does not exist.")
    assert_error(obj(emu, "GET", "s", bucket="nope"), 404, "notFound", "The specified bucket does not exist.")
    assert_error(listing(emu, bucket="nope"), 404, "notFound", "The specified bucket does not exist.")
    assert_error(listing(emu, bucket="No_Caps"), 400, "invalid", "Invalid bucket name: ")
    assert_error(upload(emu, "s", b"x", bucket="paid"), 400, "required", "Bucket is a requester pays bucket but no user project provided.")
    assert upload(emu, "s", b"x", bucket="paid", userProject="billing").status_code == 200


@pytest.mark.parametrize("name", ["a\nb", "a\rb", ".", "..", "x" * 1025, "é" * 513, ".well-known/acme-challenge/token"])
def test_invalid_object_names_are_refused(emu: Emulator, name: str) -> None:
    assert_error(upload(emu, name, b"x"), 400, "invalid", "Invalid object name: ")
    assert emu.state.buckets["state"].objects == {}


def test_missing_object_name(emu: Emulator) -> None:
    assert_error(upload(emu, "", b"x"), 400, "required", "Required")


@pytest.mark.parametrize("path", ["..", ".", "%2E%2E", "a%0Ab", "%FF%FE", "%ED%A0%80"])
def test_invalid_object_names_in_paths(emu: Emulator, path: str) -> None:
    for suffix in ("", "?alt=media"):
        status, body = raw_request(emu, "GET", f"/storage/v1/b/state/o/{path}{suffix}")
        assert status == 400
        assert (json.loads(body)["error"]["message"] if not suffix else body.decode()).startswith("Invalid object name: ")
    assert raw_request(emu, "DELETE", f"/storage/v1/b/state/o/{path}")[0] == 400


def test_query_names_that_are_not_utf8(emu: Emulator) -> None:
    response = requests.post(f"{emu.url}/upload/storage/v1/b/state/o?uploadType=media&name=%FF", data=b"x", headers=AUTH, timeout=5)
    assert_error(response, 400, "invalid", "Invalid object name: ")


@pytest.mark.parametrize("name", ["é" * 512, "tab\there", "ctl\x00\x1b\x7f", "dir/", "sp ace/+plus%percent?q#h", "x" * 1024])
def test_unusual_valid_names_round_trip(emu: Emulator, name: str) -> None:
    assert upload(emu, name, b"v").json()["name"] == name
    assert obj(emu, "GET", name).json()["name"] == name
    assert obj(emu, "GET", name, alt="media").content == b"v"
    assert [item["name"] for item in listing(emu).json()["items"]] == [name]


# -- listing -------------------------------------------------------------------------------


def test_list_with_prefix_delimiter_and_pages(emu: Emulator) -> None:
    assert listing(emu).json() == {"kind": "storage#objects"}  # no "items" when empty
    for name in ("env/dev/a", "env/dev/b", "env/prod/a", "envelope", "other"):
        upload(emu, name, name.encode())
    assert [item["name"] for item in listing(emu).json()["items"]] == ["env/dev/a", "env/dev/b", "env/prod/a", "envelope", "other"]
    assert [item["name"] for item in listing(emu, prefix="env/").json()["items"]] == ["env/dev/a", "env/dev/b", "env/prod/a"]
    assert listing(emu, prefix="nothing/").json() == {"kind": "storage#objects"}
    assert listing(emu, prefix="env/", delimiter="/").json() == {"kind": "storage#objects", "prefixes": ["env/dev/", "env/prod/"]}
    top = listing(emu, delimiter="/").json()
    assert top["prefixes"] == ["env/"]
    assert [item["name"] for item in top["items"]] == ["envelope", "other"]
    assert listing(emu).json()["items"][0] == obj(emu, "GET", "env/dev/a").json()

    seen: list[str] = []
    params: dict[str, str] = {"maxResults": "2"}
    pages = 0
    while True:
        page = requests.get(f"{emu.url}/storage/v1/b/state/o", params=params, headers=AUTH, timeout=5).json()
        pages += 1
        seen += [item["name"] for item in page.get("items", [])]
        if "nextPageToken" not in page:
            break
        params["pageToken"] = page["nextPageToken"]
    assert (pages, seen) == (3, ["env/dev/a", "env/dev/b", "env/prod/a", "envelope", "other"])
    first = listing(emu, delimiter="/", maxResults="1").json()
    assert (first["prefixes"], "items" in first) == (["env/"], False)
    rest = listing(emu, delimiter="/", pageToken=first["nextPageToken"]).json()
    assert ("prefixes" in rest, [item["name"] for item in rest["items"]]) == (False, ["envelope", "other"])
    assert_error(listing(emu, maxResults="0"), 400, "invalidParameter", "maxResults")
    assert_error(listing(emu, maxResults="many"), 400, "invalidParameter", "Invalid value 'many'")
    assert_error(listing(emu, pageToken="!"), 400, "invalid", "page token")


# -- the request log and faults ------------------------------------------------------------


def test_stats_and_faults_cover_object_calls(emu: Emulator) -> None:
    control = f"{emu.url}/_emulator"
    requests.post(f"{control}/faults", json={"method": "POST", "path": "/upload/", "status": 503, "retry_after": "0"}, timeout=5)
    failed = upload(emu, "s", b"x", ifGenerationMatch="0")
    assert_error(failed, 503, "backendError", "Backend Error")
    assert failed.headers["Retry-After"] == "0"
    assert emu.state.buckets["state"].objects == {}
    assert upload(emu, "s", b"x", ifGenerationMatch="0").status_code == 200
    requests.post(f"{control}/faults", json={"method": "GET", "path": "/o/", "status": 429, "reason": "rateLimitExceeded", "message": "slow"}, timeout=5)
    assert_media_error(obj(emu, "GET", "s", alt="media"), 429, "slow")
    assert obj(emu, "GET", "s", alt="media").status_code == 200
    assert listing(emu).status_code == 200  # "/o/" is not in the list path
    obj(emu, "DELETE", "s")
    stats = requests.get(f"{control}/stats", timeout=5).json()
    assert stats["by_method"] == {"POST": 2, "GET": 3, "DELETE": 1}
    assert [(entry["method"], entry["path"], entry["status"]) for entry in stats["log"]] == [
        ("POST", "/upload/storage/v1/b/state/o", 503),
        ("POST", "/upload/storage/v1/b/state/o", 200),
        ("GET", "/storage/v1/b/state/o/s", 429),
        ("GET", "/storage/v1/b/state/o/s", 200),
        ("GET", "/storage/v1/b/state/o", 200),
        ("DELETE", "/storage/v1/b/state/o/s", 204),
    ]
    assert stats["log"][0]["query"] == "uploadType=media&name=s&ifGenerationMatch=0"
    assert stats["log"][3]["query"] == "alt=media"
