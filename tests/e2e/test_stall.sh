#!/bin/sh
# End-to-end: stall detection asks /slots first (issue 14 item 6).  A request
# silent past stream_idle_timeout whose slot is still working (its counters
# move) is waited for, and the wait is shown; a slot busy without progress,
# or no busy slot at all, is a stuck server.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
mkdir -p "$XDG_CONFIG_HOME/hearth"
printf '{"stream_idle_timeout": 1}\n' >"$XDG_CONFIG_HOME/hearth/settings.json"
printf '{"slots_live": true, "turns": [{"text": "Slow but fine.", "pause_s": 4}]}\n' >"$E2E_TMP/slow.json"
printf '{"slots_live": true, "turns": [{"text": "never", "hang": "headers"}]}\n' >"$E2E_TMP/stuck.json"
printf '{"turns": [{"text": "never", "hang": "headers"}]}\n' >"$E2E_TMP/idle.json"

# ---- the slot is working: wait, and say so ----------------------------------------
mock_start "$E2E_TMP/slow.json"
hearth_run slow -p --server "$MOCK_URL" --cwd "$REPO" --verbose "Take your time."
check_rc "slot working: exit status 0" 0
check "slot working: the answer arrives after 4 s of silence (timeout 1 s)" contains "$OUT" "Slow but fine."
check "slot working: the wait is shown" contains "$ERR" "but slot 0 is still working on this request"
check "slot working: not called stuck" sh -c '! grep -q "may be stuck" "$1"' sh "$ERR"
mock_stop

# ---- busy without progress: stuck ---------------------------------------------------
mock_start "$E2E_TMP/stuck.json"
hearth_run stuck -p --server "$MOCK_URL" --cwd "$REPO" --verbose "Hello."
check "busy without progress: fails" sh -c '[ "$1" -ne 0 ]' sh "$RC"
check "busy without progress: says the slot made no progress" contains "$ERR" "busy for 3 s without progress"
mock_stop

# ---- no busy slot: stuck at the first look ---------------------------------------------
mock_start "$E2E_TMP/idle.json"
hearth_run idle -p --server "$MOCK_URL" --cwd "$REPO" --verbose "Hello."
check "no busy slot: fails" sh -c '[ "$1" -ne 0 ]' sh "$RC"
check "no busy slot: the server may be stuck" contains "$ERR" "no data for 1 s after the response headers; the server may be stuck"
mock_stop
e2e_finish
