"""acp-mux against the reference adapters, in one run, on the same real CLIs and the same scripted model.

What a person feels in the editor: open the agent (spawn → ``initialize``, spawn → ``session/new``), type for a few
seconds, press Enter, wait for words (first and second prompt), read a long reply (3,000 chunks: the first one in a
session and a later one), and how much memory the whole thing holds. Plus, for acp-mux alone, the first words of
every agent it runs (the rows of ``AGENTS`` that are installable here) and its memory over a million streamed
events (the bundled demo agent, which needs no model).

For openclaw also the first words of a second editor window (a second bridge process) while one runs, which
shares the user's one private gateway (issue 21: under 10 s).

Every measurement is repeated and printed as a median with its spread; the subjects take turns within each
repetition, so a change in the machine's speed during the run falls on all of them alike. The targets of issue 12 are
ratios between numbers of the same run, printed at the end with ``met`` / ``NOT met``.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from rawclient import (
    AcpProcess,
    Traffic,
    cpu_times,
    descendants,
    initialize,
    ms,
    new_session,
    prompt,
    rss_kib,
    spread,
    summary,
    table,
    tree_cpu_s,
    tree_rss_kib,
)
from subjects import (
    ModelServerProcess,
    Subject,
    acp_mux_subject,
    bench_venv,
    chunks_scenario,
    chunks_text,
    claude_agent_acp_subject,
    codex_acp_subject,
    bare_claude_subject,
    claude_prewarm_subject,
    demo_subject,
    responder_subject,
    words_scenario,
)

TYPING_PAUSE_S = 3.0  # between session/new and Enter, and between the first reply and the second prompt
TURN_TIMEOUT_S = 120.0
WORDS = "Hello there, how can I help?"  # what words_scenario() streams

# Cursor has no package a registry serves (its installer is a curl script, and it needs its own cloud): acp-mux
# runs it only from recorded transcripts here.
REPLAY_ONLY = {"cursor": "replay-only: cursor-agent cannot be installed here (curl installer, cloud account)"}


def agent_rows() -> tuple[list[str], dict[str, str]]:
    """The ten agents of adapters/registry.py: those acp-mux runs and tests/e2e/clis.py installs (measured), and
    why each other one is not (printed as a skipped row), so the table always names all ten."""
    from acp_mux.adapters.registry import AGENT_NAMES, ENTRIES
    from tests.e2e.clis import PINS

    runnable, skipped = [], {}
    for name in AGENT_NAMES:
        if name in REPLAY_ONLY:
            skipped[name] = REPLAY_ONLY[name]
        elif not ENTRIES[name].supported:
            skipped[name] = "no adapter in this checkout yet"
        elif name not in PINS:
            skipped[name] = "no pinned CLI in tests/e2e/clis.py"
        else:
            runnable.append(name)
    return runnable, skipped


@dataclass
class Plan:
    """How many repetitions of each measurement: --quick keeps the comparison to a few minutes."""

    cold_runs: int
    words_runs: int
    agent_runs: int  # first words of the other agents (acp-mux alone): fewer, openclaw's first turn takes a minute
    chunk_runs: int
    chunks: int
    steady_prompts: int  # prompts after the first one in a chunk session
    million_turns: int
    million_per_turn: int


QUICK = Plan(
    cold_runs=3,
    words_runs=1,
    agent_runs=1,
    chunk_runs=1,
    chunks=3000,
    steady_prompts=1,
    million_turns=2,
    million_per_turn=50_000,
)
FULL = Plan(
    cold_runs=12,
    words_runs=5,
    agent_runs=3,
    chunk_runs=3,
    chunks=3000,
    steady_prompts=2,
    million_turns=10,
    million_per_turn=100_000,
)


def log(message: str) -> None:
    print(
        f"  [{time.strftime('%H:%M:%S')} load {os.getloadavg()[0]:.2f}] {message}",
        file=__import__("sys").stderr,
        flush=True,
    )


def open_session(subject: Subject, url: str) -> tuple[AcpProcess, str, dict[str, float]]:
    """Spawn, initialize, (authenticate), session/new; the times from spawn, in ms, and the RSS at initialize."""
    argv, env = subject.command(url)
    server = AcpProcess(argv, env, subject.cwd)
    try:
        initialize(server)
        marks = {"init_ms": ms(time.perf_counter() - server.started), "rss_init_kib": rss_kib(server.pid)}
        if subject.authenticate:
            server.request("authenticate", {"methodId": subject.authenticate})
        session_id = new_session(server, subject.cwd)
        marks["new_ms"] = ms(time.perf_counter() - server.started)
    except BaseException:
        server.close(wait=0.5)
        raise
    return server, session_id, marks


# ── spawn → initialize, spawn → session/new ────────────────────────────────────────────────────────────────────
def cold_once(subject: Subject, url: str) -> dict[str, float]:
    server, _, marks = open_session(subject, url)
    server.close(wait=1.0)
    return marks


# ── first words ────────────────────────────────────────────────────────────────────────────────────────────────
def words_once(subject: Subject, url: str, pause: float = TYPING_PAUSE_S) -> dict[str, Any]:
    """Session open, ``pause`` s of typing (3 s), Enter: time to the first words; again for the second prompt (after
    3 s); memory after."""
    server, session_id, marks = open_session(subject, url)
    try:
        out: dict[str, Any] = dict(marks)
        for turn in (1, 2):
            time.sleep(pause if turn == 1 else TYPING_PAUSE_S)
            _, traffic = prompt(server, session_id, "hi", Traffic(keep=True), timeout=TURN_TIMEOUT_S)
            text = "".join(traffic.text_parts)
            if traffic.first_words_s is None or text != WORDS:
                raise RuntimeError(f"{subject.label}: turn {turn} said {text!r}, not {WORDS!r}")
            out[f"words{turn}_ms"] = ms(traffic.first_words_s)
            if turn == 1:  # what the person waits in all from opening the agent: start, session, typing, words
                out["spawn_words1_ms"] = ms((traffic.first_text_at or float("nan")) - server.started)
            out[f"turn{turn}_ms"] = ms(traffic.answered_at - traffic.sent_at)
        out["rss_kib"] = rss_kib(server.pid)
        out["tree_rss_kib"] = tree_rss_kib(server.pid)
        out["processes"] = 1 + len(descendants(server.pid))
    finally:
        out_exit = server.close(wait=1.0)
    out["exit_ms"] = ms(out_exit)
    return out


def second_window_once(subject: Subject, url: str) -> dict[str, Any]:
    """A second editor window on openclaw: bridge A opens a session and answers once (so the user's shared private
    gateway runs), then bridge B (another acp-mux process) spawns, opens a session, 3 s of typing, Enter: the time
    to B's first words, and to its second prompt's. A stays open throughout."""
    first, first_id, _ = open_session(subject, url)
    try:
        prompt(first, first_id, "hi", Traffic(keep=True), timeout=TURN_TIMEOUT_S)
        return words_once(subject, url)  # the second window: the same measurement as any first window
    finally:
        first.close(wait=1.0)


def _line_type(line: bytes) -> object:
    """A stream-json line's ``type`` (None for anything that is not a JSON object)."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message.get("type") if isinstance(message, dict) else None


