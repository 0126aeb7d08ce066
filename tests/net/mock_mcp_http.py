#!/usr/bin/env python3
"""mock_mcp_http: the MCP demo server (extensions/mcp-demo, stdio) behind
the Streamable HTTP transport, for hearth's tests.

Each session (started by an initialize POST) runs its own mcp-demo child.
A POST carries one JSON-RPC message: a notification is forwarded and
answered 202; a request is forwarded and answered, by --reply, as an event
stream ("sse": every message the demo writes until the answer, progress
and list_changed included, one event each) or a JSON body ("json": the
answer alone).  initialize's answer carries Mcp-Session-Id; later requests
must send it (else 400; 404 for a session it does not know, as after a
restart) and MCP-Protocol-Version.  --require-header "Name: value"
answers 401 without it.

Resumability: every event carries an id ("<stream>-<n>"), and each
stream's events are kept.  A GET with Last-Event-ID replays the events of
that id's stream after it (waiting for the answer if it is not in yet);
a GET without it is 405 (no listening stream).  --drop-first-call sends
the first tools/call's stream a priming event (an id, empty data), then
closes it before the answer, which the demo still produces and the
stream keeps for a resume.  --expire-first-call answers the first
tools/call 404 and forgets its session (the spec's expired session).
DELETE with a session id ends that session (200).
--log FILE appends one JSON line per HTTP request (method, path, headers,
body).  Prints "PORT n" once listening on 127.0.0.1 (port 0: a free one).
Demo arguments follow "--".
"""
import argparse
import json
import subprocess
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = None
SESSIONS = {}
LOCK = threading.Lock()
STREAMS = {}        # stream id -> Stream
FIRST_CALL = [True]


class Stream:
    """The events of one answer stream, kept for resuming."""
    def __init__(self, sid):
        with LOCK:
            self.id = "%s%d" % (sid[:6], len(STREAMS))
            STREAMS[self.id] = self
        self.events = []    # (event id, text, final)
        self.cond = threading.Condition()

    def add(self, text, final):
        with self.cond:
            eid = "%s-%d" % (self.id, len(self.events))
            self.events.append((eid, text, final))
            self.cond.notify_all()
            return eid


class Session:
    def __init__(self):
        self.proc = subprocess.Popen([ARGS.demo] + ARGS.demo_args, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, bufsize=0)
        self.lock = threading.Lock()   # one writer at a time
        self.waiters = {}              # request id -> list of lines for it
        self.cond = threading.Condition()
        self.loose = []                # notifications not tied to a request in progress
        threading.Thread(target=self.reader, daemon=True).start()

    def reader(self):
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            with self.cond:
                try:
                    msg = json.loads(line)
                except ValueError:
                    msg = None
                rid = msg.get("id") if isinstance(msg, dict) and ("result" in msg or "error" in msg) else None
                if rid in self.waiters:
                    self.waiters[rid].append((line, True))
                else:  # a notification: to every request waiting (progress, list_changed)
                    for w in self.waiters.values():
                        w.append((line, False))
                self.cond.notify_all()
        with self.cond:
            for w in self.waiters.values():
                w.append((None, True))
            self.cond.notify_all()

    def send(self, line):
        with self.lock:
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()


