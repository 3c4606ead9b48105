"""Drive a coding agent from Python with acp-mux: stream a turn's typed events, answer its permission questions
with a callback, send a second prompt, and resume the stored conversation later.

Runs as is against the bundled scripted agent ("demo", no agent CLI needed), in a temporary folder; put "claude",
"codex", "gemini", ... in its place to drive that CLI (installed and signed in) the same way.
"""

import asyncio
import tempfile

import acp_mux


def approve(request: acp_mux.ApprovalRequest) -> acp_mux.Approve | acp_mux.Deny:
    """Asked for every question no rule answers: allow changes to files, refuse the rest."""
    return acp_mux.Approve() if request.kind == "edit" else acp_mux.Deny(reason="only file edits, please")


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        async with acp_mux.run("demo", "write the notes file", cwd=folder, approvals=acp_mux.ask(approve)) as run:
            async for event in run:  # this turn's events, as they come
                match event:
                    case acp_mux.events.TextDeltaEvent():
                        print(event.delta, end="", flush=True)
                    case acp_mux.events.ApprovalRequestEvent():
                        print(f"\n  [asks: {event.action}]", end="")
                    case acp_mux.events.ApprovalDeniedEvent():
                        print(f" [refused: {event.reason}]")
            assert run.result is not None
            print(f"\nstop reason: {run.result.stop_reason}")

            await run.continue_("thanks!")  # the next prompt of the same conversation
            print((await run.wait()).text)
            session = run.session_id
        # the agent is gone here; the conversation is stored (`acp-mux sessions show ID`, or an editor opens it)

        async with acp_mux.run(None, "are you still there?", resume=session) as run:
            print((await run.wait()).text)

        async for event in acp_mux.query("demo", "one more thing", cwd=folder):  # one prompt, one turn
            if isinstance(event, acp_mux.events.TurnEndEvent):
                print("one-shot turn done")


asyncio.run(main())
