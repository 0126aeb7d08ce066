#!/usr/bin/env python3
"""mock_llama: a scripted stand-in for llama-server, for hearth's tests.

Python 3 standard library only.  It listens on 127.0.0.1 only (an
ephemeral port unless --port is given), prints "PORT <n>" as its first
stdout line (and/or writes the port to --port-file), and stops by itself
after --max-seconds, after --max-requests, or on SIGTERM/SIGINT.

    python3 tests/net/mock_llama.py --scenario S.json --fixtures DIR --log REQ.jsonl

Endpoints (shapes taken from the recorded fixtures, see the fixtures
README): GET /health /v1/health, GET /props, GET /v1/models /models,
GET /slots (501 when the scenario says "slots": false), GET /metrics,
POST /tokenize (about one token per 4 bytes), POST /v1/chat/completions
(also /chat/completions), answered by the next entry of the scenario's
"turns" list; once the list is used up every chat request gets the plain
answer "done.".  While "loading" (the first loading_for_requests requests)
every route answers 503 "Loading model", as the real server does.

POST /slots/{id}?action=save|restore|erase (501 unless the scenario
gives "slot_save_path": DIR; the saved file holds the simulated cache).
"save_delay_s": N answers a save N seconds late, "slots_delay_s": N every
GET /slots (a poll still out when the client quits), "props_delay_s": N
every GET /props (a discovery that ends after another server's).

POST /apply-template and a cache simulated on the rendered prompt (the
Qwen3.5 template, see mock_template.py) when the scenario says
"template": "qwen35"; "hybrid": true adds the rollback of hybrid models
(a divergence inside the slot resumes from the end of an earlier prompt);
"gen_drift": true makes the generated text in the slot differ from how
the template renders it later (a real tokenizer's boundaries).  POST
/completion (text prompt, nothing generated) updates the slot the same way.

A plain OpenAI-compatible server (vLLM, Ollama, LM Studio... as hearth
must treat them, by probing): "plain": true serves only GET /v1/models and
POST /v1/chat/completions (everything else 404, /health included), and
its streams carry no prompt_progress and no timings, only usage when
stream_options.include_usage asks for it.  "models": {...} replaces the
/v1/models answer (e.g. {"object":"list","data":[{"id":"m","max_model_len":N}]}).
"render_prompt": "..." makes POST /apply-template answer {"prompt": ...}
(how the engine renders a request: an open "<think>" at the end means
thinking is on at the engine) and "render_error": "..." answers it 500
with that message (--no-jinja: "tools param requires --jinja flag").
"api_key": "K" answers 401 to every request (GET /health aside) without
"Authorization: Bearer K".  "slots_live": true makes /slots show what the mock
served: per slot the last request's task number (id_task), its prompt size and
is_processing while it streams (a hang keeps it busy).  "props": {...} is merged into /props, "slots_body":
[...] replaces the /slots answer and "metrics_text": "..." the /metrics
text (scripted misconfigurations for `hearth doctor`).

Engines for teams, by their shape (what hearth sees of them), "shape":
    "vllm"    GET /health (200, empty), GET /v1/models with max_model_len (the
              scenario's n_ctx, else 32768), GET /metrics with
              vllm:num_requests_running / vllm:num_requests_waiting, POST
              /v1/chat/completions (usage, no timings); no /props, no /slots
    "sglang"  the same with sglang:num_running_reqs / sglang:num_queue_reqs
              and GET /get_model_info
    "llama-swap"  one port in front of several llama-servers: GET /health
              ("OK"), GET /v1/models listing "swap_models" (ids), GET /running
              (the models loaded), POST /v1/chat/completions by the request's
              "model": a model not loaded yet is loaded first ("load_s"
              seconds, 1.5 by default, before the headers; 404 for an id not
              listed), and each model's own llama-server endpoints under
              /upstream/NAME/ (/health, /props, /slots, /metrics); nothing else
              at the root
"load": [running, waiting] is what /metrics states (all shapes, llama-server's
too: llamacpp:requests_processing / llamacpp:requests_deferred).

Scenario: {"loading_for_requests": N, "slots": true|false, "n_ctx": N,
"turns": [TURN...]}.  A TURN is one of
    {"fixture": "chat_stream_tools.sse"}        the file's bytes, as is
    {"text": "..."}                             a generated llama stream
    {"tool_calls": [{"name", "arguments"}], "text"?}
    {"content_tool_call": "<tool_call>...</tool_call>", "text"?}
    {"stream_error": "toolparse" | "<message>", "text"?}
    {"http_error": 400, "body_fixture": "error_context_exceeded.txt"}
    {"http_error": 500, "body": "..."}
and any turn may add "chunk_bytes" (write the body N bytes at a time),
"delay_ms" (sleep between writes), "drop_after_bytes" (abort the
connection after N body bytes: no terminating chunk, no [DONE]), "hang"
(headers and the first progress chunk, then silence until the client
goes away or the mock stops; "hang": "headers": the headers alone), "pause_s" (after the
headers, N seconds of silence, then the answer; with "slots_live" the slot's
n_decoded grows meanwhile, as a server busy with a long prompt), "piece_size" (characters per content
delta), "repeat" (the text repeated N times).

Streams use HTTP/1.1 chunked transfer encoding, one chunk per write, on a
socket with TCP_NODELAY, so a client sees every event as soon as it is
written.  The prefix cache is simulated per slot: the leading messages a
request shares with the previous request on that slot count as cached.

Request log (--log, JSON lines, appended and flushed line by line):
    {"event":"request","seq","method","path","query","headers","body","t"}
        written when a request has been read, before it is answered;
        body is the parsed JSON (null when empty, {"_raw": text} when not JSON)
    {"event":"served","seq","path","status","served_ms","turn","kind",
     "tool_call_ids","final","bytes","client_disconnected","dropped"}
        written when the answer is finished; served_ms is the time the mock
        spent on the request (read to last byte), for overhead figures;
        final is the usage and timings a generated stream reported.
"""

