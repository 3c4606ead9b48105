"""Core runtime: the event union, runs, interactions, processes. Knows no agent and no ACP; imports nothing
outside ``acp_mux.core``."""
