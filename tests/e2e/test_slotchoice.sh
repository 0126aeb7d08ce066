#!/bin/sh
# End-to-end: the slot choice across runs (issue 14, slot choice).  hearth
# writes down at exit which slot its session left (slotmap.json in the state
# directory); the next run of the same session finds its slot untouched and
# stays there without restoring its slot file; a new session goes to the slot
# another hearth session left (the shared system prompt is cached there), not
# to an empty one; a session whose slot was taken restores its file into the
# empty slot; a server where restores did not pay gets no restore.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
make_repo "$E2E_TMP/a"
make_repo "$E2E_TMP/b"
mkdir -p "$E2E_TMP/slots"
printf '{"slot_save_path": "%s", "slots_live": true, "props": {"total_slots": 2}}\n' "$E2E_TMP/slots" \
	>"$E2E_TMP/live.json"
mock_start "$E2E_TMP/live.json"
MAP=$XDG_STATE_HOME/hearth/slotmap.json
export MAP MOCK_URL

# requests of the runs so far (the mock's log covers every run)
mark() { grep -c '"event": "request"' "$MOCK_LOG"; }

# ---- a first session: an empty slot, written down at exit ----------------------
N=$(mark)
hearth_run a1 -p --server "$MOCK_URL" --cwd "$E2E_TMP/a" --output-format json "Task A1."
check_rc "session A: exit status 0" 0
SA=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["session_id"])' "$OUT")
export SA
check "session A: slot 0, and the slot map says A left it" pycheck '
R = REQ[int(ARGS[0]):]
chat = [r["body"] for r in R if r["path"] in CHAT_PATHS]
need(chat and all(b.get("id_slot") == 0 for b in chat), "slots %r" % [b.get("id_slot") for b in chat])
m = json.load(open(os.environ["MAP"]))[os.environ["MOCK_URL"]]["slots"]
need(m.get("0", {}).get("session") == os.environ["SA"], "map %r" % m)' "$N"

# ---- the same session again: its slot is untouched, no restore ------------------
N=$(mark)
hearth_run a2 -p -r "$SA" --server "$MOCK_URL" --cwd "$E2E_TMP/a" --verbose "Task A2."
check_rc "session A again: exit status 0" 0
check "session A again: stays on slot 0 without restoring its file" pycheck '
R = REQ[int(ARGS[0]):]
acts = [r["query"] for r in R if r["path"].startswith("/slots/")]
need("action=restore" not in acts, "actions %r" % acts)
chat = [r["body"] for r in R if r["path"] in CHAT_PATHS]
need(chat and all(b.get("id_slot") == 0 for b in chat), "slots %r" % [b.get("id_slot") for b in chat])
need("slot 0 still holds this session" in ERR_TEXT, ERR_TEXT)' "$N"

# ---- a new session: the slot with the shared prefix, not the empty one ------------
N=$(mark)
hearth_run b1 -p --server "$MOCK_URL" --cwd "$E2E_TMP/b" --output-format json "Task B1."
check_rc "session B: exit status 0" 0
check "session B: goes to slot 0 (what A left shares its system prompt), not to empty slot 1" pycheck '
R = REQ[int(ARGS[0]):]
chat = [r["body"] for r in R if r["path"] in CHAT_PATHS]
need(chat and all(b.get("id_slot") == 0 for b in chat), "slots %r" % [b.get("id_slot") for b in chat])
fin = SERVED[[r for r in R if r["path"] in CHAT_PATHS][0]["seq"]]["final"]
need(fin["timings"]["cache_n"] > 0, "nothing cached: %r" % fin["timings"])' "$N"

# ---- A again: its slot was taken, so its file is restored into the empty slot ------
N=$(mark)
hearth_run a3 -p -r "$SA" --server "$MOCK_URL" --cwd "$E2E_TMP/a" --verbose "Task A3."
check_rc "session A, slot taken: exit status 0" 0
check "session A, slot taken: restores into empty slot 1 and is served from the cache" pycheck '
R = REQ[int(ARGS[0]):]
acts = [r for r in R if r["path"].startswith("/slots/")]
need(acts and acts[0]["query"] == "action=restore" and acts[0]["path"] == "/slots/1",
     "actions %r" % [(r["path"], r["query"]) for r in acts])
