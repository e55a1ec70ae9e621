# replay/: the subcommands defined here (cmd_replay, cmd_policies) replace the weak
# "not built yet" stubs in replay/main.c. A static archive member is only pulled in
# for an undefined symbol, and main.o already defines the weak stubs, so ask the
# linker for an anchor symbol in each command's object.
PKG_LIBS += -Wl,-u,trimsim_cmd_replay_anchor -Wl,-u,trimsim_cmd_policies_anchor
