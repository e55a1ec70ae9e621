# libFuzzer harnesses: tests/fuzz/fuzz_*.c, each linked with the library built by clang.
#   make fuzz                 run every harness for FUZZ_SECONDS (default 60) each
#   make fuzz-smoke           run every harness over its corpus + regression inputs, 10 s each (make test runs this)
FUZZ_CC := clang
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
FUZZ_LIB_OBJS := $(call obj,$(BUILD)/fuzz,$(LIB_SRCS))
FUZZ_SECONDS ?= 60
SMOKE_SECONDS ?= 10

$(BUILD)/fuzz/obj/%.o: %.c | $(TRACER_GEN)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(BASE_CFLAGS) -Wno-unused-command-line-argument $(FUZZ_FLAGS) -MMD -MP -c $< -o $@

$(BUILD)/fuzz/libtrimsim.a: $(FUZZ_LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/fuzz/%: tests/fuzz/%.c $(BUILD)/fuzz/libtrimsim.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(BASE_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(PKG_LIBS)

.PHONY: fuzz fuzz-smoke fuzz-bins
fuzz-bins: $(FUZZ_BINS)

# Corpus dirs are kept out of git (build/fuzz/corpus/X); regression inputs live in tests/fuzz/regress/X.
fuzz: fuzz-bins
	@./.ci/deps fuzz
	@set -e; for b in $(FUZZ_BINS); do n=$$(basename $$b); mkdir -p $(BUILD)/fuzz/corpus/$$n tests/fuzz/seeds/$$n tests/fuzz/regress/$$n; \
		echo "== $$n ($(FUZZ_SECONDS) s)"; \
		$$b -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -artifact_prefix=tests/fuzz/regress/$$n/ \
			$(BUILD)/fuzz/corpus/$$n tests/fuzz/seeds/$$n tests/fuzz/regress/$$n 2>&1 | grep -E 'stat::|ERROR|cov:' | tail -4; done

fuzz-smoke: fuzz-bins
	@set -e; for b in $(FUZZ_BINS); do n=$$(basename $$b); mkdir -p $(BUILD)/fuzz/corpus/$$n tests/fuzz/seeds/$$n tests/fuzz/regress/$$n; \
		echo "== fuzz smoke $$n ($(SMOKE_SECONDS) s)"; \
		$$b -max_total_time=$(SMOKE_SECONDS) $(BUILD)/fuzz/corpus/$$n tests/fuzz/seeds/$$n tests/fuzz/regress/$$n >$(BUILD)/fuzz/$$n.log 2>&1 \
			|| { tail -40 $(BUILD)/fuzz/$$n.log; exit 1; }; done
