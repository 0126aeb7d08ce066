#!/usr/bin/env python3
"""mock_anthropic: a scripted stand-in for the Anthropic Messages API.

Python 3 standard library only.  It listens on 127.0.0.1 only (an
ephemeral port unless --port is given), prints "PORT <n>" as its first
stdout line (and/or writes it to --port-file), and stops by itself after
--max-seconds, after --max-requests, or on SIGTERM/SIGINT.

    python3 tests/net/mock_anthropic.py --scenario S.json --log REQ.jsonl

Endpoints: POST /v1/messages (answered by the next entry of the
scenario's "turns"; once they are used up every request gets the plain
answer "done."), GET /v1/models (the scenario's "models" list, default the
2026 ids of protocols.md B6).  Requests without x-api-key, or with one
other than the scenario's "api_key" (when set), get 401
authentication_error, as the real API does.

Scenario: {"api_key": "...", "models": [ids], "ping": true, "turns": [TURN...]}
A TURN is one of
    {"text": "..."}                              a streamed text answer
    {"thinking": "...", "signature": "...", "text": "..."}
    {"tool_use": [{"name", "input", "id"?}], "text"?, "thinking"?}
    {"stream_error": "overloaded_error", "text"?}  HTTP 200, then an error event
    {"http_error": 429, "retry_after": 1}        also 529, 500, 401, 413, 400 ...
    {"http_error": 400, "message": "..."}
    {"hang": true}                               the stream's headers, then silence
and any turn may add "chunk_bytes" (write N bytes at a time; 1 = one-byte
writes), "delay_ms" (between writes), "drop_after_bytes" (close the
connection after N body bytes), "json_split" (list of piece sizes for the
input_json_delta fragments; default odd places 1, 5, 2, 7, ...),
"stop_reason", "usage" ({input_tokens, cache_creation_input_tokens,
cache_read_input_tokens, output_tokens}).

Streams follow the documented sequence: message_start, ping,
content_block_start / content_block_delta / content_block_stop per block
(thinking with thinking_delta and signature_delta, text, tool_use with
input_json_delta), message_delta with stop_reason and cumulative usage,
message_stop.  Bodies are close-delimited (Connection: close), written
on a socket with TCP_NODELAY.

Request log (--log, JSON lines, flushed per line):
    {"event":"request","seq","method","path","headers","body","t"}
    {"event":"served","seq","path","status","turn","bytes","dropped"}
Header names are lowercased; the x-api-key value is logged as
"<redacted:N chars, sha ...>" unless --log-keys is given (tests compare it).
"""

import argparse
import hashlib
import json
import os
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_MODELS = ["claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5-20251001"]
ODD_SPLITS = [1, 5, 2, 7, 3, 11, 4]
ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 402: "billing_error",
               403: "permission_error", 404: "not_found_error", 413: "request_too_large",
               429: "rate_limit_error", 500: "api_error", 504: "timeout_error",
               529: "overloaded_error"}


def sse(name, obj):
    return ("event: %s\ndata: %s\n\n" % (name, json.dumps(obj, separators=(",", ":")))).encode()


def pieces(text, sizes):
    out, i, k = [], 0, 0
    while i < len(text):
        n = max(1, sizes[k % len(sizes)])
        out.append(text[i:i + n])
        i += n
        k += 1
    return out


class State:
    def __init__(self, args, scenario):
        self.args = args
        self.scenario = scenario
        self.turns = list(scenario.get("turns", []))
        self.lock = threading.Lock()
        self.seq = 0
        self.nturn = 0
        self.logf = open(args.log, "a", encoding="utf-8") if args.log else None
        self.stop_event = threading.Event()

    def next_seq(self):
        with self.lock:
            self.seq += 1
            return self.seq

    def next_turn(self):
        with self.lock:
            n = self.nturn
            self.nturn += 1
        return n, (self.turns[n] if n < len(self.turns) else {"text": "done."})

    def log(self, rec):
        if not self.logf:
            return
        with self.lock:
            self.logf.write(json.dumps(rec) + "\n")
            self.logf.flush()


