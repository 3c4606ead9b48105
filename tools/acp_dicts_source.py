"""The ACP schema as TypedDicts: the source text of ``acp_mux/protocol/v<N>_dicts.py``, from the schema's ``$defs``.

Why a second view of the same schema: the pydantic model (``v<N>.py``) validates at the edges, but past them acp-mux
builds and passes on plain dicts (session updates, tool-call content, permission requests, prompt blocks), millions
per session; wrapping each in a model would cost what the proxy must not. A TypedDict costs nothing at run time (it
*is* the dict) and lets mypy check every key and value those dicts carry against the same pinned schema. Users import
the module under ``TYPE_CHECKING`` (or at run time: it needs nothing but ``typing``).

What each schema shape becomes:
- an object with properties → a TypedDict keyed by the wire names (camelCase, ``_meta``); a key the schema does not
  require is ``NotRequired``; ``allOf`` of another object → inheritance;
- ``oneOf``/``anyOf`` → a union alias; an inline object variant (``{"sessionUpdate": "tool_call"}`` + ``allOf``
  ``ToolCall``) → its own TypedDict named after its tag (``SessionUpdateToolCall``, as the pydantic model names it),
  so ``update["sessionUpdate"] == "tool_call"`` narrows the union;
- an object with properties *and* variants → the shared properties as ``<Name>Fields``, each variant extending it;
- ``const``/``enum`` → ``Literal``; a value with no type (``rawInput``) → ``JsonValue``; a free-form object (``_meta``)
  → ``dict[str, JsonValue]``.

Every annotation is a string (``NotRequired["..."]`` outside it), so the module imports without resolving forward
references and ``__required_keys__`` stays true at run time (the tests compare it with the pydantic model).
"""

from __future__ import annotations

import json
import keyword
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

JSON_VALUE = "JsonValue"
_SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}

Node = Mapping[str, object]


@dataclass
class _Class:
    """One TypedDict to emit."""

    name: str
    doc: str
    bases: list[str]
    fields: list[tuple[str, str, bool]]  # wire key, type expression, required


@dataclass
class _Out:
    """What the walk over ``$defs`` collected, in schema order."""

    classes: dict[str, _Class] = field(default_factory=dict)
    aliases: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (type expression, doc)


def _node(value: object) -> Node:
    if not isinstance(value, Mapping):
        raise TypeError(f"schema node expected, got {value!r}")
    return value


def _nodes(value: object) -> list[Node]:
    return [_node(v) for v in value] if isinstance(value, list) else []


def _doc(node: Node) -> str:
    """The description's first paragraph, on one line: enough to recognise the type; the model module has the rest."""
    description = node.get("description")
    if not isinstance(description, str):
        return ""
    return " ".join(description.strip().split("\n\n", 1)[0].split())


def _camel(text: str) -> str:
    """``agent_message_chunk`` / ``Parse error`` / ``value_id`` → ``AgentMessageChunk`` / ``ParseError`` / ``ValueId``."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^0-9A-Za-z]+", text) if part)


def literal(value: object) -> str:
    """A Literal's member: single-quoted strings (the annotation itself sits in double quotes), numbers as JSON."""
    if isinstance(value, str):
        return "'" + value.encode("unicode_escape").decode("ascii").replace("'", "\\'") + "'"
    return json.dumps(value)


def quoted(expr: str) -> str:
    """A type expression as the string annotation that holds it (double quotes; its own escapes kept)."""
    return '"' + expr.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _union(parts: list[str]) -> str:
    """``a | b`` without repeats, the literals merged into one ``Literal[...]`` first, ``None`` last."""
    seen: list[str] = []
    literals: list[str] = []
    for part in parts:
        for piece in _split_union(part):
            target = literals if piece.startswith("Literal[") else seen
            if piece not in target:
                target.append(piece)
    members = [piece.removeprefix("Literal[").removesuffix("]") for piece in literals]
    merged = [f"Literal[{', '.join(members)}]"] if members else []
    rest = [p for p in seen if p != "None"]
    return " | ".join(merged + rest + (["None"] if "None" in seen else []))


