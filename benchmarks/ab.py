"""Before/after of one change, measured A/B: the bridge's CPU per streamed delta at two git revisions, alternating.

Why A/B and not two full runs: this machine is shared, and its speed changes by more than the effect of a
per-event change within minutes. Alternating the two builds turn by turn puts both under the same load, so their
ratio means something even when the absolute numbers drift.

Each revision is exported (``git archive``) and installed, byte-compiled, with ``pip install --target`` into its
own directory, then run as ``python -m acp_mux --agent demo`` with that directory first on ``PYTHONPATH`` (the
benchmark venv supplies the dependencies). The bundled demo agent streams ``--deltas`` text deltas back to back
("manydeltas"); the bridge's own utime+stime over the turn, divided by the deltas, is the number reported.

With ``--agent opencode`` (any agent whose pinned CLI is installed) the bridge runs that CLI against the scripted
model, which answers every prompt with ``--deltas`` text deltas (3,000 by default); the reply's time, Enter → last
chunk, is reported beside the CPU. With ``--agent bursts:opencode`` that agent's adapter runs ``burst_agent.py``
instead, a synthetic ACP agent writing the deltas ``--burst`` lines at a time, ``--gap`` seconds apart: the same
bursts every time, no CLI and no model server beside the bridge (its CPU per chunk for a given cadence).

Run:  .venv/bin/python benchmarks/ab.py BEFORE_REV AFTER_REV [--rounds 4] [--deltas 50000] [--agent demo]
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
from subjects import ROOT, ModelServerProcess, bench_venv, chunks_scenario  # noqa: E402
from tests.e2e.clis import cli_env, ensure_cli  # noqa: E402


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


def per_delta_us(
    python: Path,
    site: Path,
    workdir: Path,
    deltas: int,
    agent: str = "demo",
    model_url: str = "",
    bursts: tuple[int, float] = (4, 0.0005),
) -> tuple[float, float]:
    """One fresh bridge: session, a warm-up prompt, then one measured turn of ``deltas`` text deltas (the demo's
    "manydeltas", or an agent's reply from the scripted model at ``model_url``): the bridge's own CPU per delta (µs)
    and Enter → last chunk (ms)."""
    home = workdir / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "ACP_MUX_DEMO_TEXT_DELAY": "0",
        "ACP_MUX_DEMO_DELTAS": str(deltas),
    }
    if agent.startswith("bursts:"):  # the adapter of that agent, the synthetic agent behind it
        agent = agent.removeprefix("bursts:")
        wrapper = workdir / "burst-agent"
        wrapper.write_text(f"#!/bin/sh\nexec '{python}' '{Path(__file__).with_name('burst_agent.py')}'\n")
        wrapper.chmod(0o700)
        env |= {f"ACP_MUX_{agent.upper()}_BIN": str(wrapper), "BURST_CHUNKS": str(deltas)}
        env |= {"BURST_SIZE": str(bursts[0]), "BURST_GAP": str(bursts[1])}
    elif agent != "demo":  # the pinned CLI against the scripted model, as the benchmark runs it
        binary = ensure_cli(agent)
        if binary is None:
            raise SystemExit(f"{agent}: its pinned CLI cannot be installed here")
        env = cli_env(agent, model_url, home, cwd=workdir) | {f"ACP_MUX_{agent.upper()}_BIN": str(binary)}
    env |= {"PYTHONPATH": str(site), "ACP_MUX_STATE_DIR": str(workdir / "state")}
    server = AcpProcess([str(python), "-m", "acp_mux", "--agent", agent], env, workdir)
    ask = "manydeltas" if agent == "demo" else "go"  # (the synthetic agent answers anything)
    try:
        initialize(server)
        session_id = new_session(server, workdir)
        prompt(server, session_id, "warm up" if agent == "demo" else ask, timeout=300)
        before = cpu_times(server.pid).self_s
        _, traffic = prompt(server, session_id, ask, timeout=600)
        spent = cpu_times(server.pid).self_s - before
        if traffic.text_deltas != deltas:
            raise RuntimeError(f"{traffic.text_deltas} of {deltas} deltas arrived")
    finally:
        server.close(wait=1.0)
    return spent * 1e6 / deltas, (traffic.last_words_s or float("nan")) * 1e3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--deltas", type=int, default=None, help="default 50,000 (demo), 3,000 (an agent)")
    parser.add_argument(
        "--agent", default="demo", help="demo, an ACP agent run against the scripted model, or bursts:AGENT"
    )
    parser.add_argument("--burst", type=int, default=4, help="bursts:AGENT: lines per write")
    parser.add_argument("--gap", type=float, default=0.0005, help="bursts:AGENT: seconds between writes")
    args = parser.parse_args(argv)
    deltas = args.deltas or (50_000 if args.agent == "demo" else 3000)
    python = bench_venv() / "python"
    with tempfile.TemporaryDirectory(prefix="acp-mux-ab-", ignore_cleanup_errors=True) as tmp:
        sites = {rev: build(rev, Path(tmp) / f"build-{n}", python) for n, rev in enumerate((args.before, args.after))}
        scripted = args.agent != "demo" and not args.agent.startswith("bursts:")
        model = ModelServerProcess(chunks_scenario(deltas), Path(tmp), "chunks") if scripted else None
        samples: dict[str, list[tuple[float, float]]] = {rev: [] for rev in sites}
        try:
            for round_ in range(args.rounds):
                order = list(sites) if round_ % 2 == 0 else list(reversed(sites))
                for rev in order:
                    run_dir = Path(tmp) / f"run-{rev}-{round_}"
                    url = model.url if model else ""
                    value = per_delta_us(python, sites[rev], run_dir, deltas, args.agent, url, (args.burst, args.gap))
                    samples[rev].append(value)
                    print(
                        f"  round {round_ + 1}: {rev} {value[0]:.1f} µs/delta, reply {value[1]:.0f} ms "
                        f"(load {os.getloadavg()[0]:.2f})",
                        file=sys.stderr,
                        flush=True,
                    )
        finally:
            if model is not None:
                model.close()
    cpu = {rev: summary([v[0] for v in values]) for rev, values in samples.items()}
    reply = {rev: summary([v[1] for v in values]) for rev, values in samples.items()}
    table(
        f"Bridge CPU per streamed delta, A/B ({args.rounds} rounds × {deltas:,} deltas, {args.agent})",
        ["revision", "median µs/delta", "min", "max", "reply ms, median", "min", "max"],
        [
            [rev, c["median"], c["min"], c["max"], reply[rev]["median"], reply[rev]["min"], reply[rev]["max"]]
            for rev, c in cpu.items()
        ],  # fmt: skip
    )
    print(f"after ÷ before: CPU {cpu[args.after]['median'] / cpu[args.before]['median']:.2f}, "
          f"reply {reply[args.after]['median'] / reply[args.before]['median']:.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
