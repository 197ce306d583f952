# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: workspace_parameter
short_description: A template parameter - its value from the user, the previous build or its default
version_added: 0.1.0
description:
  - The C(coder_parameter) data source of the Coder Terraform provider, as one dictionary, with every upstream check
    in upstream's order and with its messages (a failure is an error whose message is upstream's summary and detail).
  - The value is E(CODER_PARAMETER_<sha256 hex of name>) (present but empty counts as a value), else O(default).
    E(CODER_PARAMETER_PREVIOUS_<same>) is the previous value, read for C(validation.monotonic).
  - With no value, no default and no O(validation), V(value) is an empty string and nothing is checked (upstream's
    template import path).
  - "O(form_type) resolves by O(type) and whether O(options) exist - string, number, bool with options - V(radio)
    (default) or V(dropdown); string without - V(input) or V(textarea); number without - V(input) or V(slider); bool
    without - V(checkbox) or V(switch); list(string) with options - V(radio) or V(multi-select); without - V(tag-select).
    V(error) is never valid."
  - C(validation.regex) uses Go's RE2 syntax, evaluated with Python's C(re) after translation (ASCII C(\\d), C(\\w),
    C(\\s), C(\\b); C($) only at the end); constructs RE2 rejects (backreferences, look-around) are rejected.
author:
  - devinfra.providers contributors (@devinfra)
options:
  _terms:
    description: At most one term, the O(name).
    required: false
  name:
    description: The parameter's name (any string; it is hashed into the variable names).
    type: str
  display_name:
    description: The name shown to users.
    type: str
  description:
    description: Markdown shown to users.
    type: str
  type:
    description: The value's type.
    type: str
    choices: [string, number, bool, list(string)]
    default: string
  form_type:
    description: The input control; resolved to the default of the type when not set (see above).
    type: str
    choices: [radio, slider, input, dropdown, checkbox, switch, multi-select, tag-select, textarea, error]
  styling:
    description: JSON styling for the UI; not validated, as upstream. Defaults to C({}).
    type: str
  mutable:
    description: Whether the value may change after the workspace is created.
    type: bool
    default: false
  default:
    description:
      - The default value, a string (a list as its JSON array, a number as its decimal string; other YAML types
        are converted that way). Set means the parameter is optional, even when empty.
    type: raw
  icon:
    description: URL of an icon.
    type: str
  options:
    description:
      - The choices, each with C(name) and C(value) (required, unique), C(description) and C(icon).
      - The alias is upstream's block name.
    type: list
    elements: dict
    aliases: [option]
  validation:
    description:
      - C(min) and C(max) (integers, number only), C(monotonic) (V(increasing) or V(decreasing), number only),
        C(regex) (string only; conflicts with the others) and C(error), the message, with C({min}), C({max}) and
        C({value}) placeholders for the number checks.
      - A dictionary; a list of one dictionary, as Terraform writes such a block (HCL, C(terraform show -json), the
        state), is taken too; two or more fail.
    type: raw
  order:
    description: Position; lowest first.
    type: int
  ephemeral:
    description: The value is not kept between builds; needs O(mutable=true) and a O(default).
    type: bool
    default: false
extends_documentation_fragment:
  - devinfra.providers.workspace.lookup
"""

EXAMPLES = r"""
- name: The region, from the user or the default
  ansible.builtin.set_fact:
    region: >-
      {{ lookup('devinfra.providers.workspace_parameter', 'region', default='eu',
                options=[{'name': 'Europe', 'value': 'eu'}, {'name': 'US', 'value': 'us'}]).value }}

- name: A bounded number of CPUs that may only grow
  ansible.builtin.set_fact:
    cpus: >-
      {{ lookup('devinfra.providers.workspace_parameter', 'cpus', type='number', default=2, mutable=true,
                validation={'min': 1, 'max': 16, 'monotonic': 'increasing', 'error': 'between {min} and {max}'}).value | int }}
"""

RETURN = r"""
_raw:
  description:
    - One dictionary with the inputs and C(id) (a new UUID), C(value), C(optional) and C(form_type) (resolved);
      C(validation) also has C(min_disabled) and C(max_disabled).
  type: list
  elements: dict
"""

import typing as t

from ansible_collections.devinfra.providers.plugins.module_utils._workspace.parameter import read_parameter
from ansible_collections.devinfra.providers.plugins.plugin_utils._workspace_lookup import WorkspaceDataSourceLookup

_OPTIONS = ("name", "display_name", "description", "type", "form_type", "styling", "mutable", "default", "icon", "options", "validation", "order", "ephemeral")


class LookupModule(WorkspaceDataSourceLookup):
    term_option = "name"

    def query(self, environ: t.Mapping[str, str]) -> dict[str, t.Any]:
        return read_parameter({option: self.get_option(option) for option in _OPTIONS}, environ=environ)
