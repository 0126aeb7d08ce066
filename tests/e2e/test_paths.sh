#!/bin/sh
# End-to-end: race-free confinement and no temp-file leftovers, with the
# real binary (docs/permissions.md, "Paths").
#  1. kill -9 mid-write: the model writes a large file, hearth is killed
#     while the temp file exists; the file keeps its old bytes, and the
#     next start removes the temp file.
#  2. the symlink race through `hearth -p`: a racer process flips a
#     workspace directory between a real directory and a symlink to a
#     directory outside while the model's write calls go through the write
#     tool; nothing lands outside.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
OUTSIDE=$E2E_TMP/outside
make_repo "$REPO"
mkdir -p "$OUTSIDE"
printf 'original\n' >"$REPO/big.bin"
export REPO OUTSIDE

# ---- 1. kill -9 mid-write ------------------------------------------------

# the call as one recorded stream (the mock would cut 6 MiB of arguments into 5-byte deltas; hearth takes SSE events up to 16 MB, line and data together)
python3 - "$E2E_TMP" <<'EOF'
import json, os, sys
d = sys.argv[1]
def ev(delta, finish=None):
    return "data: " + json.dumps({"choices": [{"finish_reason": finish, "index": 0, "delta": delta}],
                                  "created": 1, "id": "chatcmpl-big", "model": "local-tiny",
                                  "object": "chat.completion.chunk"}) + "\n\n"
args = json.dumps({"path": "big.bin", "content": "z" * (6 << 20)})
with open(os.path.join(d, "bigwrite.sse"), "w") as f:
    f.write(ev({"role": "assistant", "content": None}))
    f.write(ev({"tool_calls": [{"index": 0, "id": "call_big", "type": "function",
                                "function": {"name": "write", "arguments": args}}]}))
    f.write(ev({}, "tool_calls"))
    f.write("data: [DONE]\n\n")
# read it first: the stale-write guard lets only a file the agent has read be overwritten
json.dump({"turns": [{"tool_calls": [{"name": "read", "arguments": {"path": "big.bin"}}]},
                     {"fixture": "bigwrite.sse"}, {"text": "Written."}]},
          open(os.path.join(d, "bigwrite.json"), "w"))
EOF
mock_start "$E2E_TMP/bigwrite.json"
# a tight poll in one process, so the kill comes within a millisecond of the temp file
python3 - "$HEARTH_BIN" "$MOCK_URL" "$REPO" "$E2E_TMP/kill.err" >"$E2E_TMP/kill.out" <<'EOF'
import os, signal, subprocess, sys, time
hearth, url, repo, err = sys.argv[1:5]
p = subprocess.Popen([hearth, "-p", "--server", url, "--cwd", repo, "Write big.bin."],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(err, "w"))
temp, t0 = "", time.time()
while not temp and p.poll() is None and time.time() - t0 < 30:
    temp = next((n for n in os.listdir(repo) if n.startswith(".big.bin.hearth-")), "")
p.send_signal(signal.SIGKILL)
p.wait()
print(p.pid, temp)
EOF
read -r HPID TEMP <"$E2E_TMP/kill.out"
mock_stop
if [ -n "$TEMP" ] && [ -e "$REPO/$TEMP" ]; then
	ok "kill -9 mid-write: $TEMP left in the work tree ($(wc -c <"$REPO/$TEMP") bytes)"
	case $TEMP in
	.big.bin.hearth-"$HPID"-??????) ok "kill -9: the temp name carries the pid" ;;
	*) not_ok "kill -9: the temp name carries the pid" "$TEMP, pid $HPID" ;;
	esac
	check "kill -9: big.bin keeps its old bytes" grep -qx original "$REPO/big.bin"
	mock_start plain
	hearth_run again -p --server "$MOCK_URL" --cwd "$REPO" "hello"
	mock_stop
	check_rc "next start: exit status 0" 0
	check "next start: the killed run's temp file is gone" test ! -e "$REPO/$TEMP"
	check "next start: no temp file anywhere in the work tree" \
		sh -c '! find "$REPO" -name ".*.hearth-*" | grep -q .'
	check "next start: big.bin still has its old bytes" grep -qx original "$REPO/big.bin"
	check "next start: the dead run's journal is gone, none left by the clean run" \
		sh -c '[ -z "$(ls -A "$XDG_STATE_HOME/hearth/temps")" ]'
