"""A real, local OpenAI-compatible HTTP server for tests (``/v1/chat/completions``, ``/v1/models``).

It runs uvicorn + Starlette in a background thread on ``127.0.0.1`` (a free port chosen by the OS)
and answers deterministically: the reply is a JSON digest of what it received (last user text,
images seen, sampling fields), or, when the request asks for structured output
(``response_format`` / ``guided_json`` / ``structured_outputs``), a JSON object valid for the schema.

Faults are configured per server (see :class:`Faults`); every request body and its headers are
recorded, together with the peak number of requests in flight at once::

    with OpenAIServer(Faults(fail_first=2, fail_status=429, retry_after=1)) as srv:
        backend = OpenAIBackend("t", "test-model", srv.base_url)
        ...
        assert srv.n_requests == 3
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
import zlib
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

SAMPLING_KEYS = (
    "temperature",
    "top_p",
    "top_k",
    "max_tokens",
    "seed",
    "stop",
    "presence_penalty",
    "repetition_penalty",
    "chat_template_kwargs",
)


@dataclass
class Faults:
    """What the server does wrong. Request numbers count every POST to chat/completions, from 1."""

    fail_first: int = 0  # the first N requests get `fail_status`
    fail_status: int = 500
    retry_after: float | str | None = None  # sent as Retry-After with those failures
    hang_first: int = 0  # the first N requests sleep `hang_s` before answering
    hang_s: float = 30.0
    always_status: int | None = None  # every request gets this status (e.g. 400)
    error_message: str = "injected failure"
    status_for_text: dict[str, int] = field(default_factory=dict)  # last user text -> status
    malformed: bool = False  # 200 with a body that is not JSON
    delay_s: float = 0.0  # every answer waits this long ...
    vary_delay: bool = False  # ... times a fraction in [0, 1] derived from the last user text
    reasoning: str | None = None  # put this reasoning text in the reply ...
    reasoning_field: str = "reasoning_content"  # ... under this message field
    content_null: bool = False  # reply with message.content = null
    finish_reason: str = "stop"
    cached_tokens: int | None = None  # usage.prompt_tokens_details.cached_tokens


@dataclass
class RecordedRequest:
    body: dict[str, Any]
    headers: dict[str, str]  # lower-case names
    t: float  # time.monotonic() at arrival


def last_user_text(messages: list[dict[str, Any]]) -> str:
    for m in reversed(messages or []):
        if m.get("role") != "user":
            continue
        c = m.get("content")
        if isinstance(c, str):
            return c
        if isinstance(c, list):
            return "\n".join(p.get("text", "") for p in c if isinstance(p, dict) and p.get("type") == "text")
    return ""


def image_urls(messages: list[dict[str, Any]]) -> list[str]:
    out = []
    for m in messages or []:
        c = m.get("content")
        if isinstance(c, list):
            for p in c:
                if isinstance(p, dict) and p.get("type") == "image_url":
                    iu = p.get("image_url")
                    out.append(iu.get("url", "") if isinstance(iu, dict) else str(iu))
    return out


def instance_for(schema: dict[str, Any]) -> Any:
    """A small deterministic value valid for a (simple) JSON schema."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return instance_for(schema[key][0])
    if "allOf" in schema:
        merged: dict[str, Any] = {}
        for s in schema["allOf"]:
            merged.update(s)
        return instance_for(merged)
    t = schema.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "null")
    if t == "object" or (t is None and "properties" in schema):
        props = schema.get("properties", {})
        return {k: instance_for(v) for k, v in props.items()}
    if t == "array":
        return [instance_for(schema.get("items", {})) for _ in range(schema.get("minItems", 0))]
    if t == "string":
        return "x" * max(1, schema.get("minLength", 1))
    if t == "integer":
        return int(schema.get("minimum", 0))
    if t == "number":
        return float(schema.get("minimum", 0))
    if t == "boolean":
        return True
    return None


def schema_of(body: dict[str, Any]) -> dict[str, Any] | None:
    rf = body.get("response_format")
    if isinstance(rf, dict) and rf.get("type") == "json_schema":
        return rf["json_schema"]["schema"]
    if isinstance(body.get("guided_json"), dict):
        return body["guided_json"]
    so = body.get("structured_outputs")
    if isinstance(so, dict) and isinstance(so.get("json"), dict):
        return so["json"]
    return None


