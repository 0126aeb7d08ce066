#!/bin/sh
# End-to-end: escalation to Claude is explicit, visible and opt-in.
# A task starting with @claude goes to the (mock) Anthropic API with
# x-api-key and anthropic-version — no local server needed; without a key,
# or with --route local, nothing reaches it and the user is told why; a
# task matching a routing pattern escalates on its own; `hearth stats`
# shows what escalation cost.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
ALOG=$E2E_TMP/anthropic.jsonl
export ALOG

printf '{"api_key": "sk-test-e2e", "turns": [{"text": "Claude answer one."}, {"text": "Claude answer two."}, {"text": "Claude answer three."}]}\n' \
	>"$E2E_TMP/anth.json"
python3 "$(dirname "$0")/../net/mock_anthropic.py" --scenario "$E2E_TMP/anth.json" --log "$ALOG" \
	--max-seconds 120 >"$E2E_TMP/anth.out" 2>&1 &
APID=$!
track_pid "$APID"
i=0
while [ $i -lt 100 ] && ! grep -q '^PORT' "$E2E_TMP/anth.out" 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
AURL="http://127.0.0.1:$(awk '/^PORT/{print $2}' "$E2E_TMP/anth.out")"
anth_requests() { grep -c '"event": "request"' "$ALOG" 2>/dev/null || echo 0; }

# ---- @claude with a key: Claude answers, no local server needed ------------
ANTHROPIC_API_KEY=sk-test-e2e ANTHROPIC_BASE_URL=$AURL \
	hearth_run at_claude -p --server http://127.0.0.1:9 --cwd "$REPO" --output-format json \
	"@claude review the design of hello.c"
check_rc "@claude: exit status 0" 0
check "@claude: Claude's answer, the route and its reason in the json" pycheck '
d = json.loads(OUT_TEXT)
need(d["result"] == "Claude answer one.", "result %r" % d["result"])
need(d["route"]["target"] == "claude" and "@claude" in d["route"]["reason"], "route %r" % d.get("route"))'
check "@claude: the request carried x-api-key and anthropic-version, and no @claude prefix" pycheck '
reqs = [json.loads(l) for l in open(os.environ["ALOG"]) if "\"request\"" in l]
reqs = [r for r in reqs if r["path"].startswith("/v1/messages")]  # not the /v1/models check
h = reqs[-1]["headers"]
need("x-api-key" in h and h.get("anthropic-version") == "2023-06-01", "headers %r" % h)
last = reqs[-1]["body"]["messages"][-1]
text = json.dumps(last)
need("review the design of hello.c" in text and "@claude" not in text, "task %r" % text[:200])'
check "@claude: stderr says where the turn went and why" grep -Eq '^hearth: → claude \([a-z]+\): requested with @claude' "$ERR"

# ---- no key: stays local, says why, nothing reaches Claude -----------------
BEFORE=$(anth_requests)
mock_start plain
env -u ANTHROPIC_API_KEY ANTHROPIC_BASE_URL="$AURL" \
	"$HEARTH_BIN" -p --server "$MOCK_URL" --cwd "$REPO" "@claude what is it?" \
	>"$E2E_TMP/nokey.out" 2>"$E2E_TMP/nokey.err"
check "no key: answered locally" grep -q "The answer is 42." "$E2E_TMP/nokey.out"
check "no key: the user is told why it stayed local" grep -q "ANTHROPIC_API_KEY" "$E2E_TMP/nokey.err"
check "no key: nothing reached the Anthropic mock" test "$(anth_requests)" = "$BEFORE"
mock_stop

# ---- --route local: nothing leaves the machine even with a key -------------
mock_start plain
ANTHROPIC_API_KEY=sk-test-e2e ANTHROPIC_BASE_URL=$AURL \
	"$HEARTH_BIN" -p --route local --server "$MOCK_URL" --cwd "$REPO" "@claude what is it?" \
	>"$E2E_TMP/local.out" 2>"$E2E_TMP/local.err"
check "--route local: answered locally" grep -q "The answer is 42." "$E2E_TMP/local.out"
check "--route local: nothing reached the Anthropic mock" test "$(anth_requests)" = "$BEFORE"
mock_stop

# ---- a routing pattern escalates on its own (auto) --------------------------
ANTHROPIC_API_KEY=sk-test-e2e ANTHROPIC_BASE_URL=$AURL \
	hearth_run pattern -p --server http://127.0.0.1:9 --cwd "$REPO" --output-format json \
	"Find the race condition in the worker pool."
check_rc "pattern: exit status 0" 0
check "pattern: routed to Claude with the pattern as the reason" pycheck '
d = json.loads(OUT_TEXT)
need(d["route"]["target"] == "claude" and "race condition" in d["route"]["reason"], "route %r" % d.get("route"))'

# ---- the interactive session: @claude and /local, turn by turn --------------
mock_start plain
printf '@claude first question\n/local\nsecond question\n' |
	ANTHROPIC_API_KEY=sk-test-e2e ANTHROPIC_BASE_URL=$AURL \
	timeout 30 "$HEARTH_BIN" --line --server "$MOCK_URL" --cwd "$REPO" >"$E2E_TMP/line.out" 2>&1
check "line session: the @claude turn is answered by Claude" grep -q "Claude answer three." "$E2E_TMP/line.out"
check "line session: after /local the next turn is answered locally" grep -q "The answer is 42." "$E2E_TMP/line.out"
check "line session: the route change is shown" grep -q "→ claude" "$E2E_TMP/line.out"
mock_stop

# ---- hearth stats ----------------------------------------------------------------
hearth_run stats stats
check_rc "stats: exit status 0" 0
check "stats: three escalations counted" pycheck '
need("escalations: 3" in OUT_TEXT, OUT_TEXT[-300:])'

e2e_finish
