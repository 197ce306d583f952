# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""HTTP to the Cloud Storage JSON API: endpoint, credentials on every request, retries, errors."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import random
import time
import traceback
import typing as t
from urllib.parse import quote, urlsplit

from ansible.module_utils.basic import env_fallback

from .errors import NOTIFICATION_HINTS, Hints, StorageAuthError, StorageTransportError, StorageValidationError, api_error, exception_facts, redact, safe_host
from .validation import check_line

try:
    import requests
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
    "REQUESTS_IMPORT_ERROR",
    "RETRYABLE_STATUS",
    "TRANSPORT_ARGSPEC",
    "RetryPolicy",
    "Transport",
    "base_url",
]

DEFAULT_ENDPOINT = "https://storage.googleapis.com"
EMULATOR_ENV = "STORAGE_EMULATOR_HOST"

# python-storage's retryable statuses (plus 408, which its resumable uploads retry too).
RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})

# Retried methods. POST (insert) never is: a retried insert can create a second config.
IDEMPOTENT_METHODS = frozenset({"GET", "DELETE"})

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
        self.session = requests.Session()
        self.session.headers["User-Agent"] = user_agent
        self.requests_sent = 0
        self.hints = hints

    def url(self, *segments: str) -> str:
        return self.base + "/".join(quote(segment, safe="") for segment in segments)

    def _authorise(self, method: str, url: str, headers: dict[str, str]) -> None:
        if self.credentials is None:
            return
        try:
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
            error = redact(" ".join(str(body["error"]).split()))[:100]
            description = redact(" ".join(str(body.get("error_description") or "").split()))[:300]
            return f"{error}{f': {description}' if description else ''} ({type(exc).__name__}{where})"
        return f"{exception_facts(exc)}{where}"

    def _refresh_request(self) -> t.Any:
        """google-auth's HTTP adapter for token refreshes, imported only when a refresh is due
        (an access token never needs one, and the import is slow)."""
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
            decoded = response.json()
        except ValueError:
            raise StorageTransportError(f"{operation}: HTTP {response.status_code} with a body that is not JSON from {self.base}") from None
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
    ) -> requests.Response:
        """Send one request, retried when ``idempotent`` (default: GET and DELETE; a conditional
        write is idempotent too), and return the response. An error status raises
        StorageApiError with the API's message, unless it is in ``accept``."""
        idempotent = method in IDEMPOTENT_METHODS if idempotent is None else idempotent
        retries = self.retry.retries if idempotent else 0
        attempt = 0
        while True:
            sent_headers = dict(headers or {})
            self._authorise(method, url, sent_headers)
            self.requests_sent += 1
            try:
                response = self.session.request(method, url, params=params, data=data, headers=sent_headers, timeout=self.timeout)
            except (requests.ConnectionError, requests.Timeout) as exc:
                if attempt < retries:
                    self.sleep(self.retry.delay(attempt))
                    attempt += 1
                    continue
                raise StorageTransportError(self._transport_message(idempotent, operation, exc, attempt)) from None
            except (requests.RequestException, ValueError) as exc:
                # The request could not be built or sent (an invalid header value, a URL
                # requests refuses): its text holds the header, token included, or the URL.
                raise StorageTransportError(f"{operation}: the request could not be sent to {self.base} ({exception_facts(exc)})") from None
            if response.status_code in RETRYABLE_STATUS and attempt < retries:
                self.sleep(self.retry.delay(attempt, response.headers.get("Retry-After")))
                attempt += 1
                continue
            if response.status_code >= 400 and response.status_code not in accept:
                error = api_error(operation=operation, status=response.status_code, body=response.text, hints=self.hints)
                if attempt:
                    error.args = (f"{error.args[0]} (after {attempt + 1} attempts)",)
                raise error
            return response

    def _transport_message(self, idempotent: bool, operation: str, exc: Exception, attempt: int) -> str:
        kind = "timed out" if isinstance(exc, requests.Timeout) else "connection failed"
        text = f"{operation}: {kind} ({self.base}, {type(exc).__name__}) after {attempt + 1} attempt{'s' if attempt else ''}"
        if not idempotent:
            # Not retried: the server may have created the config before the answer was lost.
            text += "; the insert may have been applied: run the task again, it finds the config by its content"
        return text
