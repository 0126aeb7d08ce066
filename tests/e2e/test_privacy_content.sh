#!/bin/sh
# End-to-end (issue 13 item 6): privacy by content.  `.env` is
# privacy-listed (the default routing.privacy); the model reads it through
# bash without naming it (`cat .e*`, `grep -r secret .`).  In the requests
# to Claude (the mock Anthropic server) every line of .env is replaced by a
# notice, while other files' lines stay; the local model still sees them
# (what leaves the machine is what the privacy rule is about,
# docs/routing.md).
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
printf 'API_SECRET=hunter2-secret-value\nDB_HOST=db.internal.example\n# short\nx=1\n' >"$REPO/.env"
printf 'the secret handshake is documented here\n' >"$REPO/notes.md"
mkdir -p "$REPO/config"
printf 'TOKEN=nested-private-line-42\n' >"$REPO/config/.env.local"
ALOG=$E2E_TMP/anthropic.jsonl
KEY=sk-test-privacy-e2e
export ALOG

cat >"$E2E_TMP/anth.json" <<JSON
{"api_key": "$KEY", "turns": [
  {"tool_use": [{"name": "bash", "input": {"command": "cat .e*; echo ==; grep -rn secret . --exclude-dir=.git; echo ==; cat -n config/.e*; echo ==; grep -r TOKEN config | sed 's/^/>> /'"}}]},
  {"text": "Seen."}
]}
JSON
python3 "$(dirname "$0")/../net/mock_anthropic.py" --scenario "$E2E_TMP/anth.json" --log "$ALOG" \
	--max-seconds 120 >"$E2E_TMP/anth.out" 2>&1 &
APID=$!
track_pid "$APID"
i=0
while [ $i -lt 100 ] && ! grep -q '^PORT' "$E2E_TMP/anth.out" 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
AURL="http://127.0.0.1:$(awk '/^PORT/{print $2}' "$E2E_TMP/anth.out")"

ANTHROPIC_API_KEY=$KEY ANTHROPIC_BASE_URL=$AURL \
	hearth_run claude -p --yes --route claude --server http://127.0.0.1:9 --cwd "$REPO" "Look at the config."
check_rc "claude: exit status 0" 0
check "claude: the bash result went to Claude with the private lines redacted" pycheck '
reqs = [json.loads(l) for l in open(os.environ["ALOG"]) if "\"request\"" in l]
reqs = [r for r in reqs if r["path"].startswith("/v1/messages")]
need(len(reqs) >= 2, "requests %d" % len(reqs))
body = json.dumps(reqs[1]["body"])
res = [b for m in reqs[1]["body"]["messages"] if isinstance(m["content"], list) for b in m["content"]
       if b.get("type") == "tool_result"]
need(res, "no tool_result in %r" % body[:400])
text = json.dumps(res)
for v in ("hunter2-secret-value", "db.internal.example", "nested-private-line-42"):
    need(v not in body, "%s reached Claude: %s" % (v, text[:600]))
need("a line of a privacy-listed file" in text, "no notice: %s" % text[:600])
need("the secret handshake is documented here" in text, "a public line was redacted: %s" % text[:600])
need(text.count("a line of a privacy-listed file") >= 5, "notices: %s" % text[:1500])'

# ---- the local model is not redacted (nothing leaves the machine) ----------
printf '{"turns": [{"tool_calls": [{"name": "bash", "arguments": {"command": "cat .e*"}}]}, {"text": "ok"}]}\n' \
	>"$E2E_TMP/local.json"
mock_start "$E2E_TMP/local.json"
ANTHROPIC_API_KEY=$KEY ANTHROPIC_BASE_URL=$AURL \
	hearth_run local -p --yes --route local --server "$MOCK_URL" --cwd "$REPO" "Look at the config."
check_rc "local: exit status 0" 0
check "local: the local model sees the file as it is" pycheck '
res = [m for m in CHAT[1]["messages"] if m["role"] == "tool"]
need(res and "API_SECRET=hunter2-secret-value" in res[-1]["content"], "tool messages %r" % res)'
mock_stop

e2e_finish
