# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""HTTP to the Cloud Storage JSON API: endpoint, credentials on every request, retries, errors.

The endpoint, or anything between, may be hostile (``api_endpoint`` and STORAGE_EMULATOR_HOST
are plain settings; a proxy may answer in its place), so what a server can make a task do is
bounded here, for every caller (the storage modules and the gs:// workspace state):

- no redirect is ever followed, by our requests or by google-auth's token refresh through the
  same session: a redirect would carry the bearer token, the customer-supplied encryption key
  and an uploaded body (the workspace state, with its tokens) to a host of the server's choice;
- one attempt takes at most ``timeout`` seconds in all (connect, headers, body), however
  slowly the server sends its bytes;
- an answer is read up to a size (a JSON answer, an error body, a state object), never whole;
- server text reaches a message escaped and shortened (_common.text.printable), and a JSON
  body nested too deeply is a clean error;
- ``~/.netrc`` is never read (it would replace the bearer token with its password).

Proxies and CA bundles from the environment (HTTPS_PROXY, NO_PROXY, REQUESTS_CA_BUNDLE) are
honoured, as requests and google-cloud-storage do: an HTTPS request reaches its host through a
proxy's tunnel, a plain http:// one is read by the proxy (see plaintext_warning)."""

from __future__ import annotations

import contextlib
import dataclasses
import ipaddress
import json
import random
import socket
import threading
import time
import traceback
import typing as t
from urllib.parse import quote, urlsplit

from ansible.module_utils.basic import env_fallback

from .._common.addresses import unmapped
from .._common.text import printable
from .errors import (
    NOTIFICATION_HINTS,
    Hints,
    StorageApiError,
    StorageAuthError,
    StorageError,
    StorageTransportError,
    StorageValidationError,
    api_error,
    exception_facts,
    redact,
    safe_host,
)
from .validation import check_line

try:
    import requests
    import requests.adapters
    import requests.auth
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
except ImportError:
    HAS_REQUESTS = False
    REQUESTS_IMPORT_ERROR: str | None = traceback.format_exc()
else:
    HAS_REQUESTS = True
    REQUESTS_IMPORT_ERROR = None

with contextlib.suppress(ImportError):  # reported by auth.HAS_GOOGLE_AUTH
    import google.auth.exceptions

__all__ = [
    "DEFAULT_ENDPOINT",
    "EMULATOR_ENV",
    "HAS_REQUESTS",
    "MAX_ANSWER_BYTES",
    "MAX_ERROR_BYTES",
    "REQUESTS_IMPORT_ERROR",
    "RETRYABLE_STATUS",
    "TRANSPORT_ARGSPEC",
    "Answer",
    "RetryPolicy",
    "Transport",
    "base_url",
    "plaintext_warning",
]

DEFAULT_ENDPOINT = "https://storage.googleapis.com"
EMULATOR_ENV = "STORAGE_EMULATOR_HOST"

# python-storage's retryable statuses (plus 408, which its resumable uploads retry too).
RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})

# Retried methods. POST (insert) never is: a retried insert can create a second config.
IDEMPOTENT_METHODS = frozenset({"GET", "DELETE"})

# The most of an answer that is read: a JSON answer of the API (a bucket's 100 configs are
# about 100 KiB), and an error body (only its start is ever shown).
MAX_ANSWER_BYTES = 4 << 20
MAX_ERROR_BYTES = 64 << 10
_CHUNK_BYTES = 64 << 10

TRANSPORT_ARGSPEC: dict[str, dict[str, t.Any]] = {
    "api_endpoint": {"type": "str", "fallback": (env_fallback, [EMULATOR_ENV])},
    "timeout": {"type": "float", "default": 60.0},
    "retries": {"type": "int", "default": 3},
}


