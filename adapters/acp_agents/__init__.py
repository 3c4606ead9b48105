"""ACP agents: CLIs that speak the Agent Client Protocol themselves (gemini, copilot, cursor, opencode, omp, hermes,
openclaw). ``acp_client`` is the family: one ACP client that each agent module extends through named hooks; the rest
are per-agent modules and their helpers (openclaw's private gateway, hermes' and openclaw's asking plugins)."""
