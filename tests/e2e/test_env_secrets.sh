#!/bin/sh
# End-to-end (issue 13 item 3): children get a clean environment, and a
# secret that still shows up in a tool result is masked.  hearth runs with
# ANTHROPIC_API_KEY, FOO_TOKEN and other secrets (and some plain variables)
# in its environment; the model's bash runs `env` and reads
# /proc/self/environ and a file that holds the key.  Neither value appears
# in the request the mock received, the session file or the --export
# output; a hook and an MCP server print their environment, and it is the
# clean one (plus the hook's HEARTH_* and the server's own "env").
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

need_hearth
DEMO=$E2E_ROOT/${BUILD:-build}/mcp-demo
REPO=$E2E_TMP/repo
make_repo "$REPO"
KEY=sk-ant-probe-XXXX-0123456789abcdef
FOO=foo-token-value-5a5a5a5a
PW=db-password-value-77
export KEY FOO PW E2E_TMP
printf 'the key is %s here\nand the token %s\n' "$KEY" "$FOO" >"$REPO/notes.txt"
SESSIONS=$XDG_STATE_HOME/hearth/sessions
export SESSIONS

# A hook (user settings) and an MCP server (user mcp.json) that print their environment.
mkdir -p "$XDG_CONFIG_HOME/hearth"
printf '{"hooks": {"pre_tool": [{"command": "env > %s/hook.env"}]}, "env_passthrough": ["MYAPP_*", "FOO_TOKEN"]}\n' \
	"$E2E_TMP" >"$XDG_CONFIG_HOME/hearth/settings.json"
printf '{"mcpServers": {"envdump": {"command": "/bin/sh", "args": ["-c", "env > %s/mcp.env; exec %s"], "env": {"MCP_OWN_TOKEN": "explicit-0k-value"}}}}\n' \
	"$E2E_TMP" "$DEMO" >"$XDG_CONFIG_HOME/hearth/mcp.json"

# --sandbox off: in the sandbox bash has its own /proc and PID namespace, so
# $PPID is not hearth; without it the check below reads hearth's own environ.
mock_start env_leak
ANTHROPIC_API_KEY=$KEY FOO_TOKEN=$FOO DB_PASSWORD=$PW AWS_SECRET_ACCESS_KEY=aws-secret-value-1 \
	GITHUB_TOKEN=ghp_probe_value_123 MYAPP_MODE=dev-mode OTHER_VAR=other-value EDITOR=vi DISPLAY=:7 \
	hearth_run leak -p --yes --sandbox off --route local --server "$MOCK_URL" --cwd "$REPO" "Look around."
check_rc "exit status 0" 0
check "the bash result reached the model" pycheck '
res = [m for m in CHAT[1]["messages"] if m["role"] == "tool"]
need(res and "HOME=" in res[-1]["content"], "tool messages %r" % res)'
check "bash saw only the allowlist and env_passthrough (no secrets, no other variables)" pycheck '
res = [m for m in CHAT[1]["messages"] if m["role"] == "tool"][-1]["content"]
env = res.split("==")[0]
names = sorted(set(l.split("=", 1)[0] for l in env.strip().split("\n") if "=" in l))
allowed = {"HOME", "LOGNAME", "USER", "PATH", "SHELL", "TERM", "LANG", "LANGUAGE", "TMPDIR", "TZ",
           "COLORTERM", "NO_COLOR", "MYAPP_MODE", "PAGER", "GIT_PAGER", "GIT_TERMINAL_PROMPT",
           "GIT_EDITOR", "PWD", "SHLVL", "_", "OLDPWD"}
extra = [n for n in names if n not in allowed and not n.startswith("LC_")]
need(not extra, "unexpected variables in bash: %r" % extra)
need("MYAPP_MODE" in names and "HOME" in names and "PATH" in names, "names %r" % names)
for bad in ("FOO_TOKEN", "ANTHROPIC_API_KEY", "DB_PASSWORD", "GITHUB_TOKEN", "OTHER_VAR", "EDITOR", "DISPLAY"):
    need(bad not in names, bad + " reached bash")'
