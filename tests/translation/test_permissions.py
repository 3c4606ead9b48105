"""Permission options, "always" rules scoped by command prefix / path / tool, and decoding the client's answer."""

from __future__ import annotations

from typing import Any

import pytest

from acp_mux.translation.permissions import (
    Answer,
    PermissionRules,
    Scope,
    command_prefix,
    decode_outcome,
    permission_options,
    scope_for,
)


def bash(command: Any) -> dict[str, Any]:
    return {"command": command}


# ── options and scopes ──────────────────────────────────────────────────────────────────────────────────────────
def test_four_options_whose_labels_say_the_scope() -> None:
    assert permission_options(scope_for("Bash", "execute", bash("git status -s"))) == [
        {"optionId": "allow_once", "name": "Allow once", "kind": "allow_once"},
        {
            "optionId": "allow_always",
            "name": "Always allow `git status` commands (this session)",
            "kind": "allow_always",
        },
        {"optionId": "reject_once", "name": "Reject", "kind": "reject_once"},
        {
            "optionId": "reject_always",
            "name": "Always reject `git status` commands (this session)",
            "kind": "reject_always",
        },
    ]
    edit = permission_options(scope_for("Edit", "edit", {"file_path": "/w/a.py"}))
    assert [o["name"] for o in edit][1::2] == [
        "Always allow changes to /w/a.py (this session)",
        "Always reject changes to /w/a.py (this session)",
    ]
    fetch = permission_options(scope_for("WebFetch", "fetch", {"url": "https://x.example/a?b"}))
    assert fetch[1]["name"] == "Always allow fetches from https://x.example (this session)"
    unnamed = permission_options(scope_for(None, "other", None))
    assert unnamed[1]["name"] == "Always allow exactly this call of this tool (this session)"


@pytest.mark.parametrize(
    ("command", "prefix"),
    [
        ("git status -s", "git status"),
        ("git -C /x status", "git -C /x status"),  # options before the subcommand stay in the key
        ("npm run build", "npm run build"),
        ("ls -la /tmp", "ls"),
        ("pytest -q tests", "pytest"),
        ("bash -lc 'cargo test --all'", "cargo test"),
        ('sh -c "make"', "make"),
        ("echo 'unclosed", None),  # unparsable: only exactly this command
        ("   ", None),
    ],
)
def test_command_prefix(command: str, prefix: str | None) -> None:
    assert command_prefix(command) == prefix


def test_scope_for_argv_commands_and_paths() -> None:
    assert scope_for("shell", "execute", bash(["bash", "-lc", "git push origin"])).command_key == ("git", "push")
    assert scope_for("Bash", "execute", {"cmd": "make test"}).command_key == ("make", "test")
    assert scope_for("Write", "edit", {"path": "/w/b"}) == Scope("Write", "edit", paths=("/w/b",))
    assert scope_for("NotebookEdit", "edit", {"notebook_path": "/w/n.ipynb"}) == Scope(
        "NotebookEdit", "edit", paths=("/w/n.ipynb",)
    )
    assert scope_for("Read", "read", {"file_path": "/w/a"}) == Scope("Read", "read", paths=("/w/a",))
    assert scope_for("mcp__x__y", "other", {"q": 1}) == Scope("mcp__x__y", "other", exact_input='{"q": 1}')


# ── remembered rules ────────────────────────────────────────────────────────────────────────────────────────────
@pytest.fixture
def git_status_allowed() -> PermissionRules:
    rules = PermissionRules()
    rules.remember(scope_for("Bash", "execute", bash("git status")), "allow")
    return rules


@pytest.mark.parametrize("command", ["git status", "git status -s", "git  status --short"])
def test_allow_always_covers_the_same_command_prefix(git_status_allowed: PermissionRules, command: str) -> None:
    assert git_status_allowed.match("Bash", "execute", bash(command)) == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "git push",
        "git",
        "git status; rm -rf /",
        "git status && rm -rf /",
        "git status || rm -rf /",
        "git status | sh",
        "git status > /etc/passwd",
        "git status $(rm -rf /)",
        "git status `rm -rf /`",
        "git status\nrm -rf /",
        "git status & rm -rf /",
    ],
)
def test_allow_always_never_covers_other_or_chained_commands(git_status_allowed: PermissionRules, command: str) -> None:
    assert git_status_allowed.match("Bash", "execute", bash(command)) is None


