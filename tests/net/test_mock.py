#!/usr/bin/env python3
"""test_mock: checks tests/net/mock_llama.py on its own (no hearth needed).

Each check starts a mock with a scenario written to a temp directory,
talks to it with urllib (or a raw socket where the HTTP framing itself is
under test), and prints "ok - name" or "not ok - name" (with "# " lines
saying why).  Every wait has a timeout; every mock started is stopped.
Exit status: 0 when every check passed, 1 otherwise.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
MOCK = os.path.join(HERE, "mock_llama.py")
SCEN_DIR = os.path.join(HERE, "scenarios")
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.environ.get("FIXTURES") or next(
    (d for d in (os.path.join(ROOT, "..", "shared", "fixtures", "llama-server"),
                 os.path.join(HERE, "fixtures")) if os.path.isdir(d)), "")
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never via a proxy
TIMEOUT = 5.0
TMP = tempfile.mkdtemp(prefix="hearth-mock-test.")
PROCS = []
FAILED = []
TIMING_KEYS = ("cache_n", "prompt_n", "prompt_ms", "prompt_per_token_ms", "prompt_per_second",
               "predicted_n", "predicted_ms", "predicted_per_token_ms", "predicted_per_second")
CHAT_BODY = {"model": "x", "stream": True, "return_progress": True, "cache_prompt": True,
             "stream_options": {"include_usage": True}, "id_slot": 0,
             "messages": [{"role": "system", "content": "You are a coding agent."},
                          {"role": "user", "content": "Fix hello.c please."}],
             "tools": [{"type": "function", "function": {
                 "name": "read", "description": "Read a file",
                 "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}]}


class Mock:
    """One running mock: port, log path, process."""

    def __init__(self, scenario, extra=(), name="m"):
        d = tempfile.mkdtemp(prefix=name + ".", dir=TMP)
        self.scen = os.path.join(d, "scenario.json")
        with open(self.scen, "w") as f:
            json.dump(scenario, f)
        self.log = os.path.join(d, "log.jsonl")
        self.proc = subprocess.Popen(
            [sys.executable, MOCK, "--scenario", self.scen, "--fixtures", FIXTURES,
             "--log", self.log, "--max-seconds", "30"] + list(extra),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        PROCS.append(self.proc)
        self.port = read_port(self.proc)
        self.url = "http://127.0.0.1:%d" % self.port

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(TIMEOUT)
        for s in (self.proc.stdout, self.proc.stderr):
            s.close()

    def records(self, event=None):
        try:
            with open(self.log, encoding="utf-8") as f:
                recs = [json.loads(ln) for ln in f if ln.strip()]
        except OSError:
            return []
        return [r for r in recs if event is None or r.get("event") == event]

    def wait_records(self, event, n):
        """The log's records of kind event, once there are at least n
        (served lines are written just after the answer's last byte)."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            recs = self.records(event)
            if len(recs) >= n or time.monotonic() > deadline:
                return recs
            time.sleep(0.02)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def read_port(proc):
    """The port from the mock's first stdout line, within TIMEOUT."""
    fd = proc.stdout.fileno()
    deadline = time.monotonic() + TIMEOUT
    line = b""
    import select
    while not line.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise AssertionError("mock printed no PORT line within %.0f s" % TIMEOUT)
        c = os.read(fd, 1)
        if not c:
            raise AssertionError("mock exited before printing PORT: %r" % proc.stderr.read())
        line += c
    m = re.fullmatch(rb"PORT (\d+)\n", line)
    assert m, "first stdout line is %r, not 'PORT <n>'" % line
    return int(m.group(1))


def http(url, body=None, method=None, timeout=TIMEOUT):
    """(status, headers, body bytes) with urllib; HTTP errors are answers too."""
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with OPENER.open(req, timeout=timeout) as r:
            return r.status, dict(r.headers.items()), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers.items()), e.read()


