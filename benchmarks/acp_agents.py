"""Every ACP-speaking agent through acp-mux against the same CLI in its own ACP mode (issue 26).

``bench.py --only acp-agents [--quick] [--agents gemini,opencode]`` runs it with compare.py's machinery: the same
scripted model, the same first-words and 3,000-chunk measurements (``words_once``, ``chunks_once``), the same
interleaving. For each agent two subjects: ``acp-mux --agent NAME`` (the byte-compiled install an editor starts) and
``<cli> <its ACP arguments>`` as a person would configure it instead (``subjects.own_acp_subject``). In every round
every subject takes its turn, and the order turns by one each round, so a machine whose speed changes under other
work weighs on all of them alike: the ratios acp-mux ÷ own ACP mode hold on a loaded machine, the absolute numbers
do not.

Measured per subject: first words 3 s after ``session/new`` (first prompt) and again 3 s after the first reply
(second prompt), and from the spawn to the first words (acp-mux answers ``session/new`` at once and starts the
agent meanwhile; an agent in its own ACP mode answers it only once it has started, so under load a slow start
shows in acp-mux's first words and in the other's ``session/new``: spawn → first words holds both); a reply of 3,000 text deltas, the first of a session (3 s after ``session/new``) and a later one
(steady), every chunk and the joined text checked; the server's RSS after the two first-words prompts (for the
own ACP mode the server *is* the CLI, so the column "with what it runs" is the comparable one).

cursor cannot be installed here (its installer is a curl script and it needs its own cloud account): it is listed
as skipped. openclaw's ACP mode needs a gateway; both of its subjects use the one private gateway acp-mux starts,
and its 3,000-chunk phase uses a second HOME (a gateway reads the model's URL when it starts).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from compare import REPLAY_ONLY, _turn_stats, chunks_once, cold_once, interleaved, ok, ratio, stat, words_once
from rawclient import spread, table
from subjects import (
    ModelServerProcess,
    Subject,
    acp_mux_subject,
    bench_venv,
    chunks_scenario,
    own_acp_subject,
    words_scenario,
)

ACP_AGENTS = ("gemini", "copilot", "opencode", "hermes", "omp", "openclaw")
TARGET = 1.05  # issue 26: every ACP-speaking agent ≤ 1.05× its own ACP mode, first words and a 3,000-chunk reply


@dataclass
class AgentPlan:
    """How many rounds: --quick keeps all six agents to ~10 minutes."""

    words_runs: int
    chunk_runs: int
    chunks: int
    steady_prompts: int


QUICK = AgentPlan(words_runs=2, chunk_runs=2, chunks=3000, steady_prompts=1)
FULL = AgentPlan(words_runs=5, chunk_runs=3, chunks=3000, steady_prompts=2)


@dataclass
class AgentPair:
    """One agent: acp-mux and its own ACP mode, for first words and (own HOMEs where a daemon keeps the URL) chunks."""

    agent: str
    mux: Subject
    own: Subject
    mux_chunks: Subject
    own_chunks: Subject


def pick(agents: str | None) -> tuple[list[str], dict[str, str]]:
    """The agents named by ``--agents`` (comma-separated; all six by default) and why any asked for is not run."""
    wanted = [a.strip() for a in agents.split(",")] if agents else [*ACP_AGENTS, "cursor"]
    skipped = {a: REPLAY_ONLY[a] for a in wanted if a in REPLAY_ONLY}
    skipped |= {a: "not an ACP-speaking agent acp-mux runs" for a in wanted if a not in (*ACP_AGENTS, *REPLAY_ONLY)}
    return [a for a in wanted if a in ACP_AGENTS], skipped


def pairs_for(agents: list[str], workdir: Path, skipped: dict[str, str]) -> list[AgentPair]:
    """The subjects of each agent whose pinned CLI is installed here (installing it on first use)."""
    venv_bin = bench_venv()
    pairs = []
    for agent in agents:
        mux = acp_mux_subject(venv_bin, agent, workdir)
        own = own_acp_subject(agent, workdir, mux) if mux is not None else None
        if mux is None or own is None:
            skipped[agent] = "its pinned CLI cannot be installed here"
            continue
        mux_chunks, own_chunks = mux, own
        if agent == "openclaw":  # its gateway keeps the model URL it started with: a second HOME for chunks
            mux_chunks = acp_mux_subject(venv_bin, agent, workdir, variant="chunks") or mux
            own_chunks = own_acp_subject(agent, workdir, mux_chunks, "chunks") or own
        pairs.append(AgentPair(agent, mux, own, mux_chunks, own_chunks))
    return pairs


def rotating(subjects: list[Subject], runs: int, measure: Callable[[Subject], Any], what: str) -> dict[str, list]:
    """compare.interleaved, with the order turned by one each round (the first of a round is measured slower)."""
    samples: dict[str, list] = {s.label: [] for s in subjects}
    for run in range(runs):
        order = subjects[run % len(subjects) :] + subjects[: run % len(subjects)]
        for label, rows in interleaved(order, 1, measure, f"{what} {run + 1}/{runs}").items():
            samples[label] += rows
    return samples


def run(workdir: Path, plan: AgentPlan, agents: str | None) -> dict[str, Any]:
    """Both measurements for every agent picked, printed as tables; returns the JSON-able results."""
    names, skipped = pick(agents)
    pairs = pairs_for(names, workdir, skipped)
    words_subjects = [s for p in pairs for s in (p.mux, p.own)]
    chunk_subjects = [s for p in pairs for s in (p.mux_chunks, p.own_chunks)]
    words_server = ModelServerProcess(words_scenario(), workdir, "acp-words")
    chunk_server = ModelServerProcess(chunks_scenario(plan.chunks), workdir, "acp-chunks")
    results: dict[str, Any] = {"plan": plan.__dict__, "skipped": skipped, "loadavg": [os.getloadavg()]}
    try:
        for subject in words_subjects:  # one untimed session each: page cache, first-run files, openclaw's gateway
            cold_once(subject, words_server.url)
        for subject in chunk_subjects:
            if subject not in words_subjects:
                cold_once(subject, chunk_server.url)
        results["words"] = rotating(words_subjects, plan.words_runs, lambda s: words_once(s, words_server.url), "words")
        results["loadavg"].append(os.getloadavg())
        results["chunks"] = rotating(
            chunk_subjects,
            plan.chunk_runs,
            lambda s: chunks_once(s, chunk_server.url, plan.chunks, plan.steady_prompts),
            "chunks",
        )
        results["loadavg"].append(os.getloadavg())
    finally:
        words_server.close()
        chunk_server.close()
    results["rows"] = print_tables(results, pairs, plan.chunks)
    return results


def print_tables(results: dict[str, Any], pairs: list[AgentPair], chunks: int) -> list[dict[str, Any]]:
    """One row per agent: acp-mux and its own ACP mode side by side, with the ratios; returns the rows as JSON."""
    words, replies = results["words"], results["chunks"]
    rows, out = [], []
    for pair in pairs:
        mux, own = words[pair.mux.label], words[pair.own.label]
        cm, co = replies[pair.mux_chunks.label], replies[pair.own_chunks.label]
        row = {
            "agent": pair.agent,
            "words1": [stat(mux, "words1_ms"), stat(own, "words1_ms")],
            "new": [stat(mux, "new_ms"), stat(own, "new_ms")],
            "spawn_words1": [stat(mux, "spawn_words1_ms"), stat(own, "spawn_words1_ms")],
            "words2": [stat(mux, "words2_ms"), stat(own, "words2_ms")],
            "reply_first": [_turn_stats(cm, "first", "reply_ms"), _turn_stats(co, "first", "reply_ms")],
            "reply_steady": [_turn_stats(cm, "steady", "reply_ms"), _turn_stats(co, "steady", "reply_ms")],
            "rss_mb": [stat(mux, "rss_kib")["median"] * 1.024 / 1e3, stat(own, "rss_kib")["median"] * 1.024 / 1e3],
            "tree_rss_mb": [
                stat(mux, "tree_rss_kib")["median"] * 1.024 / 1e3,
                stat(own, "tree_rss_kib")["median"] * 1.024 / 1e3,
            ],
            "complete": [_complete(cm, chunks), _complete(co, chunks)],
        }
        row["ratios"] = {
            key: ratio(row[key][0], row[key][1])
            for key in ("words1", "words2", "new", "spawn_words1", "reply_first", "reply_steady")
        }
        out.append(row)
        rows.append(
            [
                pair.agent,
                *(cell for key in ("words1", "words2") for cell in (*map(spread, row[key]), row["ratios"][key])),
            ]
        )
    table(
        "First words after Enter, 3 s after session/new (ms, median (min–max)): acp-mux vs the agent's own ACP mode",
        ["agent", "acp-mux, 1st", "own, 1st", "÷", "acp-mux, 2nd", "own, 2nd", "÷"],
        rows,
    )
    table(
        "Opening the agent: spawn → session/new answered, and spawn → first words of the first prompt (3 s of "
        "typing after session/new; ms, median (min–max))",
        ["agent", "acp-mux, session/new", "own, session/new", "÷", "acp-mux, spawn → words", "own, spawn → words", "÷"],
        [
            [r["agent"], *(c for key in ("new", "spawn_words1") for c in (*map(spread, r[key]), r["ratios"][key]))]
            for r in out
        ],  # fmt: skip
    )
    table(
        f"A {chunks:,}-chunk reply, Enter → last chunk (ms, median (min–max)): acp-mux vs the agent's own ACP mode",
        ["agent", "acp-mux, first", "own, first", "÷", "acp-mux, steady", "own, steady", "÷", "complete"],
        [
            [
                r["agent"],
                *(c for key in ("reply_first", "reply_steady") for c in (*map(spread, r[key]), r["ratios"][key])),
                f"{r['complete'][0]} · {r['complete'][1]}",
            ]
            for r in out
        ],
    )
    table(
        "Memory after two prompts (MB = 10⁶ bytes; median): the server, and the server with what it runs",
        ["agent", "acp-mux RSS", "acp-mux + CLI", "own ACP mode (the CLI)"],
        [[r["agent"], r["rss_mb"][0], r["tree_rss_mb"][0], r["tree_rss_mb"][1]] for r in out],
    )
    verdict = [
        [r["agent"], what, r["ratios"][key], f"≤ {TARGET:g}", "met" if r["ratios"][key] <= TARGET else "**NOT met**"]
        for r in out
        for key, what in (
            ("words1", "first words, 1st prompt"),
            ("spawn_words1", "spawn → first words, 1st prompt"),
            ("reply_first", "3,000-chunk reply, first"),
            ("reply_steady", "3,000-chunk reply, steady"),
        )
    ]
    table("Targets (issue 26: acp-mux ÷ own ACP mode, ratios of medians of this run)", ["agent", "what", "measured",
          "target", ""], verdict)  # fmt: skip
    for label, samples in {**results["words"], **results["chunks"]}.items():
        failed = [s["error"] for s in samples if "error" in s]
        if failed:
            print(f"\n{label}: {len(failed)} of {len(samples)} runs failed, first: {failed[0][:300]}")
    for agent, reason in results["skipped"].items():
        print(f"\n{agent}: skipped: {reason}")
    return out


def _complete(samples: list[dict[str, Any]], chunks: int) -> str:
    """How many measured turns delivered the text of every delta, in order, of how many (acp-mux may join deltas
    that wait together for the editor into one chunk, so chunks are not counted)."""
    turns = [t for s in ok(samples) for t in [s["first"], *s["steady"]]]
    return f"{sum(t['identical'] for t in turns)}/{len(turns)}"
