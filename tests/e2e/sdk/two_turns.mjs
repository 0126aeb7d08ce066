// The Claude Agent SDK (npm @anthropic-ai/claude-agent-sdk) driving hearth as
// its Claude Code executable: two user turns in one process, the first with a
// tool call. Run by tests/e2e/test_agent_sdk.sh:
//   node two_turns.mjs HEARTH_BIN WORKSPACE NODE_MODULES MCP_DEMO
// (NODE_MODULES: where npm installed the SDK; MCP_DEMO: an MCP server the SDK configures)
// Prints every message the SDK yields as one JSON line, then "SDK_DONE".
import { pathToFileURL } from 'node:url';

const [bin, cwd, modules, demo] = process.argv.slice(2);
const { query } = await import(pathToFileURL(`${modules}/@anthropic-ai/claude-agent-sdk/sdk.mjs`).href);
let firstResult;
const turnOneDone = new Promise((resolve) => { firstResult = resolve; });

async function* prompts() {
	yield { type: 'user', session_id: '', parent_tool_use_id: null,
		message: { role: 'user', content: [{ type: 'text', text: 'What does hello.c do? SDK_TURN_ONE' }] } };
	await turnOneDone; // the second message only after the first answer, as a chat would
	yield { type: 'user', session_id: '', parent_tool_use_id: null,
		message: { role: 'user', content: 'And the second question. SDK_TURN_TWO' } };
}

const q = query({
	prompt: prompts(),
	options: {
		pathToClaudeCodeExecutable: bin,
		executable: 'node',
		cwd,
		maxTurns: 8,
		allowedTools: ['Read', 'Grep'],
		systemPrompt: { type: 'preset', preset: 'claude_code', append: 'SDK_APPEND_RULE_a7' },
		mcpServers: { demo: { command: demo } },
		mcpServersDelivery: 'argv',
		env: { ...process.env },
		stderr: (d) => process.stderr.write(d),
	},
});
let results = 0;
try {
	for await (const m of q) {
		console.log(JSON.stringify(m));
		if (m.type === 'result' && ++results === 1)
			firstResult();
		if (results === 2)
			break;
	}
	console.log('SDK_DONE');
} catch (e) {
	console.log('SDK_ERROR ' + (e && e.message ? e.message : String(e)));
	process.exitCode = 1;
}
