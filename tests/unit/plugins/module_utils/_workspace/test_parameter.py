# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""coder_parameter conformance: upstream's provider/testdata/parameter_table.md, row by row,
plus the form_type matrix and the individual messages of provider/parameter_test.go."""

from __future__ import annotations

import re
import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._workspace.errors import WorkspaceValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.parameter import (
    ParameterError,
    go_parse_float,
    parameter_env,
    parameter_previous_env,
    read_parameter,
    validate_form_type,
)

# Name, types, previous, input, default, options, validation, output, optional, error (a regular expression).
# Columns as upstream's table: several types are comma separated; "tag-select"/"multi-select" mean
# type list(string) with that form_type; options are comma separated (not trimmed, as upstream);
# validation is "increasing"/"decreasing", "min-max" (either side may be empty) or a regex, with
# upstream's error texts "monotonicity", "{min} < {value} < {max}" and "regex error".
PARAMETER_TABLE: list[tuple[str, str, str, str, str, str, str, str, str, str]] = [
    ("Empty", "string,number", "", "", "", "", "", '""', "false", ""),
    ("EmptyDupeOps", "string,number", "", "", "", "1,1,1", "", "", "", "unique"),
    ("EmptyList", "list(string)", "", "", "", "", "", '""', "false", ""),
    ("EmptyListDupeOpts", "list(string)", "", "", "", '["a"],["a"]', "", "", "", "unique"),
    ("EmptyMulti", "tag-select", "", "", "", "", "", '""', "false", ""),
    ("EmptyOpts", "string,number", "", "", "", "1,2,3", "", '""', "false", ""),
    ("EmptyRegex", "string", "", "", "", "", "world", "", "", "regex error"),
    ("EmptyMin", "number", "", "", "", "", "1-10", "", "", "1 <  < 10"),
    ("EmptyMinOpt", "number", "", "", "", "1,2,3", "2-5", "", "", "valid option"),
    ("EmptyRegexOpt", "string", "", "", "", '"hello","goodbye"', "goodbye", "", "", "valid option"),
    ("EmptyRegexOk", "string", "", "", "", "", ".*", '""', "false", ""),
    ("EmptyInc", "number", "4", "", "", "", "increasing", "", "", "monotonicity"),
    ("EmptyDec", "number", "4", "", "", "", "decreasing", "", "", "monotonicity"),
    ("NumDef", "number", "", "", "5", "", "", "5", "true", ""),
    ("NumDefVal", "number", "", "", "5", "", "3-7", "5", "true", ""),
    ("NumDefInv", "number", "", "", "5", "", "10-", "", "", "10 < 5 < 0"),
    ("NumDefOpts", "number", "", "", "5", "1,3,5,7", "2-6", "5", "true", ""),
    ("NumDefNotOpts", "number", "", "", "5", "1,3,7,9", "2-6", "", "", "valid option"),
    ("NumDefInvOpt", "number", "", "", "5", "1,3,5,7", "6-10", "", "", "6 < 5 < 10"),
    ("NumDefNotNum", "number", "", "", "a", "", "", "", "", 'type "number"'),
    ("NumDefOptsNotNum", "number", "", "", "1", "1,a,2", "", "", "", 'type "number"'),
    ("NumDefInc", "number", "4", "", "5", "", "increasing", "5", "true", ""),
    ("NumDefIncBad", "number", "6", "", "5", "", "increasing", "", "", "greater"),
    ("NumDefDec", "number", "6", "", "5", "", "decreasing", "5", "true", ""),
    ("NumDefDecBad", "number", "4", "", "5", "", "decreasing", "", "", "lower"),
    ("NumDefDecEq", "number", "5", "", "5", "", "decreasing", "5", "true", ""),
    ("NumDefIncEq", "number", "5", "", "5", "", "increasing", "5", "true", ""),
    ("NumDefIncNaN", "number", "a", "", "5", "", "increasing", "5", "true", ""),
    ("NumDefDecNaN", "number", "b", "", "5", "", "decreasing", "5", "true", ""),
    ("StrDef", "string", "", "", "hello", "", "", "hello", "true", ""),
    ("StrMonotonicity", "string", "", "", "hello", "", "increasing", "", "", "monotonic"),
    ("StrDefInv", "string", "", "", "hello", "", "world", "", "", "regex error"),
    ("StrDefOpts", "string", "", "", "a", "a,b,c", "", "a", "true", ""),
    ("StrDefNotOpts", "string", "", "", "a", "b,c,d", "", "", "", "valid option"),
    ("StrDefValOpts", "string", "", "", "a", "a,b,c,d,e,f", "[a-c]", "a", "true", ""),
    ("StrDefInvOpt", "string", "", "", "d", "a,b,c,d,e,f", "[a-c]", "", "", "regex error"),
    ("LStrDef", "list(string)", "", "", '["a"]', "", "", '["a"]', "true", ""),
    ("LStrDefOpts", "list(string)", "", "", '["a"]', '["a"], ["b"]', "", '["a"]', "true", ""),
    ("LStrDefNotOpts", "list(string)", "", "", '["a"]', '["b"], ["c"]', "", "", "", "valid option"),
    ("MulDef", "tag-select", "", "", '["a"]', "", "", '["a"]', "true", ""),
    ("MulDefOpts", "multi-select", "", "", '["a"]', "a,b", "", '["a"]', "true", ""),
    ("MulDefNotOpts", "multi-select", "", "", '["a"]', "b,c", "", "", "", "valid option"),
    ("NumIns", "number", "", "3", "", "", "", "3", "false", ""),
    ("NumInsOptsNaN", "number", "", "3", "5", "a,1,2,3,4,5", "1-3", "", "", 'type "number"'),
    ("NumInsNotNum", "number", "", "a", "", "", "", "", "", 'type "number"'),
    ("NumInsNotNumInv", "number", "", "a", "", "", "1-3", "", "", "1 < a < 3"),
    ("NumInsDef", "number", "", "3", "5", "", "", "3", "true", ""),
    ("NumIns/DefInv", "number", "", "3", "5", "", "1-3", "3", "true", ""),
    ("NumIns=DefInv", "number", "", "5", "5", "", "1-3", "", "", "1 < 5 < 3"),
    ("NumInsOpts", "number", "", "3", "5", "1,2,3,4,5", "1-3", "3", "true", ""),
    ("NumInsNotOptsVal", "number", "", "3", "5", "1,2,4,5", "1-3", "", "", "valid option"),
    ("NumInsNotOptsInv", "number", "", "3", "5", "1,2,4,5", "1-2", "", "true", "valid option"),
    ("NumInsNotOpts", "number", "", "3", "5", "1,2,4,5", "", "", "", "valid option"),
    ("NumInsNotOpts/NoDef", "number", "", "3", "", "1,2,4,5", "", "", "", "valid option"),
    ("NumInsInc", "number", "4", "5", "3", "", "increasing", "5", "true", ""),
    ("NumInsIncBad", "number", "6", "5", "7", "", "increasing", "", "", "greater"),
    ("NumInsDec", "number", "6", "5", "7", "", "decreasing", "5", "true", ""),
    ("NumInsDecBad", "number", "4", "5", "3", "", "decreasing", "", "", "lower"),
    ("NumInsDecEq", "number", "5", "5", "5", "", "decreasing", "5", "true", ""),
    ("NumInsIncEq", "number", "5", "5", "5", "", "increasing", "5", "true", ""),
    ("StrIns", "string", "", "c", "", "", "", "c", "false", ""),
    ("StrInsDupeOpts", "string", "", "c", "", "a,b,c,c", "", "", "", "unique"),
    ("StrInsDef", "string", "", "c", "e", "", "", "c", "true", ""),
    ("StrIns/DefInv", "string", "", "c", "e", "", "[a-c]", "c", "true", ""),
    ("StrIns=DefInv", "string", "", "e", "e", "", "[a-c]", "", "", "regex error"),
    ("StrInsOpts", "string", "", "c", "e", "a,b,c,d,e", "[a-c]", "c", "true", ""),
    ("StrInsNotOptsVal", "string", "", "c", "e", "a,b,d,e", "[a-c]", "", "", "valid option"),
    ("StrInsNotOptsInv", "string", "", "c", "e", "a,b,d,e", "[a-b]", "", "", "valid option"),
    ("StrInsNotOpts", "string", "", "c", "e", "a,b,d,e", "", "", "", "valid option"),
    ("StrInsNotOpts/NoDef", "string", "", "c", "", "a,b,d,e", "", "", "", "valid option"),
    ("StrInsBadVal", "string", "", "c", "", "a,b,c,d,e", "1-10", "", "", "min cannot"),
    ("LStrIns", "list(string)", "", '["c"]', "", "", "", '["c"]', "false", ""),
    ("LStrInsNotList", "list(string)", "", "c", "", "", "", "", "", "list of strings"),
    ("LStrInsDef", "list(string)", "", '["c"]', '["e"]', "", "", '["c"]', "true", ""),
    ("LStrIns/DefInv", "list(string)", "", '["c"]', '["e"]', "", "[a-c]", "", "", "regex cannot"),
    ("LStrInsOpts", "list(string)", "", '["c"]', '["e"]', '["c"],["d"],["e"]', "", '["c"]', "true", ""),
    ("LStrInsNotOpts", "list(string)", "", '["c"]', '["e"]', '["d"],["e"]', "", "", "", "valid option"),
    ("LStrInsNotOpts/NoDef", "list(string)", "", '["c"]', "", '["d"],["e"]', "", "", "", "valid option"),
    ("MulInsOpts", "multi-select", "", '["c"]', '["e"]', "c,d,e", "", '["c"]', "true", ""),
    ("MulInsNotListOpts", "multi-select", "", "c", '["e"]', "c,d,e", "", "", "", "json encoded"),
    ("MulInsNotOpts", "multi-select", "", '["c"]', '["e"]', "d,e", "", "", "", "valid option"),
    ("MulInsNotOpts/NoDef", "multi-select", "", '["c"]', "", "d,e", "", "", "", "valid option"),
    ("MulInsInvOpts", "multi-select", "", '["c"]', '["e"]', "c,d,e", "[a-c]", "", "", "regex cannot"),
]

_MIN_MAX = re.compile(r"^[0-9]*-[0-9]*$")


def _validation(column: str) -> dict[str, t.Any] | None:
    if not column:
        return None
    if column in ("increasing", "decreasing"):
        return {"monotonic": column, "error": "monotonicity"}
    if _MIN_MAX.match(column):
        low, high = column.split("-")
        return {"min": int(low) if low else None, "max": int(high) if high else None, "error": "{min} < {value} < {max}"}
    return {"regex": column, "error": "regex error"}


def _cases() -> list[t.Any]:
    cases = []
    for index, row in enumerate(PARAMETER_TABLE):
        for typ in row[1].split(","):
            cases.append(pytest.param(typ, *row[2:], id=f"{index}|{row[0]}:{typ}"))
    return cases


@pytest.mark.parametrize(("typ", "previous", "value", "default", "options", "validation", "output", "optional", "error"), _cases())
def test_parameter_table(typ: str, previous: str, value: str, default: str, options: str, validation: str, output: str, optional: str, error: str) -> None:
    assert not (error and output), "a row sets an output or an error, not both"
    environ = {}
    if value:
        environ[parameter_env("parameter")] = value
    if previous:
        environ[parameter_previous_env("parameter")] = "" if previous == '""' else previous
    options_list = [{"name": option, "value": option} for option in options.split(",")] if options else []
    params: dict[str, t.Any] = {"name": "parameter", "type": typ, "options": options_list, "validation": _validation(validation)}
    if typ in ("multi-select", "tag-select"):
        params.update(type="list(string)", form_type=typ)
    if default:
        params["default"] = default
    if error:
        with pytest.raises(WorkspaceValidationError) as raised:
            read_parameter(params, environ=environ)
        assert re.search(error, str(raised.value)), str(raised.value)
        return
    result = read_parameter(params, environ=environ)
    assert result["value"] == output.strip('"')
    assert result["default"] == (default.strip('"') if default else None)
    if optional:
        assert result["optional"] is (optional == "true")


# formtype_test.go: the truth table, with the default first.
@pytest.mark.parametrize(
    ("typ", "options", "form_type", "expected"),
    [
        ("string", 0, "", ("string", "input")),
        ("string", 2, "", ("string", "radio")),
        ("string", 0, "textarea", ("string", "textarea")),
        ("string", 2, "dropdown", ("string", "dropdown")),
        ("number", 0, "", ("number", "input")),
        ("number", 0, "slider", ("number", "slider")),
        ("number", 3, "", ("number", "radio")),
        ("bool", 0, "", ("bool", "checkbox")),
        ("bool", 0, "switch", ("bool", "switch")),
        ("bool", 2, "dropdown", ("bool", "dropdown")),
        ("list(string)", 0, "", ("list(string)", "tag-select")),
        ("list(string)", 2, "", ("list(string)", "radio")),
        ("list(string)", 2, "multi-select", ("string", "multi-select")),  # options typed as string
    ],
)
def test_form_type_resolution(typ: str, options: int, form_type: str, expected: tuple[str, str]) -> None:
    assert validate_form_type(typ, options, form_type) == expected


@pytest.mark.parametrize(
    ("typ", "options", "form_type", "detail"),
    [
        ("number", 2, "slider", '"form_type" attribute="slider" is not supported for "type"="number" when options exist, choose one of [radio dropdown]'),
        ("string", 0, "radio", '"form_type" attribute="radio" is not supported for "type"="string" when options do not exist, choose one of [input textarea]'),
        ("string", 0, "checkbox", '"form_type" attribute="checkbox" is not supported for "type"="string", choose one of [input textarea]'),
        ("bool", 1, "error", '"form_type" attribute="error" is not supported for "type"="bool", choose one of [radio dropdown]'),
        (
            "list(string)",
            0,
            "multi-select",
            '"form_type" attribute="multi-select" is not supported for "type"="list(string)" when options do not exist, choose one of [tag-select]',
        ),
        ("object", 0, "", '"type" attribute="object" is not supported, choose one of [string number bool list(string)]'),
    ],
)
def test_form_type_errors(typ: str, options: int, form_type: str, detail: str) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(detail) + "$"):
        validate_form_type(typ, options, form_type)


def _error(params: dict[str, t.Any], environ: dict[str, str] | None = None) -> ParameterError:
    with pytest.raises(ParameterError) as raised:
        read_parameter({"name": "p", **params}, environ=environ or {})
    return raised.value


@pytest.mark.parametrize(
    ("params", "summary", "detail"),
    [
        ({"ephemeral": True, "default": "x"}, "parameter can't be immutable and ephemeral", ""),
        ({"ephemeral": True, "mutable": True}, "ephemeral parameter requires the default property", ""),
        (
            {"form_type": "error"},
            "Invalid form_type for parameter",
            '"form_type" attribute="error" is not supported for "type"="string", choose one of [input textarea]',
        ),
        (
            {"options": [{"name": "a", "value": "1"}, {"name": "a", "value": "2"}]},
            "Option names must be unique.",
            'multiple options found with the same name "a"',
        ),
        (
            {"options": [{"name": "a", "value": "1"}, {"name": "b", "value": "1"}]},
            "Option values must be unique.",
            'multiple options found with the same value "1"',
        ),
        ({"type": "number", "options": [{"name": "x", "value": "a"}]}, 'Option "x" with value="a" is not of type "number"', '"a" is not a number'),
        ({"type": "bool", "options": [{"name": "x", "value": "yes"}]}, 'Option "x" with value="yes" is not of type "bool"', '"yes" is not a bool'),
        (
            {"options": [{"name": "a", "value": "a"}], "default": ""},
            "Default value must be a valid option. The value is empty, did you forget to set it with a default or from user input?",
            'the value "" must be defined as one of options',
        ),
        (
            {"type": "list(string)", "form_type": "multi-select", "options": [{"name": "a", "value": "a"}], "default": '["a","b","c"]'},
            "Default values must be a valid option",
            'Default value "[\\"a\\",\\"b\\",\\"c\\"]" is not a valid option, values "b, c" are missing from the options',
        ),
        (
            {"type": "number", "default": "7", "validation": {"min": 1, "max": 5}},
            "Invalid parameter default value according to 'validation' block",
            "value 7 is more than the maximum 5",
        ),
        (
            {"type": "number", "default": "0", "validation": {"min": 1}},
            "Invalid parameter default value according to 'validation' block",
            "value 0 is less than the minimum 1",
        ),
        (
            {"type": "number", "default": "1.5", "validation": {"min": 1}},
            "Invalid parameter default value according to 'validation' block",
            'value "1.5" is not a number',
        ),
        ({"type": "number", "default": "2", "validation": {"min": 1, "max": 3, "error": "{min}<{value}<{max}"}}, "", ""),
        (
            {"type": "number", "default": "9", "validation": {"max": 3, "error": "at most {max}, min {min}, got {value}"}},
            "Invalid parameter default value according to 'validation' block",
            "at most 3, min 0, got 9",
        ),
        (
            {"type": "number", "default": "2", "validation": {"monotonic": "up"}},
            "Invalid parameter default value according to 'validation' block",
            'number monotonicity can be either "increasing" or "decreasing"',
        ),
        (
            {"type": "bool", "default": "1", "validation": {}},
            "Invalid parameter default value according to 'validation' block",
            'boolean value can be either "true" or "false"',
        ),
        (
            {"type": "bool", "default": "true", "validation": {"monotonic": "increasing"}},
            "Invalid parameter default value according to 'validation' block",
            "monotonic validation can only be specified for number types, not bool types",
        ),
        (
            {"type": "bool", "default": "true", "validation": {"max": 3}},
            "Invalid parameter default value according to 'validation' block",
            "a max cannot be specified for a bool type",
        ),
        (
            {"type": "list(string)", "default": "[]", "validation": {"regex": "a", "error": "e"}},
            "Invalid parameter default value according to 'validation' block",
            "a regex cannot be specified for a list(string) type",
        ),
        (
            {"default": "abc", "validation": {"regex": "^z", "error": "must start with z"}},
            "Invalid parameter default value according to 'validation' block",
            'must start with z (value "abc" does not match "^z")',
        ),
        (
            {"default": "abc", "validation": {"regex": "b"}},
            "Invalid parameter default value according to 'validation' block",
            "an error must be specified with a regex validation",
        ),
        (
            {"default": "abc", "validation": {"regex": "(a", "error": "e"}},
            "Invalid parameter default value according to 'validation' block",
            "compile regex <nil>: error parsing regexp: missing ), unterminated subpattern: `(a`",
        ),
        (
            {"default": "aa", "validation": {"regex": "(a)\\1", "error": "e"}},
            "Invalid parameter default value according to 'validation' block",
            "compile regex <nil>: error parsing regexp: invalid escape sequence: `\\1`",
        ),
        (
            {"default": "x", "validation": {"regex": "(?=x)", "error": "e"}},
            "Invalid parameter default value according to 'validation' block",
            "compile regex <nil>: error parsing regexp: invalid or unsupported Perl syntax: `(?=`",
        ),
        ({"type": "number", "default": "x"}, 'Parameter value is not of type "number"', '"x" is not a number'),
        ({"type": "list(string)", "default": "x"}, 'Parameter value is not of type "list(string)"', 'value "x" is not a valid list of strings'),
        (
            {"type": "list(string)", "default": "x", "validation": {}},
            "Invalid parameter default value according to 'validation' block",
            'value "x" is not valid list of strings',
        ),
    ],
)
def test_messages(params: dict[str, t.Any], summary: str, detail: str) -> None:
    if not summary:
        assert read_parameter({"name": "p", **params}, environ={})["value"] == params["default"]
        return
    error = _error(params)
    assert (error.summary, error.detail) == (summary, detail)
    assert str(error) == (f"{summary}: {detail}" if detail else summary)


def test_value_from_input_names_value_not_default() -> None:
    environ = {parameter_env("p"): "9"}
    error = _error({"type": "number", "validation": {"max": 3}}, environ)
    assert error.summary == "Invalid parameter value according to 'validation' block"


def test_monotonic_messages() -> None:
    environ = {parameter_env("p"): "3", parameter_previous_env("p"): "5"}
    assert (
        _error({"type": "number", "validation": {"monotonic": "increasing"}}, environ).detail
        == "parameter value '3' must be equal or greater than previous value: 5"
    )
    environ = {parameter_env("p"): "7", parameter_previous_env("p"): "5"}
    assert (
        _error({"type": "number", "validation": {"monotonic": "decreasing"}}, environ).detail
        == "parameter value '7' must be equal or lower than previous value: 5"
    )


def test_environment_variable_names() -> None:
    # Upstream's ParameterEnvironmentVariable: CODER_PARAMETER_ and the sha256 of the name.
    assert parameter_env("region") == "CODER_PARAMETER_c697d2981bf416569a16cfbcdec1542b5398f3cc77d2b905819aa99c46ecf6f6"
    assert parameter_previous_env("region") == "CODER_PARAMETER_PREVIOUS_c697d2981bf416569a16cfbcdec1542b5398f3cc77d2b905819aa99c46ecf6f6"


def test_present_but_empty_input_counts() -> None:
    result = read_parameter({"name": "p", "default": "x"}, environ={parameter_env("p"): ""})
    assert (result["value"], result["optional"]) == ("", True)


def test_outputs() -> None:
    result = read_parameter(
        {"name": "p", "type": "number", "default": 5, "validation": {"min": 1}, "options": [{"name": "five", "value": 5}], "order": 3}, environ={}
    )
    assert result["value"] == "5"
    assert result["default"] == "5"  # defaults are always strings
    assert result["form_type"] == "radio"
    assert result["styling"] == "{}"
    assert result["validation"]["min_disabled"] is False
    assert result["validation"]["max_disabled"] is True
    assert result["options"][0]["value"] == "5"
    assert len(result["id"]) == 36
    assert read_parameter({"name": "l", "type": "list(string)", "default": ["a", "b"]}, environ={})["value"] == '["a","b"]'


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"type": "object"}, 'expected type to be one of ["string" "number" "bool" "list(string)"], got object'),
        (
            {"form_type": "wheel"},
            'expected form_type to be one of ["radio" "slider" "input" "dropdown" "checkbox" "switch" "multi-select" "tag-select"'
            ' "textarea" "error"], got wheel',
        ),
        ({"validation": {"regex": "a", "min": 1}}, 'Conflicting configuration arguments: "validation.0.regex": conflicts with validation.0.min'),
        ({"icon": "%zz"}, 'icon: parse "%zz": invalid URL escape "%zz"'),
    ],
)
def test_schema_errors(params: dict[str, t.Any], message: str) -> None:
    with pytest.raises(WorkspaceValidationError, match="^" + re.escape(message) + "$"):
        read_parameter({"name": "p", **params}, environ={})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1", 1.0),
        ("-1.5e3", -1500.0),
        (".5", 0.5),
        ("5.", 5.0),
        ("Inf", float("inf")),
        ("0x1p-2", 0.25),
        ("1_000", None),
        ("1e400", None),
        ("", None),
        (" 1", None),
    ],
)
def test_go_parse_float(text: str, expected: float | None) -> None:
    assert go_parse_float(text) == expected
