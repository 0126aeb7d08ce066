#!/bin/sh
# End-to-end against a real llama-server (issue 6): slot save on exit and
# restore on resume, and follow-up turns on a hybrid (Qwen3.5-style) model
# served from the cache.  Needs HEARTH_TEST_LLAMA_SERVER (the llama-server
# binary) and the random-weight models in HEARTH_TEST_MODELS (default
# ../shared/models); skipped when HEARTH_TEST_LLAMA_SERVER is unset.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

if [ -z "${HEARTH_TEST_LLAMA_SERVER:-}" ]; then
	skip "real llama-server tests" "HEARTH_TEST_LLAMA_SERVER is unset"
	e2e_finish
fi
: "${HEARTH_TEST_MODELS:=$E2E_ROOT/../shared/models}"
need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
SLOTS=$E2E_TMP/slots
mkdir -p "$SLOTS"

# real_start MODEL: a llama-server on a free port with --slot-save-path; sets REAL_URL.
real_start() {
	_port=$(closed_port)
	"$HEARTH_TEST_LLAMA_SERVER" -m "$HEARTH_TEST_MODELS/$1" -c 8192 -np 1 --jinja --reasoning off \
		-n 16 -t 1 --host 127.0.0.1 --port "$_port" --slot-save-path "$SLOTS" \
		>"$E2E_TMP/server.$1.log" 2>&1 &
	REAL_PID=$!
	track_pid "$REAL_PID"
	REAL_URL=http://127.0.0.1:$_port
	_n=300
	while [ "$_n" -gt 0 ]; do
		curl -sf "$REAL_URL/health" >/dev/null 2>&1 && return 0
		kill -0 "$REAL_PID" 2>/dev/null || break
		sleep 0.1
		_n=$((_n - 1))
	done
	not_ok "llama-server with $1 started" "see $E2E_TMP/server.$1.log"
	return 1
}

real_stop() {
	kill -TERM "$REAL_PID" 2>/dev/null
	wait_gone "$REAL_PID" 50
	untrack_pid "$REAL_PID"
}

usage() { # FILE KEY
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["usage"][sys.argv[2]])' "$1" "$2" 2>/dev/null || echo 0
}

# ---- dense model: save on exit, restore on resume after a restart ----------------
if real_start tiny-random-llama.gguf; then
	hearth_run d1 -p --server "$REAL_URL" --cwd "$REPO" --output-format json "First task."
	SID=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["session_id"])' "$OUT" 2>/dev/null)
	check "dense: the slot was saved at exit" test -s "$SLOTS/hearth-$SID.bin"
	real_stop
	real_start tiny-random-llama.gguf
	hearth_run d2 -p -r "$SID" --server "$REAL_URL" --cwd "$REPO" --output-format json --verbose "Second task."
	check "dense: restored before the first request" grep -q "restored the session's cache" "$ERR"
	CACHED=$(usage "$OUT" cache_read_input_tokens)
	check "dense: the resumed request came from the restored cache ($CACHED tokens)" test "$CACHED" -gt 1000
	real_stop
fi

# ---- hybrid model: a follow-up turn prefills only its new tokens ------------------
if real_start hybrid-random-qwen35.gguf; then
	mkdir -p "$REPO/.hearth"
	printf '{"slot_save": false}\n' >"$REPO/.hearth/settings.json"
	hearth_run h1 -p --server "$REAL_URL" --cwd "$REPO" --output-format json "First task."
	SID=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["session_id"])' "$OUT" 2>/dev/null)
	HELD=$(( $(usage "$OUT" input_tokens) + $(usage "$OUT" output_tokens) ))
	hearth_run h2 -p -r "$SID" --server "$REAL_URL" --cwd "$REPO" --output-format json "Second task."
	TOTAL=$(usage "$OUT" input_tokens)
	CACHED=$(usage "$OUT" cache_read_input_tokens)
	NEW=$((TOTAL - HELD))
	# the slot held the first prompt and the answer: only the rest is new; a hybrid model
	# re-processes a few tokens from its checkpoint, and the random model's answer may not
	# re-tokenize the same (docs/cache.md), so allow 40 more
	check "hybrid: the follow-up turn prefilled $((TOTAL - CACHED)) tokens for $NEW new" \
		test $((TOTAL - CACHED)) -le $((NEW + 40))
	rm -f "$REPO/.hearth/settings.json"
	real_stop
fi

e2e_finish
