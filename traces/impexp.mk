# traces/import and traces/export: `trimsim import` and `trimsim export` replace the weak
# "not built yet" stubs of replay/main.c. Archive members are pulled in only for undefined
# symbols, so the link asks for an anchor in each command's object.
PKG_LIBS += -Wl,-u,ts_cmd_import_anchor -Wl,-u,ts_cmd_export_anchor
