# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The collection's module_utils compiled once, not twice, when a module runs from its
AnsiballZ zip.

AnsiballZ ships sources, so every module_utils file is compiled on every run; and Python's
``zipimporter.find_spec`` (3.11, 3.12 and 3.13 alike) asks itself for the module's file name, which
it learns by compiling the module, then ``exec_module`` compiles it again. A no-op of the
domain module spent about 20 ms of its run on the second compile. The finder here makes the
very spec ``zipimporter.find_spec`` makes (the same loader, origin, ``__file__`` and package
path), naming the file without compiling it; the one compile left is ``exec_module``'s.
Nothing is cached and nothing is written: it lives as long as the module's process."""

from __future__ import annotations

import importlib.util
import sys
import typing as t
import zipimport

__all__ = ["install"]

_SKIP = (ImportError, OSError, ValueError)


class _OnceCompiledFinder:
    """A meta path finder for the modules under ``prefix`` that live in a zip (other names,
    and modules in directories, are left to the finders after it)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def find_spec(self, fullname: str, path: t.Sequence[str] | None = None, target: t.Any = None) -> t.Any:
        if not fullname.startswith(self.prefix) or not path:
            return None
        importer = sys.path_importer_cache.get(path[0])
        if importer is None:
            try:
                importer = sys.path_importer_cache.setdefault(path[0], zipimport.zipimporter(path[0]))
            except _SKIP:
                return None
        if not isinstance(importer, zipimport.zipimporter):
            return None
        try:
            is_package = importer.is_package(fullname)  # the zip's table of contents: nothing is compiled
        except _SKIP:
            return None
        stem = f"{importer.archive}/{importer.prefix}{fullname.rpartition('.')[2]}{'/__init__' if is_package else ''}"
        try:
            importer.get_data(stem + ".pyc")
        except OSError:
            pass  # sources only, as AnsiballZ ships them: the file zipimport would load is stem.py
        else:
            return None
        return importlib.util.spec_from_file_location(fullname, stem + ".py", loader=importer, submodule_search_locations=[] if is_package else None)


def install(package: str) -> None:
    """Put the finder first, once per process, for the modules beside ``package`` (under its
    parent: the collection's module_utils) when ``package`` was loaded from a zip."""
    # Measured on 3.11 to 3.13; an older zipimporter has no exec_module to hand the spec to.
    if sys.version_info < (3, 11) or not isinstance(getattr(sys.modules.get(package), "__loader__", None), zipimport.zipimporter):
        return
    prefix = package.rpartition(".")[0] + "."
    if not any(isinstance(finder, _OnceCompiledFinder) and finder.prefix == prefix for finder in sys.meta_path):
        sys.meta_path.insert(0, _OnceCompiledFinder(prefix))