def build_stream(turn, seq, ping=True):
    """The SSE bytes of a streamed turn."""
    usage = {"input_tokens": 25, "cache_creation_input_tokens": 0,
             "cache_read_input_tokens": 0, "output_tokens": 1}
    usage.update(turn.get("usage", {}))
    out = [sse("message_start", {"type": "message_start", "message": {
        "id": "msg_mock%04d" % seq, "type": "message", "role": "assistant", "content": [],
        "model": turn.get("model", "claude-sonnet-5"), "stop_reason": None,
        "stop_sequence": None, "usage": usage}})]
    if ping:
        out.append(sse("ping", {"type": "ping"}))
    if "stream_error" in turn:
        if turn.get("text"):
            out += text_block(0, turn["text"])
        out.append(sse("error", {"type": "error", "error": {
            "type": turn["stream_error"], "message": turn.get("message", "Overloaded")}}))
        return b"".join(out)
    idx = 0
    if "thinking" in turn:
        out.append(sse("content_block_start", {"type": "content_block_start", "index": idx,
                                               "content_block": {"type": "thinking", "thinking": ""}}))
        for p in pieces(turn["thinking"], [9]):
            out.append(sse("content_block_delta", {"type": "content_block_delta", "index": idx,
                                                   "delta": {"type": "thinking_delta", "thinking": p}}))
        out.append(sse("content_block_delta", {"type": "content_block_delta", "index": idx, "delta": {
            "type": "signature_delta", "signature": turn.get("signature", "EqQBCgIYAhIMmock")}}))
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": idx}))
        idx += 1
    if turn.get("text") or not turn.get("tool_use"):
        out += text_block(idx, turn.get("text", "done."))
        if ping:
            out.append(sse("ping", {"type": "ping"}))
        idx += 1
    for k, call in enumerate(turn.get("tool_use", [])):
        tid = call.get("id", "toolu_mock%02d%02d" % (seq % 100, k))
        out.append(sse("content_block_start", {"type": "content_block_start", "index": idx,
                                               "content_block": {"type": "tool_use", "id": tid,
                                                                 "name": call["name"], "input": {}}}))
        args = json.dumps(call.get("input", {}), separators=(",", ":"))
        out.append(sse("content_block_delta", {"type": "content_block_delta", "index": idx,
                                               "delta": {"type": "input_json_delta", "partial_json": ""}}))
        for p in pieces(args, turn.get("json_split", ODD_SPLITS)):
            out.append(sse("content_block_delta", {"type": "content_block_delta", "index": idx,
                                                   "delta": {"type": "input_json_delta", "partial_json": p}}))
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": idx}))
        idx += 1
    stop = turn.get("stop_reason", "tool_use" if turn.get("tool_use") else "end_turn")
    out.append(sse("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": usage.get("output_tokens", 1) + 20}}))
    out.append(sse("message_stop", {"type": "message_stop"}))
    return b"".join(out)


def text_block(idx, text):
    out = [sse("content_block_start", {"type": "content_block_start", "index": idx,
                                       "content_block": {"type": "text", "text": ""}})]
    for p in pieces(text, [6]):
        out.append(sse("content_block_delta", {"type": "content_block_delta", "index": idx,
                                               "delta": {"type": "text_delta", "text": p}}))
    out.append(sse("content_block_stop", {"type": "content_block_stop", "index": idx}))
    return out


