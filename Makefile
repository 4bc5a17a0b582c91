# SPDX-License-Identifier: MIT
# latscope - plain Makefile.  `make help` lists the targets.
#
# Variables: BUILD (output dir, default build), SAN=1 (ASan+UBSan build),
# CC, EXTRA_CFLAGS, PKG_CONFIG, V=1 (show commands), PREFIX/DESTDIR.

BUILD      ?= build
CC         ?= gcc
PKG_CONFIG ?= pkg-config
PREFIX     ?= /usr/local
VERSION    := 0.1.0

PKGS       := libtraceevent libtracefs libzstd json-c libmicrohttpd libelf
TEST_PKGS  := cmocka

ifeq ($(V),1)
Q :=
else
Q := @
endif
# make -s: not a word on success (no "  CC" lines, no optional-package note)
SILENT := $(if $(findstring s,$(firstword -$(MAKEFLAGS))),1,0)
QE     := $(if $(filter 1,$(SILENT)),,$(Q))

PKG_CFLAGS  = $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
TEST_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(TEST_PKGS) 2>/dev/null)
TEST_LIBS   = $(shell $(PKG_CONFIG) --libs $(TEST_PKGS) 2>/dev/null)

WARN    := -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wformat=2 -Wno-format-nonliteral
OPT     ?= -O2
CFLAGS  := -std=gnu11 $(OPT) -g $(WARN) -D_GNU_SOURCE -DLATSCOPE_VERSION='"$(VERSION)"' \
           -Ilib -Isrc -fno-strict-aliasing -DLATSCOPE_FORMATS_DIR='"$(CURDIR)/tests/data/formats"' \
           $(EXTRA_CFLAGS)
LDLIBS  := -lpthread -lm -lstdc++  # libstdc++: __cxa_demangle (lib/format/elfsym.c)

