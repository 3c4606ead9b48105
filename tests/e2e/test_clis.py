"""Unit tests for tests/e2e/clis.py: pins, install detection and the offline environments (no CLI is run)."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from tests.e2e import clis
from tests.e2e.clis import DEAD_PROXY, PINS, RUNTIME_PINS, cli_env, prepare_home

INSTALL_SCRIPT = Path(clis.__file__).with_name("install_clis.sh")


def read_config(path: Path) -> dict:
    """The YAML configs are written as JSON after one comment line (JSON is YAML), so json reads them."""
    lines = path.read_text().splitlines()
    assert lines[0].startswith("#")
    return json.loads("\n".join(lines[1:]))


def script_table(name: str) -> dict[str, str]:
    """One `declare -A NAME=(...)` table of install_clis.sh, as a dict."""
    text = INSTALL_SCRIPT.read_text()
    body = re.search(rf"declare -A {name}=\((.*?)\)[ \t]*(?:#[^\n]*)?\n", text, re.S)
    assert body, name
    return dict(re.findall(r'\[(\w+)\]="?([^"\s)]+)"?', body.group(1)))


def test_install_script_pins_match_python_pins() -> None:
    packages, versions = script_table("PKG"), script_table("VER")
    for name, (package, version) in {**PINS, **RUNTIME_PINS}.items():
        assert (packages[name], versions[name]) == (package, version), name
    assert script_table("KIND") == {name: "pypi" for name in clis.PYPI_CLIS}
    assert script_table("RUNTIME") == clis.CLI_RUNTIMES


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ACP_MUX_CLI_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def fake_npm_install(cache: Path, name: str, package: str, version: str, binary: str) -> Path:
    prefix = cache / f"{name}-{version}"
    meta = prefix / "node_modules" / package / "package.json"
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"name": package, "version": version}))
    path = prefix / binary
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_omp_counts_as_installed_only_with_its_bun(cache: Path) -> None:
    omp = fake_npm_install(cache, "omp", *PINS["omp"], "node_modules/.bin/omp")
    assert clis._installed_bin("omp") is None  # bun missing: omp cannot start
    fake_npm_install(cache, "bun", *RUNTIME_PINS["bun"], "bin/bun")
    assert clis._installed_bin("omp") == omp
    assert clis.runtime_bin_dir("omp") == cache / f"bun-{RUNTIME_PINS['bun'][1]}" / "bin"


def test_hermes_venv_detected_by_its_dist_info(cache: Path) -> None:
    prefix = cache / f"hermes-{PINS['hermes'][1]}"
    binary = prefix / "bin" / "hermes"
    binary.parent.mkdir(parents=True)
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    site = prefix / "lib" / "python3.11" / "site-packages"
    (site / "hermes_agent-0.18.0.dist-info").mkdir(parents=True)
    assert clis._installed_bin("hermes") is None  # another version
    (site / f"hermes_agent-{PINS['hermes'][1]}.dist-info").mkdir()
    assert clis._installed_bin("hermes") == binary


def test_omp_env_and_home(tmp_path: Path) -> None:
    env = cli_env("omp", "http://127.0.0.1:4321/", tmp_path / "home")
    agent_dir = tmp_path / "home" / ".omp" / "agent"
    models = read_config(agent_dir / "models.yml")
    provider = models["providers"]["fake"]
    assert provider["baseUrl"] == "http://127.0.0.1:4321/v1" and provider["api"] == "openai-completions"
    assert [m["id"] for m in provider["models"]] == ["fake-model", "fake-model-2"]  # two: the model switch test
    assert all(m["input"] == ["text", "image"] for m in provider["models"])
    settings = read_config(agent_dir / "config.yml")
    assert settings["tools"] == {"approvalMode": "always-ask"}
    assert settings["startup"]["checkUpdate"] is False and settings["dev"]["autoqa"] is False
    assert settings["retry"]["maxRetries"] == 1
    assert env["HOME"] == str(tmp_path / "home")
    assert env["PATH"].split(os.pathsep)[0] == str(clis.runtime_bin_dir("omp"))
    assert env["HTTPS_PROXY"] == DEAD_PROXY and "127.0.0.1" in env["NO_PROXY"]
    assert "OPENAI_API_KEY" not in env and "ANTHROPIC_API_KEY" not in env


def test_omp_default_approval_mode_is_left_unset() -> None:
    assert "tools" not in json.loads(clis.omp_config_yml(approval_mode=None).split("\n", 1)[1])


def test_hermes_env_and_home(tmp_path: Path) -> None:
    env = cli_env("hermes", "http://127.0.0.1:4321", tmp_path / "home")
    hermes_home = tmp_path / "home" / ".hermes"
    config = read_config(hermes_home / "config.yaml")
    assert config["model"] == {"provider": "custom", "base_url": "http://127.0.0.1:4321/v1", "api_key": "sk-fake",
                               "default": "fake-model", "supports_vision": True}
    assert config["approvals"]["mode"] == "manual" and config["agent"]["api_max_retries"] == 1
    stamp = json.loads((hermes_home / ".update_check").read_text())
    assert stamp["ver"] == PINS["hermes"][1] and time.time() - stamp["ts"] < 60
    assert env["HERMES_HOME"] == str(hermes_home) and env["HERMES_DISABLE_LAZY_INSTALLS"] == "1"
    assert env["HTTP_PROXY"] == DEAD_PROXY


def test_prepare_home_repoints_an_existing_home(tmp_path: Path) -> None:
    prepare_home("hermes", "http://127.0.0.1:1111", tmp_path)
    prepare_home("hermes", "http://127.0.0.1:2222", tmp_path)
    assert read_config(tmp_path / ".hermes" / "config.yaml")["model"]["base_url"] == "http://127.0.0.1:2222/v1"
    prepare_home("claude", "http://127.0.0.1:2222", tmp_path / "claude-home")  # nothing to write, still a home
    assert (tmp_path / "claude-home").is_dir()


def test_unknown_cli_has_no_recipe(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        cli_env("nope", "http://127.0.0.1:1", tmp_path)


def test_gemini_env_and_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "a-real-key")  # must not leak into the CLI's environment
    env = cli_env("gemini", "http://127.0.0.1:4321/", tmp_path / "home")
    gemini_dir = tmp_path / "home" / ".gemini"
    settings = json.loads((gemini_dir / "settings.json").read_text())
    assert settings["security"]["auth"]["selectedType"] == "gemini-api-key"
    assert settings["general"]["maxAttempts"] == 1  # a 429 must not back off for minutes
    assert settings["privacy"]["usageStatisticsEnabled"] is False and settings["telemetry"]["enabled"] is False
    assert env["GOOGLE_GEMINI_BASE_URL"] == "http://127.0.0.1:4321" and env["GEMINI_API_KEY"] == "fake"
    assert env["GEMINI_CLI_HOME"] == env["HOME"] == str(tmp_path / "home")
    assert env["GEMINI_CLI_NO_RELAUNCH"] == env["GEMINI_CLI_TRUST_WORKSPACE"] == "true"
    for name in ("GEMINI_CLI_SYSTEM_SETTINGS_PATH", "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"):
        assert env[name].startswith(str(gemini_dir)) and not Path(env[name]).exists()
    assert "GOOGLE_API_KEY" not in env and env["HTTPS_PROXY"] == DEAD_PROXY
