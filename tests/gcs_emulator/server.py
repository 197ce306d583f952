# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A local emulator of the Cloud Storage JSON API v1 ``notificationConfigs`` resource
(insert, get, list, delete), standard library only, listening on loopback addresses only.

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
  GET  /_emulator/state
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
from urllib.parse import parse_qs, unquote, urlsplit

__all__ = ["Bucket", "Emulator", "Fault", "State", "main", "valid_bucket_name"]

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


_ROUTE = re.compile(r"/storage/v1/b/(?P<bucket>[^/]+)/notificationConfigs(?:/(?P<id>[^/]+))?/?")


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
class Bucket:
    name: str
    requester_pays: bool = False
    metageneration: int = 1
    next_id: int = 1
    configs: dict[str, dict[str, t.Any]] = dataclasses.field(default_factory=dict)


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

    @property
    def service_agent(self) -> str:
        return f"service-{self.project_number}@gs-project-accounts.iam.gserviceaccount.com"

    def stats(self) -> dict[str, t.Any]:
        by_method: dict[str, int] = {}
        for entry in self.log:
            by_method[entry["method"]] = by_method.get(entry["method"], 0) + 1
        return {"requests": len(self.log), "by_method": by_method, "log": list(self.log)}


def _denied(principal: str, permission: str) -> str:
    return (
        f"{principal} does not have {permission} access to the Google Cloud Storage bucket. Permission '{permission}' denied on resource (or it may not exist)."
    )


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
        try:
            if fault is not None and not fault.delay:
                headers = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
                raise ApiError(fault.status, fault.reason, fault.message, headers=headers)
            with state.lock:
                status, body = self._api(method, url.path, parse_qs(url.query), raw)
            entry["status"] = status
            self._send(status, body)
        except ApiError as exc:
            entry["status"] = exc.status
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

    def _api(self, method: str, path: str, query: dict[str, list[str]], raw: bytes) -> tuple[int, dict[str, t.Any] | None]:
        state = self.server.state
        route = _ROUTE.fullmatch(path)
        if route is None:
            raise ApiError(404, "notFound", "Not Found")
        changes = method in ("POST", "DELETE", "PUT", "PATCH")
        permission = "storage.buckets.update" if changes else "storage.buckets.get"
        access = self._authenticate(permission)
        name = unquote(route.group("bucket"))
        if not valid_bucket_name(name):
            # The status and reason are the API's; the text is the emulator's own.
            raise ApiError(400, "invalid", f"Invalid bucket name: {name!r}")
        bucket = state.buckets.get(name)
        if bucket is None:
            raise ApiError(404, "notFound", "The specified bucket does not exist.")
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

    def _authenticate(self, permission: str) -> str:
        header = self.headers.get("Authorization") or ""
        if not header:
            raise ApiError(
                401,
                "required",
                _denied("Anonymous caller", permission),
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
                buckets = {name: {**dataclasses.asdict(b), "configs": list(b.configs.values())} for name, b in state.buckets.items()}
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
    parser = argparse.ArgumentParser(description="Local emulator of the Cloud Storage notificationConfigs API.")
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
