#!/bin/bash
# seeds.sh NAME DIR (bash: its printf knows \xHH): write the seed inputs of harness tests/fuzz/fuzz_NAME.c
# into DIR (made afresh by mk/fuzz.mk under build-fuzz/; nothing here is
# committed in bulk).  Sources: the recorded llama-server fixtures
# ($FIXTURES), the mock servers' scenarios, the themes, the ```json examples
# of the docs, the docs themselves, and a few inline samples.
set -eu
name=$1
dir=$2
fix=${FIXTURES:-tests/net/fixtures}
n=0

# put TEXT: one seed file holding printf-format TEXT.
put() {
	n=$((n + 1))
	printf "$1" >"$dir/inline-$n"
}

# docjson FILE...: each ```json block of the docs as one seed.
docjson() {
	awk -v d="$dir" '
		/^```json/ { on = 1; k++; f = d "/doc-" FILENAME "-" k; gsub(/\//, "_", f); sub(/^[^\/]*_/, d "/", f); next }
		/^```/ { on = 0; next }
		on { print > f }
	' "$@"
}

case $name in
sse | openai | llamawire | anthropic)
	cp "$fix"/*.sse "$fix"/*.txt "$fix"/*.json "$dir"/ 2>/dev/null || true
	cp tests/net/scenarios/*.json "$dir"/ 2>/dev/null || true
	;;
esac

case $name in
textcall)
	put ' <tool_call>\n{"name": "read", "arguments": {"path": "main.c"}}\n</tool_call>'
	put ' Plan.\n<tool_call>\n<function=write>\n<parameter=path>\na.c\n</parameter>\n<parameter=content>\nint x;\n</parameter>\n</function>\n</tool_call>'
	put ' ok\n```json\n{"name":"ls","arguments":{}}\n```\n'
	put ' thought</think>\n{"name":"bash","arguments":"{\\"command\\":\\"ls\\"}"}'
	;;
anthropic)
	put 'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":10,"cache_read_input_tokens":5}}}\n\nevent: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}\n\nevent: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\nevent: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"read","input":{}}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"path\\":\\"a.c\\"}"}}\n\nevent: content_block_stop\ndata: {"type":"content_block_stop","index":1}\n\nevent: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":7}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n'
	put 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
	put '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}'
	put '{"data":[{"id":"claude-sonnet-4-5-20250929","type":"model"},{"id":"claude-haiku-4-5"}],"has_more":false}'
	;;
llamawire)
	put '\x01hearth-probe-u1<|im_start|>assistant\n<think>\n\n</think>\n\x00hearth-probe-u1<|im_start|>assistant\nhearth-probe-a1'
	put '{"id_slot":0,"filename":"s.bin","n_saved":1745,"n_written":14309796,"timings":{"save_ms":49.865}}'
	;;
mcpwire)
	put '\x3f{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"demo","version":"1"}}}\n{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","description":"Echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}},"annotations":{"readOnlyHint":true}}],"nextCursor":"p2"}}\n{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}\n{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"hi"},{"type":"image","data":"AA==","mimeType":"image/png"}],"isError":false}}\n'
	put '\x3f{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}\n{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n{"jsonrpc":"2.0","id":"a","method":"ping"}\n{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{}}\n{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}\n'
	put '\x3f{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"refused"}}\r\n'
	;;
bench)
	put '\000....\n------\nRan 17 tests in 0.01s\n\nOK\n'
	put '\000F.E\nRan 22 tests in 0.011s\n\nFAILED (failures=2, errors=5)\n'
	put '\0031..3\nok 1 - a\nnot ok 2 - b\nok 3 - c\n'
	put '\001# HELP llamacpp:prompt_tokens_total x\nllamacpp:prompt_tokens_total 1234\nllamacpp:tokens_predicted_total 56\n'
	put '\002{"type":"system"}\n{"type":"result","num_turns":6,"routing":{"decisions":[{"target":"claude","blocked":false}],"cost_usd":0.5}}\n'
	;;
session)
	put '{"id":"87c110eea2d2","parent":null,"type":"meta","ts":"2026-11-25T13:52:44.678Z","meta":{"cwd":"/w","model":"m","server":"http://127.0.0.1:8080","provider":"llama","created":"2026-11-25T13:52:44.678Z","forked_from":"x"}}\n{"id":"4ed117c32799","parent":"87c110eea2d2","type":"message","ts":"2026-11-25T13:52:44.678Z","message":{"role":"user","aborted":false,"blocks":[{"text":"hi","kind":"text"},{"kind":"image","key":"k","value":"v"}]}}\n{"id":"9494fbd4ea76","parent":"4ed117c32799","type":"message","ts":"2026-11-25T13:52:44.680Z","message":{"role":"assistant","aborted":false,"blocks":[{"text":"hm","kind":"reasoning","signature":"c2ln"},{"kind":"tool_call","id":"c1","name":"read","args":"{\\"path\\":\\"a\\"}"}]}}\n{"id":"a1","parent":"9494fbd4ea76","type":"message","ts":"2026-11-25T13:52:44.690Z","message":{"role":"user","blocks":[{"kind":"tool_result","id":"c1","name":"read","text":"1\\tx","is_error":false}]}}\n{"id":"b2","parent":"4ed117c32799","type":"notice","ts":"2026-11-25T13:52:44.700Z","text":"forked"}\n'
	put '{"id":"a","parent":null,"type":"message","message":{"role":"user","blocks":[{"text":"x","kind":"text"}]}}\n{"id":"b","parent":"zz","type":"message","message":{"role":"assistant","aborted":true,"blocks":[]}}\n{"id":"c","parent":"b","type":"mess'
	;;
cfg | route | mcpconfig)
	docjson docs/configuration.md docs/routing.md docs/permissions.md README.md
	put '{"server":"http://127.0.0.1:8080","model":"m","temperature":0.6,"top_p":0.95,"top_k":20,"max_tokens":-1,"thinking":true,"max_steps":40,"id_slot":-1,"theme":"dark","serve":{"model":"/m.gguf","binary":"llama-server","ctx":8192},"routing":{"mode":"auto"},"anthropic":{"model":"sonnet"}}'
	put '{"mcpServers":{"demo":{"command":"mcp-demo","args":["--x","y"],"env":{"A":"1"}},"bad":{"args":[1]}}}'
	put '{"routing":{"mode":"auto","patterns":[{"pattern":"design","mode":"consult"},{"pattern":"dead.?lock","regex":true,"mode":"handoff"},"architecture"],"context_fraction":0.9,"rules":{"tool_failures":{"threshold":3,"mode":"handoff"}},"budget":{"day_usd":1}}}'
	;;
perm) # command lines as the model writes them
	put 'make test && git push || true; ls | wc -l &'
	put "cat > notes.txt <<'EOF'\nrm -rf src\nEOF\nls"
	put 'cat <<-EOF | grep x\n\tbody $(date)\n\tEOF\n'
	put "echo \$'a\\\\'; b' # it's\nrm x"
	put 'FOO=1 sudo -E env timeout 10 nice git commit -m "a; b" 2>&1 >/dev/null'
	put 'echo $((1<<2)) $[3] `id` "$(printf %%s x)"\n(cd a && make)'
	;;
theme)
	cp themes/*.json "$dir"/
	;;
keys)
	put 'a\x1b[A\x1b[1;5C\x1bOH\x1b[3~\x1b[5~\x1b[Z\x1bx\x1b\r\x7f\x08\t\r\xc3\xa9\xe4\xb8\xad'
	put '\x1b[200~pasted\r\ntext\x1b[A\x1b[201~after'
	put '\x1b[<64;10;5M\x1b[<65;1;1M\x1b[<0;3;4m\x1b[M !!\x1b[I\x1b[O\x1b[15~\x1b[1;2P'
	;;
sanitize)
	cp "$fix"/*.sse "$fix"/*.txt "$dir"/ 2>/dev/null || true
	put 'ok\x1b[31mred\x1b]0;title\x07\xc2\x9b2J\xed\xa0\x80\xf4\x90\x80\x80\xe0\x80\x80\xff\x00tab\tend\n'
	;;
markdown) # the first byte picks the width
	for f in README.md docs/*.md; do { printf '\x4f'; cat "$f"; } >"$dir/$(echo "$f" | tr / _)"; done
	put '\x28# Title\n- item **bold** and `code`\n  1. nested _em_\n```c\nint main(void) { return 0; }\n```\n@@ -1,2 +1,2 @@\n-old line\n+new line\n context\n'
	;;
edit)
	put '\x02int main(void)\n{\n\treturn 0;\n}\n\x00\treturn 0;\n\x00\treturn 1;\n'
	put '\x00\xef\xbb\xbfa\r\nb\r\nc\r\n\x00b\n\x00B\n'
	put '\x01x x x\n\x00x\x00y'
	put '\x0adef f():\n    return 1\n\x00return 1\x00return (1'
	;;
esac
