"""mock_template: the Qwen3.5 chat template, rendered in plain Python.

mock_llama.py uses it (scenario "template": "qwen35") to simulate the
server's prompt cache on rendered text, the way llama-server does on
tokens: a request reuses the longest common prefix of its rendered
prompt and what the slot holds (the previous prompt plus the text the
model generated).  With "hybrid": true a divergence inside the slot can
only resume from a checkpoint (the end of an earlier prompt), as a
recurrent/hybrid model does; otherwise everything is re-processed.

Only what changes the bytes is modelled: the system block (with tools),
user, assistant (the think block only after the last user query, the
reasoning_content / "</think>" split, tool calls in the XML form) and
tool responses.  Python 3 standard library only.
"""

import json

THINK_OFF = "<think>\n\n</think>\n\n"


def _text(content):
    """A message's content as text (string or list of text parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _arg_value(v):
    if isinstance(v, (dict, list)):
        return json.dumps(v, ensure_ascii=False)
    if v is True:
        return "True"
    if v is False:
        return "False"
    if v is None:
        return "None"
    return str(v)


def render_calls(content, calls):
    """The XML tool-call block the template writes (and the model emits)."""
    out = []
    for i, c in enumerate(calls or []):
        fn = c.get("function", c) if isinstance(c, dict) else {}
        name = fn.get("name", "")
        if i == 0:
            out.append(("\n\n" if content.strip() else "") + "<tool_call>\n<function=" + name + ">\n")
        else:
            out.append("\n<tool_call>\n<function=" + name + ">\n")
        args = fn.get("arguments", {})
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                args = {}
        if isinstance(args, dict):
            for k, v in args.items():
                out.append("<parameter=" + k + ">\n" + _arg_value(v) + "\n</parameter>\n")
        out.append("</function>\n</tool_call>")
    return "".join(out)


def _system(messages, tools):
    sys_text = ""
    if messages and messages[0].get("role") == "system":
        sys_text = _text(messages[0].get("content")).strip()
    if not tools:
        return "<|im_start|>system\n" + sys_text + "<|im_end|>\n" if sys_text else ""
    out = "<|im_start|>system\n# Tools\n\nYou have access to the following functions:\n\n<tools>"
    for t in tools:
        out += "\n" + json.dumps(t.get("function", t), ensure_ascii=False)
    out += "\n</tools>"
    if sys_text:
        out += "\n\n" + sys_text
    return out + "<|im_end|>\n"


def _last_query(messages):
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if m.get("role") == "user":
            c = _text(m.get("content")).strip()
            if not (c.startswith("<tool_response>") and c.endswith("</tool_response>")):
                return i
    return len(messages) - 1


def _assistant(m, after_query):
    content = _text(m.get("content")).strip()
    rc = m.get("reasoning_content")
    if isinstance(rc, str) and rc != "":  # llama-server drops an empty reasoning_content
        reasoning = rc
    elif "</think>" in content:
        reasoning = content.split("</think>")[0].rstrip("\n").split("<think>")[-1].lstrip("\n")
        content = content.split("</think>")[-1].lstrip("\n")
    else:
        reasoning = ""
    reasoning = reasoning.strip()
    if after_query:
        out = "<|im_start|>assistant\n<think>\n" + reasoning + "\n</think>\n\n" + content
    else:
        out = "<|im_start|>assistant\n" + content
    return out + render_calls(content, m.get("tool_calls")) + "<|im_end|>\n"


def render(messages, tools=None, enable_thinking=True, add_generation_prompt=True):
    """The prompt text llama-server would build from an OpenAI request."""
    out = [_system(messages, tools)]
    lq = _last_query(messages)
    for i, m in enumerate(messages):
        role = m.get("role")
        if role == "system":
            continue
        if role == "user":
            out.append("<|im_start|>user\n" + _text(m.get("content")).strip() + "<|im_end|>\n")
        elif role == "assistant":
            out.append(_assistant(m, i > lq))
        elif role == "tool":
            prev = messages[i - 1].get("role") if i > 0 else None
            nxt = messages[i + 1].get("role") if i + 1 < len(messages) else None
            if prev != "tool":
                out.append("<|im_start|>user")
            out.append("\n<tool_response>\n" + _text(m.get("content")).strip() + "\n</tool_response>")
            if nxt != "tool":
                out.append("<|im_end|>\n")
    if add_generation_prompt:
        out.append("<|im_start|>assistant\n" + (THINK_OFF if enable_thinking is False else "<think>\n"))
    return "".join(out)


def generated(content, calls):
    """What the model emitted after the generation prompt (the end token is
    sampled but never enters the cache)."""
    return (content or "") + render_calls(content or "", calls)


def common_prefix(a, b):
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i
