#!/bin/sh
# tests/bench_real.sh: `make bench-real` (issue 14 item 9; not in CI).
#
# The warm-cache scenario against a real llama-server: 3 sessions x 3 turns
# on a 2-slot server, turns interleaved (s1t1 s2t1 s3t1 s1t2 ...), each turn a
# new agent process (the first one of a session starts it, the others
# continue it), on the hybrid and the dense model, with and without
# --slot-save-path.  Prints per turn the prompt tokens the server processed
# (the delta of llamacpp:prompt_tokens_total on /metrics) and the tokens it
# served from its cache (llamacpp:prompt_tokens_cached_total), the total, and
# the first turn's prompt size (processed + cached of the very first turn,
# on a cold server).
#
#   HEARTH_BENCH_SERVER   path to the llama-server binary (required)
#   HEARTH_BENCH_MODELS   directory of the models (default ../shared/models)
#   HEARTH_BENCH_AGENT    the command of a session's first turn, run in the
#                         session's directory; {url} and {task} are replaced
#                         (one argument each).  Default:
#                         "$HEARTH_BIN -p --server {url} {task}"
#   HEARTH_BENCH_AGENT_CONT  the command of a later turn (default: the same
#                         with -c), e.g. for pi: "pi -c -p {task}" with the
#                         server set in its own configuration
#   HEARTH_BENCH_CASES    which runs, space-separated among hybrid, dense,
#                         hybrid+save, dense+save (default: all four)
#   HEARTH_BENCH_SERVER_ARGS  extra llama-server arguments
#   HEARTH_BENCH_KEEP     set: keep the scratch directory (server logs, state)
#   HEARTH_BENCH_JSON     append one JSON line per case (rows with per-request figures) to this file
#
# The server runs with -lv 4: its log gives, per request, the prompt size, the
# tokens processed and generated and what the slot holds after; per turn the
# requests are printed as processed/new ("new": the prompt beyond what the
# session's previous request left in the slot), the prime marked "p".
#
# Every run is bounded by timeouts; the script fails only when the server
# cannot be started.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
: "${HEARTH_BIN:=$ROOT/hearth}"
: "${HEARTH_BENCH_SERVER:=}"
: "${HEARTH_BENCH_MODELS:=$ROOT/../shared/models}"
if [ -z "$HEARTH_BENCH_SERVER" ]; then
	echo "bench-real: set HEARTH_BENCH_SERVER=path/to/llama-server (and HEARTH_BENCH_MODELS=DIR)" >&2
	exit 2
fi
export HEARTH_BIN HEARTH_BENCH_SERVER HEARTH_BENCH_MODELS
unset ANTHROPIC_API_KEY HEARTH_SERVER http_proxy https_proxy HTTP_PROXY HTTPS_PROXY \
	ALL_PROXY all_proxy 2>/dev/null || true

exec timeout 3600 python3 - <<'PYEOF'
import os, re, shlex, shutil, socket, subprocess, sys, tempfile, time, urllib.request

HEARTH = os.environ["HEARTH_BIN"]
SERVER = os.environ["HEARTH_BENCH_SERVER"]
MODELS = os.environ["HEARTH_BENCH_MODELS"]
AGENT = os.environ.get("HEARTH_BENCH_AGENT") or (shlex.quote(HEARTH) + " -p --server {url} {task}")
AGENT_CONT = os.environ.get("HEARTH_BENCH_AGENT_CONT") or (
    shlex.quote(HEARTH) + " -p -c --server {url} {task}")
CASES = (os.environ.get("HEARTH_BENCH_CASES") or "hybrid hybrid+save dense dense+save").split()
EXTRA = shlex.split(os.environ.get("HEARTH_BENCH_SERVER_ARGS", ""))
MODEL = {"hybrid": "hybrid-random-qwen35.gguf", "dense": "tiny-random-llama.gguf"}
SESSIONS, TURNS, SLOTS = 3, 3, 2
TASKS = ["Look at hello.c and tell me what it prints.",
         "Now say how to make it print a second line.",
         "Thanks. Sum up what we found in one sentence."]
TMP = tempfile.mkdtemp(prefix="hearth-bench-real.")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def metrics(url):
    try:
        with urllib.request.urlopen(url + "/metrics", timeout=10) as r:
            text = r.read().decode()
    except OSError:
        return None
    out = {}
    for name in ("prompt_tokens_total", "prompt_tokens_cached_total", "tokens_predicted_total"):
        m = re.search(r"^llamacpp:%s (\S+)$" % name, text, re.M)
        out[name] = int(float(m.group(1))) if m else 0
    return out


