# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Credentials for the Cloud Storage API, chosen by ``auth_kind`` as google.cloud users know it."""

from __future__ import annotations

import dataclasses
import json
import os
import traceback
import typing as t

from ansible.module_utils.basic import env_fallback

from .errors import StorageAuthError, StorageValidationError, redact
from .validation import clean_secret

try:
    # The kind-specific google-auth modules are imported when used: together they take longer
    # to import than the rest of a task (see bench/storage_notification_vs_ping.py).
    import google.auth
    import google.auth.exceptions
except ImportError:
    HAS_GOOGLE_AUTH = False
    GOOGLE_AUTH_IMPORT_ERROR: str | None = traceback.format_exc()
else:
    HAS_GOOGLE_AUTH = True
    GOOGLE_AUTH_IMPORT_ERROR = None

__all__ = [
    "AUTH_KINDS",
    "DEFAULT_SCOPES",
    "GCP_AUTH_ARGSPEC",
    "GCP_AUTH_MUTUALLY_EXCLUSIVE",
    "GOOGLE_AUTH_IMPORT_ERROR",
    "HAS_GOOGLE_AUTH",
    "AuthSettings",
    "credentials",
    "secrets_of",
]

AUTH_KINDS = ("application", "serviceaccount", "accesstoken", "machineaccount")

# Enough for insert, get, list and delete of notification configs (the discovery document);
# google.cloud's storage modules ask for devstorage.full_control, which is more than needed.
DEFAULT_SCOPES = ("https://www.googleapis.com/auth/devstorage.read_write",)

# The authentication options of every storage module (documented by the devinfra.providers.gcp
# doc fragment), with google.cloud's environment variables.
GCP_AUTH_ARGSPEC: dict[str, dict[str, t.Any]] = {
    "project": {"type": "str", "fallback": (env_fallback, ["GCP_PROJECT"])},
    "auth_kind": {"type": "str", "choices": list(AUTH_KINDS), "default": "application", "fallback": (env_fallback, ["GCP_AUTH_KIND"])},
    "access_token": {"type": "str", "no_log": True, "fallback": (env_fallback, ["GCP_ACCESS_TOKEN"])},
    "service_account_file": {"type": "path", "fallback": (env_fallback, ["GCP_SERVICE_ACCOUNT_FILE"])},
    "service_account_contents": {"type": "jsonarg", "no_log": True, "fallback": (env_fallback, ["GCP_SERVICE_ACCOUNT_CONTENTS"])},
    "service_account_email": {"type": "str", "fallback": (env_fallback, ["GCP_SERVICE_ACCOUNT_EMAIL"])},
    "scopes": {"type": "list", "elements": "str", "fallback": (env_fallback, ["GCP_SCOPES"])},
}

# google.cloud documents this one but never enforces it (it assigns the result of list.append).
GCP_AUTH_MUTUALLY_EXCLUSIVE: list[tuple[str, ...]] = [("service_account_file", "service_account_contents")]


@dataclasses.dataclass(frozen=True)
class AuthSettings:
    auth_kind: str
    access_token: str | None = None
    service_account_file: str | None = None
    service_account_contents: str | None = None
    service_account_email: str | None = None
    scopes: tuple[str, ...] = DEFAULT_SCOPES

    @classmethod
    def from_params(cls, params: t.Mapping[str, t.Any]) -> AuthSettings:
        return cls(
            auth_kind=params["auth_kind"],
            # A token read with slurp or from an environment variable ends with a newline, which
            # requests refuses in a header (and repeats, token included, in its error).
            access_token=clean_secret("access_token", params.get("access_token")) if params["auth_kind"] == "accesstoken" else None,
            service_account_file=params.get("service_account_file"),
            service_account_contents=(params.get("service_account_contents") or "").strip() or None,
            service_account_email=params.get("service_account_email"),
            scopes=tuple(params.get("scopes") or DEFAULT_SCOPES),
        )

    def validate(self) -> None:
        """The options each auth_kind needs, checked before any request. Options meant for
        another kind are ignored, so GCP_* variables set for other tools do no harm."""
        if self.auth_kind == "accesstoken" and not clean_secret("access_token", self.access_token):
            raise StorageValidationError("access_token: required with auth_kind=accesstoken (or set GCP_ACCESS_TOKEN)")
        if self.auth_kind == "serviceaccount" and not (self.service_account_file or self.service_account_contents):
            raise StorageValidationError("auth_kind=serviceaccount needs service_account_file or service_account_contents")


