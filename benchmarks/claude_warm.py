"""Claude's first words with and without the warm-up, interleaved: ``.venv/bin/python benchmarks/claude_warm.py [--runs N] [--json OUT]``.

Six subjects, each opened, 3 s of typing, Enter, time to the first words (and again for a second prompt), one
after the other in each round (the order turned by one each round) so a loaded machine weighs on all alike: acp-mux by default, acp-mux with the warm-up
forced on (``ACP_MUX_CLAUDE_PREWARM=1``) and off (``0``: not even the version question), claude-agent-acp, and the pinned Claude CLI alone, cold and warmed with
acp-mux's warm-up request. Medians and ratios are printed and written as JSON (``--json``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

from acp_mux.adapters.stream_agents.claude import WARM_UP
from compare import bare_words_once, interleaved, ok, words_once
from subjects import (
    ModelServerProcess,
    Subject,
    acp_mux_subject,
    bare_claude_subject,
    bench_venv,
    claude_agent_acp_subject,
    claude_prewarm_subject,
    words_scenario,
)

WARMED_CLI = "claude CLI alone, warmed (get_context_usage after initialize)"


def measure(subject: Subject, url: str) -> dict[str, Any]:
    """One session of ``subject``: the bare CLI is driven directly (warmed when its label says so)."""
    if subject.kind == "bare":
        return bare_words_once(subject, url, warm_up=WARM_UP if subject.label == WARMED_CLI else None)
    return words_once(subject, url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="claude-warm-"))
    venv_bin = bench_venv()
    bare = bare_claude_subject(workdir)
    off = acp_mux_subject(venv_bin, "claude", workdir, {"ACP_MUX_CLAUDE_PREWARM": "0"}, "warm-up off")
    subjects = [acp_mux_subject(venv_bin, "claude", workdir), claude_prewarm_subject(venv_bin, workdir), off,
                claude_agent_acp_subject(workdir), bare]  # fmt: skip
    if bare is not None:
        subjects.append(Subject(WARMED_CLI, "bare", bare.argv, "claude", workdir / "warmed-cli" / "home",
                                bare.cwd, bare.env_for))  # fmt: skip
    present = [s for s in subjects if s is not None]
    server = ModelServerProcess(words_scenario(), workdir, "words")
    try:
        for subject in present:  # one untimed session each: page cache, first-run files
            measure(subject, server.url)
        load_before = os.getloadavg()
        samples: dict[str, list[Any]] = {s.label: [] for s in present}
        for run in range(args.runs):  # the order turns each round: the first of a round measured slower here
            order = present[run % len(present) :] + present[: run % len(present)]
            for label, rows in interleaved(order, 1, lambda s: measure(s, server.url), "words").items():
                samples[label] += rows
        load_after = os.getloadavg()
    finally:
        server.close()
    medians = {
        label: {key: statistics.median(r[key] for r in ok(rows)) for key in ("words1_ms", "words2_ms")}
        for label, rows in samples.items()
        if ok(rows)
    }
    for label, m in medians.items():
        print(f"{label:70} 1st {m['words1_ms']:7.1f} ms   2nd {m['words2_ms']:7.1f} ms   n={len(ok(samples[label]))}")
    print(f"load average: {load_before[0]:.2f} at the start, {load_after[0]:.2f} at the end")
    if args.json:
        args.json.write_text(json.dumps({"samples": samples, "medians": medians, "load": [load_before, load_after]}))


if __name__ == "__main__":
    main()
