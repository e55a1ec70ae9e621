# Model throughput benchmark (not a test: it measures wall-clock speed).
#   build/bench/model_bench [EVENTS] [SPEC...]
# Built by `make test` (EXTRA_BINS) and `make bench` (BENCH_BINS, tests/bench/bench.mk).
$(BUILD)/bench/model_bench: tests/models/bench_models.c $(BUILD)/libtrimsim.a
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -o $@ $^ $(PKG_LIBS)

EXTRA_BINS += $(BUILD)/bench/model_bench
BENCH_BINS += $(BUILD)/bench/model_bench
