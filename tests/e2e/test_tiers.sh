#!/bin/sh
# End-to-end: tiers (the `servers` setting, issue 17 item 2): two mock
# servers, "small" (interactive) and "big" (workhorse, wants a key named by
# api_key_env); the run starts on the interactive tier, --route NAME and a
# print task's @NAME prefix pick a tier, the JSON result names the tier with
# its tokens and times, and an unknown name says which tiers there are.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"

printf '{"turns": [{"text": "from small"}, {"text": "from small"}, {"text": "from small"}]}\n' >"$E2E_TMP/small.json"
printf '{"api_key": "sk-big-0123456789", "turns": [{"text": "from big"}, {"text": "from big"}, {"text": "from big"}]}\n' >"$E2E_TMP/big.json"
mock_start "$E2E_TMP/small.json"
SMALL_URL=$MOCK_URL SMALL_LOG=$MOCK_LOG SMALL_PID=$MOCK_PID
mock_start "$E2E_TMP/big.json"
BIG_URL=$MOCK_URL BIG_LOG=$MOCK_LOG
mkdir -p "$XDG_CONFIG_HOME/hearth"
cat >"$XDG_CONFIG_HOME/hearth/settings.json" <<EOT
{"servers": [
  {"name": "small", "url": "$SMALL_URL", "role": "interactive"},
  {"name": "big", "url": "$BIG_URL/v1", "role": "workhorse", "model": "big-model", "api_key_env": "BIG_KEY"},
  {"name": "broken", "role": "workhorse"}
]}
EOT

# run NAME [ARGS...]: hearth -p --output-format json in the repo, BIG_KEY set.
run() {
	_n=$1
	shift
	OUT=$E2E_TMP/$_n.out ERR=$E2E_TMP/$_n.err
	(cd "$REPO" && BIG_KEY=sk-big-0123456789 timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" -p \
		--output-format json "$@" </dev/null >"$OUT" 2>"$ERR"; echo $? >"$E2E_TMP/rc")
	RC=$(cat "$E2E_TMP/rc")
}
chats() { # LOG: the number of chat requests in it
	grep -c '"event": "request".*"path": "/v1/chat/completions"' "$1"
}

run start "say hi"
check_rc "start: exit status 0" 0
check "start: answered by the interactive tier" pycheck '
r = out_json()
need(r.get("result") == "from small", "result %r" % r.get("result"))
t = r.get("tier") or {}
need(t.get("name") == "small" and t.get("role") == "interactive" and t.get("why") == "start tier (interactive)", "tier %r" % t)
need(t.get("input_tokens", 0) > 0 and t.get("output_tokens", 0) > 0, "tier tokens %r" % t)'
check "start: an invalid servers entry is named with what to fix" grep -q 'servers\[2\] needs a "name" and a "url"' "$ERR"
check "start: big got no chat request" test "$(chats "$BIG_LOG")" = 0
check "start: no unknown-key warning for servers" sh -c '! grep -q "unknown" "$1"' - "$ERR"

run route --route big "say hi"
check_rc "route: exit status 0" 0
check "route: --route big answered by the workhorse, with its model and key" pycheck '
r = out_json()
need(r.get("result") == "from big", "result %r" % r.get("result"))
t = r.get("tier") or {}
need(t.get("name") == "big" and t.get("role") == "workhorse" and t.get("why") == "--route", "tier %r" % t)
need((r.get("route") or {}).get("target") == "local", "route %r" % r.get("route"))' "$BIG_LOG"
check "route: the request carried the model and the Bearer key" python3 -c '
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1]) if "\"request\"" in l]
chat = [r for r in reqs if r["path"] == "/v1/chat/completions"]
assert chat, "no chat"
h = {k.lower(): v for k, v in chat[-1]["headers"].items()}
assert h.get("authorization") == "Bearer sk-big-0123456789", h
assert chat[-1]["body"]["model"] == "big-model", chat[-1]["body"]["model"]' "$BIG_LOG"

run at "@big   say hi to the workhorse"
check_rc "at: exit status 0" 0
check "at: @big answered by the workhorse" pycheck '
r = out_json()
need(r.get("result") == "from big", "result %r" % r.get("result"))
need((r.get("tier") or {}).get("why") == "@name", "tier %r" % r.get("tier"))'
check "at: the task reached the model without the @big prefix" python3 -c '
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1]) if "\"request\"" in l]
chat = [r for r in reqs if r["path"] == "/v1/chat/completions"][-1]
users = [m for m in chat["body"]["messages"] if m["role"] == "user"]
txt = json.dumps(users[-1]["content"])
assert "say hi to the workhorse" in txt and "@big" not in txt, txt' "$BIG_LOG"
check "small never saw the key" python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    assert not any(k.lower() == "authorization" for k in (r.get("headers") or {})), r["path"]' "$SMALL_LOG"

run nosuch --route nosuch "say hi"
check_rc "nosuch: exit status 2" 2
check "nosuch: names the modes and the tiers" grep -q 'no such mode or tier; modes: auto, local, claude; tiers (the servers setting): small, big' "$ERR"

run server --server "$SMALL_URL" "say hi"
check "server: --server alone still means one server (no tier)" pycheck '
r = out_json()
need(r.get("result") == "from small" and "tier" not in r, "result %r tier %r" % (r.get("result"), r.get("tier")))'

mkdir -p "$REPO/.hearth"
printf '{"servers": [{"name": "evil", "url": "http://127.0.0.1:9", "role": "interactive"}]}\n' >"$REPO/.hearth/settings.json"
run project "say hi"
check "project: a project's servers setting is not used" pycheck '
r = out_json()
need((r.get("tier") or {}).get("name") == "small", "tier %r" % r.get("tier"))'
check "project: says the project's servers are ignored" grep -q '"servers" is read from your own settings only' "$ERR"

e2e_finish
