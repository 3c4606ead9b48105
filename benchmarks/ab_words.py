"""Before/after of one change on an agent's first words: acp-mux at two git revisions and the agent's own ACP mode,
taking turns, each measured as the benchmark measures first words (``compare.words_once``: session open, 3 s of
typing, Enter; again for a second prompt). ``--pause 0``: the first prompt sent as soon as ``session/new`` is
answered (a person who pastes one at once).

Why: a change to what the bridge does between answering ``session/new`` and the first prompt (when it starts the
agent, what it builds meanwhile) shows only in the first prompt's words, and only against the same agent under the
same load; ``ab.py`` measures long replies. Each revision is built as ``ab.py`` builds it (``git archive``, a
byte-compiled ``pip install --target``) and run as the benchmark runs acp-mux (``subjects.acp_mux_subject``: the
installed ``acp-mux`` launcher, the pinned CLI against the scripted model, a private HOME per subject) with that
directory first on ``PYTHONPATH``; the rounds turn the order by one each time (``acp_agents.rotating``).

Run:  .venv/bin/python benchmarks/ab_words.py BEFORE_REV AFTER_REV --agent hermes [--rounds 6] [--no-own] [--pause S]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ab import build  # noqa: E402
from acp_agents import rotating  # noqa: E402
from compare import TYPING_PAUSE_S, cold_once, ok, words_once  # noqa: E402
from subjects import ModelServerProcess, acp_mux_subject, bench_venv, own_acp_subject, words_scenario  # noqa: E402
from tests.e2e.clis import ensure_cli  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--agent", required=True, help="an ACP-speaking agent whose pinned CLI is installed here")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--no-own", action="store_true", help="leave out the agent's own ACP mode")
    parser.add_argument(
        "--pause", type=float, default=TYPING_PAUSE_S, help="seconds from session/new answered to the first prompt"
    )
    args = parser.parse_args(argv)
    if args.before == args.after:
        parser.error("name two different revisions")
    if ensure_cli(args.agent) is None:
        raise SystemExit(f"{args.agent}: its pinned CLI cannot be installed here")
    venv = bench_venv()
    with tempfile.TemporaryDirectory(prefix="acp-mux-ab-words-", ignore_cleanup_errors=True) as tmp:
        work = Path(tmp)
        subjects = []
        for n, rev in enumerate((args.before, args.after)):
            site = build(rev, work / f"build-{n}", venv / "python")
            subject = acp_mux_subject(venv, args.agent, work, {"PYTHONPATH": str(site)}, f"at {rev}")
            subjects += [subject] if subject is not None else []
        if not args.no_own:
            own = own_acp_subject(args.agent, work, subjects[0])
            subjects += [own] if own is not None else []
        server = ModelServerProcess(words_scenario(), work, "words")
        try:
            for subject in subjects:  # one untimed session each: page cache, first-run files
                cold_once(subject, server.url)
            samples = rotating(subjects, args.rounds, lambda s: words_once(s, server.url, args.pause), "words")
        finally:
            server.close()
    print(f"First words {args.pause:g} s after session/new, {args.agent}, {args.rounds} rounds (ms, median (min–max))")
    medians = {}
    for label, measured in samples.items():
        rows = ok(measured)  # a failed session is recorded as its error
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
