"""Regenerate the typed ACP model (``acp_mux/protocol/v<N>.py``) from the official schema kept in the repository.

The model is generated, never edited by hand, so that following ACP is a regeneration: replace
``acp_mux/protocol/schema/v1/{schema,meta}.json`` with the new release's files, run this, run the tests
(docs/acp-versions.md). The generator (datamodel-code-generator, pinned in the ``test`` extra) is a development tool
only; the package needs nothing but pydantic at run time.

    python tools/gen_acp_models.py            # rewrite acp_mux/protocol/v1.py and v1_dicts.py
    python tools/gen_acp_models.py --check    # exit 1 when a checked-in file differs from a fresh generation

The output is deterministic (no timestamp, a pinned generator, then the pinned ``ruff format``), so ``--check`` is
exact.
Besides the models, the module gets method tables read from the schema's own ``x-side`` / ``x-method``
annotations and from its four JSON-RPC envelopes, so the edge (``acp_mux/protocol/wire.py``) never spells a
method-to-model mapping by hand.

Next to the models, ``v<N>_dicts.py``: the same schema as TypedDicts (tools/acp_dicts_source.py), the types of the
plain dicts acp-mux builds and passes on past the edges at no run-time cost.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from acp_dicts_source import dicts_source  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PROTOCOL = ROOT / "acp_mux" / "protocol"
GENERATOR = "datamodel-code-generator==0.89.0"  # keep equal to the pin in pyproject.toml's test extra

# Flags, each for a reason that matters at the edge:
# - every model derives from AcpModel (acp_mux/protocol/base.py): extra="allow" so nothing an agent or editor sends
#   is lost on a round trip, populate_by_name, and validators built on first use;
# - snake-case fields with the wire name as alias: Python names inside, wire names outside;
# - Literal enums and uri -> str: values stay the plain strings that were sent (an AnyUrl would rewrite a URL);
# - type aliases, not RootModels: `ContentBlock`, `SessionUpdate` are unions you can match on, no `.root`;
# - union variants named after their tag (SessionUpdateAgentMessageChunk, ContentBlockText), not numbered;
# - no `from __future__ import annotations`: pydantic would compile every (long, described) string annotation at
#   import, twice the import time; the generator orders the classes so that plain annotations resolve.
CODEGEN_FLAGS: tuple[str, ...] = (
    "--input-file-type",
    "jsonschema",
    "--output-model-type",
    "pydantic_v2.BaseModel",
    "--target-python-version",
    "3.11",
    "--snake-case-field",
    "--use-annotated",
    "--field-constraints",
    "--use-standard-collections",
    "--use-union-operator",
    "--use-double-quotes",
    "--enum-field-as-literal",
    "all",
    "--type-mappings",
    "uri=string",
    "--use-type-alias",
    "--infer-union-variant-names",
    "--use-schema-description",
    "--disable-future-imports",
    "--disable-timestamp",
    "--base-class",
    "acp_mux.protocol.base.AcpModel",
    "--formatters",
    "builtin",
    "--disable-warnings",
)

# The schema's JSON-RPC envelopes, and what each one's members are for acp-mux's tables. "agent" methods are served
# by an agent (the editor calls them on acp-mux, acp-mux calls them on an ACP agent); "client" methods are served by
# a client (an agent calls them on acp-mux, acp-mux calls them on the editor).
ENVELOPES: tuple[tuple[str, str], ...] = (
    ("ClientRequest", "AGENT_METHOD_PARAMS"),
    ("AgentResponse", "AGENT_METHOD_RESULTS"),
    ("ClientNotification", "AGENT_NOTIFICATION_PARAMS"),
    ("AgentRequest", "CLIENT_METHOD_PARAMS"),
    ("ClientResponse", "CLIENT_METHOD_RESULTS"),
    ("AgentNotification", "CLIENT_NOTIFICATION_PARAMS"),
)
PROTOCOL_TABLE = "PROTOCOL_NOTIFICATION_PARAMS"


def _refs(node: Any) -> list[str]:
    """Every ``#/$defs/X`` reference under a schema node, in order of appearance."""
    found: list[str] = []
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            found.append(ref.removeprefix("#/$defs/"))
        for value in node.values():
            found.extend(_refs(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(_refs(item))
    return found


def method_tables(schema: dict[str, Any]) -> dict[str, dict[str, str]]:
    """For each table in ENVELOPES: method name -> the $defs name of its params or result type.

    Read from the types each envelope refers to that carry an ``x-method`` (its id, error and the like carry none),
    so a method the schema adds lands in the right table with no edit here.
    """
    defs: dict[str, Any] = schema["$defs"]
    tables: dict[str, dict[str, str]] = {}
    for envelope, table in ENVELOPES:
        rows: dict[str, str] = {}
        for name in _refs(defs[envelope]):
            method = defs[name].get("x-method")
            if method is not None:
                rows[method] = name
        tables[table] = dict(sorted(rows.items()))
    # `$/...` notifications either side may send live outside the four envelopes; the schema marks them "protocol".
    protocol = {d["x-method"]: name for name, d in defs.items() if d.get("x-side") == "protocol" and "x-method" in d}
    tables[PROTOCOL_TABLE] = dict(sorted(protocol.items()))
    return tables


def tables_source(tables: dict[str, dict[str, str]], version: int) -> str:
    """The generated method tables, appended to the models module."""
    lines = [
        "",
        "",
        f"# ---- Method tables (generated by tools/gen_acp_models.py from the v{version} schema's envelopes) ----",
        "",
        "# method -> the params or result type (a model class or a union alias); wire.py wraps them in TypeAdapters.",
    ]
    for table in [t for _, t in ENVELOPES] + [PROTOCOL_TABLE]:
        lines.append(f"{table}: dict[str, Any] = {{")
        lines.extend(f'    "{method}": {name},' for method, name in tables[table].items())
        lines.append("}")
    return "\n".join(lines) + "\n"


def header(version: int, source: dict[str, Any]) -> str:
    """The module's opening lines: what it is, where it comes from (source.json beside the schema), how to remake it."""
    return (
        f'"""ACP protocol v{version} models, generated from acp_mux/protocol/schema/v{version}/schema.json'
        f" (schema {source.get('release', '?')}, commit {source.get('commit', '?')}).\n\n"
        "Do not edit: run `python tools/gen_acp_models.py` (docs/acp-versions.md).\n"
        '"""\n\n'
    )


def generate(version: int = 1) -> str:
    """The full text of ``acp_mux/protocol/v<version>.py``, from the schema files next to it."""
    schema_dir = PROTOCOL / "schema" / f"v{version}"
    schema_path = schema_dir / "schema.json"
    schema = json.loads(schema_path.read_text())
    source = json.loads((schema_dir / "source.json").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "models.py"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "datamodel_code_generator",
                "--input",
                str(schema_path),
                "--output",
                str(out),
                *CODEGEN_FLAGS,
            ],
            check=True,
            cwd=tmp,
        )
        body = out.read_text()
    body = "\n".join(
        line
        for line in body.splitlines()
        if not line.startswith("#   filename:") and not line.startswith("# generated by datamodel-codegen")
    )
    text = (
        header(version, source) + body.lstrip("\n").rstrip("\n") + "\n" + tables_source(method_tables(schema), version)
    )
    return ruff_format(text, PROTOCOL / f"v{version}.py")


def generate_dicts(version: int = 1) -> str:
    """The full text of ``acp_mux/protocol/v<version>_dicts.py``: the schema's types as TypedDicts."""
    schema_dir = PROTOCOL / "schema" / f"v{version}"
    schema = json.loads((schema_dir / "schema.json").read_text())
    source = json.loads((schema_dir / "source.json").read_text())
    head = (
        f'"""ACP protocol v{version} as TypedDicts, generated from acp_mux/protocol/schema/v{version}/schema.json'
        f" (schema {source.get('release', '?')}, commit {source.get('commit', '?')}).\n\n"
        "The wire-form dicts acp-mux builds and passes on past the edges (keys are the wire names); the pydantic\n"
        f"model in v{version}.py validates at the edges. Do not edit: run `python tools/gen_acp_models.py`.\n"
        '"""\n'
    )
    return ruff_format(dicts_source(schema, version, head), PROTOCOL / f"v{version}_dicts.py")


def generated(version: int) -> dict[Path, str]:
    """Every generated module of one ACP version → its fresh text."""
    return {
        PROTOCOL / f"v{version}.py": generate(version),
        PROTOCOL / f"v{version}_dicts.py": generate_dicts(version),
    }


def ruff_format(text: str, path: Path) -> str:
    """The text as `ruff format` (pinned in the test extra, configured in pyproject.toml) writes it, so the generated
    module passes the project's format check like any other and stays deterministic."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", str(path), "-"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return done.stdout


def main(argv: list[str] | None = None) -> int:
    """Write the modules, or with --check compare them and say which file is stale."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="exit 1 if the checked-in module is stale")
    parser.add_argument("--version", type=int, default=1, help="the ACP major version to generate (default 1)")
    args = parser.parse_args(argv)
    stale = 0
    for target, fresh in generated(args.version).items():
        if not args.check:
            target.write_text(fresh)
        elif not target.exists() or target.read_text() != fresh:
            print(f"{target.relative_to(ROOT)} is stale: run python tools/gen_acp_models.py", file=sys.stderr)
            stale = 1
    return stale


if __name__ == "__main__":
    raise SystemExit(main())
