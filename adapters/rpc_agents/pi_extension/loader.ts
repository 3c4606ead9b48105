/**
 * The file acp-mux passes to `pi -e`: it loads the permission gate (`permissions.ts`, or the file named by
 * ACP_MUX_PI_GATE) and never fails itself.
 *
 * pi exits when an extension given with -e cannot load. A gate that fails to load (a pi whose extension API
 * changed, a broken override) must not take pi down with it: the error is caught here and reported as the command
 * `acp-mux-permissions-failed`, whose description is the reason. acp-mux reads pi's commands at start, and then
 * tells the person that pi does not ask, instead of pretending it does.
 */

export default async function (pi: any) {
  const gate = process.env.ACP_MUX_PI_GATE || "./permissions.ts";
  try {
    const mod: any = await import(gate);
    const setUp = mod?.default ?? mod;
    if (typeof setUp !== "function") throw new Error(`${gate} exports no extension function`);
    await setUp(pi);
  } catch (error: any) {
    const reason = String(error?.message ?? error).split("\n")[0].slice(0, 300);
    pi.registerCommand("acp-mux-permissions-failed", { description: reason, handler: async () => {} });
  }
}
