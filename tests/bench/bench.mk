# make bench: optimized binaries, generated inputs, figures (tests/bench/bench.sh, BENCHMARKS.md).
BENCH_BINS := $(BUILD)/bench/gen_trace $(BUILD)/bench/bench_read

$(BUILD)/bench/%: tests/bench/%.c $(BUILD)/libtrimsim.a
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -O2 -g -o $@ $^ $(PKG_LIBS)

.PHONY: bench
bench:
	@./.ci/deps bench
	@$(MAKE) --no-print-directory -j$$(nproc) $(BUILD)/trimsim $(BENCH_BINS)
	@BUILD=$(abspath $(BUILD)) tests/bench/bench.sh
