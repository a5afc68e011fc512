# gpuflame — build, test, fuzz, bench, install.
#
#   make            release build: build/rel/gpuflame
#   make demo       build, then render the embedded demo inputs (see README)
#   make test       install test dependencies, build with ASan+UBSan, run every test
#   make fuzz       build the libFuzzer targets (clang)
#   make bench      run the benchmarks under bench/ (slow; not part of test)
#   make install    PREFIX=/usr/local DESTDIR=
#
# Sources are found by wildcard: a new src/<layer>/*.c, tests/unit/test_*.c or
# tests/fuzz/fuzz_*.c needs no edit here.

CC      ?= cc
PREFIX  ?= /usr/local
MODE    ?= rel
TAG     ?=
B       := build/$(MODE)$(TAG)

PQINC   := $(shell pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)
ISAL    := $(shell test -f /usr/include/isa-l/igzip_lib.h && echo 1)
DEFS    := -D_GNU_SOURCE $(if $(ISAL),-DGF_HAVE_ISAL=1)
LIBS    := -lzstd -lz -lm -lpthread -lsqlite3 -lpq $(if $(ISAL),-lisal)
WARN    := -Wall -Wextra -Werror -Wno-unused-parameter
CSTD    := -std=c11

ifeq ($(MODE),asan)
OPT     := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDOPT   := -fsanitize=address,undefined
else
OPT     := -O2 -g
LDOPT   :=
endif

CFLAGS_ALL := $(CSTD) $(WARN) $(DEFS) -Isrc -I$(PQINC) $(OPT) $(CFLAGS)
LAYERS  := base input stacks stacks/ops stacks/render stacks/export trace/read trace/model trace/analysis trace/write store
LIB_SRC := $(foreach l,$(LAYERS),$(wildcard src/$(l)/*.c))
CLI_SRC := $(wildcard src/cli/*.c)
UNIT_SRC:= $(wildcard tests/unit/test_*.c)
FUZZ_SRC:= $(wildcard tests/fuzz/fuzz_*.c)

LIB_OBJ := $(LIB_SRC:%.c=$(B)/obj/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(B)/obj/%.o)
UNITS   := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
LIB     := $(B)/libgpuflame.a

.PHONY: all units asan test demo fuzz bench install clean deps
all: $(B)/gpuflame

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/gpuflame: $(CLI_OBJ) $(LIB)
	$(CC) $(LDOPT) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LIBS)

$(B)/tests/%: tests/unit/%.c tests/unit/t.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDOPT) -MMD -MP -Isrc -o $@ $< $(LIB) $(LIBS)

units: $(UNITS)

asan:
	$(MAKE) MODE=asan all units

deps:
	scripts/deps.sh build

# The fuzzers need clang: the library is compiled once with coverage
# instrumentation (-fsanitize=fuzzer-no-link), then each target links it.
FB          := build/fuzz$(TAG)
FUZZ_CFLAGS := $(CSTD) $(WARN) $(DEFS) -O1 -g -fsanitize=fuzzer-no-link,address,undefined -Isrc -I$(PQINC)
FUZZ_OBJ    := $(LIB_SRC:%.c=$(FB)/obj/%.o)
fuzz: $(FUZZ_SRC:tests/fuzz/%.c=$(FB)/%)
$(FB)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@
$(FB)/libgpuflame-fuzz.a: $(FUZZ_OBJ)
	rm -f $@ && ar rcs $@ $^
$(FB)/%: tests/fuzz/%.c $(FB)/libgpuflame-fuzz.a
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FB)/libgpuflame-fuzz.a $(LIBS)

test:
	scripts/deps.sh test
	$(MAKE) all
	$(MAKE) MODE=asan all units
	$(MAKE) fuzz
	tests/run.sh

demo:
	scripts/deps.sh build
	$(MAKE) all
	scripts/demo.sh

bench:
	$(MAKE) all
	bench/run.sh

install: $(B)/gpuflame
	install -D -m 0755 $(B)/gpuflame $(DESTDIR)$(PREFIX)/bin/gpuflame
	install -D -m 0644 docs/gpuflame.1 $(DESTDIR)$(PREFIX)/share/man/man1/gpuflame.1

clean:
	rm -rf build

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(UNITS:=.d) $(FUZZ_OBJ:.o=.d)
