# hearth — build, test, install.  See README.md for the two set-up commands.
#
#   make            build ./hearth (release flags)
#   make test       build and run every test (unit, net, e2e)
#   make asan       the whole test suite under ASan+UBSan (build-asan/)
#   make valgrind   every unit test under valgrind --leak-check=full
#   make bench      start-up, RSS and per-turn figures (prints; fails nothing)
#   make bench-real the 3x3 warm-cache scenario on a real llama-server (HEARTH_BENCH_SERVER)
#   make install    PREFIX=/usr/local: binary, man page, bench problems, shell completions
#                   (themes are built into the binary; DESTDIR for staging)
#   make bootstrap  install missing Debian packages (root) or print the apt-get line
#   make lint       headers compile alone; layering rules hold
#   make mutate     plant bugs in the guarded modules (MODULES=a,b; tests/mutate/modules.txt)
#                   and print killed / survived / score per module with each survivor
#   make mutate-ci  the deterministic sample of it that CI runs, failing below the floors

PREFIX  ?= /usr/local
CC      ?= cc
MODE    ?= release
BUILD   ?= build
PKGS    := ncursesw libcurl libcjson libgit2 tree-sitter md4c md4c-html
VERSION := 0.1.0

PKG_CFLAGS := $(filter-out -D_XOPEN_SOURCE% -D_DEFAULT_SOURCE,$(shell pkg-config --cflags $(PKGS) 2>/dev/null))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

WARN := -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wformat=2 -Wwrite-strings -Wvla -Werror
DEFS := -D_XOPEN_SOURCE=700 -D_DEFAULT_SOURCE -DHEARTH_VERSION='"$(VERSION)"'

ifeq ($(MODE),asan)
OPT := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDOPT := -fsanitize=address,undefined
else
OPT := -O2 -g -D_FORTIFY_SOURCE=2 -fstack-protector-strong
LDOPT := -Wl,--as-needed -Wl,-O1
endif

CFLAGS_ALL := $(WARN) $(OPT) $(DEFS) -Isrc -I. $(PKG_CFLAGS) $(CFLAGS)
LDFLAGS_ALL := $(LDOPT) $(LDFLAGS)
# -pthread: the one worker thread (src/io/work.h)
LIBS := $(PKG_LIBS) -lm -pthread

