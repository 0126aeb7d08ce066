#!/bin/sh
# End-to-end in tmux, at 120x32 and at 60x20 (issue 15, items 4, 6, 10, 11,
# 12, 13), as a person sees the full screen:
# - no server: a typed message shows at once as queued, /help answers, one
#   "waiting for llama-server at HOST (next try in Ns)" line (never "idle"),
#   nothing falls off the pane; when the server comes up the queued message
#   is sent (no "queued" mark left) and its answer's Markdown table is drawn
#   as a table; /help is a table of keys and commands (item 6, 13);
# - mouse reporting (SGR) is on, the wheel scrolls the transcript and never
#   recalls the input history, it is off again after quitting, and
#   `mouse: false` leaves the mouse to the terminal (item 4);
# - `/` lists the commands with their help above the input, Tab's @file
#   matches too, and neither is written into the transcript (item 11);
# - a resumed session shows its turns, a context that is not 0 and the
#   session's in/out tokens saved in its file (item 12);
# - the dark theme's added and deleted lines differ at 256 and 8 colours,
#   and under tmux with RGB they are distinct 24-bit colours (item 10).
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
if ! command -v tmux >/dev/null 2>&1; then
	not_ok "tmux is installed" "tmux not found (make bootstrap installs it)"
	e2e_finish
fi
tmux_setup hearth-usable
REPO=$E2E_TMP/repo
make_repo "$REPO"
mkdir -p "$REPO/src" && : >"$REPO/src/main.c" && : >"$REPO/src/main.h"

screen() { tmux_wait usable "$@"; }
# gone NAME PATTERN: the pane no longer shows PATTERN (2 s at most)
gone() {
	_i=0
	while [ $_i -lt 20 ]; do
		$T capture-pane -p -t s >"$E2E_TMP/pane.$1"
		grep -Eq "$2" "$E2E_TMP/pane.$1" || { ok "usable: $1"; return 0; }
		sleep 0.1
		_i=$((_i + 1))
	done
	not_ok "usable: $1" "the pane still shows /$2/"
	sed 's/^/#   /' "$E2E_TMP/pane.$1"
}
# start W H URL [ENV] [ARGS]: hearth in a fresh W x H session
start() {
	$T new-session -d -s s -x "$1" -y "$2" \
		"cd '$REPO' && ${4-} HOME='$E2E_TMP' '$HEARTH_BIN' --tui --server '$3' ${5-}; echo HEARTH_EXITED rc=\$?; sleep 30"
}
pane_flag() { $T display -p -t s "#{$1}"; }
quit() {
	$T send-keys -t s C-c C-c
	screen "quit_$1" "HEARTH_EXITED rc=0"
}

