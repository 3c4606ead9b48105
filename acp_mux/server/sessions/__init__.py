"""Sessions: the ACP methods (``bridge``), one live session's turns, permissions and cancel, the
gate that orders its turns and switches, its settings, steering, sign-out and the handoff to another agent.
"""
