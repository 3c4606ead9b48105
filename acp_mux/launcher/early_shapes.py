"""Whether the params of an ``initialize`` or ``session/new`` are ones the server's typed edge accepts: the
launcher's check (standard library only), made from the server's own models.

Why: the launcher answers these two requests before the bridge (and pydantic) is loaded
(:mod:`acp_mux.launcher.early_init`, :mod:`acp_mux.launcher.early_session`), and its answer must be the server's. The
server reads params into the ACP v1 models (:func:`acp_mux.server.wire.editor_edge.parse_request`, strict: JSON's own
types) and answers ``-32602`` when they do not fit; a launcher that answered such params (a ``protocolVersion``
outside uint16, a ``_meta`` that is not an object, an MCP server without its ``args``) would say yes where the
server says no. So the launcher answers only params that fit, and leaves the rest to the server and its error.

"Fit" is decided by the models themselves: ``early_shapes.json`` beside this file is the JSON schema pydantic writes
for the two request models (``python -m acp_mux.launcher.early_shapes`` rewrites it; a test holds it to the models),
and :func:`fits` reads the few keywords such a schema uses, with pydantic's strict meanings (``true`` is no integer,
``1.0`` is no integer). A keyword it does not know makes it answer False: the server then decides. Keys that pydantic
would read as a field under its Python name (``protocol_version`` for ``protocolVersion``: the models take both)
are left to the server too.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False  # typing itself is one of the imports the launcher avoids
if TYPE_CHECKING:
    from typing import Any

SHAPES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "early_shapes.json")
METHODS = ("initialize", "session/new")
# Keywords of a pydantic JSON schema that carry no constraint here
_NOTES = frozenset(("default", "description", "title"))
_TYPES: dict[str, Any] = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}
_loaded: dict[str, Any] = {}


def shapes() -> dict[str, Any]:
    """The snapshot (read once): ``{"methods": {method: schema}, "python_names": [...]}``; empty when unreadable."""
    if not _loaded:
        try:
            with open(SHAPES_FILE, encoding="utf-8") as fh:
                _loaded.update(json.load(fh))
        except (OSError, ValueError):
            _loaded["methods"] = {}
    return _loaded


def fits(method: str, params: object) -> bool:
    """Whether the server's typed edge reads ``params`` of ``method`` without an error (False when unsure)."""
    known = shapes()
    schema = known.get("methods", {}).get(method)
    if not isinstance(schema, dict):
        return False
    checker = _Checker(schema.get("$defs", {}), frozenset(known.get("python_names", ())))
    return checker.fits(params, schema)


