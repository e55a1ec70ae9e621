# traces/: the trimsim subcommands defined here (cmd_info, cmd_convert) replace
# the weak "not built yet" stubs in replay/main.c. A static archive member is
# only pulled in for an undefined symbol, and main.o already defines the weak
# stubs, so ask the linker for an anchor symbol in each command's object.
PKG_LIBS += -Wl,-u,ts_cmd_info_anchor -Wl,-u,ts_cmd_convert_anchor