def test_a_command_rule_is_about_the_command_whichever_tool_or_agent_runs_it(
    git_status_allowed: PermissionRules,
) -> None:
    assert git_status_allowed.match("shell", "execute", bash("git status")) == "allow"
    assert git_status_allowed.match("shell", "execute", bash("/bin/bash -lc 'git status -s'")) == "allow"
    assert git_status_allowed.match("shell", "execute", bash("git push")) is None
    assert git_status_allowed.match("shell", "edit", {"command": "git status"}) is None  # another kind of action


def test_chained_argv_command_does_not_ride_on_an_allow_rule() -> None:
    rules = PermissionRules()
    rules.remember(scope_for("shell", "execute", bash(["bash", "-lc", "git status"])), "allow")
    assert rules.match("shell", "execute", bash(["bash", "-lc", "git status -s"])) == "allow"
    assert rules.match("shell", "execute", bash(["bash", "-lc", "git status && rm -rf /"])) is None


def test_reject_always_also_rejects_chained_commands() -> None:
    rules = PermissionRules()
    rules.remember(scope_for("Bash", "execute", bash("rm -rf build")), "reject")
    assert rules.match("Bash", "execute", bash("rm x")) == "reject"
    assert rules.match("Bash", "execute", bash("rm x; echo done")) == "reject"
    assert rules.match("Bash", "execute", bash("ls")) is None


def test_path_scoped_rules_match_only_that_path_by_any_edit_tool() -> None:
    """ "Always allow changes to <path>": the label names a path, not a tool, so Write then Edit does not ask again."""
    rules = PermissionRules()
    rules.remember(scope_for("Write", "edit", {"file_path": "/w/a.py"}), "allow")
    assert rules.match("Edit", "edit", {"file_path": "/w/a.py", "old_string": "x"}) == "allow"
    assert rules.match("MultiEdit", "edit", {"file_path": "/w/./a.py"}) == "allow"
    assert rules.match("Edit", "edit", {"file_path": "/w/b.py"}) is None
    assert rules.match("Edit", "delete", {"file_path": "/w/a.py"}) is None  # another kind of change asks
    assert rules.match("apply_patch", "edit", {"changes": [{"path": "/w/a.py", "kind": "update"}]}) == "allow"
    assert rules.match("apply_patch", "edit", {"changes": [{"path": "/w/a.py"}, {"path": "/w/b.py"}]}) is None


def test_fetch_rules_name_the_origin_whichever_fetch_tool_asks() -> None:
    rules = PermissionRules()
    rules.remember(scope_for("WebFetch", "fetch", {"url": "https://a.example/x"}), "allow")
    assert rules.match("WebFetch", "fetch", {"url": "https://a.example:443/y?z"}) == "allow"
    assert rules.match("fetch", "fetch", {"url": "HTTPS://A.example/"}) == "allow"
    assert rules.match("WebFetch", "fetch", {"url": "https://b.example/x"}) is None
    assert rules.match("WebFetch", "fetch", {"url": "http://a.example/x"}) is None  # another scheme
    assert rules.match("WebFetch", "fetch", {"url": "https://a.example:8443/x"}) is None  # another port
    assert rules.match("WebFetch", "fetch", {"url": "https://a.example@b.example/"}) is None
    assert rules.match("WebSearch", "fetch", {"query": "q"}) is None


def test_a_call_whose_target_cannot_be_named_is_remembered_exactly() -> None:
    rules = PermissionRules()
    rules.remember(scope_for("WebSearch", "search", {"query": "q"}), "allow")
    assert rules.match("WebSearch", "search", {"query": "q"}) == "allow"
    assert rules.match("WebSearch", "search", {"query": "other"}) is None
    assert rules.match("OtherSearch", "search", {"query": "q"}) is None
    rules.remember(scope_for("web_fetch", "fetch", {"prompt": "summarise https://a.example"}), "allow")
    assert rules.match("web_fetch", "fetch", {"prompt": "summarise https://b.example"}) is None


def test_the_latest_answer_for_a_scope_wins() -> None:
    rules = PermissionRules()
    scope = scope_for("Bash", "execute", bash("npm test"))
    rules.remember(scope, "allow")
    rules.remember(scope, "reject")
    assert rules.rules == [(scope, "reject")]
    assert rules.match("Bash", "execute", bash("npm test -- -w")) == "reject"


def test_no_rules_match_nothing() -> None:
    assert PermissionRules().match("Bash", "execute", bash("ls")) is None