else
	not_ok "kill -9 mid-write: caught hearth while the temp file existed" \
		"temp '$TEMP'; the write finished first or never started"
	diag_file stderr "$E2E_TMP/kill.err"
fi

# ---- 2. the symlink race through the write tool ---------------------------

mkdir -p "$REPO/d"
WRITES=${PATHS_RACE_WRITES:-200}
python3 - "$E2E_TMP/race.json" "$WRITES" <<'EOF'
import json, sys
n = int(sys.argv[2])
turns, per = [], 20
for t in range(0, n, per):
    turns.append({"tool_calls": [{"name": "write", "arguments": {"path": "d/f%d.txt" % i, "content": "x%d\n" % i}}
                                 for i in range(t, min(n, t + per))]})
turns.append({"text": "Done."})
json.dump({"turns": turns}, open(sys.argv[1], "w"))
EOF
# the racer: rename the directory away and put a symlink to outside in its
# place, then back, at random intervals, until told to stop
python3 - "$REPO" "$OUTSIDE" "$E2E_TMP/race.stop" >"$E2E_TMP/racer.out" 2>&1 <<'EOF' &
import os, random, sys, time
repo, out, stop = sys.argv[1:4]
d, real, link = os.path.join(repo, "d"), os.path.join(repo, ".d.real"), os.path.join(repo, ".d.link")
flips = 0
while not os.path.exists(stop):
    try:
        os.symlink(out, link)
        os.rename(d, real)
        os.rename(link, d)  # d is now a symlink to outside
        time.sleep(random.uniform(0.0002, 0.002))
        os.rename(d, link)
        os.rename(real, d)  # and a directory again
        os.unlink(link)
        flips += 1
    except OSError:  # hearth made d again in between (mkdir -p): put things back
        for p in (link, d):
            if os.path.islink(p):
                os.unlink(p)
        if os.path.isdir(real) and not os.path.lexists(d):
            os.rename(real, d)
    time.sleep(random.uniform(0.0002, 0.002))
print(flips)
EOF
RPID=$!
track_pid "$RPID"
mock_start "$E2E_TMP/race.json"
HEARTH_TIMEOUT=60 hearth_run race -p --verbose --server "$MOCK_URL" --cwd "$REPO" --max-steps 100 "Write the files."
mock_stop
: >"$E2E_TMP/race.stop"
wait_gone "$RPID" 50
wait "$RPID" 2>/dev/null
untrack_pid "$RPID"
inside=$(find "$REPO" -name 'f*.txt' | wc -l)
outside=$(find "$OUTSIDE" | sed 1d | wc -l)
# what the model was told about each call, from the last request (it carries every result)
python3 - "$MOCK_LOG" >"$E2E_TMP/race.counts" <<'EOF'
import json, sys
last = None
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("event") == "request" and isinstance(r.get("body"), dict) and r["body"].get("messages"):
        last = r["body"]["messages"]
res = [m.get("content") or "" for m in last or [] if m.get("role") == "tool"]
res = [c if isinstance(c, str) else json.dumps(c) for c in res]
print(sum("is outside the workspace" in c or "approval (a change outside the workspace)" in c for c in res),
      sum("leads outside the workspace" in c for c in res), len(res))
EOF
read -r bycheck bybeneath results <"$E2E_TMP/race.counts"
printf '# race: %s racer flips; of %s writes (%s results) %s landed inside, %s outside; refused: %s by the check (path or gate), %s by beneath-open after the check passed\n' \
	"$(cat "$E2E_TMP/racer.out")" "$WRITES" "$results" "$inside" "$outside" "$bycheck" "$bybeneath"
check_rc "race: exit status 0" 0
check "race: nothing landed outside the workspace" test "$outside" -eq 0
check "race: writes did land inside" test "$inside" -gt 0
check "race: no temp file left" sh -c '! find "$REPO" "$OUTSIDE" -name ".*.hearth-*" | grep -q .'

e2e_finish
