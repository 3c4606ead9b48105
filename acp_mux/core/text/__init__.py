"""Text and JSON that are always safe: surrogate-proof text and JSON (``safe``), typed reads of JSON,
JSON-RPC messages, redaction of secrets, escapes for a terminal, and streamed deltas joined.
"""
