# Model throughput benchmark (not a test: it measures wall-clock speed).
#   build/bench/model_bench [EVENTS] [SPEC...]
$(BUILD)/bench/model_bench: tests/models/bench_models.c $(BUILD)/libtrimsim.a
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -o $@ $^ $(PKG_LIBS)

EXTRA_BINS += $(BUILD)/bench/model_bench