# Grammar objects are built once, without sanitizers, and shared by every mode.
GRAMMAR_OBJS :=
-include $(wildcard mk/*.mk)

CORE_SRC := $(wildcard src/*/*.c) $(wildcard tools/*.c) $(wildcard ui/*/*.c)
CORE_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(CORE_SRC))
MAIN_OBJ := $(BUILD)/obj/src/main.o
LIB      := $(BUILD)/libhearth.a
BIN      := $(if $(filter build,$(BUILD)),hearth,$(BUILD)/hearth)

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
TEST_HELPERS := $(wildcard tests/unit/helpers/*.c)

.PHONY: mutate mutate-ci all test unit asan valgrind bench bench-real install uninstall bootstrap lint clean distclean grammars

EXT_BIN  := $(BUILD)/mcp-demo

all: $(BIN) $(EXT_BIN)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(LIB): $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BIN): $(MAIN_OBJ) $(LIB) $(GRAMMAR_OBJS)
	$(CC) $(LDFLAGS_ALL) -o $@ $(MAIN_OBJ) $(LIB) $(GRAMMAR_OBJS) $(LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(TEST_HELPERS) $(LIB) $(GRAMMAR_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Wno-missing-prototypes -Itests/unit -Itests/unit/helpers -DFIXTURES='"$(FIXTURES)"' \
		$(LDFLAGS_ALL) -o $@ $< $(TEST_HELPERS) $(LIB) $(GRAMMAR_OBJS) $(LIBS) $(CMOCKA_LIBS)

# Recorded llama-server responses live beside the project (../shared) or in $FIXTURES.
FIXTURES ?= $(abspath $(firstword $(wildcard ../shared/fixtures/llama-server) tests/net/fixtures))

# extensions/: the demo MCP server (tests start it from $(BUILD)).
$(BUILD)/mcp-demo: extensions/mcp-demo/mcp-demo.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(LIBS)

$(BUILD)/tests/test_mcp: $(EXT_BIN)
$(BUILD)/tests/test_mcp: CFLAGS_ALL += -DMCP_DEMO='"$(abspath $(EXT_BIN))"'

unit: $(UNIT_BIN)

test: $(BIN) $(UNIT_BIN) $(EXT_BIN)
	@HEARTH_BIN=$(abspath $(BIN)) BUILD=$(BUILD) FIXTURES=$(FIXTURES) sh tests/run.sh

# The probe suite's yolo control (proof that its probes are real attacks) runs
# once, in `make test`; the sanitizer run checks only that they ask.
asan:
	HEARTH_SANITIZED=1 PROBES_CONTROL=0 $(MAKE) MODE=asan BUILD=build-asan test

valgrind: $(UNIT_BIN)
	@fail=0; for t in $(UNIT_BIN); do \
		valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
			--error-exitcode=9 $$t >$$t.vg.log 2>&1 || { echo "valgrind: $$t failed (see $$t.vg.log)"; fail=1; }; \
	done; [ $$fail -eq 0 ] && echo "valgrind: all unit tests clean"

bench: $(BIN) $(BUILD)/bench/frame $(BUILD)/bench/bench_intel $(BUILD)/bench/skelcheck $(BUILD)/bench/bench_tools
	@HEARTH_BIN=$(abspath $(BIN)) BENCH_FRAME=$(abspath $(BUILD)/bench/frame) \
		BENCH_INTEL=$(abspath $(BUILD)/bench/bench_intel) BENCH_TOOLS=$(abspath $(BUILD)/bench/bench_tools) \
		BENCH_SKEL=$(abspath $(BUILD)/bench/skelcheck) FIXTURES=$(FIXTURES) sh tests/bench.sh
	@HEARTH_BIN=$(abspath $(BIN)) FIXTURES=$(FIXTURES) sh tests/bench_cache.sh

# the warm-cache scenario on a real llama-server (not in CI): HEARTH_BENCH_SERVER=path/to/llama-server
bench-real: $(BIN)
	@HEARTH_BIN=$(abspath $(BIN)) sh tests/bench_real.sh

$(BUILD)/bench/%: tests/bench/%.c tests/bench/bench_util.h $(LIB) $(GRAMMAR_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(LIB) $(GRAMMAR_OBJS) $(LIBS)

# Mutation testing (tests/mutate.py): the working tree is never written; the
# mutated copies and their builds go to $(BUILD)/mutate.  MUTATE_SAMPLE=N takes
# the same N mutants per module on every run; MUTATE_ARGS passes more options.
MUTATE_SAMPLE ?=
MUTATE_CI_MODULES ?= perm gate sandbox shellro redact ws fsutil cost edit restore sessline sessread
MUTATE_CI_FLOOR ?= 90
mutate: $(BIN) $(UNIT_BIN) $(EXT_BIN)
	@BUILD=$(BUILD) FIXTURES=$(FIXTURES) python3 tests/mutate.py --floor \
		$(if $(MODULES),--modules '$(MODULES)') $(if $(MUTATE_SAMPLE),--sample $(MUTATE_SAMPLE)) $(MUTATE_ARGS)

# CI: the same 3 mutants from each of twelve guarded modules on every run (every
# kind of guard: permissions, the gate, the sandbox, read-only commands,
# redaction, confinement, atomic writes, costs, edit, undo, the session's
# writer and reader), unit tests only, no new mutant started after 200 s
# (about 3 minutes on 2 cores); fails when the sample's score is below
# MUTATE_CI_FLOOR (three mutants per module are too few for the per-module
# floors, which `make mutate` holds).
mutate-ci: $(BIN) $(UNIT_BIN) $(EXT_BIN)
	@BUILD=$(BUILD) FIXTURES=$(FIXTURES) python3 tests/mutate.py --floor --floor-total $(MUTATE_CI_FLOOR) \
		--quiet --no-e2e --jail try --sample 3 --budget 200 --modules '$(MUTATE_CI_MODULES)' $(MUTATE_ARGS)

# Only what is read: the binary (themes are compiled in), the bench problems it
# finds in ../share/hearth, the man page, and each shell's completions.
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/hearth
	install -m 644 docs/hearth.1 $(DESTDIR)$(PREFIX)/share/man/man1/hearth.1
	install -m 644 completions/hearth.bash $(DESTDIR)$(BASHCOMPDIR)/hearth
	install -m 644 completions/_hearth $(DESTDIR)$(ZSHCOMPDIR)/_hearth
	install -m 644 completions/hearth.fish $(DESTDIR)$(FISHCOMPDIR)/hearth.fish
	install -d $(DESTDIR)$(PREFIX)/share/hearth/bench
	rm -rf $(DESTDIR)$(PREFIX)/share/hearth/bench/problems
	(cd extensions/bench && tar cf - --exclude=__pycache__ --exclude=.bench-tests problems) | \
		(cd $(DESTDIR)$(PREFIX)/share/hearth/bench && tar xf - --no-same-owner)

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/hearth $(DESTDIR)$(PREFIX)/share/man/man1/hearth.1 \
		$(DESTDIR)$(BASHCOMPDIR)/hearth $(DESTDIR)$(ZSHCOMPDIR)/_hearth $(DESTDIR)$(FISHCOMPDIR)/hearth.fish
	rm -rf $(DESTDIR)$(PREFIX)/share/hearth

bootstrap:
	@sh mk/bootstrap.sh

lint:
	@sh mk/lint.sh "$(CC) $(WARN) $(DEFS) -Isrc -I. $(PKG_CFLAGS)"

clean:
	rm -rf build build-asan hearth

distclean: clean
	rm -rf .cache

-include $(CORE_OBJ:.o=.d) $(MAIN_OBJ:.o=.d)
