# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""A Terraform configuration that was never applied (its ``.tf`` files), read as the state the
importer converts: one Instance per resource instance, its attributes the values the
configuration gives.

Only what is literal is carried: literals, variables with a default (or a value in
``terraform.tfvars`` / ``*.auto.tfvars``), locals made of those, ``count.index``, ``each.key``
and ``each.value``, a few type conversions (``toset``, ``tolist``, ``tomap``, ``tostring``,
``tonumber``), and the attributes another resource of the configuration sets
(``libvirt_pool.p.name``). Anything else - what is known only after apply (``.id``, a volume's
``path``), data sources, other functions, operators, template directives, modules, dynamic
blocks - is never guessed and never written as a template: the resource is listed as not
converted, with each attribute that could not be read and why. The values read are data: the
playbook writes them ``!unsafe``, as it writes a state's.

``count`` and ``for_each`` with a literal value make one instance per index or key, named by its
address (``libvirt_volume.disk[0]``, ``libvirt_volume.disk["a"]``): one task each, as for a state.

Which terraform-provider-libvirt the configuration targets comes from ``required_providers``
(its version constraint, when it admits only 0.8 and older or only 0.9 and newer); otherwise the
attributes the resources set decide, as for a state, and the result says which it was."""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import re
import stat
import traceback
import typing as t

from .._common.safe_files import OPEN_FLAGS, read_bounded
from .._common.text import one_line_problem, printable
from .errors import TerraformImportError
from .libvirt08 import V08, V09, state_version, version_of
from .tfstate import MAX_INSTANCES, Instance, TerraformState

try:
    import hcl2
    from lark import Token, Tree
    from lark.exceptions import LarkError
except ImportError:
    HAS_HCL2 = False
    HCL2_IMPORT_ERROR: str | None = traceback.format_exc()
else:
    HAS_HCL2 = hasattr(hcl2, "parses_to_tree")  # python-hcl2 8 and later
    HCL2_IMPORT_ERROR = None if HAS_HCL2 else "python-hcl2 is older than 8 (no hcl2.parses_to_tree)"

__all__ = ["HAS_HCL2", "HCL2_IMPORT_ERROR", "MAX_FILES", "MAX_FILE_BYTES", "MAX_TOTAL_BYTES", "Configuration", "read_configuration"]

# A hand-written configuration is kilobytes; the parser (pure Python) takes some 15 s a MiB.
MAX_FILE_BYTES = 512 << 10
MAX_TOTAL_BYTES = 1 << 20
MAX_FILES = 512
_MAX_REASONS = 8

# The providers a local name means when required_providers does not say (Terraform would look
# for hashicorp/<name>, which for these does not exist).
_KNOWN_SOURCES = {"libvirt": "dmacvicar/libvirt", "coder": "coder/coder"}
_META = frozenset({"count", "for_each", "depends_on", "provider", "lifecycle", "provisioner", "connection"})
# The record terraform-provider-libvirt 0.8 (SDKv2) keeps in each object's private data: what
# the importer reads the version from, set when required_providers names 0.8.
_SDK_RECORD = base64.b64encode(b'{"schema_version":"0"}').decode("ascii")
# The workspace state entries the import writes for Coder resources hold the ids and agent tokens
# an apply made: a configuration never applied has none.
_CODER_WITHOUT_STATE = (
    "a Coder resource of a configuration never applied: its id (and an agent's token) are made when it is applied, and "
    "the workspace state entry the import writes needs them; import the state after the first apply"
)
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.DOTALL)
_VERSION = re.compile(r"\s*(=|!=|>=|<=|>|<|~>)?\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-+][0-9A-Za-z.-]*)?\s*\Z")
# Versions that stand for each family of the provider's schema: SDKv2 (0.8 and older), the
# plugin framework (0.9 and newer).
_FAMILIES = {
    V08: ((0, 6, 0), (0, 7, 0), (0, 7, 6), (0, 8, 0), (0, 8, 3), (0, 8, 99)),
    V09: ((0, 9, 0), (0, 9, 1), (0, 9, 99), (0, 10, 0), (1, 0, 0), (2, 0, 0)),
}


@dataclasses.dataclass
class Configuration:
    """What the module says of the configuration it read."""

    files: list[str]
    libvirt_version: str | None  # None: no libvirt resource
    libvirt_version_from: str
    warnings: list[str]


class _UnresolvedError(Exception):
    """A value the configuration does not give literally: why, and where in the attribute."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path: list[str | int] = []


@dataclasses.dataclass
class _Resource:
    mode: str
    kind: str
    name: str
    body: t.Any  # the block's body (a lark Tree)
    where: str  # file name, for messages
    address: str = ""
    problem: str | None = None
    instances: dict[t.Any, dict[str, t.Any]] | None = None  # index key -> scope, once expanded

    def __post_init__(self) -> None:
        self.address = f"{'data.' if self.mode == 'data' else ''}{self.kind}.{self.name}"


