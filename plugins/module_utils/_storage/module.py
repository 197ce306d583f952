# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What every storage module shares: the argument spec, the library checks, the client."""

from __future__ import annotations

import typing as t

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from .._common.plan import refusal
from .auth import GCP_AUTH_ARGSPEC, GCP_AUTH_MUTUALLY_EXCLUSIVE, GOOGLE_AUTH_IMPORT_ERROR, HAS_GOOGLE_AUTH, AuthSettings, credentials, secrets_of
from .errors import StorageApiError, StorageError, StorageValidationError, redact
from .notification import NotificationClient
from .transport import HAS_REQUESTS, REQUESTS_IMPORT_ERROR, TRANSPORT_ARGSPEC, RetryPolicy, Transport, plaintext_warning
from .validation import check_options

__all__ = ["USER_AGENT", "create_module", "fail", "notification_client"]

USER_AGENT = "devinfra.providers (Ansible; storage_notification)"


def create_module(options: dict[str, dict[str, t.Any]], **kwargs: t.Any) -> AnsibleModule:
    """The module with its own ``options`` plus the auth and transport options."""
    module = AnsibleModule(
        argument_spec={**GCP_AUTH_ARGSPEC, **TRANSPORT_ARGSPEC, **options},
        mutually_exclusive=GCP_AUTH_MUTUALLY_EXCLUSIVE,
        supports_check_mode=True,
        **kwargs,
    )
    if not HAS_REQUESTS:
        module.fail_json(msg=missing_required_lib("requests"), exception=REQUESTS_IMPORT_ERROR)
    if not HAS_GOOGLE_AUTH:
        module.fail_json(msg=missing_required_lib("google-auth"), exception=GOOGLE_AUTH_IMPORT_ERROR)
    # Ansible masks the values of no_log options as given; the forms of them the module uses
    # (a stripped token, the key inside the contents) are masked too.
    module.no_log_values.update(secrets_of(module.params))
    warning = plaintext_warning(module.params.get("api_endpoint"), carries="the bearer token and the bucket's notification configs")
    if warning:
        module.warn(warning)
    return module


def notification_client(params: t.Mapping[str, t.Any], *, user_agent: str = USER_AGENT) -> tuple[NotificationClient, str | None]:
    """The client for ``params['bucket']``, and the project the credentials name (if any).
    Every option is checked first: nothing is loaded or sent for bad input."""
    check_options(params)
    creds, project = credentials(AuthSettings.from_params(params))
    transport = Transport(
        credentials=creds,
        api_endpoint=params.get("api_endpoint"),
        timeout=params["timeout"],
        retry=RetryPolicy(retries=params["retries"]),
        user_agent=user_agent,
    )
    return NotificationClient(transport, bucket=params["bucket"], user_project=params.get("user_project")), project


def fail(module: AnsibleModule, exc: StorageError) -> t.NoReturn:
    """The one place a storage exception becomes a task failure (HTTP status kept for ``when:``)."""
    extra: dict[str, t.Any] = refusal(isinstance(exc, StorageValidationError))
    if isinstance(exc, StorageApiError):
        extra = {"status": exc.status, "reason": exc.reason}
    # The messages are built from safe facts; this catches what a server echoed on top.
    module.fail_json(msg=redact(str(exc), secrets_of(module.params)), **extra)
    raise AssertionError("unreachable")  # fail_json exits; this keeps type checkers honest
