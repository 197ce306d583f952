# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The part every libvirt data-source lookup shares: options, connection, errors."""

from __future__ import annotations

import typing as t

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase
from ansible.utils.display import Display

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import (
    HAS_LIBVIRT,
    LIBVIRT_IMPORT_ERROR,
    connect,
)
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtError
from ansible_collections.devinfra.providers.plugins.plugin_utils._lookup_terms import term_as_option

if t.TYPE_CHECKING:
    from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.data_sources import DataSourceResult

__all__ = ["LibvirtDataSourceLookup"]

display = Display()


class LibvirtDataSourceLookup(LookupBase):
    """Subclasses name the option a single positional term stands for (if any) and
    implement query(); run() returns that one dict as a one-element list."""

    term_option: str | None = None
    required_option: str | None = None
    read_only = True

    def query(self, conn: t.Any) -> DataSourceResult:
        raise NotImplementedError

    def run(self, terms: list[t.Any], variables: dict[str, t.Any] | None = None, **kwargs: t.Any) -> list[dict[str, t.Any]]:
        term_as_option(self._load_name, self.term_option, terms, kwargs)
        self.set_options(var_options=variables, direct=kwargs)
        if self.required_option and self.get_option(self.required_option) is None:
            raise AnsibleLookupError(f"{self._load_name}: missing required option: {self.required_option}")
        if not HAS_LIBVIRT:
            raise AnsibleLookupError(f"{self._load_name}: the libvirt Python binding (libvirt-python) is required: {LIBVIRT_IMPORT_ERROR}")
        uri, origin = self.get_option_and_origin("uri")
        if origin.startswith("env") and not uri:
            uri = None  # upstream treats an empty LIBVIRT_DEFAULT_URI as unset
        try:
            with connect(uri, read_only=self.read_only) as conn:
                result = self.query(conn)
        except LibvirtError as exc:
            raise AnsibleLookupError(str(exc)) from None  # the cause can carry what the message leaves out
        for warning in result.warnings:
            display.warning(warning)
        return [result.values]