chat = [r for r in R if r["path"] in CHAT_PATHS]
need(chat[0]["body"].get("id_slot") == 1, "slot %r" % chat[0]["body"].get("id_slot"))
need(SERVED[chat[0]["seq"]]["final"]["timings"]["cache_n"] > 0, "restore not used")
m = json.load(open(os.environ["MAP"]))[os.environ["MOCK_URL"]]
need(m.get("restore_hits") == 1, "verdict %r" % m)' "$N"

# ---- restores that did not pay on this server: not tried again ------------------
python3 - "$MAP" "$MOCK_URL" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
s = m[sys.argv[2]]
s["restore_hits"], s["restore_misses"] = 0, 2
s["slots"] = {}
json.dump(m, open(sys.argv[1], "w"))
EOF
N=$(mark)
hearth_run a4 -p -r "$SA" --server "$MOCK_URL" --cwd "$E2E_TMP/a" --verbose "Task A4."
check_rc "restores useless: exit status 0" 0
check "restores useless: no restore, and it says why" pycheck '
R = REQ[int(ARGS[0]):]
acts = [r["query"] for r in R if r["path"].startswith("/slots/")]
need("action=restore" not in acts, "actions %r" % acts)
need("restores did not pay on this server" in ERR_TEXT, ERR_TEXT)' "$N"

# ---- an external server's slot directory, named in the user's settings: pruned at exit ----
mkdir -p "$XDG_CONFIG_HOME/hearth"
printf '{"slot_save_dir": "%s", "slot_files_max_mb": 1}\n' "$E2E_TMP/slots" >"$XDG_CONFIG_HOME/hearth/settings.json"
head -c 700000 /dev/zero >"$E2E_TMP/slots/hearth-old1.bin"
head -c 700000 /dev/zero >"$E2E_TMP/slots/hearth-old2.bin"
head -c 3000000 /dev/zero >"$E2E_TMP/slots/other-client.bin"
touch -d '2 days ago' "$E2E_TMP/slots/hearth-old1.bin"
touch -d '1 day ago' "$E2E_TMP/slots/hearth-old2.bin"
hearth_run prune -p --server "$MOCK_URL" --cwd "$E2E_TMP/b" --output-format json "Task B2."
check_rc "slot_save_dir: exit status 0" 0
SB=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["session_id"])' "$OUT")
check "slot_save_dir: the oldest hearth file went (1 MB budget), the session's own and another client's stay" sh -c '
	[ ! -e "$1/hearth-old1.bin" ] && [ -e "$1/hearth-old2.bin" ] && [ -e "$1/other-client.bin" ] &&
	[ -e "$1/hearth-$2.bin" ]' sh "$E2E_TMP/slots" "$SB"
rm -f "$XDG_CONFIG_HOME/hearth/settings.json"
mock_stop

# ---- a server without slot files: a session kept on its slot stays pinned -------------
printf '{"slots_live": true, "props": {"total_slots": 2}}\n' >"$E2E_TMP/nosave.json"
mock_start "$E2E_TMP/nosave.json"
export MOCK_URL
hearth_run c1 -p --server "$MOCK_URL" --cwd "$E2E_TMP/a" --output-format json "Task C1."
SC=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["session_id"])' "$OUT")
hearth_run d1 -p --server "$MOCK_URL" --cwd "$E2E_TMP/b" "Task D1."
N=$(mark)
hearth_run c2 -p -r "$SC" --server "$MOCK_URL" --cwd "$E2E_TMP/a" "Task C2."
check_rc "no slot files, resumed: exit status 0" 0
check "no slot files, resumed after another session took its slot: pinned to the slot with the shared prefix (not sent to any slot after the 501)" pycheck '
R = REQ[int(ARGS[0]):]
chat = [r["body"] for r in R if r["path"] in CHAT_PATHS]
need(chat and all(b.get("id_slot") == 0 for b in chat), "slots %r" % [b.get("id_slot") for b in chat])' "$N"
mock_stop
e2e_finish
