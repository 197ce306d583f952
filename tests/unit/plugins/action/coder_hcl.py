# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Real Coder templates and modules (fixtures/coder_hcl/*.tf) as the collection's module calls.

python-hcl2's parser reads each file; ``parse`` turns its parse tree into bodies whose nested
blocks are lists of dictionaries, as python-hcl2 gives them (``display_apps = [{...}]``), and whose
expressions stay expressions. ``Run`` evaluates them the way Terraform would for one plan, with
test values standing in for what only a real deployment knows:

- ``var.X``: the case's input (the table's ``inputs``), else the variable's default, else a value of
  its declared type (a module's ``agent_id`` is the id of an agent the run makes first, its
  ``agent_name`` that agent's name); converted to the declared type (optional object attributes);
- ``local.X``: the local, evaluated; ``path.module``: ``.``;
- ``data.coder_workspace``, ``coder_workspace_owner``, ``coder_provisioner``, ``coder_task`` and
  ``coder_external_auth``: the collection's lookups of the same name; ``data.coder_parameter.X``: the
  ``workspace_parameter`` lookup of that block;
- ``coder_agent.X.id`` and every other output of a resource the collection has a module for: what
  that module call returned (the call is made first);
- any other resource, data source or module output (known only after a real apply): an ``Opaque``
  value, its address; in a string it is that address (``docker_container.workspace[0].id``), the same
  for every reference to it, and what is computed from it as a collection (a ``for`` over it,
  ``jsondecode`` of it) is opaque too, as Terraform's unknown values are;
- ``file()``: a data file of the case, else ``file(<path>)``; ``templatefile()``: ``templatefile(<path>)``;
- ``count`` and ``for_each``: a resource with ``count`` is applied once (``count.index`` 0), one with
  ``for_each`` once per element, none for an empty collection, and once (``each.key`` and
  ``each.value`` ``test``) when the collection is known only after apply.

An attribute that cannot be evaluated (an opaque value where the option is not a plain string, a
function this file does not implement) gets a value of the option's type and is listed in the
outcome's ``fallbacks``."""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import hashlib
import json
import math
import os
import posixpath
import re
import typing as t
import urllib.parse
import uuid

import hcl2
from lark import Token, Tree

__all__ = ["MODULE_KINDS", "Block", "Body", "Case", "RefusedError", "UnresolvedError", "load_case", "parse", "terraform_string"]

# Each resource type of the Coder provider the collection has a module for: the module and the key of
# its result that holds the resource.
MODULE_KINDS: dict[str, tuple[str, str]] = {
    "coder_agent": ("workspace_agent", "agent"),
    "coder_app": ("workspace_app", "app"),
    "coder_script": ("workspace_script", "script"),
    "coder_env": ("workspace_env", "env"),
    "coder_metadata": ("workspace_metadata", "metadata"),
    "coder_devcontainer": ("workspace_devcontainer", "devcontainer"),
    "coder_external_agent": ("workspace_external_agent", "external_agent"),
}
# Terraform's meta-arguments: not arguments of the resource.
META_ARGUMENTS = frozenset({"count", "for_each", "depends_on", "provider", "lifecycle", "connection", "provisioner"})
UUID_NAMESPACE = uuid.UUID("6ba7b811-9dad-11d1-80b4-00c04fd430c8")  # uuid.NAMESPACE_URL


class UnresolvedError(Exception):
    """An expression the converter does not evaluate."""


class RefusedError(Exception):
    """A module call or a lookup failed: ``message`` is its error."""

    def __init__(self, address: str, message: str) -> None:
        super().__init__(f"{address}: {message}")
        self.address = address
        self.message = message


# ---------------------------------------------------------------------------- the parse tree

Expr = tuple[t.Any, ...]  # ("lit", value), ("var", name), ("attr", expr, name), ... (see _expression)


@dataclasses.dataclass
class Block:
    kind: str
    labels: list[str]
    body: Body


@dataclasses.dataclass
class Body:
    attributes: dict[str, Expr] = dataclasses.field(default_factory=dict)
    blocks: list[Block] = dataclasses.field(default_factory=list)


def _trees(tree: Tree[t.Any]) -> list[Tree[t.Any]]:
    return [child for child in tree.children if isinstance(child, Tree) and child.data != "new_line_or_comment"]


def _name(tree: Tree[t.Any]) -> str:
    """An identifier, a keyword or a literal value used as a name, or a quoted label."""
    if tree.data == "string":
        return t.cast("str", _literal_template(_template(tree)))
    token = tree.children[0]
    return str(token)


def _literal_template(parts: list[t.Any]) -> str | None:
    """The text of a template without interpolations or directives, or None."""
    return "".join(parts) if all(isinstance(part, str) for part in parts) else None


def parse(text: str) -> Body:
    """A file (or a part of one) as a Body."""
    start = hcl2.parses_to_tree(text)
    return _body(_trees(start)[0])


def _body(tree: Tree[t.Any]) -> Body:
    body = Body()
    for child in _trees(tree):
        if child.data == "attribute":
            name_tree, value = _trees(child)
            body.attributes[_name(name_tree)] = _expression(value)
        elif child.data == "block":
            parts = _trees(child)
            body.blocks.append(Block(_name(parts[0]), [_name(label) for label in parts[1:-1]], _body(parts[-1])))
    return body


_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}


