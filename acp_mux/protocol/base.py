"""The base of every generated ACP model: what the edge needs from all of them, in one place.

- ``extra="allow"``: a field this schema version does not know (a newer ACP, an agent's own field) is kept and
  written back out, so nothing an editor or agent sends is lost on its way through acp-mux;
- ``populate_by_name``: code inside builds models with Python names, the wire keeps its camelCase aliases;
- ``defer_build``: a model's validator is built the first time it is used, not when the module is imported, so
  importing the 250 models costs little and the methods a session never sees cost nothing.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class AcpModel(BaseModel):
    """Base class of the models in ``acp_mux.protocol.v<N>`` (set by tools/gen_acp_models.py)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)
