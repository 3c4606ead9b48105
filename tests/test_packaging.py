"""Ready to publish and to be listed in the ACP registry.

The generated files (README agents table, ``packaging/acp-registry/*``) match the agent table; the icon is what
the registry accepts (16×16, monochrome through ``currentColor``); the distribution name can be registered; and a
wheel built from this checkout runs under uvx in an environment that holds nothing else, by the command named
after the distribution (what the registry runs): ``uvx --from <wheel> acp-multiplexer --agent demo`` offers a
sign-in in its ``initialize`` answer and serves a whole prompt turn. The registry's own checks on each entry are in
tests/test_registry_entries.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import acp
import pytest

from acp_mux import __version__
from tests.e2e.clis import cache_dir
from tests.server.client import RecordingClient
from tools import acp_registry_checks, sync_agents

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
REQUIRED = os.environ.get("ACP_MUX_REQUIRE_CLIS") == "1"
REGISTRY_DIR = ROOT / "packaging" / "acp-registry"


def test_generated_files_match_the_agent_table():
    assert sync_agents.stale() == [], "run: python tools/sync_agents.py"


def test_the_distribution_name_can_be_registered_and_keeps_the_command():
    # PyPI compares names with separators removed; `acpmux` exists, so acp-mux / acp_mux / acp.mux are refused.
    assert re.sub(r"[-_.]+", "", PROJECT["name"].lower()) != "acpmux"
    # Both names start the launcher (answers initialize, then imports main): `acp-mux` for people, the distribution's
    # own name for `uvx acp-multiplexer` (the ACP registry runs the executable named after the package).
    assert PROJECT["scripts"] == {
        "acp-mux": "acp_mux.launcher.entry:main",
        PROJECT["name"]: "acp_mux.launcher.entry:main",
    }
    assert PROJECT["version"] == __version__
    assert PROJECT["license"] == "MIT" and (ROOT / "LICENSE").is_file()  # an SPDX expression, not a table


def test_the_icon_is_16_by_16_and_monochrome():
    svg = ET.parse(ROOT / "packaging" / "icon.svg").getroot()
    assert svg.get("width") == svg.get("height") == "16" and svg.get("viewBox") == "0 0 16 16"
    for element in svg.iter():
        for attribute in ("fill", "stroke", "color", "stop-color"):
            value = element.get(attribute)
            assert value in (None, "currentColor", "none", "inherit"), (element.tag, attribute, value)
        assert "style" not in element.attrib, element.tag


# ── the wheel, run by uvx ──────────────────────────────────────────────────────────────────────────────────────
def _uv() -> str:
    found = shutil.which("uv", path=os.path.dirname(sys.executable)) or shutil.which("uv")
    if found:
        return found
    target = cache_dir() / "uv"
    if not (target / "bin" / "uv").exists():
        out = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--target", str(target), "uv"],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if out.returncode != 0:
            reason = f"uv is not installed and `pip install uv` failed: {out.stderr.strip()[-300:]}"
            pytest.fail(reason) if REQUIRED else pytest.skip(reason)
    return str(target / "bin" / "uv")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """Built from a copy of the source: setuptools never prunes its build/ folder, so a wheel built in a used
    checkout could carry modules that no longer exist."""
    source = tmp_path_factory.mktemp("source") / "acp-mux"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", "benchmarks", "tests"
        ),
    )
    out_dir = tmp_path_factory.mktemp("wheel")
    build = subprocess.run(
        # the test extra brings the build backend: no download (plain `pytest` fetches nothing)
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out_dir),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    (path,) = out_dir.glob("*.whl")
    return path


def test_the_wheel_holds_only_acp_mux(wheel):
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
    dist = f"{PROJECT['name'].replace('-', '_')}-{__version__}.dist-info"
    assert {n.split("/")[0] for n in names} == {"acp_mux", dist}
    assert f"{dist}/licenses/LICENSE" in names
    assert "acp_mux/adapters/registry.py" in names and "acp_mux/translation/__init__.py" in names


def _uvx_env(tmp_path: Path) -> dict[str, str]:
    """An environment that holds nothing of this machine's but the system's tools (no agent CLI, no acp-mux)."""
    env = {
        "HOME": str(tmp_path / "home"),
        "PATH": os.pathsep.join(p for p in ("/usr/local/bin", "/usr/bin", "/bin") if os.path.isdir(p)),
        "UV_CACHE_DIR": str(cache_dir() / "uv-cache"),  # dependencies are fetched once, not on every run
        "UV_PYTHON_DOWNLOADS": "never",
        "UV_NO_CONFIG": "1",
        "ACP_MUX_STATE_DIR": str(tmp_path / "state"),
        "SCRIPTED_AGENT_ECHO": "1",  # the demo echoes a plain prompt (its tour asks three questions)
    }
    for var in ("SSL_CERT_FILE", "SSL_CERT_DIR", "TMPDIR"):
        if os.environ.get(var):
            env[var] = os.environ[var]
    (tmp_path / "home").mkdir(exist_ok=True)
    return env


def _uvx(uv: str, wheel: Path, env: dict[str, str], *args: str) -> list[str]:
    """``uvx PACKAGE ARGS`` run from the wheel: the executable named after the distribution, as uvx starts it,
    skipping the test when PyPI (the wheel's dependencies) cannot be reached."""
    argv = [uv, "tool", "run", "--isolated", "--python", sys.executable, "--from", str(wheel), PROJECT["name"]]
    probe = subprocess.run([*argv, "--version"], env=env, capture_output=True, text=True, timeout=600)
    if probe.returncode != 0 and "pypi.org" in probe.stderr and not REQUIRED:
        pytest.skip(f"uvx could not fetch the dependencies from PyPI: {probe.stderr.strip()[-300:]}")
    assert probe.returncode == 0, probe.stderr[-2000:]
    assert probe.stdout.strip() == f"acp-mux {__version__}"
    return [*argv, *args]


@pytest.mark.e2e  # uvx fetches the wheel's dependencies from PyPI
def test_uvx_runs_the_wheel_as_an_editor_would(wheel, tmp_path):
    uv = _uv()
    work = tmp_path / "work"
    work.mkdir()
    env = _uvx_env(tmp_path)
    argv = _uvx(uv, wheel, env, "--agent", "demo")

    async def turn() -> RecordingClient:
        client = RecordingClient()
        async with acp.spawn_agent_process(
            client, argv[0], *argv[1:], env=env, cwd=str(work), transport_kwargs={"stderr": None}
        ) as (conn, _proc):
            init = await conn.initialize(protocol_version=1)
            assert init.agent_info.name == "acp-mux" and init.agent_info.version == __version__
            assert init.auth_methods, "the registry lists only agents that offer a sign-in"
            session = await conn.new_session(cwd=str(work), mcp_servers=[])
            result = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("hello from uvx")])
            assert result.stop_reason == "end_turn"
        return client

    client = asyncio.run(asyncio.wait_for(turn(), timeout=120))
    assert "You said: hello from uvx" in client.text()