def _split_union(expr: str) -> list[str]:
    """The top-level members of a union expression (brackets kept together)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(expr):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(expr[start:i].strip())
            start = i + 1
    parts.append(expr[start:].strip())
    return parts


def _ref(node: Node) -> str | None:
    ref = node.get("$ref")
    return ref.removeprefix("#/$defs/") if isinstance(ref, str) else None


def _variant_tag(variant: Node) -> str | None:
    """The const a variant is told apart by (``sessionUpdate: "tool_call"``), when it has exactly one."""
    props = variant.get("properties")
    if not isinstance(props, Mapping):
        return None
    consts = [str(_node(p)["const"]) for p in props.values() if isinstance(p, Mapping) and "const" in p]
    return consts[0] if len(consts) == 1 else None


class _Walk:
    """Turns ``$defs`` into classes and aliases."""

    def __init__(self, defs: Mapping[str, object]) -> None:
        self.defs = defs
        self.out = _Out()

    def type_of(self, node: Node, where: str) -> str:
        """The type expression of a schema node in a field or alias position."""
        ref = _ref(node)
        if ref is not None:
            return ref
        if "const" in node:
            return f"Literal[{literal(node['const'])}]"
        enum = node.get("enum")
        if isinstance(enum, list):
            return f"Literal[{', '.join(literal(v) for v in enum)}]"
        if isinstance(node.get("properties"), Mapping) and node.get("properties"):
            name = where
            self.object_class(name, node, [])
            return name
        variants = _nodes(node.get("oneOf")) or _nodes(node.get("anyOf"))
        if variants:
            return self.variants_union(where, node, variants, [])
        all_of = _nodes(node.get("allOf"))
        if len(all_of) == 1:
            return self.type_of(all_of[0], where)
        kind = node.get("type")
        if isinstance(kind, list):
            return _union([self.type_of({**node, "type": k}, where) for k in kind])
        if kind in _SCALARS:
            return _SCALARS[str(kind)]
        if kind == "array":
            items = node.get("items")
            return f"list[{self.type_of(_node(items), where + 'Item') if items is not None else JSON_VALUE}]"
        if kind == "object":
            extra = node.get("additionalProperties")
            value = self.type_of(_node(extra), where + "Value") if isinstance(extra, Mapping) and extra else JSON_VALUE
            return f"dict[str, {value}]"
        return JSON_VALUE  # no type: any JSON (a tool's raw input, a free-form value)

    def object_class(self, name: str, node: Node, bases: list[str]) -> None:
        """A TypedDict for an object node: its properties, its ``allOf`` objects as bases."""
        bases = bases + [r for r in (_ref(n) for n in _nodes(node.get("allOf"))) if r is not None]
        listed = node.get("required")
        required = {str(key) for key in listed} if isinstance(listed, list) else set()
        props = node.get("properties")
        fields = [
            (key, self.type_of(_node(prop), name + _camel(key)), key in required)
            for key, prop in (props.items() if isinstance(props, Mapping) else ())
        ]
        self.out.classes[name] = _Class(name, _doc(node), bases, fields)

    def variants_union(self, name: str, node: Node, variants: list[Node], bases: list[str]) -> str:
        """The union of a ``oneOf``/``anyOf``; inline object variants become TypedDicts named after their tag."""
        members = []
        for index, variant in enumerate(variants):
            has_props = isinstance(variant.get("properties"), Mapping) and bool(variant.get("properties"))
            if has_props or (bases and _nodes(variant.get("allOf"))):  # its own TypedDict: shared fields + its own
                label = _variant_tag(variant) or str(variant.get("title") or index)
                member = name + _camel(label)
                if member in self.defs or member in self.out.classes:
                    member += "Variant"
                self.object_class(member, variant, bases)
                members.append(member)
            elif bases and variant.get("type") == "object":  # a catch-all variant: just the shared fields
                members.append(bases[0])
            else:
                members.append(self.type_of(variant, f"{name}{index}"))
        return _union(members)

    def define(self, name: str, node: Node) -> None:
        """One ``$defs`` entry."""
        variants = _nodes(node.get("oneOf")) or _nodes(node.get("anyOf"))
        has_props = isinstance(node.get("properties"), Mapping) and bool(node.get("properties"))
        if has_props and not variants:
            self.object_class(name, node, [])
        elif has_props:
            shared = name + "Fields"
            self.object_class(shared, {k: v for k, v in node.items() if k not in ("oneOf", "anyOf")}, [])
            self.out.aliases[name] = (self.variants_union(name, node, variants, [shared]), _doc(node))
        else:
            self.out.aliases[name] = (self.type_of(node, name), _doc(node))


def _expand_union_bases(out: _Out) -> None:
    """A class can extend only classes: one whose base is an alias gets that alias's members instead (one class per
    member of a union, ``<Name><Member>``), and every alias naming it names the copies."""
    changed = True
    while changed:
        changed = False
        for cls in list(out.classes.values()):
            alias = next((b for b in cls.bases if b in out.aliases), None)
            if alias is None:
                continue
            members = _split_union(out.aliases[alias][0])
            if not all(m in out.classes or m in out.aliases for m in members):
                raise ValueError(f"{cls.name} extends {alias}, which is not a union of objects")
            del out.classes[cls.name]
            names = []
            for member in members:
                name = cls.name if len(members) == 1 else cls.name + member.removeprefix(alias)
                bases = [member if b == alias else b for b in cls.bases]
                out.classes[name] = _Class(name, cls.doc, bases, cls.fields)
                names.append(name)
            pattern = re.compile(rf"\b{re.escape(cls.name)}\b")
            for key, (expr, doc) in out.aliases.items():
                out.aliases[key] = (pattern.sub(" | ".join(names), expr), doc)
            changed = True


def _ordered(classes: Mapping[str, _Class]) -> list[_Class]:
    """Bases before the classes that extend them (annotations are strings; bases are not)."""
    done: dict[str, _Class] = {}

    def visit(cls: _Class) -> None:
        if cls.name in done:
            return
        for base in cls.bases:
            if base in classes:
                visit(classes[base])
        done[cls.name] = cls

    for cls in classes.values():
        visit(cls)
    return list(done.values())


def _docstring(doc: str) -> str:
    """A one-line docstring holding ``doc`` literally."""
    return '"""' + doc.replace("\\", "\\\\").replace('"', '\\"') + '"""'


def _class_source(cls: _Class) -> str:
    bases = ", ".join(cls.bases) or "TypedDict"
    lines = [f"class {cls.name}({bases}):"]
    if cls.doc:
        lines.append("    " + _docstring(cls.doc))
        lines.append("")
    if not all(k.isidentifier() and not keyword.iskeyword(k) for k, _, _ in cls.fields):
        raise ValueError(f"{cls.name}: a key that is no identifier; the functional TypedDict form is not implemented")
    for key, expr, required in cls.fields:
        lines.append(f"    {key}: {quoted(expr)}" if required else f"    {key}: NotRequired[{quoted(expr)}]")
    if len(lines) == 1:
        lines.append("    pass")
    return "\n".join(lines)


def dicts_source(schema: Mapping[str, object], version: int, header: str) -> str:
    """The whole module text (before ``ruff format``)."""
    defs = _node(schema["$defs"])
    walk = _Walk(defs)
    for name, node in defs.items():
        walk.define(name, _node(node))
    _expand_union_bases(walk.out)
    parts = [
        header,
        "from typing import Literal, NotRequired, TypeAlias, TypedDict",
        "",
        "# Any JSON value: what the schema leaves untyped (a tool's raw input and output, `_meta`'s values).",
        'JsonValue: TypeAlias = "str | int | float | bool | None | list[JsonValue] | dict[str, JsonValue]"',
        "",
    ]
    for name, (expr, doc) in walk.out.aliases.items():
        parts.append(f"{name}: TypeAlias = {quoted(expr)}")
        if doc:
            parts.append(_docstring(doc))
        parts.append("")
    for cls in _ordered(walk.out.classes):
        parts += ["", _class_source(cls), "", ""]
    del version  # the header names it
    return "\n".join(parts).rstrip("\n") + "\n"
