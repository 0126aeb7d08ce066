#!/usr/bin/env python3
"""test_mock_anthropic: checks tests/net/mock_anthropic.py on its own.

Each check starts the mock with a scenario in a temp directory, talks to
it over a raw socket (so framing, split writes and drops are visible),
and prints "ok - name" or "not ok - name" (with "# " lines saying why).
Every wait has a timeout; every mock started is stopped.  Exit status 0
when every check passed, 1 otherwise.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MOCK = os.path.join(HERE, "mock_anthropic.py")
TMP = tempfile.mkdtemp(prefix="hearth-mock-anthropic.")
PROCS = []
FAILED = []
KEY = "sk-ant-mock-key-0123456789"


def start(scenario, *extra):
    path = os.path.join(TMP, "s%d.json" % len(PROCS))
    log = os.path.join(TMP, "log%d.jsonl" % len(PROCS))
    with open(path, "w") as f:
        json.dump(scenario, f)
    p = subprocess.Popen([sys.executable, MOCK, "--scenario", path, "--log", log,
                          "--max-seconds", "20"] + list(extra),
                         stdout=subprocess.PIPE, text=True)
    PROCS.append(p)
    line = p.stdout.readline()
    assert line.startswith("PORT "), line
    return int(line.split()[1]), log


def request(port, method, path, body=None, key=KEY, timeout=5.0):
    """Raw HTTP/1.1; returns (status, headers dict, body bytes)."""
    data = json.dumps(body).encode() if body is not None else b""
    head = "%s %s HTTP/1.1\r\nhost: x\r\nanthropic-version: 2023-06-01\r\n" % (method, path)
    if key:
        head += "x-api-key: %s\r\n" % key
    if data:
        head += "content-type: application/json\r\ncontent-length: %d\r\n" % len(data)
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.sendall(head.encode() + b"\r\n" + data)
    raw = b""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            b = s.recv(65536)
        except OSError:
            break
        if not b:
            break
        raw += b
    s.close()
    hd, _, rest = raw.partition(b"\r\n\r\n")
    lines = hd.decode().split("\r\n")
    status = int(lines[0].split()[1])
    headers = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip() for l in lines[1:] if ":" in l}
    return status, headers, rest


def events(body):
    out = []
    for block in body.decode().split("\n\n"):
        name, data = None, None
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data = json.loads(line[6:])
        if name:
            out.append((name, data))
    return out


def check(name, fn):
    try:
        fn()
        print("ok - " + name)
    except Exception as e:  # noqa: BLE001 - report any failure as not ok
        FAILED.append(name)
        print("not ok - " + name)
        print("# %s: %s" % (type(e).__name__, e))


MSG = {"model": "claude-sonnet-5", "max_tokens": 100, "stream": True,
       "messages": [{"role": "user", "content": "hi"}]}


def t_text_sequence():
    port, _ = start({"turns": [{"text": "Hello there, world."}]})
    st, h, body = request(port, "POST", "/v1/messages", MSG)
    assert st == 200 and h["content-type"] == "text/event-stream", (st, h)
    ev = events(body)
    names = [n for n, _ in ev]
    assert names[0] == "message_start" and names[-1] == "message_stop", names
    assert "ping" in names and "message_delta" in names, names
    text = "".join(d["delta"]["text"] for n, d in ev if n == "content_block_delta")
    assert text == "Hello there, world.", text
    md = [d for n, d in ev if n == "message_delta"][0]
    assert md["delta"]["stop_reason"] == "end_turn"


def t_tool_use_split():
    inp = {"command": "ls -la", "n": 3}
    port, _ = start({"turns": [{"tool_use": [{"name": "bash", "input": inp}], "thinking": "hmm, let me see",
                                "signature": "SIG123"}]})
    ev = events(request(port, "POST", "/v1/messages", MSG)[2])
    frags = [d["delta"]["partial_json"] for n, d in ev
             if n == "content_block_delta" and d["delta"]["type"] == "input_json_delta"]
    assert len(frags) > 3 and frags[0] == "", frags
    assert json.loads("".join(frags)) == inp
    starts = [d["content_block"] for n, d in ev if n == "content_block_start"]
    assert starts[0]["type"] == "thinking" and starts[-1]["type"] == "tool_use", starts
    assert starts[-1]["id"].startswith("toolu_") and starts[-1]["name"] == "bash"
    sig = [d["delta"]["signature"] for n, d in ev
           if n == "content_block_delta" and d["delta"]["type"] == "signature_delta"]
    assert sig == ["SIG123"], sig
    md = [d for n, d in ev if n == "message_delta"][0]
    assert md["delta"]["stop_reason"] == "tool_use"


def t_http_errors():
    port, _ = start({"turns": [{"http_error": 429, "retry_after": 2}, {"http_error": 529},
                               {"http_error": 500}, {"text": "fine"}]})
    st, h, body = request(port, "POST", "/v1/messages", MSG)
    assert st == 429 and h.get("retry-after") == "2", (st, h)
    assert json.loads(body)["error"]["type"] == "rate_limit_error"
    st, _, body = request(port, "POST", "/v1/messages", MSG)
    assert st == 529 and json.loads(body)["error"]["type"] == "overloaded_error"
    st, _, body = request(port, "POST", "/v1/messages", MSG)
    assert st == 500 and json.loads(body)["type"] == "error"
    st, _, _ = request(port, "POST", "/v1/messages", MSG)
    assert st == 200


def t_auth_and_models():
    port, log = start({"api_key": KEY, "models": ["claude-opus-5"]})
    st, _, body = request(port, "POST", "/v1/messages", MSG, key=None)
    assert st == 401 and json.loads(body)["error"]["type"] == "authentication_error"
    st, _, body = request(port, "POST", "/v1/messages", MSG, key="wrong")
    assert st == 401
    st, _, body = request(port, "GET", "/v1/models?limit=1000")
    assert st == 200 and [m["id"] for m in json.loads(body)["data"]] == ["claude-opus-5"]
    recs = [json.loads(l) for l in open(log)]
    req = [r for r in recs if r["event"] == "request"]
    assert len(req) == 3
    assert req[0]["headers"]["anthropic-version"] == "2023-06-01"
    assert "x-api-key" not in req[0]["headers"]
    assert req[2]["headers"]["x-api-key"].startswith("<redacted:"), req[2]["headers"]
    assert KEY not in open(log).read()
    assert req[1]["body"]["model"] == "claude-sonnet-5"


def t_stream_error_drop_one_byte():
    port, log = start({"turns": [{"stream_error": "overloaded_error"},
                                 {"text": "abcdefghij" * 5, "drop_after_bytes": 150},
                                 {"text": "one byte at a time", "chunk_bytes": 1}]})
    ev = events(request(port, "POST", "/v1/messages", MSG)[2])
    assert ev[-1][0] == "error" and ev[-1][1]["error"]["type"] == "overloaded_error", ev
    st, _, body = request(port, "POST", "/v1/messages", MSG)
    assert st == 200 and len(body) == 150, len(body)
    body = request(port, "POST", "/v1/messages", MSG)[2]
    ev = events(body)
    assert ev[-1][0] == "message_stop"
    text = "".join(d["delta"]["text"] for n, d in ev if n == "content_block_delta")
    assert text == "one byte at a time", text
    # a dropped connection's "served" line may be written after the next request's
    served = sorted((json.loads(l) for l in open(log) if '"served"' in l), key=lambda r: r["seq"])
    assert served[1]["dropped"] is True and served[2]["bytes"] == len(body), served


def t_stops_by_itself():
    path = os.path.join(TMP, "empty.json")
    with open(path, "w") as f:
        f.write("{}")
    p = subprocess.Popen([sys.executable, MOCK, "--scenario", path, "--max-seconds", "0.5"],
                         stdout=subprocess.PIPE, text=True)
    PROCS.append(p)
    assert p.stdout.readline().startswith("PORT ")
    assert p.wait(timeout=5) == 0


def main():
    try:
        check("text stream follows the documented event sequence", t_text_sequence)
        check("tool_use arguments split at odd places, thinking with signature", t_tool_use_split)
        check("429 with retry-after, 529, 500 error bodies", t_http_errors)
        check("401 without a key, /v1/models, request log redacts the key", t_auth_and_models)
        check("in-stream error, dropped connection, one-byte writes", t_stream_error_drop_one_byte)
        check("stops by itself after --max-seconds", t_stops_by_itself)
    finally:
        for p in PROCS:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    p.kill()
            if p.stdout:
                p.stdout.close()
        shutil.rmtree(TMP, ignore_errors=True)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
