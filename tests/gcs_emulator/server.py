# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A local emulator of the Cloud Storage JSON API v1 ``notificationConfigs`` resource
(insert, get, list, delete) and of the ``objects`` calls a state store needs, standard
library only, listening on loopback addresses only.

Objects (one live generation per name, no versioning):

  POST   /upload/storage/v1/b/B/o?uploadType=media&name=N       raw body, Content-Type header
  POST   /upload/storage/v1/b/B/o?uploadType=multipart          multipart/related: JSON metadata
                                                                ({"name", "contentType"}), then the media
  GET    /storage/v1/b/B/o/N                                    the object resource
  GET    /storage/v1/b/B/o/N?alt=media  (or /download/storage/v1/b/B/o/N)   the bytes
  DELETE /storage/v1/b/B/o/N                                    204, empty
  GET    /storage/v1/b/B/o?prefix=P&delimiter=D&maxResults=M&pageToken=T

with ``ifGenerationMatch`` (0: only when no live object exists), ``ifGenerationNotMatch``,
``ifMetagenerationMatch``, ``ifMetagenerationNotMatch`` (412 ``conditionNotMet``; 304 with an
empty body for a GET whose *NotMatch fails), ``generation`` on reads, and customer-supplied
encryption keys (``x-goog-encryption-algorithm``/``-key``/``-key-sha256``: only the key's
SHA-256 is kept, the bytes are stored transformed by the key; downloads without the key, with
another key, or with a key for a plain object are refused as the real API does). The resource
has string ``generation``/``metageneration``/``size``, base64 ``md5Hash`` and big-endian
``crc32c``, protobuf-shaped ``etag``, RFC 3339 times with milliseconds; generations are
microsecond timestamps that never repeat. Refusals of a media download are the bare message as
text, as the real service sends them; every other refusal is the JSON error body.

Faithful to the real API where the modules can tell: 200 + resource on insert, 204 with an
empty body on delete, the ``{"error": {"code", "message", "errors": [{...}]}}`` error body,
snake_case keys (``payload_format``, ``event_types``, ``custom_attributes``,
``object_name_prefix``) next to camelCase ``selfLink``, ``//pubsub.googleapis.com/...``
topics on output, ids made of digits, ``etag``, ``kind``, ``items`` left out of an empty list,
the per-bucket limits (100 configs, 10 per event type), a bearer-token check (401 without or
with an unknown token, 403 for a read-only token on a change), requester-pays buckets
(400 without ``userProject``), and 403 with the publish-permission text for a topic the
bucket's service agent cannot publish to. Messages whose exact wording is not documented
upstream (the limits, the 400 texts of bad fields) are marked as such below.

Control endpoints under ``/_emulator/`` (no auth, never counted) let tests add buckets,
topics and tokens, read request counters, inject faults and stop the server:

  GET  /_emulator/stats            {"requests": N, "by_method": {...}, "log": [...]}
  POST /_emulator/stats/reset
  POST /_emulator/faults           {"method": "GET", "path": "notificationConfigs", "count": 2,
                                    "status": 503, "reason": "backendError", "message": "...",
                                    "retry_after": "0"} | {..., "reset": true} | {..., "delay": 2.5}
  DELETE /_emulator/faults
  POST /_emulator/buckets          {"name": "b", "requester_pays": false}
  POST /_emulator/topics           {"topic": "projects/p/topics/t", "publisher": true}
  POST /_emulator/tokens           {"token": "t", "access": "write" | "read"}
  GET  /_emulator/state            buckets (with their objects' name, generation, size, keySha256,
                                   never their contents) and topics
  POST /_emulator/shutdown

