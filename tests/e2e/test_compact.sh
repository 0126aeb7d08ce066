#!/bin/sh
# End-to-end: compaction (issue 6).  When a turn's request would leave less
# than the reserve of the slot's context, the model first writes a summary
# of the older turns (one extra request: the conversation as it is plus the
# instruction), and the turn goes on with the summary and the last turn
# verbatim; the next request is reported as an expected cache break.
# `/compact [focus]` does it by hand.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
REPO=$E2E_TMP/repo
make_repo "$REPO"
LONG=$(python3 -c 'print("This is a long answer line about the parser. " * 60)')
export LONG

# ---- automatic: the third turn would not fit ----------------------------------
python3 - "$E2E_TMP/auto.json" <<'PYEOF'
import json, os, sys
json.dump({"n_ctx": 1700, "turns": [
    {"text": os.environ["LONG"]},
    {"text": "Second answer SECOND_A."},
    {"text": "## Goal\nfix the parser\n## Decisions\nnone\n## Files touched\nhello.c\n## Open problems\nnone\n## Next step\ntest SUMMARY_S"},
    {"text": "Third answer."}]}, open(sys.argv[1], "w"))
PYEOF
mock_start "$E2E_TMP/auto.json"
printf 'first task T1\nsecond task T2\nthird task T3\n' >"$E2E_TMP/in.txt"
OUT=$E2E_TMP/auto.out ERR=$E2E_TMP/auto.err
timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" --line --server "$MOCK_URL" --cwd "$REPO" <"$E2E_TMP/in.txt" >"$OUT" 2>"$ERR"
RC=$?
check_rc "auto: exit status 0" 0
check "auto: a summary request, then the third task with the summary and the second turn verbatim" pycheck '
need(len(CHAT) == 4, "chat requests: %d" % len(CHAT))
ins = CHAT[2]["messages"][-1]
need(ins["role"] == "user" and "## Goal" in ins["content"] and "Do not call any tool" in ins["content"], "instruction %r" % ins)
prev = [m for m in CHAT[2]["messages"][:-1]]
need(any("T1" in str(m.get("content")) for m in prev), "the summary request lacks the history")
m = CHAT[3]["messages"]
need(m[0]["role"] == "system", "system first")
need("SUMMARY_S" in m[1]["content"] and "T2" in m[1]["content"], "summary + kept turn: %r" % m[1]["content"][:300])
need(not any("long answer line" in str(x.get("content")) for x in m), "the long answer is still there")
need(any("SECOND_A" in str(x.get("content")) for x in m), "the kept answer is gone")
need("T3" in m[-1]["content"], "the new task is not last")'
check "auto: the compaction is announced" grep -q "compacted the conversation" "$OUT"
mock_stop

# ---- by hand ----------------------------------------------------------------------
printf '%s\n' '{"turns": [{"text": "One."}, {"text": "Two."}, {"text": "## Goal\nparser work, all of it summarised here\n## Next step\ntests"}, {"text": "Three."}]}' >"$E2E_TMP/hand.json"
mkdir -p "$REPO/.hearth" # deferred tools: the summary request must offer the same (shorter) list
echo '{"defer_tools": true}' >"$REPO/.hearth/settings.json"
mock_start "$E2E_TMP/hand.json"
printf 'first task H1\nsecond task H2\n/compact the parser\nthird task H3\n' >"$E2E_TMP/in2.txt"
OUT=$E2E_TMP/hand.out ERR=$E2E_TMP/hand.err
timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" --line --server "$MOCK_URL" --cwd "$REPO" <"$E2E_TMP/in2.txt" >"$OUT" 2>"$ERR"
RC=$?
check_rc "/compact: exit status 0" 0
check "/compact: the instruction has the focus; the next turn starts from the summary" pycheck '
need(len(CHAT) == 4, "chat requests: %d" % len(CHAT))
need("Pay particular attention to: the parser" in CHAT[2]["messages"][-1]["content"], "focus")
m = CHAT[3]["messages"]
need("H1" not in json.dumps(m), "the first turn is still there")
need("H2" in m[1]["content"] and "H3" in m[-1]["content"], "kept turn / new task")
need("parser work" in m[1]["content"], "no summary")'
check "/compact: the summary request offers the tools the conversation did (same prompt prefix)" pycheck '
need("tool_search" in tool_names(CHAT[1]), "deferral is off: %r" % tool_names(CHAT[1]))
need(CHAT[2].get("tools") == CHAT[1].get("tools"), "tools %r vs %r" % (tool_names(CHAT[2]), tool_names(CHAT[1])))'
rm -f "$REPO/.hearth/settings.json"
mock_stop
mock_start plain
printf '/compact\n' >"$E2E_TMP/in3.txt"
OUT=$E2E_TMP/none.out ERR=$E2E_TMP/none.err
timeout -k 5 "$HEARTH_TIMEOUT" "$HEARTH_BIN" --line --server "$MOCK_URL" --cwd "$REPO" <"$E2E_TMP/in3.txt" >"$OUT" 2>"$ERR"
RC=$?
check "/compact with nothing to compact says so" grep -q "nothing to compact" "$OUT"
mock_stop

e2e_finish
