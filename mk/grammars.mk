# tree-sitter grammars, fetched from npm at build time (included by Makefile).
#
# Each grammar package is pinned to a version whose generated src/parser.c has
# LANGUAGE_VERSION 14, the newest ABI Debian bookworm's libtree-sitter 0.20.7
# loads (docs: shared/docs/grammars.md).  Flow:
#
#   npm pack NAME@VERSION  ->  $(GRAMMAR_CACHE)/DIR.tgz  ->  $(GRAMMAR_CACHE)/DIR/
#   DIR/src/parser.c (+ scanner.c)  ->  build/grammars/LANG-parser.o (+ -scanner.o)
#   DIR/queries/{highlights,tags}.scm  ->  build/grammars/queries.c  ->  queries.o
#   all objects  ->  build/grammars/libgrammars.a  =  $(GRAMMAR_OBJS)
#
# GRAMMAR_OBJS is an archive so a binary links only the grammars it references
# (unit tests that never call code_ get none).  Objects live in build/grammars
# whatever BUILD/MODE say: third-party generated code is built once, without
# sanitizers or -Werror.  The cache (.cache/grammars, ignored by git) is
# keyed by package and version, so a second `make` fetches nothing.
# Every output is written under a temporary name and renamed when complete.
# Objects depend on their package stamp only: after changing GRAMMAR_CFLAGS
# remove build/grammars/ by hand (a version bump refetches and rebuilds).

# Keep `all` the default goal even though this file is included first.
all:

GRAMMAR_CACHE  ?= .cache/grammars
GRAMMAR_DIR    := build/grammars
GRAMMAR_CFLAGS := -O2 -w
GRAMMAR_SH     := sh mk/grammars.sh

# Packages: key -> npm spec.
GRAMMAR_PKG_c          := tree-sitter-c@0.23.6
GRAMMAR_PKG_cpp        := tree-sitter-cpp@0.23.4
GRAMMAR_PKG_python     := tree-sitter-python@0.23.6
GRAMMAR_PKG_javascript := tree-sitter-javascript@0.23.1
GRAMMAR_PKG_typescript := tree-sitter-typescript@0.23.2
GRAMMAR_PKG_go         := tree-sitter-go@0.23.4
GRAMMAR_PKG_rust       := tree-sitter-rust@0.23.3
GRAMMAR_PKG_bash       := tree-sitter-bash@0.23.3
GRAMMAR_PKG_json       := tree-sitter-json@0.24.8
GRAMMAR_PKG_java       := tree-sitter-java@0.23.5
GRAMMAR_PKG_ruby       := tree-sitter-ruby@0.23.1
GRAMMAR_PKG_html       := tree-sitter-html@0.23.2
GRAMMAR_PKG_css        := tree-sitter-css@0.23.2
GRAMMAR_PKG_yaml       := @tree-sitter-grammars/tree-sitter-yaml@0.7.1
GRAMMAR_PKG_markdown   := @tree-sitter-grammars/tree-sitter-markdown@0.3.2
GRAMMAR_PKGS := c cpp python javascript typescript go rust bash json java ruby html css \
	yaml markdown

# Languages: package key, grammar root inside the package, external scanner
# (yes/no), and the query files (PKG:PATH) in the order the package's
# tree-sitter.json lists them (typescript and cpp inherit javascript and c).
GRAMMAR_LANGS := c cpp python javascript typescript tsx go rust bash json java ruby html css \
	yaml markdown markdown_inline
g_pkg = $(or $(g_pkg_$1),$1)
g_root = $(g_root_$1)
g_scan_c := no
g_hl_c   := c:queries/highlights.scm
g_tags_c := c:queries/tags.scm
g_hl_cpp   := c:queries/highlights.scm cpp:queries/highlights.scm
g_tags_cpp := cpp:queries/tags.scm
g_hl_python   := python:queries/highlights.scm
g_tags_python := python:queries/tags.scm
g_hl_javascript   := javascript:queries/highlights.scm javascript:queries/highlights-jsx.scm \
	javascript:queries/highlights-params.scm
g_tags_javascript := javascript:queries/tags.scm
g_root_typescript := typescript/
g_hl_typescript   := typescript:queries/highlights.scm javascript:queries/highlights.scm
g_tags_typescript := typescript:queries/tags.scm javascript:queries/tags.scm
g_pkg_tsx  := typescript
g_root_tsx := tsx/
g_hl_tsx   := typescript:queries/highlights.scm javascript:queries/highlights-jsx.scm \
	javascript:queries/highlights.scm
g_tags_tsx := typescript:queries/tags.scm javascript:queries/tags.scm
g_scan_go := no
g_hl_go   := go:queries/highlights.scm
g_tags_go := go:queries/tags.scm
g_hl_rust   := rust:queries/highlights.scm
g_tags_rust := rust:queries/tags.scm
g_hl_bash := bash:queries/highlights.scm
g_scan_json := no
g_hl_json   := json:queries/highlights.scm
g_scan_java := no
g_hl_java   := java:queries/highlights.scm
g_tags_java := java:queries/tags.scm
g_hl_ruby   := ruby:queries/highlights.scm
g_tags_ruby := ruby:queries/tags.scm
g_hl_html := html:queries/highlights.scm
g_hl_css  := css:queries/highlights.scm
g_hl_yaml := yaml:queries/highlights.scm
g_root_markdown := tree-sitter-markdown/
g_hl_markdown   := markdown:tree-sitter-markdown/queries/highlights.scm
g_pkg_markdown_inline  := markdown
g_root_markdown_inline := tree-sitter-markdown-inline/
g_hl_markdown_inline   := markdown:tree-sitter-markdown-inline/queries/highlights.scm

