"""Before/after of one change, measured A/B: the bridge's CPU per streamed delta at two git revisions, alternating.

Why A/B and not two full runs: this machine is shared, and its speed changes by more than the effect of a
per-event change within minutes. Alternating the two builds turn by turn puts both under the same load, so their
ratio means something even when the absolute numbers drift.

Each revision is exported (``git archive``) and installed, byte-compiled, with ``pip install --target`` into its
own directory, then run as ``python -m acp_mux --agent demo`` with that directory first on ``PYTHONPATH`` (the
benchmark venv supplies the dependencies). The bundled demo agent streams ``--deltas`` text deltas back to back
("manydeltas"); the bridge's own utime+stime over the turn, divided by the deltas, is the number reported.

Run:  .venv/bin/python benchmarks/ab.py BEFORE_REV AFTER_REV [--rounds 4] [--deltas 50000]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rawclient import AcpProcess, cpu_times, initialize, new_session, prompt, summary, table  # noqa: E402
from subjects import ROOT, bench_venv  # noqa: E402


def build(rev: str, into: Path, python: Path) -> Path:
    """``rev`` installed into ``into/site``; returns that directory."""
    src, site = into / "src", into / "site"
    src.mkdir(parents=True)
    archive = into / "src.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", "-o", str(archive), rev], check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(src, filter="data")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site), str(src)],
        check=True,
        env=env,
        capture_output=True,
    )
    return site


def per_delta_us(python: Path, site: Path, workdir: Path, deltas: int) -> float:
    """One fresh bridge: session, a warm-up prompt, then one measured "manydeltas" turn."""
    home = workdir / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(site),
        "ACP_MUX_STATE_DIR": str(workdir / "state"),
        "ACP_MUX_DEMO_TEXT_DELAY": "0",
        "ACP_MUX_DEMO_DELTAS": str(deltas),
    }
    server = AcpProcess([str(python), "-m", "acp_mux", "--agent", "demo"], env, workdir)
    try:
        initialize(server)
        session_id = new_session(server, workdir)
        prompt(server, session_id, "warm up")
        before = cpu_times(server.pid).self_s
        _, traffic = prompt(server, session_id, "manydeltas", timeout=600)
        spent = cpu_times(server.pid).self_s - before
        if traffic.text_deltas != deltas:
            raise RuntimeError(f"{traffic.text_deltas} of {deltas} deltas arrived")
    finally:
        server.close(wait=1.0)
    return spent * 1e6 / deltas


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--deltas", type=int, default=50_000)
    args = parser.parse_args(argv)
    python = bench_venv() / "python"
    with tempfile.TemporaryDirectory(prefix="acp-mux-ab-") as tmp:
        sites = {rev: build(rev, Path(tmp) / f"build-{n}", python) for n, rev in enumerate((args.before, args.after))}
        samples: dict[str, list[float]] = {rev: [] for rev in sites}
        for round_ in range(args.rounds):
            order = list(sites) if round_ % 2 == 0 else list(reversed(sites))
            for rev in order:
                value = per_delta_us(python, sites[rev], Path(tmp) / f"run-{rev}-{round_}", args.deltas)
                samples[rev].append(value)
                print(
                    f"  round {round_ + 1}: {rev} {value:.1f} µs/delta (load {os.getloadavg()[0]:.2f})",
                    file=sys.stderr,
                    flush=True,
                )
    stats = {rev: summary(values) for rev, values in samples.items()}
    table(
        f"Bridge CPU per streamed delta, A/B ({args.rounds} rounds × {args.deltas:,} deltas, demo agent)",
        ["revision", "median µs/delta", "min", "max"],
        [[rev, s["median"], s["min"], s["max"]] for rev, s in stats.items()],
    )
    print(f"after ÷ before: {stats[args.after]['median'] / stats[args.before]['median']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
