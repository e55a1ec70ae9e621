# Device models: the bundled profiles are compiled into the library so
# `trimsim` finds them from any directory (files on disk load by path).
#
# models/profiles/*.json -> $(BUILD)/gen/model_profiles.c -> one object in
# each library (plain and sanitized), so the binaries and every test link it.

MODEL_PROFILES := $(sort $(wildcard models/profiles/*.json))
MODEL_GEN_C := $(BUILD)/gen/model_profiles.c

$(MODEL_GEN_C): $(MODEL_PROFILES) models/embed.awk models/models.mk
	@mkdir -p $(dir $@)
	awk -f models/embed.awk $(MODEL_PROFILES) > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/gen/model_profiles.o: $(MODEL_GEN_C) models/model_int.h
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/san/obj/gen/model_profiles.o: $(MODEL_GEN_C) models/model_int.h
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(SAN_CFLAGS) -c $< -o $@

$(BUILD)/libtrimsim.a: $(BUILD)/obj/gen/model_profiles.o
$(BUILD)/san/libtrimsim.a: $(BUILD)/san/obj/gen/model_profiles.o