def base_url(api_endpoint: str | None) -> str:
    """``<scheme>://<host>[:port]/storage/v1/`` from the option (or STORAGE_EMULATOR_HOST,
    which python-storage reads with or without a scheme), else the public endpoint."""
    endpoint = check_line("api_endpoint", (api_endpoint or "").strip(), shown=False) or DEFAULT_ENDPOINT
    if "://" not in endpoint:
        endpoint = f"http://{endpoint}"
    scheme = endpoint.split("://", 1)[0].lower()
    # The URL itself is never repeated: it may carry a password.
    if scheme not in ("http", "https"):
        raise StorageValidationError("api_endpoint: must be an http:// or https:// URL")
    try:
        parts = urlsplit(endpoint)
        _port = parts.port
    except ValueError:
        raise StorageValidationError("api_endpoint: is not a URL (its host or port cannot be read)") from None
    if "@" in parts.netloc:
        # requests would send them as Basic auth in place of the configured credentials.
        raise StorageValidationError("api_endpoint: must not carry user:password@ (credentials come from auth_kind)")
    if not parts.hostname or parts.query or parts.fragment or " " in endpoint:
        raise StorageValidationError("api_endpoint: must be scheme://host[:port][/path], without spaces, query or fragment")
    endpoint = endpoint.rstrip("/")
    if not endpoint.endswith("/storage/v1"):
        endpoint += "/storage/v1"
    return endpoint + "/"


def _is_loopback(host: str) -> bool:
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return unmapped(address).is_loopback  # ::ffff:127.0.0.1 too


def plaintext_warning(api_endpoint: str | None, *, carries: str) -> str | None:
    """The warning for a plain http:// endpoint that is not on this host (127.0.0.0/8, ::1,
    localhost), else None (also for an endpoint base_url refuses: that error comes later).
    ``carries`` says what travels: "the bearer token and the notification configs"."""
    try:
        base = base_url(api_endpoint)
    except StorageError:
        return None
    parts = urlsplit(base)
    if parts.scheme != "http" or _is_loopback(parts.hostname or ""):
        return None
    return (
        f"api_endpoint (or {EMULATOR_ENV}) is the plain HTTP URL {safe_host(base)}, which is not a loopback address: "
        f"{carries} travel in clear, readable and changeable on the way; use an https:// URL"
    )


