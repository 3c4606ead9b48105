"""The wire and the edge: stdio JSON-RPC (``rpc``), the editor's requests read into the typed ACP model,
params checked field by field, and the shapes of a new session's settings.
"""
