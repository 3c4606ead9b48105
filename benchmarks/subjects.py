"""What the comparison runs: acp-mux as a user installs it, the two reference adapters, the stdlib floor, and the
scripted model they all talk to.

* **acp-mux** is measured as a regular, byte-compiled ``pip install`` of this checkout into its own virtual
  environment (``<cache>/bench-venv``), started through its console script, as an editor starts it. The
  development install is not measured: an editable install adds an import hook, and where
  ``PYTHONDONTWRITEBYTECODE`` is set its modules are compiled again by every spawn.
* **The reference adapters** are installed by this module, pinned, from npm, into the same cache as the e2e CLIs
  (``tests/e2e/clis.py``): ``@zed-industries/claude-agent-acp`` 0.23.1 (Node, runs the Claude CLI as a child) and
  ``@zed-industries/codex-acp`` 0.16.0 (a Rust binary with codex built in, started directly).
* **The same real CLI**: claude-agent-acp is pointed at the pinned Claude CLI that acp-mux runs
  (``CLAUDE_CODE_EXECUTABLE``), instead of the older Claude Code bundled in its SDK. codex-acp has no separate CLI
  (codex is compiled in), so there it is the same model, config and private ``CODEX_HOME``, not the same binary.
* **The same scripted model**: ``tests/fakes/model_server.py`` as a subprocess (never a thread of the client, so
  its CPU is not the client's), one per reply script, every CLI pointed at it by ``tests/e2e/clis.py``'s offline
  environments with a private HOME.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.clis import cache_dir, cli_env, ensure_cli  # noqa: E402

RESPONDER = Path(__file__).resolve().with_name("stdlib_responder.py")
INSTALL_TIMEOUT_S = 900


# ── the reference adapters, pinned ─────────────────────────────────────────────────────────────────────────────
@dataclass(frozen=True)
class NpmPin:
    package: str
    version: str
    binary: str  # a glob under the prefix; the first match is the executable

    def prefix(self) -> Path:
        return cache_dir() / f"{self.package.rsplit('/', 1)[-1]}-{self.version}"


REFERENCE_PINS: dict[str, NpmPin] = {
    "claude-agent-acp": NpmPin("@zed-industries/claude-agent-acp", "0.23.1", "node_modules/.bin/claude-agent-acp"),
    # The Rust binary itself, from the platform package npm picked (the package's Node launcher only execs it).
    "codex-acp": NpmPin(
        "@zed-industries/codex-acp", "0.16.0", "node_modules/@zed-industries/codex-acp-*/bin/codex-acp"
    ),
}


def _installed(pin: NpmPin) -> Path | None:
    prefix = pin.prefix()
    try:
        meta = json.loads((prefix / "node_modules" / pin.package / "package.json").read_text())
    except (OSError, ValueError):
        return None
    found = sorted(prefix.glob(pin.binary))
    if meta.get("version") != pin.version or not found or not os.access(found[0], os.X_OK):
        return None
    return found[0]


def ensure_reference(name: str) -> Path:
    """The pinned adapter's executable, installed from npm on first use (no install scripts run), into a temporary
    sibling that is renamed into place once complete, so an interrupted install is never mistaken for a good one."""
    pin = REFERENCE_PINS[name]
    found = _installed(pin)
    if found:
        return found
    if not shutil.which("npm"):
        raise RuntimeError(f"npm is needed to install {pin.package}@{pin.version}")
    cache_dir().mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{pin.prefix().name}.", dir=cache_dir()))
    print(f"  installing {pin.package}@{pin.version} into {pin.prefix()} …", file=sys.stderr, flush=True)
    proc = subprocess.run(
        [
            "npm",
            "install",
            "--prefix",
            str(tmp),
            "--no-audit",
            "--no-fund",
            "--no-update-notifier",
            "--ignore-scripts",
            "--loglevel=error",
            f"{pin.package}@{pin.version}",
        ],
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
    )
    if proc.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise RuntimeError(f"npm install {pin.package}@{pin.version} failed: {proc.stderr.strip()[-500:]}")
    tmp.chmod(0o755)
    shutil.rmtree(pin.prefix(), ignore_errors=True)
    tmp.rename(pin.prefix())
    found = _installed(pin)
    if found is None:
        raise RuntimeError(f"{pin.package}@{pin.version} installed but {pin.binary} is missing")
    return found


# ── acp-mux as a user installs it ──────────────────────────────────────────────────────────────────────────────
def bench_venv() -> Path:
    """A virtual environment holding a regular (byte-compiled) install of this checkout; returns its bin dir.

    The environment and the dependencies are made once; acp-mux itself is reinstalled on every run, so the
    benchmark always measures the code in front of it.
    """
    venv = cache_dir() / f"bench-venv-py{sys.version_info.major}.{sys.version_info.minor}"
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"  creating {venv} …", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        _pip(python, "install", "--quiet", str(ROOT))
    _pip(python, "install", "--quiet", "--no-deps", "--force-reinstall", str(ROOT))
    return venv / "bin"


def _pip(python: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # pip byte-compiles the install
    proc = subprocess.run(
        [str(python), "-m", "pip", *args], capture_output=True, text=True, env=env, timeout=INSTALL_TIMEOUT_S
    )
    if proc.returncode != 0:
        raise RuntimeError(f"pip {' '.join(args)} failed: {proc.stderr.strip()[-800:]}")


# ── the scripted model ─────────────────────────────────────────────────────────────────────────────────────────
def words_scenario() -> dict[str, Any]:
    """A short reply whose first delta is the first words (used for the time to first words)."""
    return {
        "delta_delay": 0,
        "steps": [{"blocks": [{"text": ["Hello", " there,", " how can", " I help?"]}]}],
        "done_text": "Hello there.",
    }


def chunks_scenario(chunks: int) -> dict[str, Any]:
    """A reply of ``chunks`` text deltas sent back to back: what the whole pipeline costs per delta."""
    return {
        "delta_delay": 0,
        "steps": [{"blocks": [{"text": [f"c{i} " for i in range(chunks)]}]}],
        "done_text": "Done.",
    }


def chunks_text(chunks: int) -> str:
    return "".join(f"c{i} " for i in range(chunks))


class ModelServerProcess:
    """``python -m tests.fakes.model_server`` on a free port with one scenario, in its own process."""

    def __init__(self, scenario: dict[str, Any], workdir: Path, name: str) -> None:
        self.path = workdir / f"scenario-{name}.json"
        self.path.write_text(json.dumps(scenario))
        self.log = workdir / f"model-{name}.jsonl"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fakes.model_server", "--scenario", str(self.path), "--log", str(self.log)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=str(ROOT),
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if "listening on" not in line:
            self.proc.kill()
            raise RuntimeError(f"model server did not start: {line!r}")
        self.url = line.rsplit(" ", 1)[1].strip()

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


# ── the subjects ───────────────────────────────────────────────────────────────────────────────────────────────
@dataclass
class Subject:
    """One ACP server as the editor runs it: its command line, its complete environment, its private dirs."""

    label: str
    kind: str  # "acp-mux", "reference" or "floor"
    argv: list[str]
    cli: str | None  # the agent CLI behind it (None: the stdlib responder)
    home: Path
    cwd: Path
    env_for: Any = field(repr=False, default=None)  # server url -> the complete environment
    authenticate: str | None = None  # an authenticate methodId to send before session/new (codex-acp 0.16.0)
    argv_for: Any = field(repr=False, default=None)  # environment -> argv, when the command needs it (openclaw)

    def env(self, server_url: str) -> dict[str, str]:
        return self.env_for(server_url)

    def command(self, server_url: str) -> tuple[list[str], dict[str, str]]:
        """The argv and environment of one spawn against the model at ``server_url``."""
        env = self.env(server_url)
        return (self.argv if self.argv_for is None else self.argv_for(env)), env


def _dirs(workdir: Path, slug: str) -> tuple[Path, Path]:
    home, cwd = workdir / slug / "home", workdir / slug / "project"
    cwd.mkdir(parents=True, exist_ok=True)
    return home, cwd


def acp_mux_subject(
    venv_bin: Path, agent: str, workdir: Path, settings: dict[str, str] | None = None, variant: str = ""
) -> Subject | None:
    """``acp-mux --agent AGENT`` with the pinned CLI; None when that CLI cannot be installed here. ``settings``:
    acp-mux options a person may set in its environment, measured as a ``variant`` of the default row."""
    binary = ensure_cli(agent)
    if binary is None:
        return None
    home, cwd = _dirs(workdir, f"acp-mux-{agent}{'-' + variant.replace(' ', '-') if variant else ''}")

    def env_for(url: str) -> dict[str, str]:
        env = cli_env(agent, url, home, cwd=cwd)
        env["ACP_MUX_STATE_DIR"] = str(home.parent / "state")
        env[f"ACP_MUX_{agent.upper()}_BIN"] = str(binary)
        env.update(settings or {})
        return env

    label = f"acp-mux · {agent}" + (f", {variant}" if variant else "")
    return Subject(label, "acp-mux", [str(venv_bin / "acp-mux"), "--agent", agent], agent, home, cwd, env_for)


def claude_prewarm_subject(venv_bin: Path, workdir: Path) -> Subject | None:
    """acp-mux · claude with the warm-up forced on (``ACP_MUX_CLAUDE_PREWARM=1``; the default warms only a CLI from
    2.1.318 on, the pinned 2.1.332 among them, docs/claude-prewarm.md): the scripted model answers ``count_tokens`` as Anthropic's API does."""
    return acp_mux_subject(venv_bin, "claude", workdir, {"ACP_MUX_CLAUDE_PREWARM": "1"}, "warm-up on")


