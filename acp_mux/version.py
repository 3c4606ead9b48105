"""The version of acp-mux, in a module of its own: the modules that print or send it import it from here, not from
the package, whose public names load the API (``acp_mux.__getattr__``), so no import circle runs through it."""

__version__ = "0.1.0"
