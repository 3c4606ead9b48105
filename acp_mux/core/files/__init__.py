"""Files acp-mux writes: its own fixed-name files, the state files it reads back, private files for
secrets, and where all of them live.
"""