def claude_agent_acp_subject(workdir: Path) -> Subject | None:
    claude = ensure_cli("claude")
    if claude is None:
        return None
    adapter = ensure_reference("claude-agent-acp")
    home, cwd = _dirs(workdir, "claude-agent-acp")

    def env_for(url: str) -> dict[str, str]:
        return {**cli_env("claude", url, home, cwd=cwd), "CLAUDE_CODE_EXECUTABLE": str(claude)}

    version = REFERENCE_PINS["claude-agent-acp"].version
    return Subject(f"claude-agent-acp {version} · claude", "reference", [str(adapter)], "claude", home, cwd, env_for)


def codex_acp_subject(workdir: Path) -> Subject:
    adapter = ensure_reference("codex-acp")
    home, cwd = _dirs(workdir, "codex-acp")

    def env_for(url: str) -> dict[str, str]:
        return cli_env("codex", url, home, cwd=cwd)

    version = REFERENCE_PINS["codex-acp"].version
    return Subject(
        f"codex-acp {version} · codex",
        "reference",
        [str(adapter)],
        "codex",
        home,
        cwd,
        env_for,
        authenticate="openai-api-key",
    )


def bare_claude_subject(workdir: Path) -> Subject | None:
    """The pinned Claude CLI alone, driven in stream-json as acp-mux drives it (``adapters/stream_agents/claude.py``'s flags),
    with no ACP server in front and no warm-up: the floor under the first words of any adapter that leaves Claude's
    first-message work (system prompt, tool schemas, HTTP client) to the first prompt."""
    claude = ensure_cli("claude")
    if claude is None:
        return None
    from acp_mux.adapters.stream_agents.claude import BASE_ARGS

    home, cwd = _dirs(workdir, "claude-cli-alone")

    def env_for(url: str) -> dict[str, str]:
        return cli_env("claude", url, home, cwd=cwd)

    return Subject(
        "claude CLI alone (stream-json, no ACP)", "bare", [str(claude), *BASE_ARGS], "claude", home, cwd, env_for
    )


