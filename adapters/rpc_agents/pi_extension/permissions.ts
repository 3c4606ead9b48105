/**
 * acp-mux permission gate for pi (https://github.com/badlogic/pi-mono), shipped with acp-mux.
 *
 * pi has no permission system: its tools just run. acp-mux starts `pi --mode rpc -e <this file>`, and this
 * extension asks before every tool that may change something (write, edit, bash, and any tool it does not know
 * to be read-only) through pi's extension UI protocol: `ctx.ui.confirm()` becomes an `extension_ui_request`
 * (method "confirm") on pi's stdout, which acp-mux turns into the editor's permission dialog and answers with an
 * `extension_ui_response` ({confirmed: true|false}). A "no" (or a dismissed dialog) blocks the call, and pi tells
 * the model it was blocked.
 *
 * The question's title is the marker below; its message is JSON ({toolCallId, toolName, input}) so acp-mux
 * knows which tool call it is about. The command registered here, last, lets acp-mux see (through
 * `get_commands`) that the gate is in place; acp-mux hides it from the editor. `loader.ts` loads this file.
 */

const MARKER = "acp-mux:permission";
const READ_ONLY = new Set(["read", "grep", "find", "ls"]);

export default function (pi: any) {
  pi.registerCommand("acp-mux-permissions", {
    description: "acp-mux asks the editor before pi changes files or runs commands",
    handler: async () => {},
  });

  pi.on("tool_call", async (event: any, ctx: any) => {
    if (READ_ONLY.has(event.toolName)) return undefined;
    if (!ctx.hasUI) return { block: true, reason: "acp-mux: no one can be asked for permission" };
    const question = JSON.stringify({ toolCallId: event.toolCallId, toolName: event.toolName, input: event.input });
    const allowed = await ctx.ui.confirm(MARKER, question);
    if (!allowed) return { block: true, reason: "The user rejected this action." };
    return undefined;
  });
}
