#!/bin/sh
# make install (issue 18, item 7): into a DESTDIR, only what is read: the binary,
# the man page, the bench problems and the three shells' completions; no theme
# files (the themes are compiled in).  The installed bash completion completes.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
D=$E2E_TMP/dest
# the binary under test is installed as it is (-o: never rebuilt here)
if make -s -C "$E2E_ROOT" -o "$HEARTH_BIN" install DESTDIR="$D" PREFIX=/usr BIN="$HEARTH_BIN" \
	>"$E2E_TMP/make.out" 2>&1; then
	ok "make install DESTDIR=... PREFIX=/usr"
else
	not_ok "make install DESTDIR=... PREFIX=/usr"
	diag_file make "$E2E_TMP/make.out"
	e2e_finish
fi
(cd "$D" && find . -type f | sort | grep -v '^./usr/share/hearth/bench/problems/') >"$E2E_TMP/files"
cat >"$E2E_TMP/want" <<'W'
./usr/bin/hearth
./usr/share/bash-completion/completions/hearth
./usr/share/fish/vendor_completions.d/hearth.fish
./usr/share/man/man1/hearth.1
./usr/share/zsh/site-functions/_hearth
W
if cmp -s "$E2E_TMP/files" "$E2E_TMP/want"; then
	ok "installed files: binary, man page, three completions (no themes)"
else
	not_ok "installed files: binary, man page, three completions (no themes)"
	diff "$E2E_TMP/want" "$E2E_TMP/files" | sed 's/^/# /'
fi
if [ -n "$(ls "$D/usr/share/hearth/bench/problems" 2>/dev/null)" ]; then
	ok "bench problems installed where hearth bench looks (../share/hearth/bench)"
else
	not_ok "bench problems installed where hearth bench looks (../share/hearth/bench)"
fi
if "$D/usr/bin/hearth" --version | grep -q '^hearth '; then
	ok "the installed binary runs"
else
	not_ok "the installed binary runs"
fi

# bash: complete options and option values through the installed script
complete_bash() { # words... (the last is the one being completed)
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _hearth; printf "%s\n" "${COMPREPLY[@]}"' \
		sh "$D/usr/share/bash-completion/completions/hearth" "$@"
}
got=$(complete_bash hearth --appr | tr '\n' ' ')
if [ "$got" = "--approval " ]; then ok "bash completes --appr to --approval"; else not_ok "bash completes --appr to --approval" "got: $got"; fi
got=$(complete_bash hearth --sandbox r | tr '\n' ' ')
if [ "$got" = "read-only " ]; then ok "bash completes --sandbox values"; else not_ok "bash completes --sandbox values" "got: $got"; fi
got=$(complete_bash hearth do | tr '\n' ' ')
if [ "$got" = "doctor " ]; then ok "bash completes the doctor command"; else not_ok "bash completes the doctor command" "got: $got"; fi
for sh in zsh fish; do
	if command -v "$sh" >/dev/null 2>&1; then
		f=$D/usr/share/zsh/site-functions/_hearth
		[ "$sh" = fish ] && f=$D/usr/share/fish/vendor_completions.d/hearth.fish
		check "$sh parses its completion file" "$sh" -n "$f"
		if [ "$sh" = fish ]; then
			got=$(fish --no-config -c "source '$f'; complete -C 'hearth --appr'" 2>&1 | cut -f1 | tr '\n' ' ')
			if [ "$got" = "--approval " ]; then ok "fish completes --appr to --approval"; else not_ok "fish completes --appr to --approval" "got: $got"; fi
			got=$(fish --no-config -c "source '$f'; complete -C 'hearth --sandbox r'" 2>&1 | cut -f1 | tr '\n' ' ')
			if [ "$got" = "read-only " ]; then ok "fish completes --sandbox values"; else not_ok "fish completes --sandbox values" "got: $got"; fi
		fi
	else
		skip "$sh parses its completion file" "$sh is not installed"
	fi
done
e2e_finish
