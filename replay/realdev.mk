# replay/targets/ (the device and file targets): `trimsim calibrate` (cmd_calibrate.c) replaces the weak
# "not built yet" stub in replay/main.c. An archive member is only pulled in
# for an undefined symbol and main.o already defines the weak stub, so ask the
# linker for an anchor symbol that only cmd_calibrate.o defines.
PKG_LIBS += -Wl,-u,rd_cmd_calibrate_anchor