# ── decoding the client's answer ────────────────────────────────────────────────────────────────────────────────
def selected(option_id: str) -> dict[str, Any]:
    return {"outcome": {"outcome": "selected", "optionId": option_id}}


OFFERED = permission_options(scope_for("Bash", "execute", bash("ls")))


@pytest.mark.parametrize(
    ("response", "answer"),
    [
        (selected("allow_once"), Answer(approve=True)),
        (selected("allow_always"), Answer(approve=True, always=True)),
        (selected("reject_once"), Answer(approve=False)),
        (selected("reject_always"), Answer(approve=False, always=True)),
        ({"outcome": {"outcome": "cancelled"}}, Answer(approve=False, cancelled=True)),
        ({"outcome": {}}, Answer(approve=False, cancelled=True)),
        ({}, Answer(approve=False, cancelled=True)),
        (None, Answer(approve=False, cancelled=True)),
    ],
)
def test_decode_outcome(response: Any, answer: Answer) -> None:
    assert decode_outcome(response, OFFERED) == answer


@pytest.mark.parametrize(
    "response",
    [
        selected("approve"),
        selected("allow"),
        selected("approve_for_session"),
        selected("allow-always"),
        selected("ALLOW_ONCE"),
        selected("allow_once "),
        {"outcome": "selected"},
        {"outcome": 1},
        {"outcome": ["selected"]},
        {"outcome": {"outcome": "selected", "optionId": 1}},
        {"outcome": {"outcome": "selected", "optionId": ["allow_once"]}},
        {"outcome": {"outcome": "selected"}},
        "allow_once",
        1,
        ["allow_once"],
        {"optionId": "allow_once"},
    ],
)
def test_anything_but_an_offered_option_is_a_denial(response: Any) -> None:
    assert decode_outcome(response, OFFERED) == Answer(approve=False, cancelled=True)


def test_only_the_options_of_this_question_count() -> None:
    exit_plan = [{"optionId": "mode:default", "name": "x", "kind": "allow_once"}]
    assert decode_outcome(selected("allow_always"), exit_plan).approve is False
    assert decode_outcome(selected("mode:default"), exit_plan) == Answer(approve=True)


def test_leaving_plan_mode_offers_the_modes_to_continue_in() -> None:
    from acp_mux.translation.permissions import chosen_mode, mode_exit_options

    options = mode_exit_options([("acceptEdits", "Accept edits"), ("default", "Default")])
    assert options == [
        {"optionId": "mode:acceptEdits", "name": "Yes, continue in Accept edits", "kind": "allow_always"},
        {"optionId": "mode:default", "name": "Yes, continue in Default", "kind": "allow_once"},
        {"optionId": "reject_once", "name": "No, keep planning", "kind": "reject_once"},
    ]
    picked = lambda option_id: {"outcome": {"outcome": "selected", "optionId": option_id}}  # noqa: E731
    assert chosen_mode(picked("mode:default"), options) == "default"
    assert chosen_mode(picked("reject_once"), options) is None and chosen_mode(picked("mode:"), options) is None
    assert chosen_mode(picked("mode:bypassPermissions"), options) is None  # not offered: never a way out of plan
    assert chosen_mode({"outcome": {"outcome": "cancelled"}}, options) is None and chosen_mode(None, options) is None
    assert chosen_mode({"outcome": "selected"}, options) is None and chosen_mode("mode:default", options) is None


def test_choice_options_carry_each_choice_and_a_skip() -> None:
    from acp_mux.translation.permissions import choice_options, chosen_choice

    options = choice_options(
        [{"id": "pytest", "label": "pytest"}, {"id": "ut", "label": "unittest"}, {"label": "no id"}]
    )
    assert [(o["optionId"], o["name"], o["kind"]) for o in options] == [
        ("choice:pytest", "pytest", "allow_once"),
        ("choice:ut", "unittest", "allow_once"),
        ("reject_once", "Skip this question", "reject_once"),
    ]
    picked = {"outcome": {"outcome": "selected", "optionId": "choice:ut"}}
    assert chosen_choice(picked, options) == "ut"
    assert chosen_choice({"outcome": {"outcome": "selected", "optionId": "reject_once"}}, options) is None
    assert chosen_choice({"outcome": {"outcome": "cancelled"}}, options) is None
    # an option we never offered is no answer, even if it looks like one
    assert chosen_choice({"outcome": {"outcome": "selected", "optionId": "choice:other"}}, options) is None
