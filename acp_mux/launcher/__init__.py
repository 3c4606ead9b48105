"""The launcher's fast path: the ``acp-mux`` entry point (``entry``) answers ``initialize`` and
the first ``session/new`` from the standard library only (``early_init``, ``early_session``, ``early_shapes``),
starts the session's agent before the bridge loads (``early_agent``), then hands over to the command line.
"""
