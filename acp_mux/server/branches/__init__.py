"""One conversation, more than one agent: failover at a usage limit, ``session/fork``, and
``/compare`` with its private copies of the folder.
"""
