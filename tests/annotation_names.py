"""The names an annotation mentions, for the structural tests that read the source (one owner of a question, of the
waiting prompts): ``list[Prompt]``, ``"dict[str, PendingInteraction]"`` and ``acp.PermissionOption`` alike."""

from __future__ import annotations

import ast


def annotation_names(node: ast.AST) -> set[str]:
    """Every bare or dotted-tail name under ``node`` (string annotations parsed too)."""
    found: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            found.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            found.add(sub.attr)
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            try:
                found |= annotation_names(ast.parse(sub.value, mode="eval"))
            except SyntaxError:
                pass
    return found