@dataclasses.dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with full jitter, as google-api-core does: 1 s, 2 s, 4 s... (at most
    ``maximum``); a ``Retry-After`` of a 429/503 answer is honoured up to the same bound."""

    retries: int = 3
    initial: float = 1.0
    multiplier: float = 2.0
    maximum: float = 30.0

    def delay(self, attempt: int, retry_after: str | None = None) -> float:
        if retry_after is not None:
            try:
                return min(max(float(retry_after), 0.0), self.maximum)
            except ValueError:
                pass  # an HTTP date: fall back to the computed backoff
        ceiling = min(self.initial * self.multiplier**attempt, self.maximum)
        return random.uniform(ceiling / 2, ceiling)  # jitter, not cryptography


# -- the session: no redirects, no .netrc, a total deadline per attempt --------------------------

# The deadline of the request in flight on this thread (a Transport is used by one thread at a time).
_IN_FLIGHT = threading.local()


class _Deadline:
    """The total time of one attempt. A read timeout alone bounds each read, not the request: a
    server sending one byte per read timeout (in the headers or the body) would hold a task for
    hours. When the time is up, the socket of the request in flight is shut down, which ends
    the blocked read at once; the request then fails and ``fired`` tells why."""

    def __init__(self, seconds: float) -> None:
        self.expires = time.monotonic() + seconds
        self.fired = False
        self._done = False
        self._socket: t.Any = None
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def __enter__(self) -> _Deadline:
        _IN_FLIGHT.deadline = self
        self._arm(self.remaining())
        return self

    def __exit__(self, *exc: object) -> None:
        _IN_FLIGHT.deadline = None
        with self._lock:
            self._done = True
            timer = self._timer
        if timer is not None:
            timer.cancel()

    def remaining(self) -> float:
        return max(self.expires - time.monotonic(), 0.0)

    def expired(self) -> bool:
        return self.fired or time.monotonic() >= self.expires

    def attach(self, sock: t.Any) -> None:
        """The socket a request of this attempt goes out on: kept here, since http.client lets
        go of it (``sock = None``) once it has read the headers of an answer that closes it."""
        with self._lock:
            self._socket = sock
            fired = self.fired
        if fired:
            self._shut()

    def _arm(self, delay: float) -> None:
        timer = threading.Timer(delay, self._fire)
        timer.daemon = True
        with self._lock:
            if self._done:
                return
            self._timer = timer
        timer.start()

    def _fire(self) -> None:
        with self._lock:
            if self._done:
                return
            self.fired = True
        if not self._shut():
            # Still connecting, which the connect timeout (what remained) ends anyway.
            self._arm(0.05)

    def _shut(self) -> bool:
        sock = getattr(self._socket, "socket", self._socket)  # TLS inside a proxy's TLS: urllib3's SSLTransport
        if not isinstance(sock, socket.socket):
            return False
        # socket.socket's own shutdown, not SSLSocket's, which drops its TLS object first.
        with contextlib.suppress(OSError):
            socket.socket.shutdown(sock, socket.SHUT_RDWR)
        return True


def _attach(sock: t.Any) -> None:
    deadline = getattr(_IN_FLIGHT, "deadline", None)
    if deadline is not None and sock is not None:
        deadline.attach(sock)


if HAS_REQUESTS:

    def _watched(pool_class: type[HTTPConnectionPool]) -> type[HTTPConnectionPool]:
        """``pool_class`` whose sockets the deadline in flight sees: a new connection's once
        connected, a reused one's when the pool hands it out."""

        class WatchedConnection(pool_class.ConnectionCls):  # type: ignore[name-defined,misc]
            def connect(self) -> None:
                super().connect()
                _attach(self.sock)

        class Watched(pool_class):  # type: ignore[valid-type,misc]
            ConnectionCls = WatchedConnection

            def _get_conn(self, timeout: float | None = None) -> t.Any:
                connection = super()._get_conn(timeout)
                _attach(getattr(connection, "sock", None))
                return connection

        return Watched

    _WATCHED_POOLS = {"http": _watched(HTTPConnectionPool), "https": _watched(HTTPSConnectionPool)}

    class _Adapter(requests.adapters.HTTPAdapter):
        """requests' adapter, whose connections the deadline of the attempt can shut down
        (direct, or through an HTTP proxy; a SOCKS proxy's read timeouts still apply)."""

        def init_poolmanager(self, *args: t.Any, **kwargs: t.Any) -> None:
            super().init_poolmanager(*args, **kwargs)
            self.poolmanager.pool_classes_by_scheme = _WATCHED_POOLS

        def proxy_manager_for(self, proxy: str, **proxy_kwargs: t.Any) -> t.Any:
            manager = super().proxy_manager_for(proxy, **proxy_kwargs)
            if not proxy.lower().startswith("socks"):
                manager.pool_classes_by_scheme = _WATCHED_POOLS
            return manager

    class _KeepOwnAuth(requests.auth.AuthBase):
        """Session auth that changes nothing: with it set, requests never reads ``~/.netrc``
        (or $NETRC), whose password for the endpoint's host would replace the bearer token
        in the Authorization header."""

        def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
            return request

    class _Session(requests.Session):
        """A session that never follows a redirect, whoever sends through it (our requests,
        google-auth's token refresh and metadata server requests): the 3xx answer is
        returned as it is."""

        def __init__(self) -> None:
            super().__init__()
            self.max_redirects = 0  # were a redirect followed anyway, requests raises instead
            self.auth = _KeepOwnAuth()
            adapter = _Adapter()
            self.mount("https://", adapter)
            self.mount("http://", adapter)

        def get_redirect_target(self, resp: requests.Response) -> str | None:
            return None


@dataclasses.dataclass(frozen=True)
class Answer:
    """An answer whose body was read, up to a bound."""

    status_code: int
    headers: t.Mapping[str, str]
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")


class _TooLargeError(Exception):
    pass


class _ExpiredError(Exception):
    """The attempt's total time is up (the answer, if any, may be cut short)."""


