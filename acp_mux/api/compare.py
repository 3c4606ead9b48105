"""Several agents on one task: the same prompt to two to four agents side by side, each in its own copy of the
folder, then a table to compare them and the chosen one's change brought back (``acp_mux.compare``).

Why here, on :class:`~acp_mux.api.session.Run`: each candidate is an ordinary conversation with one agent — the
same typed events, permission rules, typed errors and process-group stops as any run — only its folder is a private
copy (:mod:`acp_mux.server.branches.compare_copies`). What the comparison adds is the copies, the interleaved stream, the
measures (stop reason, wall time, tokens and cost, files and lines changed, an optional check command's exit
status in each copy, an optional judge's reading of the diffs) and the way back.

Permissions stay one policy: a candidate's commands and fetches are decided by the caller's ``approvals`` exactly
as in a single run (they run on this machine), while its file changes inside its own copy are allowed by the
comparison itself — they touch nothing of the person's until :meth:`Comparison.apply`, and the person sees every
candidate's whole diff before choosing. A change outside the copy asks like anything else; a deny rule still beats
it (rules are decided before the comparison's own allowance).

Leaving the ``async with`` block — normally, by an exception or a cancellation — stops every candidate's process
group and removes every copy.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import time
from collections import deque
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from acp_mux.api.approvals import Answer, ApprovalRequest, Approvals, callback_answer, deny
from acp_mux.api.session import Run, TurnResult
from acp_mux.core.events.errors import AgentMuxError
from acp_mux.core.events.codes import ErrorCode
from acp_mux.core.run.interaction import Approve, Deny
from acp_mux.core.files.paths import state_dir as default_state_dir
from acp_mux.core.process.spawn import ExitStatus, SpawnSpec, spawn
from acp_mux.server.branches import compare_copies
from acp_mux.server.branches.compare_copies import Changes, CompareFolder, Copy

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent

MIN_AGENTS, MAX_AGENTS = 2, 4
CHECK_TIMEOUT_S = 600.0  # a check command that runs longer is stopped and counts as failed
CHECK_OUTPUT_CHARS = 2000  # the tail of the check's output kept per candidate
CHECK_LINES_PER_READ = 256
JUDGE_TIME_LIMIT_S = 600.0  # a judge that has not answered by then is given up (its process group stopped)
_EDIT_KINDS = frozenset({"edit", "delete", "move"})


@dataclass
class Candidate:
    """One agent's attempt: how it ended and what it changed. ``status``: ``running``, ``done`` (its turn ended,
    whatever the stop reason), ``failed`` (it could not start, or its turn failed: ``reason`` says why)."""

    agent: str
    copy: Copy | None = None
    status: str = "running"
    reason: str | None = None
    result: TurnResult | None = None
    seconds: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    changes: Changes | None = None
    check_status: int | None = None
    check_output: str = ""
    run: Run | None = field(default=None, repr=False)

    @property
    def stop_reason(self) -> str:
        return self.result.stop_reason if self.result is not None else "error"


class Comparison:
    """Use as ``async with acp_mux.compare(["claude", "codex"], "fix the test") as comparison:``; iterate it for
    ``(agent, event)`` pairs as the candidates work, :meth:`wait` for the candidates once all have ended,
    :meth:`table` for the comparison, :meth:`apply` to bring one candidate's change into the folder."""

    def __init__(
        self,
        agents: Sequence[str],
        prompt: str,
        *,
        cwd: str | os.PathLike[str] | None = None,
        approvals: Approvals | None = None,
        check: str | None = None,
        judge: str | None = None,
        models: dict[str, str] | None = None,
        modes: dict[str, str] | None = None,
        env: dict[str, str] | None = None,
        state_dir: str | os.PathLike[str] | None = None,
        max_bytes: int | None = None,
        time_limit: float | None = None,
    ) -> None:
        """``agents``: two to four distinct agent names; ``check``: a shell command run in each copy once its
        candidate has ended (``pytest -q``), its exit status in the table; ``judge``: one more agent that reads the
        diffs and recommends one (it runs in an empty folder of its own and may change nothing); ``models`` /
        ``modes``: per agent; ``max_bytes``: the copy size cap (default ``ACP_MUX_COMPARE_MAX_BYTES`` or 512 MiB).
        Raises :class:`~acp_mux.AgentMuxError` for a wrong list of agents."""
        names = list(agents)
        if not MIN_AGENTS <= len(names) <= MAX_AGENTS or len(set(names)) != len(names):
            raise AgentMuxError(
                ErrorCode.INVALID_STATE_TRANSITION,
                f"a comparison takes {MIN_AGENTS} to {MAX_AGENTS} different agents, not {names}",
            )
        self.prompt = prompt
        self.cwd = Path(cwd if cwd is not None else os.getcwd()).expanduser().resolve()
        self.check = check
        self.judge = judge
        self.recommendation: str | None = None
        self.candidates = [Candidate(name) for name in names]
        self._policy = approvals if approvals is not None else deny()
        self._models, self._modes = dict(models or {}), dict(modes or {})
        self._env = env
        self._state_dir = Path(state_dir) if state_dir is not None else default_state_dir()
        self._cap = max_bytes if max_bytes is not None else compare_copies.max_bytes(env)
        self._time_limit = time_limit
        self._folder: CompareFolder | None = None
        self._queue: asyncio.Queue[tuple[str, BaseEvent] | None] = asyncio.Queue()
        self._readers: list[asyncio.Task[None]] = []
        self._ended = 0  # candidates whose end marker the stream has read
        # seconds the comparison itself spent: making the copies, reading the changes, applying the chosen one
        self.timings: dict[str, float] = {}
        self._finished = False

    # ── lifetime ───────────────────────────────────────────────────────────────────────────────────────────────
    async def __aenter__(self) -> Comparison:
        try:
            await self._start()
        except BaseException:
            await self.close()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _start(self) -> None:
        for candidate in self.candidates:  # each usable here, as session/new checks it, before anything is copied
            Run._adapter_for(candidate.agent, None, None, self._env)
        await asyncio.to_thread(compare_copies.sweep_orphans, self._state_dir)
        folder = self._folder = compare_copies.new_compare_folder(self._state_dir, _new_id())
        started = time.monotonic()
        made = await asyncio.gather(  # side by side: git's work and the file copies overlap
            *(
                asyncio.to_thread(compare_copies.make_copy, self.cwd, folder.path / c.agent, cap=self._cap)
                for c in self.candidates
            ),
            return_exceptions=True,
        )
        self.timings["copies"] = time.monotonic() - started
        for candidate, copy in zip(self.candidates, made):
            if isinstance(copy, compare_copies.CompareError):  # too large, no git: the same for every candidate
                raise AgentMuxError(ErrorCode.SPAWN_ERROR, str(copy)) from copy
            if isinstance(copy, BaseException):
                raise copy
            candidate.copy = copy
        for candidate in self.candidates:
            self._readers.append(asyncio.ensure_future(self._work(candidate)))

    async def close(self) -> None:
        """Stop every candidate (its whole process group) and remove every copy; safe to call twice."""
        for reader in self._readers:
            reader.cancel()
        for candidate in self.candidates:
            if candidate.run is not None:
                await candidate.run.close()
        await asyncio.gather(*self._readers, return_exceptions=True)
        if self._folder is not None:
            await asyncio.to_thread(self._folder.remove)
            self._folder = None

    async def cancel(self) -> None:
        """Cancel every candidate's turn at once; each then ends ``cancelled``."""
        await asyncio.gather(*(c.run.cancel() for c in self.candidates if c.run is not None), return_exceptions=True)

    # ── the stream ─────────────────────────────────────────────────────────────────────────────────────────────
    def __aiter__(self) -> AsyncIterator[tuple[str, BaseEvent]]:
        return self._stream()

    async def _stream(self) -> AsyncIterator[tuple[str, BaseEvent]]:
        """The events not yet read, as they come; ends once every candidate has ended (at once when iterated again
        after that)."""
        while self._ended < len(self._readers):
            item = await self._queue.get()
            if item is None:
                self._ended += 1
                continue
            yield item

    async def _work(self, candidate: Candidate) -> None:
        """Run one candidate to the end of its turn, passing its events on; a failure marks it, never the others."""
        started = time.monotonic()
        assert candidate.copy is not None
        try:
            run = candidate.run = Run(
                candidate.agent,
                None,
                cwd=candidate.copy.cwd,
                model=self._models.get(candidate.agent),
                mode=self._modes.get(candidate.agent),
                approvals=self._candidate_policy(candidate.agent, candidate.copy),
                env=self._env,
                state_dir=self._folder.path / ".sessions" if self._folder is not None else None,
                time_limit=self._time_limit,
            )
            await run.__aenter__()
            await run.continue_(self.prompt)
            async for event in run:
                self._count(candidate, event)
                self._queue.put_nowait((candidate.agent, event))
            candidate.result = run.result
            if candidate.result is not None and candidate.result.error is not None:
                candidate.status, candidate.reason = "failed", candidate.result.error.message
            else:
                candidate.status = "done"
        except AgentMuxError as exc:
            candidate.status, candidate.reason = "failed", exc.message
        except Exception as exc:  # one candidate's fault is its own: the others go on
            candidate.status, candidate.reason = "failed", f"{type(exc).__name__}: {exc}"
        finally:
            candidate.seconds = time.monotonic() - started
            self._queue.put_nowait(None)

    @staticmethod
    def _count(candidate: Candidate, event: BaseEvent) -> None:
        if event.type == "token_usage":
            candidate.input_tokens += getattr(event, "input_tokens", 0) or 0
            candidate.output_tokens += getattr(event, "output_tokens", 0) or 0
        elif event.type == "cost":
            record = getattr(event, "cost", None)
            total = getattr(record, "total_usd", None)
            if isinstance(total, (int, float)) and total > 0:
                candidate.cost_usd = float(total)

    def _candidate_policy(self, agent: str, copy: Copy) -> Approvals:
        """The caller's rules and callback, with one addition: a change to files inside the candidate's own copy
        is allowed (the person reviews the whole diff before anything reaches their folder)."""
        person = self._policy
        root = str(copy.root)

        async def decide(request: ApprovalRequest) -> Answer:
            scope = request.scope
            if request.kind in _EDIT_KINDS and scope is not None and scope.paths:
                if all(_within(path, root) for path in scope.paths):
                    return Approve()
            if person.callback is None:
                return Deny(reason="No rule allows this and nobody was asked (acp-mux comparison).")
            # the person is asked about one of several agents: the title says which
            return await callback_answer(
                person.callback, dataclasses.replace(request, title=f"[{agent}] {request.title}")
            )

        return Approvals(person.allow_rules, person.deny_rules, decide)

    # ── the comparison ─────────────────────────────────────────────────────────────────────────────────────────
    async def wait(self) -> list[Candidate]:
        """Read every candidate to its end; then measure each copy's change, run the check in each, and ask the
        judge (when named). The candidates, in the order they were given."""
        async for _pair in self:
            pass
        await asyncio.gather(*self._readers, return_exceptions=True)
        if not self._finished:
            self._finished = True
            started = time.monotonic()
            for candidate in self.candidates:
                if candidate.copy is not None:
                    candidate.changes = await asyncio.to_thread(compare_copies.changes, candidate.copy)
            self.timings["changes"] = time.monotonic() - started
            for candidate in self.candidates:
                if candidate.copy is not None and self.check:
                    await self._run_check(candidate)
            if self.judge:
                self.recommendation = await self._ask_judge()
        return self.candidates

    async def _run_check(self, candidate: Candidate) -> None:
        """The check command in the candidate's copy, started as every agent is (:func:`spawn`: its own group under
        a supervisor whose lifeline is this process), so it and whatever it starts, also what leaves its group, end
        with the run, a timeout, or acp-mux killed outright."""
        assert candidate.copy is not None
        script = "exec 2>&1 </dev/null\n" + (self.check or "")  # one stream, in order, as a terminal shows it
        proc = await spawn(SpawnSpec("/bin/sh", ["-c", script], env=self._env, cwd=str(candidate.copy.cwd)))
        output: deque[str] = deque()
        kept = 0

        async def read() -> ExitStatus:
            nonlocal kept
            async for batch in proc.line_batches(CHECK_LINES_PER_READ):
                for line in batch:
                    output.append(line)
                    kept += len(line) + 1
                    while kept - len(output[0]) - 1 >= CHECK_OUTPUT_CHARS:
                        kept -= len(output.popleft()) + 1
            return await proc.wait()

        try:
            status = await asyncio.wait_for(read(), CHECK_TIMEOUT_S)
        except TimeoutError:
            candidate.check_status, candidate.check_output = -1, f"stopped after {CHECK_TIMEOUT_S:.0f} s"
            return
        finally:
            await proc.terminate(0)  # whatever the check left running (its supervisor's sweep)
        candidate.check_status = status.code if status.code is not None else -1
        candidate.check_output = "".join(line + "\n" for line in output)[-CHECK_OUTPUT_CHARS:]

    async def _ask_judge(self) -> str:
        """One more agent reads the diffs and recommends one; it works in an empty folder and is allowed nothing."""
        assert self._folder is not None and self.judge is not None
        scratch = self._folder.path / ".judge"
        scratch.mkdir(mode=0o700, exist_ok=True)
        try:
            async with Run(
                self.judge,
                self._judge_prompt(),
                cwd=scratch,
                approvals=deny(),
                env=self._env,
                state_dir=self._folder.path / ".sessions",
                time_limit=self._time_limit or JUDGE_TIME_LIMIT_S,
            ) as judge:
                result = await judge.wait()
        except AgentMuxError as exc:
            return f"The judge ({self.judge}) could not run: {exc.message}"
        if result.error is not None:
            return f"The judge ({self.judge}) failed: {result.error.message}"
        return result.text.strip()

    def _judge_prompt(self) -> str:
        parts = [
            (
                "Several coding agents were given the same task. Read each one's diff and recommend one, with your "
                "reasons, in a few sentences. Change nothing."
            ),
            f"The task:\n{self.prompt}",
        ]
        for candidate in self.candidates:
            diff = candidate.changes.diff if candidate.changes is not None else ""
            parts.append(f"## {candidate.agent} ({candidate.status}, {candidate.stop_reason})\n```diff\n{diff}\n```")
        return "\n\n".join(parts)

    def table(self) -> str:
        """The comparison as a Markdown table, one row per candidate."""
        head = ["agent", "result", "time", "tokens in/out", "cost", "files", "lines +/-"]
        if self.check:
            head.append(f"`{self.check}`")
        rows = [head, ["---"] * len(head)]
        for c in self.candidates:
            changes = c.changes
            row = [
                c.agent,
                c.stop_reason if c.status != "failed" else f"failed: {c.reason}",
                f"{c.seconds:.1f} s",
                f"{c.input_tokens}/{c.output_tokens}" if c.input_tokens or c.output_tokens else "–",
                f"${c.cost_usd:.4f}" if c.cost_usd is not None else "–",
                str(len(changes.files)) if changes is not None else "–",
                f"+{changes.lines_added}/-{changes.lines_removed}" if changes is not None else "–",
            ]
            if self.check:
                row.append("–" if c.check_status is None else ("passed" if c.check_status == 0 else "failed"))
            rows.append(row)
        return "\n".join("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows)

    async def apply(self, agent: str) -> list[str]:
        """Bring ``agent``'s change into the folder the comparison started from, merged with whatever changed
        there meanwhile; the paths written. Raises :class:`~acp_mux.server.branches.compare_copies.ApplyConflict` (nothing
        written) when a file changed on both sides and does not merge."""
        candidate = next((c for c in self.candidates if c.agent == agent), None)
        if candidate is None or candidate.copy is None:
            raise AgentMuxError(ErrorCode.INVALID_STATE_TRANSITION, f"{agent!r} is not a candidate of this comparison")
        if not self._finished:
            await self.wait()
        found = candidate.changes or Changes((), "")
        started = time.monotonic()
        try:
            return await asyncio.to_thread(compare_copies.apply_changes, found, candidate.copy.source_root)
        finally:
            self.timings["apply"] = time.monotonic() - started


compare = Comparison
"""``acp_mux.compare(agents, prompt, ...)``: a :class:`Comparison` (the class itself, so its signature is the API's)."""


def _within(path: str, root: str) -> bool:
    real = os.path.realpath(path)
    return real == root or real.startswith(os.path.realpath(root) + os.sep)


def _new_id() -> str:
    from ulid import ULID

    return str(ULID()).lower()
