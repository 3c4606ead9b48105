"""The typed ACP edge: models generated from the official schema (``v1``) and the functions that parse incoming and
dump outgoing messages with them (``wire``). See docs/acp-versions.md.

Nothing here is imported on the ``initialize`` path (the launcher answers it with the standard library), and this
package module imports nothing itself, so ``import acp_mux.protocol`` stays free; the models load with ``wire``.
"""
