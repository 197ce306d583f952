# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The body every libvirt ``*_info`` module shares: connect, query one data source, report."""

from __future__ import annotations

import typing as t

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from .connection import HAS_LIBVIRT, LIBVIRT_CONNECTION_ARGSPEC, LIBVIRT_IMPORT_ERROR, connect
from .errors import LibvirtError

if t.TYPE_CHECKING:
    from .data_sources import DataSourceResult

__all__ = ["run_info_module"]


def run_info_module(
    options: dict[str, dict[str, t.Any]],
    query: t.Callable[[t.Any, dict[str, t.Any]], DataSourceResult],
    *,
    read_only: bool = True,
    libraries: t.Sequence[tuple[str, bool, str | None]] = (),
) -> None:
    """Build the module from the data source's own ``options`` plus the connection
    options, run ``query(conn, params)`` and exit with its values at the top level.
    ``libraries``: (name, importable, import traceback) of what the query needs besides libvirt."""
    module = AnsibleModule(argument_spec={**LIBVIRT_CONNECTION_ARGSPEC, **options}, supports_check_mode=True)
    for name, importable, import_error in (("libvirt-python", HAS_LIBVIRT, LIBVIRT_IMPORT_ERROR), *libraries):
        if not importable:
            module.fail_json(msg=missing_required_lib(name), exception=import_error)
    try:
        with connect(module.params["uri"], read_only=read_only) as conn:
            result = query(conn, module.params)
    except LibvirtError as exc:
        module.fail_json(msg=str(exc))
    for warning in result.warnings:
        module.warn(warning)
    module.exit_json(changed=False, **result.values)
