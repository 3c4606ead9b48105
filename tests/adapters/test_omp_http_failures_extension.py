"""acp-mux's omp extension (``adapters/acp_agents/omp_extension/http_failures.ts``) run for real on omp's runtime (bun).

The extension replaces omp's global ``fetch`` with an observer, inside omp's process, so what it must never do is
checked as an attacker would try it: whatever the request and the answer, the caller gets exactly what the real
``fetch`` gave (the same status and body, or the same error); only a streaming model request answered with a status
omp's HTTP layer retries (5xx, 408, 429) is logged, once, as the status and the provider's first message line; no
key in a request header, the URL, the request body or a response header ever reaches that line.
"""

from __future__ import annotations

import json
import secrets
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_mux.adapters.acp_agents import omp_retries
from acp_mux.adapters.acp_agents.omp import HTTP_FAILURES
from tests.e2e.harness import require_cli
from tests.e2e import clis

RETRIED = {408, 429, 500, 502, 503, 529}
STATUSES = sorted(RETRIED | {200, 201, 400, 401, 403, 404})

HARNESS = """
import install from %s;
const cases = JSON.parse(await Bun.stdin.text());
const out = [];
for (const c of cases) {
  const logged = [];
  const pi = { logger: { warn: (message, context) => logged.push([message, context]) } };
  globalThis.fetch = async (input, init) => {
    if (c.aborted) throw init.signal.reason;  // omp's cancel: the request aborted with omp's own reason
    if (c.fails) throw new Error("connect ECONNREFUSED " + c.url);
    return new Response(c.body, { status: c.status, headers: c.responseHeaders });
  };
  install(pi);
  if (c.twice) install(pi);
  const init = { method: c.method, headers: c.requestHeaders, body: c.requestBody };
  if (c.aborted) {
    const controller = new AbortController();
    controller.abort(new Error("Interrupted by user"));
    init.signal = controller.signal;
  }
  let result;
  try {
    const response = await fetch(c.url, init);
    result = { status: response.status, body: await response.text() };
  } catch (error) {
    result = { error: String(error?.message ?? error) };
  }
  await new Promise((resolve) => setTimeout(resolve, 2));
  out.push({ result, logged });
}
console.log(JSON.stringify(out));
"""


def bun() -> Path:
    """omp's own runtime, from the pinned install (skips, or fails under CI, like every real-CLI test)."""
    require_cli("omp")
    runtime = clis.runtime_bin_dir("omp")
    if runtime is None or not (runtime / "bun").is_file():
        pytest.skip("bun (omp's runtime) is not installed")
    return runtime / "bun"


def run_cases(cases: list[dict[str, Any]], folder: Path) -> list[dict[str, Any]]:
    """Each case through the extension in one bun process: what the caller got and what was logged."""
    script = folder / "harness.ts"
    script.write_text(HARNESS % json.dumps(str(HTTP_FAILURES)))
    done = subprocess.run(
        [str(bun()), str(script)], input=json.dumps(cases), capture_output=True, text=True, timeout=60, cwd=folder
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result: list[dict[str, Any]] = json.loads(done.stdout.strip().split("\n")[-1])  # not splitlines: U+0085
    return result


@st.composite
def case(draw: st.DrawFn) -> dict[str, Any]:
    """A request with keys everywhere a key can travel, and an answer an attacker or a provider wrote."""
    key = "KEY" + secrets.token_hex(12)
    message = draw(st.text(max_size=300))
    body = draw(
        st.one_of(
            st.text(max_size=500),
            st.builds(lambda m: json.dumps({"error": {"message": m, "type": "server_error"}}), st.just(message)),
            st.builds(lambda m: json.dumps({"message": m}), st.just(message)),
        )
    )
    stream = draw(st.sampled_from(["accept", "body", "neither"]))
    headers = {"Authorization": f"Bearer {key}", "x-api-key": key, "Content-Type": "application/json"}
    if stream == "accept":
        headers["Accept"] = "text/event-stream"
    request = {"model": "m", "api_key": key, **({"stream": True} if stream == "body" else {})}
    return {
        "key": key,
        "stream": stream != "neither",
        "method": draw(st.sampled_from(["POST", "GET", "post"])),
        "url": f"http://127.0.0.1:9/v1/chat/completions?key={key}",
        "requestHeaders": headers,
        "requestBody": json.dumps(request),
        "status": draw(st.sampled_from(STATUSES)),
        "body": body,
        "responseHeaders": {"x-echo": key, "retry-after": draw(st.sampled_from(["", "0", "3"]))},
        "fails": draw(st.booleans()) and draw(st.booleans()),
        "aborted": draw(st.booleans()) and draw(st.booleans()),
        "twice": draw(st.booleans()),
    }


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(cases=st.lists(case(), min_size=1, max_size=25))
@pytest.mark.e2e  # runs the extension on omp's own bun runtime, from the pinned install
def test_the_caller_gets_what_fetch_gave_and_only_retried_model_answers_are_logged_without_keys(
    cases: list[dict[str, Any]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    results = run_cases(cases, tmp_path_factory.mktemp("omp-ext"))
    assert len(results) == len(cases)
    for sent, got in zip(cases, results):
        model = sent["method"].upper() == "POST" and sent["stream"]
        if sent["aborted"]:  # the caller's cancel, with any reason: the same error for it, and no failure logged
            assert got["result"] == {"error": "Interrupted by user"} and got["logged"] == [], (sent, got)
            continue
        if sent["fails"]:  # no answer at all: the same error for the caller; a model request's is logged, keyless
            assert got["result"] == {"error": f"connect ECONNREFUSED {sent['url']}"}
            if not model:
                assert got["logged"] == [], (sent, got)
                continue
            ((message, context),) = got["logged"]
            assert message == omp_retries.FAILED_CONNECT and set(context) == {"httpReason"}
            assert context["httpReason"] == "connect ECONNREFUSED <url>" and sent["key"] not in str(context)
            continue
        assert got["result"] == {"status": sent["status"], "body": sent["body"]}  # untouched, body still readable
        if not (model and sent["status"] in RETRIED):
            assert got["logged"] == [], (sent, got)
            continue
        ((message, context),) = got["logged"]  # once, also when installed twice
        assert message == omp_retries.FAILED_ANSWER and set(context) == {"httpStatus", "httpReason"}
        assert context["httpStatus"] == sent["status"]
        reason = context["httpReason"]
        assert len(reason) <= omp_retries.MAX_REASON and "\n" not in reason and sent["key"] not in reason


@pytest.mark.e2e  # runs the extension on omp's own bun runtime, from the pinned install
def test_the_providers_message_is_its_first_line(tmp_path: Path) -> None:
    base = {
        "method": "POST",
        "url": "http://127.0.0.1:9/v1",
        "requestHeaders": {"Accept": "text/event-stream"},
        "requestBody": "{}",
        "status": 500,
        "responseHeaders": {},
        "fails": False,
        "twice": False,
    }
    bodies = [
        json.dumps({"error": {"message": "The server had an error (fake).\nsecond line"}}),
        "\n\n<html>Bad gateway</html>\nmore",
        json.dumps({"message": "overloaded"}),
        "",
    ]
    results = run_cases([{**base, "body": b} for b in bodies], tmp_path)
    assert [r["logged"][0][1]["httpReason"] for r in results] == [
        "The server had an error (fake).",
        "<html>Bad gateway</html>",
        "overloaded",
        "",
    ]