def raw_request(port, path, body, timeout=TIMEOUT, read_all=True):
    """Send one POST over a raw socket; returns (sock, status line, headers
    text, chunks) where chunks is a list of (time, payload) and the last
    element of the tuple says whether the terminating 0-chunk arrived."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    data = json.dumps(body).encode()
    s.sendall(b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Content-Length: %d\r\n\r\n" % (path.encode(), len(data)) + data)
    f = s.makefile("rb")
    status = f.readline()
    head = b""
    while True:
        ln = f.readline()
        if ln in (b"\r\n", b"", b"\n"):
            break
        head += ln
    if not read_all:
        return s, f, status, head
    chunks, complete = read_chunks(f)
    f.close()
    s.close()
    return status, head, chunks, complete


def read_chunks(f, limit=None):
    """Decode a chunked body: ([(t, payload)...], saw the final chunk)."""
    chunks = []
    while limit is None or len(chunks) < limit:
        ln = f.readline()
        if not ln:
            return chunks, False
        n = int(ln.split(b";")[0].strip() or b"0", 16)
        if n == 0:
            f.readline()
            return chunks, True
        payload = f.read(n)
        if len(payload) < n:
            chunks.append((time.monotonic(), payload))
            return chunks, False
        chunks.append((time.monotonic(), payload))
        if f.readline() != b"\r\n":
            return chunks, False
    return chunks, None


def parse_sse(body):
    """Events of an SSE body: list of parsed JSON objects or "[DONE]".
    Raises AssertionError on anything malformed."""
    text = body.decode("utf-8")
    assert text.endswith("\n\n"), "stream does not end with a blank line: %r" % text[-40:]
    out = []
    for ev in text[:-2].split("\n\n"):
        assert ev.startswith("data: "), "event without 'data: ': %r" % ev[:60]
        assert "\n" not in ev, "multi-line event: %r" % ev[:60]
        payload = ev[6:]
        out.append("[DONE]" if payload == "[DONE]" else json.loads(payload))
    return out


def check_stream(events, finish, want_progress=True, want_usage=True):
    """Shape checks shared by generated streams; returns (content, calls)."""
    assert events[-1] == "[DONE]", "no [DONE] at the end"
    assert "[DONE]" not in events[:-1], "[DONE] before the end"
    objs = events[:-1]
    ids = {o["id"] for o in objs}
    assert len(ids) == 1 and next(iter(ids)).startswith("chatcmpl-"), "chunk ids differ: %r" % ids
    for o in objs:
        assert o["object"] == "chat.completion.chunk" and "created" in o and "model" in o
    prog = [o for o in objs if "prompt_progress" in o]
    if want_progress:
        assert len(prog) == 2 and prog is not None, "want 2 progress chunks, got %d" % len(prog)
        p0, p1 = prog[0]["prompt_progress"], prog[1]["prompt_progress"]
        assert set(p0) == {"total", "cache", "processed", "time_ms"}
        assert p0["processed"] == p0["cache"] and p1["processed"] == p1["total"] == p0["total"]
        assert 0 <= p0["cache"] < p0["total"]
        assert objs[0] is prog[0] and objs[1] is prog[1], "progress chunks are not first"
    else:
        assert not prog, "progress chunks without return_progress"
    rest = objs[len(prog):]
    assert rest[0]["choices"][0]["delta"] == {"role": "assistant", "content": None}, "no role chunk"
    content, calls, fin = "", {}, []
    for o in rest[1:]:
        if not o["choices"]:
            continue
        c = o["choices"][0]
        if c["finish_reason"] is not None:
            fin.append((c["finish_reason"], o))
            assert c["delta"] == {}, "finish chunk with a delta"
            continue
        d = c["delta"]
        if "content" in d:
            content += d["content"]
        for tc in d.get("tool_calls", []):
            i = tc["index"]
            if i not in calls:
                assert re.fullmatch(r"[A-Za-z0-9]{32}", tc.get("id", "")), "bad id %r" % tc
                assert tc["type"] == "function" and tc["function"]["name"], "bad first chunk"
                calls[i] = {"id": tc["id"], "name": tc["function"]["name"],
                            "arguments": tc["function"]["arguments"]}
            else:
                assert set(tc) == {"index", "function"} and set(tc["function"]) == {"arguments"}, \
                    "later tool chunk carries more than arguments: %r" % tc
                calls[i]["arguments"] += tc["function"]["arguments"]
    assert [f[0] for f in fin] == [finish], "finish reasons %r, want %r" % ([f[0] for f in fin], finish)
    usage = [o for o in objs if "usage" in o]
    timed = [o for o in objs if "timings" in o]
    assert len(timed) == 1 and timed[0] is objs[-1], "timings not on the last chunk"
    assert set(timed[0]["timings"]) == set(TIMING_KEYS), "timings keys %r" % timed[0]["timings"]
    if want_usage:
        assert len(usage) == 1 and usage[0]["choices"] == [], "want one usage chunk with choices []"
        u = usage[0]["usage"]
        assert set(u) == {"completion_tokens", "prompt_tokens", "total_tokens",
                          "prompt_tokens_details"}
        assert u["total_tokens"] == u["completion_tokens"] + u["prompt_tokens"]
        assert u["prompt_tokens_details"]["cached_tokens"] == timed[0]["timings"]["cache_n"]
    else:
        assert not usage, "usage chunk without include_usage"
    return content, [calls[i] for i in sorted(calls)]


def chat(m, body=None, timeout=TIMEOUT):
    st, hd, data = http(m.url + "/v1/chat/completions", body or CHAT_BODY, timeout=timeout)
    return st, hd, data


def run(name, fn):
    try:
        fn()
        print("ok - " + name)
    except Exception as e:  # report and keep going
        FAILED.append(name)
        print("not ok - " + name)
        for ln in ("%s: %s" % (type(e).__name__, e)).splitlines()[:20]:
            print("# " + ln)
    sys.stdout.flush()


# ---------------------------------------------------------------- checks
def t_port_and_loopback():
    with Mock({}) as m:
        st, _, body = http(m.url + "/health")
        assert st == 200 and json.loads(body) == {"status": "ok"}, (st, body)
        listen = []
        try:
            with open("/proc/net/tcp") as f:
                for ln in list(f)[1:]:
                    p = ln.split()
                    if p[3] == "0A" and int(p[1].split(":")[1], 16) == m.port:
                        listen.append(p[1].split(":")[0])
        except OSError:
            listen = ["0100007F"]
        assert listen == ["0100007F"], "listening on %r, want 127.0.0.1 only" % listen
        try:
            with open("/proc/net/tcp6") as f:
                six = [ln for ln in list(f)[1:] if ln.split()[3] == "0A"
                       and int(ln.split()[1].split(":")[1], 16) == m.port]
            assert not six, "also listening on IPv6"
        except OSError:
            pass


def t_port_file():
    pf = os.path.join(TMP, "port.txt")
    with Mock({}, ["--port-file", pf]) as m:
        with open(pf) as f:
            assert int(f.read().strip()) == m.port


def t_discovery():
    with Mock({}) as m:
        st, hd, b = http(m.url + "/props")
        assert st == 200 and json.loads(b)["default_generation_settings"]["n_ctx"] == 8192
        assert hd["Content-Type"].startswith("application/json")
        for path in ("/v1/models", "/models"):
            st, _, b = http(m.url + path)
            assert st == 200 and json.loads(b)["data"][0]["id"] == "local-tiny", path
        st, _, b = http(m.url + "/slots")
        assert st == 200 and [s["id"] for s in json.loads(b)] == [0, 1]
        st, _, b = http(m.url + "/tokenize", {"content": "0123456789abcdef"})
        assert st == 200 and len(json.loads(b)["tokens"]) == 4, b
        st, _, b = http(m.url + "/no/such/route")
        assert st == 404 and json.loads(b)["error"]["type"] == "not_found_error"
        st, _, b = http(m.url + "/v1/health")
        assert st == 200


def t_slots_disabled_and_n_ctx():
    with Mock({"slots": False, "n_ctx": 4096}) as m:
        st, _, b = http(m.url + "/slots")
        assert st == 501 and json.loads(b)["error"]["type"] == "not_supported_error", (st, b)
        st, _, b = http(m.url + "/props")
        assert json.loads(b)["default_generation_settings"]["n_ctx"] == 4096


def t_loading():
    with Mock({"loading_for_requests": 3, "turns": [{"text": "hi"}]}) as m:
        want = {"error": {"message": "Loading model", "type": "unavailable_error", "code": 503}}
        for path, body in (("/health", None), ("/props", None), ("/v1/chat/completions", CHAT_BODY)):
            st, _, b = http(m.url + path, body)
            assert st == 503 and json.loads(b) == want, (path, st, b)
        st, _, b = http(m.url + "/health")
        assert st == 200, st
        st, _, b = chat(m)
        content, _ = check_stream(parse_sse(b), "stop")
        assert content == "hi", "the loading requests consumed a turn: %r" % content


def t_fixture_passthrough():
    names = sorted(n for n in os.listdir(FIXTURES) if n.startswith("chat_stream_") and n.endswith(".sse"))
    assert names, "no fixtures found in " + FIXTURES
    with Mock({"turns": [{"fixture": n} for n in names]}) as m:
        for n in names:
            st, hd, b = chat(m)
            with open(os.path.join(FIXTURES, n), "rb") as f:
                want = f.read()
            assert st == 200 and hd["Content-Type"] == "text/event-stream", (n, st)
            assert b == want, "%s: %d bytes served, fixture has %d" % (n, len(b), len(want))


def t_text_turn():
    text = "The answer is 42; caf\u00e9 \u4e2d\u6587."
    with Mock({"turns": [{"text": text}, {"text": text}]}) as m:
        st, hd, b = chat(m)
        assert st == 200 and hd["Content-Type"] == "text/event-stream"
        assert hd.get("Transfer-Encoding") == "chunked", hd
        ev = parse_sse(b)
        content, calls = check_stream(ev, "stop")
        assert content == text and not calls, content
        deltas = [o for o in ev[:-1] if o["choices"] and "content" in o["choices"][0]["delta"]
                  and o["choices"][0]["delta"]["content"]]
        assert len(deltas) > 3, "text not split into small deltas"
        body2 = dict(CHAT_BODY, return_progress=False, stream_options=None)
        content, _ = check_stream(parse_sse(chat(m, body2)[2]), "stop", False, False)
        assert content == text


def t_tool_calls_turn():
    args = {"path": "hello.c", "old_text": "\tprintf(\"hello\\n\");", "new_text": "x \u00e9"}
    with Mock({"turns": [{"text": "Editing.", "tool_calls": [
            {"name": "read", "arguments": {"path": "hello.c"}},
            {"name": "edit", "arguments": args}]}]}) as m:
        st, _, b = chat(m)
        content, calls = check_stream(parse_sse(b), "tool_calls")
        assert content == "Editing."
        assert [c["name"] for c in calls] == ["read", "edit"]
        assert json.loads(calls[0]["arguments"]) == {"path": "hello.c"}
        assert json.loads(calls[1]["arguments"]) == args
        served = m.wait_records("served", 1)[-1]
        assert served["tool_call_ids"] == [c["id"] for c in calls], served
        assert served["kind"] == "tool_calls" and served["turn"] == 0


def t_content_tool_call():
    tc = "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"hello.c\"}}\n</tool_call>"
    with Mock({"turns": [{"content_tool_call": tc}]}) as m:
        content, calls = check_stream(parse_sse(chat(m)[2]), "stop")
        assert content == tc and not calls, content


def t_stream_error():
    with Mock({"turns": [{"stream_error": "toolparse"}, {"stream_error": "boom", "text": "x"}]}) as m:
        for want in ("does not match the expected Qwen3-Coder format", "boom"):
            st, _, b = chat(m)
            ev = parse_sse(b)
            assert st == 200 and "[DONE]" not in ev, "error stream has [DONE]"
            err = ev[-1]["error"]
            assert err["code"] == 500 and err["type"] == "server_error" and want in err["message"], err
            assert not any(o.get("choices") and o["choices"][0]["finish_reason"] for o in ev[:-1])


def t_http_errors():
    with Mock({"turns": [{"http_error": 400, "body_fixture": "error_context_exceeded.txt"},
                         {"http_error": 500, "body": "{\"error\":{\"code\":500,\"message\":\"x\"}}"},
                         {"text": "after"}]}) as m:
        st, hd, b = chat(m)
        e = json.loads(b)["error"]
        assert st == 400 and e["n_prompt_tokens"] == 9036 and e["n_ctx"] == 8192, (st, b)
        assert not b.rstrip().endswith(b"HTTP 400"), "fixture trailer served as body"
        assert hd["Content-Type"].startswith("application/json") and int(hd["Content-Length"]) == len(b)
        st, _, b = chat(m)
        assert st == 500 and json.loads(b)["error"]["message"] == "x"
        content, _ = check_stream(parse_sse(chat(m)[2]), "stop")
        assert content == "after"


def t_turns_run_out_and_bad_json():
    with Mock({"turns": []}) as m:
        content, _ = check_stream(parse_sse(chat(m)[2]), "stop")
        assert content == "done.", content
        st, _, b = http(m.url + "/v1/chat/completions", b"{\"messages\": [")
        assert st == 500 and json.loads(b)["error"]["type"] == "server_error", (st, b)


def t_non_stream():
    with Mock({"turns": [{"tool_calls": [{"name": "ls", "arguments": {}}]}]}) as m:
        st, _, b = chat(m, dict(CHAT_BODY, stream=False))
        o = json.loads(b)
        assert st == 200 and o["object"] == "chat.completion"
        assert o["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "ls"


def t_one_byte_chunks():
    with Mock({"turns": [{"text": "abc", "chunk_bytes": 1},
                         {"tool_calls": [{"name": "read", "arguments": {"path": "a"}}],
                          "chunk_bytes": 1}]}) as m:
        st, _, chunks, complete = raw_request(m.port, "/v1/chat/completions", CHAT_BODY)
        assert complete and chunks and all(len(p) == 1 for _, p in chunks), "chunks not 1 byte"
        content, _ = check_stream(parse_sse(b"".join(p for _, p in chunks)), "stop")
        assert content == "abc"
        st, _, chunks, complete = raw_request(m.port, "/v1/chat/completions", CHAT_BODY)
        assert complete and all(len(p) == 1 for _, p in chunks)
        _, calls = check_stream(parse_sse(b"".join(p for _, p in chunks)), "tool_calls")
        assert json.loads(calls[0]["arguments"]) == {"path": "a"}


def t_incremental_delivery():
    """With delay_ms the first event must arrive long before the last: the
    mock flushes every write instead of buffering the stream."""
    with Mock({"turns": [{"text": "abcdefghijklmnopqrstuvwxyz", "delay_ms": 60}]}) as m:
        t0 = time.monotonic()
        st, _, chunks, complete = raw_request(m.port, "/v1/chat/completions", CHAT_BODY)
        assert complete and len(chunks) > 8
        first, last = chunks[0][0] - t0, chunks[-1][0] - t0
        assert last - first > 0.5, "first %.3f s, last %.3f s: buffered?" % (first, last)


def t_drop_after_bytes():
    with Mock({"turns": [{"text": "x" * 200, "drop_after_bytes": 1000}]}) as m:
        st, _, chunks, complete = raw_request(m.port, "/v1/chat/completions", CHAT_BODY)
        body = b"".join(p for _, p in chunks)
        assert complete is False, "a dropped stream ended with the final chunk"
        assert len(body) == 1000, "sent %d body bytes, want 1000" % len(body)
        assert b"[DONE]" not in body
        assert m.wait_records("served", 1)[-1]["dropped"] is True


def t_hang():
    with Mock({"turns": [{"text": "never", "hang": True}]}) as m:
        s, f, status, head = raw_request(m.port, "/v1/chat/completions", CHAT_BODY, read_all=False)
        assert b" 200 " in status and b"text/event-stream" in head, (status, head)
        chunks, _ = read_chunks(f, limit=1)
        assert b"prompt_progress" in chunks[0][1], chunks
        s.settimeout(0.5)
        try:
            more = f.readline()
        except (socket.timeout, OSError):
            more = None
        assert more is None, "hang sent more data: %r" % more
        f.close()
        s.close()
        served = m.wait_records("served", 1)
        assert served and served[-1]["client_disconnected"] is True, served


def t_prefix_cache():
    with Mock({"turns": [{"text": "a"}, {"text": "b"}, {"text": "c"}]}) as m:
        def cache_of(body):
            ev = parse_sse(chat(m, body)[2])
            return ev[0]["prompt_progress"]["cache"], ev[0]["prompt_progress"]["total"]
        c1, t1 = cache_of(CHAT_BODY)
        longer = dict(CHAT_BODY, messages=CHAT_BODY["messages"] + [
            {"role": "assistant", "content": "a"}, {"role": "user", "content": "more"}])
        c2, t2 = cache_of(longer)
        c3, _ = cache_of(dict(longer, tools=[]))
        assert c1 == 0 and 0 < c2 < t2 and t2 > t1 and c3 == 0, (c1, c2, t2, c3)


def t_request_log():
    with Mock({"turns": [{"text": "x"}]}) as m:
        chat(m)
        http(m.url + "/health")
        reqs, served = m.wait_records("request", 2), m.wait_records("served", 2)
        assert [r["path"] for r in reqs] == ["/v1/chat/completions", "/health"]
        assert reqs[0]["method"] == "POST" and reqs[0]["body"] == CHAT_BODY
        assert reqs[1]["body"] is None and reqs[1]["method"] == "GET"
        # a "served" record is written after the handler returns, so the client may
        # have its whole answer (and the next request served) first: order by seq
        served = sorted(served, key=lambda s: s["seq"])
        assert [s["seq"] for s in served] == [1, 2] and all(s["served_ms"] >= 0 for s in served)
        assert served[0]["status"] == 200 and served[0]["bytes"] > 0


def wait_exit(proc, limit):
    try:
        return proc.wait(limit)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(TIMEOUT)
        raise AssertionError("mock still running after %.1f s" % limit)


def t_exits_by_itself():
    m = Mock({}, ["--max-seconds", "1"])
    t0 = time.monotonic()
    assert wait_exit(m.proc, 5) == 0
    assert time.monotonic() - t0 < 4
    m.stop()
    m = Mock({}, ["--max-requests", "2"])
    http(m.url + "/health")
    http(m.url + "/health")
    assert wait_exit(m.proc, 5) == 0
    m.stop()
    m = Mock({})
    m.proc.send_signal(signal.SIGTERM)
    assert wait_exit(m.proc, 5) == 0
    m.stop()


def t_exits_while_hanging():
    m = Mock({"turns": [{"hang": True}]}, ["--max-seconds", "1.5"])
    s, f, _, _ = raw_request(m.port, "/v1/chat/completions", CHAT_BODY, read_all=False)
    assert wait_exit(m.proc, 6) == 0
    f.close()
    s.close()
    m.stop()


KNOWN = {"fixture", "text", "tool_calls", "content_tool_call", "stream_error", "http_error",
         "body_fixture", "body", "chunk_bytes", "delay_ms", "drop_after_bytes", "hang",
         "piece_size", "repeat", "finish_reason", "error_code", "error_type", "comment"}


def t_scenarios_well_formed():
    """Every scenario file parses and each of its turns, served by the mock,
    is well-formed for its kind."""
    names = sorted(n for n in os.listdir(SCEN_DIR) if n.endswith(".json"))
    want = {"edit_flow", "text_toolcall", "toolparse_error", "toolparse_twice", "context_exceeded",
            "loading_then_ready", "dropped", "one_byte", "slow", "max_steps", "bench_3step"}
    missing = want - {n[:-5] for n in names}
    assert not missing, "missing scenarios: %s" % sorted(missing)
    for n in names:
        with open(os.path.join(SCEN_DIR, n)) as f:
            sc = json.load(f)
        turns = sc.get("turns", [])
        for t in turns:
            assert not set(t) - KNOWN, "%s: unknown turn keys %s" % (n, set(t) - KNOWN)
            if t.get("hang"):
                continue
            for k in ("fixture", "body_fixture"):
                if k in t:
                    assert os.path.exists(os.path.join(FIXTURES, t[k])), "%s: no %s" % (n, t[k])
        sc2 = dict(sc, loading_for_requests=0, turns=[t for t in turns if not t.get("hang")],
                   api_key=None, plain=False)  # plain mode and the key: tests/e2e/test_openai.sh
        with Mock(sc2, name=n[:-5]) as m:
            for t in sc2["turns"]:
                check_turn(n, m, t)


def check_turn(name, m, t):
    if "drop_after_bytes" in t:
        _, _, chunks, complete = raw_request(m.port, "/v1/chat/completions", CHAT_BODY)
        body = b"".join(p for _, p in chunks)
        assert complete is False and len(body) == t["drop_after_bytes"], name
        return
    st, _, b = chat(m)
    if "http_error" in t:
        assert st == t["http_error"] and json.loads(b)["error"], name
        return
    if "fixture" in t:
        with open(os.path.join(FIXTURES, t["fixture"]), "rb") as f:
            assert b == f.read(), name
        return
    ev = parse_sse(b)
    if "stream_error" in t:
        assert "error" in ev[-1] and "[DONE]" not in ev, name
    elif "tool_calls" in t:
        _, calls = check_stream(ev, "tool_calls")
        assert [c["name"] for c in calls] == [c["name"] for c in t["tool_calls"]], name
        for c, w in zip(calls, t["tool_calls"]):
            assert json.loads(c["arguments"]) == w["arguments"], name
    else:
        content, _ = check_stream(ev, "stop")
        want = t.get("text", "") * int(t.get("repeat", 1)) + t.get("content_tool_call", "")
        assert content == want, "%s: %r" % (name, content[:80])


CHECKS = [
    ("prints PORT and listens on 127.0.0.1 only", t_port_and_loopback),
    ("--port-file", t_port_file),
    ("discovery endpoints, tokenize, 404", t_discovery),
    ("slots disabled gives 501; n_ctx override", t_slots_disabled_and_n_ctx),
    ("loading: every route 503 for the first N requests", t_loading),
    ("fixture streams pass through byte for byte", t_fixture_passthrough),
    ("text turn is a well-formed llama stream", t_text_turn),
    ("tool_calls turn: llama delta.tool_calls shape", t_tool_calls_turn),
    ("content_tool_call turn", t_content_tool_call),
    ("stream_error turn ends with an error event, no [DONE]", t_stream_error),
    ("http_error turns (fixture body, inline body)", t_http_errors),
    ("turns run out: done.; malformed JSON: 500", t_turns_run_out_and_bad_json),
    ("stream:false answer", t_non_stream),
    ("chunk_bytes 1 writes one byte per chunk", t_one_byte_chunks),
    ("events are delivered incrementally", t_incremental_delivery),
    ("drop_after_bytes cuts the body mid-stream", t_drop_after_bytes),
    ("hang: progress chunk then silence; disconnect noticed", t_hang),
    ("simulated prefix cache", t_prefix_cache),
    ("request log records requests and service time", t_request_log),
    ("stops by itself: max-seconds, max-requests, SIGTERM", t_exits_by_itself),
    ("stops by itself while a stream hangs", t_exits_while_hanging),
    ("every scenario file is served well-formed", t_scenarios_well_formed),
]


def main():
    try:
        for name, fn in CHECKS:
            run(name, fn)
    finally:
        for p in PROCS:
            if p.poll() is None:
                p.kill()
                p.wait(TIMEOUT)
        shutil.rmtree(TMP, ignore_errors=True)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
