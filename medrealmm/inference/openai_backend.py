"""Backend for an OpenAI-compatible chat server (``vllm serve``, SGLang), e.g. one judge server
shared by many evaluation jobs.

``chat`` sends the whole batch concurrently (asyncio + ``httpx.AsyncClient``, at most
``concurrency`` requests in flight) and returns the completions in request order. Transient
failures (connection errors, timeouts, HTTP 408/409/429/5xx) are retried with exponential backoff
and deterministic jitter, honouring ``Retry-After``; other 4xx answers are not retried. A request
that cannot be answered gives a completion with ``error`` set and ``text=None``; nothing is raised
for one bad request.

``base_url`` is the API root including the version prefix, as for the OpenAI SDK:
``http://host:8000/v1``. ``max_retries`` counts retries, so a request is tried at most
``max_retries + 1`` times, and never past ``retry_budget_s`` seconds in all.

A dead server is found in seconds, not at the end of a run: :meth:`OpenAIBackend.preflight` (run
before any work) checks that the server answers and serves the configured model, and when a request
meets a connection error mid-run, the server is checked again; if it is gone, every request still
waiting fails at once and ``chat`` raises :class:`ServerUnavailable` with the URL.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import email.utils
import json
import logging
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import httpx
from tqdm import tqdm

from medrealmm.inference.base import ChatRequest, Completion

logger = logging.getLogger(__name__)

STRUCTURED_MODES = ("response_format", "structured_outputs", "none")
#: Options servers no longer honour: accepted with HTTP 200 and ignored (unconstrained output), so refused here.
IGNORED_MODES = {"guided_json": "vLLM servers since 0.11 ignore `guided_json` (HTTP 200, unconstrained output)"}
RETRY_STATUSES = frozenset({408, 409, 429})
SCHEMA_NAME = "verdict"
_MAX_ERROR_CHARS = 500


class ServerUnavailable(RuntimeError):
    """The server cannot be reached, or does not serve the configured model."""


@dataclass
class _Attempt:
    """Outcome of one HTTP attempt."""

    completion: Completion | None = None  # final answer (success or non-retryable error)
    error: str | None = None  # retryable failure
    retry_after: float | None = None


@dataclass
class _Stats:
    retries: int = 0
    errors: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    error_samples: list[str] = field(default_factory=list)
    dead: str | None = None          # why the server is considered gone: stop every request
    last_check: float = -1e9         # monotonic time of the last mid-run health check


def _plain(value: Any) -> Any:
    """Plain dicts/lists (config objects such as OmegaConf's are not JSON-serialisable)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return [_plain(v) for v in value]
    return value


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date); None if absent/bad."""
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def _server_message(resp: httpx.Response) -> str:
    """The error text a server put in its body (OpenAI ``{"error": {"message"}}``, FastAPI ``detail``)."""
    try:
        data = resp.json()
    except ValueError:
        return resp.text.strip()[:_MAX_ERROR_CHARS]
    msg: Any = data
    if isinstance(data, dict):
        err = data.get("error")
        if isinstance(err, dict) and err.get("message"):
            msg = err["message"]
        elif isinstance(err, str) and err:
            msg = err
        elif data.get("message"):
            msg = data["message"]
        elif data.get("detail"):
            msg = data["detail"]
    if not isinstance(msg, str):
        msg = json.dumps(msg, ensure_ascii=False)
    return msg.strip()[:_MAX_ERROR_CHARS]


def _content_text(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") in ("text", None)
        )
    return str(content)


def parse_completion(data: Any) -> Completion:
    """Turn a ``chat.completion`` JSON body into a :class:`Completion` (``error`` set if unusable)."""
    if not isinstance(data, dict):
        kind = type(data).__name__
        return Completion(text=None, error=f"malformed response: expected a JSON object, got {kind}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        err = data.get("error")
        if isinstance(err, dict):
            err = err.get("message")
        detail = f": {err}" if err else ""
        return Completion(text=None, error=f"malformed response: no choices{detail}"[:_MAX_ERROR_CHARS])
    choice = choices[0]
    message = choice.get("message") or {}
    if not isinstance(message, dict):
        return Completion(text=None, error="malformed response: choices[0].message is not an object")
    text = _content_text(message.get("content"))
    reasoning = message.get("reasoning_content")
    if reasoning is None:
        reasoning = message.get("reasoning")
    raw_usage = data.get("usage")
    usage: dict[str, Any] = raw_usage if isinstance(raw_usage, dict) else {}
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    return Completion(
        # The server answered: a null content (e.g. a reasoning model that ran out of tokens) is an
        # empty reply, and finish_reason says why.
        text=text if text is not None else "",
        reasoning=_content_text(reasoning),
        finish_reason=choice.get("finish_reason"),
        prompt_tokens=usage.get("prompt_tokens"),
        cached_tokens=cached,
        completion_tokens=usage.get("completion_tokens"),
    )


class OpenAIBackend:
    """Chat completions from an OpenAI-compatible server (see the module docstring)."""

    def __init__(
        self,
        name: str,
        model: str,
        base_url: str,
        api_key: str | None = None,
        concurrency: int = 32,
        timeout_s: float = 600,
        max_retries: int = 5,
        backoff_s: float = 1.0,
        backoff_max_s: float = 30.0,
        structured: str = "response_format",
        extra_body: dict[str, Any] | None = None,
        retry_budget_s: float = 900.0,
        check_timeout_s: float = 10.0,
        check_model: bool = True,
    ):
        if not base_url:
            raise ValueError("OpenAIBackend needs a base_url, e.g. http://localhost:8000/v1")
        if structured in IGNORED_MODES:
            raise ValueError(f"structured={structured!r}: {IGNORED_MODES[structured]}; use response_format (a JSON "
                             "schema, honoured by vLLM, SGLang and OpenAI) or structured_outputs (vLLM)")
        if structured not in STRUCTURED_MODES:
            raise ValueError(f"structured must be one of {STRUCTURED_MODES}, got {structured!r}")
        if int(concurrency) < 1:
            raise ValueError(f"concurrency must be >= 1, got {concurrency}")
        if int(max_retries) < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be > 0, got {timeout_s}")
        self.name = name
        self.model = model
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key or None
        self.concurrency = int(concurrency)
        self.timeout_s = float(timeout_s)
        self.max_retries = int(max_retries)
        self.backoff_s = float(backoff_s)
        self.backoff_max_s = float(backoff_max_s)
        self.structured = structured
        self.extra_body: dict[str, Any] = _plain(extra_body) if extra_body else {}
        self.retry_budget_s = float(retry_budget_s)
        self.check_timeout_s = float(check_timeout_s)
        self.check_model = bool(check_model)

    # ------------------------------------------------------------------ is the server there?
    def served_models(self) -> list[str]:
        """The model ids the server lists; raises :class:`ServerUnavailable` if it cannot be asked."""
        url = f"{self.base_url}/models"
        try:
            resp = httpx.get(url, headers=self._headers(), timeout=self.check_timeout_s)
        except httpx.UnsupportedProtocol as e:
            raise ServerUnavailable(f"{self.name}: bad base_url {self.base_url!r}: {e}") from None
        except (httpx.TransportError, TimeoutError) as e:
            raise ServerUnavailable(f"{self.name}: the server at {self.base_url} is not reachable "
                                    f"({type(e).__name__}); start it, or fix base_url") from None
        if resp.status_code in (401, 403):
            raise ServerUnavailable(f"{self.name}: the server at {self.base_url} refused the credentials "
                                    f"(HTTP {resp.status_code}); set api_key or api_key_env")
        if not resp.is_success:
            raise ServerUnavailable(f"{self.name}: the server at {self.base_url} answered HTTP {resp.status_code} "
                                    f"to GET /models")
        try:
            data = resp.json()
        except ValueError:
            raise ServerUnavailable(f"{self.name}: {url} did not answer JSON; is base_url the API root "
                                    "(e.g. http://host:8000/v1)?") from None
        entries = data.get("data", []) if isinstance(data, dict) else []
        return [str(m["id"]) for m in entries if isinstance(m, dict) and m.get("id") is not None]

    def preflight(self) -> None:
        """Before any work: the server answers, and (``check_model``) serves ``self.model``."""
        t0 = time.monotonic()
        ids = self.served_models()
        if self.check_model and ids and self.model not in ids:
            raise ServerUnavailable(f"{self.name}: the server at {self.base_url} serves {ids}, not {self.model!r}; "
                                    "set the role's server_model to the served name (or the backend's "
                                    "check_model=false)")
        logger.info("%s: server %s is up and serves %s (checked in %.2fs)", self.name, self.base_url,
                    self.model, time.monotonic() - t0)

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIBackend(name={self.name!r}, model={self.model!r}, base_url={self.base_url!r})"

    # ------------------------------------------------------------------ request building
    def _headers(self) -> dict[str, str]:
        headers = {"User-Agent": "medrealmm"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def request_body(self, req: ChatRequest) -> dict[str, Any]:
        """The JSON body posted to ``/chat/completions`` for one request."""
        s = req.sampling
        body: dict[str, Any] = {
            "model": self.model,
            "messages": req.messages,
            "temperature": s.temperature,
            "top_p": s.top_p,
            "max_tokens": s.max_tokens,
            "presence_penalty": s.presence_penalty,
        }
        if s.seed is not None:
            body["seed"] = s.seed
        if s.stop:
            body["stop"] = list(s.stop)
        # vLLM / SGLang extras, only when they change something
        if s.top_k is not None and s.top_k not in (-1, 0):
            body["top_k"] = s.top_k
        if s.repetition_penalty is not None and s.repetition_penalty != 1.0:
            body["repetition_penalty"] = s.repetition_penalty
        if req.json_schema is not None:
            if self.structured == "response_format":
                body["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": SCHEMA_NAME, "schema": req.json_schema, "strict": True},
                }
            elif self.structured == "structured_outputs":  # vLLM >= 0.11
                body["structured_outputs"] = {"json": req.json_schema}
        # extra_body adds fields; the per-request fields above win, chat_template_kwargs are merged
        template_kwargs = {**(self.extra_body.get("chat_template_kwargs") or {}), **req.chat_template_kwargs}
        for k, v in self.extra_body.items():
            body.setdefault(k, v)
        if template_kwargs:
            body["chat_template_kwargs"] = template_kwargs
        return body

    # ------------------------------------------------------------------ running
    def chat(self, requests: list[ChatRequest], desc: str = "") -> list[Completion]:
        requests = list(requests)
        if not requests:
            return []
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self._run(requests, desc))
        # Called from inside an event loop (e.g. a notebook): run on a fresh loop in a worker thread.
        with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="openai-backend") as pool:
            return pool.submit(lambda: asyncio.run(self._run(requests, desc))).result()

    def _backoff(self, index: int, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.backoff_max_s)
        base = min(self.backoff_max_s, self.backoff_s * 2.0 ** min(attempt, 60))
        jitter = random.Random(f"{index}/{attempt}").random()  # deterministic, spreads retries
        return base * (0.5 + 0.5 * jitter)

    async def _run(self, requests: list[ChatRequest], desc: str) -> list[Completion]:
        t0 = time.monotonic()
        n = len(requests)
        label = desc or self.name
        stats = _Stats()
        sem = asyncio.Semaphore(self.concurrency)
        results: list[Completion | None] = [None] * n
        limits = httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency)
        bar = tqdm(total=n, desc=label, unit="req", disable=None, dynamic_ncols=True)
        try:
            async with httpx.AsyncClient(
                headers=self._headers(), timeout=httpx.Timeout(self.timeout_s), limits=limits
            ) as client:

                async def one(i: int) -> None:
                    results[i] = await self._one(client, sem, i, requests[i], stats)
                    bar.update(1)

                await asyncio.gather(*(one(i) for i in range(n)))
        finally:
            bar.close()
        if stats.dead:
            raise ServerUnavailable(stats.dead)
        out: list[Completion] = []
        for c in results:
            assert c is not None
            out.append(c)
            if c.error is not None:
                stats.errors += 1
            stats.prompt_tokens += c.prompt_tokens or 0
            stats.cached_tokens += c.cached_tokens or 0
            stats.completion_tokens += c.completion_tokens or 0
        elapsed = time.monotonic() - t0
        logger.info(
            "%s: %d requests to %s (%s) in %.1fs (%.1f req/s): %d ok, %d errors, %d retries; "
            "prompt_tokens=%d cached_tokens=%d completion_tokens=%d",
            label, n, self.base_url, self.model, elapsed, n / max(elapsed, 1e-9), n - stats.errors,
            stats.errors, stats.retries, stats.prompt_tokens, stats.cached_tokens, stats.completion_tokens,
        )
        for msg in stats.error_samples:
            logger.warning("%s: request failed: %s", label, msg)
        if stats.errors > len(stats.error_samples):
            logger.warning("%s: %d requests failed in all", label, stats.errors)
        return out

    async def _one(
        self, client: httpx.AsyncClient, sem: asyncio.Semaphore, index: int, req: ChatRequest, stats: _Stats
    ) -> Completion:
        t0 = time.monotonic()
        try:
            completion = await self._with_retries(client, sem, index, req, stats)
            completion.latency_s = round(time.monotonic() - t0, 4)
        except Exception as e:  # never let one request sink the batch
            logger.debug("request %d failed unexpectedly", index, exc_info=True)
            completion = Completion(text=None, error=f"{type(e).__name__}: {e}"[:_MAX_ERROR_CHARS])
        if completion.error is not None and len(stats.error_samples) < 3:
            stats.error_samples.append(f"#{index}: {completion.error}")
        return completion

    async def _with_retries(
        self, client: httpx.AsyncClient, sem: asyncio.Semaphore, index: int, req: ChatRequest, stats: _Stats
    ) -> Completion:
        body = self.request_body(req)
        attempts = self.max_retries + 1
        last_error = "no attempt made"
        t0 = time.monotonic()
        for attempt in range(attempts):
            if stats.dead:
                return Completion(text=None, error=stats.dead)
            async with sem:
                if stats.dead:
                    return Completion(text=None, error=stats.dead)
                left = self.retry_budget_s - (time.monotonic() - t0)
                result = await self._attempt(client, body, timeout=max(1.0, min(self.timeout_s, left)))
            if result.completion is not None:
                return result.completion
            last_error = result.error or "unknown error"
            if last_error.startswith("connection error"):
                await self._check_alive(stats)
                if stats.dead:
                    return Completion(text=None, error=stats.dead)
            if attempt + 1 < attempts:
                delay = self._backoff(index, attempt, result.retry_after)
                if time.monotonic() - t0 + delay > self.retry_budget_s:
                    return Completion(text=None, error=f"gave up after {attempt + 1} attempts in "
                                      f"{time.monotonic() - t0:.0f}s (retry_budget_s={self.retry_budget_s:g}): "
                                      f"{last_error}")
                stats.retries += 1
                logger.debug(
                    "request %d attempt %d/%d failed (%s); retrying in %.2fs",
                    index, attempt + 1, attempts, last_error, delay,
                )
                await asyncio.sleep(delay)
        return Completion(text=None, error=f"failed after {attempts} attempts: {last_error}")

    async def _check_alive(self, stats: _Stats) -> None:
        """After a connection error: is the server still there? (at most one check every 5 s)"""
        now = time.monotonic()
        if stats.dead or now - stats.last_check < 5.0:
            return
        stats.last_check = now
        try:
            await asyncio.to_thread(self.served_models)
        except ServerUnavailable as e:
            stats.dead = f"{e} (it stopped answering during the run; finished work is stored, rerun to resume)"
            logger.error("%s", stats.dead)

    async def _attempt(self, client: httpx.AsyncClient, body: dict[str, Any],
                       timeout: float | None = None) -> _Attempt:
        url = f"{self.base_url}/chat/completions"
        timeout = self.timeout_s if timeout is None else timeout
        try:
            async with asyncio.timeout(timeout):  # total time, not just per read
                resp = await client.post(url, json=body)
        except (TimeoutError, httpx.TimeoutException):
            return _Attempt(error=f"timeout after {timeout:g}s")
        except httpx.UnsupportedProtocol as e:
            return _Attempt(completion=Completion(text=None, error=f"bad base_url: {e}"))
        except httpx.TransportError as e:
            return _Attempt(error=f"connection error: {type(e).__name__}: {e}"[:_MAX_ERROR_CHARS])
        status = resp.status_code
        if resp.is_success:
            try:
                data = resp.json()
            except ValueError as e:
                error = f"malformed response (HTTP {status}): {e}"[:_MAX_ERROR_CHARS]
                return _Attempt(completion=Completion(text=None, error=error))
            return _Attempt(completion=parse_completion(data))
        msg = _server_message(resp)
        error = f"HTTP {status}: {msg}" if msg else f"HTTP {status}"
        if status in RETRY_STATUSES or status >= 500:
            return _Attempt(error=error, retry_after=parse_retry_after(resp.headers.get("retry-after")))
        return _Attempt(completion=Completion(text=None, error=error))

    # ------------------------------------------------------------------ manifest
    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "backend": "openai",
            "base_url": self.base_url,
            "model": self.model,
            "concurrency": self.concurrency,
            "timeout_s": self.timeout_s,
            "max_retries": self.max_retries,
            "retry_budget_s": self.retry_budget_s,
            "structured": self.structured,
        }
        if self.extra_body:
            info["extra_body"] = self.extra_body
        try:
            resp = httpx.get(f"{self.base_url}/models", headers=self._headers(), timeout=5.0)
            resp.raise_for_status()
            data = resp.json()
            entries = data.get("data", []) if isinstance(data, dict) else []
            info["server_models"] = [
                {k: v for k, v in m.items() if v is None or isinstance(v, (str, int, float, bool))}
                for m in entries
                if isinstance(m, dict)
            ]
        except Exception as e:  # best effort: the manifest notes why, the run goes on
            info["server_models"] = None
            info["server_models_error"] = f"{type(e).__name__}"
            logger.debug("could not list models at %s: %s", self.base_url, type(e).__name__)
            return info
        if self.base_url.endswith("/v1"):  # vLLM serves GET /version at the root
            try:
                resp = httpx.get(f"{self.base_url[:-3]}/version", headers=self._headers(), timeout=2.0)
                if resp.is_success and isinstance(resp.json(), dict) and "version" in resp.json():
                    info["server_version"] = resp.json()["version"]
            except Exception:
                pass
        return info

    def close(self) -> None:
        """Nothing to release: each ``chat`` call opens and closes its own HTTP client."""

    def __enter__(self) -> OpenAIBackend:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
