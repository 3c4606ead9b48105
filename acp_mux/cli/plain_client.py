"""The parts of an ACP client that acp-mux's own clients (the demo, the tests) answer the same way."""

from __future__ import annotations

from typing import Any


class PlainClient:
    """No file system, no extensions: the bridge never needs them. A plain class, not ``acp.Client``,
    so a method we forgot answers -32601 instead of a silent null."""

    async def write_text_file(self, **kwargs: Any) -> None:
        return None

    async def read_text_file(self, **kwargs: Any) -> Any:
        import acp

        raise acp.RequestError.method_not_found("fs/read_text_file")

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return {}

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None
