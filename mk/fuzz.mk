# fuzz: libFuzzer harnesses for the stream parsers (included by Makefile;
# not part of `make test`).
#
#   make fuzz                 build build-fuzz/fuzz_{sse,openai,textcall}, run each
#                             for FUZZ_TIME seconds (default 20)
#   make fuzz-build           only build them
#   make fuzz FUZZ_TIME=600   a longer run
#
# Harnesses are built with clang -fsanitize=fuzzer,address,undefined from
# the few sources they need (not libhearth.a, so they do not depend on the
# rest of the tree building).  Each run starts from a seed directory made
# afresh under build-fuzz/ from the recorded fixtures (plus, for textcall,
# the answer texts below) and keeps what it finds in build-fuzz/corpus-NAME;
# crashes are written to build-fuzz/crash-NAME-*.

# Keep `all` the default goal even though this file is included first.
all:

FUZZ_CC    ?= clang
FUZZ_TIME  ?= 20
FUZZ_DIR   := build-fuzz
FUZZ_NAMES := sse openai textcall
FUZZ_BINS  := $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_NAMES))
FUZZ_SRC   := src/io/sse.c src/llm/openai.c src/base/json.c src/llm/textcall.c src/base/buf.c src/base/str.c \
	src/base/err.c src/base/xmalloc.c src/llm/event.c
FUZZ_HDR   := src/io/sse.h src/llm/openai.h src/base/json.h src/llm/textcall.h src/base/buf.h src/base/str.h \
	src/base/err.h src/base/xmalloc.h src/llm/event.h
# clang counts buf_vaddf's vsnprintf(fmt) as a non-literal format; gcc does not.
FUZZ_FLAGS := -Wno-format-nonliteral -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer

.PHONY: fuzz fuzz-build

fuzz-build: $(FUZZ_BINS)

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_SRC) $(FUZZ_HDR)
	@mkdir -p $(FUZZ_DIR)
	$(FUZZ_CC) $(WARN) $(DEFS) $(FUZZ_FLAGS) -Isrc $$(pkg-config --cflags libcjson) \
		-o $@ $< $(FUZZ_SRC) $$(pkg-config --libs libcjson) -lm

# Seeds: every fixture for sse and openai; answer texts with each call syntax for textcall.
fuzz: $(FUZZ_BINS)
	@set -e; for n in $(FUZZ_NAMES); do \
		seed=$(FUZZ_DIR)/seed-$$n; rm -rf $$seed; mkdir -p $$seed $(FUZZ_DIR)/corpus-$$n; \
		cp $(FIXTURES)/*.sse $(FIXTURES)/*.txt $(FIXTURES)/*.json $$seed/ 2>/dev/null || true; \
	done; \
	t=$(FUZZ_DIR)/seed-textcall; \
	printf ' <tool_call>\n{"name": "read", "arguments": {"path": "main.c"}}\n</tool_call>' >$$t/hermes; \
	printf ' Plan.\n<tool_call>\n<function=write>\n<parameter=path>\na.c\n</parameter>\n<parameter=content>\nint x;\n</parameter>\n</function>\n</tool_call>' >$$t/xml; \
	printf ' ok\n```json\n{"name":"ls","arguments":{}}\n```\n' >$$t/fence; \
	printf ' thought</think>\n{"name":"bash","arguments":"{\\"command\\":\\"ls\\"}"}' >$$t/think; \
	for n in $(FUZZ_NAMES); do \
		log=$(FUZZ_DIR)/fuzz_$$n.log; echo "fuzz_$$n: $(FUZZ_TIME)s (log in $$log)"; \
		sed -n 's/^ \* dict: //p' tests/fuzz/fuzz_$$n.c >$(FUZZ_DIR)/$$n.dict; \
		if ! $(FUZZ_DIR)/fuzz_$$n -max_total_time=$(FUZZ_TIME) -max_len=65536 \
			-dict=$(FUZZ_DIR)/$$n.dict \
			-artifact_prefix=$(FUZZ_DIR)/crash-$$n- \
			$(FUZZ_DIR)/corpus-$$n $(FUZZ_DIR)/seed-$$n >$$log 2>&1; then \
			tail -n 40 $$log; echo "fuzz_$$n: FAILED"; exit 1; \
		fi; \
		grep -E '^Done|^#[0-9]+.*DONE' $$log | tail -n 1; \
	done
