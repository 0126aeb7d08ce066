#!/bin/sh
# End-to-end: `hearth --serve MODEL.gguf` starts llama-server, uses it and
# stops it.  A fake llama-server on PATH records its argv and pid and runs
# the mock (tests/net/mock_llama.py) on the port it was given.  With
# HEARTH_TEST_LLAMA_SERVER=1 the real /tmp/llama/build/bin/llama-server
# serves a random-weight model too (skipped otherwise).
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
BIN=$E2E_TMP/bin
mkdir -p "$BIN"
export XDG_STATE_HOME="$E2E_TMP/state"
export XDG_CONFIG_HOME="$E2E_TMP/config"
MODEL="$E2E_TMP/tiny model.gguf"
printf 'GGUF' >"$MODEL"
cat >"$BIN/llama-server" <<EOF
#!/bin/sh
# fake llama-server: record argv (one per line) and pid, run the mock on --port
printf '%s\n' "\$@" >"$E2E_TMP/argv"
echo \$\$ >"$E2E_TMP/server.pid"
port=
while [ \$# -gt 0 ]; do
	[ "\$1" = --port ] && port=\$2
	shift
done
exec python3 "$MOCK_PY" --port "\$port" --scenario "$SCENARIOS/\${FAKE_SCENARIO:-plain}.json" \
	--fixtures "$FIXTURES" --log "$E2E_TMP/served.jsonl" --max-seconds 60
EOF
chmod +x "$BIN/llama-server"
# a PATH with the fake but without any real llama-server
FAKEPATH=$BIN:$(dirname "$(command -v python3)"):/usr/bin:/bin

# ---- start, use, stop ------------------------------------------------------
(cd "$REPO" && PATH=$FAKEPATH hearth_run serve -p --serve "$MODEL" "What is the answer?" &&
	echo "$RC" >"$E2E_TMP/rc")
RC=$(cat "$E2E_TMP/rc" 2>/dev/null || echo missing)
OUT=$E2E_TMP/serve.out ERR=$E2E_TMP/serve.err
check_rc "serve: exit status 0" 0
check "serve: the answer came from the started server" same_text "$OUT" "The answer is 42."
check "serve: llama-server got the recommended flags" python3 - "$E2E_TMP/argv" "$MODEL" "$XDG_STATE_HOME" <<'EOF'
import sys
argv = open(sys.argv[1]).read().split("\n")[:-1]
model, state = sys.argv[2], sys.argv[3]
def val(flag):
    return argv[argv.index(flag) + 1] if flag in argv else None
want = {"-m": model, "--host": "127.0.0.1", "-ngl": "99", "-fa": "on", "--cache-type-k": "q8_0",
        "--cache-type-v": "q8_0", "--reasoning": "off", "-np": "1",
        "--slot-save-path": state + "/hearth/slots", "--alias": "tiny model", "-c": "32768",
        "--slot-prompt-similarity": "0.950", "--checkpoint-min-step": "0"}
bad = {k: val(k) for k in want if val(k) != want[k]}
if bad or "--jinja" not in argv or not (val("--port") or "").isdigit() or "--kv-unified" in argv \
        or "--cache-ram" in argv:
    print("argv:", argv, "wrong:", bad)
    sys.exit(1)
EOF
check "serve: the server is stopped when hearth exits" wait_gone "$(cat "$E2E_TMP/server.pid")" 50

# ---- a session shows the model load (503 from the managed server) -------------
(cd "$REPO" && printf 'hi\n' | FAKE_SCENARIO=loading_then_ready PATH=$FAKEPATH \
	timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" --line --serve "$MODEL" >"$E2E_TMP/load.out" 2>&1)
RC=$?
OUT=$E2E_TMP/load.out ERR=$E2E_TMP/load.out
check_rc "serve, line session: exit status 0" 0
check "serve, line session: the model load is shown" contains "$OUT" "llama-server is loading the model · "
check "serve, line session: then the answer" contains "$OUT" "Ready now."
check "serve, line session: the server is stopped on exit" wait_gone "$(cat "$E2E_TMP/server.pid")" 50

# ---- hearth SIGKILLed: the managed server must not be left running (Linux) ----
if [ "$(uname -s)" = Linux ]; then
	rm -f "$E2E_TMP/server.pid" "$E2E_TMP/served.jsonl"
	mkfifo "$E2E_TMP/stdin"
	exec 7<>"$E2E_TMP/stdin" # a writer that stays open: hearth waits for input
	(cd "$REPO" && PATH=$FAKEPATH exec "$HEARTH_BIN" --line --serve "$MODEL" \
		<"$E2E_TMP/stdin" >"$E2E_TMP/killed.out" 2>&1) &
	HPID=$!
	track_pid "$HPID"
	n=100 # up to 10 s for the server to answer hearth's start-up requests
	until grep -q '"path": "/props"' "$E2E_TMP/served.jsonl" 2>/dev/null || [ "$n" -le 0 ]; do
		sleep 0.1
		n=$((n - 1))
	done
	SPID=$(cat "$E2E_TMP/server.pid" 2>/dev/null || echo 0)
	check "serve, SIGKILL: the managed server was started and used" sh -c '[ "$1" -gt 0 ] && kill -0 "$1"' sh "$SPID"
	kill -KILL "$HPID" 2>/dev/null
	wait "$HPID" 2>/dev/null
	untrack_pid "$HPID"
	check "serve, SIGKILL: the server is gone within 5 s (parent-death signal)" wait_gone "$SPID" 50
	kill -KILL "$SPID" 2>/dev/null
	exec 7>&-
else
	skip "parent-death signal" "Linux only"
fi

# ---- relative model path with --cwd, and the serve.model setting ------------
mkdir -p "$REPO/.hearth"
printf '{"serve": {"model": "%s", "ctx": 4096}}\n' "$MODEL" >"$REPO/.hearth/settings.json"
(cd "$REPO" && PATH=$FAKEPATH hearth_run serve_setting -p "hi" && echo "$RC" >"$E2E_TMP/rc")
RC=$(cat "$E2E_TMP/rc" 2>/dev/null || echo missing)
OUT=$E2E_TMP/serve_setting.out ERR=$E2E_TMP/serve_setting.err
check_rc "serve.model setting: exit status 0" 0
check "serve.model setting: -c from serve.ctx" grep -qx 4096 "$E2E_TMP/argv"
rm -f "$REPO/.hearth/settings.json"

# ---- the serve.* settings (issue 14 item 7) -------------------------------------
mkdir -p "$XDG_CONFIG_HOME/hearth"
printf '{"serve": {"slots": 2, "ctx": 4096, "kv_unified": true, "cache_ram": 2048, "cache_type": "q4_0", "args": ["--checkpoint-min-step", "0"]}}\n' \
	>"$XDG_CONFIG_HOME/hearth/settings.json"
(cd "$REPO" && PATH=$FAKEPATH hearth_run serve_knobs -p --serve "$MODEL" "hi" && echo "$RC" >"$E2E_TMP/rc")
RC=$(cat "$E2E_TMP/rc" 2>/dev/null || echo missing)
OUT=$E2E_TMP/serve_knobs.out ERR=$E2E_TMP/serve_knobs.err
check_rc "serve settings: exit status 0" 0
check "serve settings: slots, context per slot, KV type, unified KV, cache-ram, similarity 0.9, extra args" python3 - "$E2E_TMP/argv" <<'EOF'
import sys
argv = open(sys.argv[1]).read().split("\n")[:-1]
def val(flag):
    return argv[argv.index(flag) + 1] if flag in argv else None
want = {"-np": "2", "-c": "8192", "--cache-type-k": "q4_0", "--cache-type-v": "q4_0", "--cache-ram": "2048",
        "--slot-prompt-similarity": "0.900", "--checkpoint-min-step": "0"}
bad = {k: val(k) for k in want if val(k) != want[k]}
if bad or "--kv-unified" not in argv:
    print("argv:", argv, "wrong:", bad)
    sys.exit(1)
EOF
rm -f "$XDG_CONFIG_HOME/hearth/settings.json"
# an untrusted project cannot add server arguments
mkdir -p "$REPO/.hearth"
printf '{"serve": {"args": ["--slot-save-path", "/tmp/evil"]}}\n' >"$REPO/.hearth/settings.json"
(cd "$REPO" && PATH=$FAKEPATH hearth_run serve_proj_args -p --serve "$MODEL" "hi" && echo "$RC" >"$E2E_TMP/rc")
check "serve.args: an untrusted project's extra arguments are not passed" sh -c '! grep -qx /tmp/evil "$1"' sh "$E2E_TMP/argv"
rm -f "$REPO/.hearth/settings.json"

# a model that cannot take a q8_0 KV cache, a binary without --kv-unified: started again without them
PICKY=$E2E_TMP/picky
mkdir -p "$PICKY"
cat >"$PICKY/llama-server" <<EOF
#!/bin/sh
printf '%s ' "\$@" >>"$E2E_TMP/picky.argv"; echo >>"$E2E_TMP/picky.argv"
case " \$* " in
*" --kv-unified "*) echo "error: invalid argument: --kv-unified" >&2; exit 1 ;;
*" q8_0 "*) echo "llama_init_from_model: K cache type q8_0 with block size 32 does not divide n_embd_head_k=16" >&2; exit 1 ;;
esac
exec "$BIN/llama-server" "\$@"
EOF
chmod +x "$PICKY/llama-server"
printf '{"serve": {"kv_unified": true}}\n' >"$XDG_CONFIG_HOME/hearth/settings.json"
(cd "$REPO" && PATH=$PICKY:$FAKEPATH hearth_run serve_fallback -p --serve "$MODEL" "What is the answer?" &&
	echo "$RC" >"$E2E_TMP/rc")