def bare_words_once(
    subject: Subject, url: str, turns: tuple[int, ...] = (1, 2), warm_up: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The same two prompts sent to the Claude CLI itself (stream-json on its stdin, as acp-mux sends them): its
    initialize answered stands for session/new, then the same 3 s pause before each prompt. ``warm_up``: a control
    request sent once initialize is answered (the floor under a warmed adapter)."""
    proc = subprocess.Popen(
        subject.argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=subject.env(url),
        cwd=str(subject.cwd),
        start_new_session=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout
    started = time.perf_counter()

    def send(message: dict[str, Any]) -> None:
        stdin.write(json.dumps(message).encode() + b"\n")
        stdin.flush()

    def read_until(kind: str) -> float | None:
        """Reads to the line of this ``type``; the perf_counter of the first text delta on the way. By the parsed
        type, never a prefix: 2.1.332 prints its result line's keys in another order (``duration_api_ms`` first)."""
        first = None
        for line in stdout:
            if first is None and b'"text_delta"' in line:
                first = time.perf_counter()
            if f'"{kind}"'.encode() in line and _line_type(line) == kind:
                return first
        raise RuntimeError(f"{subject.label}: stdout closed (exit {proc.poll()})")

    out: dict[str, Any] = {}
    try:
        send({"type": "control_request", "request_id": "init", "request": {"subtype": "initialize", "hooks": None}})
        read_until("control_response")
        out["new_ms"] = ms(time.perf_counter() - started)
        if warm_up is not None:
            send({"type": "control_request", "request_id": "warm", "request": warm_up})
        for turn in turns:
            time.sleep(TYPING_PAUSE_S)
            sent = time.perf_counter()
            send(
                {
                    "type": "user",
                    "session_id": "",
                    "parent_tool_use_id": None,
                    "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                }
            )
            first = read_until("result")
            if first is None:
                raise RuntimeError(f"{subject.label}: turn {turn} streamed no text")
            out[f"words{turn}_ms"] = ms(first - sent)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
    return out


# ── a 3000-chunk reply ─────────────────────────────────────────────────────────────────────────────────────────
def chunks_once(subject: Subject, url: str, chunks: int, steady_prompts: int) -> dict[str, Any]:
    """Session open, 3 s pause, a prompt answered with ``chunks`` deltas (first), then ``steady_prompts`` more
    (steady): Enter → last chunk shown, every chunk checked, the server's and the CLI's CPU per chunk."""
    expected = chunks_text(chunks)
    server, session_id, _ = open_session(subject, url)
    turns = []
    try:
        time.sleep(TYPING_PAUSE_S)
        for _ in range(1 + steady_prompts):
            before_server, before_cli = cpu_times(server.pid).self_s, tree_cpu_s(server.pid)
            _, traffic = prompt(server, session_id, "go", Traffic(keep=True), timeout=TURN_TIMEOUT_S)
            server_cpu = cpu_times(server.pid).self_s - before_server
            cli_cpu = tree_cpu_s(server.pid) - before_cli
            text = "".join(traffic.text_parts)
            turns.append(
                {
                    "reply_ms": ms(traffic.last_words_s or float("nan")),
                    "first_chunk_ms": ms(traffic.first_words_s or float("nan")),
                    "chunks": traffic.text_chunks,
                    "updates": traffic.updates,
                    "bytes_out": traffic.bytes_out,
                    "identical": text == expected,
                    "text_chars": len(text),  # beside len(expected): how far a text that is not identical is off
                    "expected_chars": len(expected),
                    "server_cpu_us_per_chunk": server_cpu * 1e6 / chunks,
                    "cli_cpu_us_per_chunk": cli_cpu * 1e6 / chunks,
                }
            )
        rss = rss_kib(server.pid)
        tree = tree_rss_kib(server.pid)
    finally:
        server.close(wait=1.0)
    return {"first": turns[0], "steady": turns[1:], "rss_kib": rss, "tree_rss_kib": tree}


# ── a million events (acp-mux with the demo agent) ─────────────────────────────────────────────────────────────
def million(subject: Subject, turns: int, per_turn: int) -> dict[str, Any]:
    """RSS of the bridge with a session open, then after each of ``turns`` prompts of ``per_turn`` deltas each."""
    env_subject = Subject(
        subject.label,
        subject.kind,
        subject.argv,
        None,
        subject.home,
        subject.cwd,
        lambda url: {**subject.env(url), "ACP_MUX_DEMO_DELTAS": str(per_turn)},
    )
    server, session_id, _ = open_session(env_subject, "")
    try:
        prompt(server, session_id, "warm up", timeout=TURN_TIMEOUT_S)
        start = rss_kib(server.pid)
        after, cpu, delivered = [], [], 0
        for _ in range(turns):
            before = cpu_times(server.pid).self_s
            _, traffic = prompt(server, session_id, "manydeltas", timeout=600)
            cpu.append((cpu_times(server.pid).self_s - before) * 1e6 / per_turn)
            delivered += traffic.text_deltas
            after.append(rss_kib(server.pid))
    finally:
        server.close(wait=1.0)
    return {
        "events": turns * per_turn,
        "delivered": delivered,
        "rss_start_kib": start,
        "rss_after_kib": after,
        "bridge_cpu_us_per_delta": cpu,
    }


# ── the run ────────────────────────────────────────────────────────────────────────────────────────────────────
@dataclass
class Pair:
    """acp-mux and the reference adapter on one CLI."""

    cli: str
    mux: Subject
    reference: Subject
    bare: Subject | None = None  # the CLI alone, without any ACP server (claude)
    variant: Subject | None = None  # acp-mux with an opt-in setting (claude: the warm-up), first words only


def interleaved(subjects: list[Subject], runs: int, measure: Callable[[Subject], Any], what: str) -> dict[str, list]:
    """``runs`` rounds; in each, every subject once, in turn. A failed sample is recorded as its error."""
    samples: dict[str, list] = {s.label: [] for s in subjects}
    for run in range(runs):
        for subject in subjects:
            log(f"{what} {run + 1}/{runs}: {subject.label}")
            try:
                samples[subject.label].append(measure(subject))
            except Exception as exc:  # noqa: BLE001 - one broken sample must not lose the whole run
                samples[subject.label].append({"error": str(exc)[:500]})
                log(f"  failed: {str(exc)[:300]}")
    return samples


def ok(samples: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [s for s in samples if "error" not in s]


def stat(samples: list[dict[str, Any]], key: str) -> dict[str, float]:
    return summary([s[key] for s in ok(samples) if key in s])


def run(workdir: Path, plan: Plan) -> dict[str, Any]:
    """Everything, printed as it completes; returns the JSON-able results."""
    log("installing: acp-mux into the benchmark venv, the pinned CLIs and reference adapters")
    venv_bin = bench_venv()
    responder = responder_subject(venv_bin, workdir)
    pairs: list[Pair] = []
    skipped: dict[str, str] = {}
    for cli, reference in (("claude", claude_agent_acp_subject), ("codex", codex_acp_subject)):
        mux = acp_mux_subject(venv_bin, cli, workdir)
        ref = reference(workdir)
        if mux is None or ref is None:
            skipped[cli] = f"the {cli} CLI cannot be installed here"
            continue
        pairs.append(
            Pair(
                cli,
                mux,
                ref,
                bare_claude_subject(workdir) if cli == "claude" else None,
                claude_prewarm_subject(venv_bin, workdir) if cli == "claude" else None,
            )
        )
    runnable, not_run = agent_rows()
    others = [
        s
        for s in (acp_mux_subject(venv_bin, a, workdir) for a in runnable if a not in ("claude", "codex"))
        if s is not None
    ]
    windows = [
        s
        for s in [acp_mux_subject(venv_bin, "openclaw", workdir, variant="second window")]
        if s is not None and "openclaw" in runnable
    ]  # another editor window while one runs (issue 21)
    skipped |= {
        a: "its pinned CLI cannot be installed here"
        for a in runnable
        if a not in ("claude", "codex") and all(s.cli != a for s in others)
    }
    skipped |= not_run
    compared = [s for p in pairs for s in (p.mux, p.reference)]

    words_server = ModelServerProcess(words_scenario(), workdir, "words")
    chunk_server = ModelServerProcess(chunks_scenario(plan.chunks), workdir, "chunks")
    results: dict[str, Any] = {"skipped": skipped, "plan": plan.__dict__}
    try:
        bare = [p.bare for p in pairs if p.bare is not None]
        variants = [p.variant for p in pairs if p.variant is not None]
        for subject in [
            responder,
            *compared,
            *bare,
            *variants,
            *others,
        ]:  # one untimed session each: page cache, first-run files
            try:
                if subject.kind == "bare":
                    bare_words_once(subject, words_server.url, turns=())
                else:
                    cold_once(subject, words_server.url)
            except Exception as exc:  # noqa: BLE001
                log(f"warm-up of {subject.label} failed: {exc}")
        cold = interleaved([responder, *compared], plan.cold_runs, lambda s: cold_once(s, words_server.url), "cold")
        results["cold"] = cold
        print_cold(cold, responder, pairs)

        words = interleaved(
            [*compared, *variants, *bare],
            plan.words_runs,
            lambda s: (bare_words_once if s.kind == "bare" else words_once)(s, words_server.url),
            "words",
        )
        words |= interleaved(others, plan.agent_runs, lambda s: words_once(s, words_server.url), "words")
        words |= interleaved(windows, plan.agent_runs, lambda s: second_window_once(s, words_server.url), "words")
        results["words"] = words
        chunks = interleaved(
            compared,
            plan.chunk_runs,
            lambda s: chunks_once(s, chunk_server.url, plan.chunks, plan.steady_prompts),
            "chunks",
        )
        results["chunks"] = chunks
    finally:
        words_server.close()
        chunk_server.close()
    print_words(words, pairs)
    print_agents(words, pairs, [*others, *windows], skipped)
    print_chunks(chunks, pairs, plan.chunks)
    log(f"million: {plan.million_turns} × {plan.million_per_turn:,} deltas through acp-mux · demo")
    results["million"] = million(demo_subject(venv_bin, workdir), plan.million_turns, plan.million_per_turn)
    print_memory(words, pairs, results["million"])
    results["targets"] = print_targets(results, responder, pairs)
    return results


# ── printing ───────────────────────────────────────────────────────────────────────────────────────────────────
def ratio(a: dict[str, float], b: dict[str, float]) -> float:
    if not a.get("n") or not b.get("n") or not b["median"]:
        return float("nan")
    return a["median"] / b["median"]


def errors_note(samples: dict[str, list]) -> None:
    for label, runs in samples.items():
        failed = [s["error"] for s in runs if "error" in s]
        if failed:
            print(f"\n{label}: {len(failed)} of {len(runs)} runs failed, first: {failed[0][:300]}")


def print_cold(cold: dict[str, list], responder: Subject, pairs: list[Pair]) -> None:
    floor_init, floor_new = stat(cold[responder.label], "init_ms"), stat(cold[responder.label], "new_ms")
    rows = []
    for label, samples in cold.items():
        init, new = stat(samples, "init_ms"), stat(samples, "new_ms")
        rows.append(
            [
                label,
                spread(init),
                spread(new),
                ratio(init, floor_init),
                ratio(new, floor_new),
                stat(samples, "rss_init_kib")["median"] / 1e3 * 1.024,
            ]
        )
    table(
        f"Spawn → initialize and spawn → session/new (ms, median (min–max), N={len(next(iter(cold.values())))})",
        ["server", "initialize", "session/new", "÷ stdlib initialize", "÷ stdlib session/new", "RSS @init MB"],
        rows,
    )
    errors_note(cold)


def print_words(words: dict[str, list], pairs: list[Pair]) -> None:
    rows = []
    for pair in pairs:
        mux1, mux2 = stat(words[pair.mux.label], "words1_ms"), stat(words[pair.mux.label], "words2_ms")
        for subject in (
            pair.mux,
            *([pair.variant] if pair.variant else []),
            pair.reference,
            *([pair.bare] if pair.bare else []),
        ):
            w1, w2 = stat(words[subject.label], "words1_ms"), stat(words[subject.label], "words2_ms")
            rows.append(
                [
                    subject.label,
                    spread(w1),
                    spread(w2),
                    ratio(w1, w2),
                    ratio(mux1, w1) if subject is not pair.mux else "",
                    ratio(mux2, w2) if subject is not pair.mux else "",
                ]
            )
    table(
        "First words after Enter, 3 s after session/new (ms, median (min–max))",
        ["server", "1st prompt", "2nd prompt", "1st ÷ 2nd", "acp-mux ÷ this, 1st", "acp-mux ÷ this, 2nd"],
        rows,
    )
    errors_note(
        {p.label: words[p.label] for pair in pairs for p in (pair.mux, pair.variant, pair.reference, pair.bare) if p}
    )


def print_agents(words: dict[str, list], pairs: list[Pair], others: list[Subject], skipped: dict[str, str]) -> None:
    rows = []
    for subject in [p.mux for p in pairs] + others:
        samples = words[subject.label]
        rows.append(
            [
                subject.label.removeprefix("acp-mux · "),
                spread(stat(samples, "words1_ms")),
                spread(stat(samples, "words2_ms")),
                spread(stat(samples, "new_ms")),
                len(ok(samples)),
            ]
        )
    rows += [[name, "skipped", reason, "", 0] for name, reason in skipped.items()]
    table(
        "acp-mux: first words of each agent (ms, median (min–max); 3 s pause before each prompt)",
        ["agent", "1st prompt", "2nd prompt", "spawn → session/new", "runs"],
        rows,
    )
    errors_note({s.label: words[s.label] for s in others})


def _turn_stats(samples: list[dict[str, Any]], which: str, key: str) -> dict[str, float]:
    values = []
    for sample in ok(samples):
        turns = [sample["first"]] if which == "first" else sample["steady"]
        values += [t[key] for t in turns]
    return summary(values)


def print_chunks(chunks: dict[str, list], pairs: list[Pair], n: int) -> None:
    rows = []
    for pair in pairs:
        for subject in (pair.mux, pair.reference):
            samples = chunks[subject.label]
            first, steady = _turn_stats(samples, "first", "reply_ms"), _turn_stats(samples, "steady", "reply_ms")
            mux_first = _turn_stats(chunks[pair.mux.label], "first", "reply_ms")
            mux_steady = _turn_stats(chunks[pair.mux.label], "steady", "reply_ms")
            turns = [t for s in ok(samples) for t in [s["first"], *s["steady"]]]
            complete = sum(t["identical"] for t in turns)  # every delta's text, in order (the bridge may join them)
            rows.append(
                [
                    subject.label,
                    spread(first),
                    spread(steady),
                    ratio(mux_first, first) if subject is pair.reference else "",
                    ratio(mux_steady, steady) if subject is pair.reference else "",
                    _turn_stats(samples, "steady", "server_cpu_us_per_chunk")["median"],
                    _turn_stats(samples, "steady", "cli_cpu_us_per_chunk")["median"],
                    f"{complete}/{len(turns)}",
                ]
            )
    table(
        f"A {n:,}-chunk reply: Enter → last chunk shown (ms, median (min–max))",
        [
            "server",
            "first reply",
            "steady reply",
            "acp-mux ÷ this, first",
            "acp-mux ÷ this, steady",
            "server CPU µs/chunk",
            "CLI CPU µs/chunk",
            "text identical",
        ],
        rows,
    )
    errors_note(chunks)


def print_memory(words: dict[str, list], pairs: list[Pair], big: dict[str, Any]) -> None:
    rows = []
    for pair in pairs:
        for subject in (pair.mux, pair.reference):
            samples = words[subject.label]
            rows.append(
                [
                    subject.label,
                    stat(samples, "rss_kib")["median"] * 1.024 / 1e3,
                    stat(samples, "tree_rss_kib")["median"] * 1.024 / 1e3,
                    stat(samples, "processes")["median"],
                ]
            )
    table(
        "Memory with a session open, after two prompts (MB = 10⁶ bytes; median)",
        ["server", "server RSS", "with the CLI it runs", "processes"],
        rows,
    )
    after = [kib * 1.024 / 1e3 for kib in big["rss_after_kib"]]
    start = big["rss_start_kib"] * 1.024 / 1e3
    table(
        f"acp-mux · demo: bridge RSS over {big['events']:,} streamed events (MB)",
        [
            "session open",
            "after each turn",
            "max − start",
            "max − after turn 1",
            "delivered",
            "bridge CPU µs/delta (median)",
        ],
        [
            [
                start,
                " / ".join(f"{a:.1f}" for a in after),
                max(after) - start,
                max(after) - after[0],
                f"{big['delivered']:,}/{big['events']:,}",
                summary(big["bridge_cpu_us_per_delta"])["median"],
            ]
        ],
    )


def print_targets(results: dict[str, Any], responder: Subject, pairs: list[Pair]) -> list[dict[str, Any]]:
    cold, words, chunks, big = results["cold"], results["words"], results["chunks"], results["million"]
    targets: list[tuple[str, float, float]] = []
    floor_init, floor_new = stat(cold[responder.label], "init_ms"), stat(cold[responder.label], "new_ms")
    by_cli = {p.cli: p for p in pairs}
    for pair in pairs:
        targets.append(
            (
                f"{pair.mux.label}: initialize ÷ stdlib responder",
                ratio(stat(cold[pair.mux.label], "init_ms"), floor_init),
                2.0,
            )
        )
        targets.append(
            (
                f"{pair.mux.label}: session/new ÷ stdlib responder",
                ratio(stat(cold[pair.mux.label], "new_ms"), floor_new),
                3.0,
            )
        )
    limits = {"claude": (0.5, 0.8), "codex": (1.0, 1.0)}
    for cli, (words_limit, chunks_limit) in limits.items():
        pair = by_cli.get(cli)
        if pair is None:
            continue
        mux, ref = words[pair.mux.label], words[pair.reference.label]
        targets.append(
            (
                f"{cli}: first words, 1st prompt, acp-mux ÷ {pair.reference.label.split(' ')[0]}",
                ratio(stat(mux, "words1_ms"), stat(ref, "words1_ms")),
                words_limit,
            )
        )
        for which in ("first", "steady"):
            targets.append(
                (
                    (
                        f"{cli}: {results['plan']['chunks']:,}-chunk reply ({which}), acp-mux ÷ "
                        f"{pair.reference.label.split(' ')[0]}"
                    ),
                    ratio(
                        _turn_stats(chunks[pair.mux.label], which, "reply_ms"),
                        _turn_stats(chunks[pair.reference.label], which, "reply_ms"),
                    ),
                    chunks_limit,
                )
            )
    if "claude" in by_cli:
        pair = by_cli["claude"]
        mux = words[pair.mux.label]
        targets.append(
            (
                "claude: acp-mux first words, 1st prompt ÷ its 2nd prompt",
                ratio(stat(mux, "words1_ms"), stat(mux, "words2_ms")),
                1.5,
            )
        )
        if pair.variant is not None:  # the same two targets with the opt-in warm-up
            warm, ref = words[pair.variant.label], words[pair.reference.label]
            targets.append(
                (
                    (
                        f"claude ({pair.variant.label.split(', ')[-1]}): first words, 1st prompt, acp-mux ÷ "
                        f"{pair.reference.label.split(' ')[0]}"
                    ),
                    ratio(stat(warm, "words1_ms"), stat(ref, "words1_ms")),
                    0.5,
                )
            )
            targets.append(
                (
                    f"claude ({pair.variant.label.split(', ')[-1]}): acp-mux first words, 1st prompt ÷ its 2nd",
                    ratio(stat(warm, "words1_ms"), stat(warm, "words2_ms")),
                    1.5,
                )
            )
        targets.append(
            (
                "acp-mux · claude: bridge RSS with a session open (MB)",
                stat(mux, "rss_kib")["median"] * 1.024 / 1e3,
                60.0,
            )
        )
    window = words.get("acp-mux · openclaw, second window")
    if window is not None:
        targets.append(
            (
                "openclaw: first words of a second window while one runs (s)",
                stat(window, "words1_ms")["median"] / 1e3,
                10.0,
            )
        )
    after = big["rss_after_kib"]
    drift = (max(after) - big["rss_start_kib"]) * 1.024 / 1e3
    targets.append((f"acp-mux · demo: RSS growth over {big['events']:,} events (MB)", drift, 10.0))
    rows, out = [], []
    for name, value, limit in targets:
        met = not math.isnan(value) and value <= limit
        rows.append([name, value, f"≤ {limit:g}", "met" if met else "**NOT met**"])
        out.append({"target": name, "value": value, "limit": limit, "met": met})
    table("Targets (issue 12; ratios of medians from this run)", ["target", "measured", "target", ""], rows)
    return out


def second_window(workdir: Path, runs: int) -> dict[str, Any]:
    """Only the second-window measurement (``bench.py --only second-window``): ``runs`` samples, printed."""
    venv_bin = bench_venv()
    subject = acp_mux_subject(venv_bin, "openclaw", workdir, variant="second window")
    if subject is None:
        print("openclaw: its pinned CLI cannot be installed here")
        return {}
    server = ModelServerProcess(words_scenario(), workdir, "words")
    try:
        words = interleaved([subject], runs, lambda s: second_window_once(s, server.url), "words")
    finally:
        server.close()
    rows = [
        [
            subject.label,
            spread(stat(words[subject.label], "words1_ms")),
            spread(stat(words[subject.label], "words2_ms")),
            spread(stat(words[subject.label], "new_ms")),
            len(ok(words[subject.label])),
        ]
    ]
    table(
        "openclaw: a second window while one runs (ms, median (min–max))",
        ["subject", "1st prompt", "2nd prompt", "spawn → session/new", "runs"],
        rows,
    )
    errors_note(words)
    median_s = stat(words[subject.label], "words1_ms")["median"] / 1e3
    print(
        f"target: first words of a second window < 10 s: {median_s:.1f} s, {'met' if median_s < 10 else '**NOT met**'}"
    )
    return {"words": words, "target_s": 10.0, "median_s": median_s}
