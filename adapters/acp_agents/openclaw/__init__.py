"""OpenClaw, one package: the adapter over ``openclaw acp`` (``adapter``), the private gateway it talks to
(``gateway``, kept alive by ``keeper``), the gate plugin's asks (``asks``, ``plugin/``) and their ``relay``,
retries of a turn the gateway dropped (``retries``), a model nothing answers (``refusals``), the agent
registry it keeps (``registry``), and the
one-shot ``openclaw agent exec`` transport (``exec_transport``).
"""
