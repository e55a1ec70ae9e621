# replay/report (this fragment sits in replay/ because the Makefile includes */*.mk).
# runcell.c builds against the replay engine only when replay/engine/engine.h exists
# (__has_include); make its object depend on that header once it appears, so an
# incremental build after the engine lands does not keep the engine-less object.
$(BUILD)/obj/replay/report/runcell.o $(BUILD)/san/obj/replay/report/runcell.o: $(wildcard replay/engine/engine.h)
