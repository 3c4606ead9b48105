"""What an ACP agent's first prompt spends that its second does not, and where: through acp-mux and in its own ACP
mode, interleaved.

``.venv/bin/python benchmarks/first_prompt.py [--agents gemini,opencode] [--runs 2]``: for each subject of
``acp_agents.py`` a session is opened, 3 s of typing, Enter, and again 3 s after the reply. For each prompt three
times from Enter: the first request the agent sends the scripted model (its log), the first words, and the extra
of the first prompt over the second (first − second), split into "before the model request" (the agent's own lazy
start: tool registry, prompts, providers — what a warm-up during the pause would have to trigger) and "after it".
Equal extras through acp-mux and in the own ACP mode mean the bridge adds nothing to the first prompt; what is left
is the agent's own first-prompt work, which an ACP client can only move into the pause with a request that makes
the agent do it (none found so far: see RESULTS-2026-11-26-acp-agents.md).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from acp_agents import pairs_for, pick, rotating
from compare import TYPING_PAUSE_S, TURN_TIMEOUT_S, ok, open_session
from rawclient import Traffic, prompt, table
from subjects import ModelServerProcess, Subject, words_scenario


def model_request_after(log: Path, since: float) -> float | None:
    """Seconds from ``since`` (time.time()) to the first request logged after it that the scripted model answers
    with the prompt's reply (kind "step"). The agents' other requests — hermes' ``GET /v1/models`` probes, opencode's
    title request (kind "helper") — are not the request the reply's words come from; counting them put hermes'
    "words after the request" at ~800 ms where its words follow its chat request by ~10 ms."""
    if not log.exists():
        return None
    records = (json.loads(line) for line in log.read_text().splitlines() if line.strip())
    later = [r["time"] for r in records if r.get("kind") == "step" and r["time"] >= since]
    return min(later) - since if later else None


def once(subject: Subject, server: ModelServerProcess, pause_s: float = TYPING_PAUSE_S) -> dict[str, Any]:
    """One session: two prompts after the typing pause, each timed to the model request and to the first words."""
    bridge, session_id, _ = open_session(subject, server.url)
    out: dict[str, Any] = {}
    try:
        for turn in (1, 2):
            time.sleep(pause_s)
            sent = time.time()
            _, traffic = prompt(bridge, session_id, "hi", Traffic(keep=True), timeout=TURN_TIMEOUT_S)
            request = model_request_after(server.log, sent)
            out[f"request{turn}_ms"] = request * 1e3 if request is not None else float("nan")
            out[f"words{turn}_ms"] = (traffic.first_words_s or float("nan")) * 1e3
    finally:
        bridge.close(wait=1.0)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", help="comma-separated (default: every ACP-speaking agent)")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument(
        "--pause",
        type=float,
        default=TYPING_PAUSE_S,
        help="seconds of typing before each prompt (default %(default)s). acp-mux starts the agent during it; longer "
        "than the agent's start (opencode: 4-10 s to session/new, hermes: 2.5-3 s) compares the prompts themselves",
    )
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="acp-mux-first-prompt-"))
    names, skipped = pick(args.agents)
    pairs = pairs_for(names, workdir, skipped)
    subjects = [s for p in pairs for s in (p.mux, p.own)]
    server = ModelServerProcess(words_scenario(), workdir, "words")
    try:
        samples = rotating(subjects, args.runs, lambda s: once(s, server, args.pause), "first prompt")
    finally:
        server.close()
    rows = []
    for subject in subjects:
        good = ok(samples[subject.label])
        if not good:
            rows.append([subject.label, "failed", "", "", "", "", ""])
            continue
        m = {k: statistics.median(s[k] for s in good) for k in good[0]}
        rows.append(
            [
                subject.label,
                m["request1_ms"],
                m["words1_ms"],
                m["request2_ms"],
                m["words2_ms"],
                m["request1_ms"] - m["request2_ms"],
                (m["words1_ms"] - m["request1_ms"]) - (m["words2_ms"] - m["request2_ms"]),
            ]
        )
    table(
        f"Enter → the agent's first model request, and → first words (ms, medians; {args.pause:g} s after session/new)",
        ["subject", "1st: request", "1st: words", "2nd: request", "2nd: words", "extra before request",
         "extra after request"],
        rows,
    )  # fmt: skip
    for agent, reason in skipped.items():
        print(f"{agent}: skipped: {reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