RC=$(cat "$E2E_TMP/rc" 2>/dev/null || echo missing)
OUT=$E2E_TMP/serve_fallback.out ERR=$E2E_TMP/serve_fallback.err
check_rc "serve fallback: exit status 0" 0
check "serve fallback: the answer came from the third start" same_text "$OUT" "The answer is 42."
check "serve fallback: three starts, the last with f16 and without --kv-unified" python3 - "$E2E_TMP/picky.argv" <<'EOF'
import sys
runs = [l.split() for l in open(sys.argv[1]).read().splitlines() if l.strip()]
ok = len(runs) == 3 and "--kv-unified" in runs[0] and "--kv-unified" not in runs[1] and "q8_0" in runs[1] \
    and "f16" in runs[2] and "q8_0" not in runs[2]
if not ok:
    print(runs)
    sys.exit(1)
EOF
check "serve fallback: each fallback is said on stderr" sh -c 'grep -q "does not take --kv-unified" "$1" && grep -q "started with f16" "$1"' sh "$ERR"
rm -f "$XDG_CONFIG_HOME/hearth/settings.json"

# ---- missing model, missing binary, a server that dies ------------------------
(cd "$REPO" && PATH=$FAKEPATH hearth_run nomodel -p --serve "$E2E_TMP/none.gguf" "hi" &&
	echo "$RC" >"$E2E_TMP/rc")