def _service_account_info(settings: AuthSettings) -> dict[str, t.Any]:
    if settings.service_account_contents:
        source, text = "service_account_contents", settings.service_account_contents
    else:
        path = os.path.realpath(os.path.expanduser(settings.service_account_file or ""))
        source = "service_account_file"
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except OSError as exc:
            raise StorageAuthError(f"service_account_file: cannot read {path}: {exc.strerror}") from None
    try:
        info = json.loads(text)
    except ValueError:
        info = None
    # Never echo the contents: they hold a private key.
    if not isinstance(info, dict) or info.get("type") != "service_account":
        raise StorageAuthError(f"{source}: not a service account key (a JSON object with type=service_account)")
    return info


def credentials(settings: AuthSettings) -> tuple[t.Any, str | None]:
    """The google-auth credentials for ``settings``, and the project they name (if any)."""
    settings.validate()
    kind = settings.auth_kind
    try:
        if kind == "accesstoken":
            from google.oauth2 import credentials as oauth2_credentials  # noqa: PLC0415 - imported on use, see above

            access_token = clean_secret("access_token", settings.access_token)
            token = oauth2_credentials.Credentials(access_token, scopes=list(settings.scopes))  # type: ignore[no-untyped-call]
            return token, None
        if kind == "serviceaccount":
            from google.oauth2 import service_account  # noqa: PLC0415

            info = _service_account_info(settings)
            creds = service_account.Credentials.from_service_account_info(info, scopes=list(settings.scopes))  # type: ignore[no-untyped-call]
            project_id = info.get("project_id")
            return creds, project_id if isinstance(project_id, str) else None
        if kind == "machineaccount":
            from google.auth import compute_engine  # noqa: PLC0415

            email = settings.service_account_email or "default"
            return compute_engine.Credentials(service_account_email=email), None  # type: ignore[no-untyped-call]
        creds, project = google.auth.default(scopes=list(settings.scopes))
        return creds, project
    except (google.auth.exceptions.GoogleAuthError, ValueError) as exc:
        raise StorageAuthError(f"auth_kind={kind}: cannot load credentials: {_load_error(exc, settings)}") from None


def _load_error(exc: Exception, settings: AuthSettings) -> str:
    """google-auth's (or the key parser's) own sentence about the file or key, with anything
    that looks like key material removed, and the exception's class. Its other arguments (a
    response, a nested exception) are left out."""
    first = exc.args[0] if exc.args and isinstance(exc.args[0], str) else ""
    secrets = secrets_of({"access_token": settings.access_token, "service_account_contents": settings.service_account_contents})
    sentence = redact(" ".join(first.split()), secrets)[:300]
    return f"{sentence} ({type(exc).__name__})" if sentence else type(exc).__name__


def secrets_of(params: t.Mapping[str, t.Any]) -> set[str]:
    """Every form of the secret options that could end up in a text."""
    found: set[str] = set()
    for option in ("access_token", "service_account_contents"):
        value = params.get(option)
        if isinstance(value, str) and value.strip():
            found.update({value, value.strip()})
    try:
        key = json.loads(params.get("service_account_contents") or "null")
    except ValueError:
        key = None
    if isinstance(key, dict):
        for field in ("private_key", "private_key_id"):
            if isinstance(key.get(field), str) and len(key[field]) >= 8:
                found.add(key[field])
                found.update(line for line in key[field].splitlines() if len(line) >= 16 and not line.startswith("-----"))
    return found