for SIZE in 120x32 60x20; do
	W=${SIZE%x*}
	H=${SIZE#*x}
	cleanup_tmux
	# ---- item 6: no server ------------------------------------------------
	PORT=$(closed_port)
	start "$W" "$H" "http://127.0.0.1:$PORT"
	screen "wait_line_$SIZE" "waiting for llama-server at 127.0.0.1:$PORT \(next try in [12]s\)"
	check "usable $SIZE: the waiting line is there once" \
		sh -c "[ \$(grep -c 'waiting for llama-server' '$E2E_TMP/pane.wait_line_$SIZE') = 1 ]"
	check "usable $SIZE: the status does not say idle while no server answers" \
		sh -c "! grep -q 'idle' '$E2E_TMP/pane.wait_line_$SIZE'"
	check "usable $SIZE: the last row is the waiting line (nothing fell off)" \
		sh -c "[ \"\$(sed -n '${H}p' '$E2E_TMP/pane.wait_line_$SIZE' | grep -c 'waiting for llama-server')\" = 1 ]"
	sleep 2.2 # the countdown rewrites the line in place
	$T capture-pane -p -t s >"$E2E_TMP/pane.later_$SIZE"
	check "usable $SIZE: after a retry still one waiting line" \
		sh -c "[ \$(grep -c 'waiting for llama-server' '$E2E_TMP/pane.later_$SIZE') = 1 ]"
	$T send-keys -t s "sizes please" Enter
	screen "queued_shown_$SIZE" "› sizes please"
	screen "queued_mark_$SIZE" "⋯ queued"
	$T send-keys -t s "/help" Enter
	screen "help_cmds_$SIZE" "/undo \[N\]"
	check "usable $SIZE: the waiting line stays the last row" \
		sh -c "$T capture-pane -p -t s | sed -n '${H}p' | grep -q 'waiting for llama-server'"
	# ---- item 4: the wheel scrolls, never recalls history ----------------
	check "usable $SIZE: mouse reporting is on (SGR)" \
		sh -c "[ \"\$($T display -p -t s '#{mouse_any_flag}#{mouse_sgr_flag}')\" = 11 ]"
	_k=0 # wheel up (ESC [ < 64 ; 5 ; 5 M) until /help's keys table shows
	while [ $_k -lt 40 ] && ! $T capture-pane -p -t s | grep -q 'Esc  *stop the turn'; do
		$T send-keys -t s -H 1b 5b 3c 36 34 3b 35 3b 35 4d
		sleep 0.1
		_k=$((_k + 1))
	done
	screen "wheel_scrolls_$SIZE" "Esc {10,}stop the turn; drop what is queued"
	screen "help_table_$SIZE" " {3,}Ctrl-G {10,}edit the message in"
	check "usable $SIZE: the wheel did not recall /help into the input" \
		sh -c "! grep -q '› /help' '$E2E_TMP/pane.wheel_scrolls_$SIZE'"
	$T send-keys -t s End
	# ---- item 6 (cont.) and 13: the server comes up ----------------------
	mock_start md_table --port "$PORT"
	screen "sent_$SIZE" "Done\." 80
	check "usable $SIZE: the queued mark is gone once sent" \
		sh -c "! grep -q '⋯ queued' '$E2E_TMP/pane.sent_$SIZE'"
	check "usable $SIZE: the message is not shown twice" \
		sh -c "[ \$(grep -c '› sizes please' '$E2E_TMP/pane.sent_$SIZE') -le 1 ]"
	screen "table_$SIZE" "file +│ lines │ +note"
	screen "table_rule_$SIZE" "─+┼─+┼─+"
	screen "table_row_$SIZE" "cart\.c │ +120 │ hot path"
	check "usable $SIZE: no raw table pipes" \
		sh -c "! grep -q '|:-----|' '$E2E_TMP/pane.table_$SIZE'"
	# ---- item 11: completions above the input ----------------------------
	$T send-keys -t s "/"
	screen "slash_list_$SIZE" "/approval .*show or set when tool"
	$T send-keys -t s Escape
	gone "slash_list_closes_$SIZE" "show or set when tool"
	$T send-keys -t s C-u "see @src/m" Tab
	screen "path_popup_$SIZE" "@src/main\.h"
	$T send-keys -t s Escape C-u
	gone "path_popup_not_in_transcript_$SIZE" "@src/main\.h"
	$T send-keys -t s "/un" Tab
	screen "slash_tab_$SIZE" "› /undo"
	$T send-keys -t s C-u
	quit "$SIZE"
	check "usable $SIZE: mouse reporting is off after quitting" \
		sh -c "[ \"\$($T display -p -t s '#{mouse_any_flag}')\" = 0 ]"
	mock_stop
	cleanup_tmux
	# ---- item 12: a resumed session's counters ---------------------------
	mock_start plain
	start "$W" "$H" "$MOCK_URL" "" "-c"
	screen "resumed_$SIZE" "resumed session"
	if [ "$W" -ge 100 ]; then
		screen "resumed_turns_$SIZE" "1 turn · "
		check "usable $SIZE: the resumed context is not 0" \
			sh -c "! grep -q 'ctx 0/' '$E2E_TMP/pane.resumed_turns_$SIZE'"
		# the session's tokens came back from its "usage" entries (not "in 0 · out 0")
		screen "resumed_tokens_$SIZE" "in [1-9][0-9.]*k? · out [1-9]"
	else
		screen "resumed_ctx_$SIZE" "ctx [1-9][0-9]*%"
		screen "resumed_tokens_$SIZE" "idle · in [1-9][0-9.]*k? · out [1-9]"
	fi
	quit "resumed_$SIZE"
	mock_stop
	cleanup_tmux
	# ---- item 4: mouse: false --------------------------------------------
	mkdir -p "$XDG_CONFIG_HOME/hearth"
	printf '{"mouse": false}\n' >"$XDG_CONFIG_HOME/hearth/settings.json"
	mock_start plain
	start "$W" "$H" "$MOCK_URL"
	screen "nomouse_$SIZE" "type a task"
	check "usable $SIZE: mouse: false leaves the mouse to the terminal" \
		sh -c "[ \"\$($T display -p -t s '#{mouse_any_flag}')\" = 0 ]"
	quit "nomouse_$SIZE"
	rm -f "$XDG_CONFIG_HOME/hearth/settings.json"
	mock_stop
done

# ---- item 10: the dark theme's diff colours at 256 and 8 colours ------------
# bg_of FILE TEXT: the last background (SGR 4x, 48;5;x or 48;2;r;g;b) on the
# first row of a `capture-pane -e` FILE whose text (escapes removed) holds TEXT
bg_of() {
	python3 - "$1" "$2" <<'PY'
import re, sys
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    if sys.argv[2] not in re.sub(r"\x1b\[[0-9;:]*m", "", line):
        continue
    bgs = []
    for sgr in re.findall(r"\x1b\[([0-9;:]*)m", line):
        p = sgr.split(";")
        i = 0
        while i < len(p):
            if p[i] == "48" and i + 2 < len(p) and p[i + 1] == "5":
                bgs.append("5:" + p[i + 2]); i += 3; continue
            if p[i] == "48" and i + 4 < len(p) and p[i + 1] == "2":
                bgs.append("2:" + ":".join(p[i + 2:i + 5])); i += 5; continue
            if p[i] in ("0", "49", ""):
                bgs.append("default")
            elif p[i].isdigit() and 40 <= int(p[i]) <= 47:
                bgs.append("8:" + p[i])
            i += 1
    # the colour the diff text sits on: the last one set on the row
    bgs = [b for b in bgs if b != "default"]
    print(bgs[-1] if bgs else "none")
    break
PY
}
for TT in xterm-256color screen; do
	cleanup_tmux
	rm -rf "$REPO" && make_repo "$REPO"
	mock_start edit_flow
	start 120 32 "$MOCK_URL" "TERM=$TT" "--theme dark"
	screen "theme_up_$TT" "type a task"
	$T send-keys -t s "Change the greeting." Enter
	screen "theme_diff_$TT" '\+.*hello, world'
	$T capture-pane -e -p -t s >"$E2E_TMP/pane.theme_e_$TT"
	ADD=$(bg_of "$E2E_TMP/pane.theme_e_$TT" 'hello, world')
	DEL=$(bg_of "$E2E_TMP/pane.theme_e_$TT" '"hello\n")')
	printf '# %s: added line bg %s, deleted line bg %s\n' "$TT" "$ADD" "$DEL"
	check "usable: dark theme under TERM=$TT: added and deleted lines have different backgrounds" \
		sh -c "[ '$ADD' != '$DEL' ] && [ '$ADD' != none ]"
	quit "theme_$TT"
	mock_stop
done
# ---- item 10: 24-bit colours under tmux ---------------------------------------
# tmux with the RGB feature for its terminal (terminal-overrides) presents
# TERM=tmux-256color and COLORTERM=truecolor to the pane; hearth then draws through
# the tmux-direct terminfo (mk/bootstrap.sh installs ncurses-term for it) and the
# diff backgrounds are 24-bit colours (48;2;r;g;b), distinct.
cleanup_tmux
rm -rf "$REPO" && make_repo "$REPO"
mock_start edit_flow
start 120 32 "$MOCK_URL" "TERM=tmux-256color COLORTERM=truecolor" "--theme dark"
$T set -s default-terminal tmux-256color
$T set -as terminal-overrides ',*:RGB'
screen "theme_up_rgb" "type a task"
$T send-keys -t s "Change the greeting." Enter
screen "theme_diff_rgb" '\+.*hello, world'
$T capture-pane -e -p -t s >"$E2E_TMP/pane.theme_e_rgb"
ADD=$(bg_of "$E2E_TMP/pane.theme_e_rgb" 'hello, world')
DEL=$(bg_of "$E2E_TMP/pane.theme_e_rgb" '"hello\n")')
printf '# tmux RGB: added line bg %s, deleted line bg %s\n' "$ADD" "$DEL"
check "usable: tmux with RGB: the diff backgrounds are 24-bit colours (tmux-direct terminfo present)" \
	sh -c "case '$ADD' in 2:*) ;; *) exit 1;; esac && case '$DEL' in 2:*) ;; *) exit 1;; esac"
check "usable: tmux with RGB: added and deleted lines have different 24-bit backgrounds" \
	sh -c "[ '$ADD' != '$DEL' ]"
quit "theme_rgb"
mock_stop
e2e_finish
