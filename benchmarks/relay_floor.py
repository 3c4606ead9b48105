"""What an extra process hop costs a long reply, beside what acp-mux costs: one ACP agent's 3,000-chunk reply
(the second of a session, "steady") in its own ACP mode, through a bare byte relay (:mod:`byte_relay`: no parsing,
the floor of any Python proxy), and through acp-mux, with the ACP-agents benchmark's own measurement
(``compare.chunks_once``: every chunk and the joined text checked) and rotation (``acp_agents.rotating``).

``.venv/bin/python benchmarks/relay_floor.py AGENT [--rounds 5]``

Prints the medians of the steady reply (Enter → last chunk) with their ratio to the agent's own mode, and the
proxy's own CPU per chunk. Where the relay is as slow as acp-mux, the hop is what costs (the agent writes one
chunk at a time and every chunk wakes one more process); where the relay costs nothing, the difference is acp-mux's
own work.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from acp_agents import rotating  # noqa: E402
from compare import chunks_once, ok, stat  # noqa: E402
from rawclient import spread, table  # noqa: E402
from subjects import ModelServerProcess, Subject, acp_mux_subject, bench_venv, chunks_scenario, own_acp_subject  # noqa: E402

CHUNKS = 3000
RELAY = str(Path(__file__).with_name("byte_relay.py"))


def relayed(own: Subject) -> Subject:
    """The agent's own ACP mode with the byte relay in front of it (same CLI, environment and directories)."""
    if own.argv_for is None:
        return replace(own, label="byte relay", kind="floor", argv=[sys.executable, RELAY, *own.argv])
    argv_for = own.argv_for
    return replace(own, label="byte relay", kind="floor", argv_for=lambda env: [sys.executable, RELAY, *argv_for(env)])


def steady(samples: list[dict[str, Any]], key: str) -> dict[str, float]:
    return stat([turn for sample in ok(samples) for turn in sample["steady"]], key)


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
        subjects = [own, relayed(own), mux]
        samples = rotating(subjects, args.rounds, lambda s: chunks_once(s, model.url, CHUNKS, 1), "chunks")
    finally:
        model.close()
    base = steady(samples[own.label], "reply_ms")["median"]
    rows = []
    for subject in subjects:
        reply = steady(samples[subject.label], "reply_ms")
        cpu = steady(samples[subject.label], "server_cpu_us_per_chunk") if subject is not own else None
        complete = sum(turn["identical"] for s in ok(samples[subject.label]) for turn in s["steady"])
        rows.append(
            [subject.label, spread(reply), reply["median"] / base, spread(cpu) if cpu else "–",
             f"{complete}/{args.rounds}"]
        )  # fmt: skip
    table(
        f"{args.agent}: a {CHUNKS:,}-chunk reply, steady, Enter → last chunk (ms, median (min–max))",
        ["subject", "reply", "÷ own", "proxy CPU µs/chunk", "complete"],
        rows,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
