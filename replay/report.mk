# replay/report (this fragment sits in replay/ because the Makefile includes */*.mk):
# "not built yet" stub in replay/main.c. A static archive member is only pulled
# in for an undefined symbol, and main.o already defines the weak stub, so ask
# the linker for an anchor symbol in the command's object.
PKG_LIBS += -Wl,-u,report_cmd_compare_anchor