import argparse
import json
import os
import random
import re
import select
import signal
import socket
import string
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mock_template  # noqa: E402  (next to this file)

TOOLPARSE_MSG = ("The model produced output that does not match the expected "
                 "Qwen3-Coder format")
LOADING_BODY = {"error": {"message": "Loading model", "type": "unavailable_error",
                          "code": 503}}
NOT_FOUND_BODY = {"error": {"code": 404, "message": "File Not Found",
                            "type": "not_found_error"}}
SLOTS_OFF_BODY = {"error": {"code": 501, "message":
                            "This server does not support slots endpoint. Start it with `--slots`",
                            "type": "not_supported_error"}}
PIECES = (3, 1, 5, 2, 4, 6, 2, 7)      # content delta sizes, in characters
ARG_CUTS = (1, 7, 3, 11, 2, 5, 9, 4)   # odd split points inside tool arguments
ALNUM = string.ascii_letters + string.digits


def rand_id(n=32):
    """A llama-style random alphanumeric id."""
    return "".join(random.choice(ALNUM) for _ in range(n))


def tok_estimate(text):
    """About one token per 4 bytes, at least 1 for non-empty text."""
    n = len(text.encode("utf-8"))
    return (n + 3) // 4 if n else 0


def canon(obj):
    """Canonical JSON text of obj (stable key order) for prefix comparison."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def cut(text, sizes):
    """Split text into pieces whose lengths cycle through sizes."""
    out, i, k = [], 0, 0
    while i < len(text):
        n = sizes[k % len(sizes)]
        out.append(text[i:i + n])
        i += n
        k += 1
    return out


def load_error_fixture(path):
    """(status, headers, body) from an error_*.txt fixture.

    Two layouts are understood: a raw HTTP response (status line, headers,
    blank line, body), or the recorded form: the body followed by a last
    line "HTTP <status>"."""
    raw = open(path, "rb").read()
    if raw.startswith(b"HTTP/"):
        sep = b"\r\n\r\n" if b"\r\n\r\n" in raw else b"\n\n"
        head, _, body = raw.partition(sep)
        lines = head.replace(b"\r\n", b"\n").split(b"\n")
        status = int(lines[0].split()[1])
        headers = {}
        for ln in lines[1:]:
            k, _, v = ln.decode("latin-1").partition(":")
            if k.lower() not in ("content-length", "transfer-encoding", "connection"):
                headers[k.strip()] = v.strip()
        return status, headers, body
    lines = raw.rstrip(b"\n").split(b"\n")
    m = re.fullmatch(rb"HTTP (\d{3})", lines[-1].strip())
    if m:
        return int(m.group(1)), {}, b"\n".join(lines[:-1])
    return None, {}, raw


class State:
    """Everything the handler threads share, behind one lock."""

    def __init__(self, args, scenario):
        self.args = args
        self.scenario = scenario
        self.lock = threading.Lock()
        self.seq = 0
        self.done = 0
        self.turn = 0
        self.slots = {}          # slot id -> (tools canon, [message canon...])
        self.rslots = {}         # template mode: slot id -> {"text", "ckpt": [end of each prompt]}
        self.stop = threading.Event()
        self.stop_reason = None
        self.fixtures = args.fixtures
        self.props = self.load_json("props.json", {})
        self.models = self.load_json("v1_models.json", {"object": "list", "data": []})
        self.slots_idle = self.load_json("slots_idle.json", [])
        n_ctx = scenario.get("n_ctx")
        if isinstance(n_ctx, int):
            self.props.setdefault("default_generation_settings", {})["n_ctx"] = n_ctx
            for m in self.models.get("data", []):
                m.setdefault("meta", {})["n_ctx"] = n_ctx
            for s in self.slots_idle:
                s["n_ctx"] = n_ctx
        if isinstance(scenario.get("props"), dict):
            self.props.update(scenario["props"])
        if isinstance(scenario.get("models"), dict):
            self.models = scenario["models"]
        if isinstance(scenario.get("slots_body"), list):
            self.slots_idle = scenario["slots_body"]
        self.shape = scenario.get("shape") or ""
        self.plain = scenario.get("plain") is True or self.shape in ("vllm", "sglang")
        if self.shape in ("vllm", "sglang") and not isinstance(scenario.get("models"), dict):
            self.models = {"object": "list", "data": [
                {"id": "Qwen/Qwen3-8B", "object": "model", "owned_by": self.shape,
                 "max_model_len": n_ctx if isinstance(n_ctx, int) else 32768}]}
        self.swap_models = [m for m in scenario.get("swap_models") or [] if isinstance(m, str)]
        self.swap_loaded = []
        if self.shape == "llama-swap":
            self.models = {"object": "list", "data": [
                {"id": m, "object": "model", "created": 1700000000, "owned_by": "llama-swap"}
                for m in self.swap_models]}
        self.model = self.props.get("model_alias") or "local-tiny"
        if self.plain:
            ids = [m.get("id") for m in self.models.get("data", []) if isinstance(m, dict)]
            self.model = ids[0] if ids and ids[0] else self.model
        self.n_slots = max(1, int(self.props.get("total_slots") or 1))
        self.live = {}           # "slots_live": slot id -> {"task", "tokens", "busy"}

    def live_task(self, body, tokens=None, busy=None):
        """"slots_live": a request to a slot is a new task there (/slots shows it)."""
        if not self.scenario.get("slots_live"):
            return
        slot = body.get("id_slot") if isinstance(body, dict) else None
        slot = slot % self.n_slots if isinstance(slot, int) and slot >= 0 else 0
        with self.lock:
            cur = self.live.setdefault(slot, {"task": -1, "tokens": 0, "busy": False})
            if tokens is not None:
                cur["decoded"] = 0
                self.seq_task = getattr(self, "seq_task", 0) + 1
                cur["task"] = self.seq_task
                cur["tokens"] = tokens
            if busy is not None:
                cur["busy"] = busy

    def live_slots(self):
        """/slots built from the requests the mock served ("slots_live")."""
        out = []
        with self.lock:
            for i in range(self.n_slots):
                cur = self.live.get(i, {"task": -1, "tokens": 0, "busy": False})
                out.append({"id": i, "n_ctx": int(self.scenario.get("n_ctx") or 4096), "id_task": cur["task"],
                            "is_processing": cur["busy"], "n_prompt_tokens": cur["tokens"],
                            "next_token": [{"has_next_token": cur["busy"], "n_remain": -1,
                                            "n_decoded": cur.get("decoded", 0)}]})
        return out

    def load_json(self, name, default):
        """A fixture's parsed JSON, or default when the file is missing."""
        try:
            with open(os.path.join(self.fixtures, name), "rb") as f:
                return json.load(f)
        except OSError:
            return default

    def fixture_path(self, name):
        """Resolve a fixture name: the fixtures dir first, then the scenario's dir."""
        p = os.path.join(self.fixtures, name)
        if os.path.exists(p):
            return p
        return os.path.join(os.path.dirname(os.path.abspath(self.args.scenario)), name)

    def next_seq(self):
        with self.lock:
            self.seq += 1
            return self.seq

    def next_turn(self):
        """(index, turn) of the next scripted chat answer."""
        with self.lock:
            i = self.turn
            self.turn += 1
        turns = self.scenario.get("turns", [])
        if i < len(turns):
            return i, turns[i]
        return i, {"text": "done."}

    def log(self, rec):
        """Append one JSON line to the request log."""
        if not self.args.log:
            return
        line = json.dumps(rec, ensure_ascii=False) + "\n"
        with self.lock:
            with open(self.args.log, "a", encoding="utf-8") as f:
                f.write(line)
                f.flush()

    def finished(self):
        """Count a finished request; stop once --max-requests is reached."""
        with self.lock:
            self.done += 1
            n = self.done
        if self.args.max_requests and n >= self.args.max_requests:
            self.request_stop("max-requests")

    def request_stop(self, why):
        if self.stop_reason is None:
            self.stop_reason = why
        self.stop.set()

    def render_cache(self, body, msgs, tools, slot):
        """Template mode: (total, cache) from the rendered prompt and the
        text the slot holds (see mock_template)."""
        kw = body.get("chat_template_kwargs")
        et = kw.get("enable_thinking", True) if isinstance(kw, dict) else True
        prompt = mock_template.render(msgs, tools, et)
        with self.lock:
            prev = self.rslots.get(slot)
            keep = 0
            if prev is not None and body.get("cache_prompt", True) is not False:
                n = mock_template.common_prefix(prev["text"], prompt)
                if n >= len(prev["text"]) or not self.scenario.get("hybrid"):
                    keep = n
                else:
                    keep = max([c for c in prev["ckpt"] if c <= n], default=0)
            ckpt = [c for c in prev["ckpt"] if c <= keep] if prev else []
            # what a perfect client reuses: everything the slot holds, when
            # this prompt extends it (the bench's "theoretical maximum")
            body["_slot_tokens"] = tok_estimate(prev["text"]) if prev else 0
            # llama-server checkpoints a little before the end of each prompt
            # (it re-processes the last few tokens anyway) and at its end
            self.rslots[slot] = {"text": prompt,
                                 "ckpt": ckpt + [max(0, len(prompt) - 64), len(prompt)]}
        total = max(1, tok_estimate(prompt))
        return total, min(tok_estimate(prompt[:keep]), total - 1)

    def note_generated(self, body, content, calls):
        """Template mode: the slot now also holds what the model generated."""
        if not self.scenario.get("template"):
            return
        slot = body.get("id_slot")
        slot = slot % self.n_slots if isinstance(slot, int) and slot >= 0 else 0
        with self.lock:
            r = self.rslots.get(slot)
            if r is not None:
                # "gen_drift": the generated tokens do not re-tokenize as the
                # template renders them later (a real tokenizer's boundaries)
                r["text"] += ("\u2063" if self.scenario.get("gen_drift") else "") + \
                    mock_template.generated(content, calls)

    def prefix_cache(self, body):
        """(total, cache) prompt tokens, from a rough template estimate and
        the leading part this request shares with the slot's previous one."""
        tools = body.get("tools") or []
        msgs = body.get("messages") or []
        if not isinstance(msgs, list):
            msgs = []
        tools_c = canon(tools) if tools else ""
        msg_c = [canon(m) for m in msgs]
        if self.scenario.get("template"):
            slot = body.get("id_slot")
            slot = slot % self.n_slots if isinstance(slot, int) and slot >= 0 else 0
            return self.render_cache(body, msgs, tools, slot)
        head = 8 + tok_estimate(tools_c)
        msg_t = [4 + tok_estimate(m) for m in msg_c]
        total = head + sum(msg_t) + 3
        slot = body.get("id_slot")
        slot = slot % self.n_slots if isinstance(slot, int) and slot >= 0 else 0
        with self.lock:
            prev = self.slots.get(slot)
            self.slots[slot] = (tools_c, msg_c)
        cache = 0
        if prev is not None and body.get("cache_prompt", True) is not False \
                and prev[0] == tools_c:
            cache = head
            for a, b, t in zip(prev[1], msg_c, msg_t):
                if a != b:
                    break
                cache += t
        return total, min(cache, total - 1)