class _Checker:
    def __init__(self, defs: dict[str, Any], python_names: frozenset[str]) -> None:
        self.defs, self.python_names = defs, python_names

    def fits(self, value: object, schema: dict[str, Any]) -> bool:
        for keyword, rule in schema.items():
            if keyword in _NOTES or keyword == "$defs":
                continue
            check = _KEYWORDS.get(keyword)
            if check is None or not check(self, value, rule, schema):
                return False
        return True

    def ref(self, value: object, rule: Any, schema: dict[str, Any]) -> bool:
        prefix = "#/$defs/"
        if not isinstance(rule, str) or not rule.startswith(prefix) or rule[len(prefix) :] not in self.defs:
            return False
        return self.fits(value, self.defs[rule[len(prefix) :]])

    def any_of(self, value: object, rule: Any, schema: dict[str, Any]) -> bool:
        return isinstance(rule, list) and any(isinstance(branch, dict) and self.fits(value, branch) for branch in rule)

    def type_(self, value: object, rule: Any, schema: dict[str, Any]) -> bool:
        kinds = rule if isinstance(rule, list) else [rule]
        return any(_is(value, kind) for kind in kinds)

    def properties(self, value: object, rule: Any, schema: dict[str, Any]) -> bool:
        if not isinstance(value, dict):
            return True  # "type" says whether it must be an object
        if not isinstance(rule, dict):
            return False
        if any(key in self.python_names and key not in rule for key in value):
            return False  # a field under its Python name: the models would read it as that field
        return all(key not in value or self.fits(value[key], sub) for key, sub in rule.items())

    def required(self, value: object, rule: Any, schema: dict[str, Any]) -> bool:
        return not isinstance(value, dict) or (isinstance(rule, list) and all(key in value for key in rule))

    def additional(self, value: object, rule: Any, schema: dict[str, Any]) -> bool:
        if rule is True:
            return True
        if not isinstance(value, dict):
            return True
        if rule is False:
            return all(key in schema.get("properties", {}) for key in value)
        return False  # a schema for the other keys: not one pydantic writes for these models

    def items(self, value: object, rule: Any, schema: dict[str, Any]) -> bool:
        if not isinstance(value, list):
            return True
        return isinstance(rule, dict) and all(self.fits(item, rule) for item in value)

    def const(self, value: object, rule: Any, schema: dict[str, Any]) -> bool:
        return type(value) is type(rule) and value == rule

    def minimum(self, value: object, rule: Any, schema: dict[str, Any]) -> bool:
        return not _is(value, "number") or (_is(rule, "number") and value >= rule)

    def maximum(self, value: object, rule: Any, schema: dict[str, Any]) -> bool:
        return not _is(value, "number") or (_is(rule, "number") and value <= rule)


def _is(value: object, kind: Any) -> bool:
    """JSON's types as pydantic's strict mode takes them: a bool is no number, a float no integer."""
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    expected = _TYPES.get(kind)
    return expected is not None and isinstance(value, expected)


_KEYWORDS = {
    "$ref": _Checker.ref,
    "anyOf": _Checker.any_of,
    "type": _Checker.type_,
    "properties": _Checker.properties,
    "required": _Checker.required,
    "additionalProperties": _Checker.additional,
    "items": _Checker.items,
    "const": _Checker.const,
    "minimum": _Checker.minimum,
    "maximum": _Checker.maximum,
}


# ── the snapshot (tests and tools only: imports pydantic and the models) ──────────────────────────────────────
def current_shapes() -> dict[str, Any]:
    """The schemas of the two request models as pydantic states them now, and their fields' Python names."""
    from pydantic import BaseModel

    from acp_mux.protocol import v1

    models: dict[str, type[BaseModel]] = {"initialize": v1.InitializeRequest, "session/new": v1.NewSessionRequest}
    methods = {method: _bare(model.model_json_schema(by_alias=True)) for method, model in models.items()}
    names: set[str] = set()
    seen: set[type[BaseModel]] = set()
    todo = list(models.values())
    while todo:
        model = todo.pop()
        if model in seen:
            continue
        seen.add(model)
        for name, info in model.model_fields.items():
            if info.alias not in (None, name):
                names.add(name)
            todo.extend(_models_in(info.annotation))
    return {"methods": methods, "python_names": sorted(names)}


def _models_in(annotation: Any) -> list[Any]:
    from typing import get_args

    from pydantic import BaseModel

    value = getattr(annotation, "__value__", None)  # a type alias: what it stands for
    if value is not None:
        return _models_in(value)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for arg in get_args(annotation) for model in _models_in(arg)]


def _bare(schema: Any) -> Any:
    """``schema`` without its prose (descriptions, titles): the launcher reads it on every start."""
    if isinstance(schema, dict):
        return {
            key: ({name: _bare(sub) for name, sub in value.items()} if key in ("properties", "$defs") else _bare(value))
            for key, value in schema.items()
            if key not in ("description", "title") or not isinstance(value, str)
        }
    if isinstance(schema, list):
        return [_bare(item) for item in schema]
    return schema


def shapes_text() -> str:
    return json.dumps(current_shapes(), indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    with open(SHAPES_FILE, "w", encoding="utf-8") as out:
        out.write(shapes_text())
    print(f"wrote {SHAPES_FILE}")
