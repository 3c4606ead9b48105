"""omp asks before it writes a file through an ACP form elicitation (``elicitation/create``, an Approve/Deny enum).
An editor that declares ``clientCapabilities.elicitation.form`` gets that form itself, through acp-mux, and its
answer reaches omp unchanged; an editor that does not gets it as acp-mux's permission dialog (tests/e2e/
test_real_agents.py). The real pinned omp, the scripted model server, the SDK's client side.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Iterator

import acp
import pytest
from acp.schema import ClientCapabilities, ElicitationCapabilities, ElicitationFormCapabilities

from tests.e2e.harness import RealAgent, require_cli
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

WRITE_EDIT = "Create notes.txt with the lines alpha and beta, then change beta to gamma."
FORMS = ClientCapabilities(elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities()))


class FormClient(RecordingClient):
    """An editor with its own form UI: it records each form and answers with the value ``answer`` picks."""

    def __init__(self, answer: str) -> None:
        super().__init__()
        self.answer = answer
        self.forms: list[tuple[str, Any, dict[str, Any]]] = []

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> dict[str, Any]:
        schema = mode.requested_schema
        ((field, prop),) = schema.properties.items()
        self.forms.append((message, mode, kwargs))
        values = [v for v in (prop.enum or []) if v == self.answer]
        assert values, (self.answer, prop)
        return {"action": "accept", "content": {field: values[0]}}


@pytest.fixture
def omp(tmp_path: Path) -> Iterator[RealAgent]:
    agent = RealAgent("omp", require_cli("omp"), tmp_path)
    yield agent
    agent.close()


async def run(omp: RealAgent, client: FormClient) -> Any:
    omp.serve("omp_write_edit", delta_delay=0)
    async with omp.bridge(client, unstable=True) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=FORMS)
        sid = (await conn.new_session(cwd=str(omp.cwd), mcp_servers=[])).session_id
        return await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block(WRITE_EDIT)]), 90)


async def test_the_editor_gets_omps_form_and_its_approval_reaches_omp(omp: RealAgent) -> None:
    client = FormClient("Approve")
    assert (await run(omp, client)).stop_reason == "end_turn"
    assert client.forms, "omp's form never reached the editor"
    message, mode, _ = client.forms[0]
    assert "write" in message.lower() and "notes.txt" in message  # omp's own words, unchanged
    assert mode.session_id  # in the editor's session (acp-mux's id, not omp's)
    assert (omp.cwd / "notes.txt").read_text().split() == ["alpha", "gamma"]  # the answer reached omp: it wrote
    asked_about = {call.title for call, _ in client.permissions}
    assert not any("write" in (t or "").lower() for t in asked_about)  # the form was not also a permission dialog


async def test_the_editors_refusal_reaches_omp_and_nothing_is_written(omp: RealAgent) -> None:
    client = FormClient("Deny")
    result = await run(omp, client)
    assert client.forms and result.stop_reason in ("end_turn", "cancelled")
    assert not (omp.cwd / "notes.txt").exists()
