# The command line as a storage engineer installs and reads it (issue 20): man pages
# generated from each command's --help at build time, bash completion, and
# `make install` / `make uninstall` with PREFIX and DESTDIR, like fio or blktrace:
#
#   make install PREFIX=/usr DESTDIR=/tmp/pkg
#
# The bundled device profiles are compiled into the binary (models/models.mk): there
# are no profile files to install. `make uninstall` removes every file install wrote
# (the directories above ours, like $(PREFIX)/bin, stay).

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DOCDIR ?= $(PREFIX)/share/doc/trimsim
INSTALL ?= install

# The docs a user reads beside the man pages, kept at their paths in the tree: every
# document README.md links to (tests/replay/test_cli_install.c follows its links).
DOC_FILES := README.md LICENSE BENCHMARKS.md \
	$(sort $(wildcard traces/*.md traces/corpus/*.md tracer/freebsd/*.md replay/*.md replay/*/*.md models/*.md))
MAN_STAMP := $(BUILD)/man/.stamp

.PHONY: man install uninstall
man: $(MAN_STAMP)
build: $(MAN_STAMP)

# One page per command `trimsim --help` lists, each from `trimsim CMD --help`.
$(MAN_STAMP): $(BUILD)/trimsim replay/cli/man.sh replay/cli/man.awk
	replay/cli/man.sh $(BUILD)/trimsim $(BUILD)/man $(VERSION)
	@touch $@

install: $(BUILD)/trimsim $(MAN_STAMP)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	$(INSTALL) -m 755 $(BUILD)/trimsim $(DESTDIR)$(BINDIR)/trimsim
	$(INSTALL) -m 644 $(BUILD)/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 replay/cli/trimsim.bash $(DESTDIR)$(BASHCOMPDIR)/trimsim
	for f in $(DOC_FILES); do $(INSTALL) -D -m 644 $$f $(DESTDIR)$(DOCDIR)/$$f || exit 1; done

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/trimsim $(DESTDIR)$(MANDIR)/man1/trimsim.1 $(DESTDIR)$(MANDIR)/man1/trimsim-*.1
	rm -f $(DESTDIR)$(BASHCOMPDIR)/trimsim
	rm -rf $(DESTDIR)$(DOCDIR)