@dataclasses.dataclass
class _Scope:
    """What an expression is evaluated in: the instance's count.index / each, and what it touched."""

    values: dict[str, t.Any] = dataclasses.field(default_factory=dict)
    references: set[str] = dataclasses.field(default_factory=set)
    sensitive: bool = False


class _StringSet(list[str]):
    """toset() of strings: for_each takes it (a tuple it refuses, as Terraform does)."""


@dataclasses.dataclass
class _InstanceRef:
    """Another resource's instance: its attributes as the configuration sets them."""

    resource: _Resource
    key: t.Any


# ---------------------------------------------------------------------------- reading the files


def _read(dir_fd: int, name: str, where: str) -> str:
    try:
        fd = os.open(name, os.O_RDONLY | OPEN_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        raise TerraformImportError(f"src_dir: cannot read {printable(where)}: {exc.strerror} (a symbolic link is never followed)") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise TerraformImportError(f"src_dir: {printable(where)} is not a regular file")
        data = read_bounded(fd, MAX_FILE_BYTES)
    finally:
        os.close(fd)
    if data is None:
        raise TerraformImportError(f"src_dir: {printable(where)} is larger than {MAX_FILE_BYTES} bytes, more than a configuration this module reads")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise TerraformImportError(f"src_dir: {printable(where)} is not UTF-8 (at byte {exc.start}), as Terraform reads its files") from None


def _parse(text: str, where: str) -> t.Any:
    try:
        return hcl2.parses_to_tree(text)
    except LarkError as exc:
        # The parser's message quotes the text (a value may be a secret): the place only.
        line, column = getattr(exc, "line", "?"), getattr(exc, "column", "?")
        raise TerraformImportError(f"src_dir: {printable(where)} is not HCL this module reads (line {line}, column {column})") from None
    except RecursionError:
        raise TerraformImportError(f"src_dir: {printable(where)} nests deeper than this module reads") from None


def _files(directory: str) -> tuple[int, list[str]]:
    try:
        dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise TerraformImportError(f"src_dir: {printable(directory)} does not exist") from None
    except NotADirectoryError:
        raise TerraformImportError(f"src_dir: {printable(directory)} is not a directory (a Terraform configuration is the .tf files of one)") from None
    except OSError as exc:
        raise TerraformImportError(f"src_dir: cannot open {printable(directory)}: {exc.strerror}") from None
    names = sorted(os.listdir(dir_fd))
    if len(names) > MAX_FILES * 4:
        os.close(dir_fd)
        raise TerraformImportError(f"src_dir: {printable(directory)} holds more than {MAX_FILES * 4} entries; it is not a configuration this module reads")
    return dir_fd, names


# ---------------------------------------------------------------------------- the parse tree


def _trees(tree: t.Any) -> list[t.Any]:
    return [child for child in tree.children if isinstance(child, Tree) and child.data != "new_line_or_comment"]


def _token(tree: t.Any) -> str:
    return str(next(child for child in tree.children if isinstance(child, Token)))


def _label(tree: t.Any) -> str:
    """A block's type or label: an identifier, a keyword or a quoted string without interpolation."""
    if tree.data == "string":
        parts = [part.children[0] for part in _trees(tree)]
        if not all(isinstance(part, Token) and part.type == "STRING_CHARS" for part in parts):
            raise _UnresolvedError("a block label with an interpolation")
        return _unescape("".join(str(part) for part in parts))
    return _token(tree)


def _unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] in "uU":
            return chr(int(code[1:], 16))
        return _ESCAPES.get(code, "\\" + code)

    return _ESCAPE.sub(one, text)


def _body_items(body: t.Any) -> t.Iterator[tuple[str, str, t.Any]]:
    """("attribute", name, expression) and ("block", type, block tree) of a body, in order."""
    for child in _trees(body):
        if child.data == "attribute":
            name, value = _trees(child)
            yield "attribute", _label(name), value
        elif child.data == "block":
            yield "block", _label(_trees(child)[0]), child


def _block_parts(block: t.Any) -> tuple[str, list[str], t.Any]:
    parts = _trees(block)
    return _label(parts[0]), [_label(label) for label in parts[1:-1]], parts[-1]


# ---------------------------------------------------------------------------- expressions


def _what(tree: t.Any) -> str:
    """An expression named for a message by its kind and references, never its literal text."""
    if tree.data == "function_call":
        return f"{_token(_trees(tree)[0])}(...) (a function this import does not evaluate)"
    kinds = {
        "binary_op": "an operator expression",
        "unary_op": "an operator expression",
        "conditional": "a conditional expression",
        "for_tuple_expr": "a for expression",
        "for_object_expr": "a for expression",
        "attr_splat_expr_term": "a splat expression",
        "full_splat_expr_term": "a splat expression",
    }
    return kinds.get(tree.data, f"an expression ({tree.data})")


