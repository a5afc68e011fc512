# gpuflame — build, test, fuzz, bench, install.
#
#   make            release build: build/rel/gpuflame
#   make demo       build, then render the embedded demo inputs (see README)
#   make check      the fast tier (two minutes): ASan+UBSan build, unit tests, goldens of
#                   tests/data, every fuzz target's seeds replayed (gcc); installs nothing,
#                   needs no ../shared (tests/check.sh)
#   make test       install test dependencies, build with ASan+UBSan, run every test
#   make fuzz       build the libFuzzer targets (clang)
#   make bench      run the benchmarks under bench/ (slow; not part of test)
#   make install    PREFIX=/usr/local DESTDIR=  (stripped binary, man pages, completions, docs)
#   make uninstall  the same variables: removes what install put
#
# ISA-L (the igzip fast path for gzip input) is on by default (ISAL=1: a
# missing header is an error naming scripts/deps.sh); ISAL=0 builds without
# it. `gpuflame --version` says which decoders were built in.
#
# Sources are found by wildcard: a new src/<layer>/*.c, tests/unit/test_*.c or
# tests/fuzz/fuzz_*.c needs no edit here.

CC      ?= cc
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DOCDIR  ?= $(PREFIX)/share/doc/gpuflame
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
INSTALL_STRIP ?= -s
MODE    ?= rel
TAG     ?=
B       := build/$(MODE)$(TAG)

PQINC   := $(shell pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)
ISAL    ?= 1
ISAL_H  := /usr/include/isa-l/igzip_lib.h
DEFS    := -D_GNU_SOURCE $(if $(filter 1,$(ISAL)),-DGF_HAVE_ISAL=1)
LIBS    := -lzstd -lz -lm -lpthread -lsqlite3 -lpq $(if $(filter 1,$(ISAL)),-lisal)
WARN    := -Wall -Wextra -Werror -Wno-unused-parameter
CSTD    := -std=c11

# The test builds check the invariants the code relies on (GF_ASSERT, base/gf.h).
ifeq ($(MODE),asan)
OPT     := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined -DGF_CHECKS=1
LDOPT   := -fsanitize=address,undefined
else
OPT     := -O2 -g
LDOPT   :=
endif

