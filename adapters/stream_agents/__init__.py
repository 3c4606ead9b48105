"""Stream agents: CLIs whose output acp-mux parses line by line from a one-way JSON stream (claude's stream-json,
codex exec, openclaw's exec fallback, the scripted demo agent). Each module maps one native schema to the event
union; the shared tool-table pieces live in ``adapters.base``."""
