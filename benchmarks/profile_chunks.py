"""Where acp-mux spends its CPU on a long reply of an ACP agent: cProfile of the bridge over 3,000-chunk replies.

``.venv/bin/python benchmarks/profile_chunks.py [--agent opencode] [--turns 3] [--chunks 3000] [--out FILE]``
starts ``python -m cProfile -m acp_mux --agent AGENT`` (this checkout) against the scripted model, opens a session,
sends ``--turns`` prompts each answered with ``--chunks`` text deltas, closes stdin (the bridge exits and the profile
is written) and prints the top functions by own time and by cumulative time. The first turn carries the imports;
the more turns, the more the profile shows the steady per-chunk path.
"""

from __future__ import annotations

import argparse
import pstats
import sys
import tempfile
from pathlib import Path

from rawclient import AcpProcess, Traffic, initialize, new_session, prompt
from subjects import ModelServerProcess, chunks_scenario, chunks_text
from tests.e2e.clis import cli_env, ensure_cli


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", default="opencode")
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--chunks", type=int, default=3000)
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "acp-mux-chunks.prof")
    parser.add_argument("--top", type=int, default=35)
    args = parser.parse_args()
    binary = ensure_cli(args.agent)
    if binary is None:
        raise SystemExit(f"{args.agent}: its pinned CLI cannot be installed here")
    workdir = Path(tempfile.mkdtemp(prefix="acp-mux-profile-"))
    server = ModelServerProcess(chunks_scenario(args.chunks), workdir, "chunks")
    home, cwd = workdir / "home", workdir / "project"
    cwd.mkdir(parents=True)
    env = cli_env(args.agent, server.url, home, cwd=cwd)
    env |= {"ACP_MUX_STATE_DIR": str(workdir / "state"), f"ACP_MUX_{args.agent.upper()}_BIN": str(binary)}
    argv = [sys.executable, "-m", "cProfile", "-o", str(args.out), "-m", "acp_mux", "--agent", args.agent]
    bridge = AcpProcess(argv, env, cwd)
    try:
        initialize(bridge)
        session_id = new_session(bridge, cwd)
        for turn in range(args.turns):
            _, traffic = prompt(bridge, session_id, "go", Traffic(keep=True), timeout=300)
            if "".join(traffic.text_parts) != chunks_text(args.chunks):
                raise SystemExit(f"turn {turn + 1}: the text differs ({traffic.text_chunks} chunks)")
            print(f"turn {turn + 1}: {traffic.text_chunks} chunks, {traffic.updates} updates", file=sys.stderr)
    finally:
        bridge.close(wait=20.0)
        server.close()
    stats = pstats.Stats(str(args.out))
    stats.sort_stats("tottime").print_stats(args.top)
    stats.sort_stats("cumulative").print_stats(args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