class _Evaluator:
    """Literal values of one configuration: its variables, locals and resources."""

    def __init__(self) -> None:
        self.variables: dict[str, tuple[t.Any, bool]] = {}  # name -> (its default's tree or None, sensitive)
        self.values: dict[str, t.Any] = {}  # name -> value from *.tfvars
        self.locals: dict[str, t.Any] = {}
        self.local_values: dict[str, t.Any] = {}
        self.resources: dict[str, _Resource] = {}
        self.busy: set[str] = set()

    # -- values of names

    def variable(self, name: str, scope: _Scope) -> t.Any:
        if name not in self.variables:
            raise _UnresolvedError(f"var.{name} is not declared")
        default, sensitive = self.variables[name]
        scope.sensitive |= sensitive
        if name in self.values:
            return self.values[name]
        if default is None:
            raise _UnresolvedError(f"var.{name} has no default (its value is given when Terraform runs)")
        return self.evaluate(default, _Scope(), sensitive_to=scope)

    def local(self, name: str, scope: _Scope) -> t.Any:
        if name not in self.locals:
            raise _UnresolvedError(f"local.{name} is not declared")
        marker = f"local.{name}"
        if marker in self.busy:
            raise _UnresolvedError(f"local.{name} refers to itself")
        self.busy.add(marker)
        try:
            return self.evaluate(self.locals[name], _Scope(), sensitive_to=scope)
        finally:
            self.busy.discard(marker)

    def resource(self, kind: str, name: str, scope: _Scope) -> t.Any:
        address = f"{kind}.{name}"
        resource = self.resources.get(address)
        if resource is None:
            raise _UnresolvedError(f"{address} is not a resource of this configuration")
        scope.references.add(address)
        instances = self.expand(resource)
        if resource.problem is not None or instances is None:
            raise _UnresolvedError(f"{address} is not read ({resource.problem})")
        refs = {key: _InstanceRef(resource, key) for key in instances}
        if list(refs) == [None]:
            return refs[None]
        return refs if any(isinstance(key, str) for key in refs) else [refs[key] for key in sorted(refs)]

    def attribute_of(self, ref: _InstanceRef, name: str, scope: _Scope, shown: str) -> t.Any:
        resource = ref.resource
        found = [(kind, value) for kind, attribute, value in _body_items(resource.body) if attribute == name and attribute not in _META]
        if not found:
            raise _UnresolvedError(f"{shown}.{name} is known only after apply (the configuration does not set it)")
        marker = f"{resource.address}[{ref.key!r}].{name}"
        if marker in self.busy:
            raise _UnresolvedError(f"{resource.address}.{name} refers to itself")
        self.busy.add(marker)
        try:
            inner = _Scope(values=dict((resource.instances or {})[ref.key]))
            if found[0][0] == "attribute":
                return self.evaluate(found[0][1], inner, sensitive_to=scope)
            blocks = [self.block(value, inner) for _kind, value in found]  # SDKv2 blocks: a list in the state
            scope.sensitive |= inner.sensitive
            scope.references |= inner.references
            return blocks
        finally:
            self.busy.discard(marker)

    # -- count and for_each

    def expand(self, resource: _Resource) -> dict[t.Any, dict[str, t.Any]] | None:
        """The resource's instances: index key -> what count/each hold; None with its problem."""
        if resource.instances is not None or resource.problem is not None:
            return resource.instances
        count = for_each = None
        for kind, name, value in _body_items(resource.body):
            if kind == "attribute" and name == "count":
                count = value
            elif kind == "attribute" and name == "for_each":
                for_each = value
        try:
            if count is not None and for_each is not None:
                raise _UnresolvedError("count and for_each are both set, which Terraform refuses")
            if count is not None:
                number = self.evaluate(count, _Scope())
                if isinstance(number, float) and number.is_integer():
                    number = int(number)
                if not isinstance(number, int) or isinstance(number, bool) or number < 0:
                    raise _UnresolvedError("count is not a whole number of at least 0")
                if number > MAX_INSTANCES:
                    raise _UnresolvedError(f"count is larger than {MAX_INSTANCES}, the most this module converts")
                resource.instances = {index: {"count.index": index} for index in range(number)}
            elif for_each is not None:
                collection = self.evaluate(for_each, _Scope())
                if isinstance(collection, dict):
                    pairs = [(str(key), collection[key]) for key in sorted(collection)]
                elif isinstance(collection, _StringSet):
                    pairs = [(key, key) for key in collection]
                else:
                    raise _UnresolvedError("for_each is neither a map nor a set of strings (toset([...])), which Terraform refuses")
                if len(pairs) > MAX_INSTANCES:
                    raise _UnresolvedError(f"for_each has more than {MAX_INSTANCES} elements, the most this module converts")
                resource.instances = {key: {"each.key": key, "each.value": value} for key, value in pairs}
            else:
                resource.instances = {None: {}}
        except _UnresolvedError as exc:
            resource.problem = f"not carried: {'count' if count is not None else 'for_each'}: {exc.reason}"
        return resource.instances

    # -- expressions

    def evaluate(self, tree: t.Any, scope: _Scope, *, sensitive_to: _Scope | None = None) -> t.Any:
        value = self._evaluate(tree, scope)
        if isinstance(value, _InstanceRef):
            raise _UnresolvedError(f"{value.resource.address} as a whole (its id is known only after apply)")
        if sensitive_to is not None:
            sensitive_to.sensitive |= scope.sensitive
            sensitive_to.references |= scope.references
        return value

    def _evaluate(self, tree: t.Any, scope: _Scope) -> t.Any:
        kind = tree.data
        trees = _trees(tree)
        if kind == "expr_term":
            return self._evaluate(trees[0], scope)
        if kind == "int_lit":
            return int(_token(tree))
        if kind == "float_lit":
            return float(_token(tree))
        if kind == "literal_value":
            return {"true": True, "false": False, "null": None}[_token(tree)]
        if kind == "string":
            return self.template([part.children[0] for part in trees], scope)
        if kind in ("heredoc_template", "heredoc_template_trim"):
            return self.heredoc(_token(tree), scope)
        if kind == "tuple":
            return [self._item(item, index, scope) for index, item in enumerate(trees)]
        if kind == "object":
            out: dict[str, t.Any] = {}
            for element in trees:
                key_tree, value_tree = _trees(element)
                key = self._key(key_tree, scope)
                out[key] = self._item(value_tree, key, scope)
            return out
        if kind in ("get_attr_expr_term", "index_expr_term", "identifier"):
            return self.traversal(tree, scope)
        if kind == "function_call":
            return self.function(tree, scope)
        if kind == "unary_op":
            operator, value = _token(tree), self._evaluate(trees[0], scope)
            if operator == "-" and isinstance(value, (int, float)) and not isinstance(value, bool):
                return -value
            if operator == "!" and isinstance(value, bool):
                return not value
        raise _UnresolvedError(f"{_what(tree)}")

    def _item(self, tree: t.Any, where: str | int, scope: _Scope) -> t.Any:
        try:
            return self.evaluate(tree, scope)
        except _UnresolvedError as exc:
            exc.path.insert(0, where)
            raise

    def _key(self, tree: t.Any, scope: _Scope) -> str:
        inner = _trees(tree)[0] if _trees(tree) else tree
        if inner.data == "keyword":
            return _token(inner)
        if inner.data == "expr_term" and _trees(inner) and _trees(inner)[0].data == "identifier" and not any(isinstance(c, Token) for c in inner.children):
            return _token(_trees(inner)[0])  # a bare name is the key itself
        key = self.evaluate(inner, scope)
        if isinstance(key, bool) or not isinstance(key, (str, int, float)):
            raise _UnresolvedError("an object key that is not a string")
        return str(key)

    def template(self, parts: list[t.Any], scope: _Scope) -> t.Any:
        if len(parts) == 1 and isinstance(parts[0], Tree) and parts[0].data == "interpolation":
            return self.evaluate(_trees(parts[0])[0], scope)  # "${x}" is x itself
        out = []
        for part in parts:
            if isinstance(part, Token):
                text = str(part)
                if part.type in ("ESCAPED_INTERPOLATION", "ESCAPED_DIRECTIVE"):
                    out.append(text[1:])
                else:
                    out.append(_unescape(text))
            elif part.data == "interpolation":
                out.append(_as_string(self.evaluate(_trees(part)[0], scope)))
            else:
                raise _UnresolvedError("a template directive (%{...})")
        return "".join(out)

    def heredoc(self, text: str, scope: _Scope) -> str:
        first, _newline, rest = text.partition("\n")
        lines = rest.split("\n")
        while lines and lines[-1].strip() == "":
            lines.pop()
        lines = lines[:-1]  # the closing marker
        if first.startswith("<<-"):
            indents = [len(line) - len(line.lstrip(" \t")) for line in lines if line.strip()]
            cut = min(indents, default=0)
            lines = [line[cut:] for line in lines]
        return self.heredoc_text("\n".join(line.removesuffix("\r") for line in lines) + ("\n" if lines else ""), scope)

    def heredoc_text(self, text: str, scope: _Scope) -> str:
        """A heredoc's text with its interpolations evaluated (it has no backslash escapes)."""
        out: list[str] = []
        index = 0
        while index < len(text):
            found = min((pos for pos in (text.find("${", index), text.find("%{", index)) if pos >= 0), default=len(text))
            if found > 0 and found < len(text) and text[found - 1] == text[found] and (found - 1 >= index):
                out.append(text[index : found - 1] + text[found] + "{")  # $${ and %%{ are the characters themselves
                index = found + 2
                continue
            out.append(text[index:found])
            if found == len(text):
                break
            if text[found] == "%":
                raise _UnresolvedError("a template directive (%{...})")
            end = _closing_brace(text, found + 2)
            tree = _parse_expression(text[found + 2 : end])
            out.append(_as_string(self.evaluate(tree, scope)))
            index = end + 1
        return "".join(out)

    def traversal(self, tree: t.Any, scope: _Scope) -> t.Any:
        steps: list[t.Any] = []
        while tree.data in ("get_attr_expr_term", "index_expr_term"):
            inner, step = _trees(tree)
            if step.data == "get_attr":
                steps.append(_label(_trees(step)[0]))
            elif step.data == "short_index":
                steps.append(int(_token(step)))
            else:
                steps.append(self.evaluate(_trees(step)[0], scope))
            tree = inner
            while tree.data == "expr_term" and len(_trees(tree)) == 1 and not any(isinstance(c, Token) for c in tree.children):
                tree = _trees(tree)[0]
        if tree.data != "identifier":
            value = self._evaluate(tree, scope)
            return self.walk(value, list(reversed(steps)), "the value", scope)
        root = _token(tree)
        steps.reverse()
        shown = ".".join([root, *(str(step) for step in steps[:2] if isinstance(step, str))])
        head = steps[0] if steps else None
        if root in ("var", "local") and isinstance(head, str):
            value = self.variable(head, scope) if root == "var" else self.local(head, scope)
            return self.walk(value, steps[1:], f"{root}.{head}", scope)
        if root == "count" and head == "index" and "count.index" in scope.values:
            return self.walk(scope.values["count.index"], steps[1:], shown, scope)
        if root == "each" and head in ("key", "value") and f"each.{head}" in scope.values:
            return self.walk(scope.values[f"each.{head}"], steps[1:], shown, scope)
        if root == "data":
            raise _UnresolvedError(f"{shown} is a data source, read when Terraform runs")
        if root in ("module", "path", "terraform", "self", "count", "each"):
            raise _UnresolvedError(f"{shown} is not known before Terraform runs")
        if isinstance(head, str):
            return self.walk(self.resource(root, head, scope), steps[1:], f"{root}.{head}", scope)
        raise _UnresolvedError(f"{shown} is not a value of this configuration")

    def walk(self, value: t.Any, steps: list[t.Any], shown: str, scope: _Scope) -> t.Any:
        for step in steps:
            if isinstance(value, _InstanceRef):
                if not isinstance(step, str):
                    raise _UnresolvedError(f"{shown}: an index into a resource instance")
                value = self.attribute_of(value, step, scope, shown)
                shown = f"{shown}.{step}"
                continue
            if isinstance(value, dict) and isinstance(step, (str, int)) and str(step) in value:
                value = value[str(step)]
            elif isinstance(value, list) and isinstance(step, int) and not isinstance(step, bool) and 0 <= step < len(value):
                value = value[step]
            elif isinstance(value, list) and isinstance(step, float) and step.is_integer() and 0 <= step < len(value):
                value = value[int(step)]
            else:
                raise _UnresolvedError(f"{shown} has no element {printable(json.dumps(step), 40)}")
            shown = f"{shown}[{printable(json.dumps(step), 40)}]"
        return value

    def function(self, tree: t.Any, scope: _Scope) -> t.Any:
        trees = _trees(tree)
        name = _token(trees[0])
        arguments = _trees(trees[1]) if len(trees) > 1 else []
        if name not in ("toset", "tolist", "tomap", "tostring", "tonumber") or len(arguments) != 1:
            raise _UnresolvedError(_what(tree))
        value = self.evaluate(arguments[0], scope)
        if name == "toset" and isinstance(value, list) and all(isinstance(item, (str, int, float)) and not isinstance(item, bool) for item in value):
            return _StringSet(sorted({_as_string(item) for item in value}))
        if name == "tolist" and isinstance(value, list):
            return list(value)
        if name == "tomap" and isinstance(value, dict):
            return value
        if name == "tostring" and not isinstance(value, (list, dict)) and value is not None:
            return _as_string(value)
        if name == "tonumber" and isinstance(value, str) and re.fullmatch(r"-?\d+", value):
            return int(value)
        if name == "tonumber" and isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
        raise _UnresolvedError(f"{name}(...) of a value it does not convert")

    def block(self, tree: t.Any, scope: _Scope) -> dict[str, t.Any]:
        """A nested block's body as the object SDKv2 keeps in the state (a list element)."""
        _kind, labels, body = _block_parts(tree)
        if labels:
            raise _UnresolvedError("a nested block with labels")
        out: dict[str, t.Any] = {}
        for kind, name, value in _body_items(body):
            try:
                if kind == "attribute":
                    out[name] = self.evaluate(value, scope)
                elif name == "dynamic":
                    raise _UnresolvedError("a dynamic block")
                else:
                    out.setdefault(name, []).append(self.block(value, scope))
            except _UnresolvedError as exc:
                exc.path.insert(0, name)
                raise
        return out


