"""The ACP face: stdio JSON-RPC, the server's methods, live sessions, the session store. Knows ACP, not agents:
it reaches agents only through the registry and the adapter contract."""
