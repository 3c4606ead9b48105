"""``_session/steering``: a message put into the turn the agent is running now, as claude-agent-acp (0.101.0) and
codex-acp (2.6.0) define it, so that an editor written for them steers every agent acp-mux runs that can take one.

Request: ``{"sessionId", "prompt": [ContentBlock...], "_meta"?: {"steering": {"idleBehavior": "promptRequired"}}}``.
Answer: ``{"outcome": "injected"}`` (the running turn took it), or, with no turn running, ``{"outcome":
"startedNewTurn"}`` (it runs as a prompt of its own, as both reference adapters do by default; its updates stream
as any turn's) or, when the editor asked to keep the message (``idleBehavior: "promptRequired"``), ``{"outcome":
"promptRequired", "reason": "noRunningTurn"}`` and nothing is sent. An agent that cannot take a message during its
turn (its adapter has no ``steer``: ``AgentAdapter.steers``) is answered with an error saying so while a turn runs, rather than a
silent queueing: the editor chose steering over a queued prompt, and a prompt sent now is queued anyway.

Advertised as the reference adapters do: ``_meta.steering.supported`` at the top of the ``initialize`` result
(:data:`acp_mux.launcher.early_init.STEERING_META`), where the agent served (or one of those offered) can steer.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp_mux.server.wire.rpc import INVALID_PARAMS, RpcError

METHOD = "_session/steering"
INJECTED = {"outcome": "injected"}
STARTED_NEW_TURN = {"outcome": "startedNewTurn"}
PROMPT_REQUIRED = {"outcome": "promptRequired", "reason": "noRunningTurn"}


@dataclass(frozen=True)
class SteerRequest:
    session_id: str
    prompt: list[dict[str, object]]  # ACP content blocks, as the editor sent them (checked as a prompt's are)
    prompt_required: bool  # idle: answer promptRequired and keep nothing, instead of starting a turn


def parse(params: object) -> SteerRequest:
    """The request's params, checked as the reference adapters check them (-32602 naming what is wrong)."""
    if not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "steer params must be an object")
    session_id, prompt, meta = params.get("sessionId"), params.get("prompt"), params.get("_meta")
    if not isinstance(session_id, str) or not session_id:
        raise RpcError(INVALID_PARAMS, "steer params require a non-empty sessionId")
    if not isinstance(prompt, list) or not prompt or not all(isinstance(block, dict) for block in prompt):
        raise RpcError(INVALID_PARAMS, "steer params require a non-empty prompt array")
    if meta is not None and not isinstance(meta, dict):
        raise RpcError(INVALID_PARAMS, "steering _meta must be an object")
    steering = (meta or {}).get("steering")
    if steering is not None and not isinstance(steering, dict):
        raise RpcError(INVALID_PARAMS, "steering _meta.steering must be an object")
    idle = (steering or {}).get("idleBehavior")
    if idle is not None and idle != "promptRequired":
        raise RpcError(INVALID_PARAMS, "unsupported steering idleBehavior")
    return SteerRequest(session_id, prompt, idle == "promptRequired")