class OpenAIServer:
    """Context manager: ``with OpenAIServer(faults) as srv: srv.base_url`` ('http://127.0.0.1:N/v1')."""

    #: Names the test configs send (the default model/judge and the tiny ones): the server "serves" them.
    ALSO_SERVES = ("Qwen/Qwen2.5-VL-3B-Instruct", "tiny-vl", "tiny-text")

    def __init__(self, faults: Faults | None = None, model_id: str = "test-model",
                 also_serves: tuple[str, ...] = ALSO_SERVES):
        self.faults = faults or Faults()
        self.model_id = model_id
        self.also_serves = tuple(also_serves)
        self.requests: list[RecordedRequest] = []
        self.finished: list[str] = []  # last user text of each answered request, in answer order
        self.model_list_calls = 0
        self.peak_in_flight = 0
        self._in_flight = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._sock: socket.socket | None = None
        self.port: int | None = None

    # ------------------------------------------------------------------ lifecycle
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> OpenAIServer:
        app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
            ]
        )
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(("127.0.0.1", 0))
        self._sock = sock
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
            lifespan="off",
            loop="asyncio",
            http="h11",
            timeout_graceful_shutdown=1,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name="openai-test-server", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 15
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("test OpenAI server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=15)
            if self._thread.is_alive():
                assert self._server is not None
                self._server.force_exit = True
                self._thread.join(timeout=5)
        if self._sock is not None:
            self._sock.close()
        self._thread = None

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # ------------------------------------------------------------------ inspection
    @property
    def n_requests(self) -> int:
        with self._lock:
            return len(self.requests)

    @property
    def bodies(self) -> list[dict[str, Any]]:
        with self._lock:
            return [r.body for r in self.requests]

    # ------------------------------------------------------------------ handlers
    async def _models(self, request: Request) -> Response:
        with self._lock:
            self.model_list_calls += 1
        return JSONResponse(
            {
                "object": "list",
                "data": [
                    {
                        "id": mid,
                        "object": "model",
                        "owned_by": "medrealmm-tests",
                        "root": mid,
                        "max_model_len": 4096,
                        "permission": [{"id": "perm-0"}],
                    }
                    for mid in (self.model_id, *self.also_serves)
                ],
            }
        )

    async def _sleep(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while not self._stopping.is_set() and time.monotonic() < end:
            await asyncio.sleep(min(0.02, max(0.0, end - time.monotonic())))

    async def _chat(self, request: Request) -> Response:
        raw = await request.body()
        try:
            body = json.loads(raw)
        except ValueError:
            return JSONResponse({"error": {"message": "request body is not JSON", "code": 400}}, 400)
        with self._lock:
            headers = {k.lower(): v for k, v in request.headers.items()}
            self.requests.append(RecordedRequest(body=body, headers=headers, t=time.monotonic()))
            n = len(self.requests)
            self._in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self._in_flight)
        try:
            return await self._answer(n, body)
        finally:
            with self._lock:
                self._in_flight -= 1
                self.finished.append(last_user_text(body.get("messages") or []))

    def _error(self, status: int, headers: dict[str, str] | None = None) -> Response:
        f = self.faults
        return JSONResponse(
            {
                "error": {
                    "message": f.error_message,
                    "type": "BadRequestError" if status < 500 else "ServerError",
                    "code": status,
                }
            },
            status_code=status,
            headers=headers,
        )

    async def _answer(self, n: int, body: dict[str, Any]) -> Response:
        f = self.faults
        messages = body.get("messages") or []
        text = last_user_text(messages)
        if f.always_status is not None:
            return self._error(f.always_status)
        if text in f.status_for_text:
            return self._error(f.status_for_text[text])
        if n <= f.hang_first:
            await self._sleep(f.hang_s)
        if n <= f.fail_first:
            headers = {"Retry-After": str(f.retry_after)} if f.retry_after is not None else None
            return self._error(f.fail_status, headers)
        if f.delay_s:
            frac = (zlib.crc32(text.encode()) % 10) / 9 if f.vary_delay else 1.0
            await self._sleep(f.delay_s * frac)
        if f.malformed:
            return Response('{"id": "chatcmpl-1", "choices": [{"message": ', media_type="application/json")

        schema = schema_of(body)
        if schema is not None:
            content = json.dumps(instance_for(schema), ensure_ascii=False)
        else:
            content = json.dumps(
                {
                    "echo": text,
                    "n_images": len(image_urls(messages)),
                    "model": body.get("model"),
                    "sampling": {k: body[k] for k in SAMPLING_KEYS if k in body},
                },
                ensure_ascii=False,
                sort_keys=True,
            )
        message: dict[str, Any] = {"role": "assistant", "content": None if f.content_null else content}
        if f.reasoning is not None:
            message[f.reasoning_field] = f.reasoning
        usage: dict[str, Any] = {
            "prompt_tokens": len(json.dumps(messages)) // 4 + 1,
            "completion_tokens": len(content) // 4 + 1,
        }
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        if f.cached_tokens is not None:
            usage["prompt_tokens_details"] = {"cached_tokens": f.cached_tokens}
        return JSONResponse(
            {
                "id": f"chatcmpl-{n}",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model"),
                "choices": [{"index": 0, "message": message, "finish_reason": f.finish_reason}],
                "usage": usage,
            }
        )