def error_body(status, turn):
    etype = turn.get("type", ERROR_TYPES.get(status, "api_error"))
    msg = turn.get("message", {401: "invalid x-api-key", 429: "Number of requests has exceeded your rate limit",
                               529: "Overloaded", 413: "Request exceeds the maximum allowed number of bytes"}
                   .get(status, "Internal server error"))
    return json.dumps({"type": "error", "error": {"type": etype, "message": msg},
                       "request_id": "req_mock"}).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state = None

    def version_string(self):
        return "mock-anthropic"

    def log_message(self, fmt, *a):
        if self.state.args.verbose:
            sys.stderr.write("mock_anthropic: " + (fmt % a) + "\n")

    def headers_for_log(self):
        h = {}
        for k, v in self.headers.items():
            k = k.lower()
            if k == "x-api-key" and not self.state.args.log_keys:
                v = "<redacted:%d chars, sha %s>" % (len(v), hashlib.sha256(v.encode()).hexdigest()[:12])
            h[k] = v
        return h

    def read_body(self):
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n) if n > 0 else b""
        try:
            return raw, (json.loads(raw) if raw else None)
        except ValueError:
            return raw, {"_raw": raw.decode("utf-8", "replace")}

    def send_raw(self, status, body, ctype="application/json", extra=None, seq=0, turn=None):
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("request-id", "req_mock%04d" % seq)
        for k, v in (extra or {}).items():
            self.send_header(k, str(v))
        if ctype == "application/json":
            self.send_header("content-length", str(len(body)))
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        return self.write_body(body, turn or {})

    def write_body(self, data, turn):
        chunk = int(turn.get("chunk_bytes", 0)) or len(data) or 1
        drop = int(turn.get("drop_after_bytes", 0))
        delay = float(turn.get("delay_ms", 0)) / 1000.0
        sent = 0
        try:
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            while sent < len(data):
                n = min(chunk, len(data) - sent)
                if drop and sent + n > drop:
                    n = drop - sent
                if n <= 0:
                    break
                self.wfile.write(data[sent:sent + n])
                self.wfile.flush()
                sent += n
                if drop and sent >= drop:
                    break
                if delay:
                    time.sleep(delay)
        except OSError:
            pass
        if drop:
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        return sent, bool(drop and sent >= drop)

    def send_headers_and_hang(self, seq):
        """The stream's headers, then silence until the client goes away (or 60 s)."""
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("request-id", "req_mock%04d" % seq)
        self.send_header("connection", "close")
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        end = time.time() + 60
        while time.time() < end and not self.state.stop_event.is_set():
            try:
                self.connection.settimeout(0.1)
                if self.connection.recv(4096) == b"":
                    break
            except socket.timeout:
                continue
            except OSError:
                break
        return 0, False

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def handle_any(self, method):
        st = self.state
        seq = st.next_seq()
        raw, body = self.read_body() if method == "POST" else (b"", None)
        path = self.path.split("?", 1)[0]
        st.log({"event": "request", "seq": seq, "method": method, "path": self.path,
                "headers": self.headers_for_log(), "body": body, "t": time.time()})
        key = self.headers.get("x-api-key")
        want = st.scenario.get("api_key")
        status, turn_no, res = 200, None, (0, False)
        if path not in ("/v1/messages", "/v1/models"):
            status = 404
            res = self.send_raw(404, error_body(404, {"message": "not found: " + path}), seq=seq)
        elif not key or (want and key != want):
            status = 401
            res = self.send_raw(401, error_body(401, {}), seq=seq)
        elif path == "/v1/models":
            data = [{"type": "model", "id": m, "display_name": m} for m in
                    st.scenario.get("models", DEFAULT_MODELS)]
            res = self.send_raw(200, json.dumps({"data": data, "has_more": False}).encode(), seq=seq)
        else:
            turn_no, turn = st.next_turn()
            status = int(turn.get("http_error", 200))
            if status != 200:
                extra = {"retry-after": turn["retry_after"]} if "retry_after" in turn else None
                res = self.send_raw(status, error_body(status, turn), extra=extra, seq=seq, turn=turn)
            elif turn.get("hang"):
                res = self.send_headers_and_hang(seq)
            else:
                stream = build_stream(turn, seq, st.scenario.get("ping", True))
                res = self.send_raw(200, stream, ctype="text/event-stream", seq=seq, turn=turn)
        st.log({"event": "served", "seq": seq, "path": self.path, "status": status,
                "turn": turn_no, "bytes": res[0], "dropped": res[1]})
        if st.args.max_requests and seq >= st.args.max_requests:
            st.stop_event.set()


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scenario", help="scenario JSON file (default: no turns)")
    p.add_argument("--log", help="append one JSON line per request/answer here")
    p.add_argument("--port", type=int, default=0, help="port (default 0: ephemeral)")
    p.add_argument("--port-file", help="also write the port number to this file")
    p.add_argument("--max-seconds", type=float, default=60.0, help="stop after this long")
    p.add_argument("--max-requests", type=int, default=0, help="stop after this many requests")
    p.add_argument("--log-keys", action="store_true", help="log x-api-key values verbatim")
    p.add_argument("--verbose", action="store_true", help="log each request to stderr")
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    scenario = {}
    if args.scenario:
        with open(args.scenario, encoding="utf-8") as f:
            scenario = json.load(f)
    state = State(args, scenario)
    Handler.state = state

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        allow_reuse_address = True

    srv = Server(("127.0.0.1", args.port), Handler)
    port = srv.server_address[1]
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write("%d\n" % port)
        os.replace(args.port_file + ".tmp", args.port_file)
    print("PORT %d" % port, flush=True)

    def on_signal(_signum, _frame):
        state.stop_event.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    state.stop_event.wait(args.max_seconds)
    time.sleep(0.05)  # let the last answer finish writing
    srv.shutdown()
    srv.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