check "the key in a file the model cats is masked" pycheck '
res = [m for m in CHAT[1]["messages"] if m["role"] == "tool"][-1]["content"]
need("the key is [redacted ANTHROPIC_API_KEY] here" in res, res[-400:])
need("the token [redacted FOO_TOKEN]" in res, res[-400:])'
check "hearth scrubbed its own environment: /proc/\$PPID/environ has the names, not the values" pycheck '
res = [m for m in CHAT[1]["messages"] if m["role"] == "tool"][-1]["content"]
ppid = res.split("==")[4]
need("FOO_TOKEN=" in ppid and "GITHUB_TOKEN=" in ppid, "section %r" % ppid)
need("redacted" not in ppid, "a value was still there (masked only): %r" % ppid)'
check "no secret value in any request the mock received" pycheck '
raw = open(sys.argv[1], encoding="utf-8").read()
for v in (os.environ["KEY"], os.environ["FOO"], os.environ["PW"], "aws-secret-value-1", "ghp_probe_value_123"):
    need(v not in raw, "%s in the request log" % v)'
check "no secret value in the session file" pycheck '
import glob
files = glob.glob(os.environ["SESSIONS"] + "/*/*.jsonl")
need(files, "no session file")
raw = "".join(open(f, encoding="utf-8").read() for f in files)
need("redacted ANTHROPIC_API_KEY" in raw, "the masked result is not in the session")
for v in (os.environ["KEY"], os.environ["FOO"], os.environ["PW"]):
    need(v not in raw, "%s in the session" % v)'
SID=$(basename "$(ls "$SESSIONS"/*/*.jsonl | head -1)" .jsonl)
hearth_run export --cwd "$REPO" --export "$SID" "$E2E_TMP/s.md"
check_rc "--export: exit status 0" 0
check "no secret value in the --export output" pycheck '
raw = open(os.environ["E2E_TMP"] + "/s.md", encoding="utf-8").read()
need("redacted ANTHROPIC_API_KEY" in raw, "the masked result is not in the export: %r" % raw[:300])
for v in (os.environ["KEY"], os.environ["FOO"]):
    need(v not in raw, "%s in the export" % v)'
check "no secret value on stdout or stderr" pycheck '
for v in (os.environ["KEY"], os.environ["FOO"]):
    need(v not in OUT_TEXT + ERR_TEXT, "%s printed" % v)'
check "the hook ran with the clean environment plus its HEARTH_* variables" pycheck '
env = open(os.environ["E2E_TMP"] + "/hook.env").read()
names = set(l.split("=", 1)[0] for l in env.strip().split("\n") if "=" in l)
need("HEARTH_EVENT" in names and "HEARTH_TOOL" in names and "HOME" in names, "names %r" % sorted(names))
for bad in ("FOO_TOKEN", "ANTHROPIC_API_KEY", "DB_PASSWORD", "GITHUB_TOKEN", "OTHER_VAR", "DISPLAY"):
    need(bad not in names, bad + " reached the hook")
need(os.environ["KEY"] not in env, "key value in the hook env")'
if [ -x "$DEMO" ]; then
	check "the MCP server ran with the clean environment plus its own env" pycheck '
env = open(os.environ["E2E_TMP"] + "/mcp.env").read()
names = set(l.split("=", 1)[0] for l in env.strip().split("\n") if "=" in l)
need("MCP_OWN_TOKEN=explicit-0k-value" in env, "its own env is missing: %r" % sorted(names))
for bad in ("FOO_TOKEN", "ANTHROPIC_API_KEY", "DB_PASSWORD", "GITHUB_TOKEN", "OTHER_VAR", "DISPLAY"):
    need(bad not in names, bad + " reached the MCP server")'
else
	not_ok "the MCP server's environment" "$DEMO missing (make $DEMO)"
fi
check "env_passthrough naming a secret is refused with a warning" grep -q '"FOO_TOKEN" is a secret' "$E2E_TMP/leak.err"
mock_stop

e2e_finish
