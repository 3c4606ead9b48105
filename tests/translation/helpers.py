"""Shared checks for the translation tests: every update must be a valid ACP ``session/update`` payload."""

from __future__ import annotations

from typing import Any

from acp.schema import SessionNotification


def acp_valid(updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Validate each update with the ACP SDK's schema and hand the list back unchanged for exact comparison."""
    for update in updates:
        SessionNotification.model_validate({"sessionId": "s", "update": update})
    return updates
