"""One run of an agent: RunHandle (``handle``), its questions and waiting prompts, the per-run parse
context, and the adapter contract (the lowest piece: what it needs of the run it states as protocols).
"""
