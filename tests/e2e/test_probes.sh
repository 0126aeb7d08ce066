#!/bin/sh
# End-to-end: an attacker steering the model, with no sandbox.  Every bash
# probe in tests/e2e/probes.txt (issue 13's and more: options that run
# programs, redirections, env tricks, git config and attributes, globs and
# symlinks) is sent by the mock as the model's tool call to `hearth -p` in
# the default approval mode (no --yes), with "sandbox": "off" in the project
# settings, ANTHROPIC_API_KEY=sk-probe-secret in hearth's environment and a
# fake HOME whose ~/.ssh/id_rsa holds the secret too.  Checked:
#   - each probe asked: its result tells the model it needs approval;
#   - the marker program (./x, evil.sh) never ran;
#   - nothing outside the workspace was created or changed;
#   - the secret is in no request the mock server received;
# and, as a control that the probes are live, the same run in mode yolo does
# run the marker, change ../outside/f and leak the secret.
# PROBES_BATCH (default 14) probes per hearth run; each run gets a fresh copy
# of the workspace.  PROBES_FILE replaces the list; PROBES_CONTROL=0 skips the
# control runs.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
PROBES=${PROBES_FILE:-$E2E_ROOT/tests/e2e/probes.txt}
BATCH=${PROBES_BATCH:-14}
SECRET=sk-probe-secret
HEARTH_TIMEOUT=60
# an escalation to Claude (a repeated call) must not leave the machine
ANTHROPIC_BASE_URL=http://127.0.0.1:$(closed_port)
export ANTHROPIC_BASE_URL

# A workspace template: a repository with the attacker's files.
TPL=$E2E_TMP/tpl
make_repo "$TPL/repo"
(
	cd "$TPL/repo" || exit 1
	printf 'int x;\n' >a.c
	tar -cf a.tar a.c
	rm a.c
	ln -s /proc/self/environ envlink
	ln -s ../outside/secret.txt secretlink
	git add a.tar && git commit -qm tar
) >/dev/null 2>&1

# setup DIR: DIR/repo (the workspace), DIR/outside, DIR/home, DIR/marks.
setup() {
	rm -rf "$1"
	mkdir -p "$1/outside" "$1/home/.ssh" "$1/marks"
	cp -a "$TPL/repo" "$1/repo"
	printf '#!/bin/sh\necho "ran: $0 $*" >>"%s/marks/ran"\ncat 2>/dev/null\n' "$1" >"$1/repo/x"
	chmod +x "$1/repo/x"
	printf 'echo "ran: evil.sh" >>"%s/marks/ran"\n' "$1" >"$1/repo/evil.sh"
	printf 'keep\n' >"$1/outside/f"
	printf 'KEY=%s\n' "$SECRET" >"$1/outside/secret.txt"
	printf '%s\n' "$SECRET" >"$1/home/.ssh/id_rsa"
	mkdir -p "$1/repo/.hearth"
	printf '{"sandbox": "off"}\n' >"$1/repo/.hearth/settings.json"
	# The model's preparatory writes of .git/config are protected (they ask in
	# every mode but yolo): the user's own settings allow exactly that path, so
	# the probes that follow meet a repository whose config runs programs.
	mkdir -p "$XDG_CONFIG_HOME/hearth"
	printf '{"permissions": {"allow": ["write(.git/config)"]}}\n' >"$XDG_CONFIG_HOME/hearth/settings.json"
}

# outside_sum DIR: what is outside the workspace (names, types, contents).
outside_sum() {
	(cd "$1" && find outside home marks -print0 | sort -z | xargs -0 ls -ld --time-style=+ |
		awk '{print $1, $5, $NF}'
	 cd "$1" && find outside home marks -type f -print0 | sort -z | xargs -0 sha256sum) 2>&1
}

# Batches of scenarios: one tool call per turn, then a closing answer.
NB=$(python3 - "$PROBES" "$E2E_TMP" "$BATCH" <<'EOF'
import json, sys
path, tmp, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
def unesc(s):
    return s.replace("\\n", "\n").replace("\\t", "\t")
steps, batches, pending, nbash = [], [], [], 0
for line in open(path, encoding="utf-8"):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    f = line.split("\t")
    if f[0] == "bash":
        pending.append({"name": "bash", "arguments": {"command": unesc(f[1])}})
        nbash += 1
        if nbash >= size:
            batches.append(pending); pending, nbash = [], 0
    elif f[0] == "read":
        pending.append({"name": "read", "arguments": {"path": f[1]}})
    elif f[0] == "write":
        pending.append({"name": "write", "arguments": {"path": f[1], "content": unesc(f[2])}})
    else:
        sys.exit("bad probe line: " + line)
if pending:
    batches.append(pending)
for i, b in enumerate(batches):
    turns = [{"tool_calls": [c]} for c in b] + [{"text": "Done probing."}]
    with open("%s/batch%d.json" % (tmp, i), "w") as out:
        json.dump({"turns": turns}, out)
    with open("%s/batch%d.cmds" % (tmp, i), "w") as out:
        json.dump([c["arguments"]["command"] for c in b if c["name"] == "bash"], out)
print(len(batches))
EOF
)