OAuth 2.0 token endpoint for service account keys whose ``token_uri`` points here (the JWT
bearer grant google-auth sends; the assertion's signature is not checked):

  POST /token                      grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<JWT>
                                   -> {"access_token": <--oauth-token>, "expires_in": 3600, "token_type": "Bearer"}

Run: python server.py --port 0 --port-file /tmp/port --token secret --bucket b --topic projects/p/topics/t
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import datetime
import email.message
import hashlib
import http.server
import ipaddress
import json
import os
import re
import socket
import sys
import threading
import time
import typing as t
from urllib.parse import parse_qs, quote, unquote, urlsplit

__all__ = ["Bucket", "Emulator", "Fault", "State", "StoredObject", "crc32c", "main", "valid_bucket_name", "valid_object_name"]

EVENT_TYPES = ("OBJECT_FINALIZE", "OBJECT_METADATA_UPDATE", "OBJECT_DELETE", "OBJECT_ARCHIVE")
PAYLOAD_FORMATS = ("JSON_API_V1", "NONE")
PUBSUB_PREFIX = "//pubsub.googleapis.com/"
MAX_CONFIGS_PER_BUCKET = 100
MAX_CONFIGS_PER_EVENT_TYPE = 10

_TOPIC = re.compile(r"projects/([^/]+)/topics/([^/]+)")
# Cloud Storage's bucket naming rules (lower-case letters, digits, - _ ., 3-63 characters or up
# to 222 with dots and 63 between them, a letter or digit at both ends, no IPv4 address, no
# "goog" prefix): a request naming anything else is refused, as the real API does.
_BUCKET_NAME = re.compile(r"[a-z0-9](?:[a-z0-9_.\-]*[a-z0-9])?")
MAX_OBJECT_NAME_BYTES = 1024


def valid_bucket_name(name: str) -> bool:
    parts = name.split(".")
    if not _BUCKET_NAME.fullmatch(name) or not 3 <= len(name) <= (222 if len(parts) > 1 else 63) or name.startswith("goog"):
        return False
    if any(not 0 < len(part) <= 63 for part in parts):
        return False
    try:
        ipaddress.IPv4Address(name)
    except ValueError:
        return True
    return False


def _crc32c_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        value = byte
        for _bit in range(8):
            value = (value >> 1) ^ 0x82F63B78 if value & 1 else value >> 1
        table.append(value)
    return tuple(table)


_CRC32C_TABLE = _crc32c_table()


def crc32c(data: bytes, value: int = 0) -> int:
    """CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum Cloud Storage keeps."""
    value ^= 0xFFFFFFFF
    table = _CRC32C_TABLE
    for byte in data:
        value = table[(value ^ byte) & 0xFF] ^ (value >> 8)
    return value ^ 0xFFFFFFFF


def valid_object_name(name: str) -> bool:
    """Cloud Storage's object naming rules: 1 to 1024 bytes of UTF-8, no CR or LF, not "." or
    "..", not under ".well-known/acme-challenge/". Other control characters are allowed."""
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:  # a lone surrogate: the request's bytes were not UTF-8
        return False
    return (
        0 < size <= MAX_OBJECT_NAME_BYTES
        and "\r" not in name
        and "\n" not in name
        and name not in (".", "..")
        and not name.startswith(".well-known/acme-challenge/")
    )


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _object_etag(generation: int, metageneration: int) -> str:
    # The shape of the real etags (not documented, read off real answers such as
    # "CN+Mjofdj/4CEAE="): base64 of protobuf field 1 = generation, field 2 = metageneration.
    return base64.b64encode(b"\x08" + _varint(generation) + b"\x10" + _varint(metageneration)).decode()


def _rfc3339(microseconds: int) -> str:
    moment = datetime.datetime.fromtimestamp(microseconds / 1_000_000, tz=datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _keystream_xor(data: bytes, key: bytes, generation: int) -> bytes:
    """A reversible transform keyed by a customer-supplied key (not AES: the point is only that
    the stored bytes are useless without the key, which is never stored)."""
    if not data:
        return b""
    stream = hashlib.shake_256(key + generation.to_bytes(8, "big")).digest(len(data))
    return (int.from_bytes(data, "big") ^ int.from_bytes(stream, "big")).to_bytes(len(data), "big")


_ROUTE = re.compile(r"/storage/v1/b/(?P<bucket>[^/]+)/notificationConfigs(?:/(?P<id>[^/]+))?/?")
_OBJECTS = re.compile(r"/storage/v1/b/(?P<bucket>[^/]+)/o/?")
_OBJECT = re.compile(r"/(?P<download>download/)?storage/v1/b/(?P<bucket>[^/]+)/o/(?P<object>.+)")
_UPLOAD = re.compile(r"/upload/storage/v1/b/(?P<bucket>[^/]+)/o/?")
_INT64 = re.compile(r"[+-]?[0-9]{1,19}")
PRECONDITIONS = ("ifGenerationMatch", "ifGenerationNotMatch", "ifMetagenerationMatch", "ifMetagenerationNotMatch")
CSEK_HELP = "https://cloud.google.com/storage/docs/encryption/customer-supplied-keys"


class ApiError(Exception):
    def __init__(self, status: int, reason: str, message: str, *, headers: dict[str, str] | None = None, extra: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.message = message
        self.headers = headers or {}
        self.extra = extra or {}

    def body(self) -> dict[str, t.Any]:
        return {
            "error": {
                "code": self.status,
                "message": self.message,
                "errors": [{"message": self.message, "domain": "global", "reason": self.reason, **self.extra}],
            }
        }


@dataclasses.dataclass
class Reply:
    """An answer that is not a JSON document: an object's bytes, or an empty 304."""

    status: int
    payload: bytes = b""
    headers: dict[str, str] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Fault:
    """The next ``count`` API requests matching ``method`` ("*" = any) and containing ``path``
    get an error answer, a dropped connection (``reset``), or a late answer (``delay`` s)."""

    method: str = "*"
    path: str = ""
    count: int = 1
    status: int = 503
    reason: str = "backendError"
    message: str = "Backend Error"
    retry_after: str | None = None
    reset: bool = False
    delay: float = 0.0

    def matches(self, method: str, path: str) -> bool:
        return self.count > 0 and self.method in ("*", method) and self.path in path


@dataclasses.dataclass
class StoredObject:
    """One live object. ``data`` is transformed by the customer-supplied key when
    ``key_sha256`` is set; the key itself is never kept."""

    name: str
    generation: int
    data: bytes
    size: int
    md5_hash: str
    crc32c: str
    content_type: str
    metageneration: int = 1
    key_sha256: str | None = None


@dataclasses.dataclass
class Bucket:
    name: str
    requester_pays: bool = False
    metageneration: int = 1
    next_id: int = 1
    configs: dict[str, dict[str, t.Any]] = dataclasses.field(default_factory=dict)
    objects: dict[str, StoredObject] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class State:
    project_number: str = "123456789012"
    tokens: dict[str, str] = dataclasses.field(default_factory=dict)  # token -> "write" | "read"
    buckets: dict[str, Bucket] = dataclasses.field(default_factory=dict)
    topics: dict[str, bool] = dataclasses.field(default_factory=dict)  # projects/P/topics/T -> publisher granted
    billing_projects: set[str] | None = None  # None: any userProject is accepted
    oauth_token: str | None = None  # what POST /token issues (with write access); None: no token endpoint
    faults: list[Fault] = dataclasses.field(default_factory=list)
    log: list[dict[str, t.Any]] = dataclasses.field(default_factory=list)
    lock: threading.RLock = dataclasses.field(default_factory=threading.RLock)
    last_generation: int = 0

    def next_generation(self) -> int:
        """Microseconds since the epoch, as the real generations are, but strictly increasing
        even when two writes land in the same microsecond or the clock steps back."""
        with self.lock:
            self.last_generation = max(time.time_ns() // 1000, self.last_generation + 1)
            return self.last_generation

    @property
    def service_agent(self) -> str:
        return f"service-{self.project_number}@gs-project-accounts.iam.gserviceaccount.com"

    def stats(self) -> dict[str, t.Any]:
        by_method: dict[str, int] = {}
        for entry in self.log:
            by_method[entry["method"]] = by_method.get(entry["method"], 0) + 1
        return {"requests": len(self.log), "by_method": by_method, "log": list(self.log)}


def _denied(principal: str, permission: str, resource: str = "bucket") -> str:
    return (
        f"{principal} does not have {permission} access to the Google Cloud Storage {resource}. "
        f"Permission '{permission}' denied on resource (or it may not exist)."
    )


def _parse_multipart(content_type: str, raw: bytes) -> tuple[dict[str, t.Any], str | None, bytes]:
    """A multipart/related upload body: (the JSON metadata, the media part's type, the media)."""
    header = email.message.Message()
    header["Content-Type"] = content_type
    boundary = header.get_param("boundary")
    # The status and reason are the API's (parseError: the body does not parse as its
    # Content-Type says); the texts are the emulator's own.
    if header.get_content_type() != "multipart/related" or not isinstance(boundary, str) or not boundary:
        raise ApiError(400, "parseError", "A multipart upload needs Content-Type: multipart/related with a boundary.")
    chunks = (b"\r\n" + raw).split(b"\r\n--" + boundary.encode())
    parts: list[tuple[dict[str, str], bytes]] = []
    for chunk in chunks[1:]:
        if chunk.startswith(b"--"):
            break
        head, sep, content = chunk.partition(b"\r\n\r\n")
        if not sep:
            raise ApiError(400, "parseError", "A part of the multipart body has no header end.")
        fields: dict[str, str] = {}
        for line in head.decode("latin-1").split("\r\n")[1:]:
            key, _colon, value = line.partition(":")
            fields[key.strip().lower()] = value.strip()
        parts.append((fields, content))
    else:
        raise ApiError(400, "parseError", "The multipart body has no closing boundary.")
    if len(parts) != 2:
        raise ApiError(400, "parseError", f"A multipart upload has 2 parts (metadata, media), not {len(parts)}.")
    try:
        metadata = json.loads(parts[0][1] or b"{}")
    except ValueError:
        raise ApiError(400, "parseError", "Parse Error") from None
    if not isinstance(metadata, dict):
        raise ApiError(400, "parseError", "Parse Error")
    return metadata, parts[1][0].get("content-type"), parts[1][1]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: EmulatorServer

    def log_message(self, format: str, *args: t.Any) -> None:
        pass  # the request log is in /_emulator/stats

    # -- plumbing ----------------------------------------------------------------------

    def _send(self, status: int, body: dict[str, t.Any] | None, headers: dict[str, str] | None = None) -> None:
        payload = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if body is not None:
            self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _send_raw(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _dispatch(self, method: str) -> None:
        url = urlsplit(self.path)
        raw = self._body()
        if url.path.startswith("/_emulator/"):
            self._control(method, url.path, raw)
            return
        if (method, url.path) == ("POST", "/token"):
            self._token(raw)
            return
        state = self.server.state
        with state.lock:
            entry = {"method": method, "path": url.path, "query": url.query, "status": 0}
            state.log.append(entry)
            fault = next((f for f in state.faults if f.matches(method, url.path)), None)
            if fault is not None:
                fault.count -= 1
        if fault is not None and fault.reset:
            entry["status"] = "reset"
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if fault is not None and fault.delay:
            time.sleep(fault.delay)
        # Undecodable query bytes survive as lone surrogates, so an object name made of them is
        # refused as not UTF-8 instead of being silently changed.
        query = parse_qs(url.query, errors="surrogateescape")
        media = method == "GET" and _OBJECT.fullmatch(url.path) is not None and (url.path.startswith("/download/") or query.get("alt") == ["media"])
        try:
            if fault is not None and not fault.delay:
                headers = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
                raise ApiError(fault.status, fault.reason, fault.message, headers=headers)
            with state.lock:  # one request at a time: an upload's precondition check and its write are one step
                result = self._api(method, url.path, query, raw)
            if isinstance(result, Reply):
                entry["status"] = result.status
                self._send_raw(result.status, result.payload, result.headers)
            else:
                entry["status"] = result[0]
                self._send(*result)
        except ApiError as exc:
            entry["status"] = exc.status
            if media:
                # A media download's refusal is the bare message, not a JSON document: the
                # official clients' system tests against the real service compare the body's
                # start with "The target object is encrypted by a customer-supplied encryption
                # key." and "No such object: BUCKET/NAME". The content type is not documented.
                self._send_raw(exc.status, exc.message.encode(), {**exc.headers, "Content-Type": "text/html; charset=UTF-8"})
            else:
                self._send(exc.status, exc.body(), exc.headers)

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_PATCH(self) -> None:
        self._dispatch("PATCH")

    # -- the API -----------------------------------------------------------------------

    def _api(self, method: str, path: str, query: dict[str, list[str]], raw: bytes) -> tuple[int, dict[str, t.Any] | None] | Reply:
        answer = self._objects_api(method, path, query, raw)
        if answer is not None:
            return answer
        route = _ROUTE.fullmatch(path)
        if route is None:
            raise ApiError(404, "notFound", "Not Found")
        changes = method in ("POST", "DELETE", "PUT", "PATCH")
        permission = "storage.buckets.update" if changes else "storage.buckets.get"
        access = self._authenticate(permission)
        bucket = self._bucket(route.group("bucket"))
        if changes and access != "write":
            raise ApiError(403, "forbidden", _denied(f"{access}@emulator.iam.gserviceaccount.com", permission))
        self._check_billing(bucket, query)
        config_id = route.group("id")
        if config_id is None and method == "GET":
            items = [bucket.configs[key] for key in sorted(bucket.configs, key=int)]
            return 200, {"kind": "storage#notifications", **({"items": items} if items else {})}
        if config_id is None and method == "POST":
            return 200, self._insert(bucket, raw)
        if config_id is not None and method in ("GET", "DELETE"):
            config_id = unquote(config_id)
            if config_id not in bucket.configs:
                raise ApiError(404, "notFound", "Not Found")
            if method == "GET":
                return 200, bucket.configs[config_id]
            del bucket.configs[config_id]
            bucket.metageneration += 1
            return 204, None
        # notificationConfigs has no update method.
        raise ApiError(405, "methodNotAllowed", f"Method {method} is not allowed on this resource.")

    def _bucket(self, quoted: str) -> Bucket:
        name = unquote(quoted)
        if not valid_bucket_name(name):
            # The status and reason are the API's; the text is the emulator's own.
            raise ApiError(400, "invalid", f"Invalid bucket name: {name!r}")
        bucket = self.server.state.buckets.get(name)
        if bucket is None:
            raise ApiError(404, "notFound", "The specified bucket does not exist.")
        return bucket

    def _authenticate(self, permission: str, resource: str = "bucket") -> str:
        header = self.headers.get("Authorization") or ""
        if not header:
            raise ApiError(
                401,
                "required",
                _denied("Anonymous caller", permission, resource),
                headers={"WWW-Authenticate": 'Bearer realm="https://accounts.google.com/"'},
                extra={"locationType": "header", "location": "Authorization"},
            )
        scheme, _sep, token = header.partition(" ")
        access = self.server.state.tokens.get(token.strip()) if scheme.lower() == "bearer" else None
        if access is None:
            raise ApiError(
                401,
                "authError",
                "Invalid Credentials",
                headers={"WWW-Authenticate": 'Bearer realm="https://accounts.google.com/", error="invalid_token"'},
                extra={"locationType": "header", "location": "Authorization"},
            )
        return access

    def _check_billing(self, bucket: Bucket, query: dict[str, list[str]]) -> None:
        user_project = (query.get("userProject") or [""])[0]
        if bucket.requester_pays and not user_project:
            raise ApiError(400, "required", "Bucket is a requester pays bucket but no user project provided.")
        billing = self.server.state.billing_projects
        if user_project and billing is not None and user_project not in billing:
            raise ApiError(400, "invalid", "User project specified in the request is invalid.")

    @staticmethod
    def _insert_fields(raw: bytes) -> tuple[str, str, list[str], dict[str, str], str]:
        """The fields of an insert body, checked: topic (projects/P/topics/T), payload_format,
        event_types, custom_attributes, object_name_prefix."""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            raise ApiError(400, "parseError", "Parse Error") from None
        if not isinstance(body, dict):
            raise ApiError(400, "parseError", "Parse Error")
        # The texts of the 400 answers below are not documented upstream; the statuses and
        # reasons are (fake-gcs-server and storage-testbench answer 400 too).
        topic = body.get("topic")
        if not topic:
            raise ApiError(400, "required", "Required field 'topic' is missing.")
        name = topic[len(PUBSUB_PREFIX) :] if isinstance(topic, str) and topic.startswith(PUBSUB_PREFIX) else topic
        if not isinstance(name, str) or not _TOPIC.fullmatch(name):
            raise ApiError(400, "invalid", f"Invalid Cloud Pub/Sub topic name: '{topic}'.")
        payload_format = body.get("payload_format", "JSON_API_V1")
        if payload_format not in PAYLOAD_FORMATS:
            raise ApiError(400, "invalid", f"Invalid value for payload_format: '{payload_format}'.")
        events = body.get("event_types") or []
        if not isinstance(events, list) or any(event not in EVENT_TYPES for event in events):
            raise ApiError(400, "invalid", f"Invalid value for event_types: {json.dumps(events)}.")
        attributes = body.get("custom_attributes") or {}
        if not isinstance(attributes, dict) or any(not isinstance(value, str) for value in attributes.values()):
            raise ApiError(400, "invalid", "Invalid value for custom_attributes: values must be strings.")
        prefix = body.get("object_name_prefix") or ""
        # Object names are any Unicode but CR and LF, at most 1024 bytes of UTF-8: a prefix is
        # held to the same rule, other control characters are data and come back as sent.
        if not isinstance(prefix, str) or "\r" in prefix or "\n" in prefix or len(prefix.encode("utf-8", "surrogatepass")) > MAX_OBJECT_NAME_BYTES:
            raise ApiError(400, "invalid", "Invalid value for object_name_prefix.")
        return name, payload_format, events, attributes, prefix

    def _insert(self, bucket: Bucket, raw: bytes) -> dict[str, t.Any]:
        state = self.server.state
        name, payload_format, events, attributes, prefix = self._insert_fields(raw)
        if not state.topics.get(name, False):
            raise ApiError(
                403,
                "forbidden",
                f"The service account '{state.service_agent}' does not have permission to publish messages to to the "
                f"Cloud Pub/Sub topic '{PUBSUB_PREFIX}{name}', or that topic does not exist.",
            )
        # The limits are documented; the wording of these two messages is not.
        if len(bucket.configs) >= MAX_CONFIGS_PER_BUCKET:
            raise ApiError(400, "invalid", f"A bucket can have at most {MAX_CONFIGS_PER_BUCKET} notification configurations.")
        for event in events or EVENT_TYPES:
            triggering = sum(1 for config in bucket.configs.values() if event in (config.get("event_types") or EVENT_TYPES))
            if triggering >= MAX_CONFIGS_PER_EVENT_TYPE:
                raise ApiError(400, "invalid", f"A bucket can have at most {MAX_CONFIGS_PER_EVENT_TYPE} notification configurations for event type {event}.")
        config_id = str(bucket.next_id)
        bucket.next_id += 1
        bucket.metageneration += 1
        host = self.headers.get("Host") or self.server.address
        config: dict[str, t.Any] = {"kind": "storage#notification", "id": config_id, "topic": PUBSUB_PREFIX + name, "payload_format": payload_format}
        if events:
            config["event_types"] = list(events)
        if attributes:
            config["custom_attributes"] = dict(attributes)
        if prefix:
            config["object_name_prefix"] = prefix
        config["etag"] = base64.b64encode(f"{config_id}:{bucket.metageneration}".encode()).decode()
        config["selfLink"] = f"http://{host}/storage/v1/b/{bucket.name}/notificationConfigs/{config_id}"
        bucket.configs[config_id] = config
        return config

    # -- objects -----------------------------------------------------------------------

    def _objects_api(self, method: str, path: str, query: dict[str, list[str]], raw: bytes) -> tuple[int, dict[str, t.Any] | None] | Reply | None:
        """The objects calls (upload, get, download, delete, list); None for other paths."""
        upload, listing, single = _UPLOAD.fullmatch(path), _OBJECTS.fullmatch(path), _OBJECT.fullmatch(path)
        if upload is not None:
            match, permission, resource = upload, "storage.objects.create", "object"
            allowed: tuple[str, ...] = ("POST",)
        elif listing is not None:
            if method == "POST":  # objects.insert sent to the metadata URL
                raise ApiError(
                    400,
                    "wrongUrlForUpload",
                    "Upload requests must include an uploadType URL parameter and a URL path beginning with /upload/",
                    extra={"extendedHelp": "https://cloud.google.com/storage/docs/json_api/v1/how-tos/upload"},
                )
            match, permission, resource, allowed = listing, "storage.objects.list", "bucket", ("GET",)
        elif single is not None:
            match, resource = single, "object"
            permission = "storage.objects.delete" if method == "DELETE" else "storage.objects.get"
            allowed = ("GET",) if single.group("download") else ("GET", "DELETE")
        else:
            return None
        if method not in allowed:
            # objects.update/patch/compose/rewrite exist upstream but are not emulated.
            raise ApiError(405, "methodNotAllowed", f"Method {method} is not allowed on this resource.")
        access = self._authenticate(permission, resource)
        bucket = self._bucket(match.group("bucket"))
        if method != "GET" and access != "write":
            raise ApiError(403, "forbidden", _denied(f"{access}@emulator.iam.gserviceaccount.com", permission, resource))
        self._check_billing(bucket, query)
        conditions = {name: self._int_parameter(query, name) for name in PRECONDITIONS if name in query}
        if upload is not None:
            return self._upload(bucket, query, raw, conditions)
        if listing is not None:
            return self._list(bucket, query)
        try:
            name = unquote(match.group("object"), errors="strict")
        except UnicodeDecodeError:
            name = "\udcff"  # not UTF-8: refused below like any other invalid name
        return self._single(bucket, method, name, query, conditions, media=bool(match.group("download")) or query.get("alt") == ["media"])

    @staticmethod
    def _int_parameter(query: dict[str, list[str]], name: str) -> int:
        value = query[name][0]
        if not _INT64.fullmatch(value):
            # The status and reason are documented (invalidParameter: "The value for one of the URL
            # parameters was invalid"); the text is the one Google's discovery-based APIs use for
            # a malformed integer, not verified for Cloud Storage.
            raise ApiError(
                400,
                "invalidParameter",
                f"Invalid value '{value}'. Values must match the following regular expression: '[+-]?\\d+'",
                extra={"locationType": "parameter", "location": name},
            )
        return int(value)

    @staticmethod
    def _check_name(name: str | None) -> str:
        if not name:
            # The status and reason are the API's; "Required" is the text its frontends use for a
            # missing required field, not documented for this one.
            raise ApiError(400, "required", "Required", extra={"locationType": "parameter", "location": "name"})
        if not valid_object_name(name):
            # The status and reason are the API's; the text is the emulator's own.
            raise ApiError(400, "invalid", f"Invalid object name: {name.encode('utf-8', 'backslashreplace').decode('ascii', 'backslashreplace')!r}")
        return name

    @staticmethod
    def _check_conditions(conditions: dict[str, int], live: StoredObject | None, *, read: bool) -> bool:
        """Raise 412 for a failed precondition; True when a read's *NotMatch fails (304)."""
        generation = live.generation if live is not None else None
        metageneration = live.metageneration if live is not None else None
        for name, value in conditions.items():
            if name == "ifGenerationMatch":  # 0: only when no live object exists
                holds = live is None if value == 0 else generation == value
            elif name == "ifGenerationNotMatch":
                holds = live is not None if value == 0 else generation != value
            elif name == "ifMetagenerationMatch":
                holds = metageneration == value
            else:
                holds = metageneration != value
            if holds:
                continue
            if read and name.endswith("NotMatch"):
                return True  # as HTTP's If-None-Match: 304 on a read, 412 on a change
            # The real body names the If-Match header for every query-parameter precondition.
            raise ApiError(
                412,
                "conditionNotMet",
                "At least one of the pre-conditions you specified did not hold.",
                extra={"locationType": "header", "location": "If-Match"},
            )
        return False

    def _customer_key(self) -> tuple[bytes, str] | None:
        """The customer-supplied key of the request (key, base64 SHA-256), checked; None without one.

        The reasons are documented; the messages are the documented descriptions of those
        reasons (the real wording is not documented), with the link Google's testbench adds."""
        algorithm = self.headers.get("x-goog-encryption-algorithm")
        key_b64 = self.headers.get("x-goog-encryption-key")
        sha_b64 = self.headers.get("x-goog-encryption-key-sha256")
        if algorithm is None and key_b64 is None and sha_b64 is None:
            return None
        help_link = {"extendedHelp": CSEK_HELP}
        if algorithm != "AES256":
            # The documented description reads "AE256", a typo for the only algorithm there is.
            message = 'Missing an encryption algorithm, or the provided algorithm is not "AES256."'
            raise ApiError(400, "customerEncryptionAlgorithmIsInvalid", message, extra=help_link)
        try:
            key = base64.b64decode(key_b64 or "", validate=True)
        except ValueError:
            key = b""
        if len(key) != 32:
            raise ApiError(
                400,
                "customerEncryptionKeyFormatIsInvalid",
                "Missing an encryption key, or it is not Base64 encoded, or it does not meet the required length of the encryption algorithm.",
                extra=help_link,
            )
        try:
            sha = base64.b64decode(sha_b64 or "", validate=True)
        except ValueError:
            sha = b""
        if sha != hashlib.sha256(key).digest():
            raise ApiError(
                400,
                "customerEncryptionKeySha256IsInvalid",
                "Missing a SHA256 hash of the encryption key, or it is not Base64 encoded, or it does not match the encryption key.",
                extra=help_link,
            )
        return key, base64.b64encode(sha).decode()

    @staticmethod
    def _check_key(obj: StoredObject, key: tuple[bytes, str] | None, *, media: bool) -> None:
        if key is not None and obj.key_sha256 is None:
            # The reason is documented; this text is what clients' test fixtures hold, not documented.
            raise ApiError(400, "resourceNotEncryptedWithCustomerEncryptionKey", "The target object is not encrypted by a customer-supplied encryption key.")
        if key is None and obj.key_sha256 is not None and media:
            raise ApiError(400, "resourceIsEncryptedWithCustomerEncryptionKey", "The target object is encrypted by a customer-supplied encryption key.")
        if key is not None and key[1] != obj.key_sha256:
            raise ApiError(400, "customerEncryptionKeyIsIncorrect", "The provided encryption key is incorrect.")

    def _resource(self, bucket: Bucket, obj: StoredObject, *, hashes: bool) -> dict[str, t.Any]:
        """The object resource; without the key, an encrypted object's md5Hash and crc32c are
        left out, as the real API does (they are encrypted with the key)."""
        host = self.headers.get("Host") or self.server.address
        quoted = quote(obj.name, safe="")
        created = _rfc3339(obj.generation)
        resource: dict[str, t.Any] = {
            "kind": "storage#object",
            "id": f"{bucket.name}/{obj.name}/{obj.generation}",
            "selfLink": f"http://{host}/storage/v1/b/{bucket.name}/o/{quoted}",
            "mediaLink": f"http://{host}/download/storage/v1/b/{bucket.name}/o/{quoted}?generation={obj.generation}&alt=media",
            "name": obj.name,
            "bucket": bucket.name,
            "generation": str(obj.generation),
            "metageneration": str(obj.metageneration),
            "contentType": obj.content_type,
            "storageClass": "STANDARD",
            "size": str(obj.size),
        }
        if hashes:
            resource["md5Hash"] = obj.md5_hash
            resource["crc32c"] = obj.crc32c
        resource["etag"] = _object_etag(obj.generation, obj.metageneration)
        resource.update({"timeCreated": created, "updated": created, "timeStorageClassUpdated": created})
        if obj.key_sha256 is not None:
            resource["customerEncryption"] = {"encryptionAlgorithm": "AES256", "keySha256": obj.key_sha256}
        return resource

    def _upload(self, bucket: Bucket, query: dict[str, list[str]], raw: bytes, conditions: dict[str, int]) -> tuple[int, dict[str, t.Any]]:
        upload_type = (query.get("uploadType") or [""])[0]
        name: str | None = query["name"][0] if "name" in query else None
        content_type: str | None
        if upload_type == "media":
            content_type = self.headers.get("Content-Type")
            data = raw
        elif upload_type == "multipart":
            metadata, part_type, data = _parse_multipart(self.headers.get("Content-Type") or "", raw)
            body_name = metadata.get("name")
            if body_name is not None and not isinstance(body_name, str):
                raise ApiError(400, "invalid", "Invalid value for name.")  # the text is the emulator's own
            if name is not None and body_name is not None and name != body_name:
                # Documented for invalidParameter: a URL parameter and the same field of the body
                # must match when both are given. The text is the emulator's own.
                raise ApiError(400, "invalidParameter", "The name URL parameter does not match the name in the request body.")
            name = name or body_name
            content_type = metadata.get("contentType") or part_type
        elif not upload_type:
            raise ApiError(
                400,
                "wrongUrlForUpload",
                "Upload requests must include an uploadType URL parameter and a URL path beginning with /upload/",
                extra={"extendedHelp": "https://cloud.google.com/storage/docs/json_api/v1/how-tos/upload"},
            )
        else:
            # uploadType=resumable exists upstream but is not emulated; the text is the emulator's own.
            raise ApiError(400, "invalidParameter", f"Unsupported uploadType: {upload_type!r}.", extra={"locationType": "parameter", "location": "uploadType"})
        name = self._check_name(name)
        key = self._customer_key()
        self._check_conditions(conditions, bucket.objects.get(name), read=False)
        generation = self.server.state.next_generation()
        checksum = crc32c(data).to_bytes(4, "big")
        obj = StoredObject(
            name=name,
            generation=generation,
            data=data if key is None else _keystream_xor(data, key[0], generation),
            size=len(data),
            md5_hash=base64.b64encode(hashlib.md5(data).digest()).decode(),
            crc32c=base64.b64encode(checksum).decode(),
            content_type=content_type or "application/octet-stream",
            key_sha256=None if key is None else key[1],
        )
        bucket.objects[name] = obj
        return 200, self._resource(bucket, obj, hashes=True)

    def _single(
        self, bucket: Bucket, method: str, name: str, query: dict[str, list[str]], conditions: dict[str, int], *, media: bool
    ) -> tuple[int, dict[str, t.Any] | None] | Reply:
        name = self._check_name(name)
        alt = (query.get("alt") or ["json"])[0]
        if method == "GET" and alt not in ("json", "media"):
            raise ApiError(400, "invalidAltValue", f"Invalid value for alt: {alt!r}.")  # the text is the emulator's own
        generation = self._int_parameter(query, "generation") if "generation" in query else None
        key = self._customer_key() if method == "GET" else None  # deleting needs no key
        obj = bucket.objects.get(name)
        if obj is None or generation not in (None, obj.generation):
            raise ApiError(404, "notFound", f"No such object: {bucket.name}/{name}")
        if self._check_conditions(conditions, obj, read=method == "GET"):
            return Reply(304)
        if method == "DELETE":
            del bucket.objects[name]
            return 204, None
        self._check_key(obj, key, media=media)
        if not media:
            return 200, self._resource(bucket, obj, hashes=obj.key_sha256 is None or key is not None)
        headers = {
            "Content-Type": obj.content_type,
            "x-goog-generation": str(obj.generation),
            "x-goog-metageneration": str(obj.metageneration),
            "x-goog-hash": f"crc32c={obj.crc32c},md5={obj.md5_hash}",
            "x-goog-stored-content-length": str(obj.size),
            "x-goog-stored-content-encoding": "identity",
            "x-goog-storage-class": "STANDARD",
            # The value of ETag on a JSON media download is not documented; this is the etag.
            "ETag": f'"{_object_etag(obj.generation, obj.metageneration)}"',
        }
        data = obj.data
        if key is not None:
            data = _keystream_xor(obj.data, key[0], obj.generation)
            headers["x-goog-encryption-algorithm"] = "AES256"
            headers["x-goog-encryption-key-sha256"] = key[1]
        return Reply(200, data, headers)

    def _list(self, bucket: Bucket, query: dict[str, list[str]]) -> tuple[int, dict[str, t.Any]]:
        prefix = (query.get("prefix") or [""])[0]
        delimiter = (query.get("delimiter") or [""])[0]
        page_size = min(self._int_parameter(query, "maxResults"), 1000) if "maxResults" in query else 1000
        if page_size < 1:
            raise ApiError(400, "invalidParameter", "maxResults must be positive.", extra={"locationType": "parameter", "location": "maxResults"})
        after = ""
        if "pageToken" in query:
            try:
                after = base64.b64decode(query["pageToken"][0], altchars=b"-_", validate=True).decode()
            except ValueError:
                raise ApiError(400, "invalid", "Invalid page token.") from None  # the text is the emulator's own
        entries: list[tuple[str, StoredObject | None]] = []  # (name or prefix, object or None for a prefix)
        for name in sorted(bucket.objects):
            if not name.startswith(prefix) or name <= after or (after.endswith(delimiter) and delimiter and name.startswith(after)):
                continue
            cut = name.find(delimiter, len(prefix)) if delimiter else -1
            if cut >= 0:
                common = name[: cut + len(delimiter)]
                if not entries or entries[-1][0] != common:
                    entries.append((common, None))
            else:
                entries.append((name, bucket.objects[name]))
        page, rest = entries[:page_size], entries[page_size:]
        answer: dict[str, t.Any] = {"kind": "storage#objects"}
        if rest:
            answer["nextPageToken"] = base64.urlsafe_b64encode(page[-1][0].encode()).decode()
        prefixes = [entry for entry, obj in page if obj is None]
        if prefixes:
            answer["prefixes"] = prefixes
        items = [self._resource(bucket, obj, hashes=obj.key_sha256 is None) for _entry, obj in page if obj is not None]
        if items:
            answer["items"] = items
        return 200, answer

    def _token(self, raw: bytes) -> None:
        """The JWT bearer grant of a service account key: a JWT (three dot-separated parts) in, a token out."""
        state = self.server.state
        form = parse_qs(raw.decode("ascii", "replace"))
        grant = (form.get("grant_type") or [""])[0]
        assertion = (form.get("assertion") or [""])[0]
        if state.oauth_token is None:
            self._send(404, {"error": "not_found", "error_description": "no token endpoint (start with --oauth-token)"})
        elif grant != "urn:ietf:params:oauth:grant-type:jwt-bearer" or assertion.count(".") != 2:
            self._send(400, {"error": "invalid_grant", "error_description": "Invalid JWT bearer grant."})
        else:
            with state.lock:
                state.tokens[state.oauth_token] = "write"
            self._send(200, {"access_token": state.oauth_token, "expires_in": 3600, "token_type": "Bearer"})

    # -- control -----------------------------------------------------------------------

    def _control(self, method: str, path: str, raw: bytes) -> None:
        state = self.server.state
        try:
            data = json.loads(raw) if raw else {}
        except ValueError:
            self._send(400, {"error": "body is not JSON"})
            return
        with state.lock:
            if (method, path) == ("GET", "/_emulator/stats"):
                self._send(200, state.stats())
            elif (method, path) == ("POST", "/_emulator/stats/reset"):
                state.log.clear()
                self._send(200, state.stats())
            elif (method, path) == ("POST", "/_emulator/faults"):
                try:
                    state.faults.append(Fault(**data))
                except TypeError as exc:  # an unknown key
                    self._send(400, {"error": str(exc)})
                    return
                self._send(200, {"faults": [dataclasses.asdict(f) for f in state.faults]})
            elif (method, path) == ("DELETE", "/_emulator/faults"):
                state.faults.clear()
                self._send(200, {"faults": []})
            elif (method, path) == ("POST", "/_emulator/buckets"):
                bucket = state.buckets.setdefault(data["name"], Bucket(data["name"]))
                bucket.requester_pays = bool(data.get("requester_pays", bucket.requester_pays))
                self._send(200, {"name": bucket.name, "requester_pays": bucket.requester_pays})
            elif (method, path) == ("POST", "/_emulator/topics"):
                state.topics[data["topic"]] = bool(data.get("publisher", True))
                self._send(200, {"topics": state.topics})
            elif (method, path) == ("POST", "/_emulator/tokens"):
                state.tokens[data["token"]] = data.get("access", "write")
                self._send(200, {"tokens": len(state.tokens)})
            elif (method, path) == ("GET", "/_emulator/state"):
                # Objects are listed without their contents.
                buckets = {
                    name: {
                        "name": b.name,
                        "requester_pays": b.requester_pays,
                        "metageneration": b.metageneration,
                        "next_id": b.next_id,
                        "configs": list(b.configs.values()),
                        "objects": [
                            {"name": o.name, "generation": o.generation, "metageneration": o.metageneration, "size": o.size, "keySha256": o.key_sha256}
                            for o in sorted(b.objects.values(), key=lambda o: o.name)
                        ],
                    }
                    for name, b in state.buckets.items()
                }
                self._send(200, {"buckets": buckets, "topics": state.topics})
            elif (method, path) == ("POST", "/_emulator/shutdown"):
                self._send(200, {"stopping": True})
                threading.Thread(target=self.server.shutdown, daemon=True).start()
            else:
                self._send(404, {"error": f"no control endpoint {method} {path}"})


class EmulatorServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    state: State

    @property
    def address(self) -> str:
        """``host:port`` of the listening socket."""
        host = self.server_address[0]
        return f"{host.decode() if isinstance(host, bytes) else host}:{self.server_address[1]}"


class Emulator:
    """The server on a loopback address (port 0: a free port), run in a thread or in the foreground."""

    def __init__(self, state: State | None = None, *, host: str = "127.0.0.1", port: int = 0) -> None:
        if not ipaddress.ip_address(host).is_loopback:
            raise ValueError(f"the emulator listens on loopback addresses only, not {host}")
        self.state = state or State()
        self.server = EmulatorServer((host, port), Handler)
        self.server.state = self.state
        self.thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.server.address}"

    def start(self) -> Emulator:
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        if self.thread is not None:
            self.thread.join()

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Local emulator of the Cloud Storage notificationConfigs and objects APIs.")
    parser.add_argument("--host", default="127.0.0.1", help="a loopback address")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--port-file", help="write the port here once listening (written atomically)")
    parser.add_argument("--pid-file", help="write the process id here once listening")
    parser.add_argument("--token", action="append", default=[], help="a bearer token allowed to change configs")
    parser.add_argument("--read-token", action="append", default=[], help="a bearer token allowed to read only")
    parser.add_argument("--oauth-token", help="the access token POST /token issues to service account keys (write access)")
    parser.add_argument("--bucket", action="append", default=[], help="a bucket")
    parser.add_argument("--requester-pays-bucket", action="append", default=[], help="a requester-pays bucket")
    parser.add_argument("--topic", action="append", default=[], help="projects/P/topics/T the service agent may publish to")
    parser.add_argument("--forbidden-topic", action="append", default=[], help="projects/P/topics/T that exists without the publisher role")
    parser.add_argument("--billing-project", action="append", help="projects accepted as userProject (default: any)")
    parser.add_argument("--project-number", default="123456789012")
    parser.add_argument("--lifetime", type=float, default=0, help="stop after this many seconds (0: never), so a test run that dies leaves nothing behind")
    args = parser.parse_args(argv)

    state = State(
        project_number=args.project_number,
        billing_projects=set(args.billing_project) if args.billing_project else None,
        oauth_token=args.oauth_token,
    )
    state.tokens.update(dict.fromkeys(args.token, "write"))
    state.tokens.update(dict.fromkeys(args.read_token, "read"))
    for name in args.bucket:
        state.buckets[name] = Bucket(name)
    for name in args.requester_pays_bucket:
        state.buckets[name] = Bucket(name, requester_pays=True)
    state.topics.update(dict.fromkeys(args.topic, True))
    state.topics.update(dict.fromkeys(args.forbidden_topic, False))
    emulator = Emulator(state, host=args.host, port=args.port)
    if args.pid_file:
        with open(args.pid_file, "w", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()}\n")
    if args.port_file:  # last: its presence means "ready"
        tmp = f"{args.port_file}.tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(f"{emulator.server.server_address[1]}\n")
        os.replace(tmp, args.port_file)
    if args.lifetime > 0:
        timer = threading.Timer(args.lifetime, emulator.server.shutdown)
        timer.daemon = True
        timer.start()
    try:
        emulator.server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        emulator.server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
