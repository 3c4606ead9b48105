"""The ACP-client family grows through its named public hooks, never through a subclass overriding its private
methods: a private method of the family may change shape any day, and an override would silently stop being
called (or be called with the wrong arguments). This reads every module under adapters/ (ast, no imports of the
agents themselves), finds the classes that descend from ``AcpClientAdapter`` and fails on any method they define
whose underscore name the family (or its base) already has."""

from __future__ import annotations

import ast
from pathlib import Path

from acp_mux.adapters.acp_agents.acp_client import AcpClientAdapter

ADAPTERS = Path(__file__).resolve().parents[2] / "adapters"
FAMILY = "AcpClientAdapter"
HOOKS = (
    "on_initialized",
    "after_session_opened",
    "before_prompt",
    "on_prompt_done",
    "on_update",
    "on_permission_request",
    "on_client_request",
    "on_extension_request",
    "on_extension_notification",
)


def _base_names(node: ast.ClassDef) -> set[str]:
    names = set()
    for base in node.bases:
        if isinstance(base, ast.Name):
            names.add(base.id)
        elif isinstance(base, ast.Attribute):
            names.add(base.attr)
    return names


def private_overrides(sources: dict[str, str]) -> list[str]:
    """``file:Class._method`` for every family subclass method that overrides a private method of the family.

    Subclassing is followed across the given sources by class name (a subclass of a subclass counts)."""
    classes: list[tuple[str, ast.ClassDef]] = []
    for name, text in sources.items():
        classes += [(name, n) for n in ast.walk(ast.parse(text)) if isinstance(n, ast.ClassDef)]
    family = {FAMILY}
    grew = True
    while grew:
        grew = False
        for _, node in classes:
            if node.name not in family and _base_names(node) & family:
                family.add(node.name)
                grew = True
    found = []
    for name, node in classes:
        if node.name == FAMILY or not (_base_names(node) & family):
            continue
        for item in node.body:
            if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            method = item.name
            private = method.startswith("_") and not (method.startswith("__") and method.endswith("__"))
            if private and hasattr(AcpClientAdapter, method):
                found.append(f"{name}:{node.name}.{method}")
    return found


def _adapter_sources() -> dict[str, str]:
    return {str(p.relative_to(ADAPTERS)): p.read_text() for p in sorted(ADAPTERS.rglob("*.py"))}


def test_no_agent_overrides_a_private_method_of_the_family() -> None:
    sources = _adapter_sources()
    assert any("AcpClientAdapter)" in text for text in sources.values())  # the walk really sees the agents
    assert private_overrides(sources) == []


def test_the_check_catches_an_override_even_through_a_middle_class() -> None:
    source = (
        "class Mid(AcpClientAdapter):\n    def _helper_of_mine(self): ...\n"
        "class Leaf(Mid):\n    def _send_prompt_now(self, prompt, ctx): ...\n    def _on_request(self, m, c): ...\n"
    )
    assert private_overrides({"x.py": source}) == ["x.py:Leaf._send_prompt_now", "x.py:Leaf._on_request"]


def test_the_hooks_are_public_documented_methods_of_the_family() -> None:
    for hook in HOOKS:
        method = getattr(AcpClientAdapter, hook)
        assert callable(method) and (method.__doc__ or "").startswith("Hook:"), hook