class Stream:
    """Builds the SSE events of one generated chat answer."""

    def __init__(self, state, body, total, cache):
        self.model = state.model
        self.id = "chatcmpl-" + rand_id()
        self.created = int(time.time())
        self.body = body
        self.total, self.cache = total, cache
        self.plain = state.plain
        self.progress = body.get("return_progress") is True and not state.plain
        so = body.get("stream_options")
        self.usage = isinstance(so, dict) and so.get("include_usage") is True
        self.events = []
        self.predicted = 0
        self.tool_ids = []
        self.final = None        # {"usage", "timings"} once finished

    def chunk(self, delta, finish=None, **extra):
        obj = {"choices": [{"finish_reason": finish, "index": 0, "delta": delta}],
               "created": self.created, "id": self.id, "model": self.model,
               "system_fingerprint": "b0-unknown", "object": "chat.completion.chunk"}
        obj.update(extra)
        return obj

    def add(self, obj):
        self.events.append(b"data: " + json.dumps(
            obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n\n")

    def prompt_ms(self):
        return round(0.4 + (self.total - self.cache) * 0.03, 3)

    def begin(self):
        """Progress chunks (when asked for) and the role chunk."""
        role = {"role": "assistant", "content": None}
        if self.progress:
            self.add(self.chunk(role, prompt_progress={
                "total": self.total, "cache": self.cache, "processed": self.cache,
                "time_ms": 0}))
            self.add(self.chunk(role, prompt_progress={
                "total": self.total, "cache": self.cache, "processed": self.total,
                "time_ms": int(self.prompt_ms())}))
        self.add(self.chunk(role))

    def text(self, text, piece_size=None):
        sizes = (piece_size,) if piece_size else PIECES
        for p in cut(text, sizes):
            self.add(self.chunk({"content": p}))
            self.predicted += 1

    def tool_calls(self, calls):
        for i, c in enumerate(calls):
            args = c.get("arguments", {})
            atext = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
            frags = cut(atext, ARG_CUTS) or [""]
            tid = c.get("id") or rand_id()
            self.tool_ids.append(tid)
            self.add(self.chunk({"tool_calls": [{
                "index": i, "id": tid, "type": "function",
                "function": {"name": c.get("name", ""), "arguments": frags[0]}}]}))
            for f in frags[1:]:
                self.add(self.chunk({"tool_calls": [{
                    "index": i, "function": {"arguments": f}}]}))
            self.predicted += len(frags) + 4

    def timings(self):
        prompt_n = self.total - self.cache
        pms = self.prompt_ms()
        pred_n = max(1, self.predicted)
        dms = round(pred_n * 3.332, 3)
        return {"cache_n": self.cache, "prompt_n": prompt_n, "prompt_ms": pms,
                "prompt_per_token_ms": pms / max(1, prompt_n),
                "prompt_per_second": 1000.0 * prompt_n / pms,
                "predicted_n": pred_n, "predicted_ms": dms,
                "predicted_per_token_ms": dms / pred_n,
                "predicted_per_second": 1000.0 * pred_n / dms}

    def finish(self, reason):
        """Finish chunk, usage+timings chunk (or timings on the finish
        chunk when usage was not asked for), [DONE]."""
        t = self.timings()
        u = {"completion_tokens": t["predicted_n"], "prompt_tokens": self.total,
             "total_tokens": self.total + t["predicted_n"],
             "prompt_tokens_details": {"cached_tokens": self.cache}}
        self.final = {"usage": u, "timings": t}
        if "_slot_tokens" in self.body:
            self.final["slot_tokens"] = self.body["_slot_tokens"]
        if self.plain:  # an OpenAI-compatible server: usage when asked, never timings
            u.pop("prompt_tokens_details", None)
            self.final = {"usage": u if self.usage else None, "timings": None}
            self.add(self.chunk({}, reason))
            if self.usage:
                obj = self.chunk({}, None, usage=u)
                obj["choices"] = []
                self.add(obj)
        elif self.usage:
            self.add(self.chunk({}, reason))
            obj = self.chunk({}, None, usage=u, timings=t)
            obj["choices"] = []
            self.add(obj)
        else:
            self.add(self.chunk({}, reason, timings=t))
        self.events.append(b"data: [DONE]\n\n")

    def error(self, message, code=500, etype="server_error"):
        self.add({"error": {"code": code, "message": message, "type": etype}})

    def message(self, text, calls):
        """The non-streaming answer (stream:false)."""
        msg = {"role": "assistant", "content": text or None}
        if calls:
            msg["tool_calls"] = [{
                "type": "function", "id": tid,
                "function": {"name": c.get("name", ""), "arguments":
                             c["arguments"] if isinstance(c.get("arguments"), str)
                             else json.dumps(c.get("arguments", {}))}}
                for c, tid in zip(calls, self.tool_ids)]
        t = self.timings()
        return {"choices": [{"finish_reason": "tool_calls" if calls else "stop",
                             "index": 0, "message": msg}],
                "created": self.created, "model": self.model,
                "system_fingerprint": "b0-unknown", "object": "chat.completion",
                "usage": {"completion_tokens": t["predicted_n"],
                          "prompt_tokens": self.total,
                          "total_tokens": self.total + t["predicted_n"],
                          "prompt_tokens_details": {"cached_tokens": self.cache}},
                "id": self.id, "timings": t}


def turn_text(turn, default=""):
    """The turn's text, repeated "repeat" times (for long answers)."""
    return turn.get("text", default) * max(1, int(turn.get("repeat", 1)))


def build_turn(state, turn, body):
    """(events, kind, tool ids, stream) for a streamed turn."""
    total, cache = state.prefix_cache(body)
    s = Stream(state, body, total, cache)
    s.begin()
    ps = turn.get("piece_size")
    if "stream_error" in turn:
        s.text(turn.get("text", "I will edit the file now.\n<tool_call>\n<function=edit>\n"
                                "<parameter=path>\nhello.c"), ps)
        msg = turn["stream_error"]
        s.error(TOOLPARSE_MSG if msg in ("toolparse", True) else str(msg),
                int(turn.get("error_code", 500)), turn.get("error_type", "server_error"))
        return s.events, "stream_error", [], s
    if "content_tool_call" in turn:
        s.text(turn_text(turn) + turn["content_tool_call"], ps)
        state.note_generated(body, turn_text(turn) + turn["content_tool_call"], [])
        s.finish("stop")
        return s.events, "content_tool_call", [], s
    if "tool_calls" in turn:
        if turn.get("text"):
            s.text(turn_text(turn), ps)
        s.tool_calls(turn["tool_calls"])
        state.note_generated(body, turn_text(turn), turn["tool_calls"])
        s.finish("tool_calls")
        return s.events, "tool_calls", s.tool_ids, s
    s.text(turn_text(turn, "done."), ps)
    state.note_generated(body, turn_text(turn, "done."), [])
    s.finish(turn.get("finish_reason", "stop"))
    return s.events, "text", [], s


def split_events(raw):
    """Split fixture bytes into SSE events, keeping every byte."""
    parts, start = [], 0
    while True:
        i = raw.find(b"\n\n", start)
        if i < 0:
            break
        parts.append(raw[start:i + 2])
        start = i + 2
    if start < len(raw):
        parts.append(raw[start:])
    return parts


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "llama.cpp-mock"
    sys_version = ""
    disable_nagle_algorithm = True
    state = None  # set in main()

    def version_string(self):
        return "llama.cpp-mock"

    def log_message(self, fmt, *a):
        if self.state.args.verbose:
            sys.stderr.write("mock: " + (fmt % a) + "\n")

    # ---- plumbing -------------------------------------------------------
    def read_body(self):
        te = (self.headers.get("Transfer-Encoding") or "").lower()
        if "chunked" in te:
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def send_json(self, status, obj, raw=None, headers=None):
        if raw is None:
            raw = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        body = raw
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Access-Control-Allow-Origin", "*")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self.rec.update(status=status, bytes=len(body))

    def write_body(self, data, turn):
        """Write one event of a chunked body, honouring chunk_bytes, delay_ms
        and drop_after_bytes; False once the stream must end."""
        step = int(turn.get("chunk_bytes") or 0) or len(data)
        limit = turn.get("drop_after_bytes")
        delay = (turn.get("delay_ms") or 0) / 1000.0
        for i in range(0, len(data), step):
            piece = data[i:i + step]
            if delay and self.sent:
                time.sleep(delay)
            if limit is not None and self.sent + len(piece) >= limit:
                piece = piece[:max(0, limit - self.sent)]
                if piece:
                    self.raw_chunk(piece)
                self.drop()
                return False
            self.raw_chunk(piece)
        return True

    def raw_chunk(self, piece):
        self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
        self.wfile.flush()
        self.sent += len(piece)

    def drop(self):
        """Abort the connection in the middle of the body."""
        self.rec["dropped"] = True
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def start_stream(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()
        self.wfile.flush()
        self.rec["status"] = 200

    def stream(self, events, turn):
        self.start_stream()
        if isinstance(turn.get("pause_s"), (int, float)):
            end = time.monotonic() + turn["pause_s"]
            while time.monotonic() < end and not self.state.stop.is_set():
                time.sleep(0.1)
                with self.state.lock:
                    for cur in self.state.live.values():
                        if cur["busy"]:
                            cur["decoded"] = cur.get("decoded", 0) + 1
        if turn.get("hang"):
            if events and turn.get("hang") != "headers":
                self.raw_chunk(events[0])
            self.hang()
            return
        for ev in events:
            if not self.write_body(ev, turn):
                return
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def hang(self):
        """Say nothing more until the client disconnects or the mock stops."""
        conn = self.connection
        while not self.state.stop.is_set():
            r, _, _ = select.select([conn], [], [], 0.1)
            if not r:
                continue
            try:
                data = conn.recv(4096, socket.MSG_PEEK)
            except OSError:
                data = b""
            if not data:
                self.rec["client_disconnected"] = True
                break
            conn.recv(len(data))  # discard anything the client sends
        self.close_connection = True

    # ---- dispatch -------------------------------------------------------
    def handle_any(self):
        t0 = time.perf_counter()
        st = self.state
        u = urlsplit(self.path)
        seq = st.next_seq()
        self.rec = {"event": "served", "seq": seq, "path": u.path, "status": None,
                    "turn": None, "kind": None, "tool_call_ids": [], "final": None, "bytes": 0,
                    "client_disconnected": False, "dropped": False}
        self.sent = 0
        self.body = None
        try:
            raw = self.read_body()
            body = None
            if raw:
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
            self.body = body
            if st.args.latency_ms > 0:
                time.sleep(st.args.latency_ms / 1000.0)
            st.log({"event": "request", "seq": seq, "method": self.command,
                    "path": u.path, "query": u.query, "headers": dict(self.headers.items()),
                    "body": body, "t": time.time()})
            if seq <= int(st.scenario.get("loading_for_requests") or 0):
                self.send_json(503, LOADING_BODY)
            else:
                self.route(u.path, raw, body)
        except (BrokenPipeError, ConnectionResetError):
            self.rec["client_disconnected"] = True
            self.close_connection = True
        finally:
            if self.rec["bytes"] == 0:
                self.rec["bytes"] = self.sent
            self.rec["served_ms"] = round((time.perf_counter() - t0) * 1000.0, 3)
            st.log(self.rec)
            st.finished()

    def route(self, path, raw, body):
        st = self.state
        m = self.command
        key = st.scenario.get("api_key")
        if key and path != "/health" and self.headers.get("Authorization") != "Bearer " + key:
            self.send_json(401, {"error": {"code": 401, "message": "Invalid API Key",
                                           "type": "authentication_error"}})
            return
        if st.shape == "llama-swap":
            self.swap_route(m, path, raw, body)
            return
        if st.shape in ("vllm", "sglang") and m == "GET" and path in ("/health", "/metrics", "/get_model_info"):
            if path == "/health":
                self.send_json(200, None, raw=b"")
            elif path == "/metrics":
                self.send_metrics()
            elif st.shape == "sglang":
                self.send_json(200, {"model_path": st.model, "is_generation": True})
            else:
                self.send_json(404, {"detail": "Not Found"})
            return
        if st.plain:
            if m == "GET" and path == "/v1/models":
                self.send_json(200, st.models)
            elif m == "POST" and path == "/v1/chat/completions":
                self.chat(raw, body)
            else:
                self.send_json(404, {"detail": "Not Found"})
            return
        if m == "GET" and path in ("/health", "/v1/health"):
            self.send_json(200, {"status": "ok"})
        elif m == "GET" and path == "/props":
            if st.scenario.get("props_delay_s"):
                time.sleep(float(st.scenario["props_delay_s"]))
            self.send_json(200, st.props)
        elif m == "GET" and path in ("/v1/models", "/models"):
            self.send_json(200, st.models)
        elif m == "GET" and path == "/slots":
            if st.scenario.get("slots_delay_s"):
                time.sleep(float(st.scenario["slots_delay_s"]))
            if st.scenario.get("slots", True) is False:
                self.send_json(501, SLOTS_OFF_BODY)
            elif st.scenario.get("slots_live"):
                self.send_json(200, st.live_slots())
            else:
                self.send_json(200, st.slots_idle)
        elif m == "GET" and path == "/metrics":
            self.send_metrics()
        elif m == "POST" and path == "/tokenize":
            self.tokenize(body)
        elif m == "POST" and path in ("/v1/chat/completions", "/chat/completions"):
            self.chat(raw, body)
        elif m == "POST" and path == "/apply-template" and "render_error" in st.scenario:
            self.send_json(500, {"error": {"code": 500, "message": st.scenario["render_error"],
                                           "type": "server_error"}})
        elif m == "POST" and path == "/apply-template" and "render_prompt" in st.scenario:
            self.send_json(200, {"prompt": st.scenario["render_prompt"]})
        elif m == "POST" and path == "/apply-template" and st.scenario.get("template") \
                and not st.scenario.get("no_apply_template"):
            b = body if isinstance(body, dict) else {}
            kw = b.get("chat_template_kwargs")
            et = kw.get("enable_thinking", True) if isinstance(kw, dict) else True
            self.send_json(200, {"prompt": mock_template.render(
                b.get("messages") or [], b.get("tools") or [], et)})
        elif m == "POST" and path == "/completion" and st.scenario.get("template"):
            self.completion(body)
        elif m == "POST" and path.startswith("/slots/"):
            self.slot_action(path, body)
        else:
            self.send_json(404, NOT_FOUND_BODY)

    def slot_action(self, path, body):
        """POST /slots/{id}?action=save|restore|erase, like llama-server with
        --slot-save-path (scenario "slot_save_path"); 501 without it."""
        st = self.state
        q = dict(p.split("=", 1) for p in urlsplit(self.path).query.split("&") if "=" in p)
        action = q.get("action", "")
        save_dir = st.scenario.get("slot_save_path")
        if not save_dir:
            self.send_json(501, {"error": {"code": 501, "type": "not_supported_error",
                                           "message": "This server does not support slots action. "
                                                      "Start it with `--slot-save-path`"}})
            return
        try:
            slot = int(path[len("/slots/"):])
        except ValueError:
            slot = -1
        if slot < 0 or slot >= st.n_slots:
            self.send_json(400, {"error": {"code": 400, "type": "invalid_request_error",
                                           "message": "Invalid slot ID"}})
            return
        name = (body or {}).get("filename", "") if isinstance(body, dict) else ""
        if action in ("save", "restore") and (not isinstance(name, str) or not name
                                              or "/" in name or name.startswith(".")):
            self.send_json(400, {"error": {"code": 400, "type": "invalid_request_error",
                                           "message": "Invalid filename"}})
            return
        fpath = os.path.join(save_dir, name) if name else ""
        if action == "save" and st.scenario.get("save_delay_s"):
            time.sleep(float(st.scenario["save_delay_s"]))
        if action == "save":
            with st.lock:
                cur = st.slots.get(slot, ("", []))
                rtext = (st.rslots.get(slot) or {}).get("text", "")
            data = json.dumps({"model": st.model, "tools": cur[0], "msgs": cur[1], "text": rtext})
            with open(fpath, "w", encoding="utf-8") as f:
                f.write(data)
            n = 8 + tok_estimate(cur[0]) + sum(4 + tok_estimate(m) for m in cur[1])
            if rtext:
                n = tok_estimate(rtext)
            self.send_json(200, {"id_slot": slot, "filename": name, "n_saved": n,
                                 "n_written": len(data), "timings": {"save_ms": 1.5}})
        elif action == "restore":
            try:
                with open(fpath, encoding="utf-8") as f:
                    data = json.load(f)
                if data.get("model") != st.model:
                    raise ValueError("model")
            except (OSError, ValueError):
                self.send_json(400, {"error": {"code": 400, "type": "invalid_request_error",
                                               "message": "Unable to restore slot, no available space in KV cache or invalid slot save file"}})
                return
            with st.lock:
                st.slots[slot] = (data.get("tools", ""), data.get("msgs", []))
                # a restored slot has no context checkpoints (as in llama-server)
                st.rslots[slot] = {"text": data.get("text", ""), "ckpt": []}
            n = 8 + tok_estimate(data.get("tools", "")) + sum(4 + tok_estimate(m) for m in data.get("msgs", []))
            if data.get("text"):  # template mode: the rendered text the slot held
                n = tok_estimate(data["text"])
            self.send_json(200, {"id_slot": slot, "filename": name, "n_restored": n,
                                 "n_read": os.path.getsize(fpath), "timings": {"restore_ms": 2.5}})
        elif action == "erase":
            with st.lock:
                cur = st.slots.pop(slot, ("", []))
            self.send_json(200, {"id_slot": slot, "n_erased": len(cur[1])})
        else:
            self.send_json(400, {"error": {"code": 400, "type": "invalid_request_error",
                                           "message": "Invalid action"}})

    def completion(self, body):
        """Template mode: POST /completion with a text prompt, generating
        nothing (n_predict 0): the slot's simulated cache ends at the prompt."""
        st = self.state
        b = body if isinstance(body, dict) else {}
        prompt = b.get("prompt") if isinstance(b.get("prompt"), str) else ""
        slot = b.get("id_slot")
        slot = slot % st.n_slots if isinstance(slot, int) and slot >= 0 else 0
        with st.lock:
            prev = st.rslots.get(slot)
            keep = 0
            if prev is not None and b.get("cache_prompt", True) is not False:
                n = mock_template.common_prefix(prev["text"], prompt)
                if n >= len(prev["text"]) or not st.scenario.get("hybrid"):
                    keep = n
                else:
                    keep = max([c for c in prev["ckpt"] if c <= n], default=0)
            ckpt = [c for c in prev["ckpt"] if c <= keep] if prev else []
            st.rslots[slot] = {"text": prompt, "ckpt": ckpt + [len(prompt)]}
        total = max(1, tok_estimate(prompt))
        cache = min(tok_estimate(prompt[:keep]), total - 1)
        timings = {"cache_n": cache, "prompt_n": total - cache, "predicted_n": 0}
        st.live_task(b, tokens=total)
        self.rec.update(kind="completion", final={"timings": timings, "slot": slot})
        self.send_json(200, {"content": "", "id_slot": slot, "tokens_evaluated": total,
                             "stop": True, "stop_type": "limit", "timings": timings})

    def swap_route(self, m, path, raw, body):
        """llama-swap: the models behind one port, loaded on demand."""
        st = self.state
        if m == "GET" and path == "/health":
            self.send_json(200, None, raw=b"OK")
        elif m == "GET" and path == "/v1/models":
            self.send_json(200, st.models)
        elif m == "GET" and path == "/running":
            with st.lock:
                run = [{"model": x, "state": "ready"} for x in st.swap_loaded]
            self.send_json(200, {"running": run})
        elif m == "POST" and path == "/v1/chat/completions":
            want = body.get("model") if isinstance(body, dict) else None
            if want not in st.swap_models:
                self.send_json(404, None, raw=("could not find real modelID for %s" % want).encode())
                return
            with st.lock:
                loaded = want in st.swap_loaded
            if not loaded:  # the upstream llama-server starts and loads its model first
                time.sleep(float(st.scenario.get("load_s", 1.5)))
                with st.lock:
                    st.swap_loaded = [want]
            self.rec["model"] = want
            self.chat(raw, body)
        elif path.startswith("/upstream/"):
            name, _, rest = path[len("/upstream/"):].partition("/")
            if name not in st.swap_models:
                self.send_json(404, None, raw=b"model not found")
            elif m == "GET" and rest == "health":
                self.send_json(200, {"status": "ok"})
            elif m == "GET" and rest == "props":
                self.send_json(200, st.props)
            elif m == "GET" and rest == "slots":
                self.send_json(200, st.slots_idle)
            elif m == "GET" and rest == "metrics":
                self.send_metrics()
            else:
                self.send_json(404, NOT_FOUND_BODY)
        else:
            self.send_json(404, None, raw=b"404 page not found")

    def load_metrics(self):
        """The /metrics text of the scenario's "load" in the engine's names."""
        st = self.state
        load = st.scenario.get("load") or [0, 0]
        run, wait = float(load[0]), float(load[1])
        if st.shape == "vllm":
            lab = '{model_name="%s"}' % st.model
            return ("# HELP vllm:num_requests_running Number of requests in model execution batches.\n"
                    "# TYPE vllm:num_requests_running gauge\n"
                    "vllm:num_requests_running%s %.1f\n"
                    "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.\n"
                    "# TYPE vllm:num_requests_waiting gauge\n"
                    "vllm:num_requests_waiting%s %.1f\n"
                    "vllm:gpu_cache_usage_perc%s 0.1\n" % (lab, run, lab, wait, lab))
        if st.shape == "sglang":
            lab = '{model_name="%s"}' % st.model
            return ("# HELP sglang:num_running_reqs The number of running requests.\n"
                    "# TYPE sglang:num_running_reqs gauge\n"
                    "sglang:num_running_reqs%s %.1f\n"
                    "# HELP sglang:num_queue_reqs The number of requests in the waiting queue.\n"
                    "# TYPE sglang:num_queue_reqs gauge\n"
                    "sglang:num_queue_reqs%s %.1f\n"
                    "sglang:cache_hit_rate%s 0.5\n" % (lab, run, lab, wait, lab))
        return ("# HELP llamacpp:requests_processing Number of requests processing.\n"
                "# TYPE llamacpp:requests_processing gauge\n"
                "llamacpp:requests_processing %d\n"
                "# HELP llamacpp:requests_deferred Number of requests deferred.\n"
                "# TYPE llamacpp:requests_deferred gauge\n"
                "llamacpp:requests_deferred %d\n" % (run, wait))

    def send_metrics(self):
        try:
            with open(os.path.join(self.state.fixtures, "metrics.txt"), "rb") as f:
                data = f.read()
        except OSError:
            data = b""
        if self.state.shape in ("vllm", "sglang") or "load" in self.state.scenario:
            data = self.load_metrics().encode("utf-8")
        if isinstance(self.state.scenario.get("metrics_text"), str):
            data = self.state.scenario["metrics_text"].encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.rec.update(status=200, bytes=len(data))

    def tokenize(self, body):
        content = (body or {}).get("content", "") if isinstance(body, dict) else ""
        if not isinstance(content, str):
            content = json.dumps(content)
        n = tok_estimate(content)
        data = content.encode("utf-8")
        if isinstance(body, dict) and body.get("with_pieces"):
            toks = [{"id": 1000 + i, "piece": data[4 * i:4 * i + 4].decode("utf-8", "replace")}
                    for i in range(n)]
        else:
            toks = [1000 + (b % 50000) for b in data[::4]][:n]
        self.send_json(200, {"tokens": toks})

    def chat(self, raw, body):
        st = self.state
        if not isinstance(body, dict) or "_raw" in body:
            status, hdrs, data = load_error_fixture(st.fixture_path("error_bad_json.txt"))
            self.send_json(status or 500, None, raw=data, headers=hdrs)
            return
        idx, turn = st.next_turn()
        self.rec["turn"] = idx
        if "http_error" in turn:
            self.rec["kind"] = "http_error"
            self.http_error(turn)
            return
        if "fixture" in turn:
            self.rec["kind"] = "fixture"
            with open(st.fixture_path(turn["fixture"]), "rb") as f:
                events = split_events(f.read())
            self.stream(events, turn)
            return
        events, kind, ids, s = build_turn(st, turn, body)
        st.live_task(body, tokens=s.total, busy=True)
        self.rec["kind"] = kind
        self.rec["tool_call_ids"] = ids
        self.rec["final"] = s.final
        if body.get("stream") is not True and kind in ("text", "tool_calls", "content_tool_call"):
            text = turn_text(turn, "done." if kind == "text" else "")
            if kind == "content_tool_call":
                text += turn["content_tool_call"]
            self.send_json(200, s.message(text, turn.get("tool_calls") or []))
            st.live_task(body, busy=False)
            return
        self.stream(events, turn)
        st.live_task(body, busy=False)

    def http_error(self, turn):
        status = int(turn["http_error"])
        hdrs = {}
        if "body_fixture" in turn:
            fstatus, hdrs, data = load_error_fixture(self.state.fixture_path(turn["body_fixture"]))
            if not turn.get("http_error"):
                status = fstatus or 500
        elif "body" in turn:
            b = turn["body"]
            data = (b if isinstance(b, str) else json.dumps(b)).encode("utf-8")
        else:
            data = json.dumps({"error": {"code": status, "message": "mock error",
                                         "type": "server_error"}}).encode("utf-8")
        self.send_json(status, None, raw=data, headers=hdrs)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = handle_any


def parse_args(argv):
    p = argparse.ArgumentParser(description="scripted mock llama-server (127.0.0.1 only)")
    p.add_argument("--scenario", help="scenario JSON file (default: no turns)")
    p.add_argument("--fixtures", default=os.environ.get("FIXTURES", ""),
                   help="llama-server fixtures directory (default $FIXTURES)")
    p.add_argument("--log", help="append one JSON line per request/answer here")
    p.add_argument("--port", type=int, default=0, help="port (default 0: ephemeral)")
    p.add_argument("--port-file", help="also write the port number to this file")
    p.add_argument("--max-seconds", type=float, default=60.0,
                   help="stop after this many seconds (default 60)")
    p.add_argument("--max-requests", type=int, default=0,
                   help="stop after this many requests (default 0: no limit)")
    p.add_argument("--seed", type=int, help="seed the random ids")
    p.add_argument("--verbose", action="store_true", help="log each request to stderr")
    p.add_argument("--latency-ms", type=float, default=0.0,
                   help="wait this long before answering any request (a distant server)")
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    scenario = {}
    if args.scenario:
        with open(args.scenario, "rb") as f:
            scenario = json.load(f)
    if args.seed is not None:
        random.seed(args.seed)
    state = State(args, scenario)
    Handler.state = state

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        block_on_close = False
        allow_reuse_address = True

    def on_signal(signum, _frame):
        state.request_stop("signal %d" % signum)

    # before the PORT line: a SIGTERM right after it must stop us cleanly
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    srv = Server(("127.0.0.1", args.port), Handler)
    port = srv.server_address[1]
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % port)
        os.replace(tmp, args.port_file)
    sys.stdout.write("PORT %d\n" % port)
    sys.stdout.flush()

    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    if not state.stop.wait(args.max_seconds if args.max_seconds > 0 else None):
        state.request_stop("max-seconds")
    srv.shutdown()
    srv.server_close()
    if args.verbose:
        sys.stderr.write("mock: stopped (%s)\n" % state.stop_reason)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
