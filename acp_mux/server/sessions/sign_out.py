"""ACP ``logout``: what signing out means for acp-mux.

acp-mux keeps no sign-in of its own: each agent CLI holds its own credentials (its login runs in a terminal,
``acp-mux --agent NAME --login``). So ``logout`` runs the agent's own sign-out where its CLI has one that needs no
terminal (the registry's ``logout_args``: ``claude auth logout``, ``codex logout``), with the environment the agent
runs with (so the same credentials are removed); an agent without one is refused, in words that say how to sign out
instead. ``initialize`` advertises ``agentCapabilities.auth.logout`` only where the first case holds.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from acp_mux.server.wire.rpc import INTERNAL_ERROR, METHOD_NOT_FOUND, RpcError

if TYPE_CHECKING:
    from acp_mux.adapters.base import AgentAdapter

LOGOUT_TIMEOUT_S = 30.0
OUTPUT_TAIL = 500  # characters of the CLI's own words kept for the error message


def can_sign_out(adapter: AgentAdapter | None) -> bool:
    """Whether ``logout`` is served for this agent (None: several agents answer, and none is the one to sign out)."""
    return adapter is not None and bool(adapter.logout_args)


async def sign_out(adapter: AgentAdapter | None, binary: str | None, env: dict[str, str] | None) -> None:
    """Run the agent's own sign-out; RpcError when there is none (-32601) or it fails (-32603, its words kept)."""
    if adapter is None or not can_sign_out(adapter):
        who = adapter.display_name if adapter is not None else "the agent of each session"
        raise RpcError(
            METHOD_NOT_FOUND,
            f"logout: acp-mux keeps no sign-in of its own, and {who} has no sign-out it can run here; "
            "sign out with the agent's own CLI in a terminal",
        )
    command = adapter.resolve_binary(binary, env)
    try:
        process = await asyncio.create_subprocess_exec(
            command,
            *adapter.logout_args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=env,
        )
    except OSError as exc:
        raise RpcError(INTERNAL_ERROR, f"logout: could not run {adapter.display_name}'s sign-out: {exc}") from None
    try:
        output, _ = await asyncio.wait_for(process.communicate(), LOGOUT_TIMEOUT_S)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise RpcError(INTERNAL_ERROR, f"logout: {adapter.display_name}'s sign-out did not finish") from None
    if process.returncode != 0:
        said = output.decode(errors="replace").strip()[-OUTPUT_TAIL:]
        raise RpcError(
            INTERNAL_ERROR, f"logout: {adapter.display_name}'s sign-out failed (exit {process.returncode}): {said}"
        )
