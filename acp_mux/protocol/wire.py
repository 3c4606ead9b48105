"""The typed ACP edge: a method name and its JSON params or result in, a generated model out, and back.

Both directions go through the same tables, generated from the schema's own method annotations (v1.py's
``*_PARAMS`` / ``*_RESULTS``): the methods an agent serves (the editor calls them on acp-mux, acp-mux calls them on
an ACP agent) and the methods a client serves (an ACP agent calls them on acp-mux, acp-mux calls them on the editor).
ACP v1 method names are unique across the two sides, so a method name alone picks the model.

What is validated here is kept whole: every model allows extra fields (base.py), ``_meta`` is a field, and ``dump``
writes back exactly the fields that were read or set (``exclude_unset``), so a message parsed and dumped is the same
dict, field for field. ``exclude_none`` would not do: ACP gives ``null`` a meaning of its own in places (a
``session_info_update`` with ``"title": null`` clears the title), and it must reach the other side.

One reading is not kept: a ``null`` params or result is read as ``{}`` (some senders answer a void method such as
``fs/write_text_file`` with ``"result": null``; the schema's type is the empty object), and dumped as ``{}``.

Methods outside the schema (extension methods, ``_``-prefixed) are not this module's to type: ``parse_*`` answer
``None`` for them and the caller passes their dict on as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, Literal, get_args

from pydantic import TypeAdapter, ValidationError

from acp_mux.protocol import unstable, v1
from acp_mux.protocol.base import AcpModel

Side = Literal["agent", "client"]  # who serves a method, in the schema's words (x-side)
Part = Literal["params", "result"]

_SIDE_TABLES: tuple[tuple[Side, Part, Mapping[str, Any]], ...] = (
    ("agent", "params", v1.AGENT_METHOD_PARAMS),
    ("agent", "params", v1.AGENT_NOTIFICATION_PARAMS),
    ("agent", "result", v1.AGENT_METHOD_RESULTS),
    ("agent", "params", unstable.AGENT_METHOD_PARAMS),  # session/fork: typed by hand from the unstable schema
    ("agent", "result", unstable.AGENT_METHOD_RESULTS),
    ("client", "params", v1.CLIENT_METHOD_PARAMS),
    ("client", "params", v1.CLIENT_NOTIFICATION_PARAMS),
    ("client", "result", v1.CLIENT_METHOD_RESULTS),
)

SHAPE_ERROR_CODE = -32602  # JSON-RPC "Invalid params": what a request whose params fail validation is answered with


class AcpShapeError(ValueError):
    """A message whose params or result do not fit the schema for its method.

    Carries what a JSON-RPC error answer needs (the method, the part, a short reason naming the fields), so the
    caller answers ``-32602`` or reports the agent's malformed message without digging in pydantic's errors.

    ``unknown_kinds`` lists the tags that matched no variant (a ``sessionUpdate`` or content ``type`` this schema
    version does not have) when that is the only fault: what a peer on a newer ACP sends. A caller then passes the
    message on as it is, or skips it, instead of treating it as broken (ACP adds update kinds in minor releases).
    """

    def __init__(self, method: str, part: Part, reason: str, unknown_kinds: tuple[str, ...] = ()) -> None:
        super().__init__(f"{method} {part}: {reason}")
        self.method = method
        self.part = part
        self.reason = reason
        self.unknown_kinds = unknown_kinds


def side_of(method: str) -> Side | None:
    """Which side serves ``method`` (``$/`` protocol notifications and unknown methods: None)."""
    for side, part, table in _SIDE_TABLES:
        if part == "params" and method in table:
            return side
    return None


def methods(side: Side, part: Part = "params") -> frozenset[str]:
    """Every method of that side that has that part (requests and notifications have params; requests a result)."""
    return frozenset(m for s, p, table in _SIDE_TABLES if s == side and p == part for m in table)


def _type_for(method: str, part: Part) -> Any:
    """The generated type for a method's part, or None when the schema has no such method."""
    if part == "params" and method in v1.PROTOCOL_NOTIFICATION_PARAMS:
        return v1.PROTOCOL_NOTIFICATION_PARAMS[method]
    for _, p, table in _SIDE_TABLES:
        if p == part and method in table:
            return table[method]
    return None


@cache
def _adapter(method: str, part: Part) -> TypeAdapter[Any] | None:
    """One TypeAdapter per method and part, built on first use (a session only pays for the methods it sees)."""
    target = _type_for(method, part)
    return None if target is None else TypeAdapter(target)


# The messages of every prompt turn, both directions: what a bridge warms before the first turn (see warm).
TURN_METHODS: tuple[str, ...] = ("session/prompt", "session/update", "session/request_permission", "session/cancel")
# Parts of those messages the bridge dumps on their own, each item its own model's serializer: every block of an
# editor's prompt (AcpServer.prompt hands the session the blocks as dicts).
DUMPED_ON_THEIR_OWN: tuple[tuple[str, Part, str], ...] = (("session/prompt", "params", "prompt"),)


