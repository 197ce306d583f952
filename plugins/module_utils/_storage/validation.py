# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Input checks every storage option passes before anything is sent: names that go into a URL
path (bucket, notification id) follow the API's own rules, so no HTTP stack can normalise them
into another path; single-line options hold no control characters; secrets are stripped and
checked without ever being repeated in a message."""

from __future__ import annotations

import ipaddress
import re
import typing as t
from urllib.parse import unquote

from .._common.text import one_line_problem
from .errors import StorageValidationError
from .topic import PROJECT_ID

__all__ = [
    "MAX_OBJECT_NAME_BYTES",
    "check_bucket",
    "check_line",
    "check_notification_id",
    "check_object_name_prefix",
    "check_options",
    "check_user_project",
    "clean_secret",
    "option_path",
    "show",
]

# Object names are 1-1024 bytes of UTF-8 (Cloud Storage's object naming rules); a longer
# prefix can match no object.
MAX_OBJECT_NAME_BYTES = 1024

# Cloud Storage's bucket naming rules: lower-case letters, digits, - _ and . only; starting and
# ending with a letter or digit; 3-63 characters, or up to 222 with dots where each
# dot-separated part has at most 63; not an IPv4 address in dotted-decimal form; not starting
# with "goog". The rule against "google" anywhere in the name came later and names a fuzzy
# set ("close misspellings"); older buckets may carry it, so it is not checked here.
_BUCKET = re.compile(r"[a-z0-9](?:[a-z0-9_.\-]*[a-z0-9])?")
_BUCKET_RULES = "3-63 lower-case letters, digits, - _ and . (up to 222 with dots, 63 between dots), starting and ending with a letter or digit"

# Notification config ids are decimal strings on Cloud Storage itself, but other servers of the
# API give others (Google's storage-testbench: notification-<hex>). An id is one path segment,
# percent-encoded whole; what would still change the request path is refused: ., .., a /, or
# the same once percent-decoded (a proxy or server that decodes before routing). 1024 bytes is
# far more than any server's id.
_MAX_NOTIFICATION_ID = 1024

# An OAuth 2.0 bearer token (RFC 6750 b64token) is printable ASCII: anything else is either a
# mistake or a header injection.
_TOKEN = re.compile(r"[\x21-\x7e]+")

# A service account of the metadata server: "default" or an e-mail address (it is a path
# segment of the metadata server's URL).
_EMAIL = re.compile(r"default|[A-Za-z0-9][A-Za-z0-9._+\-]*@[A-Za-z0-9](?:[A-Za-z0-9.\-]*[A-Za-z0-9])?")

_SHOWN = 80


def show(value: str) -> str:
    """``value`` for a message: quoted with its control characters escaped, shortened."""
    if len(value) > _SHOWN:
        return f"{value[:_SHOWN]!r}... ({len(value)} characters)"
    return repr(value)


def option_path(option: str, key: str) -> str:
    """``option.key``, with ``key`` quoted when it is not a plain name."""
    return f"{option}.{key}" if re.fullmatch(r"[A-Za-z0-9_\-]{1,64}", key) else f"{option}[{show(key)}]"


def _encodable(option: str, value: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise StorageValidationError(f"{option}: is not valid Unicode (it holds a lone surrogate)") from None


def check_line(option: str, value: str, *, shown: bool = True) -> str:
    """A single-line option: no control characters, valid Unicode. ``shown=False`` for a value
    that may hold a credential (a URL's user:password)."""
    _encodable(option, value)
    problem = one_line_problem(value)
    if problem:
        what = f"{show(value)} contains" if shown else "contains"
        raise StorageValidationError(f"{option}: {what} {problem}")
    return value


def check_bucket(value: str) -> str:
    """A bucket name by Cloud Storage's naming rules (so ``.``, ``..``, ``/``, ``%2e`` and
    control characters never reach a URL)."""
    check_line("bucket", value)
    if value.startswith("gs://"):
        raise StorageValidationError(f"bucket: {show(value)} is not a bucket name (write the name alone, without gs://)")
    parts = value.split(".")
    valid = (
        _BUCKET.fullmatch(value) is not None
        and 3 <= len(value) <= (222 if len(parts) > 1 else 63)
        and all(0 < len(part) <= 63 for part in parts)
        and not value.startswith("goog")
    )
    if valid and len(parts) == 4:
        try:
            ipaddress.IPv4Address(value)
        except ValueError:
            pass
        else:
            valid = False
    if not valid:
        raise StorageValidationError(f"bucket: {show(value)} is not a valid bucket name ({_BUCKET_RULES}, not an IP address, not starting with 'goog')")
    return value


def check_notification_id(value: str) -> str:
    """A notification config id as a server gave it: any one-line text that stays one path
    segment (it is percent-encoded when it is sent)."""
    check_line("notification_id", value)
    decoded = unquote(value)
    if not value or decoded in (".", "..") or "/" in decoded or "\\" in decoded or one_line_problem(decoded):
        raise StorageValidationError(f"notification_id: {show(value)} is not a notification config id (it would change the request's path)")
    if len(value.encode("utf-8")) > _MAX_NOTIFICATION_ID:
        raise StorageValidationError(f"notification_id: longer than a notification config id can be ({_MAX_NOTIFICATION_ID} bytes of UTF-8)")
    return value


def check_user_project(value: str) -> str:
    """The billed project, sent as a query parameter: a project id (or project number)."""
    check_line("user_project", value)
    if not (PROJECT_ID.fullmatch(value) or re.fullmatch(r"[0-9]{1,20}", value)):
        raise StorageValidationError(f"user_project: {show(value)} is not a project id (6-30 lower-case letters, digits and hyphens) or project number")
    return value


def check_object_name_prefix(value: str) -> str:
    """Object names are any Unicode but CR and LF, 1-1024 bytes of UTF-8: other control
    characters are data the API keeps, so they pass."""
    _encodable("object_name_prefix", value)
    if "\r" in value or "\n" in value:
        raise StorageValidationError(f"object_name_prefix: {show(value)} contains a line break (object names cannot hold CR or LF)")
    if len(value.encode("utf-8")) > MAX_OBJECT_NAME_BYTES:
        raise StorageValidationError(f"object_name_prefix: longer than an object name can be ({MAX_OBJECT_NAME_BYTES} bytes of UTF-8)")
    return value


def clean_secret(option: str, value: str | None) -> str | None:
    """A token with the white space around it removed (files and environment variables end
    with a newline); a control or non-ASCII character inside is an error that names the
    option, never the value."""
    if value is None:
        return None
    text = value.strip()
    if text and not _TOKEN.fullmatch(text):
        raise StorageValidationError(f"{option}: contains a control character, a space or a non-ASCII character (the value is not shown)")
    return text or None


def check_options(params: t.Mapping[str, t.Any]) -> None:
    """Every single-line option of a storage module, before credentials are loaded or a
    request is sent. Options of another auth_kind are not looked at (they are ignored)."""
    check_bucket(params["bucket"])
    for option in ("topic", "project", "notification_id", "api_endpoint"):
        if isinstance(params.get(option), str):
            check_line(option, params[option], shown=option != "api_endpoint")
    if params.get("user_project"):
        check_user_project(params["user_project"])
    if params.get("object_name_prefix") is not None:
        check_object_name_prefix(params["object_name_prefix"])
    for key, value in (params.get("custom_attributes") or {}).items():
        # Attribute keys and values are strings of any content on the API (Pub/Sub message
        # attributes): they are data, sent and compared as they are.
        _encodable(option_path("custom_attributes", str(key)), str(key))
        if isinstance(value, str):
            _encodable(option_path("custom_attributes", str(key)), value)
    kind = params.get("auth_kind")
    if kind == "accesstoken":
        clean_secret("access_token", params.get("access_token"))
    if kind == "serviceaccount" and isinstance(params.get("service_account_file"), str):
        check_line("service_account_file", params["service_account_file"])
    if kind == "machineaccount" and params.get("service_account_email") is not None:
        email = check_line("service_account_email", params["service_account_email"])
        if not _EMAIL.fullmatch(email):
            raise StorageValidationError(f"service_account_email: {show(email)} is not default or a service account's e-mail address")
    if kind != "accesstoken":
        for index, scope in enumerate(params.get("scopes") or ()):
            check_line(f"scopes[{index}]", scope)
