"""One owner for prompts waiting to run: the run (``RunHandle``, through ``acp_mux.core.run.waiting_prompts``).

Read from the source, over every module of the installed name (acp_mux with adapters/ and translation/ mapped in):

* no module but ``core/run/waiting_prompts.py`` keeps a collection of prompts as state: a class field or ``self.``
  attribute whose type holds ``Prompt`` inside a container (``list[Prompt]``, ``tuple[str, Prompt]``...). mypy
  strict makes every such container carry its type, so a new list of waiting prompts cannot hide unannotated;
* only ``core/run/handle.py`` makes a ``WaitingPrompts``: one per run, no second keeper elsewhere (an adapter, the
  session's gate, the live session);
* the session's gate (``server/sessions/session_gate.py``) orders turns and switches and holds no prompt at all.

The detector itself is tried on sources that break the rule (a hypothesis test builds them), so it cannot pass
by seeing nothing.
"""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.annotation_names import annotation_names

from tests.import_graph import module_files

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {
    "acp_mux": ROOT / "acp_mux",
    "acp_mux.adapters": ROOT / "adapters",
    "acp_mux.translation": ROOT / "translation",
}
OWNER = "acp_mux.core.run.waiting_prompts"
RUN = "acp_mux.core.run.handle"
GATE = "acp_mux.server.sessions.session_gate"


_names = annotation_names


def _holds_prompts(annotation: ast.AST) -> bool:
    """A container type with ``Prompt`` among its items: ``list[Prompt]``, ``dict[str, tuple[int, Prompt]]``..."""
    for sub in ast.walk(annotation):
        if isinstance(sub, ast.Subscript) and "Prompt" in _names(sub.slice):
            return True
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            try:
                if _holds_prompts(ast.parse(sub.value, mode="eval")):
                    return True
            except SyntaxError:
                pass
    return False


def prompt_stores(source: str) -> list[str]:
    """``Class.attribute`` for each piece of state in ``source`` that keeps a collection of prompts."""
    found: list[str] = []
    for cls in (n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ClassDef)):
        for node in ast.walk(cls):
            if not isinstance(node, ast.AnnAssign) or not _holds_prompts(node.annotation):
                continue
            target = node.target
            if isinstance(target, ast.Name) and node in cls.body:  # a class field (dataclass, ClassVar)
                found.append(f"{cls.name}.{target.id}")
            elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                found.append(f"{cls.name}.{target.attr}")
    return found


def makers_of(source: str, name: str) -> int:
    """How many times ``source`` calls ``name(...)``."""
    return sum(
        1
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.Call) and name in _names(n.func) and isinstance(n.func, (ast.Name, ast.Attribute))
    )


def _sources() -> dict[str, str]:
    return {module: path.read_text(encoding="utf-8") for module, path in module_files(PACKAGES).items()}


def test_only_the_runs_keeper_holds_a_collection_of_prompts() -> None:
    sources = _sources()
    assert RUN in sources and OWNER in sources and "acp_mux.adapters.acp_agents.acp_client" in sources
    stores = {module: prompt_stores(source) for module, source in sources.items()}
    assert stores[OWNER], "the keeper itself must be seen (or the detector sees nothing)"
    others = {module: found for module, found in stores.items() if found and module != OWNER}
    assert others == {}, f"prompts kept outside {OWNER}: {others}"


def test_only_the_run_makes_a_keeper() -> None:
    makers = {module: makers_of(source, "WaitingPrompts") for module, source in _sources().items()}
    assert {module: n for module, n in makers.items() if n} == {RUN: 1}


def test_the_session_gate_holds_no_prompt() -> None:
    gate = _sources()[GATE]
    assert "Prompt" not in _names(ast.parse(gate)), "the gate orders turns and switches; it keeps no prompt"


# ── the detector cannot pass by seeing nothing ────────────────────────────────────────────────────────────────────
containers = st.sampled_from(["list[{}]", "tuple[str, {}]", "dict[str, {}]", "deque[{}]", "'list[{}]'", "set[{}]"])
item = st.sampled_from(["Prompt", "tuple[Boundary, Prompt]", "core.prompt.Prompt", "Prompt | None"])
attr = st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True).filter(lambda s: s not in {"self", "cls"})


@settings(max_examples=60, deadline=None)
@given(containers, item, attr, st.booleans())
def test_a_list_of_prompts_anywhere_in_a_class_is_found(container: str, inner: str, name: str, field: bool) -> None:
    annotation = container.format(inner)
    if field:
        source = f"class Run:\n    {name}: {annotation} = None\n"
    else:
        source = f"class Run:\n    def __init__(self) -> None:\n        self.{name}: {annotation} = []\n"
    assert prompt_stores(source) == [f"Run.{name}"]


@settings(max_examples=30, deadline=None)
@given(attr, st.sampled_from(["Prompt", "Prompt | None", "str", "list[str]", "dict[str, int]"]))
def test_one_prompt_or_other_state_is_not_a_store(name: str, annotation: str) -> None:
    source = f"class Options:\n    {name}: {annotation} = None\n"
    assert prompt_stores(source) == []
