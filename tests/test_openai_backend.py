"""OpenAIBackend against a real local HTTP server (tests/support/openai_server.py)."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import threading
import time

import jsonschema
import pytest

from medrealmm.inference.base import ChatRequest, Sampling
from medrealmm.inference.openai_backend import OpenAIBackend, ServerUnavailable, parse_retry_after

try:
    from tests.support.openai_server import Faults, OpenAIServer
except ImportError:  # pytest run with tests/ (not the repo root) on sys.path
    from support.openai_server import Faults, OpenAIServer  # type: ignore[no-redef]

pytestmark = pytest.mark.timeout(60)

PNG_URL = (
    "data:image/png;base64,"
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)


@pytest.fixture
def server():
    """Factory: ``server(Faults(...))`` starts a server; all are stopped at the end of the test."""
    started: list[OpenAIServer] = []

    def make(faults: Faults | None = None) -> OpenAIServer:
        srv = OpenAIServer(faults).start()
        started.append(srv)
        return srv

    yield make
    for srv in started:
        srv.stop()
        assert not srv.running


def backend(srv: OpenAIServer, **kw) -> OpenAIBackend:
    kw.setdefault("backoff_s", 0.01)
    kw.setdefault("backoff_max_s", 0.05)
    kw.setdefault("timeout_s", 10)
    return OpenAIBackend("test", "test-model", srv.base_url, **kw)


def req(text: str, **sampling) -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": text}], sampling=Sampling(**sampling))


def echo(c) -> dict:
    assert c.error is None, c.error
    return json.loads(c.text)


def test_order_preserved_for_50_requests(server):
    # answers take 0..40 ms depending on the text, so they finish out of order
    srv = server(Faults(delay_s=0.04, vary_delay=True))
    texts = [f"question {i}" for i in range(50)]
    out = backend(srv, concurrency=16).chat([req(t) for t in texts], desc="order")
    assert [echo(c)["echo"] for c in out] == texts
    assert srv.n_requests == 50
    # the server really answered them in another order than they were asked
    assert srv.finished != texts and sorted(srv.finished) == sorted(texts)


@pytest.mark.parametrize("concurrency", [1, 4])
def test_concurrency_bound(server, concurrency):
    srv = server(Faults(delay_s=0.03))
    out = backend(srv, concurrency=concurrency).chat([req(f"t{i}") for i in range(24)])
    assert all(c.error is None for c in out)
    assert srv.peak_in_flight <= concurrency
    if concurrency > 1:
        assert srv.peak_in_flight > 1  # requests really overlap
        assert srv.peak_in_flight == concurrency


def test_retry_after_transient_500(server):
    srv = server(Faults(fail_first=2, fail_status=500))
    (c,) = backend(srv, max_retries=5).chat([req("hello")])
    assert echo(c)["echo"] == "hello"
    assert srv.n_requests == 3  # two failures, then success
    assert srv.requests[0].body == srv.requests[2].body


def test_retry_after_transient_429(server):
    srv = server(Faults(fail_first=1, fail_status=429))
    (c,) = backend(srv, max_retries=5).chat([req("hello")])
    assert echo(c)["echo"] == "hello"
    assert srv.n_requests == 2


def test_max_retries_then_error_completion(server):
    srv = server(Faults(fail_first=100, fail_status=503, error_message="overloaded"))
    out = backend(srv, max_retries=2).chat([req("a"), req("b")])
    assert srv.n_requests == 2 * 3  # 1 try + 2 retries each
    for c in out:
        assert c.text is None
        assert "503" in c.error and "overloaded" in c.error and "3 attempts" in c.error


def test_retry_after_header_honoured(server):
    srv = server(Faults(fail_first=1, fail_status=429, retry_after=1))
    t0 = time.monotonic()
    (c,) = backend(srv, backoff_s=0.01, backoff_max_s=5).chat([req("x")])
    elapsed = time.monotonic() - t0
    assert c.error is None
    assert srv.n_requests == 2
    gap = srv.requests[1].t - srv.requests[0].t
    assert gap >= 0.95, gap  # waited for Retry-After, not the 10 ms backoff
    assert elapsed < 5


def test_retry_after_capped_at_backoff_max(server):
    srv = server(Faults(fail_first=1, fail_status=503, retry_after=120))
    t0 = time.monotonic()
    (c,) = backend(srv, backoff_max_s=0.2).chat([req("x")])
    assert c.error is None
    assert time.monotonic() - t0 < 5


def test_parse_retry_after():
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("0.5") == 0.5
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past


def test_timeout_retried_then_error(server):
    srv = server(Faults(hang_first=100, hang_s=20))
    t0 = time.monotonic()
    (c,) = backend(srv, timeout_s=0.3, max_retries=2).chat([req("slow")])
    elapsed = time.monotonic() - t0
    assert c.text is None
    assert "timeout" in c.error and "3 attempts" in c.error
    assert srv.n_requests == 3
    assert elapsed < 5


def test_timeout_then_success(server):
    srv = server(Faults(hang_first=1, hang_s=20))
    (c,) = backend(srv, timeout_s=0.5, max_retries=3).chat([req("slow once")])
    assert echo(c)["echo"] == "slow once"
    assert srv.n_requests == 2


def test_400_not_retried(server):
    srv = server(Faults(always_status=400, error_message="max_tokens is too large"))
    (c,) = backend(srv, max_retries=5).chat([req("x")])
    assert srv.n_requests == 1
    assert c.text is None
    assert "400" in c.error and "max_tokens is too large" in c.error


def test_one_bad_request_does_not_affect_others(server):
    srv = server(Faults(status_for_text={"bad": 422}))
    out = backend(srv).chat([req("good 1"), req("bad"), req("good 2")])
    assert echo(out[0])["echo"] == "good 1"
    assert out[1].text is None and "422" in out[1].error
    assert echo(out[2])["echo"] == "good 2"
    assert srv.n_requests == 3


def test_malformed_json_is_an_error_not_an_empty_reply(server):
    srv = server(Faults(malformed=True))
    (c,) = backend(srv).chat([req("x")])
    assert c.text is None
    assert "malformed" in c.error


def test_connection_refused_is_retried_then_error():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    b = OpenAIBackend(
        "t", "m", f"http://127.0.0.1:{port}/v1", max_retries=2, backoff_s=0.01, backoff_max_s=0.02
    )
    t0 = time.monotonic()
    with pytest.raises(ServerUnavailable, match=f"127.0.0.1:{port}/v1 is not reachable"):
        b.chat([req("x"), req("y")])   # the first connection error checks the server: it is gone
    assert time.monotonic() - t0 < 15
    with pytest.raises(ServerUnavailable, match="not reachable"):
        b.preflight()
    d = b.describe()  # best effort: never fails
    assert d["server_models"] is None and d["backend"] == "openai"


def test_preflight_names_a_server_that_serves_another_model(server):
    srv = server()
    backend(srv).preflight()   # serves test-model
    with pytest.raises(ServerUnavailable, match="serves .*test-model.*not 'other-model'"):
        OpenAIBackend("t", "other-model", srv.base_url).preflight()
    OpenAIBackend("t", "other-model", srv.base_url, check_model=False).preflight()


def test_server_dying_mid_run_stops_every_request_quickly(server):
    srv = server(Faults(delay_s=0.05))
    b = backend(srv, max_retries=5, backoff_s=0.5, backoff_max_s=4, concurrency=2)
    reqs = [req(f"q{i}") for i in range(200)]
    stopper = threading.Timer(0.5, srv.stop)
    stopper.start()
    t0 = time.monotonic()
    with pytest.raises(ServerUnavailable, match=srv.base_url.replace(".", r"\.")):
        b.chat(reqs)
    stopper.join()
    assert time.monotonic() - t0 < 30
    assert 0 < len(srv.finished) < 200


def test_retry_budget_bounds_a_request(server):
    srv = server(Faults(always_status=503))
    b = backend(srv, max_retries=50, backoff_s=0.2, backoff_max_s=0.2, retry_budget_s=1.0)
    t0 = time.monotonic()
    (c,) = b.chat([req("x")])
    assert time.monotonic() - t0 < 5
    assert "retry_budget_s=1" in c.error and "HTTP 503" in c.error and srv.n_requests < 10


def test_images_and_sampling_fields_arrive(server):
    srv = server()
    messages = [
        {"role": "system", "content": "你是医生"},
        {
            "role": "user",
            "content": [
                {"type": "image_url", "image_url": {"url": PNG_URL}},
                {"type": "image_url", "image_url": {"url": PNG_URL}},
                {"type": "text", "text": "这是什么？"},
            ],
        },
    ]
    sampling = Sampling(temperature=0.7, top_p=0.9, top_k=20, max_tokens=77, seed=123,
                        repetition_penalty=1.05, presence_penalty=0.5, stop=("</answer>",))
    r = ChatRequest(messages=messages, sampling=sampling, chat_template_kwargs={"enable_thinking": False})
    (c,) = backend(srv).chat([r])
    got = echo(c)
    assert got["echo"] == "这是什么？" and got["n_images"] == 2 and got["model"] == "test-model"
    body = srv.requests[0].body
    assert body["messages"] == messages  # passed through unchanged, data URLs included
    assert body["model"] == "test-model"
    assert body["temperature"] == 0.7 and body["top_p"] == 0.9 and body["max_tokens"] == 77
    assert body["seed"] == 123 and body["stop"] == ["</answer>"] and body["presence_penalty"] == 0.5
    assert body["top_k"] == 20 and body["repetition_penalty"] == 1.05
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert "response_format" not in body and "guided_json" not in body


def test_default_extras_left_out(server):
    srv = server()
    backend(srv).chat([req("x")])  # Sampling defaults: top_k=-1, repetition_penalty=1.0, no stop
    body = srv.requests[0].body
    for key in ("top_k", "repetition_penalty", "chat_template_kwargs", "response_format", "stop"):
        assert key not in body
    assert body["seed"] == 0 and body["temperature"] == 0.0


def test_extra_body_merged(server):
    srv = server()
    b = backend(srv, extra_body={"chat_template_kwargs": {"enable_thinking": False, "a": 1},
                                 "skip_special_tokens": False, "temperature": 5.0})
    r = ChatRequest(messages=[{"role": "user", "content": "x"}], sampling=Sampling(temperature=0.2),
                    chat_template_kwargs={"a": 2})
    b.chat([r])
    body = srv.requests[0].body
    assert body["skip_special_tokens"] is False
    assert body["temperature"] == 0.2  # the request's own sampling wins
    assert body["chat_template_kwargs"] == {"enable_thinking": False, "a": 2}


def test_extra_body_from_omegaconf(server):
    from omegaconf import OmegaConf

    srv = server()
    cfg = OmegaConf.create({"chat_template_kwargs": {"enable_thinking": False}, "stop_token_ids": [1, 2]})
    (c,) = backend(srv, extra_body=cfg).chat([req("x")])
    assert c.error is None
    body = srv.requests[0].body
    assert body["chat_template_kwargs"] == {"enable_thinking": False} and body["stop_token_ids"] == [1, 2]


SCHEMA = {
    "type": "object",
    "properties": {
        "met": {"type": "boolean"},
        "reason": {"type": "string"},
        "score": {"type": "integer", "minimum": 0},
    },
    "required": ["met", "reason", "score"],
    "additionalProperties": False,
}


def test_json_schema_as_response_format(server):
    srv = server()
    r = ChatRequest(messages=[{"role": "user", "content": "grade"}], sampling=Sampling(), json_schema=SCHEMA)
    (c,) = backend(srv).chat([r])
    body = srv.requests[0].body
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "verdict", "schema": SCHEMA, "strict": True},
    }
    assert "guided_json" not in body
    jsonschema.validate(json.loads(c.text), SCHEMA)


def test_guided_json_is_refused_because_servers_ignore_it(server):
    with pytest.raises(ValueError, match="ignore `guided_json`.*response_format"):
        backend(server(), structured="guided_json")


@pytest.mark.parametrize("mode", ["structured_outputs", "none"])
def test_json_schema_other_modes(server, mode):
    srv = server()
    r = ChatRequest(messages=[{"role": "user", "content": "grade"}], sampling=Sampling(), json_schema=SCHEMA)
    (c,) = backend(srv, structured=mode).chat([r])
    body = srv.requests[0].body
    assert "response_format" not in body
    if mode == "structured_outputs":
        assert body["structured_outputs"] == {"json": SCHEMA}
    else:
        assert "guided_json" not in body and "structured_outputs" not in body
        assert echo(c)["echo"] == "grade"


def test_bad_structured_mode_rejected():
    with pytest.raises(ValueError):
        OpenAIBackend("t", "m", "http://127.0.0.1:1/v1", structured="grammar")


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_and_usage_parsed(server, field):
    srv = server(
        Faults(reasoning="先看舌象……", reasoning_field=field, finish_reason="length", cached_tokens=16)
    )
    (c,) = backend(srv).chat([req("x")])
    assert c.reasoning == "先看舌象……"
    assert c.finish_reason == "length"
    assert c.cached_tokens == 16
    assert c.prompt_tokens and c.prompt_tokens > 0 and c.completion_tokens and c.completion_tokens > 0
    assert echo(c)["echo"] == "x"


def test_null_content_is_empty_text_not_error(server):
    srv = server(Faults(content_null=True, reasoning="thinking", finish_reason="length"))
    (c,) = backend(srv).chat([req("x")])
    assert c.error is None and c.text == "" and c.reasoning == "thinking" and c.finish_reason == "length"
    assert c.cached_tokens is None


def test_api_key_sent_but_never_logged(server, caplog):
    key = "sk-medrealmm-SECRET-1234567890"
    caplog.set_level(logging.DEBUG)  # everything, httpx/httpcore included
    srv = server(Faults(fail_first=1, fail_status=500, status_for_text={"bad": 401}))
    b = backend(srv, api_key=key, max_retries=1)
    out = b.chat([req("ok"), req("bad")], desc="keyed")
    d = b.describe()
    assert out[0].error is None and "401" in out[1].error
    assert all(r.headers.get("authorization") == f"Bearer {key}" for r in srv.requests)
    assert srv.model_list_calls == 1
    assert caplog.records, "expected some log output"
    assert any("keyed" in r.getMessage() for r in caplog.records)  # the summary line
    assert key not in caplog.text
    assert key not in repr(b) and key not in json.dumps(d) and key not in str(out)


def test_no_authorization_without_key(server):
    srv = server()
    backend(srv).chat([req("x")])
    assert "authorization" not in srv.requests[0].headers


def test_summary_logged_at_info(server, caplog):
    caplog.set_level(logging.INFO, logger="medrealmm.inference.openai_backend")
    srv = server()
    backend(srv).chat([req("x"), req("y")], desc="summary-test")
    lines = [r.getMessage() for r in caplog.records if r.name == "medrealmm.inference.openai_backend"
             and r.levelno == logging.INFO]
    assert any("summary-test" in m and "2 requests" in m and "0 errors" in m for m in lines)


def test_describe_lists_models(server):
    srv = server()
    d = backend(srv, concurrency=7).describe()
    assert d["backend"] == "openai" and d["base_url"] == srv.base_url and d["model"] == "test-model"
    assert d["concurrency"] == 7 and d["structured"] == "response_format"
    assert {"timeout_s", "max_retries"} <= d.keys()
    assert d["server_models"][0]["id"] == "test-model"
    assert d["server_models"][0]["max_model_len"] == 4096
    assert "permission" not in d["server_models"][0]


def test_chat_from_running_event_loop(server):
    srv = server()
    b = backend(srv)

    async def main():
        return b.chat([req("inside a loop")])

    (c,) = asyncio.run(main())
    assert echo(c)["echo"] == "inside a loop"


def test_empty_batch_and_close(server):
    srv = server()
    b = backend(srv)
    assert b.chat([]) == []
    b.close()
    assert srv.n_requests == 0
