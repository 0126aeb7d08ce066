# bash completion for hearth (installed by `make install`; checked against the
# option table in src/front/cli.c by tests/unit/test_cli_completions.c)
_hearth()
{
	local cur prev
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	case $prev in
	--approval) COMPREPLY=($(compgen -W 'ask auto-edit yolo' -- "$cur")); return ;;
	--sandbox) COMPREPLY=($(compgen -W 'workspace-write read-only off' -- "$cur")); return ;;
	--thinking) COMPREPLY=($(compgen -W 'on off' -- "$cur")); return ;;
	--output-format) COMPREPLY=($(compgen -W 'text json stream-json' -- "$cur")); return ;;
	--input-format) COMPREPLY=($(compgen -W 'text stream-json' -- "$cur")); return ;;
	--route) COMPREPLY=($(compgen -W 'auto local claude' -- "$cur")); return ;;
	--theme) COMPREPLY=($(compgen -W 'default dark light high-contrast' -- "$cur")); return ;;
	--permission-mode) COMPREPLY=($(compgen -W 'default acceptEdits bypassPermissions plan dontAsk' -- "$cur")); return ;;
	--cwd) COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--system-prompt-file|--log|--serve|--export|--mcp-config) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--delete-session|--server|--model|--max-steps|--max-turns|--tools|--allowedTools|--allowed-tools|--disallowedTools|--disallowed-tools|--append-system-prompt|--system-prompt)
		return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '-p -c -r -y -h
			--print --continue --resume --yes --help --version --verbose
			--server --model --theme --max-steps --cwd --tools --no-tools
			--system-prompt-file --thinking --think --serve --output-format --log
			--approval --sandbox --export --delete-session --route --tui --line --demo
			--input-format --max-turns --permission-mode --allowedTools --allowed-tools
			--disallowedTools --disallowed-tools --append-system-prompt --system-prompt
			--dangerously-skip-permissions --mcp-config' -- "$cur"))
		return
	fi
	if [[ $COMP_CWORD -eq 1 ]]; then
		COMPREPLY=($(compgen -W 'stats trust untrust doctor bench' -- "$cur"))
	fi
}
complete -F _hearth hearth
