"""Before/after of one change on an agent's first words: acp-mux at two git revisions and the agent's own ACP mode,
taking turns, each measured as the benchmark measures first words (``compare.words_once``: session open, 3 s of
typing, Enter; again for a second prompt).

Why: a change to what the bridge does between answering ``session/new`` and the first prompt (when it starts the
agent, what it builds meanwhile) shows only in the first prompt's words, and only against the same agent under the
same load; ``ab.py`` measures long replies. Each revision is built as ``ab.py`` builds it (``git archive``, a
byte-compiled ``pip install --target``) and run as ``python -m acp_mux --agent AGENT`` with that directory first on
``PYTHONPATH``; the agent is its pinned CLI against the scripted model, in a private HOME per subject.

Run:  .venv/bin/python benchmarks/ab_words.py BEFORE_REV AFTER_REV --agent hermes [--rounds 6] [--no-own]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ab import build  # noqa: E402
from compare import cold_once, words_once  # noqa: E402
from subjects import (  # noqa: E402
    ModelServerProcess,
    Subject,
    acp_mux_subject,
    bench_venv,
    own_acp_subject,
    words_scenario,
)
from tests.e2e.clis import cli_env, ensure_cli  # noqa: E402


def revision_subject(rev: str, site: Path, python: Path, agent: str, binary: Path, workdir: Path) -> Subject:
    """acp-mux at ``rev`` (installed in ``site``) in front of the pinned ``agent``, with its own HOME and state."""
    home, cwd = workdir / f"home-{rev}", workdir / f"project-{rev}"
    home.mkdir(parents=True)
    cwd.mkdir(parents=True)

    def env_for(url: str) -> dict[str, str]:
        env = cli_env(agent, url, home, cwd=cwd)
        env |= {f"ACP_MUX_{agent.upper()}_BIN": str(binary), "PYTHONPATH": str(site)}
        return env | {"ACP_MUX_STATE_DIR": str(home / "state")}

    return Subject(f"acp-mux @ {rev}", "acp-mux", [str(python), "-m", "acp_mux", "--agent", agent], agent, home, cwd,
                   env_for)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--agent", required=True, help="an ACP-speaking agent whose pinned CLI is installed here")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--no-own", action="store_true", help="leave out the agent's own ACP mode")
    args = parser.parse_args(argv)
    if args.before == args.after:
        parser.error("name two different revisions")
    binary = ensure_cli(args.agent)
    if binary is None:
        raise SystemExit(f"{args.agent}: its pinned CLI cannot be installed here")
    venv = bench_venv()
    with tempfile.TemporaryDirectory(prefix="acp-mux-ab-words-", ignore_cleanup_errors=True) as tmp:
        work = Path(tmp)
        subjects = [
            revision_subject(rev, build(rev, work / f"build-{n}", venv / "python"), venv / "python", args.agent,
                             binary, work)
            for n, rev in enumerate((args.before, args.after))
        ]  # fmt: skip
        if not args.no_own:
            beside = acp_mux_subject(venv, args.agent, work)
            own = own_acp_subject(args.agent, work, beside) if beside is not None else None
            subjects += [own] if own is not None else []
        server = ModelServerProcess(words_scenario(), work, "words")
        samples: dict[str, list[dict[str, Any]]] = {s.label: [] for s in subjects}
        try:
            for subject in subjects:  # one untimed session each: page cache, first-run files
                cold_once(subject, server.url)
            for round_ in range(args.rounds):  # the order turns by one each round
                for subject in subjects[round_ % len(subjects) :] + subjects[: round_ % len(subjects)]:
                    row = words_once(subject, server.url)
                    samples[subject.label].append(row)
                    print(f"  round {round_ + 1}: {subject.label}: first words {row['words1_ms']:.0f} ms, "
                          f"second {row['words2_ms']:.0f} ms", file=sys.stderr, flush=True)  # fmt: skip
        finally:
            server.close()
    print(f"First words 3 s after session/new, {args.agent}, {args.rounds} rounds (ms, median (min–max))")
    medians = {}
    for label, rows in samples.items():
        first = [r["words1_ms"] for r in rows]
        medians[label] = statistics.median(first)
        second = statistics.median(r["words2_ms"] for r in rows)
        spawn = statistics.median(r["spawn_words1_ms"] for r in rows)
        print(f"  {label:36} 1st {medians[label]:6.0f} ({min(first):.0f}–{max(first):.0f})   2nd {second:5.0f}   "
              f"spawn → 1st words {spawn:6.0f}")  # fmt: skip
    before, after = (medians[s.label] for s in subjects[:2])
    print(f"after ÷ before, first words: {after / before:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