def _size(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit >= 1 << 20 and not limit % (1 << 20) else f"{limit} bytes"


class Transport:
    """One authorised requests session to the JSON API. Credentials are sent to whatever
    endpoint is configured: an emulator may check them (ours does)."""

    def __init__(
        self,
        *,
        credentials: t.Any,
        api_endpoint: str | None,
        timeout: float,
        retry: RetryPolicy,
        user_agent: str,
        sleep: t.Callable[[float], None] = time.sleep,
        hints: Hints = NOTIFICATION_HINTS,
    ) -> None:
        if timeout <= 0:
            raise StorageValidationError(f"timeout: must be a positive number of seconds, got {timeout}")
        if retry.retries < 0:
            raise StorageValidationError(f"retries: must be 0 or more, got {retry.retries}")
        # Safe in messages: base_url refuses a user:password, a query and control characters.
        self.base = base_url(api_endpoint)
        self.credentials = credentials
        self.timeout = timeout
        self.retry = retry
        self.sleep = sleep
        self.session = _Session()
        self.session.headers["User-Agent"] = user_agent
        self.requests_sent = 0
        self.hints = hints

    def url(self, *segments: str) -> str:
        return self.base + "/".join(quote(segment, safe="") for segment in segments)

    def _authorise(self, method: str, url: str, headers: dict[str, str]) -> None:
        if self.credentials is None:
            return
        try:
            with _Deadline(self.timeout):  # a token refresh gets the same total time as a request
                self.credentials.before_request(self._refresh_request(), method, url, headers)
        except google.auth.exceptions.GoogleAuthError as exc:
            raise StorageAuthError(f"Cannot obtain an access token: {self._refresh_failure(exc)}") from None

    def _refresh_failure(self, exc: Exception) -> str:
        """The token endpoint's error and error_description from its JSON body (google-auth
        passes the decoded body as the second argument), else the exception's class and the
        endpoint's host: the text of google-auth's exceptions holds the raw answer or the
        transport's message, which may echo the signed assertion or a URL."""
        token_uri = getattr(self.credentials, "_token_uri", None)
        where = f" from {safe_host(token_uri)}" if isinstance(token_uri, str) else ""
        body = exc.args[1] if len(exc.args) > 1 and isinstance(exc.args[1], dict) else None
        if body is not None and body.get("error"):
            error = printable(redact(" ".join(str(body["error"]).split())), 100)
            description = printable(redact(" ".join(str(body.get("error_description") or "").split())), 300)
            return f"{error}{f': {description}' if description else ''} ({type(exc).__name__}{where})"
        return f"{exception_facts(exc)}{where}"

    def _refresh_request(self) -> t.Any:
        """google-auth's HTTP adapter for token refreshes, imported only when a refresh is due
        (an access token never needs one, and the import is slow). It sends through this
        session, so it follows no redirect either."""
        if getattr(self.credentials, "valid", False):
            return None
        from google.auth.transport import requests as auth_requests  # noqa: PLC0415

        return auth_requests.Request(self.session)

    def upload_url(self, *segments: str) -> str:
        """The media upload endpoint: ``<endpoint>/upload/storage/v1/...``."""
        return self.base[: -len("storage/v1/")] + "upload/storage/v1/" + "/".join(quote(segment, safe="") for segment in segments)

    def request(
        self,
        method: str,
        segments: t.Sequence[str],
        *,
        operation: str,
        params: dict[str, str] | None = None,
        body: dict[str, t.Any] | None = None,
    ) -> dict[str, t.Any] | None:
        """Send one API call (retrying GET and DELETE) and return the decoded JSON body,
        ``None`` for an empty answer (204). Errors raise StorageApiError with the API's message."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        response = self.send(method, self.url(*segments), operation=operation, params=params, headers=headers, data=data)
        if not response.content:
            return None
        try:
            decoded = json.loads(response.content)
        except ValueError:
            raise StorageTransportError(f"{operation}: HTTP {response.status_code} with a body that is not JSON from {self.base}") from None
        except RecursionError:
            raise StorageTransportError(f"{operation}: HTTP {response.status_code} with a JSON body nested too deeply from {self.base}") from None
        if not isinstance(decoded, dict):
            raise StorageTransportError(f"{operation}: HTTP {response.status_code} with a JSON body that is not an object from {self.base}")
        return decoded

    def send(
        self,
        method: str,
        url: str,
        *,
        operation: str,
        params: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        data: bytes | None = None,
        idempotent: bool | None = None,
        accept: t.Collection[int] = (),
        limit: int = MAX_ANSWER_BYTES,
        what: str = "the answer",
    ) -> Answer:
        """Send one request, retried when ``idempotent`` (default: GET and DELETE; a conditional
        write is idempotent too), and return the answer, its body read up to ``limit`` bytes
        (more is an error naming ``what``). An error status raises StorageApiError with the
        API's message, unless it is in ``accept`` (its body is read up to MAX_ERROR_BYTES);
        a redirect is never followed, it raises StorageApiError."""
        idempotent = method in IDEMPOTENT_METHODS if idempotent is None else idempotent
        retries = self.retry.retries if idempotent else 0
        attempt = 0
        while True:
            sent_headers = dict(headers or {})
            self._authorise(method, url, sent_headers)
            self.requests_sent += 1
            with _Deadline(self.timeout) as deadline:
                try:
                    answer = self._exchange(method, url, params=params, headers=sent_headers, data=data, deadline=deadline, limit=limit)
                except (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError, _ExpiredError) as exc:
                    # A read the deadline ended fails as a dropped connection: it is a timeout.
                    failure: Exception | None = _ExpiredError() if deadline.fired else exc
                except _TooLargeError:
                    raise StorageTransportError(
                        f"{operation}: {what} is larger than {_size(limit)} (HTTP answer from {self.base}); it was not read further"
                    ) from None
                except (requests.RequestException, ValueError) as exc:
                    # The request could not be built or sent (an invalid header value, a URL
                    # requests refuses): its text holds the header, token included, or the URL.
                    raise StorageTransportError(f"{operation}: the request could not be sent to {self.base} ({exception_facts(exc)})") from None
                else:
                    failure = None
            if failure is not None:
                if attempt < retries:
                    self.sleep(self.retry.delay(attempt))
                    attempt += 1
                    continue
                raise StorageTransportError(self._transport_message(idempotent, operation, failure, attempt))
            if 300 <= answer.status_code < 400 and answer.status_code != 304:
                raise self._redirect_error(operation, answer)
            if answer.status_code in RETRYABLE_STATUS and attempt < retries:
                self.sleep(self.retry.delay(attempt, answer.headers.get("Retry-After")))
                attempt += 1
                continue
            if answer.status_code >= 400 and answer.status_code not in accept:
                error = api_error(operation=operation, status=answer.status_code, body=answer.text, hints=self.hints)
                if attempt:
                    error.args = (f"{error.args[0]} (after {attempt + 1} attempts)",)
                raise error
            return answer

    def _exchange(
        self,
        method: str,
        url: str,
        *,
        params: dict[str, str] | None,
        headers: dict[str, str],
        data: bytes | None,
        deadline: _Deadline,
        limit: int,
    ) -> Answer:
        """One request and its answer, within ``deadline``; the body of an error status is read
        up to MAX_ERROR_BYTES (the rest is dropped), any other up to ``limit`` (_TooLargeError)."""
        remaining = max(deadline.remaining(), 0.001)
        response = self.session.request(
            method, url, params=params, data=data, headers=headers, timeout=(remaining, remaining), allow_redirects=False, stream=True
        )
        with contextlib.closing(response):
            status = response.status_code
            if 300 <= status < 400 and status != 304:
                return Answer(status, response.headers, b"")  # nothing of it is needed
            error = status >= 400
            bound = MAX_ERROR_BYTES if error else limit
            length = response.headers.get("Content-Length", "")
            if not error and length.isdigit() and int(length) > bound:
                raise _TooLargeError
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_content(_CHUNK_BYTES):
                if deadline.expired():
                    raise _ExpiredError
                chunks.append(chunk)
                size += len(chunk)
                if size > bound:
                    if error:
                        break
                    raise _TooLargeError
            if deadline.fired:
                raise _ExpiredError  # the end of the body may be the deadline's shutdown, not the server's
            content = b"".join(chunks)
            return Answer(status, response.headers, content[:bound])

    def _redirect_error(self, operation: str, answer: Answer) -> StorageApiError:
        """A 3xx answer as an error naming its status and the Location's host (never the URL,
        whose query may hold a token)."""
        location = answer.headers.get("Location")
        try:
            host = urlsplit(location).hostname if location else None
        except ValueError:
            host = "an address that is not a URL"
        if not location:
            where = "nowhere (no Location)"
        elif host:
            where = printable(host, 100)
        else:
            where = f"another path of {safe_host(self.base)}"
        text = (
            f"{operation}: HTTP {answer.status_code}: the endpoint redirected to {where}; redirects are never followed "
            f"(they would carry the credentials elsewhere): check api_endpoint (or {EMULATOR_ENV}), it is {safe_host(self.base)}"
        )
        return StorageApiError(text, status=answer.status_code, reason="redirect", api_message="")

    def _transport_message(self, idempotent: bool, operation: str, exc: Exception, attempt: int) -> str:
        if isinstance(exc, _ExpiredError):
            text = f"{operation}: timed out ({self.base}, no complete answer within timeout={self.timeout:g} s)"
        else:
            kind = "timed out" if isinstance(exc, requests.Timeout) else "connection failed"
            text = f"{operation}: {kind} ({self.base}, {type(exc).__name__})"
        text += f" after {attempt + 1} attempt{'s' if attempt else ''}"
        if not idempotent:
            # Not retried: the server may have created the config before the answer was lost.
            text += "; the insert may have been applied: run the task again, it finds the config by its content"
        return text
