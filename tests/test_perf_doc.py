"""docs/performance.md holds one table per benchmark run, written by the run itself (benchmarks/perf_doc.py, called
by benchmarks/bench.py): the run's date, machine, commit and ratios, newest first, earlier tables kept."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

import perf_doc  # noqa: E402

RESULTS = {
    "mode": "quick",
    "machine": {
        "date": "2026-11-29 00:10 UTC",
        "cores": 2,
        "memory_gib": 23.4,
        "python": "3.11.7",
        "node": "v22.1.0",
        "kernel": "6.1.0",
        "commit": "abc1234",
        "loadavg_start": (0.5, 0.4, 0.3),
    },
    "acp_agents": {
        "rows": [
            {
                "agent": "gemini",
                "ratios": {
                    "spawn_words1": 0.77,
                    "words1": 0.85,
                    "words2": 0.87,
                    "reply_first": 0.95,
                    "reply_steady": 0.8,
                },
                "rss_mb": [46.2, 80.0],
            }
        ],
        "skipped": {"cursor": "cannot be installed here"},
    },
}


def test_a_run_adds_its_own_table_first_and_keeps_the_earlier_ones(tmp_path: Path) -> None:
    doc = tmp_path / "performance.md"
    doc.write_text(f"# Performance\n\nmethod\n\n{perf_doc.MARKER}\n\n### an earlier run\n\n| old |\n")
    perf_doc.add_run(RESULTS, doc)
    text = doc.read_text()
    new = text.index("### 2026-11-29 00:10 UTC · commit `abc1234` · quick run")
    assert text.index(perf_doc.MARKER) < new < text.index("### an earlier run")
    assert "| gemini | 0.77 | 0.85 | 0.87 | 0.95 | 0.80 | 46 MB |" in text
    assert "2 cores, 23.4 GiB" in text and "Not run: cursor (cannot be installed here)." in text
    assert text.startswith("# Performance\n\nmethod\n")


def test_the_doc_has_the_marker_and_bench_writes_it() -> None:
    assert perf_doc.MARKER in (REPO / "docs" / "performance.md").read_text()
    bench = (REPO / "benchmarks" / "bench.py").read_text()
    assert "perf_doc.add_run(results)" in bench and "--no-doc" in bench


def test_a_runs_table_says_what_a_comparison_of_agents_costs_beyond_its_slowest_candidate() -> None:
    median = {"copies_s": 1.234, "changes_s": 0.2, "apply_s": 0.001, "slowest_candidate_s": 0.8, "overhead_s": 1.5}
    text = perf_doc.run_table({**RESULTS, "compare_overhead": {"files": 10000, "runs": [], "median": median}})
    assert "10000-file git repository: 1.50 s beyond the slowest candidate (copies 1.23 s" in text
    assert "beyond the slowest" not in perf_doc.run_table(RESULTS)