def start_server(model, save_dir, log):
    port = free_port()
    url = "http://127.0.0.1:%d" % port
    args = [SERVER, "-m", os.path.join(MODELS, model), "-c", "16384", "-np", str(SLOTS), "--jinja",
            "--reasoning", "off", "-n", "24", "-t", os.environ.get("HEARTH_BENCH_THREADS", "1"), "--metrics", "--host", "127.0.0.1",
            "--port", str(port), "-lv", "4"] + (["--slot-save-path", save_dir] if save_dir else []) + EXTRA
    p = subprocess.Popen(args, stdout=open(log, "w"), stderr=subprocess.STDOUT)
    for _ in range(600):
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as r:
                if r.status == 200:
                    return p, url
        except OSError:
            pass
        if p.poll() is not None:
            break
        time.sleep(0.1)
    p.kill()
    print("  llama-server did not start: see %s" % log)
    return None, None


TASK_RE = re.compile(r"slot +\S+: id +(\d+) \| task (\d+) \| (.*)$")


def log_tasks(text):
    """The requests in a piece of the server log (-lv 4), in order: per task
    its slot, prompt size (task.n_tokens), tokens processed, tokens
    generated and the slot's size when it stopped."""
    tasks, order = {}, []
    for line in text.splitlines():
        m = TASK_RE.search(line)
        if not m or m.group(2) == "-1":
            continue
        slot, tid, rest = int(m.group(1)), int(m.group(2)), m.group(3)
        t = tasks.get(tid)
        if t is None:
            t = tasks[tid] = {"slot": slot, "n": None, "pre": None, "gen": None, "end": None}
            order.append(tid)
        mm = re.search(r"task\.n_tokens = (\d+)", rest)
        if mm:
            t["n"] = int(mm.group(1))
        mm = re.search(r"^prompt eval time = .*/ +(\d+) tokens", rest)
        if mm:
            t["pre"] = int(mm.group(1))
        mm = re.search(r"^ +eval time = .*/ +(\d+) tokens", rest)
        if mm:
            t["gen"] = int(mm.group(1))
        mm = re.search(r"stop processing: n_tokens = (\d+)", rest)
        if mm:
            t["end"] = int(mm.group(1))
    return [tasks[i] for i in order if tasks[i]["pre"] is not None]


def make_repo(d):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "hello.c"), "w") as f:
        f.write("#include <stdio.h>\n\nint\nmain(void)\n{\n\tputs(\"hello\");\n\treturn 0;\n}\n")
    subprocess.run(["git", "init", "-q"], cwd=d)
    subprocess.run(["git", "add", "."], cwd=d)
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@example.invalid", "commit",
                    "-qm", "init"], cwd=d)


