# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The workspace provider's configuration: the deployment ``url``."""

from __future__ import annotations

import os
import typing as t

from .errors import WorkspaceValidationError
from .gourl import GoURL, GoURLError, parse_go_url

__all__ = ["DEFAULT_URL", "URL_ENV", "deployment_url", "provider_config", "resolve_url"]

DEFAULT_URL = "https://mydeployment.coder.com"
URL_ENV = "CODER_AGENT_URL"


def resolve_url(url: str | None, *, environ: t.Mapping[str, str] | None = None) -> str:
    """Upstream's precedence: the option, else a non-empty CODER_AGENT_URL, else the default.
    Only an explicit empty ``url`` reaches the empty check, as upstream."""
    if url is None:
        url = (os.environ if environ is None else environ).get(URL_ENV) or DEFAULT_URL
    if url == "":
        raise WorkspaceValidationError(f'{URL_ENV} must not be empty; got ""')
    return url


def deployment_url(url: str | None, *, environ: t.Mapping[str, str] | None = None) -> GoURL:
    """The resolved URL, parsed and validated as upstream's url.Parse does."""
    resolved = resolve_url(url, environ=environ)
    try:
        return parse_go_url(resolved)
    except GoURLError as exc:
        raise WorkspaceValidationError(f"url: {exc}") from None


def provider_config(url: str | None, *, environ: t.Mapping[str, str] | None = None) -> dict[str, str]:
    """The provider configuration with upstream key names and defaults (terraformConfig)."""
    resolved = resolve_url(url, environ=environ)
    deployment_url(resolved)
    return {"url": resolved}
