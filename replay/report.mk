# replay/report (this fragment sits in replay/ because the Makefile includes */*.mk):
# `trimsim compare` (replay/cmd_compare.c) replaces the weak "not built yet" stub
# in replay/main.c. A weak definition does not pull an archive member, so the
# command's object is linked directly, and the library is searched once more
# after it for what it needs. (Not -Wl,-u: with the object also on the command
# line that would pull the archive copy too.)
$(BUILD)/trimsim: $(BUILD)/obj/replay/cmd_compare.o
$(BUILD)/trimsim: PKG_LIBS += $(BUILD)/libtrimsim.a
$(BUILD)/san/trimsim: $(BUILD)/san/obj/replay/cmd_compare.o
$(BUILD)/san/trimsim: PKG_LIBS += $(BUILD)/san/libtrimsim.a