RC=$(cat "$E2E_TMP/rc" 2>/dev/null || echo missing)
OUT=$E2E_TMP/nomodel.out ERR=$E2E_TMP/nomodel.err
check_rc "missing model: exit status 1" 1
check "missing model: one line naming the file" one_line "$ERR"
check "missing model: says no model file" contains "$ERR" "no model file at $E2E_TMP/none.gguf"

(cd "$REPO" && PATH=$(dirname "$(command -v python3)"):/usr/bin:/bin hearth_run nobin -p --serve "$MODEL" "hi" &&
	echo "$RC" >"$E2E_TMP/rc")
RC=$(cat "$E2E_TMP/rc" 2>/dev/null || echo missing)
OUT=$E2E_TMP/nobin.out ERR=$E2E_TMP/nobin.err
if command -v llama-server >/dev/null 2>&1 && [ "$(command -v llama-server)" != "$BIN/llama-server" ] &&
	PATH=$(dirname "$(command -v python3)"):/usr/bin:/bin command -v llama-server >/dev/null 2>&1; then
	skip "missing binary" "a llama-server is installed system-wide"
else
	check_rc "missing binary: exit status 1" 1
	check "missing binary: one line saying what to do" one_line "$ERR"
	check "missing binary: names llama-server and PATH" contains "$ERR" "llama-server not found in PATH"
