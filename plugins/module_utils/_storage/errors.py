# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The storage family's exceptions, and the one place the API's error bodies are read."""

from __future__ import annotations

import json
import re
import typing as t
from urllib.parse import urlsplit

from .._common.text import printable

__all__ = [
    "NOTIFICATION_HINTS",
    "Hints",
    "StorageApiError",
    "StorageAuthError",
    "StorageError",
    "StorageNotFoundError",
    "StorageTransportError",
    "StorageValidationError",
    "api_error",
    "exception_facts",
    "parse_error_body",
    "redact",
    "safe_host",
]


class StorageError(Exception):
    """Base class: the message is ready to be shown to the user as it is."""


class StorageValidationError(StorageError):
    """User input is invalid; raised before any request is sent."""


class StorageAuthError(StorageError):
    """No credentials could be obtained for the chosen auth_kind."""


class StorageTransportError(StorageError):
    """The server could not be reached, or did not answer in time, after every retry."""


class StorageApiError(StorageError):
    """The API answered with an error status; carries the status and the API's own message."""

    def __init__(self, message: str, *, status: int, reason: str | None, api_message: str) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.api_message = api_message


class StorageNotFoundError(StorageApiError):
    """HTTP 404: the bucket or the notification config does not exist."""


# Credentials a server, proxy or library may echo in a text: an Authorization header's value,
# a PEM key, a JWT (a signed assertion can be exchanged for a token), a secret query or form
# (form/query) or JSON field, the user:password of a URL. Not "option: text": messages name
# options that way.
_REDACTIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"-----BEGIN [A-Z ]*-----.*?(?:-----END [A-Z ]*-----|$)", re.DOTALL), "<redacted key>"),
    (re.compile(r"(?i)\b(bearer|basic)(\s+)[^\s'\",;)}\]]+"), r"\1\2<redacted>"),
    (re.compile(r"eyJ[\w\-]+\.[\w\-]+\.[\w\-]*"), "<redacted JWT>"),
    (
        re.compile(r"(?i)\b(access_token|refresh_token|id_token|assertion|client_secret|private_key(?:_id)?|password)(=|[\"']\s*:\s*[\"']?)[^&\s'\",;}]+"),
        r"\1\2<redacted>",
    ),
    (re.compile(r"(?i)\b((?:api_)?key=)[^&\s'\"]+"), r"\1<redacted>"),
    (re.compile(r"(//)[^/@\s]+@"), r"\1<redacted>@"),
)


def redact(text: str, secrets: t.Iterable[str] = ()) -> str:
    """``text`` without any of ``secrets`` (each long enough to be one) and without what looks
    like a credential."""
    for secret in sorted((s for s in secrets if s and len(s) >= 4), key=len, reverse=True):
        text = text.replace(secret, "<redacted>")
    for pattern, replacement in _REDACTIONS:
        text = pattern.sub(replacement, text)
    return text


def safe_host(url: str) -> str:
    """``scheme://host[:port]`` of ``url``: no user:password, path or query in a message."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or "?"
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "?"
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme or 'http'}://{host}{port}"


def exception_facts(exc: BaseException) -> str:
    """What a lower layer's exception may say in a message: its class, and the class of what
    caused it. Never its text: requests and urllib3 put header values (the token) and URLs
    in it."""
    cause = exc.__cause__ or exc.__context__
    return type(exc).__name__ + (f" from {type(cause).__name__}" if cause is not None else "")


def parse_error_body(text: str) -> tuple[str | None, str]:
    """The first ``reason`` and the ``message`` of the API's error body
    ``{"error": {"code", "message", "errors": [{"message", "domain", "reason"}]}}``;
    a body of another shape (a proxy's HTML page) is returned as the message. Either is
    shortened, without what looks like a credential, and with every control, line-breaking and
    bidirectional character escaped (the server may be hostile: no terminal escape sequence,
    no line of its own in a log)."""
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested too deeply to be the API's
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        errors = error.get("errors")
        first = errors[0] if isinstance(errors, list) and errors and isinstance(errors[0], dict) else {}
        reason = first.get("reason")
        message = error.get("message") or first.get("message") or ""
        return (printable(redact(str(reason)), 100) if reason else None), printable(redact(str(message)), 300)
    return None, printable(redact(" ".join(text.split())), 300)


# What the user can change: (status or None for any, text the API's message contains or "",
# hint), first match wins. The API's message comes first; a hint only names the option to look at.
Hints = tuple[tuple[t.Optional[int], str, str], ...]
NOTIFICATION_HINTS: Hints = (
    (401, "", "Check auth_kind and its credentials (access_token, service_account_file, service_account_contents)."),
    (
        403,
        "permission to publish messages",
        "The bucket's Cloud Storage service agent must hold roles/pubsub.publisher on the topic, and the topic must exist: check topic and project.",
    ),
    (403, "scope", "The credentials lack an OAuth scope: set scopes to include https://www.googleapis.com/auth/devstorage.read_write."),
    (403, "", "The caller lacks permission on the bucket (storage.buckets.update to change notifications, storage.buckets.get to read them)."),
    (None, "requester pays", "Set user_project to a project to bill for requests to this bucket."),
    (None, "user project", "Set user_project to a project to bill for requests to this bucket."),
    (404, "", "Check bucket (and notification_id)."),
    (400, "", "Check topic, payload_format, event_types, custom_attributes and object_name_prefix."),
    (409, "", "Another change to the bucket's notifications happened at the same time: run the task again."),
)


def _hint(status: int, message: str, hints: Hints) -> str:
    lowered = message.lower()
    for hint_status, needle, hint in hints:
        if hint_status in (None, status) and needle in lowered:
            return hint
    return ""


def api_error(*, operation: str, status: int, body: str, hints: Hints = NOTIFICATION_HINTS) -> StorageApiError:
    """The exception for an error response: ``<operation>: HTTP <status> (<reason>): <API message> <hint>``."""
    reason, message = parse_error_body(body)
    text = f"{operation}: HTTP {status}{f' ({reason})' if reason else ''}: {message or 'no message'}"
    hint = _hint(status, message, hints)
    if hint:
        text = f"{text} {hint}"
    error_class: type[StorageApiError] = StorageNotFoundError if status == 404 else StorageApiError
    return error_class(text, status=status, reason=reason, api_message=message)
