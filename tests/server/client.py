"""A recording ACP client (the official SDK's client side) that drives ``acp-mux`` as a subprocess."""

from __future__ import annotations

import asyncio
import os
import sys
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable

import acp
from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse

from acp_mux.cli.plain_client import PlainClient


@dataclass
class RecordingClient(PlainClient):
    """Records every update synchronously (the SDK delivers notifications concurrently) and answers permissions."""

    choose: Callable[[list[Any], Any], str | None] = lambda options, call: "allow_once"
    updates: list[Any] = field(default_factory=list)
    permissions: list[tuple[Any, list[Any]]] = field(default_factory=list)
    permission_event: asyncio.Event = field(default_factory=asyncio.Event)
    hold_permissions: bool = False

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)

    async def request_permission(self, options: list[Any], session_id: str, tool_call: Any, **kwargs: Any) -> Any:
        self.permissions.append((tool_call, options))
        self.permission_event.set()
        if self.hold_permissions:
            await asyncio.sleep(3600)
        option = self.choose(options, tool_call)
        if option is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=option))

    def of(self, kind: str) -> list[Any]:
        return [u for u in self.updates if u.session_update == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(kind))


def final_statuses(client: RecordingClient) -> dict[str, str]:
    """tool call id -> the last status the editor saw for it."""
    status: dict[str, str] = {}
    for update in client.updates:
        if update.session_update in ("tool_call", "tool_call_update") and update.status:
            status[update.tool_call_id] = update.status
    return status


@asynccontextmanager
async def bridge(
    client: RecordingClient,
    *args: str,
    cwd: str,
    state_dir: str,
    env: dict[str, str] | None = None,
    **connection: Any,
) -> AsyncIterator[tuple[Any, Any]]:
    """acp-mux as a subprocess with ``client`` as its editor; ``connection``: the SDK connection's own options
    (``use_unstable_protocol`` for an editor that serves elicitations)."""
    full_env = dict(os.environ, ACP_MUX_STATE_DIR=state_dir, **(env or {}))
    async with acp.spawn_agent_process(
        client,
        sys.executable,
        "-m",
        "acp_mux",
        *args,
        env=full_env,
        cwd=cwd,
        transport_kwargs={"stderr": None},
        **connection,
    ) as (conn, proc):
        yield conn, proc


def send_prompt(conn: Any, sid: str, text: str) -> asyncio.Future[Any]:
    """``session/prompt`` with one text block, sent now and answered later: for a prompt sent while a turn runs."""
    return asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block(text)]))


def answer_order(**turns: asyncio.Future[Any]) -> list[str]:
    """The names of ``turns`` (prompts sent), appended as each is answered: the order the editor heard them end."""
    order: list[str] = []
    for name, turn in turns.items():
        turn.add_done_callback(lambda _t, n=name: order.append(n))
    return order


async def steer(conn: Any, sid: str, text: str, **steering: Any) -> Any:
    """``_session/steering`` (the SDK has no method for it): ``text`` into the running turn; ``steering`` is its
    ``_meta.steering`` (``idleBehavior``)."""
    params: dict[str, Any] = {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
    if steering:
        params["_meta"] = {"steering": steering}
    return await conn._conn.send_request("_session/steering", params)


async def reopen(conn: Any, sid: str, cwd: str) -> Any:
    """A new connection's ``initialize`` then ``session/load`` of ``sid``: the client records the replay."""
    await conn.initialize(protocol_version=1)
    return await conn.load_session(session_id=sid, cwd=cwd, mcp_servers=[])