fi

DEAD=$E2E_TMP/deadbin
mkdir -p "$DEAD"
printf '#!/bin/sh\necho "error: unknown model architecture: foo" >&2\nexit 1\n' >"$DEAD/llama-server"
chmod +x "$DEAD/llama-server"
(cd "$REPO" && PATH=$DEAD:/usr/bin:/bin hearth_run dead -p --serve "$MODEL" "hi" && echo "$RC" >"$E2E_TMP/rc")
RC=$(cat "$E2E_TMP/rc" 2>/dev/null || echo missing)
OUT=$E2E_TMP/dead.out ERR=$E2E_TMP/dead.err
check_rc "server exits at once: exit status 1" 1
check "server exits at once: one line with its last output" one_line "$ERR"
check "server exits at once: the server's reason is shown" contains "$ERR" "unknown model architecture: foo"

# ---- the real llama-server (opt-in) ------------------------------------------
REAL=${HEARTH_TEST_LLAMA_SERVER_BIN:-/work/llama/build/bin/llama-server}
[ -x "$REAL" ] || REAL=/tmp/llama/build/bin/llama-server
# the tiny dense model cannot take the default q8_0 KV cache: the fallback to f16 is under test too
RMODEL=$E2E_ROOT/../shared/models/tiny-random-llama.gguf
[ -f "$RMODEL" ] || RMODEL=/work/shared/models/tiny-random-llama.gguf
if [ -n "${HEARTH_TEST_LLAMA_SERVER:-}" ] && [ -x "$REAL" ] && [ -f "$RMODEL" ]; then
	mkdir -p "$REPO/.hearth"
	printf '{"serve": {"binary": "%s", "ctx": 2048, "slots": 2, "args": ["-t", "1"]}, "max_tokens": 16}\n' "$REAL" >"$REPO/.hearth/settings.json"
	trust_project "$REPO"
	(cd "$REPO" && HEARTH_TIMEOUT=120 hearth_run real -p --no-tools --serve "$RMODEL" "hi" && echo "$RC" >"$E2E_TMP/rc")
	RC=$(cat "$E2E_TMP/rc" 2>/dev/null || echo missing)
	OUT=$E2E_TMP/real.out ERR=$E2E_TMP/real.err
	check "real llama-server: hearth ran a turn against it (exit 0 or a cut-off answer)" \
		sh -c '[ "$1" = 0 ] || grep -q "token limit" "$2"' sh "$RC" "$ERR"
	check "real llama-server: the tiny model's q8_0 refusal led to an f16 start, said on stderr" contains "$ERR" "started with f16"
	check "real llama-server: no llama-server left running" \
		sh -c '! pgrep -f "slot-save-path $1/hearth/slots" >/dev/null' sh "$XDG_STATE_HOME"
	rm -f "$REPO/.hearth/settings.json"
else
	skip "real llama-server" "set HEARTH_TEST_LLAMA_SERVER=1"
fi

e2e_finish
