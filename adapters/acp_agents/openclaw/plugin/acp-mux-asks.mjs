/**
 * acp-mux's permission gate for OpenClaw (loaded into acp-mux's private gateway through `plugins.load.paths`).
 *
 * OpenClaw asks a human only for exec (its exec approvals, which `openclaw acp` relays to the editor); its file
 * tools (write, edit, apply_patch, ...) just run, and the plugin approvals a `before_tool_call` hook can request
 * are not relayed by `openclaw acp` (2026.9.6 relays `exec.approval.*` only). So this hook asks acp-mux itself:
 * before every tool that is neither known to be read-only nor exec (exec asks through OpenClaw's own approvals), it
 * connects to the Unix socket acp-mux's relay opened for this session (named in
 * `$OPENCLAW_STATE_DIR/acp-mux-asks/<hash of the session id that ends the gateway's session key>`), sends one line
 * {sessionKey, toolCallId, toolName, params, derivedPaths} and waits for {"allow": true|false}. The relay turns it
 * into an ordinary ACP `session/request_permission`, so the editor sees the same question as for every agent.
 *
 * It fails closed: no socket for the session, a broken connection, an answer that is not exactly
 * {"allow": true}: the call is blocked and the model is told why. It never decides anything itself.
 *
 * On the side it logs each model call's run id and session key (`nameModelCall`), so acp-mux can tell which
 * session a model request nobody answered belongs to (OpenClaw's own line names only the run).
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";

const READ_ONLY = new Set([
  "read", "ls", "find", "grep", "glob", "search", "web_search", "web_fetch", "memory_search", "memory_get",
  "session_status", "sessions_list", "sessions_history", "agents_list", "image", "pdf",
]);
const OWN_APPROVALS = new Set(["exec"]); // OpenClaw's exec approvals ask for these (tools.exec.mode: ask)
const REJECTED = "The user rejected this action.";
// OpenClaw gives a before_tool_call handler 15 s by default and then blocks the call (fail-closed): a person reading
// the dialog takes longer. Six hours; past that the call is blocked, never run.
const ASK_TIMEOUT_MS = 6 * 3600 * 1000;

// Where acp-mux listens for this session: its relay names the socket in a registration file ("@name": a Linux
// abstract socket; else a socket file's path). See asks.py.
function socketFor(sessionKey) {
  const state = process.env.OPENCLAW_STATE_DIR;
  if (!state || typeof sessionKey !== "string" || !sessionKey) return undefined;
  const session = sessionKey.slice(sessionKey.lastIndexOf(":") + 1);
  const name = createHash("sha256").update(session).digest("hex").slice(0, 32);
  let address;
  try { address = readFileSync(join(state, "acp-mux-asks", name), "utf8").trim(); } catch { return undefined; }
  if (!address) return undefined;
  return address.startsWith("@") ? "\0" + address.slice(1) : address;
}

// Tell acp-mux the gate is in place: `gate.<pid>` in the asks folder, one per process that loaded it (the gateway,
// and any worker of it that loads plugins). A bridge that finds none naming a live process refuses to run a turn
// (the person's config may have kept the gate out).
function markLoaded() {
  const state = process.env.OPENCLAW_STATE_DIR;
  if (!state) return;
  try {
    const dir = join(state, "acp-mux-asks");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, `gate.${process.pid}`), String(process.pid), { mode: 0o600 });
  } catch {
    // acp-mux then finds no gate and refuses to run a turn: nothing runs unasked
  }
}

function ask(path, question, signal) {
  return new Promise((resolve) => {
    let buffer = "";
    let settled = false;
    const done = (answer) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener?.("abort", onAbort);
      socket.destroy();
      resolve(answer);
    };
    const onAbort = () => done({ allow: false, reason: "cancelled" });
    const socket = connect(path);
    signal?.addEventListener?.("abort", onAbort);
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(JSON.stringify(question) + "\n"));
    socket.on("data", (chunk) => {
      buffer += chunk;
      const end = buffer.indexOf("\n");
      if (end < 0) return;
      let answer;
      try { answer = JSON.parse(buffer.slice(0, end)); } catch { answer = undefined; }
      done({ allow: answer?.allow === true, reason: typeof answer?.reason === "string" ? answer.reason : undefined });
    });
    socket.on("error", () => done({ allow: false, reason: "unreachable" }));
    socket.on("close", () => done({ allow: false, reason: "unreachable" }));
  });
}

// Name each model call's session in the gateway's log. OpenClaw logs a model request nobody answered ("embedded run
// agent end: runId=… error=LLM request failed: connection refused …") by its run only; this line lets acp-mux tell
// whether that run is the prompt it has in flight or another session's (refusals.py). Ids only, no content.
const SAFE_ID = /^[\w.:@-]{1,200}$/;
function nameModelCall(api, event, ctx) {
  const runId = event?.runId ?? ctx?.runId;
  const sessionKey = event?.sessionKey ?? ctx?.sessionKey;
  if (typeof runId === "string" && SAFE_ID.test(runId) && typeof sessionKey === "string" && SAFE_ID.test(sessionKey))
    api.logger?.info?.(`acp-mux-asks: model call runId=${runId} sessionKey=${sessionKey}`);
}

export default {
  id: "acp-mux-asks",
  name: "acp-mux permission gate",
  description: "Asks the person in the editor (through acp-mux) before a tool changes files.",
  register(api) {
    api.logger?.info?.("acp-mux-asks: file-changing tools ask the editor through acp-mux");
    markLoaded();
    api.on("model_call_started", (event, ctx) => nameModelCall(api, event, ctx));
    api.on("before_tool_call", async (event, ctx) => {
      const tool = String(event?.toolName ?? "");
      if (READ_ONLY.has(tool) || OWN_APPROVALS.has(tool)) return undefined;
      const path = socketFor(ctx?.sessionKey);
      if (!path) return { block: true, blockReason: "acp-mux: no one can be asked for permission in this session." };
      const answer = await ask(path, {
        sessionKey: ctx.sessionKey,
        toolCallId: event.toolCallId ?? ctx.toolCallId ?? null,
        toolName: tool,
        params: event.params ?? {},
        derivedPaths: Array.isArray(event.derivedPaths) ? event.derivedPaths : [],
      }, ctx?.abortSignal);
      if (answer.allow) return undefined;
      if (answer.reason === "unreachable")
        return { block: true, blockReason: "acp-mux: the editor could not be asked for permission; nothing was changed." };
      return { block: true, blockReason: answer.reason === "cancelled" ? "Cancelled." : REJECTED };
    }, { timeoutMs: ASK_TIMEOUT_MS });
  },
};