def log(rec):
    if ARGS.log:
        with LOCK, open(ARGS.log, "a") as f:
            f.write(json.dumps(rec) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def plain(self, code, text, extra=None):
        body = text.encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        log({"method": "GET", "path": self.path, "headers": dict(self.headers)})
        last = self.headers.get("Last-Event-ID")
        sid = self.headers.get("Mcp-Session-Id")
        if not last:
            self.plain(405, "no listening stream")
            return
        if sid not in SESSIONS:
            self.plain(404, "no session %r" % sid)
            return
        st = STREAMS.get(last.rsplit("-", 1)[0])
        if not st:
            self.plain(400, "unknown event id %r" % last)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        i = [e[0] for e in st.events].index(last) + 1
        try:
            while True:
                with st.cond:
                    if not st.cond.wait_for(lambda: len(st.events) > i, timeout=20):
                        break
                    eid, text, final = st.events[i]
                i += 1
                self.wfile.write(("id: %s\nevent: message\ndata: %s\n\n" % (eid, text)).encode())
                self.wfile.flush()
                if final:
                    break
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def do_DELETE(self):
        sid = self.headers.get("Mcp-Session-Id")
        log({"method": "DELETE", "path": self.path, "headers": dict(self.headers)})
        with LOCK:
            s = SESSIONS.pop(sid, None)
        if not s:
            self.plain(404, "no session %r" % sid)
            return
        s.proc.kill()
        self.plain(200, "session ended")

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n).decode("utf-8", "replace")
        log({"method": "POST", "path": self.path, "headers": dict(self.headers), "body": body})
        if ARGS.require_header:
            name, _, value = ARGS.require_header.partition(":")
            if self.headers.get(name.strip()) != value.strip():
                self.plain(401, "missing or wrong %s header\nsecond line" % name.strip())
                return
        try:
            msg = json.loads(body)
        except ValueError:
            self.plain(400, "not JSON")
            return
        sid = self.headers.get("Mcp-Session-Id")
        extra = {}
        if msg.get("method") == "initialize":
            sid = uuid.uuid4().hex
            with LOCK:
                SESSIONS[sid] = Session()
            extra["Mcp-Session-Id"] = sid
        with LOCK:
            s = SESSIONS.get(sid)
        if not s:
            self.plain(400 if not sid else 404, "no session %r" % sid)
            return
        if "id" not in msg:  # a notification
            s.send(body)
            self.plain(202, "Accepted")
            return
        drop = False
        if msg.get("method") == "tools/call":
            with LOCK:
                first, FIRST_CALL[0] = FIRST_CALL[0], False
            if first and ARGS.expire_first_call:
                with LOCK:
                    SESSIONS.pop(sid, None)
                s.proc.kill()
                self.plain(404, "session %s expired" % sid)
                return
            drop = first and ARGS.drop_first_call
        with s.cond:
            s.waiters[msg["id"]] = []
        s.send(body)
        if ARGS.reply == "json" and not drop:
            self.answer_json(s, msg["id"], extra)
        else:
            self.answer_sse(s, msg["id"], extra, drop, sid)

    def take(self, s, rid):
        """The next line for request rid (blocking); (line, is_answer)."""
        with s.cond:
            while not s.waiters[rid]:
                s.cond.wait()
            line, final = s.waiters[rid].pop(0)
            if final:
                del s.waiters[rid]
            return line, final

    def answer_json(self, s, rid, extra):
        while True:
            line, final = self.take(s, rid)
            if final:
                break
        body = (line or "").encode()
        self.send_response(200 if line else 500)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def answer_sse(self, s, rid, extra, drop, sid):
        st = Stream(sid)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        for k, v in extra.items():
            self.send_header(k, v)
        self.end_headers()
        try:
            if drop:  # a priming event, then the connection breaks; the answer is kept
                eid = st.add("", False)
                self.wfile.write(("id: %s\ndata: \n\n" % eid).encode())
                self.wfile.flush()
                threading.Thread(target=self.keep, args=(s, rid, st), daemon=True).start()
                self.close_connection = True
                return
            while True:
                line, final = self.take(s, rid)
                if line is None:
                    break
                eid = st.add(line, final)
                self.wfile.write(("id: %s\nevent: message\ndata: %s\n\n" % (eid, line)).encode())
                self.wfile.flush()
                if final:
                    break
        except (BrokenPipeError, ConnectionResetError):
            with s.cond:
                s.waiters.pop(rid, None)
        self.close_connection = True

    def keep(self, s, rid, st):
        """The rest of a dropped stream, kept for a resume."""
        while True:
            line, final = self.take(s, rid)
            if line is None:
                break
            st.add(line, final)
            if final:
                break


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--demo", required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--reply", choices=["sse", "json"], default="sse")
    p.add_argument("--require-header", default="")
    p.add_argument("--log", default="")
    p.add_argument("--drop-first-call", action="store_true")
    p.add_argument("--expire-first-call", action="store_true")
    p.add_argument("demo_args", nargs="*")
    ARGS = p.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", ARGS.port), Handler)
    srv.daemon_threads = True
    print("PORT %d" % srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    finally:
        for s in SESSIONS.values():
            s.proc.kill()


if __name__ == "__main__":
    sys.exit(main())