def _as_string(value: t.Any) -> str:
    """A value in a string template, as Terraform converts it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, str):
        return value
    raise _UnresolvedError("a value in a string that is not a string, a number or a bool")


def _closing_brace(text: str, index: int) -> int:
    """Where the interpolation whose expression starts at ``index`` ends (its ``}``)."""
    depth, quoted = 0, False
    while index < len(text):
        char = text[index]
        if quoted:
            if char == "\\":
                index += 1
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char in "{[(":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "}":
            if depth == 0:
                return index
            depth -= 1
        index += 1
    raise _UnresolvedError("an interpolation that is not closed")


def _parse_expression(text: str) -> t.Any:
    try:
        tree = hcl2.parses_to_tree(f"x = {text}\n")
    except (LarkError, RecursionError):
        raise _UnresolvedError("an interpolation this module does not read") from None
    return _trees(_trees(_trees(tree)[0])[0])[1]


# ---------------------------------------------------------------------------- the provider version


def _allows(constraint: str, version: tuple[int, int, int]) -> bool | None:
    """Whether a Terraform version constraint admits ``version``; None when it cannot be read."""
    for part in constraint.split(","):
        found = _VERSION.match(part)
        if found is None:
            return None
        operator = found.group(1) or "="
        given = [int(found.group(n)) for n in (2, 3, 4) if found.group(n) is not None]
        wanted = tuple(given + [0] * (3 - len(given)))
        checks = {
            "=": version == wanted,
            "!=": version != wanted,
            ">": version > wanted,
            ">=": version >= wanted,
            "<": version < wanted,
            "<=": version <= wanted,
        }
        if operator == "~>":
            # ~> 0.8.1: >= 0.8.1, < 0.9; ~> 0.8: >= 0.8, < 1.0 (the last part given may grow).
            prefix = given[:-1] if len(given) > 1 else given
            upper = tuple([*prefix[:-1], prefix[-1] + 1] + [0] * (3 - len(prefix)))
            allowed = wanted <= version < upper
        else:
            allowed = checks[operator]
        if not allowed:
            return False
    return True


def _version_from(constraint: str) -> str | None:
    families = {family for family, versions in _FAMILIES.items() if any(_allows(constraint, version) for version in versions)}
    return families.pop() if len(families) == 1 else None


# ---------------------------------------------------------------------------- the configuration


class _Reader:
    def __init__(self) -> None:
        self.evaluator = _Evaluator()
        self.sources: dict[str, str] = {}  # local name -> namespace/type
        self.constraints: dict[str, str] = {}  # local name -> version constraint
        self.order: list[_Resource] = []
        self.other: list[Instance] = []  # module calls: listed, not read
        self.warnings: list[str] = []

    def top(self, tree: t.Any, where: str) -> None:
        for kind, name, item in _body_items(_trees(tree)[0]):
            if kind != "block":
                raise TerraformImportError(f"src_dir: {printable(where)} has an attribute ({printable(name, 60)}) outside any block, which Terraform refuses")
            _kind, labels, body = _block_parts(item)
            if name in ("resource", "data") and len(labels) == 2:
                resource = _Resource("managed" if name == "resource" else "data", labels[0], labels[1], body, where)
                if resource.address in self.evaluator.resources:
                    raise TerraformImportError(f"src_dir: {printable(resource.address)} is declared twice, which Terraform refuses")
                self.evaluator.resources[resource.address] = resource
                self.order.append(resource)
            elif name == "variable" and len(labels) == 1:
                attributes = {attribute: value for kind2, attribute, value in _body_items(body) if kind2 == "attribute"}
                sensitive = "sensitive" in attributes and self._literal(attributes["sensitive"]) is True
                self.evaluator.variables[labels[0]] = (attributes.get("default"), sensitive)
            elif name == "locals":
                for kind2, attribute, value in _body_items(body):
                    if kind2 == "attribute":
                        self.evaluator.locals[attribute] = value
            elif name == "terraform":
                self.terraform(body)
            elif name == "module" and len(labels) == 1:
                self.other.append(_problem(f"module.{labels[0]}", "a module call: its resources are not read (import the module's own directory)"))

    def _literal(self, tree: t.Any) -> t.Any:
        try:
            return self.evaluator.evaluate(tree, _Scope())
        except _UnresolvedError:
            return None

    def terraform(self, body: t.Any) -> None:
        for kind, name, item in _body_items(body):
            if kind != "block" or name != "required_providers":
                continue
            for kind2, local, value in _body_items(_block_parts(item)[2]):
                given = self._literal(value) if kind2 == "attribute" else None
                if isinstance(given, str):  # the older form: a version constraint only
                    self.constraints[local] = given
                elif isinstance(given, dict):
                    source, version = given.get("source"), given.get("version")
                    if isinstance(source, str):
                        parts = source.lower().split("/")
                        self.sources[local] = "/".join(parts[-2:]) if len(parts) > 1 else f"hashicorp/{parts[0]}"
                    if isinstance(version, str):
                        self.constraints[local] = version

    def tfvars(self, text: str, where: str) -> None:
        for kind, name, value in _body_items(_trees(_parse(text, where))[0]):
            if kind == "attribute":
                try:
                    self.evaluator.values[name] = self.evaluator.evaluate(value, _Scope())
                except _UnresolvedError as exc:
                    raise TerraformImportError(f"src_dir: {printable(where)}: {printable(name, 60)} is not a literal value ({exc.reason})") from None

    def provider(self, resource: _Resource) -> str:
        local = resource.kind.split("_", 1)[0]
        for kind, name, value in _body_items(resource.body):
            if kind == "attribute" and name == "provider":
                local = next(iter(_names(value)), local)
        if local in self.sources:
            return self.sources[local]
        if local in _KNOWN_SOURCES:
            return _KNOWN_SOURCES[local]
        return f"hashicorp/{local}"  # what Terraform assumes

    def instances(self) -> list[Instance]:
        out: list[Instance] = []
        for resource in self.order:
            provider = self.provider(resource)
            if resource.mode == "data":
                out.append(Instance(resource.address, "data", resource.kind, resource.name, provider, {}, [], []))
                continue
            expanded = self.evaluator.expand(resource)
            if expanded is None:
                out.append(_problem(resource.address, resource.problem or "not carried", resource))
                continue
            for key, values in expanded.items():
                out.append(self.instance(resource, provider, key, values))
                if len(out) > MAX_INSTANCES:
                    raise TerraformImportError(
                        f"src_dir: the configuration has more than {MAX_INSTANCES} resource instances; this module converts at most {MAX_INSTANCES} at once"
                    )
        return out + self.other

    def instance(self, resource: _Resource, provider: str, key: t.Any, values: dict[str, t.Any]) -> Instance:
        address = printable(resource.address + ("" if key is None else f"[{json.dumps(key, ensure_ascii=False)}]"), 1000)
        attributes: dict[str, t.Any] = {}
        sensitive: list[list[t.Any]] = []
        references: set[str] = set()
        unresolved: list[str] = []
        skipped: list[str] = []
        for kind, name, value in _body_items(resource.body):
            scope = _Scope(values=dict(values))
            try:
                if name == "depends_on" and kind == "attribute":
                    items = _trees(_trees(value)[0]) if _trees(value) and _trees(value)[0].data == "tuple" else []
                    references |= {".".join(_names(item)[:2]) for item in items} & set(self.evaluator.resources)
                elif name in ("lifecycle", "provisioner", "connection"):
                    skipped.append(name)
                elif name in _META:
                    continue
                elif kind == "attribute":
                    attributes[name] = self.evaluator.evaluate(value, scope)
                elif name == "dynamic":
                    raise _UnresolvedError("a dynamic block")
                else:
                    attributes.setdefault(name, []).append(self.evaluator.block(value, scope))
            except _UnresolvedError as exc:
                unresolved.append(_path_text([name, *exc.path]) + ": " + exc.reason)
            references |= scope.references
            if scope.sensitive:
                sensitive.append([name])
        if skipped:
            self.warnings.append(
                f"{address}: {', '.join(sorted(set(skipped)))} not carried (Terraform's own behaviour around the resource, no option of its task)"
            )
        problem = None
        if unresolved:
            shown = "; ".join(unresolved[:_MAX_REASONS]) + (f"; and {len(unresolved) - _MAX_REASONS} more" if len(unresolved) > _MAX_REASONS else "")
            problem = f"not carried, not literal in the configuration: {shown}"
        elif isinstance(key, str) and one_line_problem(key):
            problem = f"its for_each key contains {one_line_problem(key)}"
        return Instance(
            address=address,
            mode="managed",
            type=resource.kind,
            name=resource.name,
            provider=provider,
            attributes=attributes,
            sensitive_paths=sensitive,
            dependencies=sorted(references - {resource.address}),
            problem=problem,
            index_key=key,
            instances_of_resource=len(resource.instances or {}),
        )


def _names(tree: t.Any) -> list[str]:
    """The identifiers of an expression, in order (depends_on and provider name, never evaluate)."""
    return [_token(node) for node in tree.iter_subtrees_topdown() if node.data == "identifier"]


def _path_text(path: list[t.Any]) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return printable(out, 200)


def _problem(address: str, why: str, resource: _Resource | None = None) -> Instance:
    kind, name = (resource.kind, resource.name) if resource is not None else ("", "")
    return Instance(
        address=printable(address), mode="managed", type=kind, name=name, provider="", attributes={}, sensitive_paths=[], dependencies=[], problem=why
    )


def _decide_version(reader: _Reader, instances: list[Instance]) -> tuple[str | None, str]:
    """The provider version the libvirt instances are read as, and why; an instance whose own
    attributes name the other version gets its problem."""
    libvirt = [i for i in instances if i.mode == "managed" and not i.problem and i.provider == "dmacvicar/libvirt"]
    local = next((name for name, source in reader.sources.items() if source == "dmacvicar/libvirt"), "libvirt")
    constraint = reader.constraints.get(local)
    if not libvirt and not any(i.provider == "dmacvicar/libvirt" for i in instances):
        return None, "no resource of terraform-provider-libvirt"
    forced = _version_from(constraint) if constraint else None
    if forced is None:
        version, _mixed = state_version(instances)
        why = "no version constraint" if not constraint else f"the version constraint {json.dumps(constraint)}, which does not tell 0.8 from 0.9"
        return version, f"assumed from the attributes the resources set (required_providers gives {why})"
    for instance in libvirt:
        found = version_of(instance)
        if found is not None and found != forced:
            instance.problem = (
                f"its attributes are those of terraform-provider-libvirt {found}, and required_providers asks for {forced} ({printable(constraint or '', 60)})"
            )
        elif forced == V08:
            instance.private = _SDK_RECORD
    return forced, f"required_providers (version {json.dumps(constraint)})"


def read_configuration(directory: str) -> tuple[TerraformState, Configuration]:
    """The configuration in ``directory`` (its ``*.tf`` files) as a state, and what was read."""
    if not HAS_HCL2:
        raise TerraformImportError("src_dir: reading .tf files needs python-hcl2 8 or later on the host the module runs on (the controller)")
    dir_fd, names = _files(directory)
    reader = _Reader()
    read: list[str] = []
    total = 0
    try:
        configs = [name for name in names if name.endswith(".tf") and not name.startswith(".")]
        overrides = [name for name in configs if name == "override.tf" or name.endswith("_override.tf")]
        if overrides:
            raise TerraformImportError(
                f"src_dir: {printable(overrides[0])} is an override file, which this module does not merge: merge it into the configuration first"
            )
        if not configs:
            raise TerraformImportError(f"src_dir: {printable(directory)} holds no .tf file")
        if len(configs) > MAX_FILES:
            raise TerraformImportError(f"src_dir: {printable(directory)} holds more than {MAX_FILES} .tf files")
        varfiles = [name for name in names if name == "terraform.tfvars"] + [name for name in names if name.endswith(".auto.tfvars")]
        json_files = [name for name in names if name.endswith((".tf.json", ".tfvars.json"))]
        if json_files:
            raise TerraformImportError(f"src_dir: {printable(json_files[0])} is in Terraform's JSON syntax, which this module does not read")
        for name in configs + varfiles:
            text = _read(dir_fd, name, os.path.join(directory, name))
            total += len(text)
            if total > MAX_TOTAL_BYTES:
                raise TerraformImportError(f"src_dir: the configuration is larger than {MAX_TOTAL_BYTES} bytes, more than this module reads")
            if name in varfiles:
                reader.tfvars(text, name)
            else:
                try:
                    reader.top(_parse(text, name), name)
                except _UnresolvedError as exc:
                    raise TerraformImportError(f"src_dir: {printable(name)}: {exc.reason}") from None
            read.append(name)
        try:
            instances = reader.instances()
        except RecursionError:
            raise TerraformImportError("src_dir: the configuration nests deeper than this module reads") from None
    finally:
        os.close(dir_fd)
    version, why = _decide_version(reader, instances)
    for instance in instances:
        if instance.provider == "coder/coder" and instance.mode == "managed" and not instance.problem:
            instance.problem = _CODER_WITHOUT_STATE
    warnings = list(reader.warnings)
    for local in sorted({i.type.split("_", 1)[0] for i in instances if i.provider in _KNOWN_SOURCES.values()} - set(reader.sources)):
        if local in _KNOWN_SOURCES:
            warnings.append(f"required_providers does not name the provider of the {local}_* resources: read as {_KNOWN_SOURCES[local]}")
    state = TerraformState(version=4, terraform_version="", serial=0, lineage="", instances=instances)
    return state, Configuration(files=read, libvirt_version=version, libvirt_version_from=why, warnings=warnings)
