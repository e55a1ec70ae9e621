# Live-test helpers: slowfs, the FUSE filesystem whose fallocate sleeps
# (a loop device over a file on it has slow discards).
SLOWFS := $(BUILD)/slowfs
EXTRA_BINS += $(SLOWFS)

$(SLOWFS): tests/live/slowfs.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $$(pkg-config --cflags fuse3) -o $@ $< $$(pkg-config --libs fuse3)

