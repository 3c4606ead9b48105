"""RPC agents: CLIs driven over a JSON-RPC-like protocol of their own (codex app-server, pi's RPC mode). Each module
holds its request/notification mapping; the shared peer is ``adapters.json_rpc_peer``."""
