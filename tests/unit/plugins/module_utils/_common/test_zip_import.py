# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Modules in a zip (as AnsiballZ ships them) are compiled once through the finder, and
imported exactly as zipimport imports them: the same loader, file, package path and code."""

from __future__ import annotations

import builtins
import collections
import importlib
import sys
import typing as t
import zipfile
import zipimport

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._common import zip_import

PACKAGE = "zipimporttestpkg"
# install() acts on the Pythons it was measured on (an older zipimporter has no exec_module).
MEASURED = pytest.mark.skipif(sys.version_info < (3, 11), reason="zip_import acts from Python 3.11 on")


@pytest.fixture
def zipped(tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> t.Iterator[tuple[str, collections.Counter[str]]]:
    """A zip on sys.path holding a package with a subpackage, a module and a module with
    bytecode beside it; the compiles counted by file name; all of it gone afterwards."""
    archive = str(tmp_path / "payload.zip")
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(f"{PACKAGE}/__init__.py", "")
        zf.writestr(f"{PACKAGE}/sub/__init__.py", "WHERE = __file__\n")
        zf.writestr(f"{PACKAGE}/sub/leaf.py", "from . import WHERE\nVALUE = 42\nFILE = __file__\n")
        zf.writestr(f"{PACKAGE}/compiled.py", "VALUE = 'source'\n")
        zf.writestr(f"{PACKAGE}/compiled.pyc", b"not bytecode")
    compiled: collections.Counter[str] = collections.Counter()
    real_compile = builtins.compile

    def counting(source: t.Any, filename: t.Any, *args: t.Any, **kwargs: t.Any) -> t.Any:
        compiled[str(filename)] += 1
        return real_compile(source, filename, *args, **kwargs)

    monkeypatch.setattr(builtins, "compile", counting)
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    monkeypatch.syspath_prepend(archive)
    yield archive, compiled
    for name in [name for name in sys.modules if name == PACKAGE or name.startswith(PACKAGE + ".")]:
        del sys.modules[name]
    for path in [path for path in sys.path_importer_cache if path.startswith(archive)]:
        del sys.path_importer_cache[path]


def _import_tree() -> dict[str, t.Any]:
    leaf = importlib.import_module(f"{PACKAGE}.sub.leaf")
    sub = sys.modules[f"{PACKAGE}.sub"]
    return {
        "leaf_file": leaf.__file__,
        "leaf_value": leaf.VALUE,
        "leaf_spec": (leaf.__spec__.origin, leaf.__spec__.cached) if leaf.__spec__ else None,
        "leaf_loader": type(leaf.__loader__),
        "sub_file": sub.__file__,
        "sub_path": list(sub.__path__),
        "sub_where": leaf.WHERE,
    }


@MEASURED
def test_a_zipped_module_is_compiled_once_and_imported_as_zipimport_imports_it(zipped: tuple[str, collections.Counter[str]]) -> None:
    archive, compiled = zipped
    plain = _import_tree()
    assert compiled[f"{archive}/{PACKAGE}/sub/leaf.py"] == 2  # zipimport alone: find_spec, then exec_module

    zip_import.install(f"{PACKAGE}.sub")
    zip_import.install(f"{PACKAGE}.sub")
    for name in [name for name in sys.modules if name.startswith(PACKAGE + ".")]:
        del sys.modules[name]
    compiled.clear()
    assert sum(isinstance(finder, zip_import._OnceCompiledFinder) for finder in sys.meta_path) == 1
    assert _import_tree() == plain
    assert compiled[f"{archive}/{PACKAGE}/sub/leaf.py"] == 1
    assert compiled[f"{archive}/{PACKAGE}/sub/__init__.py"] == 1


@MEASURED
def test_bytecode_in_the_zip_and_modules_outside_it_are_left_to_zipimport(zipped: tuple[str, collections.Counter[str]]) -> None:
    importlib.import_module(f"{PACKAGE}.sub")
    zip_import.install(f"{PACKAGE}.sub")
    finder = next(finder for finder in sys.meta_path if isinstance(finder, zip_import._OnceCompiledFinder))
    assert finder.find_spec(f"{PACKAGE}.compiled", sys.modules[PACKAGE].__path__) is None
    assert finder.find_spec(f"{PACKAGE}.missing", sys.modules[PACKAGE].__path__) is None
    assert finder.find_spec("json", None) is None
    assert finder.find_spec(f"{PACKAGE}.sub", ["/not/a/zip"]) is None


def test_a_package_not_in_a_zip_installs_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    before = list(sys.meta_path)
    zip_import.install("ansible_collections.devinfra.providers.plugins.module_utils._common")
    assert sys.meta_path == before
    assert not isinstance(sys.modules["ansible_collections.devinfra.providers.plugins.module_utils._common"].__loader__, zipimport.zipimporter)