def warm(methods: tuple[str, ...] = TURN_METHODS) -> None:
    """Build the validators of these methods' params and results now, not on their first message.

    The models build lazily (base.py), and the first ``session/update`` pays some tens of milliseconds for the
    whole SessionUpdate union, the first prompt sent to an agent as much again for its model's serializer
    (:func:`dump`), and the first prompt from the editor a few for its blocks' (:data:`DUMPED_ON_THEIR_OWN`); the
    bridge calls this once a session is answered, while the person types, so the first streamed words do not pay.
    """
    for method in methods:
        for part in ("params", "result"):
            adapter = _adapter(method, part)
            if adapter is None:
                continue
            adapter.rebuild()
            target = _type_for(method, part)
            if isinstance(target, type) and issubclass(target, AcpModel):
                target.model_rebuild()  # its own serializer, which dump() uses
    for method, part, field in DUMPED_ON_THEIR_OWN:
        target = _type_for(method, part)
        if method in methods and isinstance(target, type) and issubclass(target, AcpModel):
            for model in models_within(target.model_fields[field].annotation):
                model.model_rebuild()


def models_within(annotation: object) -> list[type[AcpModel]]:
    """The models a value of ``annotation`` can be, through lists, unions, ``Annotated`` and type aliases."""
    value = getattr(annotation, "__value__", None)  # a type alias (``ContentBlock``): what it stands for
    if value is not None:
        return models_within(value)
    if isinstance(annotation, type) and issubclass(annotation, AcpModel):
        return [annotation]
    return [model for arg in get_args(annotation) for model in models_within(arg)]


def _closest_variants(errors: list[Any]) -> list[Any]:
    """Of an untagged union's variants (a capitalised model name in the error's path, e.g. ``McpServerStdio``), only
    the failures of the variant that failed least: the one the sender most likely meant. Reporting every variant's
    failures would bury "env: Input should be a valid list" under the other variants' missing fields."""
    branches: dict[tuple[Any, ...], dict[Any, list[Any]]] = {}
    plain: list[Any] = []
    for e in errors:
        at = next((i for i, x in enumerate(e["loc"]) if isinstance(x, str) and x[:1].isupper()), None)
        if at is None:
            plain.append(e)
            continue
        variant = {**e, "loc": e["loc"][:at] + e["loc"][at + 1 :]}
        branches.setdefault(tuple(e["loc"][:at]), {}).setdefault(e["loc"][at], []).append(variant)
    for variants in branches.values():
        fewest = min(len(found) for found in variants.values())
        plain.extend(next(found for found in variants.values() if len(found) == fewest))
    return plain


def _reason(error: ValidationError) -> str:
    """The first few failures as `loc: msg`, short enough for a JSON-RPC error message."""
    errors = _closest_variants(error.errors(include_url=False))
    parts = [f"{'.'.join(str(x) for x in e['loc']) or '(root)'}: {e['msg']}" for e in errors]
    more = f" (+{len(parts) - 3} more)" if len(parts) > 3 else ""
    return "; ".join(parts[:3]) + more


def _unknown_kinds(error: ValidationError) -> tuple[str, ...]:
    """The unmatched union tags, when every failure is one (else empty: the message is broken, not just newer)."""
    errors = error.errors(include_url=False)
    if not all(e["type"] == "union_tag_invalid" for e in errors):
        return ()
    return tuple(str(e.get("ctx", {}).get("tag")) for e in errors)


def _parse(method: str, part: Part, data: object, strict: bool = False) -> AcpModel | None:
    adapter = _adapter(method, part)
    if adapter is None:
        return None
    try:
        model = adapter.validate_python({} if data is None else data, strict=strict)
    except ValidationError as error:
        raise AcpShapeError(method, part, _reason(error), _unknown_kinds(error)) from None
    if not isinstance(model, AcpModel):  # every v1 params/result type is a model or a union of models (a test holds)
        raise AcpShapeError(method, part, f"parsed to {type(model).__name__}, not a model")
    return model


def parse_params(method: str, params: object, *, strict: bool = False) -> AcpModel | None:
    """The typed params of a request or notification (either side's); None for a method outside the schema.

    Raises AcpShapeError when the params do not fit the method's schema. ``strict``: JSON's own types only (no
    ``"1"`` read as the integer 1, no ``1.0`` as an integer), what the editor's edge asks of the editor.
    """
    return _parse(method, "params", params, strict)


def parse_result(method: str, result: object) -> AcpModel | None:
    """The typed result of a response to a ``method`` request (the caller knows the method from its request id)."""
    return _parse(method, "result", result)


def dump(model: AcpModel) -> dict[str, Any]:
    """The wire dict of a model: camelCase aliases, exactly the fields that were read or set, extras and ``_meta`` kept."""
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)