# Cache directory of a package key: "@scope/name@1.2" -> "scope-name-1.2".
g_dir = $(patsubst -%,%,$(subst /,-,$(subst @,-,$(GRAMMAR_PKG_$1))))
g_stamp = $(GRAMMAR_CACHE)/$(call g_dir,$1)/.hearth-ok
# src/ directory of a language.
g_src = $(GRAMMAR_CACHE)/$(call g_dir,$(call g_pkg,$1))/$(call g_root,$1)src
# PKG:PATH words -> cache paths.
g_files = $(foreach q,$1,$(GRAMMAR_CACHE)/$(call g_dir,$(firstword $(subst :, ,$q)))/$(lastword $(subst :, ,$q)))

GRAMMAR_LANG_OBJS := $(foreach l,$(GRAMMAR_LANGS),$(GRAMMAR_DIR)/$l-parser.o \
	$(if $(filter no,$(g_scan_$l)),,$(GRAMMAR_DIR)/$l-scanner.o))
GRAMMAR_STAMPS := $(foreach p,$(GRAMMAR_PKGS),$(call g_stamp,$p))
GRAMMAR_LIB := $(GRAMMAR_DIR)/libgrammars.a
GRAMMAR_OBJS := $(GRAMMAR_LIB)

grammars: $(GRAMMAR_LIB)

# Fetch rule of one package.
define g_fetch_rule
$(call g_stamp,$1):
	@$(GRAMMAR_SH) fetch '$(GRAMMAR_CACHE)' '$(GRAMMAR_PKG_$1)' '$(call g_dir,$1)'
endef
$(foreach p,$(GRAMMAR_PKGS),$(eval $(call g_fetch_rule,$p)))

# Compile rules: each object knows its grammar's src/ (G_SRC) and package.
define g_lang_deps
$(GRAMMAR_DIR)/$1-parser.o $(GRAMMAR_DIR)/$1-scanner.o: $(call g_stamp,$(call g_pkg,$1))
$(GRAMMAR_DIR)/$1-parser.o $(GRAMMAR_DIR)/$1-scanner.o: G_SRC := $(call g_src,$1)
$(GRAMMAR_DIR)/$1-parser.o: G_PKG := $(GRAMMAR_PKG_$(call g_pkg,$1))
endef
$(foreach l,$(GRAMMAR_LANGS),$(eval $(call g_lang_deps,$l)))

# parser.c must carry an ABI the library loads.  Output via a per-process
# temp name: engineers building build/ and build-asan/ at once share these.
$(GRAMMAR_DIR)/%-parser.o:
	@mkdir -p $(GRAMMAR_DIR)
	@v=$$(grep -m1 '^#define LANGUAGE_VERSION' '$(G_SRC)/parser.c') || v='none'; \
	case "$$v" in *' 13'|*' 14') ;; *) \
		echo "grammars: $(G_SRC)/parser.c has '$$v', not LANGUAGE_VERSION 14;" \
		"libtree-sitter 0.20.7 loads 13-14 only: pin an older $(G_PKG) in mk/grammars.mk" >&2; \
		exit 1;; esac
	$(CC) $(GRAMMAR_CFLAGS) -I'$(G_SRC)' -c '$(G_SRC)/parser.c' -o $@.$$$$.tmp && mv -f $@.$$$$.tmp $@

$(GRAMMAR_DIR)/%-scanner.o:
	@mkdir -p $(GRAMMAR_DIR)
	$(CC) $(GRAMMAR_CFLAGS) -I'$(G_SRC)' -c '$(G_SRC)/scanner.c' -o $@.$$$$.tmp && mv -f $@.$$$$.tmp $@

$(GRAMMAR_DIR)/queries.c: $(GRAMMAR_STAMPS) mk/grammars.sh mk/grammars.mk
	@mkdir -p $(GRAMMAR_DIR)
	@$(GRAMMAR_SH) embed $@ $(foreach l,$(GRAMMAR_LANGS), \
		$l highlights '$(call g_files,$(g_hl_$l))' $l tags '$(call g_files,$(g_tags_$l))')

$(GRAMMAR_DIR)/queries.o: $(GRAMMAR_DIR)/queries.c
	$(CC) $(GRAMMAR_CFLAGS) -c $< -o $@.$$$$.tmp && mv -f $@.$$$$.tmp $@

# The archive; two packages exporting one symbol would clash, so check first.
$(GRAMMAR_LIB): $(GRAMMAR_LANG_OBJS) $(GRAMMAR_DIR)/queries.o
	@dups=$$(nm -g --defined-only $^ | awk 'NF == 3 { print $$3 }' | sort | uniq -d); \
	if [ -n "$$dups" ]; then \
		echo "grammars: symbols defined by two grammar objects:" $$dups >&2; exit 1; fi
	ar rcs $@.$$$$.tmp $^ && mv -f $@.$$$$.tmp $@