def _unescape(text: str) -> str:
    """A quoted string's literal characters: HCL's backslash escapes."""

    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] in ("u", "U"):
            return chr(int(code[1:], 16))
        return _ESCAPES.get(code, "\\" + code)

    return re.sub(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", one, text, flags=re.DOTALL)


def _template(tree: Tree[t.Any], *, raw: bool = False) -> list[t.Any]:
    """A quoted string's parts: text, ("interp", expr) and the flat directives; then nested."""
    flat: list[t.Any] = []
    for part in tree.children:
        if not isinstance(part, Tree):
            continue  # the quotes
        (inner,) = part.children
        if isinstance(inner, Token):
            text = str(inner)
            if inner.type == "ESCAPED_INTERPOLATION":
                flat.append("${" + text[3:])
            elif inner.type == "ESCAPED_DIRECTIVE":
                flat.append("%{" + text[3:])
            else:
                flat.append(text if raw else _unescape(text))
        else:
            flat.append(_directive(inner))
    return _nest(_strip(flat))


def _directive(tree: Tree[t.Any]) -> tuple[t.Any, ...]:
    tokens = [str(child) for child in tree.children if isinstance(child, Token)]
    strip_left = len(tokens) > 1 and tokens[1] == "~"
    strip_right = tokens[-2] == "~" if len(tokens) > 1 else False
    if tree.data == "interpolation":
        return ("interp", _expression(_trees(tree)[0]), False, False)
    if tree.data == "template_if_start":
        return ("if", _expression(_trees(tree)[0]), strip_left, strip_right)
    if tree.data == "template_for_start":
        trees = _trees(tree)
        names = [_name(name) for name in trees if name.data == "identifier"]
        return ("for", names, _expression(trees[-1]), strip_left, strip_right)
    return (tree.data.replace("template_", ""), strip_left, strip_right)  # else, endif, endfor


def _strip(flat: list[t.Any]) -> list[t.Any]:
    """Apply the ``~`` strip markers to the text around directives."""
    out = list(flat)
    for index, part in enumerate(out):
        if isinstance(part, tuple) and part[0] != "interp":
            strip_left, strip_right = part[-2], part[-1]
            if strip_left and index > 0 and isinstance(out[index - 1], str):
                out[index - 1] = out[index - 1].rstrip()
            if strip_right and index + 1 < len(out) and isinstance(out[index + 1], str):
                out[index + 1] = out[index + 1].lstrip()
    return out


def _nest(flat: list[t.Any]) -> list[t.Any]:
    """if/else/endif and for/endfor as nested parts: ("if", cond, then, else), ("for", names, coll, body)."""
    stack: list[tuple[tuple[t.Any, ...], list[t.Any], list[t.Any] | None]] = []
    current: list[t.Any] = []
    for part in flat:
        if isinstance(part, str) or part[0] == "interp":
            current.append(part if isinstance(part, str) else ("interp", part[1]))
        elif part[0] in ("if", "for"):
            stack.append((part, current, None))
            current = []
        elif part[0] == "else":
            opener, outer, _none = stack.pop()
            stack.append((opener, outer, current))
            current = []
        else:  # endif, endfor
            opener, outer, then = stack.pop()
            if opener[0] == "if":
                outer.append(("if", opener[1], then if then is not None else current, current if then is not None else []))
            else:
                outer.append(("for", opener[1], opener[2], current))
            current = outer
    if stack:
        raise UnresolvedError("a template directive is not closed")
    return current


_HEREDOC = re.compile(r"<<(-?)([A-Za-z][A-Za-z0-9._-]*)\r?\n(.*?)\r?\n?[ \t]*\2\r?\n?$", re.DOTALL)


def _heredoc(text: str) -> Expr:
    match = _HEREDOC.match(text)
    if not match:
        raise UnresolvedError("a heredoc the converter does not read")
    trim, _marker, content = match.groups()
    lines = content.split("\n") if content else []
    if trim:
        indents = [len(line) - len(line.lstrip(" \t")) for line in lines if line.strip()]
        cut = min(indents) if indents else 0
        lines = [line[cut:] for line in lines]
    return ("tmpl", _heredoc_template("\n".join(lines) + ("\n" if lines else "")))


def _heredoc_template(text: str) -> list[t.Any]:
    """A heredoc's text as template parts: its interpolations and directives are parsed as a quoted
    string's (its text has no backslash escapes, so it is escaped for the quoted form first)."""
    pieces: list[str] = []
    index = 0
    while index < len(text):
        found = [pos for pos in (text.find("${", index), text.find("%{", index)) if pos >= 0]
        start = min(found) if found else len(text)
        if start > index:
            pieces.append(text[index:start].replace("\\", "\\\\").replace('"', '\\"'))
        if start == len(text):
            break
        if start > 0 and text[start - 1] == text[start]:  # $${ and %%{ are escapes
            pieces.append(text[start] + "{")
            index = start + 2
            continue
        end = _closing_brace(text, start + 2)
        pieces.append(text[start : end + 1])
        index = end + 1
    tree = hcl2.parses_to_tree('x = "' + "".join(pieces) + '"\n')
    attribute = _trees(_trees(tree)[0])[0]
    string = _trees(attribute)[1]
    while string.data != "string":
        string = _trees(string)[0]
    return _template(string)


def _closing_brace(text: str, index: int) -> int:
    """The position of the ``}`` closing an interpolation whose expression starts at index."""
    depth = 0
    while index < len(text):
        char = text[index]
        if char == '"':
            index = _string_end(text, index + 1)
        elif char in "{[(":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "}":
            if depth == 0:
                return index
            depth -= 1
        index += 1
    raise UnresolvedError("an interpolation is not closed")


def _string_end(text: str, index: int) -> int:
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == '"':
            return index
        if text.startswith("${", index) or text.startswith("%{", index):
            index = _closing_brace(text, index + 2)
        index += 1
    raise UnresolvedError("a string is not closed")


def _expression(tree: Tree[t.Any]) -> Expr:
    kind = tree.data
    trees = _trees(tree)
    if kind == "expr_term":
        return _expression(trees[0])
    if kind == "int_lit":
        return ("lit", int(str(tree.children[0])))
    if kind == "float_lit":
        return ("lit", float(str(tree.children[0])))
    if kind == "literal_value":
        return ("lit", {"true": True, "false": False, "null": None}[str(tree.children[0])])
    if kind == "string":
        return ("tmpl", _template(tree))
    if kind == "template_string":
        return ("lit", _unescape(str(tree.children[0])[2:-2]))
    if kind in ("heredoc_template", "heredoc_template_trim"):
        return _heredoc(str(tree.children[0]))
    if kind == "identifier":
        return ("var", str(tree.children[0]))
    if kind == "tuple":
        return ("tuple", [_expression(item) for item in trees])
    if kind == "object":
        elements = []
        for element in trees:
            key_tree, value_tree = _trees(element)
            key = _trees(key_tree)[0] if _trees(key_tree) else key_tree
            if key.data == "expr_term" and _trees(key) and _trees(key)[0].data == "identifier":
                key_expr: Expr = ("lit", str(_trees(key)[0].children[0]))
            elif key.data == "keyword":
                key_expr = ("lit", str(key.children[0]))
            else:
                key_expr = _expression(key)
            elements.append((key_expr, _expression(value_tree)))
        return ("object", elements)
    if kind == "function_call":
        names = [str(name.children[0]) for name in trees if name.data == "identifier"]
        arguments = next((item for item in trees if item.data == "arguments"), None)
        args = [_expression(item) for item in _trees(arguments)] if arguments is not None else []
        expand = arguments is not None and any(isinstance(item, Token) and item.type == "ELLIPSIS" for item in arguments.children)
        return ("call", "::".join(names), args, expand)
    if kind == "index_expr_term":
        return ("index", _expression(trees[0]), _index(trees[1]))
    if kind == "get_attr_expr_term":
        return ("attr", _expression(trees[0]), _name(_trees(trees[1])[0]))
    if kind in ("attr_splat_expr_term", "full_splat_expr_term"):
        steps = []
        for step in _trees(trees[1]):
            steps.append(("attr", _name(_trees(step)[0])) if step.data == "get_attr" else ("index", _index(step)))
        return ("splat", _expression(trees[0]), steps)
    if kind == "conditional":
        condition, when_true, when_false = trees
        return ("cond", _expression(condition), _expression(when_true), _expression(when_false))
    if kind == "binary_op":
        left, term = trees[0], trees[1]
        operator, right = _trees(term)
        return ("binary", str(operator.children[0]), _expression(left), _expression(right))
    if kind == "unary_op":
        return ("unary", str(tree.children[0]), _expression(trees[0]))
    if kind in ("for_tuple_expr", "for_object_expr"):
        intro = next(item for item in trees if item.data == "for_intro")
        intro_trees = _trees(intro)
        names = [str(item.children[0]) for item in intro_trees if item.data == "identifier"]
        collection = _expression(intro_trees[-1])
        condition_tree = next((item for item in trees if item.data == "for_cond"), None)
        keep_if = _expression(_trees(condition_tree)[0]) if condition_tree is not None else None
        values = [item for item in trees if item.data not in ("for_intro", "for_cond")]
        if kind == "for_tuple_expr":
            return ("for_tuple", names, collection, _expression(values[0]), keep_if)
        grouped = any(isinstance(item, Token) and item.type == "ELLIPSIS" for item in tree.children)
        return ("for_object", names, collection, _expression(values[0]), _expression(values[1]), grouped, keep_if)
    raise UnresolvedError(f"an expression of kind {kind}")


def _index(tree: Tree[t.Any]) -> Expr:
    if tree.data == "short_index":
        return ("lit", int(str(tree.children[-1])))
    return _expression(_trees(tree)[0])


# ---------------------------------------------------------------------------- values


@dataclasses.dataclass(frozen=True)
class Opaque:
    """An output of something only a real deployment has (another provider's resource, a module):
    its address stands for it."""

    address: str

    def attr(self, name: str) -> Opaque:
        return Opaque(f"{self.address}.{name}")

    def index(self, key: t.Any) -> Opaque:
        return Opaque(f"{self.address}[{json.dumps(key)}]")


class Namespace:
    """A root of references (var, local, data, a resource type)."""

    def __init__(self, get: t.Callable[[str], t.Any]) -> None:
        self.get = get


class Instances:
    """The instances of a resource or data source, by key (count: the one key 0)."""

    def __init__(self, address: str, instances: dict[t.Any, t.Any]) -> None:
        self.address = address
        self.instances = instances

    def single(self) -> t.Any:
        if len(self.instances) != 1:
            raise UnresolvedError(f"{self.address} has {len(self.instances)} instances")
        return next(iter(self.instances.values()))

    def index(self, key: t.Any) -> t.Any:
        if key in self.instances:
            return self.instances[key]
        if key in (0, "0"):
            return self.single()
        raise UnresolvedError(f"{self.address}[{key!r}] is no instance")


def concrete(value: t.Any) -> t.Any:
    """A value as an operator or a function takes it: an opaque output is its address."""
    if isinstance(value, Opaque):
        return value.address
    if isinstance(value, Instances):
        return concrete(value.single())
    if isinstance(value, Namespace):
        raise UnresolvedError("a reference root used as a value")
    return value


def deep_concrete(value: t.Any) -> t.Any:
    value = concrete(value)
    if isinstance(value, dict):
        return {key: deep_concrete(item) for key, item in value.items()}
    if isinstance(value, list):
        return [deep_concrete(item) for item in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def number_string(value: float) -> str:
    """A number as Terraform writes it in a string."""
    if isinstance(value, int) or value.is_integer():
        return str(int(value))
    return repr(value)


def terraform_string(value: t.Any) -> str:
    """A primitive value converted to a string as Terraform converts it."""
    value = concrete(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return number_string(value)
    if isinstance(value, str):
        return value
    raise UnresolvedError(f"{type(value).__name__} is not a string")


def _number(value: t.Any) -> float:
    value = concrete(value)
    if isinstance(value, bool):
        raise UnresolvedError("a bool is not a number")
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            raise UnresolvedError(f"{value!r} is not a number") from None
        return int(number) if number.is_integer() and re.fullmatch(r"-?\d+", value.strip()) else number
    raise UnresolvedError(f"{type(value).__name__} is not a number")


def _bool(value: t.Any) -> bool:
    value = concrete(value)
    if isinstance(value, bool):
        return value
    if value in ("true", "false"):
        return bool(value == "true")
    raise UnresolvedError(f"{value!r} is not a bool")


def _equal(left: t.Any, right: t.Any) -> bool:
    left, right = deep_concrete(left), deep_concrete(right)
    if isinstance(left, bool) != isinstance(right, bool):
        return False
    if isinstance(left, (int, float)) != isinstance(right, (int, float)) and not (left is None or right is None):
        return False
    return bool(left == right)


def _items(collection: t.Any) -> list[tuple[t.Any, t.Any]]:
    collection = concrete(collection)
    if isinstance(collection, dict):
        return sorted(collection.items())
    if isinstance(collection, list):
        return list(enumerate(collection))
    raise UnresolvedError(f"cannot iterate over {type(collection).__name__}")


def _json(value: t.Any) -> str:
    """jsonencode: Go's encoding (keys sorted, no spaces, HTML characters escaped)."""
    text = json.dumps(deep_concrete(value), separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escape)
    return text


def _format(spec: str, *args: t.Any) -> str:
    values = iter(args)

    def one(match: re.Match[str]) -> str:
        verb = match.group(2)
        if verb == "%":
            return "%"
        value = concrete(next(values))
        if verb == "q":
            return json.dumps(terraform_string(value), ensure_ascii=False)
        if verb == "d":
            return str(int(_number(value)))
        if verb in ("v", "s"):
            return _json(value) if isinstance(value, (list, dict)) else terraform_string(value)
        raise UnresolvedError(f"format verb %{verb}")

    return re.sub(r"%([-+ #0-9.]*)([a-zA-Z%])", one, spec)


def _replace(text: str, search: str, replacement: str) -> str:
    if len(search) > 1 and search.startswith("/") and search.endswith("/"):
        return re.sub(search[1:-1], re.sub(r"\$(\d+)", r"\\\1", replacement), text)
    return text.replace(search, replacement)


def _toset(value: t.Any) -> list[t.Any]:
    items = [concrete(item) for item in _list(value)]
    unique = list(dict.fromkeys(json.dumps(item, sort_keys=True) for item in items))
    values = [json.loads(item) for item in unique]
    return sorted(values) if all(isinstance(item, str) for item in values) else values


def _list(value: t.Any) -> list[t.Any]:
    value = concrete(value)
    if not isinstance(value, list):
        raise UnresolvedError(f"{type(value).__name__} is not a list")
    return value


def _map(value: t.Any) -> dict[str, t.Any]:
    value = concrete(value)
    if not isinstance(value, dict):
        raise UnresolvedError(f"{type(value).__name__} is not a map")
    return value


def _lookup(mapping: t.Any, key: t.Any, *default: t.Any) -> t.Any:
    mapping = concrete(mapping)
    if isinstance(mapping, dict) and key in mapping:
        return mapping[key]
    if default:
        return default[0]
    raise UnresolvedError(f"no key {key!r}")


def _element(items: t.Any, index: t.Any) -> t.Any:
    items = _list(items)
    if not items:
        raise UnresolvedError("element of an empty list")
    return items[int(_number(index)) % len(items)]


def _one(items: t.Any) -> t.Any:
    items = _list(items)
    if len(items) > 1:
        raise UnresolvedError("one() of several elements")
    return items[0] if items else None


def _coalesce(*values: t.Any) -> t.Any:
    for value in values:
        plain = concrete(value)
        if plain is not None and plain != "":
            return plain
    raise UnresolvedError("no non-null, non-empty argument to coalesce")


def _flatten(value: t.Any) -> list[t.Any]:
    out: list[t.Any] = []
    for item in _list(value):
        plain = concrete(item)
        out.extend(_flatten(plain) if isinstance(plain, list) else [plain])
    return out


def _regex(pattern: str, text: str) -> t.Any:
    match = re.search(pattern, text)
    if match is None:
        raise UnresolvedError("regex does not match")
    if match.groupdict():
        return match.groupdict()
    return list(match.groups()) if match.groups() else match.group(0)


def _substr(text: str, offset: t.Any, length: t.Any) -> str:
    start, size = int(_number(offset)), int(_number(length))
    if start < 0:
        start += len(text)
    return text[start:] if size < 0 else text[start : start + size]


def _strings(function: t.Callable[..., t.Any]) -> t.Callable[..., t.Any]:
    """A function of strings: its arguments converted as Terraform converts them."""
    return lambda *args: function(*(terraform_string(arg) for arg in args))


FUNCTIONS: dict[str, t.Callable[..., t.Any]] = {
    "abs": lambda x: abs(_number(x)),
    "ceil": lambda x: math.ceil(_number(x)),
    "floor": lambda x: math.floor(_number(x)),
    "max": lambda *xs: max(_number(x) for x in xs),
    "min": lambda *xs: min(_number(x) for x in xs),
    "parseint": lambda text, base: int(terraform_string(text), int(_number(base))),
    "chomp": _strings(lambda s: s.rstrip("\r\n")),
    "endswith": _strings(lambda s, suffix: s.endswith(suffix)),
    "startswith": _strings(lambda s, prefix: s.startswith(prefix)),
    "strcontains": _strings(lambda s, part: part in s),
    "format": lambda spec, *args: _format(terraform_string(spec), *args),
    "formatlist": lambda spec, items: [_format(terraform_string(spec), item) for item in _list(items)],
    "indent": lambda n, s: terraform_string(s).replace("\n", "\n" + " " * int(_number(n))),
    "join": lambda sep, *lists: terraform_string(sep).join(terraform_string(item) for items in lists for item in _list(items)),
    "lower": _strings(str.lower),
    "upper": _strings(str.upper),
    "title": _strings(lambda s: re.sub(r"\b[a-z]", lambda m: m.group(0).upper(), s)),
    "regex": _strings(_regex),
    "regexall": _strings(lambda p, s: [m.group(0) for m in re.finditer(p, s)]),
    "replace": _strings(_replace),
    "split": _strings(lambda sep, s: s.split(sep)),
    "strrev": _strings(lambda s: s[::-1]),
    "substr": lambda s, offset, length: _substr(terraform_string(s), offset, length),
    "trim": _strings(lambda s, chars: s.strip(chars)),
    "trimprefix": _strings(lambda s, prefix: s[len(prefix) :] if prefix and s.startswith(prefix) else s),
    "trimsuffix": _strings(lambda s, suffix: s[: -len(suffix)] if suffix and s.endswith(suffix) else s),
    "trimspace": _strings(str.strip),
    "alltrue": lambda items: all(_bool(item) for item in _list(items)),
    "anytrue": lambda items: any(_bool(item) for item in _list(items)),
    "coalesce": _coalesce,
    "coalescelist": lambda *lists: next((_list(items) for items in lists if _list(items)), []),
    "compact": lambda items: [concrete(item) for item in _list(items) if concrete(item) not in (None, "")],
    "concat": lambda *lists: [item for items in lists for item in _list(items)],
    "contains": lambda items, value: any(_equal(item, value) for item in _list(items)),
    "distinct": lambda items: list(dict.fromkeys(_list(items))),
    "element": _element,
    "flatten": _flatten,
    "index": lambda items, value: next(i for i, item in enumerate(_list(items)) if _equal(item, value)),
    "keys": lambda mapping: sorted(_map(mapping)),
    "values": lambda mapping: [value for _key, value in sorted(_map(mapping).items())],
    "length": lambda value: len(concrete(value)) if concrete(value) is not None else 0,
    "lookup": _lookup,
    "merge": lambda *maps: {key: value for mapping in maps if concrete(mapping) is not None for key, value in _map(mapping).items()},
    "one": _one,
    "range": lambda *args: list(range(*(int(_number(arg)) for arg in args))),
    "reverse": lambda items: list(reversed(_list(items))),
    "slice": lambda items, start, end: _list(items)[int(_number(start)) : int(_number(end))],
    "sort": lambda items: sorted(terraform_string(item) for item in _list(items)),
    "sum": lambda items: sum(_number(item) for item in _list(items)),
    "zipmap": lambda keys, values: dict(zip(_list(keys), _list(values))),
    "base64encode": lambda s: base64.b64encode(terraform_string(s).encode()).decode(),
    "base64decode": lambda s: base64.b64decode(terraform_string(s)).decode(),
    "jsonencode": _json,
    "jsondecode": lambda s: json.loads(terraform_string(s)),
    "urlencode": lambda s: urllib.parse.quote(terraform_string(s), safe="-._~"),
    "md5": lambda s: hashlib.md5(terraform_string(s).encode()).hexdigest(),
    "sha1": lambda s: hashlib.sha1(terraform_string(s).encode()).hexdigest(),
    "sha256": lambda s: hashlib.sha256(terraform_string(s).encode()).hexdigest(),
    "uuidv5": lambda namespace, name: str(uuid.uuid5(UUID_NAMESPACE, terraform_string(namespace) + terraform_string(name))),
    "basename": _strings(posixpath.basename),
    "dirname": _strings(posixpath.dirname),
    "abspath": _strings(lambda p: posixpath.normpath(posixpath.join("/", p))),
    "pathexpand": _strings(lambda p: "/home/coder" + p[1:] if p.startswith("~") else p),
    "file": _strings(lambda path: f"file({path})"),
    "filebase64": _strings(lambda path: base64.b64encode(f"file({path})".encode()).decode()),
    "fileexists": _strings(lambda _path: False),
    "templatefile": lambda path, _vars=None: f"templatefile({terraform_string(path)})",
    "timestamp": lambda: "2026-01-01T00:00:00Z",
    "tostring": lambda value: None if concrete(value) is None else terraform_string(value),
    "tonumber": lambda value: None if concrete(value) is None else _number(value),
    "tobool": lambda value: None if concrete(value) is None else _bool(value),
    "tolist": _list,
    "toset": _toset,
    "tomap": _map,
    "nonsensitive": lambda value: value,
    "sensitive": lambda value: value,
}


# Functions of collections and decoders: with an opaque output as an argument the result is opaque
# too (Terraform's unknown value: known after apply), not a function of the address's text.
_OPAQUE_IN_OPAQUE_OUT = frozenset(
    (
        *("alltrue", "anytrue", "coalescelist", "compact", "concat", "contains", "distinct", "element", "flatten", "formatlist"),
        *("index", "join", "jsondecode", "keys", "length", "lookup", "merge", "one", "reverse", "slice", "sort", "sum"),
        *("tolist", "tomap", "toset", "values", "zipmap"),
    )
)


# ---------------------------------------------------------------------------- a case


@dataclasses.dataclass
class Case:
    """One upstream configuration: its files, parsed, and what they declare."""

    case_id: str
    sources: list[str]
    variables: dict[str, Body]
    locals: dict[str, Expr]
    resources: list[Block]  # resource blocks of the types in MODULE_KINDS, in file order
    declared: set[str]  # every resource and data source address (type.label, data.type.label)
    data: dict[str, Block]  # data.<type>.<label>
    parameters: list[Block]  # data "coder_parameter" blocks, in file order
    other_coder: list[str]  # coder_* resources the collection has no module for
    files: dict[str, str] = dataclasses.field(default_factory=dict)  # data files read with file(), by name

    @property
    def parameter_addresses(self) -> list[str]:
        return [f"data.coder_parameter.{block.labels[1]}" for block in self.parameters]


def load_case(case_id: str, paths: list[str]) -> Case:
    case = Case(case_id, [], {}, {}, [], set(), {}, [], [])
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        case.sources.append(text.split("\n", 1)[0].lstrip("# "))
        body = parse(text)
        for block in body.blocks:
            if block.kind == "variable":
                case.variables[block.labels[0]] = block.body
            elif block.kind == "locals":
                case.locals.update(block.body.attributes)
            elif block.kind == "resource":
                case.declared.add(".".join(block.labels))
                if block.labels[0] in MODULE_KINDS:
                    case.resources.append(block)
                elif block.labels[0].startswith("coder_"):
                    case.other_coder.append(".".join(block.labels))
            elif block.kind == "data":
                address = "data." + ".".join(block.labels)
                case.declared.add(address)
                case.data[address] = block
                if block.labels[0] == "coder_parameter":
                    case.parameters.append(block)
    return case


def data_files(directory: str, case_id: str) -> dict[str, str]:
    """A case's data files (``<case id>.<name>``, not HCL), by name."""
    files = {}
    for name in os.listdir(directory):
        if name.startswith(case_id + ".") and not name.endswith(".tf"):
            with open(os.path.join(directory, name), encoding="utf-8") as handle:
                files[name[len(case_id) + 1 :]] = handle.read()
    return files


def case_paths(directory: str) -> dict[str, list[str]]:
    """The cases of a directory: ``<id>.tf`` and its other files ``<id>.<part>.tf``."""
    cases: dict[str, list[str]] = {}
    for name in sorted(os.listdir(directory)):
        if name.endswith(".tf"):
            cases.setdefault(name[:-3].split(".", 1)[0], []).append(os.path.join(directory, name))
    return cases


class Scope:
    """The names an expression sees: the for-expression and iterator variables, each and count, then the roots."""

    def __init__(self, roots: t.Callable[[str], t.Any], names: dict[str, t.Any] | None = None, files: t.Callable[[str], str] | None = None) -> None:
        self.roots = roots
        self.names = names or {}
        self.files = files  # file(): the case's data files

    def child(self, **names: t.Any) -> Scope:
        return Scope(self.roots, {**self.names, **names}, self.files)

    def get(self, name: str) -> t.Any:
        if name in self.names:
            return self.names[name]
        return self.roots(name)


def evaluate(expr: Expr, scope: Scope) -> t.Any:
    kind = expr[0]
    if kind == "lit":
        return expr[1]
    if kind == "tmpl":
        parts = expr[1]
        if len(parts) == 1 and isinstance(parts[0], tuple) and parts[0][0] == "interp":
            return evaluate(parts[0][1], scope)  # "${x}" is x, of x's type
        return _render(parts, scope)
    if kind == "var":
        return scope.get(expr[1])
    if kind == "attr":
        return _attr(evaluate(expr[1], scope), expr[2])
    if kind == "index":
        key = evaluate(expr[2], scope)
        if isinstance(key, Opaque):
            return Opaque(f"[{key.address}]")
        return _index_value(evaluate(expr[1], scope), deep_concrete(key))
    if kind == "splat":
        value = evaluate(expr[1], scope)
        value = value if isinstance(value, Opaque) else concrete(value)
        if isinstance(value, Opaque):
            return value
        items = [] if value is None else value if isinstance(value, list) else [value]
        out = []
        for item in items:
            current = item
            for step, argument in expr[2]:
                current = _attr(current, argument) if step == "attr" else _index_value(current, deep_concrete(evaluate(argument, scope)))
            out.append(current)
        return out
    if kind == "call":
        return _call(expr, scope)
    if kind == "cond":
        return evaluate(expr[2] if _bool(evaluate(expr[1], scope)) else expr[3], scope)
    if kind == "binary":
        return _binary(expr[1], expr[2], expr[3], scope)
    if kind == "unary":
        value = evaluate(expr[2], scope)
        return (not _bool(value)) if expr[1] == "!" else -_number(value)
    if kind == "tuple":
        return [evaluate(item, scope) for item in expr[1]]
    if kind == "object":
        return {terraform_string(evaluate(key, scope)): evaluate(value, scope) for key, value in expr[1]}
    if kind in ("for_tuple", "for_object"):
        return _for(expr, scope)
    raise UnresolvedError(f"an expression of kind {kind}")


def _attr(value: t.Any, name: str) -> t.Any:
    if isinstance(value, (Namespace,)):
        return value.get(name)
    if isinstance(value, Opaque):
        return value.attr(name)
    if isinstance(value, Instances):
        value = value.single()
    if isinstance(value, dict) and name in value:
        return value[name]
    if isinstance(value, Opaque):
        return value.attr(name)
    raise UnresolvedError(f"no attribute {name}")


def _index_value(value: t.Any, key: t.Any) -> t.Any:
    if isinstance(value, Opaque):
        return value.index(key)
    if isinstance(value, Instances):
        return value.index(key)
    if isinstance(value, list):
        if isinstance(key, str) and key.isdigit():
            key = int(key)
        if isinstance(key, (int, float)) and not isinstance(key, bool) and 0 <= int(key) < len(value):
            return value[int(key)]
        raise UnresolvedError(f"index {key!r} out of range")
    if isinstance(value, dict):
        key = terraform_string(key)
        if key in value:
            return value[key]
        raise UnresolvedError(f"no key {key!r}")
    raise UnresolvedError(f"cannot index {type(value).__name__}")


def _call(expr: Expr, scope: Scope) -> t.Any:
    _kind, name, args, expand = expr
    if name == "try":
        for argument in args:
            try:
                value = evaluate(argument, scope)
                deep_concrete(value)  # a reference root as a value fails here, inside try()
            except (UnresolvedError, KeyError, IndexError, TypeError, ValueError):
                continue
            return value
        raise UnresolvedError("no argument of try() evaluates")
    if name == "can":
        try:
            deep_concrete(evaluate(args[0], scope))
        except (UnresolvedError, KeyError, IndexError, TypeError, ValueError):
            return False
        return True
    if name == "file" and scope.files is not None and args:
        return scope.files(terraform_string(evaluate(args[0], scope)))
    function = FUNCTIONS.get(name)
    if function is None:
        raise UnresolvedError(f"the function {name}()")
    values = [evaluate(argument, scope) for argument in args]
    opaque = next((value for value in values if isinstance(value, Opaque)), None)
    if opaque is not None and name in _OPAQUE_IN_OPAQUE_OUT:
        return Opaque(f"{name}({opaque.address})")
    if expand and values:
        values = values[:-1] + list(concrete(values[-1]))
    try:
        return function(*values)
    except RefusedError:
        raise
    except (KeyError, IndexError, TypeError, ValueError, StopIteration, AttributeError, re.error) as exc:
        raise UnresolvedError(f"{name}(): {exc}") from None


def _binary(operator: str, left_expr: Expr, right_expr: Expr, scope: Scope) -> t.Any:
    if operator == "&&":
        return _bool(evaluate(left_expr, scope)) and _bool(evaluate(right_expr, scope))
    if operator == "||":
        return _bool(evaluate(left_expr, scope)) or _bool(evaluate(right_expr, scope))
    left, right = evaluate(left_expr, scope), evaluate(right_expr, scope)
    if operator == "==":
        return _equal(left, right)
    if operator == "!=":
        return not _equal(left, right)
    a, b = _number(left), _number(right)
    results: dict[str, t.Callable[[], t.Any]] = {
        "+": lambda: a + b,
        "-": lambda: a - b,
        "*": lambda: a * b,
        "/": lambda: a / b,
        "%": lambda: a % b,
        "<": lambda: a < b,
        ">": lambda: a > b,
        "<=": lambda: a <= b,
        ">=": lambda: a >= b,
    }
    try:
        return results[operator]()
    except ZeroDivisionError:
        raise UnresolvedError("division by zero") from None


def _for(expr: Expr, scope: Scope) -> t.Any:
    names, collection = expr[1], evaluate(expr[2], scope)
    if isinstance(collection, Opaque):
        return Opaque(f"[for {collection.address}]")
    condition = expr[-1]
    tuple_out: list[t.Any] = []
    object_out: dict[str, t.Any] = {}
    for key, value in _items(collection):
        names_in = dict(zip(names, (key, value))) if len(names) == 2 else {names[0]: value}
        inner = scope.child(**names_in)
        if condition is not None and not _bool(evaluate(condition, inner)):
            continue
        if expr[0] == "for_tuple":
            tuple_out.append(evaluate(expr[3], inner))
            continue
        out_key = terraform_string(evaluate(expr[3], inner))
        out_value = evaluate(expr[4], inner)
        if expr[5]:
            object_out.setdefault(out_key, []).append(out_value)
        else:
            object_out[out_key] = out_value
    return tuple_out if expr[0] == "for_tuple" else object_out


def _render(parts: list[t.Any], scope: Scope) -> str:
    out = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        elif part[0] == "interp":
            value = concrete(evaluate(part[1], scope))
            if value is None:
                raise UnresolvedError("a null value in a template")
            out.append(terraform_string(value))
        elif part[0] == "if":
            out.append(_render(part[2] if _bool(evaluate(part[1], scope)) else part[3], scope))
        else:  # for
            names = part[1]
            for key, value in _items(evaluate(part[2], scope)):
                names_in = dict(zip(names, (key, value))) if len(names) == 2 else {names[0]: value}
                out.append(_render(part[3], scope.child(**names_in)))
    return "".join(out)


Fallback = t.Callable[[str, "UnresolvedError | Opaque"], t.Any]


def evaluate_body(body: Body, scope: Scope, fallback: Fallback, prefix: str = "") -> dict[str, t.Any]:
    """A block's attributes and nested blocks as options: blocks as lists of dictionaries (dynamic
    blocks expanded), null attributes left out (Terraform's null is "not set"). ``fallback`` gives the
    value of an attribute that cannot be evaluated, or that is an output only a deployment knows."""
    options: dict[str, t.Any] = {}
    for name, expr in body.attributes.items():
        if not prefix and name in META_ARGUMENTS:
            continue
        try:
            value = evaluate(expr, scope)
            value = fallback(prefix + name, value) if isinstance(value, Opaque) else deep_concrete(value)
        except UnresolvedError as exc:
            value = fallback(prefix + name, exc)
        if value is not None:
            options[name] = value
    for block in body.blocks:
        if not prefix and block.kind in META_ARGUMENTS:
            continue
        if block.kind == "dynamic":
            name = block.labels[0]
            items = options.setdefault(name, [])
            iterator = name
            if "iterator" in block.body.attributes:
                iterator = str(block.body.attributes["iterator"][1])
            content = next((inner for inner in block.body.blocks if inner.kind == "content"), None)
            if content is None:
                continue
            try:
                collection = evaluate(block.body.attributes["for_each"], scope)
                if isinstance(collection, Opaque):
                    raise UnresolvedError(f"known after apply: {collection.address}")
                elements = _items(collection)
            except UnresolvedError as exc:
                fallback(f"{prefix}{name} (dynamic for_each)", exc)
                elements = []
            for key, value in elements:
                inner_scope = scope.child(**{iterator: {"key": key, "value": value}})
                items.append(evaluate_body(content.body, inner_scope, fallback, f"{prefix}{name}."))
            continue
        options.setdefault(block.kind, []).append(evaluate_body(block.body, scope, fallback, f"{prefix}{block.kind}."))
    return options


# ---------------------------------------------------------------------------- a run of a case


class BlockedError(Exception):
    """A block refers to one that failed: it cannot be evaluated."""

    def __init__(self, address: str) -> None:
        super().__init__(address)
        self.address = address


@dataclasses.dataclass
class Outcome:
    """What one resource instance or parameter gave in one run."""

    address: str
    options: dict[str, t.Any] = dataclasses.field(default_factory=dict)
    result: dict[str, t.Any] | None = None
    error: str | None = None  # the module's or the lookup's message
    blocked_by: str | None = None
    fallbacks: list[str] = dataclasses.field(default_factory=list)
    # A parameter: (the input or None, the lookup's value) for each lookup, and the one that failed.
    values: list[tuple[str | None, str]] = dataclasses.field(default_factory=list)
    stage: str = ""


_IN_PROGRESS = object()
HOST_AGENT = "main"  # the agent a module's agent_id names (templates call it coder_agent.main)
# The data sources the collection has a lookup for, other than coder_parameter: the lookup.
DATA_LOOKUPS = {
    "coder_workspace": "workspace",
    "coder_workspace_owner": "workspace_owner",
    "coder_provisioner": "workspace_provisioner",
    "coder_task": "workspace_task",
}


class Run:
    """One plan-and-apply of a case: every resource of MODULE_KINDS through ``apply`` (its module),
    every ``data "coder_parameter"`` through ``lookup``; references resolved as the module docstring says.

    ``apply(module, options)`` returns the module's result; ``lookup(name, options, input)`` the
    lookup's dictionary or raises RefusedError (``input``: the parameter's ``name`` and ``value``
    coderd passes); ``parameter_input(options)`` the input a parameter gets, or None. ``data_cache`` keeps the other data sources' lookups across the
    runs of a case (the workspace id must not change between them); ``parameters`` keeps the
    parameters' results (evaluated in the first run)."""

    def __init__(
        self,
        case: Case,
        *,
        apply: t.Callable[[str, dict[str, t.Any]], dict[str, t.Any]],
        lookup: t.Callable[[str, dict[str, t.Any], dict[str, str]], dict[str, t.Any]],
        parameter_input: t.Callable[[dict[str, t.Any]], str | None],
        inputs: dict[str, t.Any],
        data_cache: dict[str, t.Any],
        specs: dict[str, dict[str, dict[str, t.Any]]],
    ) -> None:
        self.case = case
        self.apply_module = apply
        self.lookup = lookup
        self.parameter_input = parameter_input
        self.inputs = inputs
        self.data_cache = data_cache
        self.specs = specs
        self.blocks = {".".join(block.labels): block for block in case.resources}
        self.parameter_blocks = {block.labels[1]: block for block in case.parameters}
        self.applied: dict[str, t.Any] = {}
        self.parameters: dict[str, t.Any] = {}
        self.locals: dict[str, t.Any] = {}
        self.outcomes: dict[str, Outcome] = {}
        self.for_each_notes: dict[str, str] = {}  # resources applied once for a for_each that cannot be evaluated
        self.host: dict[str, t.Any] | None = None
        self.host_name = HOST_AGENT if f"coder_agent.{HOST_AGENT}" not in self.blocks else "module-host"
        # Scripts of one agent written with the same display name, and envs of one agent with the same
        # name, are told apart by their resource name (the modules' key option).
        names = [_name_of(block) for block in case.resources if block.labels[0] in _NAMED_BY]
        self.shared_names = {name for name in names if names.count(name) > 1}
        self.scope = Scope(self.root, files=self.file)

    # -- everything, in file order

    def run(self) -> dict[str, Outcome]:
        for label in self.parameter_blocks:
            with contextlib.suppress(RefusedError, BlockedError):
                self.parameter(label)
        for block in self.case.resources:
            with contextlib.suppress(RefusedError, BlockedError, UnresolvedError):
                self.resource(block.labels[0], block.labels[1])
        return self.outcomes

    # -- reference roots

    def file(self, path: str) -> str:
        """file(): a data file of the case (``<case id>.<name>`` in the corpus), else a stand-in."""
        return self.case.files.get(posixpath.basename(path), f"file({path})")

    def root(self, name: str) -> t.Any:
        if name == "var":
            return Namespace(self.variable)
        if name == "local":
            return Namespace(self.local)
        if name == "data":
            return Namespace(lambda kind: Namespace(lambda label: self.data(kind, label)))
        if name == "path":
            return {"module": ".", "root": ".", "cwd": "."}
        if name == "terraform":
            return {"workspace": "default"}
        if name == "module":
            return Namespace(lambda label: Opaque(f"module.{label}"))
        if name in ("count", "each", "self"):
            raise UnresolvedError(f"{name} outside of its block")
        if name in MODULE_KINDS:
            return Namespace(lambda label: self.resource(name, label))
        return Namespace(lambda label: Opaque(f"{name}.{label}"))

    def variable(self, name: str) -> t.Any:
        body = self.case.variables.get(name)
        if body is None:
            raise UnresolvedError(f"the undeclared variable {name}")
        if name in self.inputs:
            return convert(self.inputs[name], body.attributes.get("type"))
        if "default" in body.attributes:
            return convert(deep_concrete(evaluate(body.attributes["default"], self.scope)), body.attributes.get("type"))
        if name == "agent_id":
            return self.host_agent()["id"]
        if name == "agent_name":
            return self.host_name
        return convert(_type_test_value(name, body.attributes.get("type")), body.attributes.get("type"))

    def local(self, name: str) -> t.Any:
        if name not in self.case.locals:
            raise UnresolvedError(f"the undeclared local {name}")
        value = self.locals.get(name)
        if value is _IN_PROGRESS:
            raise UnresolvedError(f"the local {name} refers to itself")
        if name not in self.locals:
            self.locals[name] = _IN_PROGRESS
            try:
                self.locals[name] = evaluate(self.case.locals[name], self.scope)
            except Exception:
                del self.locals[name]
                raise
        return self.locals[name]

    def data(self, kind: str, label: str) -> t.Any:
        address = f"data.{kind}.{label}"
        if kind == "coder_parameter":
            if label not in self.parameter_blocks:
                raise UnresolvedError(f"the undeclared data source {address}")
            return Instances(address, {0: self.parameter(label)})
        if address not in self.case.data:
            raise UnresolvedError(f"the undeclared data source {address}")
        if kind in DATA_LOOKUPS or kind == "coder_external_auth":
            if address not in self.data_cache:
                options: dict[str, t.Any] = {}
                if kind == "coder_external_auth":
                    options = evaluate_body(self.case.data[address].body, self.scope.child(count={"index": 0}), _no_fallback)
                self.data_cache[address] = self.lookup(DATA_LOOKUPS.get(kind, "workspace_external_auth"), options, {})
            return Instances(address, {0: self.data_cache[address]})
        return Opaque(address)

    # -- parameters and resources

    def parameter(self, label: str) -> dict[str, t.Any]:
        """The parameter's lookup: without an input when it has a default (upstream's value is then the
        default), and with the input ``parameter_input`` gives (coderd passes the user's choice in
        CODER_PARAMETER_<sha256 of the name>); references see the value with the input."""
        address = f"data.coder_parameter.{label}"
        if address in self.data_cache:  # evaluated in the first run of the case
            cached = self.data_cache[address]
            if isinstance(cached, (RefusedError, BlockedError)):
                raise BlockedError(address)
            return t.cast("dict[str, t.Any]", cached)
        if self.parameters.get(label) is _IN_PROGRESS:
            raise UnresolvedError(f"{address} refers to itself")
        self.parameters[label] = _IN_PROGRESS
        outcome = self.outcomes[address] = Outcome(address)
        try:
            outcome.options = evaluate_body(self.parameter_blocks[label].body, self.scope.child(count={"index": 0}), self._fallback(outcome, None))
            result = None
            if outcome.options.get("default") is not None:
                outcome.stage = "without an input"
                result = self.lookup("workspace_parameter", outcome.options, {})
                outcome.values.append((None, result["value"]))
            given = self.parameter_input(outcome.options)
            if given is not None:
                outcome.stage = f"with the input {given!r}"
                result = self.lookup("workspace_parameter", outcome.options, {"name": str(outcome.options.get("name")), "value": given})
                outcome.values.append((given, result["value"]))
            if result is None:
                outcome.stage = "without an input"
                result = self.lookup("workspace_parameter", outcome.options, {})
                outcome.values.append((None, result["value"]))
        except BlockedError as exc:
            outcome.blocked_by = exc.address
            self.data_cache[address] = exc
            raise BlockedError(address) from None
        except RefusedError as exc:
            outcome.error = exc.message
            self.data_cache[address] = exc
            raise BlockedError(address) from None
        outcome.result = result
        self.data_cache[address] = result
        return result

    def resource(self, kind: str, label: str) -> Instances:
        address = f"{kind}.{label}"
        state = self.applied.get(address)
        if state is _IN_PROGRESS:
            raise UnresolvedError(f"{address} refers to itself")
        if isinstance(state, (BlockedError, RefusedError)):
            raise BlockedError(address)
        if isinstance(state, Instances):
            return state
        block = self.blocks.get(address)
        if block is None:
            raise UnresolvedError(f"the undeclared resource {address}")
        self.applied[address] = _IN_PROGRESS
        instances: dict[t.Any, t.Any] = {}
        try:
            for key, names in self._instances(block):
                instance = address if key is None else f"{address}[{json.dumps(key)}]"
                instances[0 if key is None else key] = self._apply(kind, label, instance, block, names)
        except (BlockedError, RefusedError) as exc:
            self.applied[address] = exc
            raise BlockedError(address) from None
        self.applied[address] = Instances(address, instances)
        return t.cast("Instances", self.applied[address])

    def _instances(self, block: Block) -> list[tuple[t.Any, dict[str, t.Any]]]:
        if "for_each" not in block.body.attributes:
            return [(None, {"count": {"index": 0}})]
        try:
            collection = evaluate(block.body.attributes["for_each"], self.scope)
            if isinstance(collection, Opaque):
                raise UnresolvedError(f"known after apply: {collection.address}")
            collection = deep_concrete(collection)
            if isinstance(collection, list):
                collection = {terraform_string(item): item for item in collection}
            if not isinstance(collection, dict):
                raise UnresolvedError(f"a {type(collection).__name__} is no collection")
        except UnresolvedError as exc:
            self.for_each_notes[".".join(block.labels)] = f"for_each: {exc}"
            return [("test", {"each": {"key": "test", "value": "test"}})]
        return [(key, {"each": {"key": key, "value": value}}) for key, value in collection.items()]

    def _apply(self, kind: str, label: str, address: str, block: Block, names: dict[str, t.Any]) -> dict[str, t.Any]:
        module, noun = MODULE_KINDS[kind]
        outcome = self.outcomes[address] = Outcome(address)
        if f"{kind}.{label}" in self.for_each_notes:
            outcome.fallbacks.append(self.for_each_notes[f"{kind}.{label}"])
        spec = self.specs[module]
        try:
            options = evaluate_body(block.body, self.scope.child(**names), self._fallback(outcome, spec))
        except BlockedError as exc:
            outcome.blocked_by = exc.address
            raise
        if kind in ("coder_agent", "coder_devcontainer"):
            options["name"] = label  # upstream: the resource name
        if kind == "coder_metadata" and "item" in options:
            options["items"] = options.pop("item")
        if kind in _NAMED_BY and _name_of(block) in self.shared_names:
            options["key"] = address.split(".", 1)[1]
        outcome.options = conform(options, spec)
        result = self.apply_module(module, outcome.options)
        if result.get("failed"):
            outcome.error = str(result.get("msg"))
            raise RefusedError(address, outcome.error)
        outcome.result = result
        return t.cast("dict[str, t.Any]", result[noun])

    def host_agent(self) -> dict[str, t.Any]:
        """The agent a module's agent_id names (a template calls the module with coder_agent.main.id)."""
        if self.host is None:
            result = self.apply_module("workspace_agent", {"name": self.host_name, "arch": "amd64", "os": "linux"})
            if result.get("failed"):
                raise RefusedError("(the module's agent)", str(result.get("msg")))
            self.host = t.cast("dict[str, t.Any]", result["agent"])
        return self.host

    def _fallback(self, outcome: Outcome, spec: dict[str, dict[str, t.Any]] | None) -> Fallback:
        """An unknown output stands as its address in a string option; any other value that cannot
        be had is a value of the option's type (an agent_id: the module's agent), listed in the outcome."""

        def fallback(path: str, problem: UnresolvedError | Opaque) -> t.Any:
            option = _spec_option(spec, path) if spec is not None else {}
            if isinstance(problem, Opaque):
                if option.get("type", "str") in ("str", "raw") and not option.get("choices"):
                    return problem.address
                problem = UnresolvedError(f"known after apply: {problem.address}")
            outcome.fallbacks.append(f"{path}: {problem}")
            if path == "agent_id":
                return self.host_agent()["id"]
            if option.get("choices"):
                return option["choices"][0]
            return {"int": 1, "bool": False, "list": [], "dict": {}}.get(option.get("type", "str"), "test")

        return fallback


# The resources keyed by their agent and a name, and the attribute that names them.
_NAMED_BY = {"coder_script": "display_name", "coder_env": "name"}


def _name_of(block: Block) -> str:
    """What keys a script or an env besides its resource name: its type, agent_id and name, as written."""
    attributes = block.body.attributes
    return repr((block.labels[0], attributes.get("agent_id"), attributes.get(_NAMED_BY[block.labels[0]])))


def _no_fallback(path: str, problem: UnresolvedError | Opaque) -> t.Any:
    if isinstance(problem, Opaque):
        return problem.address
    raise problem


def _spec_option(spec: dict[str, dict[str, t.Any]], path: str) -> dict[str, t.Any]:
    """The argument spec of an option (``healthcheck.url``), or {} when it has none."""
    options: dict[str, dict[str, t.Any]] | None = spec
    option: dict[str, t.Any] = {}
    for name in path.split("."):
        found = (options or {}).get(name) or next((o for o in (options or {}).values() if name in o.get("aliases", [])), None)
        if found is None:
            return {}
        option, options = found, found.get("options")
    return option


def _type_test_value(name: str, type_expr: Expr | None) -> t.Any:
    """A value of a required variable's declared type."""
    if type_expr is not None:
        head = type_expr[1] if type_expr[0] in ("var", "call") else None
        if head == "number":
            return 1
        if head == "bool":
            return False
        if head in ("list", "set", "tuple"):
            return []
        if head in ("map", "object"):
            return {}
    return "test-" + name.replace("_", "-")


def convert(value: t.Any, type_expr: Expr | None) -> t.Any:
    """A variable's value converted to its declared type, as Terraform converts it: a missing
    optional attribute of an object gets its default (or null)."""
    if type_expr is None or value is None:
        return value
    kind = type_expr[0]
    if kind == "var":
        primitive = {"string": terraform_string, "number": _number, "bool": _bool}.get(type_expr[1])
        return primitive(value) if primitive is not None else value
    if kind != "call":
        return value
    name, args = type_expr[1], type_expr[2]
    if name in ("list", "set") and args and isinstance(value, list):
        items = [convert(item, args[0]) for item in value]
        return _toset(items) if name == "set" else items
    if name == "map" and args and isinstance(value, dict):
        return {key: convert(item, args[0]) for key, item in value.items()}
    if name == "object" and args and args[0][0] == "object" and isinstance(value, dict):
        out = dict(value)
        for key_expr, attribute_type in args[0][1]:
            key = str(key_expr[1])
            if attribute_type[0] == "call" and attribute_type[1] == "optional":
                optional_args = attribute_type[2]
                if out.get(key) is None:
                    default = deep_concrete(evaluate(optional_args[1], Scope(_no_roots))) if len(optional_args) > 1 else None
                    out[key] = default
                out[key] = convert(out[key], optional_args[0])
            else:
                out[key] = convert(out.get(key), attribute_type)
        return out
    return value


def _no_roots(name: str) -> t.Any:
    raise UnresolvedError(f"{name} in a type")


def conform(options: dict[str, t.Any], spec: dict[str, dict[str, t.Any]]) -> dict[str, t.Any]:
    """Options converted to the option's type as Terraform converts a value to the attribute's type
    (a number or a bool given to a string attribute becomes its string); nested blocks stay lists."""
    return {name: _conform_one(value, _spec_option(spec, name)) for name, value in options.items()}


def _conform_one(value: t.Any, option: dict[str, t.Any]) -> t.Any:
    if not option:
        return value  # not an option of the module: it refuses it, as upstream refuses an unknown attribute
    kind, suboptions = option.get("type", "str"), option.get("options")
    if kind == "str" and isinstance(value, (bool, int, float)):
        return terraform_string(value)
    if suboptions and isinstance(value, dict):
        return conform(value, suboptions)
    if suboptions and isinstance(value, list):
        return [conform(item, suboptions) if isinstance(item, dict) else item for item in value]
    if kind == "dict" and isinstance(value, dict):
        return {key: terraform_string(item) if isinstance(item, (bool, int, float)) else item for key, item in value.items()}
    return value
