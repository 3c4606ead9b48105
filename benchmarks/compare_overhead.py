"""What a comparison of agents costs beyond its slowest candidate, on a 10,000-file repository.

``acp_mux.compare`` gives each candidate its own copy of the folder, reads each one's change afterwards, and applies
the chosen one. Those steps are the comparison's own cost; the candidates' work is the agents'. This benchmark runs
two candidates (the bundled scripted agent under two names, so the agents' part is small and steady) on a generated
git repository of ``--files`` files with some uncommitted and untracked work, and reports per run: the copies'
set-up, the changes read, the apply, the slowest candidate's own time, and the overhead (everything but the slowest
candidate) — the median of ``--runs`` runs, as one Markdown table row per measure.

Run:  .venv/bin/python benchmarks/compare_overhead.py [--files 10000] [--runs 5] [--json OUT]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from acp_mux.adapters import base, registry  # noqa: E402


def scripted_candidates(names: tuple[str, ...]) -> None:
    """The scripted demo agent under ``names`` (as tests/server/switching_agents.py adds them)."""
    from tests.server import switching_agents

    rows = dict(registry.ENTRIES)
    for name in names:
        rows[name] = dataclasses.replace(
            registry.ENTRIES["demo"],
            name=name,
            display_name=f"Scripted {name}",
            transports={"scripted": f"tests.server.switching_agents:{name.capitalize()}"},
        )
    registry.ENTRIES = rows  # type: ignore[assignment]
    base.ENTRIES = rows  # type: ignore[assignment]
    del switching_agents


def make_repository(root: Path, files: int) -> Path:
    repo = root / "repo"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b"}
    env["GIT_COMMITTER_EMAIL"] = "b@x"
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, env=env)
    for i in range(files):
        path = repo / f"pkg{i // 100:03d}" / f"module_{i}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text("".join(f"value_{j} = {i * j}\n" for j in range(20)))
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", "start"], cwd=repo, check=True, env=env)
    (repo / "pkg000" / "module_0.py").write_text("work in progress\n")  # uncommitted
    (repo / "scratch.txt").write_text("untracked\n")
    return repo


async def one_run(repo: Path, state: Path) -> dict[str, float]:
    import acp_mux

    started = time.monotonic()
    async with acp_mux.compare(
        ["alpha", "beta"], "write the notes", cwd=repo, state_dir=state, approvals=acp_mux.allow("execute:cat")
    ) as comparison:
        candidates = await comparison.wait()
        await comparison.apply("alpha")
    total = time.monotonic() - started
    (repo / "notes.txt").unlink()  # the next run starts from the same folder
    slowest = max(c.seconds for c in candidates)
    return {
        "copies_s": comparison.timings["copies"],
        "changes_s": comparison.timings["changes"],
        "apply_s": comparison.timings["apply"],
        "slowest_candidate_s": slowest,
        "total_s": total,
        "overhead_s": total - slowest,
    }


def measure(files: int = 10_000, runs: int = 5) -> dict[str, object]:
    """Every run's seconds and their medians (what bench.py keeps in its JSON and docs/performance.md shows)."""
    scripted_candidates(("alpha", "beta"))
    with tempfile.TemporaryDirectory(prefix="acp-mux-compare-bench-") as scratch:
        repo = make_repository(Path(scratch), files)
        samples = [asyncio.run(one_run(repo, Path(scratch) / "state")) for _ in range(runs)]
    medians = {key: statistics.median(r[key] for r in samples) for key in samples[0]}
    print(f"\ncomparison of 2 scripted candidates on a {files}-file git repository, median of {runs} runs")
    print("| measure | seconds (median) | min | max |\n| --- | --- | --- | --- |")
    for key, value in medians.items():
        values = [r[key] for r in samples]
        print(f"| {key} | {value:.3f} | {min(values):.3f} | {max(values):.3f} |")
    return {"files": files, "runs": samples, "median": medians}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    found = measure(args.files, args.runs)
    if args.json:
        args.json.write_text(json.dumps(found, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
