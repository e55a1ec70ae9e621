# trimsim — build, test, demo, bench.
#
#   make          build build/trimsim (checks packages; installs them as root)
#   make test     every Criterion suite under ASan+UBSan, live tests as root
#   make demo     the bundled corpus through the presets, report in out/
#   make bench    benchmarks (BENCHMARKS.md)
#
# Modules add rules in their own <dir>/*.mk fragments (the BPF skeleton lives
# in tracer/tracer.mk); sources are found by directory, so adding a .c file
# to traces/, models/, replay/ or tracer/ needs no edit here.

VERSION := 0.1.0
BUILD ?= build
CC ?= gcc
PKGS := jansson libbpf libtraceevent libtracefs libtracecmd liburing
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lelf -lz -lm -lpthread

WARN := -Wall -Wextra -Werror -Wno-missing-field-initializers
BASE_CFLAGS := -std=gnu11 -D_GNU_SOURCE -DTRIMSIM_VERSION='"$(VERSION)"' $(WARN) $(PKG_CFLAGS) -I. -I$(BUILD)
CFLAGS ?= -O2 -g
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SAN_CFLAGS := -O1 -g $(SAN_FLAGS)

# Library: everything that builds and tests without clang, bpftool or root.
LIB_DIRS := traces traces/import traces/export models replay replay/engine replay/policies replay/report replay/targets
LIB_SRCS := $(filter-out replay/main.c,$(wildcard $(addsuffix /*.c,$(LIB_DIRS))))
# Tracer: user side of the recorder (its BPF object is built by tracer/tracer.mk).
TRACER_SRCS := $(filter-out %.bpf.c,$(wildcard tracer/*.c))
MAIN_SRC := replay/main.c

TEST_COMMON := $(wildcard tests/common/*.c)
TEST_SRCS := $(wildcard tests/*/test_*.c)
UNIT_TEST_SRCS := $(filter-out tests/live/%,$(TEST_SRCS))
LIVE_TEST_SRCS := $(filter tests/live/%,$(TEST_SRCS))

obj = $(patsubst %.c,$(1)/obj/%.o,$(2))

LIB_OBJS := $(call obj,$(BUILD),$(LIB_SRCS))
TRACER_OBJS := $(call obj,$(BUILD),$(TRACER_SRCS))
SAN_LIB_OBJS := $(call obj,$(BUILD)/san,$(LIB_SRCS))
SAN_TRACER_OBJS := $(call obj,$(BUILD)/san,$(TRACER_SRCS))
SAN_TEST_COMMON := $(call obj,$(BUILD)/san,$(TEST_COMMON))
UNIT_TESTS := $(patsubst %.c,$(BUILD)/san/%,$(UNIT_TEST_SRCS))
LIVE_TESTS := $(patsubst %.c,$(BUILD)/san/%,$(LIVE_TEST_SRCS))

# Generated headers (BPF skeleton, vmlinux.h) that tracer objects wait for.
TRACER_GEN :=
# Extra files a module wants built with `make`.
EXTRA_BINS :=

.PHONY: all build deps deps-test test unit live demo bench fuzz clean
# The packages come first, then a second make that builds: this make's PKG_CFLAGS were read
# before the install (empty on a fresh machine), and under -j a build rule would race the
# install (bpftool not found yet).
all: deps
	@$(MAKE) --no-print-directory build
build: $(BUILD)/trimsim $(BUILD)/san/trimsim-built

-include $(sort $(wildcard */*.mk tests/*/*.mk))

deps:
	@./.ci/deps build
deps-test:
	@./.ci/deps test

$(BUILD)/obj/%.o: %.c | $(TRACER_GEN)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/san/obj/%.o: %.c | $(TRACER_GEN)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(SAN_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libtrimsim.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/san/libtrimsim.a: $(SAN_LIB_OBJS)
	@mkdir -p $(dir $@)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/trimsim: $(call obj,$(BUILD),$(MAIN_SRC)) $(TRACER_OBJS) $(BUILD)/libtrimsim.a
	$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(BUILD)/libtrimsim.a $(PKG_LIBS)

# The sanitized binary the tests run (tests find it through $TRIMSIM).
$(BUILD)/san/trimsim: $(call obj,$(BUILD)/san,$(MAIN_SRC)) $(SAN_TRACER_OBJS) $(BUILD)/san/libtrimsim.a
	$(CC) $(SAN_CFLAGS) -o $@ $(filter %.o,$^) $(BUILD)/san/libtrimsim.a $(PKG_LIBS)
$(BUILD)/san/trimsim-built: $(BUILD)/san/trimsim
	@touch $@

$(BUILD)/san/tests/%: tests/%.c $(SAN_TEST_COMMON) $(BUILD)/san/libtrimsim.a $(SAN_TRACER_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(SAN_CFLAGS) -MMD -MP -MF $@.d -MT $@ -o $@ $(filter-out %.h,$^) $(PKG_LIBS) -lcriterion

TEST_ENV := TRIMSIM=$(abspath $(BUILD)/san/trimsim) TRIMSIM_PLAIN=$(abspath $(BUILD)/trimsim) \
	TRIMSIM_SRC=$(abspath .) TRIMSIM_BUILD=$(abspath $(BUILD)) \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# Unit suites run in parallel inside Criterion; live suites one test at a time, beside the unit
# suites (tests/run.sh runs them in a second lane: they mostly wait on devices).
test: deps-test
	@$(MAKE) --no-print-directory -j$$(nproc) build $(UNIT_TESTS) $(LIVE_TESTS) $(EXTRA_BINS)
	@$(TEST_ENV) tests/run.sh $(UNIT_TESTS) $(LIVE_TESTS)

unit: deps-test
	@$(MAKE) --no-print-directory build $(UNIT_TESTS) $(EXTRA_BINS)
	@$(TEST_ENV) tests/run.sh $(UNIT_TESTS)

live: deps-test
	@$(MAKE) --no-print-directory build $(LIVE_TESTS) $(EXTRA_BINS)
	@$(TEST_ENV) tests/run.sh $(LIVE_TESTS)

demo: deps
	@$(MAKE) --no-print-directory -j$$(nproc) $(BUILD)/trimsim
	@rm -rf out
	@TRIMSIM=$(abspath $(BUILD)/trimsim) ./replay/report/demo.sh out

clean:
	rm -rf $(BUILD) out

.SECONDARY:
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
