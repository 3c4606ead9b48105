"""The ACP registry's own checks on an entry, re-implemented so they run here, offline, on every generated entry.

The registry (github.com/agentclientprotocol/registry) accepts a folder ``<id>/{agent.json,icon.svg}`` only when

- ``agent.json`` validates against its ``agent.schema.json`` (vendored unchanged in ``packaging/acp-registry-schema``;
  :func:`schema_errors` reads it without the ``jsonschema`` package);
- its build script's own rules hold (:func:`entry_errors`): id format and folder name, a numeric x.y.z version, known
  distribution kinds, a package version equal to the entry's and never ``latest``, ids unique across entries;
- ``icon.svg`` is 16×16, square and monochrome (:func:`icon_errors`, the same textual rules the build script applies:
  a colour in a comment or a ``data-fill`` attribute is refused there, so it is here);
- its verify script starts ``uvx --cache-dir C PACKAGE ARGS`` (:func:`uvx_command`): on empty stdin it must keep
  running or exit 0 (:func:`launch_check`); with HOME in a sandbox and TERM=dumb, given one ``initialize``, the first
  line of stdout must be the answer (:func:`auth_check`), with at least one auth method of type "agent" or
  "terminal" (:func:`auth_types`).

Not checked here: that the package exists on PyPI (the build script asks pypi.org; true only once it is published).
Where this module is stricter than the registry it says so: ``format: uri`` is asserted (the registry's jsonschema
call treats it as a note), and a ``$`` in a pattern means the end of the text, as in the schema's own ECMA-262
dialect (Python's ``re`` would also accept a trailing newline there).
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_FILE = ROOT / "packaging" / "acp-registry-schema" / "agent.schema.json"

DISTRIBUTION_KINDS = frozenset({"binary", "npx", "uvx"})
PLATFORMS = frozenset(
    {"darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-x86_64", "windows-aarch64", "windows-x86_64"}
)
OS_FAMILIES = frozenset({"darwin", "linux", "windows"})
ICON_SIZE = 16
PLAIN_PAINTS = frozenset({"currentcolor", "none", "inherit"})
AUTH_TYPES = frozenset({"agent", "terminal"})
# Words that only describe (JSON Schema annotations); anything else unknown makes the check fail, not pass.
ANNOTATIONS = frozenset({"$schema", "$id", "title", "description", "default", "examples", "$comment"})

JSON = None | bool | int | float | str | list["JSON"] | dict[str, "JSON"]


# ── the schema ─────────────────────────────────────────────────────────────────────────────────────────────────
def load_schema(path: Path = SCHEMA_FILE) -> dict[str, JSON]:
    schema = json.loads(path.read_text())
    assert isinstance(schema, dict)
    return schema


def ecma_pattern(pattern: str) -> re.Pattern[str]:
    """``pattern`` as ECMA-262 reads it, for Python's ``re``: ``$`` outside a character class is the end of the text
    (Python's also matches before a final newline), ``\\d`` and ``\\w`` are ASCII only. Unanchored, as JSON Schema's
    ``pattern`` is: a match anywhere passes."""
    out: list[str] = []
    in_class = False
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if char == "\\" and at + 1 < len(pattern):
            out.append(pattern[at : at + 2])
            at += 2
            continue
        if char == "[" and not in_class:
            in_class = True
        elif char == "]" and in_class:
            in_class = False
        out.append(r"\Z" if char == "$" and not in_class else char)
        at += 1
    return re.compile("".join(out), re.ASCII)


_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:[^\s\x00-\x1f\x7f<>\"{}|\\^`]+", re.ASCII)

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "null": (type(None),),
}


def _is_type(value: JSON, name: str) -> bool:
    if isinstance(value, bool) and name in ("number", "integer"):
        return False  # JSON true is not a number, though Python's bool is an int
    return isinstance(value, _TYPES[name])


def _resolve(ref: str, root: Mapping[str, JSON]) -> Mapping[str, JSON]:
    if not ref.startswith("#/"):
        raise ValueError(f"only local $ref is supported, not {ref!r}")
    node: JSON = dict(root)
    for part in ref[2:].split("/"):
        assert isinstance(node, dict), ref
        node = node[part.replace("~1", "/").replace("~0", "~")]
    assert isinstance(node, dict), ref
    return node


def schema_errors(value: JSON, schema: Mapping[str, JSON], root: Mapping[str, JSON] | None = None) -> list[str]:
    """Every way ``value`` breaks ``schema`` (JSON Schema draft-07, the keywords the registry's schema uses), each as
    "where: what"; empty when it validates. A keyword this validator does not know raises ValueError."""
    return _check(value, schema, root or schema, "$")


def _check(value: JSON, schema: Mapping[str, JSON], root: Mapping[str, JSON], where: str) -> list[str]:
    errors: list[str] = []
    for keyword, rule in schema.items():
        if keyword in ANNOTATIONS or keyword == "definitions":
            continue
        if keyword not in _KEYWORDS:
            raise ValueError(f"{where}: schema keyword {keyword!r} is not understood by this validator")
        errors += _KEYWORDS[keyword](value, rule, schema, root, where)
    return errors


def _k_ref(value: JSON, rule: JSON, _s: Mapping[str, JSON], root: Mapping[str, JSON], where: str) -> list[str]:
    assert isinstance(rule, str)
    return _check(value, _resolve(rule, root), root, where)


def _k_type(value: JSON, rule: JSON, _s: Mapping[str, JSON], _r: Mapping[str, JSON], where: str) -> list[str]:
    names = [rule] if isinstance(rule, str) else rule
    assert isinstance(names, list)
    if any(_is_type(value, str(n)) for n in names):
        return []
    return [f"{where}: is not of type {' or '.join(map(str, names))}"]


def _k_required(value: JSON, rule: JSON, _s: Mapping[str, JSON], _r: Mapping[str, JSON], where: str) -> list[str]:
    assert isinstance(rule, list)
    if not isinstance(value, dict):
        return []
    return [f"{where}: {name!r} is required" for name in rule if name not in value]


def _k_properties(value: JSON, rule: JSON, _s: Mapping[str, JSON], root: Mapping[str, JSON], where: str) -> list[str]:
    assert isinstance(rule, dict)
    if not isinstance(value, dict):
        return []
    errors: list[str] = []
    for name, sub in rule.items():
        if name in value:
            assert isinstance(sub, dict)
            errors += _check(value[name], sub, root, f"{where}.{name}")
    return errors


def _k_additional(
    value: JSON, rule: JSON, schema: Mapping[str, JSON], root: Mapping[str, JSON], where: str
) -> list[str]:
    if not isinstance(value, dict):
        return []
    known = schema.get("properties") or {}
    assert isinstance(known, dict)
    errors: list[str] = []
    for name in value:
        if name in known:
            continue
        if rule is False:
            errors.append(f"{where}: {name!r} is not allowed here")
        elif isinstance(rule, dict):
            errors += _check(value[name], rule, root, f"{where}.{name}")
    return errors


def _k_min_properties(value: JSON, rule: JSON, _s: Mapping[str, JSON], _r: Mapping[str, JSON], where: str) -> list[str]:
    assert isinstance(rule, int)
    if isinstance(value, dict) and len(value) < rule:
        return [f"{where}: needs at least {rule} propert{'y' if rule == 1 else 'ies'}"]
    return []


def _k_property_names(
    value: JSON, rule: JSON, _s: Mapping[str, JSON], root: Mapping[str, JSON], where: str
) -> list[str]:
    assert isinstance(rule, dict)
    if not isinstance(value, dict):
        return []
    return [e for name in value for e in _check(name, rule, root, f"{where} (property name {name!r})")]


def _k_enum(value: JSON, rule: JSON, _s: Mapping[str, JSON], _r: Mapping[str, JSON], where: str) -> list[str]:
    assert isinstance(rule, list)
    same = any(type(value) is type(option) and value == option for option in rule)
    return [] if same else [f"{where}: {value!r} is not one of {rule!r}"]


def _k_items(value: JSON, rule: JSON, _s: Mapping[str, JSON], root: Mapping[str, JSON], where: str) -> list[str]:
    assert isinstance(rule, dict)
    if not isinstance(value, list):
        return []
    return [e for i, item in enumerate(value) for e in _check(item, rule, root, f"{where}[{i}]")]


def _k_pattern(value: JSON, rule: JSON, _s: Mapping[str, JSON], _r: Mapping[str, JSON], where: str) -> list[str]:
    assert isinstance(rule, str)
    if isinstance(value, str) and not ecma_pattern(rule).search(value):
        return [f"{where}: {value!r} does not match {rule!r}"]
    return []


def _k_min_length(value: JSON, rule: JSON, _s: Mapping[str, JSON], _r: Mapping[str, JSON], where: str) -> list[str]:
    assert isinstance(rule, int)
    if isinstance(value, str) and len(value) < rule:  # code points, as JSON Schema counts
        return [f"{where}: shorter than {rule} character{'s' if rule != 1 else ''}"]
    return []


def _k_format(value: JSON, rule: JSON, _s: Mapping[str, JSON], _r: Mapping[str, JSON], where: str) -> list[str]:
    if rule != "uri":
        raise ValueError(f"{where}: format {rule!r} is not understood by this validator")
    if isinstance(value, str) and not _URI.fullmatch(value):
        return [f"{where}: {value!r} is not an absolute URI"]
    return []


_KEYWORDS = {
    "$ref": _k_ref,
    "type": _k_type,
    "required": _k_required,
    "properties": _k_properties,
    "additionalProperties": _k_additional,
    "minProperties": _k_min_properties,
    "propertyNames": _k_property_names,
    "enum": _k_enum,
    "items": _k_items,
    "pattern": _k_pattern,
    "minLength": _k_min_length,
    "format": _k_format,
}


# ── the build script's own rules ───────────────────────────────────────────────────────────────────────────────
def entry_errors(entry: Mapping[str, JSON], folder: str) -> list[str]:
    """What the registry's build refuses in one ``agent.json`` found in ``folder``, after the schema: the id's form
    and folder, the version's form, the distribution's kinds and fields, and the package versions (pinned to the
    entry's own version, never ``latest``)."""
    errors: list[str] = []
    entry_id = entry.get("id")
    if not isinstance(entry_id, str) or not entry_id:
        errors.append("id is empty")
    elif not entry_id[0].isalpha():
        errors.append("id must start with a letter")
    elif not all(c.islower() or c.isdigit() or c == "-" for c in entry_id):
        errors.append("id must be lowercase letters, digits and hyphens")
    elif entry_id != folder:
        errors.append(f"id {entry_id!r} differs from its folder {folder!r}")
    version = entry.get("version")
    parts = version.split(".") if isinstance(version, str) else []
    if len(parts) < 3 or not all(p.isdigit() for p in parts[:3]):
        errors.append(f"version {version!r} is not x.y.z")
    dist = entry.get("distribution")
    if not isinstance(dist, dict) or not dist:
        return errors + ["distribution is empty"]
    errors += [f"unknown distribution {kind!r}" for kind in sorted(set(dist) - DISTRIBUTION_KINDS)]
    errors += _binary_errors(dist.get("binary"))
    for kind in ("npx", "uvx"):
        pkg = dist.get(kind)
        if isinstance(pkg, dict) and "package" not in pkg:
            errors.append(f"{kind} has no package")
    if isinstance(version, str):
        errors += pinning_errors(version, dist)
    return errors


def _binary_errors(binary: JSON) -> list[str]:
    if binary is None:
        return []
    if not isinstance(binary, dict) or not binary:
        return ["binary is empty"]
    errors = [f"unknown platform {p!r}" for p in sorted(set(binary) - PLATFORMS)]
    missing = OS_FAMILIES - {p.split("-")[0] for p in binary if p in PLATFORMS}
    if missing:
        errors.append(f"binary lacks builds for {', '.join(sorted(missing))}")
    for platform, target in binary.items():
        if platform in PLATFORMS and isinstance(target, dict):
            errors += [f"{platform} has no {field}" for field in ("archive", "cmd") if field not in target]
    return errors


_PINNED = re.compile(r"[=@]+([\d.]+)")


def pinning_errors(version: str, dist: Mapping[str, JSON]) -> list[str]:
    """A package spec's version must be the entry's; ``@latest`` never passes (the registry's version rule)."""
    errors: list[str] = []
    for kind in ("npx", "uvx"):
        spec = dist.get(kind)
        package = spec.get("package") if isinstance(spec, dict) else None
        if not isinstance(package, str):
            continue
        if "@latest" in package.lower():
            errors.append(f"{kind} package {package!r} uses @latest")
            continue
        found = _npm_version(package) if kind == "npx" else _pypi_version(package)
        if found is not None and found != version:
            errors.append(f"{kind} package version {found!r} differs from the entry's {version!r}")
    return errors


def _pypi_version(package: str) -> str | None:
    match = _PINNED.search(package)
    return match.group(1) if match else None


def _npm_version(package: str) -> str | None:
    at = package.find("@", 1 if package.startswith("@") else 0)
    return package[at + 1 :] if at >= 0 else None


def duplicate_ids(entries: Mapping[str, Mapping[str, JSON]]) -> list[str]:
    """Ids held by more than one folder (``entries``: folder → its agent.json): the registry takes each id once."""
    seen: dict[JSON, str] = {}
    errors: list[str] = []
    for folder, entry in sorted(entries.items()):
        entry_id = entry.get("id")
        if entry_id in seen:
            errors.append(f"id {entry_id!r} of {folder} is already {seen[entry_id]}'s")
        else:
            seen[entry_id] = folder
    return errors


# ── the icon ───────────────────────────────────────────────────────────────────────────────────────────────────
def _attr(name: str) -> re.Pattern[str]:
    return re.compile(rf"""\b{name}\s*=\s*["']([^"']+)["']""", re.IGNORECASE)


_PAINT_ATTRS = {"fill": _attr("fill"), "stroke": _attr("stroke")}
_STYLE = _attr("style")
_STYLE_PAINT = {name: re.compile(rf"\b{name}\s*:\s*([^;]+)", re.IGNORECASE) for name in ("fill", "stroke")}
_WIDTH = re.compile(r"""<svg[^>]*\swidth=["'](\d+)""")
_HEIGHT = re.compile(r"""<svg[^>]*\sheight=["'](\d+)""")
_VIEWBOX = re.compile(r"""viewBox=["'][\d.]+\s+[\d.]+\s+([\d.]+)\s+([\d.]+)""")


def icon_errors(svg: str) -> list[str]:
    """What the registry's build refuses in ``icon.svg``: read as text, as it does (a colour anywhere in an attribute
    named fill or stroke, even in a comment, fails): the size from the ``<svg>`` width and height (else the viewBox)
    must be 16 and square; every fill and stroke, as attributes and in style, is currentColor, none or inherit;
    currentColor appears."""
    width, height = _WIDTH.search(svg), _HEIGHT.search(svg)
    if width and height:
        size = (float(width.group(1)), float(height.group(1)))
    else:
        box = _VIEWBOX.search(svg)
        if not box:
            return ["the icon has neither width and height nor a viewBox"]
        size = (float(box.group(1)), float(box.group(2)))
    errors: list[str] = []
    if size[0] != size[1]:
        errors.append(f"the icon is not square ({size[0]:g}x{size[1]:g})")
    if size != (ICON_SIZE, ICON_SIZE):
        errors.append(f"the icon is not {ICON_SIZE}x{ICON_SIZE} ({size[0]:g}x{size[1]:g})")
    for name, attr in _PAINT_ATTRS.items():
        errors += [
            f"{name}={v!r} is a fixed colour" for v in attr.findall(svg) if v.strip().lower() not in PLAIN_PAINTS
        ]
    for style in _STYLE.findall(svg):
        for name, rule in _STYLE_PAINT.items():
            found = rule.search(style)
            if found and found.group(1).strip().lower() not in PLAIN_PAINTS:
                errors.append(f"style {name}: {found.group(1).strip()!r} is a fixed colour")
    if not re.search("currentColor", svg, re.IGNORECASE):
        errors.append("the icon never uses currentColor")
    return list(dict.fromkeys(errors))


# ── the launch and the auth handshake ──────────────────────────────────────────────────────────────────────────
def package_name(spec: str) -> str:
    """The distribution a uvx package spec names (``acp-multiplexer==0.1.0`` → ``acp-multiplexer``): uvx runs the
    executable of that name."""
    return re.split(r"[<>=!~@\[;\s]", spec, maxsplit=1)[0]


def uvx_command(entry: Mapping[str, JSON], cache_dir: Path) -> tuple[list[str], dict[str, str]]:
    """The command and extra environment the registry's verify script runs for a uvx entry."""
    dist = entry["distribution"]
    assert isinstance(dist, dict)
    uvx = dist["uvx"]
    assert isinstance(uvx, dict)
    package, args, env = uvx["package"], uvx.get("args") or [], uvx.get("env") or {}
    assert isinstance(package, str) and isinstance(args, list) and isinstance(env, dict)
    return ["uvx", "--cache-dir", str(cache_dir), package, *map(str, args)], {k: str(v) for k, v in env.items()}


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": 1,
        "clientInfo": {"name": "ACP Registry Validator", "version": "1.0.0"},
        "clientCapabilities": {
            "terminal": True,
            "fs": {"readTextFile": True, "writeTextFile": True},
            "_meta": {"terminal_output": True, "terminal-auth": True},
        },
    },
}


def auth_types(methods: Sequence[JSON]) -> list[str]:
    """Each auth method's type as the registry reads it: ``type``; else ``_meta`` "terminal-auth" → terminal,
    "agent-auth" → agent; else "agent"."""
    types: list[str] = []
    for method in methods:
        if not isinstance(method, dict):
            types.append("not an object")  # the registry's client fails on it
            continue
        found, meta = method.get("type"), method.get("_meta")
        if not found and isinstance(meta, dict):
            found = "terminal" if "terminal-auth" in meta else "agent" if "agent-auth" in meta else None
        types.append(str(found or "agent"))
    return types


@dataclass(frozen=True)
class AuthCheck:
    ok: bool
    reason: str
    answer: dict[str, JSON] | None = None


def auth_verdict(answer: JSON) -> AuthCheck:
    """The registry's verdict on the first line the agent wrote: an answer (not an error) whose ``authMethods``
    include one of type "agent" or "terminal"."""
    if not isinstance(answer, dict):
        return AuthCheck(False, f"not a JSON-RPC message: {answer!r}")
    if "error" in answer:
        return AuthCheck(False, f"agent error: {answer['error']!r}", answer)
    result = answer.get("result") or {}
    methods = result.get("authMethods") if isinstance(result, dict) else None
    if not isinstance(methods, list) or not methods:
        return AuthCheck(False, "no authMethods in the initialize answer", answer)
    types = auth_types(methods)
    if not AUTH_TYPES & set(types):
        return AuthCheck(False, f"no auth method of type agent or terminal: {types}", answer)
    return AuthCheck(True, f"auth methods: {types}", answer)


def auth_check(cmd: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float) -> AuthCheck:
    """Start ``cmd`` as the registry's verify script does (stdin and stdout piped, stderr piped and never read),
    write one ``initialize``, judge the first line of stdout within ``timeout``, then stop it."""
    proc = subprocess.Popen(
        list(cmd),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        bufsize=0,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(INITIALIZE) + "\n")
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], timeout)
        if not ready:
            return AuthCheck(False, f"no answer to initialize within {timeout:g} s")
        line = proc.stdout.readline()
        if not line:
            return AuthCheck(False, f"stdout closed before any answer (exit {proc.poll()})")
        try:
            return auth_verdict(json.loads(line))
        except ValueError:
            return AuthCheck(False, f"the first line of stdout is not JSON: {line[:200]!r}")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def launch_check(cmd: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float = 10) -> AuthCheck:
    """The verify script's plain launch test (without ``--auth-check``): stdin empty, stdout and stderr read; still
    running after ``timeout`` or exited 0 passes, and so does a failure whose output speaks of input, a prompt or
    stdin (the registry reads that as "works, needs input")."""
    try:
        done = subprocess.run(
            list(cmd), cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return AuthCheck(True, f"still running after {timeout:g} s")
    if done.returncode == 0:
        return AuthCheck(True, "exited cleanly")
    said = (done.stdout + done.stderr).lower()
    if any(word in said for word in ("input", "prompt", "stdin")):
        return AuthCheck(True, f"exited {done.returncode}, asking for input")
    return AuthCheck(False, f"exited {done.returncode}: {done.stderr.strip()[:200]}")


def sandbox_env(home: Path, extra: Mapping[str, str], keep: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment the verify script gives the agent: the caller's own, TERM=dumb, HOME in a sandbox, then the
    entry's ``env``. ``keep`` is that caller's environment (default: this process's, without acp-mux's own
    ``ACP_MUX_*`` settings and the XDG folders, so nothing of this machine's set-up reaches the check)."""
    base = dict(os.environ if keep is None else keep)
    if keep is None:
        base = {k: v for k, v in base.items() if not k.startswith(("ACP_MUX_", "XDG_"))}
    return {**base, "TERM": "dumb", "HOME": str(home), **extra}
