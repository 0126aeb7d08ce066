#!/bin/sh
# End-to-end in tmux: tiers in the full screen (issue 17 item 2).  Two mock
# servers, "small" (interactive) and "big" (workhorse): a turn starts on
# small, "@big ..." sends one turn to big with the reason shown, /route big
# pins the turns to big, /route auto starts them on small again; the
# status line names the tier that answers; an unknown /route name lists
# the tiers.  A start tier that is down at launch is skipped at once, with a
# notice, and the turn goes to the next tier.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
if ! command -v tmux >/dev/null 2>&1; then
	not_ok "tmux is installed" "tmux not found (make bootstrap installs it)"
	e2e_finish
fi
tmux_setup hearth-tiers
REPO=$E2E_TMP/repo
make_repo "$REPO"
screen() { tmux_wait tiers "$@"; }
chats() { # LOG: the number of chat requests in it
	grep -c '"event": "request".*"path": "/v1/chat/completions"' "$1"
}

printf '{"turns": [{"text": "SMALL-ONE"}, {"text": "SMALL-TWO"}, {"text": "SMALL-THREE"}]}\n' >"$E2E_TMP/small.json"
printf '{"turns": [{"text": "BIG-ONE"}, {"text": "BIG-TWO"}, {"text": "BIG-THREE"}]}\n' >"$E2E_TMP/big.json"
mock_start "$E2E_TMP/small.json"
SMALL_URL=$MOCK_URL SMALL_LOG=$MOCK_LOG
mock_start "$E2E_TMP/big.json"
BIG_URL=$MOCK_URL BIG_LOG=$MOCK_LOG
mkdir -p "$XDG_CONFIG_HOME/hearth"
printf '{"servers": [{"name": "small", "url": "%s", "role": "interactive"}, {"name": "big", "url": "%s", "role": "workhorse"}]}\n' \
	"$SMALL_URL" "$BIG_URL" >"$XDG_CONFIG_HOME/hearth/settings.json"

$T new-session -d -s s -x 120 -y 40 \
	"cd '$REPO' && '$HEARTH_BIN' --tui; echo HEARTH_EXITED rc=\$?; sleep 30"
screen ready "type a task" 100
$T send-keys -t s "say hi" Enter
screen small_answers "SMALL-ONE"
screen status_small '· small'
screen panel_servers '│ *servers *│' 60
screen panel_small '▶ small I 2/2 free' 60
screen panel_big '  big W 2/2 free' 60
$T send-keys -t s "@big say hi to the workhorse" Enter
screen big_answers "BIG-ONE"
screen at_reason '→ big \(workhorse\): requested with @big'
screen status_big '· big'
check "tiers: the @big turn reached big without the prefix" python3 -c '
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1]) if "\"request\"" in l]
chat = [r for r in reqs if r["path"] == "/v1/chat/completions"][-1]
txt = json.dumps([m for m in chat["body"]["messages"] if m["role"] == "user"][-1]["content"])
assert "say hi to the workhorse" in txt and "@big" not in txt, txt' "$BIG_LOG"
$T send-keys -t s "/route big" Enter
screen route_big "routing: big"
$T send-keys -t s "go on" Enter
screen big_pinned "BIG-TWO"
$T send-keys -t s "/route nosuch" Enter
screen route_unknown 'unknown route "nosuch": use auto, local, claude or a tier \(small, big\)'
$T send-keys -t s "/route auto" Enter
screen route_auto "routing: auto"
$T send-keys -t s "back to small" Enter
screen small_again "SMALL-TWO"
check "tiers: small got 2 chat requests, big 2" sh -c \
	'test "$(grep -c "\"event\": \"request\".*\"path\": \"/v1/chat/completions\"" "$1")" = 2 &&
	 test "$(grep -c "\"event\": \"request\".*\"path\": \"/v1/chat/completions\"" "$2")" = 2' - "$SMALL_LOG" "$BIG_LOG"
# each tier's own figures this session under its line: tokens, time
screen panel_tier_figures '│ +[0-9.]+k? tok · [0-9]+ s' 60
check "tiers: the panel shows both tiers' tokens and time" sh -c \
	'test "$(grep -cE "│ +[0-9.]+k? tok · [0-9]+ s" "$1")" = 2' - "$E2E_TMP/pane.panel_tier_figures"
$T resize-window -t s -x 60 -y 20
screen compact_60 'idle · ▶small 2/2 · big 2/2' 60
$T send-keys -t s C-c C-c
screen quit "HEARTH_EXITED rc=0"
cleanup_tmux

# ---- the start tier is down at launch: skipped at once, with a notice -------
DEAD=$(closed_port)
printf '{"turns": [{"text": "BIG-TOOK-IT"}]}\n' >"$E2E_TMP/big2.json"
mock_start "$E2E_TMP/big2.json"
BIG2_LOG=$MOCK_LOG
printf '{"servers": [{"name": "small", "url": "http://127.0.0.1:%s", "role": "interactive"}, {"name": "big", "url": "%s", "role": "workhorse"}]}\n' \
	"$DEAD" "$MOCK_URL" >"$XDG_CONFIG_HOME/hearth/settings.json"
$T new-session -d -s s -x 120 -y 40 \
	"cd '$REPO' && '$HEARTH_BIN' --tui; echo HEARTH_EXITED rc=\$?; sleep 30"
screen down_notice 'small does not answer; turns start on big \(workhorse\) until it does' 100
$T send-keys -t s "say hi" Enter
screen down_answer "BIG-TOOK-IT" 100
screen down_reason '→ big \(workhorse\): small is down; skipped'
check "tiers down: no first-run screen, big got the turn" sh -c \
	'! grep -q "hearth needs a llama-server" "$1" && test "$(grep -c "\"event\": \"request\".*\"path\": \"/v1/chat/completions\"" "$2")" = 1' \
	- "$E2E_TMP/pane.down_answer" "$BIG2_LOG"
$T send-keys -t s C-c C-c
screen down_quit "HEARTH_EXITED rc=0"
cleanup_tmux
[ -n "${KEEP:-}" ] && cp -r "$E2E_TMP" "$KEEP"
e2e_finish
