"""JSON-RPC 2.0 over newline-delimited stdio, both directions, with no third-party imports.

Why not the SDK's server side: importing ``acp`` costs ~0.7 s before ``initialize`` can be answered, and its
router has traps this bridge must not have (``_meta`` keys splatted over params, no response when a handler is
cancelled, a non-object line killing the connection, O_NONBLOCK on inherited fds). This module writes with a
thread on the real fd, so the event loop never blocks and nothing else can write to the protocol stream:
:func:`protect_stdout` moves fd 1 aside and points it at stderr for everything else in the process. A small message
the client's pipe or socket has room for right now is written by the loop itself (:class:`DirectWrite`): no thread
wake-up per streamed chunk, and still no write that can block. Input from a pipe or socket is read by the loop as
it becomes readable (a read then returns at once); from anything else (a terminal, a file) by a thread.
Tests drive the server with the SDK's *client* side, which validates every message shape we send.
"""

from __future__ import annotations

import asyncio
import logging
import os
import queue
import select
import stat
import sys
import threading
from collections.abc import Mapping
from typing import Any, Awaitable, Callable

from acp_mux.core.text import safe as safe_json
from acp_mux.core.process.lines import LineSplitter
from acp_mux.core.text.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    RESOURCE_NOT_FOUND,
    classify,
    response_error,
)

log = logging.getLogger(__name__)

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "RESOURCE_NOT_FOUND",
    "AfterResponse",
    "Connection",
    "RpcError",
    "protect_stdout",
]

Handler = Callable[[dict[str, Any]], Awaitable[Any]]
NotificationHandler = Callable[[dict[str, Any]], Awaitable[None]]
# What ``$/cancel_request`` does to a running request of one method instead of cancelling its handler (given the
# request's params): session/prompt ends its turn as session/cancel does, so the answer is a stop reason.
CancelHook = Callable[[dict[str, Any]], Awaitable[None]]
CANCEL_REQUEST = "$/cancel_request"
REQUEST_CANCELLED = -32800  # the schema's ErrorCode "Request cancelled"


