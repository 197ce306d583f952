# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: provider_config
short_description: The configuration of the workspace or the libvirt provider, with upstream key names
version_added: 0.1.0
description:
  - Returns the configuration of one of the collection's providers with the upstream key names and defaults
    applied, as the C(terraformConfig) method of the upstream providers does.
  - "For O(provider=workspace): a dictionary with the key C(url), the URL of the workspace deployment
    (the Coder Terraform provider's C(url))."
  - "For O(provider=libvirt): a dictionary with the key C(uri), the libvirt connection URI
    (terraform-provider-libvirt's C(uri))."
  - Only the configuration is resolved and validated; nothing is connected to.
author:
  - devinfra.providers contributors (@devinfra)
options:
  _terms:
    description: At most one term, the O(provider).
    required: false
  provider:
    description: Which provider's configuration to return.
    type: str
    choices: [workspace, libvirt]
  url:
    description:
      - The deployment URL, for O(provider=workspace).
      - When not set, or set to an empty string by E(CODER_AGENT_URL), V(https://mydeployment.coder.com) is used.
      - An explicitly empty value fails with upstream's message C(CODER_AGENT_URL must not be empty; got ""),
        and a value Go's C(url.Parse) rejects fails with Go's message.
    type: str
    env:
      - name: CODER_AGENT_URL
    vars:
      - name: devinfra_workspace_url
extends_documentation_fragment:
  - devinfra.providers.libvirt.lookup
"""

EXAMPLES = r"""
- name: The libvirt connection the collection will use
  ansible.builtin.debug:
    msg: "{{ lookup('devinfra.providers.provider_config', 'libvirt').uri }}"

- name: The workspace deployment URL, from CODER_AGENT_URL or the default
  ansible.builtin.debug:
    msg: "{{ lookup('devinfra.providers.provider_config', provider='workspace').url }}"
"""

RETURN = r"""
_raw:
  description:
    - One dictionary, with the key C(url) for the workspace provider or C(uri) for the libvirt provider.
  type: list
  elements: dict
"""

import typing as t

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import connection as libvirt_config
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtError
from ansible_collections.devinfra.providers.plugins.module_utils._workspace import config as workspace_config
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.errors import WorkspaceError


class LookupModule(LookupBase):
    def _option_unless_empty_env(self, name: str) -> str | None:
        value, origin = self.get_option_and_origin(name)
        # Upstream treats an empty environment variable as unset.
        return None if origin.startswith("env") and not value else value

    def run(self, terms: list[t.Any], variables: dict[str, t.Any] | None = None, **kwargs: t.Any) -> list[dict[str, str]]:
        if len(terms) > 1 or (terms and "provider" in kwargs):
            raise AnsibleLookupError(f"provider_config: takes at most one term (the provider), got {len(terms)}")
        if terms:
            kwargs["provider"] = terms[0]
        self.set_options(var_options=variables, direct=kwargs)
        provider = self.get_option("provider")
        try:
            if provider == "workspace":
                return [workspace_config.provider_config(self._option_unless_empty_env("url"))]
            if provider == "libvirt":
                return [libvirt_config.provider_config(self._option_unless_empty_env("uri"))]
        except (WorkspaceError, LibvirtError) as exc:
            raise AnsibleLookupError(f"provider_config: {exc}") from exc
        raise AnsibleLookupError("provider_config: missing required option: provider (workspace or libvirt)")
