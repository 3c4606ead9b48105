"""What an extra process hop costs a long reply, beside what acp-mux costs: one ACP agent's 3,000-chunk reply
(the second of a session, "steady") in its own ACP mode, through a bare byte relay (:mod:`byte_relay`: no parsing,
the floor of any Python proxy), and through acp-mux, subjects taking turns in each round.

``.venv/bin/python benchmarks/relay_floor.py AGENT [--rounds 5]``

Prints each session (Enter → last chunk; the proxy's own CPU per chunk) and the medians with their ratio to the
agent's own mode. Where the relay is as slow as acp-mux, the hop is what costs (the agent writes one chunk at a
time and every chunk wakes one more process); where the relay costs nothing, the difference is acp-mux's own work.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rawclient import AcpProcess, cpu_times, initialize, new_session, prompt  # noqa: E402
from subjects import ModelServerProcess, acp_mux_subject, bench_venv, chunks_scenario, own_acp_subject  # noqa: E402

CHUNKS = 3000
PAUSE_S = 3.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agent")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="acp-mux-relay-floor-"))
    model = ModelServerProcess(chunks_scenario(CHUNKS), workdir, "chunks")
    try:
        mux = acp_mux_subject(bench_venv(), args.agent, workdir)
        own = own_acp_subject(args.agent, workdir, mux) if mux is not None else None
        if mux is None or own is None:
            raise SystemExit(f"{args.agent}: its pinned CLI cannot be installed here")
        own_argv, own_env = own.command(model.url)
        subjects = {
            "own ACP mode": (own_argv, own_env, own.cwd),
            "byte relay": (
                [sys.executable, str(Path(__file__).with_name("byte_relay.py")), *own_argv],
                own_env,
                own.cwd,
            ),
            "acp-mux": (*mux.command(model.url), mux.cwd),
        }
        replies: dict[str, list[float]] = {name: [] for name in subjects}
        names = list(subjects)
        for round_ in range(args.rounds):
            for name in names[round_ % 3 :] + names[: round_ % 3]:
                command, env, cwd = subjects[name]
                process = AcpProcess(command, env, cwd)
                try:
                    initialize(process)
                    session_id = new_session(process, cwd)
                    time.sleep(PAUSE_S)
                    prompt(process, session_id, "go", timeout=300)
                    before = cpu_times(process.pid).self_s
                    _, traffic = prompt(process, session_id, "go", timeout=300)
                    proxy_cpu = cpu_times(process.pid).self_s - before
                finally:
                    process.close(wait=3)
                if traffic.text_deltas != CHUNKS or traffic.last_words_s is None:
                    raise SystemExit(f"{name}: {traffic.text_deltas} of {CHUNKS} chunks arrived")
                replies[name].append(traffic.last_words_s * 1000)
                cpu = "" if name == "own ACP mode" else f", proxy CPU {proxy_cpu * 1e6 / CHUNKS:.0f} µs/chunk"
                print(f"round {round_ + 1} · {name}: {traffic.last_words_s * 1000:.0f} ms{cpu}", flush=True)
    finally:
        model.close()
    base = statistics.median(replies["own ACP mode"])
    print(f"\n{args.agent}, a {CHUNKS:,}-chunk reply, steady (median of {args.rounds}):")
    for name, values in replies.items():
        median = statistics.median(values)
        print(f"  {name:13s} {median:7.0f} ms  {median / base:.3f}× (range {min(values):.0f}–{max(values):.0f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