class RpcError(Exception):
    """An error answer: raised by a handler, or received for a request we sent."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data

    def to_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


class AfterResponse:
    """A handler result plus work that must reach the client only after the response (ACP: updates after new)."""

    def __init__(self, result: Any, then: Callable[[], Awaitable[None]]) -> None:
        self.result, self.then = result, then


def protect_stdout() -> tuple[int, int]:
    """Keep the protocol fds for ourselves; make fd 0/1 harmless for everything else (prints, children)."""
    proto_in = os.dup(0)
    proto_out = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return proto_in, proto_out


OUTPUT_HIGH_WATER = 8 << 20  # bytes queued for the client before producers wait
WRITE_BATCH_BYTES = 64 << 10  # messages already queued go out in one write, up to this size (never waits for more)
OUTPUT_LOW_WATER = 2 << 20  # ... and when they may go on


_TROUBLE = select.POLLERR | select.POLLHUP | select.POLLNVAL


def _pollable(fd: int) -> bool:
    """Whether ``fd`` is a pipe or a socket (what an event loop can wait on; a terminal or a file it cannot)."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class DirectWrite:
    """Writes from the event loop that cannot block: at most ``PIPE_BUF`` bytes, to a pipe or stream socket that
    ``poll`` says has room now. Why these bounds: a pipe with a free slot takes a write of up to one page whole, and
    a unix stream socket that polls writable has at least three quarters of its send buffer free; anything larger,
    or anything else (a terminal, a file), goes to the writer thread. The fd's flags are never changed (an
    inherited O_NONBLOCK would surprise whoever shares it)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._poll = select.poll()
        self._poll.register(fd, select.POLLOUT)

    @staticmethod
    def of(fd: int) -> DirectWrite | None:
        """One for ``fd`` if it is a pipe or a socket; None otherwise (or when it cannot be inspected)."""
        return DirectWrite(fd) if _pollable(fd) else None

    def write(self, data: bytes) -> bool:
        """Write all of ``data`` now if that cannot block; False (nothing written) otherwise."""
        if len(data) > select.PIPE_BUF:
            return False
        ready = self._poll.poll(0)
        events = ready[0][1] if ready else 0
        if not events & select.POLLOUT or events & _TROUBLE:  # full, or an error for the writer thread to meet
            return False
        return os.write(self.fd, data) == len(data)  # (a pipe write of <= PIPE_BUF bytes is all or nothing)


def _read_some(fd: int) -> bytes:
    """What one read of ``fd`` gives; b"" at its end or on an error (the client is gone either way)."""
    try:
        return os.read(fd, 1 << 16)
    except OSError:
        return b""


class _Lines:
    """The client's bytes cut into lines (:class:`LineSplitter`: a line that spans reads is never scanned again),
    each handed to ``put`` as it completes; at the end an unterminated last line (unless blank), then None."""

    def __init__(self, put: Callable[[bytes | None], object]) -> None:
        self._put = put
        self._splitter = LineSplitter()

    def feed(self, chunk: bytes) -> None:
        for line in self._splitter.feed(chunk):
            self._put(bytes(line))

    def end(self) -> None:
        last = self._splitter.flush()
        if last is not None and last.strip():
            self._put(bytes(last))
        self._put(None)


class Connection:
    def __init__(self, in_fd: int, out_fd: int, already_read: bytes = b"") -> None:
        """``already_read``: input the launcher read before this connection existed (see ``early_init``)."""
        self._in_fd, self._out_fd = in_fd, out_fd
        self._already_read = already_read
        self._methods: dict[str, Handler] = {}
        self._notifications: dict[str, NotificationHandler] = {}
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._next_id = 0
        self._out: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        # Messages said during this turn of the event loop, handed to the writer thread together when it ends
        # (_hand_over): one wake-up of that thread per burst of events instead of one per message.
        self._unsent: list[bytes] = []
        self._loop_thread: int | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        # Requests being handled, by id (``_id_key``): what ``$/cancel_request`` can reach.
        self._running: dict[tuple[str, Any], tuple[asyncio.Task[Any], str, dict[str, Any]]] = {}
        self._cancel_hooks: dict[str, CancelHook] = {}
        self._closed = asyncio.Event()
        self._writer_done = threading.Event()
        # Output not yet written to the client. Past the high-water mark, writable() makes producers wait, so a
        # client that stops reading pauses the agent (pipe backpressure) instead of growing our memory.
        self._queued_bytes = 0
        self._output_gone = False  # the client closed stdout: output is dropped, never queued
        self._queued_lock = threading.Lock()
        # Pieces given to the writer thread and not yet written: the loop writes directly only when none are, so
        # the client reads everything in the order it was said.
        self._with_writer = 0
        self._direct: DirectWrite | None = None  # set by serve(): tests that never serve write through the thread
        self._writable = asyncio.Event()
        self._writable.set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.on_message: Callable[[str, dict[str, Any]], None] | None = None  # protocol log hook

    def method(self, name: str, handler: Handler) -> None:
        self._methods[name] = handler

    def notification(self, name: str, handler: NotificationHandler) -> None:
        self._notifications[name] = handler

    def on_cancel_request(self, name: str, hook: CancelHook) -> None:
        """``$/cancel_request`` for a running ``name`` request runs ``hook`` (with its params) instead of cancelling
        the handler: for a request whose own method has a way to end early with an answer (session/prompt)."""
        self._cancel_hooks[name] = hook

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    # ── outgoing ───────────────────────────────────────────────────────────────────────────────────────────────
    def _send(self, message: Any) -> None:
        if self.on_message is not None:
            self.on_message("out", message)
        if self._output_gone:
            return
        data = safe_json.dumps_bytes(message) + b"\n"  # always valid JSON, whatever a handler returned
        with self._queued_lock:
            self._queued_bytes += len(data)
            if self._queued_bytes > OUTPUT_HIGH_WATER:
                self._writable.clear()
        loop = self._loop
        if loop is None or not loop.is_running() or threading.get_ident() != self._loop_thread:
            self._to_writer(data)  # said outside the serving loop (before serve, from another thread): at once
            return
        self._unsent.append(data)
        if len(self._unsent) == 1:  # the first this turn: the hand-over runs once the turn's work is done
            loop.call_soon(self._hand_over)

    def _hand_over(self) -> None:
        """What this turn of the loop said, as one piece, in the order it was said: written here when that cannot
        block and the writer thread has nothing left to write, else given to the writer thread."""
        unsent, self._unsent = self._unsent, []
        if not unsent:
            return
        data = unsent[0] if len(unsent) == 1 else b"".join(unsent)
        direct = self._direct
        if direct is not None and not self._output_gone:
            with self._queued_lock:  # held across the check and the write: nothing reaches the thread meanwhile
                try:
                    written = not self._with_writer and direct.write(data)
                except OSError:  # the client closed its end: the writer thread meets the same error and says so
                    written = False
                if written:
                    self._queued_bytes -= len(data)
                    return
        self._to_writer(data)

    def _to_writer(self, data: bytes) -> None:
        with self._queued_lock:
            self._with_writer += 1
        self._out.put(data)

    async def writable(self) -> None:
        """Wait while too much output is queued for a client that is not reading (returns at once otherwise)."""
        if self._writable.is_set() or self.closed:
            return
        waiters = {asyncio.ensure_future(self._closed.wait()), asyncio.ensure_future(self._writable.wait())}
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        if not self.closed:
            self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: Mapping[str, object]) -> Any:
        if self.closed:
            raise ConnectionError("the client has gone away")
        self._next_id += 1
        request_id = self._next_id
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        try:
            return await future
        except asyncio.CancelledError:  # we no longer need the answer: let the client close its dialog
            if not self.closed:
                self.notify("$/cancel_request", {"requestId": request_id})
            raise
        finally:
            self._pending.pop(request_id, None)

    # ── incoming ───────────────────────────────────────────────────────────────────────────────────────────────
    async def serve(self) -> None:
        """Run until the client closes stdin; handlers still running are cancelled after that."""
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._direct = DirectWrite.of(self._out_fd)
        ended = asyncio.Event()

        def take(line: bytes | None) -> None:
            """A line is handled where it was cut (no hop through a queue and another task: one loop turn less
            between the editor's prompt and the agent); None: the input ended."""
            if line is None:
                ended.set()
            else:
                self._dispatch_line(line)

        reading_here = _pollable(self._in_fd) and self._read_in_loop(take)
        if not reading_here:
            threading.Thread(target=self._read_thread, args=(take,), name="acp-stdin", daemon=True).start()
        writer = threading.Thread(target=self._write_thread, name="acp-stdout", daemon=True)
        writer.start()
        try:
            await ended.wait()
        finally:
            if reading_here:
                self._loop.remove_reader(self._in_fd)
            self._closed.set()
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ConnectionError("the client has gone away"))

    async def drain(self, timeout: float = 1.0) -> None:
        """Let queued output reach the client before the process exits."""
        self._hand_over()
        self._out.put(None)
        await asyncio.get_running_loop().run_in_executor(None, self._writer_done.wait, timeout)

    def _read_in_loop(self, take: Callable[[bytes | None], None]) -> bool:
        """Read the client's pipe or socket from the event loop itself, as it becomes readable: a message wakes
        only the loop, not a reader thread that then wakes the loop (two wake-ups of an idle machine, a few
        milliseconds on a VM, before every prompt). A read after the fd polled readable returns at once, so the
        fd's flags stay as they are (never O_NONBLOCK). False: the loop cannot watch this fd (the thread reads)."""
        assert self._loop is not None
        cut = _Lines(take)
        try:
            self._loop.add_reader(self._in_fd, self._read_ready, cut)
        except (OSError, ValueError, NotImplementedError):
            return False
        cut.feed(self._take_already_read())
        return True

    def _read_ready(self, cut: _Lines) -> None:
        chunk = _read_some(self._in_fd)
        if chunk:
            cut.feed(chunk)
            return
        assert self._loop is not None
        self._loop.remove_reader(self._in_fd)
        cut.end()

    def _read_thread(self, take: Callable[[bytes | None], None]) -> None:
        """Read the client's input on a thread (a terminal or file, which the loop cannot watch)."""
        loop = self._loop
        assert loop is not None
        cut = _Lines(lambda line: loop.call_soon_threadsafe(take, line))
        chunk = self._take_already_read()
        while chunk or (chunk := _read_some(self._in_fd)):
            cut.feed(chunk)
            chunk = b""
        cut.end()

    def _take_already_read(self) -> bytes:
        chunk, self._already_read = self._already_read, b""
        return chunk

    def _write_thread(self) -> None:
        """Write queued messages in order; what is already queued goes out in one write (one system call per burst of
        events instead of one per event), and nothing waits for more to arrive."""
        closing = False
        while not closing:
            data = self._out.get()
            if data is None:
                break
            batch, size = [data], len(data)
            while size < WRITE_BATCH_BYTES:
                try:
                    more = self._out.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    closing = True
                    break
                batch.append(more)
                size += len(more)
            view = memoryview(data if len(batch) == 1 else b"".join(batch))
            try:
                while view:
                    written = os.write(self._out_fd, view)
                    view = view[written:]
            except OSError:  # the client closed its end: nothing more can be said, and nobody must wait to say it
                self._output_gone = True
                if self._loop is not None:
                    self._loop.call_soon_threadsafe(self._writable.set)
                break
            with self._queued_lock:
                self._queued_bytes -= size
                self._with_writer -= len(batch)
                resume = self._queued_bytes <= OUTPUT_LOW_WATER and not self._writable.is_set()
            if resume and self._loop is not None:
                self._loop.call_soon_threadsafe(self._writable.set)
        self._writer_done.set()

    def _dispatch_line(self, line: bytes) -> None:
        """Answer every line as it deserves; nothing a client sends may stop the loop that reads the next one."""
        if not line.strip():
            return
        try:
            self._dispatch(line)
        except Exception:  # a bug here must cost one message, never the connection
            log.exception("could not handle a message from the client")

    def _dispatch(self, line: bytes) -> None:
        try:
            message = safe_json.loads(line)
        except ValueError as exc:
            self._reply_error(None, RpcError(PARSE_ERROR, f"Parse error: {exc}"[:200]))
            return
        if self.on_message is not None:
            self.on_message("in", message)
        if isinstance(message, list):
            self._reject_batch(message)
            return
        incoming = classify(message)
        if incoming.kind == "invalid":
            if incoming.error is not None:
                self._reply_error(incoming.id, RpcError(*incoming.error))
            else:
                log.warning("ignored a malformed notification: %.200s", line)
        elif incoming.kind == "response":
            self._handle_response(incoming.id, message)
        elif incoming.kind == "notification" and incoming.method == CANCEL_REQUEST:
            self._cancel_request(incoming.params)
        else:
            method, params = incoming.method or "", incoming.params or {}
            task = self._spawn(self._handle_call(incoming.kind == "request", incoming.id, method, params))
            if incoming.kind == "request":
                key = _id_key(incoming.id)
                self._running[key] = (task, method, params)
                task.add_done_callback(lambda _task: self._running.pop(key, None))

    def _cancel_request(self, params: Any) -> None:
        """``$/cancel_request``: the request with that id, if still running, is cancelled — its handler cancelled and
        answered -32800, or its method's hook run (:meth:`on_cancel_request`). Unknown or finished ids, and params
        without a ``requestId``, are ignored: the request may have been answered while the notice was on its way."""
        if not isinstance(params, dict) or "requestId" not in params:
            log.debug("ignored a $/cancel_request without a requestId")
            return
        running = self._running.get(_id_key(params["requestId"]))
        if running is None:
            return
        task, method, request_params = running
        hook = self._cancel_hooks.get(method)
        if hook is None:
            task.cancel()
        else:
            self._spawn(self._run_cancel_hook(hook, method, request_params))

    async def _run_cancel_hook(self, hook: CancelHook, method: str, params: dict[str, Any]) -> None:
        try:
            await hook(params)
        except Exception:
            log.exception("cancelling a %s request failed", method)

    def _reject_batch(self, batch: list[Any]) -> None:
        """ACP never batches, so batches are refused — but answered, as JSON-RPC 2.0 says: one error for an empty
        batch, else an array with an error for every element that expects an answer (none for notifications)."""
        reason = "Invalid Request: batches are not supported; send one message per line"
        if not batch:
            self._reply_error(None, RpcError(INVALID_REQUEST, reason))
            return
        answers = []
        for element in batch:
            incoming = classify(element)
            if incoming.kind in ("notification", "response"):
                continue
            if incoming.kind == "invalid" and incoming.error is None:
                continue
            answers.append({"jsonrpc": "2.0", "id": incoming.id, "error": {"code": INVALID_REQUEST, "message": reason}})
        if answers:
            self._send(answers)

    def _spawn(self, coro: Awaitable[None]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _handle_response(self, response_id: Any, message: dict[str, Any]) -> None:
        future = self._pending.get(response_id) if isinstance(response_id, int) else None
        if future is None or future.done():
            log.debug("dropped a response to nothing pending (id %.40r)", response_id)
            return
        error = response_error(message)
        if error is not None:
            future.set_exception(RpcError(*error))
        else:
            future.set_result(message.get("result"))

    async def _handle_call(self, is_request: bool, request_id: Any, method: str, params: dict[str, Any]) -> None:
        if not is_request:
            handler = self._notifications.get(method)
            if handler is not None:
                try:
                    await handler(params)
                except Exception:
                    log.exception("notification %s failed", method)
            return
        handler = self._methods.get(method)
        if handler is None:
            self._reply_error(
                request_id, RpcError(METHOD_NOT_FOUND, f"Method not found: {method}"[:300], {"method": method[:200]})
            )
            return
        try:
            result = await handler(params)
        except RpcError as exc:
            self._reply_error(request_id, exc)
            return
        except asyncio.CancelledError:  # never leave a request unanswered
            self._reply_error(request_id, RpcError(REQUEST_CANCELLED, f"Request cancelled: {method}"[:300]))
            raise
        except Exception:  # a bug, not the client's fault: say so without Python's exception text
            log.exception("%s failed", method)
            self._reply_error(
                request_id, RpcError(INTERNAL_ERROR, f"acp-mux failed to handle {method}; its log has the details")
            )
            return
        then = None
        if isinstance(result, AfterResponse):
            result, then = result.result, result.then
        self._send({"jsonrpc": "2.0", "id": request_id, "result": result if result is not None else {}})
        if then is not None:
            try:
                await then()
            except Exception:
                log.exception("post-response work for %s failed", method)

    def _reply_error(self, request_id: Any, error: RpcError) -> None:
        self._send({"jsonrpc": "2.0", "id": request_id, "error": error.to_json()})

    async def cancel_handlers(self, grace: float = 0.2) -> None:
        """Let requests that were already read finish briefly (an ``initialize`` sent just before EOF still gets
        its answer), cancel the rest (each still answers, with an error), then flush what was queued."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=grace)
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=1.0)
        await self.drain(timeout=0.5)


def _id_key(request_id: Any) -> tuple[str, Any]:
    """A request id as a dict key: 1 and "1" (and 1 and True) are different ids in JSON-RPC."""
    return (type(request_id).__name__, request_id if isinstance(request_id, (int, str)) else repr(request_id))