@pytest.mark.e2e  # uvx fetches the wheel's dependencies from PyPI
def test_the_registry_auth_check_passes_on_every_entry_run_by_uvx(wheel, tmp_path):
    """verify_agents.py --auth-check, on the wheel: each entry's own command, ``uvx --cache-dir C PACKAGE ARGS`` as
    written (uv finds PACKAGE, ``acp-multiplexer==VERSION``, among this wheel's folder: it is not on PyPI yet), in a
    sandbox HOME with TERM=dumb and no agent CLI, answers its one initialize on the first line with a sign-in of type
    agent or terminal, and is this acp-mux."""
    uv = _uv()
    uvx = shutil.which("uvx", path=os.path.dirname(uv))
    assert uvx, f"no uvx next to {uv}"
    env = _uvx_env(tmp_path)
    _uvx(uv, wheel, env)  # the dependencies are in the cache (or the test skips when PyPI cannot be reached)
    env |= {"UV_FIND_LINKS": str(wheel.parent), "UV_PYTHON": sys.executable}
    verdicts = {}
    for folder in sorted(p for p in REGISTRY_DIR.iterdir() if p.is_dir()):
        entry = json.loads((folder / "agent.json").read_text())
        cmd, extra = acp_registry_checks.uvx_command(entry, cache_dir() / "uv-cache")
        home = tmp_path / "auth-home" / folder.name
        home.mkdir(parents=True)
        check_env = acp_registry_checks.sandbox_env(home, extra, keep=env)
        verdicts[folder.name] = acp_registry_checks.auth_check([uvx, *cmd[1:]], tmp_path, check_env, timeout=60)
    assert {name: v.reason for name, v in verdicts.items() if not v.ok} == {}
    infos = {name: v.answer["result"]["agentInfo"] for name, v in verdicts.items() if v.answer}
    assert all(i["name"] == "acp-mux" and i["version"] == __version__ for i in infos.values()), infos
