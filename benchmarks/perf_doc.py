"""One table per benchmark run in docs/performance.md, written by the benchmark itself: the run's date, machine,
commit and the acp-mux ÷ own-ACP-mode ratios per agent, newest first, under the runs marker. No prose: the JSON
(``--json``) keeps every sample, and the table says only what this run measured."""

from __future__ import annotations

from pathlib import Path
from typing import Any

DOC = Path(__file__).resolve().parents[1] / "docs" / "performance.md"
MARKER = "<!-- bench-runs: benchmarks/bench.py adds one table per run below this line, newest first -->"
COLUMNS = (
    ("spawn_words1", "spawn → first words"),
    ("words1", "first words, 1st prompt"),
    ("words2", "2nd prompt"),
    ("reply_first", "3,000-chunk reply, first"),
    ("reply_steady", "steady"),
)


def _ratio(value: object) -> str:
    return f"{value:.2f}" if isinstance(value, (int, float)) else "–"


def run_table(results: dict[str, Any]) -> str:
    """The markdown section for one run (``results`` as bench.py writes its JSON)."""
    m = results["machine"]
    load = m.get("loadavg_start") or (0.0,)
    head = (
        f"### {m['date']} · commit `{m['commit']}` · {results.get('mode', 'full')} run\n\n"
        f"{m['cores']} cores, {m['memory_gib']} GiB, Linux {m.get('kernel', '?')}, Python {m['python']}, "
        f"Node {m['node']}, load {float(load[0]):.2f} at the start. acp-mux ÷ the agent's own ACP mode "
        "(ratios of medians; lower is better)."
    )
    head += _compare_overhead(results.get("compare_overhead"))
    rows = (results.get("acp_agents") or {}).get("rows") or []
    if not rows:
        return head + "\n\nNo ACP-agent comparison in this run (see its JSON).\n"
    lines = ["| agent | " + " | ".join(label for _, label in COLUMNS) + " | acp-mux RSS |"]
    lines.append("|---" * (len(COLUMNS) + 2) + "|")
    for row in rows:
        ratios = row.get("ratios") or {}
        rss = (row.get("rss_mb") or [None])[0]
        cells = [_ratio(ratios.get(key)) for key, _ in COLUMNS]
        lines.append(f"| {row['agent']} | " + " | ".join(cells) + f" | {f'{rss:.0f} MB' if rss else '–'} |")
    skipped = (results.get("acp_agents") or {}).get("skipped") or {}
    tail = "".join(f"\nNot run: {agent} ({reason})." for agent, reason in skipped.items())
    return head + "\n\n" + "\n".join(lines) + "\n" + tail + ("\n" if tail else "")


def _compare_overhead(found: object) -> str:
    """One sentence: what a comparison of agents costs beyond its slowest candidate (benchmarks/compare_overhead.py)."""
    if not isinstance(found, dict) or not isinstance(found.get("median"), dict):
        return ""
    m = found["median"]
    return (
        f"\n\nSeveral agents on one task, 2 scripted candidates on a {found.get('files')}-file git repository: "
        f"{m['overhead_s']:.2f} s beyond the slowest candidate (copies {m['copies_s']:.2f} s, changes "
        f"{m['changes_s']:.2f} s, apply {m['apply_s']:.3f} s; medians)."
    )


def add_run(results: dict[str, Any], doc: Path = DOC) -> None:
    """Put this run's table first under the marker (the doc keeps every earlier run's table below it)."""
    text = doc.read_text()
    if MARKER not in text:
        raise SystemExit(f"{doc} lacks the runs marker {MARKER!r}")
    before, after = text.split(MARKER, 1)
    doc.write_text(before + MARKER + "\n\n" + run_table(results) + after.lstrip("\n").join(["\n", ""]))
