# fuzz: libFuzzer harnesses for every parser (included by Makefile; not
# part of `make test`).  tests/fuzz/fuzz_NAME.c is one harness each.
#
#   make fuzz-ci              build them all, run each for FUZZ_TIME seconds
#                             (default 16); any crash, leak or timeout fails
#   make fuzz FUZZ_TIME=600   the same, as long as asked (default 60 s each)
#   make fuzz FUZZ_NAMES="keys theme"   only these harnesses
#   make fuzz-build           only build them
#
# The tree is compiled once more with clang -fsanitize=fuzzer-no-link,
# address,undefined into build-fuzz/libhearth.a, and each harness links
# against it (plus the grammar archive, built without sanitizers as for the
# other modes).  Each run starts from a seed directory made afresh under
# build-fuzz/seed-NAME by tests/fuzz/seeds.sh from the recorded fixtures,
# themes, docs and a few inline samples (nothing is committed in bulk), and
# keeps what it finds in build-fuzz/corpus-NAME; a crash is written to
# build-fuzz/crash-NAME-* and the run's log is build-fuzz/fuzz_NAME.log.

# Keep `all` the default goal even though this file is included first.
all:

FUZZ_CC    ?= clang
FUZZ_DIR   := build-fuzz
FUZZ_ALL   := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES ?= $(FUZZ_ALL)
FUZZ_BINS  := $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_ALL))
FUZZ_CORE  := $(wildcard src/*/*.c) $(wildcard tools/*.c) $(wildcard ui/*/*.c)
FUZZ_OBJ   := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(FUZZ_CORE))
FUZZ_LIB   := $(FUZZ_DIR)/libhearth.a
# clang counts buf_vaddf's vsnprintf(fmt) as a non-literal format; gcc does not.
FUZZ_SAN   := -g -O1 -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS = $(WARN) -Wno-format-nonliteral $(DEFS) -Isrc -I. $(PKG_CFLAGS) $(FUZZ_SAN)
# -rss_limit_mb: the default 2 GB; -timeout: one input taking longer is a hang.
FUZZ_OPTS  := -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1

.PHONY: fuzz fuzz-ci fuzz-build

fuzz-build: $(FUZZ_BINS)

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c $< -o $@

$(FUZZ_LIB): $(FUZZ_OBJ)
	@rm -f $@
	ar rcs $@ $^

# GRAMMAR_OBJS is set by grammars.mk, included after this file: expand it late.
.SECONDEXPANSION:
$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_util.h $(FUZZ_LIB) $$(GRAMMAR_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< $(FUZZ_LIB) \
		$(GRAMMAR_OBJS) $(PKG_LIBS) -lm -pthread

fuzz-ci: FUZZ_TIME ?= 16
fuzz: FUZZ_TIME ?= 60
# fuzz-ci starts every run from the same seed, so a local run retraces CI's
# first steps; `make fuzz` draws a fresh one each time.
fuzz-ci: FUZZ_SEED ?= 1
fuzz: FUZZ_SEED ?= 0

# Each harness in turn; the first failure stops the run with its log's tail.
fuzz fuzz-ci: $(FUZZ_BINS)
	@set -e; for n in $(FUZZ_NAMES); do \
		seed=$(FUZZ_DIR)/seed-$$n; log=$(FUZZ_DIR)/fuzz_$$n.log; \
		rm -rf $$seed; mkdir -p $$seed $(FUZZ_DIR)/corpus-$$n; \
		FIXTURES=$(FIXTURES) bash tests/fuzz/seeds.sh $$n $$seed; \
		sed -n 's/^ \* dict: //p' tests/fuzz/fuzz_$$n.c >$(FUZZ_DIR)/$$n.dict; \
		echo "fuzz_$$n: $(FUZZ_TIME)s (log in $$log)"; \
		if ! $(FUZZ_DIR)/fuzz_$$n -max_total_time=$(FUZZ_TIME) -seed=$(FUZZ_SEED) $(FUZZ_OPTS) \
			$$( [ -s $(FUZZ_DIR)/$$n.dict ] && echo -dict=$(FUZZ_DIR)/$$n.dict ) \
			-artifact_prefix=$(FUZZ_DIR)/crash-$$n- \
			$(FUZZ_DIR)/corpus-$$n $$seed >$$log 2>&1; then \
			tail -n 40 $$log; echo "fuzz_$$n: FAILED"; exit 1; \
		fi; \
		grep -E '^#[0-9]+.*DONE' $$log | tail -n 1; \
	done

-include $(FUZZ_OBJ:.o=.d)
