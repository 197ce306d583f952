# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The part every workspace data-source lookup shares: terms, options, the deployment URL, errors.

The lookups read the controller's environment, where a provisioner running the playbook
sets the CODER_* variables. They never display what they return (some of it is secret)."""

from __future__ import annotations

import os
import typing as t

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase

from ansible_collections.devinfra.providers.plugins.module_utils._workspace.config import deployment_url, resolve_url
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.errors import WorkspaceError
from ansible_collections.devinfra.providers.plugins.plugin_utils._lookup_terms import term_as_option

if t.TYPE_CHECKING:
    from ansible_collections.devinfra.providers.plugins.module_utils._workspace.gourl import GoURL

__all__ = ["WorkspaceDataSourceLookup"]


class WorkspaceDataSourceLookup(LookupBase):
    """Subclasses name the option a single positional term stands for (if any) and
    implement query(); run() returns that one dict as a one-element list."""

    term_option: str | None = None

    def query(self, environ: t.Mapping[str, str]) -> dict[str, t.Any]:
        raise NotImplementedError

    def option_unless_empty_env(self, name: str) -> t.Any:
        value, origin = self.get_option_and_origin(name)
        # Upstream treats an empty environment variable as unset.
        return None if origin.startswith("env") and not value else value

    def deployment(self, environ: t.Mapping[str, str]) -> tuple[str, GoURL]:
        url = resolve_url(self.option_unless_empty_env("url"), environ=environ)
        return url, deployment_url(url, environ=environ)

    def run(self, terms: list[t.Any], variables: dict[str, t.Any] | None = None, **kwargs: t.Any) -> list[dict[str, t.Any]]:
        term_as_option(self.ansible_name, self.term_option, terms, kwargs)
        self.set_options(var_options=variables, direct=kwargs)
        try:
            # Upstream configures the provider, validating its URL, before any data source reads.
            self.deployment(os.environ)
            return [self.query(os.environ)]
        except WorkspaceError as exc:
            raise AnsibleLookupError(f"{self.ansible_name}: {exc}") from exc