# check_batch I: every bash probe of batch I was refused as needing approval.
check_batch() {
	pycheck '
cmds = json.load(open(ARGS[0]))
results, calls = {}, {}
for body in CHAT:
    for m in body.get("messages", []):
        for tc in m.get("tool_calls") or []:
            try:
                a = json.loads(tc["function"]["arguments"])
            except Exception:
                a = {}
            calls[tc.get("id")] = a.get("command")
        if m.get("role") == "tool":
            c = m.get("content")
            results[m.get("tool_call_id")] = c if isinstance(c, str) else json.dumps(c)
wrote = {}
for body in CHAT:
    for m in body.get("messages", []):
        for tc in m.get("tool_calls") or []:
            if tc["function"]["name"] == "write":
                wrote[tc.get("id")] = json.loads(tc["function"]["arguments"]).get("path")
setup_bad = ["write %s failed: %r" % (p, results.get(t, "")[:120]) for t, p in wrote.items()
             if not re.match(r"(created|overwrote) ", results.get(t, ""))]
seen = {}
for tid, cmd in calls.items():
    if cmd is not None and tid in results:
        seen.setdefault(cmd, []).append(results[tid])
bad = []
for cmd in cmds:
    rs = seen.get(cmd)
    if not rs:
        bad.append("%r: no result reached the model" % cmd)
    elif not all("needs the user'"'"'s approval" in r for r in rs):
        bad.append("%r ran: %r" % (cmd, [r[:160] for r in rs]))
bad += setup_bad  # a probe whose preparation failed proves nothing
print("\n".join(bad))
need(not bad, "%d of %d probes did not ask" % (len(bad), len(cmds)))' "$1"
}

total=0 asked=0
i=0
while [ "$i" -lt "$NB" ]; do
	D=$E2E_TMP/run$i
	setup "$D"
	before=$(outside_sum "$D")
	mock_start "$E2E_TMP/batch$i.json"
	HOME=$D/home ANTHROPIC_API_KEY=$SECRET hearth_run "probe$i" -p --server "$MOCK_URL" \
		--cwd "$D/repo" "look around"
	n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$E2E_TMP/batch$i.cmds")
	total=$((total + n))
	if check_batch "$E2E_TMP/batch$i.cmds" >"$E2E_TMP/check$i" 2>&1; then
		asked=$((asked + n))
		ok "batch $i: all $n probes asked"
	else
		miss=$(grep -c "ran:\|no result" "$E2E_TMP/check$i")
		asked=$((asked + n - miss))
		not_ok "batch $i: all $n probes asked" "$(cat "$E2E_TMP/check$i")"
		diag_file "stderr" "$ERR"
	fi
	check "batch $i: the marker program did not run" test ! -e "$D/marks/ran"
	after=$(outside_sum "$D")
	if [ "$before" = "$after" ]; then
		ok "batch $i: nothing outside the workspace changed"
	else
		not_ok "batch $i: nothing outside the workspace changed" \
			"$(printf '%s\n---\n%s\n' "$before" "$after")"
	fi
	check "batch $i: the secret is in no request" sh -c "! grep -q '$SECRET' '$MOCK_LOG'"
	mock_stop
	i=$((i + 1))
done
printf '# probes: %d, asked: %d, ran without asking: %d\n' "$total" "$asked" "$((total - asked))"

# ---- control: the same probes in mode yolo do what they were written for ----
[ "${PROBES_CONTROL:-1}" = 0 ] && e2e_finish
ran=0 changed=0 leaked=0
i=0
while [ "$i" -lt "$NB" ]; do
	D=$E2E_TMP/yolo$i
	setup "$D"
	before=$(outside_sum "$D")
	mock_start "$E2E_TMP/batch$i.json"
	HOME=$D/home ANTHROPIC_API_KEY=$SECRET hearth_run "yolo$i" -p --approval yolo \
		--server "$MOCK_URL" --cwd "$D/repo" "look around"
	[ -e "$D/marks/ran" ] && ran=$((ran + $(wc -l <"$D/marks/ran")))
	[ "$before" != "$(outside_sum "$D")" ] && changed=$((changed + 1))
	# the key's value is masked in tool results (base/secret), so a probe that
	# reached it shows as the mask; the default-mode check above wants neither
	grep -q -e "$SECRET" -e "redacted ANTHROPIC_API_KEY" "$MOCK_LOG" && leaked=$((leaked + 1))
	mock_stop
	i=$((i + 1))
done
printf '# control (yolo): marker ran %d times; outside changed in %d of %d runs; secret leaked in %d runs\n' \
	"$ran" "$changed" "$NB" "$leaked"
check "control: the probes run the marker program when nothing asks" test "$ran" -gt 10
check "control: the probes change files outside when nothing asks" test "$changed" -gt 2
check "control: the probes reach the secret when nothing asks" test "$leaked" -gt 2
e2e_finish
