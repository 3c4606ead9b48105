"""Agent processes: spawn (``spawn``), process groups, the supervisor that ties an agent's life to
the bridge's, the tracker that leaves nothing behind, the agent the launcher started early, and pipes as lines.
"""
