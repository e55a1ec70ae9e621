# trimsim record: the BPF object and its skeleton (libbpf-tools style).
# vmlinux.h comes from the running kernel's BTF; the object is CO-RE, so it
# loads on other kernels with BTF too.

BPFTOOL ?= bpftool
BPF_CLANG ?= clang
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
BPF_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/' -e 's/riscv64/riscv/' -e 's/s390x/s390/')

TRACER_SKEL := $(BUILD)/tracer/trimsim.skel.h
TRACER_GEN += $(TRACER_SKEL)

$(BUILD)/vmlinux.h:
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp
	@mv $@.tmp $@

$(BUILD)/tracer/trimsim.bpf.o: tracer/trimsim.bpf.c tracer/record.h tracer/core_fixes.bpf.h $(BUILD)/vmlinux.h
	@mkdir -p $(dir $@)
	$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Werror \
		-I$(BUILD) -I. -c $< -o $@

$(TRACER_SKEL): $(BUILD)/tracer/trimsim.bpf.o
	$(BPFTOOL) gen skeleton $< name trimsim_bpf > $@.tmp
	@mv $@.tmp $@

# Test binaries link the library before the tracer objects; the tracer objects
# need the trace writer from it, so name the library once more after them.
$(BUILD)/san/tests/%: PKG_LIBS += $(BUILD)/san/libtrimsim.a
