# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Real Coder templates and modules through the collection (fixtures/coder_hcl; its README.md says
where each comes from and how the converter, coder_hcl.py, reads it).

Each case is one upstream configuration. Every resource the collection has a module for is applied
(changed), applied again (no change) and run in check mode (no change), and the workspace_manifest
lookup builds the state as coderd would. Every ``data "coder_parameter"`` gives, through the
workspace_parameter lookup, the value upstream's provider gives: its default when it has one, and
the input coderd passes in ``CODER_PARAMETER_<sha256 of the name>`` when the test passes one (for a
parameter without a default, and for one with options: another option than the default).

fixtures/coder_hcl.yml is the table of what does not pass as written: the cases skipped, the
resources refused (the message, and why), the attributes the converter gives a test value (and
why), and the module arguments a case needs. Everything it lists must happen: a refusal that no
longer happens fails, so the table stays true."""

from __future__ import annotations

import functools
import json
import os
import re
import typing as t

import hcl2
import pytest
from ansible.errors import AnsibleLookupError
from ansible.module_utils.common.yaml import yaml_load
from ansible.plugins.loader import lookup_loader
from hcl2.utils import SerializationOptions

from ansible_collections.devinfra.providers.plugins.module_utils._workspace.parameter import parameter_env
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.resources import RESOURCE_TYPES
from ansible_collections.devinfra.providers.tests.unit.plugins.action import coder_hcl

Run = t.Callable[..., dict[str, t.Any]]
HERE = os.path.dirname(__file__)
CORPUS = os.path.join(HERE, "fixtures", "coder_hcl")
CASES = coder_hcl.case_paths(CORPUS)
SPECS = {name: rtype.full_argument_spec() for name, rtype in RESOURCE_TYPES.items()}
# Cases that between them write every kind of HCL expression, template and block.
WARM_UP_CASES = ("registry-coder-templates-docker-envbuilder", "registry-coder-modules-jetbrains", "registry-coder-modules-git-config")
LOOKUPS = ("workspace", "workspace_owner", "workspace_provisioner", "workspace_task", "workspace_external_auth", "workspace_parameter", "workspace_manifest")


def _warm_up() -> None:
    """ansible-test runs each test in a process of its own, forked from the one that imported this
    file: what every case needs (the table, python-hcl2's parser, the lookups) is loaded here, once."""
    table()
    for case_id in WARM_UP_CASES:  # Lark builds a lexer state's scanner when a file first needs it
        load(case_id)
    for name in LOOKUPS:
        lookup_loader.get(f"devinfra.providers.{name}")


@functools.cache
def table() -> dict[str, t.Any]:
    with open(os.path.join(HERE, "fixtures", "coder_hcl.yml"), encoding="utf-8") as handle:
        return t.cast("dict[str, t.Any]", yaml_load(handle))


def listed(section: str, case_id: str) -> dict[str, t.Any]:
    return t.cast("dict[str, t.Any]", (table().get(section) or {}).get(case_id) or {})


@functools.cache
def load(case_id: str) -> coder_hcl.Case:
    case = coder_hcl.load_case(case_id, CASES[case_id])
    case.files = coder_hcl.data_files(CORPUS, case_id)
    return case


_warm_up()


def lookup(name: str, options: dict[str, t.Any], given: dict[str, str]) -> dict[str, t.Any]:
    """The collection's lookup, with the parameter input coderd would pass in the environment."""
    plugin = lookup_loader.get(f"devinfra.providers.{name}")
    variable = parameter_env(given["name"]) if given else None
    if variable is not None:
        os.environ[variable] = given["value"]
    try:
        result: list[dict[str, t.Any]] = plugin.run([], variables={}, **options)
    except AnsibleLookupError as exc:
        raise coder_hcl.RefusedError(name, str(exc)) from None
    finally:
        if variable is not None:
            del os.environ[variable]
    return result[0]


def expected_value(options: dict[str, t.Any]) -> str:
    """Upstream's value without an input: the default converted to a string as Terraform converts
    it (a number in decimal, a bool true/false), or "" when there is none."""
    default = options.get("default")
    if default is None:
        return ""
    if isinstance(default, (list, dict)):
        return json.dumps(default, separators=(",", ":"))
    return coder_hcl.terraform_string(default)


def input_value(options: dict[str, t.Any]) -> str | None:
    """What the test passes as the user's input: for a parameter with options, another option than
    the default (the next one after it, else the first); for one without a default (coderd always
    passes a value for it), a value its type allows; otherwise none."""
    choices = [coder_hcl.terraform_string(option.get("value")) for option in options.get("option") or []]
    default = None if options.get("default") is None else expected_value(options)
    if options.get("type") == "list(string)" and choices:
        return json.dumps(choices[-1:])
    if choices:
        after = choices[choices.index(default) + 1 :] if default in choices else []
        others = [choice for choice in after + choices if choice != default]
        return others[0] if others else None
    if default is not None:
        return None
    validation = (options.get("validation") or [{}])[0]
    return {"number": str(validation.get("min", 1)), "bool": "true", "list(string)": '["test"]'}.get(options.get("type", "string"), "test")


def _runs(case: coder_hcl.Case, run_action: Run, state_file: str) -> list[dict[str, coder_hcl.Outcome]]:
    """Apply, apply again, check mode: the outcome of every resource and parameter in each."""
    data_cache: dict[str, t.Any] = {}  # the lookups of the first run (the workspace's id stays the same)
    runs = []
    for check_mode in (False, False, True):

        def apply(module: str, options: dict[str, t.Any], check_mode: bool = check_mode) -> dict[str, t.Any]:
            return run_action(module, {**options, "state_file": state_file}, check_mode=check_mode)

        inputs = listed("inputs", case.case_id).get("variables") or {}
        run = coder_hcl.Run(case, apply=apply, lookup=lookup, parameter_input=input_value, inputs=inputs, data_cache=data_cache, specs=SPECS)
        runs.append(run.run())
    return runs


def _check_resource(address: str, outcomes: list[coder_hcl.Outcome], refusal: dict[str, t.Any] | None) -> list[str]:
    first, again, check = outcomes
    if first.blocked_by:
        if not refusal or refusal.get("blocked_by") != first.blocked_by:
            return [f"{address}: not run, it refers to {first.blocked_by}, which failed"]
        return []
    if first.error is not None:
        if not refusal or not refusal.get("message") or refusal["message"] not in first.error:
            return [f"{address}: refused: {first.error}"]
        return [f"{address}: refused differently in a second run: {each.error}" for each in (again, check) if each.error != first.error]
    if refusal:
        return [f"{address}: listed in the table ({refusal.get('message') or refusal.get('blocked_by')}), but passes: remove the entry"]
    problems = []
    assert first.result is not None
    if (first.result["changed"], first.result["operation"]) != (True, "create"):
        problems.append(f"{address}: the first run gave {first.result['operation']}, not create")
    for name, each in (("the second run", again), ("check mode", check)):
        if each.result is None or each.result["changed"] is not False:
            problems.append(f"{address}: {name} changed it: {each.result or each.error}")
    return problems


def _check_parameter(address: str, outcome: coder_hcl.Outcome, refusal: dict[str, t.Any] | None) -> list[str]:
    if outcome.error is not None or outcome.blocked_by:
        return _check_resource(address, [outcome] * 3, refusal)
    if refusal:
        return [f"{address}: listed in the table, but passes: remove the entry"]
    problems = []
    for given, value in outcome.values:
        want = expected_value(outcome.options) if given is None else given
        if value != want:
            problems.append(f"{address}: the value {'without an input' if given is None else f'with the input {given!r}'} is {value!r}, upstream's is {want!r}")
    assert outcome.result is not None
    if outcome.result["optional"] is not (outcome.options.get("default") is not None):
        problems.append(f"{address}: optional is {outcome.result['optional']}")
    return problems


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_upstream_case(case_id: str, run_action: Run, tmp_path: t.Any) -> None:
    if case_id in (table().get("skip") or {}):
        pytest.skip(table()["skip"][case_id])
    case = load(case_id)
    state_file = str(tmp_path / "state.json")
    runs = _runs(case, run_action, state_file)
    refused = listed("refused", case_id)
    problems = []
    for address, outcome in runs[0].items():
        refusal = refused.get(address)
        if address.startswith("data."):
            problems += _check_parameter(address, outcome, refusal)
        else:
            problems += _check_resource(address, [each[address] for each in runs], refusal)
    problems += [f"{address}: listed in the table, but the case has no such resource" for address in refused if address not in runs[0]]
    # The attributes that got a test value are the ones the table lists.
    fallbacks = {f"{address} {note.split(':', 1)[0]}" for address, outcome in runs[0].items() for note in outcome.fallbacks}
    expected = {f"{address} {path}" for address, entry in listed("fallbacks", case_id).items() for path in entry["attributes"]}
    problems += [f"{item}: a test value stands in for it, not listed in the table" for item in sorted(fallbacks - expected)]
    problems += [f"{item}: listed among the test values, but evaluated" for item in sorted(expected - fallbacks)]
    # What coderd builds from such a state: no duplicate, nothing unattached.
    parameters = [outcome.result for address, outcome in runs[0].items() if address.startswith("data.") and outcome.result]
    manifest = lookup("workspace_manifest", {"state_file": state_file, "parameters": parameters}, {})
    problems += [f"{address}: unattached in the manifest" for address in manifest["unattached"]]
    assert not problems, "\n".join(problems)


def test_table_names_the_corpus() -> None:
    """Every case the table names is in the corpus, and the corpus is the size the README gives."""
    sections = ("inputs", "skip", "refused", "fallbacks")
    unknown = sorted({case_id for section in sections for case_id in (table().get(section) or {}) if case_id not in CASES})
    assert unknown == []
    entries = [entry for section in ("refused", "fallbacks") for case in (table().get(section) or {}).values() for entry in case.values()]
    entries += list((table().get("inputs") or {}).values())
    assert [entry for entry in entries if not entry.get("why")] == []  # every entry says why
    assert all(isinstance(why, str) and why for why in (table().get("skip") or {}).values())
    # Counted in the text (parsing every file here would take as long as all the cases do).
    kinds = "|".join(coder_hcl.MODULE_KINDS)
    resources = parameters = 0
    for case_id, paths in CASES.items():
        for path in paths if case_id not in (table().get("skip") or {}) else []:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            resources += len(re.findall(rf'(?m)^resource\s+"(?:{kinds})"', text))
            parameters += len(re.findall(r'(?m)^data\s+"coder_parameter"', text))
    assert (len(CASES), resources, parameters) == (174, 341, 144)


def test_every_file_names_its_source() -> None:
    """The first line of every file names the repository, the commit, the path and the licence, and
    the licence's text is in LICENSES/."""
    root = os.path.join(HERE, *[os.pardir] * 4)
    for paths in CASES.values():
        for path in paths:
            with open(path, encoding="utf-8") as handle:
                source, copyright_line, licence_line = (handle.readline() for _line in range(3))
            assert source.startswith("# From coder/") and " (" in source, path
            licence = licence_line.removeprefix("# SPDX-License-Identifier: ").strip()
            assert source.rstrip().endswith(f"({licence})") and copyright_line.startswith("# SPDX-FileCopyrightText: "), path
            assert os.path.isfile(os.path.join(root, "LICENSES", f"{licence}.txt")), licence


# Blocks in blocks, heredocs, options, validations, metadata items.
READ_BOTH_WAYS = (
    "coderd-multiple-agents-multiple-monitors",
    "registry-coder-templates-docker",
    "provider-examples-resources-coder_app",
    "provider-examples-resources-coder_metadata",
    "provider-examples-data-sources-coder_parameter",
    "modules-sample",
)


@pytest.mark.parametrize("case_id", READ_BOTH_WAYS)
def test_converter_reads_as_python_hcl2(case_id: str) -> None:
    """The converter walks python-hcl2's parse tree itself (to evaluate expressions); its blocks and
    literal values are the ones python-hcl2's own reading (hcl2.loads) gives."""
    options = SerializationOptions(with_comments=False, explicit_blocks=False, preserve_heredocs=True, strip_string_quotes=True)
    with open(CASES[case_id][0], encoding="utf-8") as handle:
        loaded = hcl2.loads(handle.read(), serialization_options=options)
    case = load(case_id)

    def unresolved(name: str) -> t.Any:
        raise coder_hcl.UnresolvedError(name)

    compared = 0
    for block in case.resources + case.parameters:
        kind, label = block.labels
        section = "data" if block.kind == "data" else "resource"
        theirs = next(entry[kind][label] for entry in loaded[section] if label in entry.get(kind, {}))
        ours = coder_hcl.evaluate_body(block.body, coder_hcl.Scope(unresolved), lambda _path, _problem: "(reference)")
        for path, value in _literals(theirs):
            if path[0] in coder_hcl.META_ARGUMENTS or path[0] == "dynamic":
                continue
            mine: t.Any = ours
            for step in path:
                mine = mine[step]
            assert mine == value, (block.labels, path)
            compared += 1
    assert compared > 0


def _literals(value: t.Any, path: tuple[t.Any, ...] = ()) -> t.Iterator[tuple[tuple[t.Any, ...], t.Any]]:
    """The literal leaves of python-hcl2's reading (no interpolation, no heredoc), by path."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _literals(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _literals(item, (*path, index))
    elif not (isinstance(value, str) and ("${" in value or "%{" in value or value.startswith("<<"))):
        yield path, value