def run_case(case):
    model = MODEL[case.split("+")[0]]
    base = os.path.join(TMP, case)
    save = os.path.join(base, "slots") if case.endswith("+save") else None
    if save:
        os.makedirs(save)
    env = dict(os.environ, HOME=os.path.join(base, "home"), XDG_CONFIG_HOME=os.path.join(base, "cfg"),
               XDG_STATE_HOME=os.path.join(base, "state"), XDG_CACHE_HOME=os.path.join(base, "cache"),
               NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
    os.makedirs(env["HOME"], exist_ok=True)
    repos = [os.path.join(base, "s%d" % (i + 1)) for i in range(SESSIONS)]
    for r in repos:
        make_repo(r)
    log = os.path.join(base + ".server.log")
    p, url = start_server(model, save, log)
    if not p:
        return None
    rows = []
    slot_end = {}  # session -> what its slot held after its last request (tokens)
    try:
        for t in range(TURNS):
            for s in range(SESSIONS):
                cmd = [a.replace("{url}", url).replace("{task}", TASKS[t])
                       for a in shlex.split(AGENT if t == 0 else AGENT_CONT)]
                m0 = metrics(url)
                off = os.path.getsize(log)
                t0 = time.perf_counter()
                try:
                    r = subprocess.run(cmd, cwd=repos[s], env=env, stdin=subprocess.DEVNULL,
                                       capture_output=True, text=True, timeout=600)
                    rc = r.returncode
                except subprocess.TimeoutExpired:
                    rc = "timeout"
                dt = time.perf_counter() - t0
                m1 = metrics(url)
                with open(log, errors="replace") as lf:
                    lf.seek(off)
                    tasks = log_tasks(lf.read())
                # per request: processed, new (its prompt beyond what the
                # session's last request left in the slot), and whether it is
                # the prime (a zero-generation request after the answer: the
                # server samples 1 token and does not keep it)
                reqs = []
                for k, tk in enumerate(tasks):
                    prime = (k == len(tasks) - 1 and k > 0 and tk["gen"] == 1 and tk["end"] == tk["n"])
                    prev = slot_end.get(s)
                    new = tk["n"] - prev if prev is not None and tk["n"] is not None else tk["n"]
                    reqs.append((tk["pre"], new, prime))
                    if tk["end"] is not None:
                        slot_end[s] = tk["end"]
                if not m0 or not m1:
                    print("  /metrics did not answer (start the server with --metrics)")
                    return None
                rows.append((s + 1, t + 1, m1["prompt_tokens_total"] - m0["prompt_tokens_total"],
                             m1["prompt_tokens_cached_total"] - m0["prompt_tokens_cached_total"],
                             m1["tokens_predicted_total"] - m0["tokens_predicted_total"], dt, rc, reqs))
    finally:
        p.terminate()
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
    files = []
    if save:
        files = [f for f in os.listdir(save)]
    return rows, files, save


print("bench-real: %d sessions x %d turns on a %d-slot llama-server (%s)" % (SESSIONS, TURNS, SLOTS, SERVER))
print("  agent: %s" % AGENT)
print("  then:  %s" % AGENT_CONT)
summary = []
for case in CASES:
    if case.split("+")[0] not in MODEL:
        print("unknown case %s (hybrid, dense, hybrid+save, dense+save)" % case)
        continue
    print("%s (%s%s)" % (case, MODEL[case.split("+")[0]], ", --slot-save-path" if case.endswith("+save") else ""))
    res = run_case(case)
    if not res:
        continue
    rows, files, save = res
    print("  %-7s %-4s %9s %7s %9s %7s %4s  %s" % ("session", "turn", "processed", "cached", "generated", "wall s",
                                                "rc", "requests: processed/new, p = prime"))
    for s, t, pre, cached, gen, dt, rc, reqs in rows:
        print("  %-7d %-4d %9d %7d %9d %7.1f %4s  %s" % (s, t, pre, cached, gen, dt, rc, " ".join(
            "%d/%s%s" % (a, "?" if b is None else b, "p" if c else "") for a, b, c in reqs)))
    # "each follow-up turn <= its new tokens + 32": the turn's own requests
    # (the prime after the answer prepares the next turn and is shown apart)
    over = []
    for s, t, pre, cached, gen, dt, rc, reqs in rows:
        if t == 1:
            continue
        for a, b, c in reqs:
            if not c and b is not None and a > b + 32:
                over.append("s%dt%d %d/%d" % (s, t, a, b))
    own = [sum(a for a, b, c in r[7] if not c) for r in rows]
    primes = [sum(a for a, b, c in r[7] if c) for r in rows]
    print("  own requests per turn: %s; primes: %s" % (" / ".join(map(str, own)), " / ".join(map(str, primes))))
    print("  follow-up requests above new + 32: %s" % (", ".join(over) if over else "none"))
    total = sum(r[2] for r in rows)
    first = rows[0][2] + rows[0][3]
    print("  total processed %d; first-turn prompt %d; per turn: %s" % (
        total, first, " / ".join(str(r[2]) for r in rows)))
    if save:
        size = sum(os.path.getsize(os.path.join(save, f)) for f in files)
        print("  slot files: %d, %.1f MB" % (len(files), size / 1e6))
    summary.append((case, total, first, [r[2] for r in rows]))
    if os.environ.get("HEARTH_BENCH_JSON"):
        import json
        with open(os.environ["HEARTH_BENCH_JSON"], "a") as jf:
            jf.write(json.dumps({"case": case, "total": total, "first": first, "rows": rows}) + "\n")
if summary:
    print("summary: case, total processed, first-turn prompt, per turn")
    for case, total, first, per in summary:
        print("  %-12s %6d %6d  %s" % (case, total, first, " ".join(str(x) for x in per)))
if os.environ.get("HEARTH_BENCH_KEEP"):
    print("kept: %s (server logs, the sessions' state)" % TMP)
else:
    shutil.rmtree(TMP, ignore_errors=True)
PYEOF
