"""What is kept of a session: the store (``store``), its typed event log, replay into ACP updates,
and the private files they are written to.
"""
