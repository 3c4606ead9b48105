"""acp-mux: one Agent Client Protocol face for ten coding-agent CLIs."""

__version__ = "0.1.0"
