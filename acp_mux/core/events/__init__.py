"""The event vocabulary: the normalized AgentEvent union (``union``), its codes and errors, the lazy
loading that keeps pydantic off the launcher's path, and the fan-out buffer every reader of a run shares.
"""
