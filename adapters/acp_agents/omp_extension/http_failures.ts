/**
 * The file acp-mux passes to `omp -e`: it writes each failed model answer that omp's HTTP layer will retry into
 * omp's own log file, so the bridge (which follows that file) can tell the person within seconds.
 *
 * Why: omp 18.2.3 retries a model request that answered 5xx/408/429 inside `fetchWithRetry` (pi-utils
 * src/fetch-retry.ts: up to 6 requests per stream attempt, 0.5, 1, 2, 4, 8 s apart) and logs nothing of it; only
 * a whole failed turn attempt reaches its log, ~16-30 s after the first failed answer. `fetchWithRetry` calls the
 * global `fetch` on every attempt, so observing that function sees each answer.
 *
 * What it changes: nothing of omp's behaviour. The same function is called with the same arguments, its answer
 * (or its error) is handed back unchanged and at once; only a copy of a failed answer's body is read, as
 * `fetchWithRetry` itself does. What it writes: the status and the provider's first message line (at most 300
 * characters), never a header, URL or request body (which carry keys). Anything going wrong here is swallowed:
 * omp must run as it would without acp-mux.
 *
 * A model request that gets no answer at all (nothing listens at the model's address, the name does not resolve)
 * is written too, as `LOG_UNREACHABLE` with the error's code and first message line (URLs in it replaced): omp
 * retries those for ~30 s in silence, and then ends the turn as a refusal, with the error as its text.
 */

export const LOG_MESSAGE = "acp-mux: model answered with a retryable HTTP error";
export const LOG_UNREACHABLE = "acp-mux: model request got no answer";
const MAX_REASON = 300;
const MARK = Symbol.for("acp-mux.omp.http-failures");

/** omp's own test of a status its HTTP layer retries (pi-utils `isRetryableStatus`). */
function retryable(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** A streaming model request (every provider of omp asks for an event stream, or says `"stream": true`). */
function modelRequest(input: unknown, init: any): boolean {
  try {
    const method = String(init?.method ?? (input as any)?.method ?? "GET").toUpperCase();
    if (method !== "POST") return false;
    const headers = new Headers(init?.headers ?? (input as any)?.headers ?? undefined);
    if ((headers.get("accept") ?? "").includes("text/event-stream")) return true;
    return typeof init?.body === "string" && /"stream"\s*:\s*true/.test(init.body);
  } catch {
    return false;
  }
}

/** The provider's message: `error.message` (or `message`) of a JSON body, else its first non-empty line. */
export function reasonOf(body: string): string {
  let text = "";
  try {
    const parsed: any = JSON.parse(body);
    const found = parsed?.error?.message ?? parsed?.message ?? (typeof parsed?.error === "string" ? parsed.error : "");
    text = typeof found === "string" ? found : "";
  } catch {
    text = "";
  }
  if (!text) text = body.split("\n").find((line) => line.trim() !== "") ?? "";
  return text.trim().split("\n")[0]!.trim().slice(0, MAX_REASON);
}

/** Whether the caller aborted the request: its signal says so whatever the error is (omp aborts a cancelled
 * turn's request with its own reason, "Interrupted by user", which is no `AbortError`). */
export function aborted(input: unknown, init: any): boolean {
  try {
    return Boolean(init?.signal?.aborted || (input as any)?.signal?.aborted);
  } catch {
    return false;
  }
}

/** Why a request got no answer: the error's code and first message line, any URL in it (which may carry a key)
 * replaced; empty for a request the caller aborted (a cancel is no failure). */
export function unreachableReason(error: any, wasAborted = false): string {
  const name = String(error?.name ?? "");
  if (wasAborted || name === "AbortError") return "";
  const code = typeof error?.code === "string" ? error.code : "";
  const message = String(error?.message ?? error ?? "").split("\n")[0]!.trim();
  const text = code && !message.includes(code) ? `${code}: ${message}` : message || code || "no answer";
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/\S*/gi, "<url>").slice(0, MAX_REASON);
}

export default function (pi: any): void {
  try {
    const log = pi?.logger;
    const original: any = globalThis.fetch;
    if (typeof original !== "function" || typeof log?.warn !== "function" || original[MARK]) return;
    const report = (response: Response): void => {
      response.text().then(
        (body) => log.warn(LOG_MESSAGE, { httpStatus: response.status, httpReason: reasonOf(body) }),
        () => log.warn(LOG_MESSAGE, { httpStatus: response.status, httpReason: "" }),
      );
    };
    const observed = new Proxy(original, {
      apply(target, self, args) {
        const answer = Reflect.apply(target, self, args);
        try {
          if (modelRequest(args[0], args[1])) {
            Promise.resolve(answer).then(
              (response: any) => {
                try {
                  if (response && retryable(response.status)) report(response.clone());
                } catch {
                  // never in omp's way
                }
              },
              (error: any) => {
                try {
                  const reason = unreachableReason(error, aborted(args[0], args[1]));
                  if (reason) log.warn(LOG_UNREACHABLE, { httpReason: reason });
                } catch {
                  // never in omp's way
                }
              },
            );
          }
        } catch {
          // never in omp's way
        }
        return answer;
      },
      get(target, key, receiver) {
        return key === MARK ? true : Reflect.get(target, key, receiver);
      },
    });
    globalThis.fetch = observed;
  } catch {
    // never in omp's way
  }
}