ifeq ($(SAN),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif

# The bpf histogram backend (lib/live/bpfhist.c, docs/hist.md "Backends"):
# lib/live/bpf/bpfhist.bpf.c compiled by clang -target bpf against a
# vmlinux.h that bpftool dumps at build time from the build machine's kernel
# BTF (BTF_VMLINUX), then `bpftool gen skeleton` (the object is embedded in
# the binary: no compiler at run time; CO-RE relocates it on the kernel it
# runs on).  Where libbpf-dev, clang, bpftool or BTF_VMLINUX is missing (a
# kernel without CONFIG_DEBUG_INFO_BTF has no /sys/kernel/btf/vmlinux), or
# with BPF=0, lib/live/bpfhist_none.c is built instead: the backend is
# compiled out, `hist --backend bpf` says why (BPF_WHY) and everything else
# builds and works.
BTF_VMLINUX ?= /sys/kernel/btf/vmlinux
# (scripts/cross.sh: -fms-extensions, for the BTF of kernels built with it
# since 6.19, whose vmlinux.h embeds tagged structs without a member name)
BPF_EXTRA_CFLAGS ?=
BPF_CLANG   ?= clang
BPFTOOL     ?= $(or $(shell command -v bpftool 2>/dev/null),$(wildcard /usr/sbin/bpftool))
ifeq ($(BPF),0)
BPF_WHY := BPF=0 given to make
else
BPF_WHY := $(shell \
	if ! $(PKG_CONFIG) --exists libbpf 2>/dev/null; then echo "libbpf not found by pkg-config (Debian: libbpf-dev)"; \
	elif ! command -v $(BPF_CLANG) >/dev/null 2>&1; then echo "$(BPF_CLANG) not found (Debian: clang)"; \
	elif [ -z "$(BPFTOOL)" ]; then echo "bpftool not found (Debian: bpftool)"; \
	elif [ ! -r $(BTF_VMLINUX) ]; then echo "$(BTF_VMLINUX) absent: the build kernel has no BTF to make vmlinux.h from"; fi)
endif
BPF_DIR   := $(BUILD)/bpf
BPF_SKEL  := $(BPF_DIR)/bpfhist.skel.h
ifeq ($(BPF_WHY),)
PKGS      += libbpf
BPF_SKIP   := lib/live/bpfhist_none.c lib/live/osnbpf_none.c lib/live/tlatbpf_none.c
else
BPF_SKIP   := lib/live/bpfhist.c lib/live/osnbpf.c lib/live/bpfload.c lib/live/tlatbpf.c
endif

LIB_SRCS  := $(filter-out $(BPF_SKIP),$(sort $(shell find lib -name '*.c' ! -name '*.bpf.c')))
SRC_SRCS  := $(wildcard src/*.c src/*/*.c)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
FUZZ_SRCS := $(wildcard fuzz/fuzz_*.c)
TOOL_SRCS := $(wildcard tests/tools/*.c)

LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o)
SRC_OBJS  := $(SRC_SRCS:%.c=$(BUILD)/%.o)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_BINS := $(TOOL_SRCS:tests/tools/%.c=$(BUILD)/tests/tools/%)
REPLAY_BINS := $(FUZZ_SRCS:fuzz/%.c=$(BUILD)/fuzz-replay/%)
LIBA      := $(BUILD)/liblatscope.a
BIN       := $(BUILD)/latscope
COMPLETION := $(BUILD)/latscope.bash

.SECONDARY:

.PHONY: demo all deps completion uninstall deb check-deb check-html-large check check-inner unit unit-run shell-tests san-unit fuzz fuzz-build \
        fuzz-replay fuzz-replay-run cross-ppc64el cross-extras check-power power-dtl-kernel kernel-pirq check-repeat check-kernels bench clean install help man

# Plain make never installs anything: when a build dependency is missing,
# the build stops with one line naming the packages and `make deps`
# (scripts/deps.sh check; the optional ones are named on stderr, unless -s).
# The targets that install what they need first (make deps, check, demo) or
# build nothing skip the check, as do sub-makes.
NO_DEPCHECK := cross-ppc64el check-power power-dtl-kernel kernel-pirq deps demo check check-inner check-kernels check-repeat fuzz fuzz-build bench clean \
	       help man uninstall deb check-deb san-unit fuzz-replay
ifeq ($(MAKELEVEL)$(filter $(NO_DEPCHECK),$(MAKECMDGOALS)),0)
DEPS_MISSING := $(shell QUIET=$(SILENT) PKG_CONFIG=$(PKG_CONFIG) sh scripts/deps.sh check \
		  $(if $(filter-out install,$(MAKECMDGOALS)),,$(if $(MAKECMDGOALS),notest)))
ifneq ($(DEPS_MISSING),)
$(error $(DEPS_MISSING))
endif
endif

all: $(BIN) $(COMPLETION) $(UNIT_BINS) $(TOOL_BINS)

# make demo and make check install what is missing (make deps) first
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)LATSCOPE=$(BIN) sh scripts/demo.sh

help:
	@echo "make demo       install dependencies, build, and show latscope's main job on a synthetic LPAR"
	@echo "make            build build/latscope and the tests (installs nothing: names what is missing)"
	@echo "make deps       check/install build dependencies and test tools (apt-get as root)"
	@echo "make check      unit tests, golden and end-to-end tests, unit tests and fuzz corpora under ASan+UBSan,"
	@echo "                the ppc64el build with the golden tests under qemu-user, the POWER tier, then the kernel tier"
	@echo "make cross-ppc64el   latscope for ppc64el in build-ppc64el/ (Debian's cross toolchain, docs/power.md)"
	@echo "make check-power     boot Debian's ppc64el kernels in a pseries guest under a QEMU that writes DTL entries (docs/power.md)"
	@echo "make power-dtl-kernel  build the POWER tier's CONFIG_DTL guest kernel once (about 17 minutes; its debugfs DTL boot)"
	@echo "make kernel-pirq     build the kernel tier's preemptirq-tracepoint guest kernel once (about 40 minutes; its pirq boot)"
	@echo "make check-kernels   boot Debian's RT and generic kernels (and the pirq kernel, once built) in QEMU and run tests/kernels/guest/ there"
	@echo "make check-repeat N=5   the golden+e2e tier N times, then under a CPU hog and under a bursty load: pass rate per test"
	@echo "make fuzz       build the libFuzzer targets and run each (FUZZ_SECONDS=600)"
	@echo "make bench      benchmarks side by side with perf/oslat/cyclictest (bench/)"
	@echo "make install    install latscope, man pages, bash completion, the monitor's systemd unit"
	@echo "                and docs under PREFIX (/usr/local), DESTDIR for staging; make uninstall"
	@echo "make deb        build the Debian package (../latscope_*.deb) with dpkg-buildpackage"
	@echo "make check-deb  build the .deb from a clean clone of HEAD, install it in a Debian 12 chroot"
	@echo "make check-html-large   the DTL page of 20+ million entries: under 5 MB, worst events kept"

deps:
	$(Q)sh scripts/deps.sh

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(QE),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/unit/%.o: tests/unit/%.c
	@mkdir -p $(dir $@)
	@$(if $(QE),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) $(TEST_CFLAGS) -MMD -MP -c -o $@ $<

$(BPF_DIR)/vmlinux.h:
	@mkdir -p $(dir $@)
	@$(if $(QE),echo "  BTF     $@")
	$(Q)$(BPFTOOL) btf dump file $(BTF_VMLINUX) format c > $@.tmp && mv $@.tmp $@

$(BPF_DIR)/bpfhist.bpf.o: lib/live/bpf/bpfhist.bpf.c lib/live/bpf/bpfhist_abi.h $(BPF_DIR)/vmlinux.h
	@$(if $(QE),echo "  BPF     $<")
	$(Q)$(BPF_CLANG) -target bpf -g -O2 -Wall -Werror $(BPF_EXTRA_CFLAGS) -I$(BPF_DIR) -Ilib -c -o $@ $<

$(BPF_SKEL): $(BPF_DIR)/bpfhist.bpf.o
	@$(if $(QE),echo "  SKEL    $@")
	$(Q)$(BPFTOOL) gen skeleton $< name bpfhist_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/lib/live/bpfhist.o: CFLAGS += -I$(BPF_DIR)
$(BUILD)/lib/live/bpfhist.o: $(BPF_SKEL)
$(BUILD)/lib/live/bpfhist_none.o: CFLAGS += -DBPFHIST_WHY='"$(BPF_WHY)"'
# drives the preemptirq programs through BPF_PROG_TEST_RUN (tests/e2e/hist_bpf_irqsoff.sh)
$(BUILD)/tests/tools/bpfpoff: CFLAGS += -I$(BPF_DIR)
ifeq ($(BPF_WHY),)
$(BUILD)/tests/tools/bpfpoff: $(BPF_SKEL)
endif

# The osnoise bpf backend (lib/live/osnbpf.c, docs/osnoise.md "Backends"),
# built like bpfhist's; without BPF, lib/live/osnbpf_none.c.
$(BPF_DIR)/osnbpf.bpf.o: lib/live/bpf/osnbpf.bpf.c lib/live/bpf/osnbpf_abi.h $(BPF_DIR)/vmlinux.h
	@$(if $(QE),echo "  BPF     $<")
	$(Q)$(BPF_CLANG) -target bpf -g -O2 -Wall -Werror $(BPF_EXTRA_CFLAGS) -I$(BPF_DIR) -Ilib -c -o $@ $<

$(BPF_DIR)/osnbpf.skel.h: $(BPF_DIR)/osnbpf.bpf.o
	@$(if $(QE),echo "  SKEL    $@")
	$(Q)$(BPFTOOL) gen skeleton $< name osnbpf_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/lib/live/osnbpf.o: CFLAGS += -I$(BPF_DIR)
$(BUILD)/lib/live/osnbpf.o: $(BPF_DIR)/osnbpf.skel.h

# The timerlat bpf backend (lib/live/tlatbpf.c, docs/timerlat.md "Backends"),
# built like bpfhist's; without BPF, lib/live/tlatbpf_none.c.
$(BPF_DIR)/tlatbpf.bpf.o: lib/live/bpf/tlatbpf.bpf.c lib/live/bpf/tlatbpf_abi.h $(BPF_DIR)/vmlinux.h
	@$(if $(QE),echo "  BPF     $<")
	$(Q)$(BPF_CLANG) -target bpf -g -O2 -Wall -Werror $(BPF_EXTRA_CFLAGS) -I$(BPF_DIR) -Ilib -c -o $@ $<

$(BPF_DIR)/tlatbpf.skel.h: $(BPF_DIR)/tlatbpf.bpf.o
	@$(if $(QE),echo "  SKEL    $@")
	$(Q)$(BPFTOOL) gen skeleton $< name tlatbpf_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/lib/live/tlatbpf.o: CFLAGS += -I$(BPF_DIR)
$(BUILD)/lib/live/tlatbpf.o: $(BPF_DIR)/tlatbpf.skel.h

$(LIBA): $(LIB_OBJS)
	@$(if $(QE),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(BIN): $(SRC_OBJS) $(LIBA)
	@$(if $(QE),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $(SRC_OBJS) $(LIBA) $(PKG_LIBS) $(LDLIBS)

$(BUILD)/tests/tools/%: tests/tools/%.c $(LIBA)
	@mkdir -p $(dir $@)
	@$(if $(QE),echo "  TOOL    $<")
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBA) $(PKG_LIBS) $(LDLIBS)

# A fuzz target with fuzz/replay.c as its main (no libFuzzer, any compiler).
$(BUILD)/fuzz-replay/%: fuzz/%.c fuzz/replay.c $(LIBA)
	@mkdir -p $(dir $@)
	@$(if $(QE),echo "  REPLAY  $<")
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) $(LDFLAGS) -o $@ $< fuzz/replay.c $(LIBA) $(PKG_LIBS) $(LDLIBS)

# src/ modules the unit tests reach (pure functions of their arguments)
UNIT_SRC_OBJS := $(BUILD)/src/cli.o $(BUILD)/src/progress.o

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(UNIT_SRC_OBJS) $(LIBA)
	@$(if $(QE),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(UNIT_SRC_OBJS) $(LIBA) $(PKG_LIBS) $(TEST_LIBS) $(LDLIBS)

# The live loop's arithmetic and exit statuses (src/tool.c, over src/cmdio.c).
$(BUILD)/tests/test_tool: $(BUILD)/tests/unit/test_tool.o $(BUILD)/src/tool.o $(BUILD)/src/cmdio.o $(LIBA)
	@$(if $(QE),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(BUILD)/src/tool.o $(BUILD)/src/cmdio.o $(LIBA) $(PKG_LIBS) $(TEST_LIBS) $(LDLIBS)

# The --on-threshold / --on-end actions (src/action.c).
$(BUILD)/tests/test_action: $(BUILD)/tests/unit/test_action.o $(BUILD)/src/action.o $(LIBA)
	@$(if $(QE),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(BUILD)/src/action.o $(LIBA) $(PKG_LIBS) $(TEST_LIBS) $(LDLIBS)

# The stop signals (src/cmdio.c).
$(BUILD)/tests/test_cmdio: $(BUILD)/tests/unit/test_cmdio.o $(BUILD)/src/cmdio.o $(LIBA)
	@$(if $(QE),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(BUILD)/src/cmdio.o $(LIBA) $(PKG_LIBS) $(TEST_LIBS) $(LDLIBS)

# The option tables live in the commands: this test links them (not main.o).
CMD_OBJS := $(filter-out $(BUILD)/src/main.o,$(SRC_OBJS))
$(BUILD)/tests/test_cli_tables: $(BUILD)/tests/unit/test_cli_tables.o $(CMD_OBJS) $(LIBA)
	@$(if $(QE),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(CMD_OBJS) $(LIBA) $(PKG_LIBS) $(TEST_LIBS) $(LDLIBS)

unit-run: $(UNIT_BINS)
	$(Q)sh tests/run-unit.sh $(UNIT_BINS)

fuzz-replay-run: $(REPLAY_BINS)
	$(Q)sh fuzz/replay.sh $(BUILD)/fuzz-replay

# The whole suite: unit tests, golden + end-to-end tests against the real
# binary, then the unit tests again and every fuzz target's corpus and
# regression inputs under gcc's ASan+UBSan, the ppc64el build with the golden
# tests under qemu-user (tests/cross/run.sh), then the POWER and kernel
# tiers side by side.
check: deps
	@# the POWER tier's test hypervisor is built once (about 5 minutes):
	@# in the background from the start, beside the first tiers
	$(Q)mkdir -p $(BUILD) && (nice -n 10 sh tests/power/qemu/build.sh > $(BUILD)/qemu-dtl.log 2>&1 &)
	$(Q)$(MAKE) --no-print-directory check-inner

check-inner: $(BIN) $(UNIT_BINS) $(TOOL_BINS)
	$(Q)sh tests/run-unit.sh $(UNIT_BINS)
	$(Q)LATSCOPE=$(CURDIR)/$(BIN) TOOLS=$(CURDIR)/$(BUILD)/tests/tools sh tests/run-shell.sh
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/san SAN=1 OPT=-O1 unit-run fuzz-replay-run
	+$(Q)TOOLS=$(CURDIR)/$(BUILD)/tests/tools sh tests/cross/run.sh
	@# the POWER and kernel tiers side by side (their guests idle in many
	@# tests' waits): the POWER tier's lines when both are done
	+$(Q)sh tests/power/run.sh > $(BUILD)/power.log 2>&1 & pw=$$!; \
	LATSCOPE=$(CURDIR)/$(BIN) sh tests/kernels/run.sh; kr=$$?; \
	wait $$pw; prc=$$?; cat $(BUILD)/power.log; [ $$kr -eq 0 ] && [ $$prc -eq 0 ]

# The POWER tier alone (docs/power.md): the test hypervisor (built once into
# the cache), the ppc64el build, sid's ppc64el kernel in a pseries guest,
# tests/power/guest/*.sh there, checked against the hypervisor's log.
check-power: $(BIN)
	+$(Q)sh tests/power/run.sh

# The POWER tier's CONFIG_DTL guest kernel (the debugfs DTL; no Debian kernel
# has it): built once into the cache, about 17 minutes on 2 CPUs; the tier's
# "dtl" boot runs when it is there and says this target when not.
power-dtl-kernel:
	$(Q)sh tests/power/dtlkernel.sh build

# The kernel tier's x86_64 kernel with the preemptirq tracepoints (no Debian
# kernel has them) and the preemptirq delay test module: built once into the
# cache, about 40 minutes on 2 CPUs; the tier's "pirq" boot runs when it is
# there and says this target when not.
kernel-pirq:
	$(Q)sh tests/kernels/pirqkernel.sh build

# The kernel tier alone (docs/kernels.md): installs QEMU & co. when it can
# (scripts/deps.sh kernels), boots each kernel of tests/kernels/kernels.list
# once and runs tests/kernels/guest/*.sh there.  KERNELS=, KTESTS= select.
# The host checks run tests/tools/histsamples (rt_cyclictest) and histcmp
# (bpf_hist, rt_cyclictest_bpf); the guest runs tests/tools/wakestorm
# (hist_storm).
check-kernels: $(BIN) $(BUILD)/tests/tools/histsamples $(BUILD)/tests/tools/histcmp \
		$(BUILD)/tests/tools/wakestorm
	$(Q)LATSCOPE=$(CURDIR)/$(BIN) sh tests/kernels/run.sh

san-unit:
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/san SAN=1 OPT=-O1 unit-run

fuzz-replay:
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/san SAN=1 OPT=-O1 fuzz-replay-run

# The golden + end-to-end tier N times, then once more with a niced busy loop
# on every CPU and once beside a bursty load (tests/tools/burstload and a
# gzip loop); prints each test's pass rate (tests/check-repeat.sh).
N ?= 5
check-repeat: $(BIN) $(TOOL_BINS)
	$(Q)LATSCOPE=$(CURDIR)/$(BIN) TOOLS=$(CURDIR)/$(BUILD)/tests/tools sh tests/check-repeat.sh $(N)

# libFuzzer targets: clang, sanitizers, the library sources compiled in.
FUZZ_SECONDS ?= 600
FUZZ_CFLAGS  := -std=gnu11 -g -O1 -D_GNU_SOURCE -Ilib -fsanitize=fuzzer,address,undefined \
                -DLATSCOPE_FORMATS_DIR='"$(CURDIR)/tests/data/formats"' \
                -fno-sanitize-recover=undefined
FUZZ_LIB_SRCS := $(sort $(filter-out lib/live/bpfhist.c lib/live/osnbpf.c lib/live/bpfload.c lib/live/tlatbpf.c,$(LIB_SRCS)) \
                   lib/live/bpfhist_none.c lib/live/osnbpf_none.c lib/live/tlatbpf_none.c)
fuzz-build: deps
	$(Q)mkdir -p $(BUILD)/fuzz
	$(Q)for f in $(FUZZ_SRCS); do n=$$(basename $$f .c); \
	  echo "  FUZZ    $$n"; \
	  clang $(FUZZ_CFLAGS) $(PKG_CFLAGS) -DBPFHIST_WHY='"not in fuzz builds"' -o $(BUILD)/fuzz/$$n $$f \
	    $(FUZZ_LIB_SRCS) $(PKG_LIBS) $(LDLIBS) || exit 1; \
	done

fuzz: fuzz-build
	$(Q)sh fuzz/run.sh $(BUILD)/fuzz $(FUZZ_SECONDS)

# latscope for ppc64el (scripts/cross.sh, docs/power.md): Debian's cross
# toolchain, a sysroot of Debian 12's ppc64el -dev packages in the cache,
# the BPF objects against sid's ppc64el kernel BTF; build-ppc64el/latscope,
# the test tools and the unit tests (cross-extras, run by the sub-make).
cross-ppc64el:
	+$(Q)sh scripts/cross.sh ppc64el
cross-extras: $(TOOL_BINS) $(UNIT_BINS)

bench: all
	$(Q)LATSCOPE=$(CURDIR)/$(BIN) sh bench/run.sh

man:
	@ls docs/man/*.1

# The bash completion, generated from the option tables by the binary.
$(COMPLETION): $(BIN)
	@$(if $(QE),echo "  GEN     $@")
	$(Q)$(BIN) completion bash > $@.tmp && mv $@.tmp $@

completion: $(COMPLETION)

# make install: the product only (scripts/install.sh says what goes where).
# SPLIT_DEBUG=1 (default): the binary stripped, its debug info in
# DEBUGDIR/.build-id/; SPLIT_DEBUG=0: the binary as built (debian/rules:
# dh_strip makes the -dbgsym package).  SYSTEMD_UNIT_DIR: where the unit goes.
SPLIT_DEBUG      ?= 1
SYSTEMD_UNIT_DIR ?= $(PREFIX)/lib/systemd/system
INSTALL_ENV = DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" SPLIT_DEBUG="$(SPLIT_DEBUG)" \
	      SYSTEMD_UNIT_DIR="$(SYSTEMD_UNIT_DIR)"

install: $(BIN) $(COMPLETION)
	$(Q)$(INSTALL_ENV) sh scripts/install.sh install $(BIN) $(COMPLETION)

uninstall:
	$(Q)$(INSTALL_ENV) sh scripts/install.sh uninstall $(BIN) $(COMPLETION)

# The Debian package (debian/): ../latscope_$(VERSION)_*.deb.  Installs the
# packaging tools as root when missing (scripts/deps.sh deb); the build
# dependencies must be there (make deps).
deb:
	$(Q)sh scripts/deps.sh deb
	$(Q)dpkg-buildpackage -us -uc -b

# The .deb built from a clean clone of HEAD, installed into a Debian 12 root
# (debootstrap, cached in DEB_CACHE), checked there (tests/deb/check-deb.sh).
DEB_CACHE ?= /var/cache/latscope-check-deb
# the DTL page of tens of millions of entries (about 3 GB written to LARGE_DIR, minutes)
check-html-large: $(BIN)
	$(Q)LATSCOPE=$(CURDIR)/$(BIN) TESTS_DIR=$(CURDIR)/tests sh tests/large/html_large.sh

check-deb:
	$(Q)sh scripts/deps.sh deb check
	$(Q)DEB_CACHE=$(DEB_CACHE) sh tests/deb/check-deb.sh

clean:
	rm -rf $(BUILD) build-ppc64el

-include $(LIB_OBJS:.o=.d) $(SRC_OBJS:.o=.d) $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%.d)
