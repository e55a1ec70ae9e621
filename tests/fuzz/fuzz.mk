# libFuzzer harnesses: tests/fuzz/fuzz_*.c, each linked with the library built by clang
# (-fsanitize=fuzzer-no-link plus ASan/UBSan). tests/fuzz/README.md lists them and their runs.
# Mutation is structure-aware (tests/fuzz/fuzz_mutate*.h, LLVMFuzzerCustomMutator): a trace
# keeps its record count and checksum right, so inputs get past the reader into the policies;
# TRIMSIM_FUZZ_RAW=1 in the environment gives libFuzzer's byte mutation alone.
#   make fuzz          run every harness for FUZZ_SECONDS (default 60) each, one after another,
#                      and print executions and coverage per harness
#   make fuzz-smoke    SMOKE_SECONDS (default 10) of each over seeds + regression inputs
#   make test          runs the smoke too, as the Criterion suite tests/reliab/test_fuzz_smoke.c
#                      (so its result is counted in the closing "tests: ..." line)
# Corpora grow in build/fuzz/corpus/NAME (not in git). Seeds: tests/fuzz/seeds/NAME.
# Extra libFuzzer flags for one harness: tests/fuzz/NAME.options (one line).
# A crash is written to tests/fuzz/regress/NAME/; once fixed it stays there as a regression input.
#   make fuzz FUZZ_SAN=ubsan        the fast flavour (opt-in): UBSan alone, no ASan/LSan, built in
#                                   $(BUILD)/fuzz-ubsan; same corpus. It misses heap overflows that do
#                                   not fault and leaks, so replay its corpus under ASan afterwards:
#   make fuzz-check                 every input of every corpus and regress/ once through the
#                                   ASan+UBSan harnesses (-runs=0)
FUZZ_CC := clang
FUZZ_SAN ?= asan
ifeq ($(FUZZ_SAN),ubsan)
FUZZ_DIR := $(BUILD)/fuzz-ubsan
FUZZ_FLAGS := -g -O2 -fsanitize=fuzzer-no-link,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
else ifeq ($(FUZZ_SAN),asan)
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
else
$(error FUZZ_SAN=$(FUZZ_SAN): asan (default) or ubsan)
endif
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(FUZZ_DIR)/%,$(FUZZ_SRCS))
FUZZ_LIB_OBJS := $(call obj,$(FUZZ_DIR),$(LIB_SRCS)) $(FUZZ_DIR)/obj/gen/model_profiles.o
FUZZ_SECONDS ?= 60
SMOKE_SECONDS ?= 10
# -timeout: an input that takes 10 s is a hang worth a regression file.
FUZZ_RUN_FLAGS := -timeout=10 -rss_limit_mb=2048 -print_final_stats=1

$(FUZZ_DIR)/obj/%.o: %.c | $(TRACER_GEN)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(BASE_CFLAGS) -Wno-unused-command-line-argument $(FUZZ_FLAGS) -MMD -MP -c $< -o $@

# The bundled device profiles (models/models.mk generates the C file).
$(FUZZ_DIR)/obj/gen/model_profiles.o: $(MODEL_GEN_C) models/model_int.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(BASE_CFLAGS) $(FUZZ_FLAGS) -c $< -o $@

$(FUZZ_DIR)/libtrimsim.a: $(FUZZ_LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_DIR)/%: tests/fuzz/%.c tests/fuzz/fuzz_util.h tests/fuzz/fuzz_mutate.h tests/fuzz/fuzz_mutate_import.h \
		 tests/fuzz/fuzz_mutate_tracecmd.h \
		 $(FUZZ_DIR)/libtrimsim.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(BASE_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $(filter %.c %.a,$^) $(PKG_LIBS)

$(FUZZ_DIR)/fuzz_import_%: tests/fuzz/fuzz_import.h

# make test builds the harnesses for the smoke suite.
EXTRA_BINS += $(FUZZ_BINS)

.PHONY: fuzz fuzz-smoke fuzz-bins fuzz-check
# The packages first (clang's fuzzer runtime), then a make that builds with them.
fuzz-bins:
	@./.ci/deps fuzz
	@$(MAKE) --no-print-directory $(FUZZ_BINS)

# One line per harness: executions, coverage (edges), features, corpus size, crash files.
fuzz: fuzz-bins
	@st=0; for b in $(FUZZ_BINS); do n=$$(basename $$b); \
		mkdir -p $(BUILD)/fuzz/corpus/$$n tests/fuzz/seeds/$$n tests/fuzz/regress/$$n; \
		echo "== $$n ($(FUZZ_SECONDS) s)"; \
		$$b -max_total_time=$(FUZZ_SECONDS) $(FUZZ_RUN_FLAGS) $$(cat tests/fuzz/$$n.options 2>/dev/null) -artifact_prefix=tests/fuzz/regress/$$n/ \
			$(BUILD)/fuzz/corpus/$$n tests/fuzz/seeds/$$n tests/fuzz/regress/$$n >$(FUZZ_DIR)/$$n.log 2>&1 || st=1; \
		tests/fuzz/summary.sh $$n $(FUZZ_DIR)/$$n.log; done; exit $$st

fuzz-smoke: fuzz-bins
	@st=0; for b in $(FUZZ_BINS); do n=$$(basename $$b); mkdir -p tests/fuzz/seeds/$$n tests/fuzz/regress/$$n $(BUILD)/fuzz/smoke/$$n; \
		$$b -max_total_time=$(SMOKE_SECONDS) $(FUZZ_RUN_FLAGS) $$(cat tests/fuzz/$$n.options 2>/dev/null) -artifact_prefix=$(BUILD)/fuzz/smoke/$$n/ \
			$(BUILD)/fuzz/smoke/$$n tests/fuzz/seeds/$$n tests/fuzz/regress/$$n >$(FUZZ_DIR)/$$n.smoke.log 2>&1 \
			|| { tail -40 $(FUZZ_DIR)/$$n.smoke.log; st=1; }; \
		tests/fuzz/summary.sh $$n $(FUZZ_DIR)/$$n.smoke.log; done; exit $$st

# Each corpus (what any flavour found) and each regress/ input once through the ASan+UBSan
# harnesses: what the fast flavour cannot see (a heap over-read that does not fault) shows here.
fuzz-check:
	@$(MAKE) --no-print-directory FUZZ_SAN=asan fuzz-bins
	@st=0; for s in $(FUZZ_SRCS); do n=$$(basename $$s .c); b=$(BUILD)/fuzz/$$n; \
		mkdir -p $(BUILD)/fuzz/corpus/$$n tests/fuzz/regress/$$n $(BUILD)/fuzz/check/$$n; \
		$$b -runs=0 $(FUZZ_RUN_FLAGS) $$(cat tests/fuzz/$$n.options 2>/dev/null) -artifact_prefix=$(BUILD)/fuzz/check/$$n/ \
			$(BUILD)/fuzz/corpus/$$n tests/fuzz/seeds/$$n tests/fuzz/regress/$$n >$(BUILD)/fuzz/$$n.check.log 2>&1 \
			|| { tail -40 $(BUILD)/fuzz/$$n.check.log; st=1; }; \
		tests/fuzz/summary.sh $$n $(BUILD)/fuzz/$$n.check.log; done; exit $$st