CFLAGS_ALL := $(CSTD) $(WARN) $(DEFS) -Isrc -I$(PQINC) $(OPT) $(CPPFLAGS) $(CFLAGS)
LAYERS  := base input stacks stacks/ops stacks/render stacks/export trace/read trace/model trace/analysis trace/write store
LIB_SRC := $(foreach l,$(LAYERS),$(wildcard src/$(l)/*.c))
CLI_SRC := $(wildcard src/cli/*.c)
UNIT_SRC:= $(wildcard tests/unit/test_*.c)
FUZZ_SRC:= $(wildcard tests/fuzz/fuzz_*.c)

LIB_OBJ := $(LIB_SRC:%.c=$(B)/obj/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(B)/obj/%.o)
UNITS   := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
LIB     := $(B)/libgpuflame.a

# Man pages and completions are written by the binary from the commands'
# option tables (src/cli/cliopt.h): one page per command, as git does.
CMDS    := $(patsubst src/cli/cmd_%.c,%,$(wildcard src/cli/cmd_*.c))
MANS    := $(B)/man/gpuflame.1 $(CMDS:%=$(B)/man/gpuflame-%.1)
COMPS   := $(B)/completion/gpuflame.bash $(B)/completion/_gpuflame

.PHONY: all units asan check replay test demo fuzz bench install uninstall clean deps isal-check FORCE
all: $(B)/gpuflame $(MANS) $(COMPS)

isal-check:
	@if [ "$(ISAL)" = 1 ] && [ ! -f $(ISAL_H) ]; then \
	  echo "ISA-L is missing ($(ISAL_H)): run 'scripts/deps.sh build', or build without it: make ISAL=0" >&2; \
	  exit 1; fi

$(B)/obj/%.o: %.c | isal-check
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

# the documents' folder the man pages name: regenerated when DOCDIR changes
$(B)/man/.docdir: FORCE
	@mkdir -p $(dir $@)
	@[ "$$(cat $@ 2>/dev/null)" = "$(DOCDIR)" ] || echo "$(DOCDIR)" > $@
$(B)/man/gpuflame.1: $(B)/gpuflame $(B)/man/.docdir
	GPUFLAME_DOCDIR=$(DOCDIR) $(B)/gpuflame --print-man > $@.tmp && mv $@.tmp $@
$(B)/man/gpuflame-%.1: $(B)/gpuflame $(B)/man/.docdir
	GPUFLAME_DOCDIR=$(DOCDIR) $(B)/gpuflame --print-man $* > $@.tmp && mv $@.tmp $@
$(B)/completion/gpuflame.bash: $(B)/gpuflame
	@mkdir -p $(dir $@)
	$(B)/gpuflame --print-completion bash > $@.tmp && mv $@.tmp $@
$(B)/completion/_gpuflame: $(B)/gpuflame
	@mkdir -p $(dir $@)
	$(B)/gpuflame --print-completion zsh > $@.tmp && mv $@.tmp $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/gpuflame: $(CLI_OBJ) $(LIB)
	$(CC) $(LDOPT) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LIBS)

$(B)/tests/%: tests/unit/%.c tests/unit/t.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDOPT) -MMD -MP -Isrc -o $@ $< $(LIB) $(LIBS)

units: $(UNITS)

# Seed replay (the fast tier): each libFuzzer target linked by $(CC) with a
# main() that feeds it the files it is given (tests/fuzz/replay.c).
REPLAYS := $(FUZZ_SRC:tests/fuzz/%.c=$(B)/replay/%)
$(B)/replay/%: tests/fuzz/%.c tests/fuzz/replay.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDOPT) -o $@ $< tests/fuzz/replay.c $(LIB) $(LIBS)
replay: $(REPLAYS)

asan:
	$(MAKE) MODE=asan all units

deps:
	scripts/deps.sh build

# The fuzzers need clang: the library is compiled once with coverage
# instrumentation (-fsanitize=fuzzer-no-link), then each target links it.
FB          := build/fuzz$(TAG)
FUZZ_CFLAGS := $(CSTD) $(WARN) $(DEFS) -DGF_CHECKS=1 -O1 -g -fsanitize=fuzzer-no-link,address,undefined -Isrc -I$(PQINC)
FUZZ_OBJ    := $(LIB_SRC:%.c=$(FB)/obj/%.o)
fuzz: $(FUZZ_SRC:tests/fuzz/%.c=$(FB)/%)
$(FB)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@
$(FB)/libgpuflame-fuzz.a: $(FUZZ_OBJ)
	rm -f $@ && ar rcs $@ $^
$(FB)/%: tests/fuzz/%.c $(FB)/libgpuflame-fuzz.a
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FB)/libgpuflame-fuzz.a $(LIBS)

check:
	$(MAKE) MODE=asan all units replay
	tests/check.sh

test:
	scripts/deps.sh test
	$(MAKE) all
	$(MAKE) MODE=asan all units
	$(MAKE) fuzz
	tests/run.sh

# `make demo` and `make test` install nothing themselves: scripts/deps.sh
# (printed here, run first) says what it installs, or that nothing is missing.
demo:
	scripts/deps.sh build
	$(MAKE) all
	scripts/demo.sh

bench:
	$(MAKE) all
	bench/run.sh

DOCS    := README.md $(wildcard docs/*.md)
SCHEMAS := $(wildcard docs/schema/*.json)
INSTALLED := $(BINDIR)/gpuflame $(MANS:$(B)/man/%=$(MANDIR)/man1/%) $(BASHCOMPDIR)/gpuflame \
	$(ZSHCOMPDIR)/_gpuflame $(DOCS:%=$(DOCDIR)/%) $(SCHEMAS:%=$(DOCDIR)/%)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) \
	  $(DESTDIR)$(DOCDIR)/docs $(if $(SCHEMAS),$(DESTDIR)$(DOCDIR)/docs/schema)
	install -m 0755 $(INSTALL_STRIP) $(B)/gpuflame $(DESTDIR)$(BINDIR)/gpuflame
	install -m 0644 $(MANS) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(B)/completion/gpuflame.bash $(DESTDIR)$(BASHCOMPDIR)/gpuflame
	install -m 0644 $(B)/completion/_gpuflame $(DESTDIR)$(ZSHCOMPDIR)/_gpuflame
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 $(wildcard docs/*.md) $(DESTDIR)$(DOCDIR)/docs/
	$(if $(SCHEMAS),install -m 0644 $(SCHEMAS) $(DESTDIR)$(DOCDIR)/docs/schema/)

uninstall:
	rm -f $(INSTALLED:%=$(DESTDIR)%)
	-rmdir $(DESTDIR)$(DOCDIR)/docs/schema $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR) 2>/dev/null

clean:
	rm -rf build

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(UNITS:=.d) $(FUZZ_OBJ:.o=.d)