def responder_subject(venv_bin: Path, workdir: Path) -> Subject:
    home, cwd = _dirs(workdir, "responder")

    def env_for(url: str) -> dict[str, str]:
        return {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "LANG": "C.UTF-8"}

    return Subject(
        "stdlib JSON-RPC responder", "floor", [str(venv_bin / "python"), str(RESPONDER)], None, home, cwd, env_for
    )


def demo_subject(venv_bin: Path, workdir: Path) -> Subject:
    """acp-mux with its bundled scripted agent: the million-event memory run needs no model or CLI."""
    home, cwd = _dirs(workdir, "acp-mux-demo")

    def env_for(url: str) -> dict[str, str]:
        return {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "ACP_MUX_STATE_DIR": str(home.parent / "state"),
            "ACP_MUX_DEMO_TEXT_DELAY": "0",
        }

    return Subject(
        "acp-mux · demo", "acp-mux", [str(venv_bin / "acp-mux"), "--agent", "demo"], None, home, cwd, env_for
    )


# ── an ACP-speaking agent in its own ACP mode, without acp-mux ─────────────────────────────────────────────────
def own_acp_subject(agent: str, workdir: Path, beside: Subject, variant: str = "") -> Subject | None:
    """``<cli> <its ACP arguments>`` as a person would put it in their editor's config instead of acp-mux, with the
    arguments and config the e2e captures use (``tests/fixtures/capture_acp.AGENTS``: the same pinned binary, the
    same private HOME recipe, the same scripted model). openclaw's ACP mode (``openclaw acp --url --token-file``)
    needs a running gateway: it gets the private gateway acp-mux starts for ``beside`` (same HOME and state dir, so
    one gateway serves both and neither pays its start in the other's numbers), without acp-mux's relay."""
    binary = ensure_cli(agent)
    if binary is None:
        return None
    label = f"{agent} --acp (own ACP mode)" if agent == "gemini" else f"{agent}'s own ACP mode"
    if agent == "openclaw":
        return Subject(label, "own-acp", [], agent, beside.home, beside.cwd, beside.env_for,
                       argv_for=OpenclawAcp(str(binary)).argv)  # fmt: skip
    from tests.fixtures.capture_acp import AGENTS

    home, cwd = _dirs(workdir, f"{agent}-own-acp{'-' + variant if variant else ''}")

    def env_for(url: str) -> dict[str, str]:
        return cli_env(agent, url, home, cwd=cwd)

    return Subject(label, "own-acp", [str(binary), *AGENTS[agent].args], agent, home, cwd, env_for)


class OpenclawAcp:
    """``openclaw acp`` pointed at acp-mux's private gateway for the subject's HOME, attached (or started) through
    acp-mux's own gateway code, whose lease this benchmark process then holds until it exits, so the gateway stays
    up between samples."""

    def __init__(self, binary: str) -> None:
        self.binary = binary
        self.leases: dict[str, Any] = {}  # state dir -> the Gateway holding our lease

    def argv(self, env: dict[str, str]) -> list[str]:
        import asyncio

        from acp_mux.adapters.acp_agents.openclaw.gateway import Gateway

        gateway = Gateway(self.binary, env)
        endpoint = asyncio.run(gateway.ready())
        old = self.leases.pop(str(gateway.root), None)
        if old is not None:
            asyncio.run(old.stop())
        self.leases[str(gateway.root)] = gateway
        acp_env = endpoint.acp_env(env)
        env.clear()
        env.update(acp_env)  # in place: the spawn takes the environment it was handed with the command
        return [self.binary, "acp", "--url", endpoint.url, "--token-file", str(endpoint.token_file)]
