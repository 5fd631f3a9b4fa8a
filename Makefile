# mglrulab — kernel A/B performance lab.
#
#   make            build ./mglrulab and the static guest programs
#   make check      unit tests (ASan+UBSan) and integration tests (real kernels, guests)
#   make unit       unit tests only (seconds)
#   make test-quick unit tests and the integration tests that build no kernel
#                   and boot no guest (under 5 minutes: run it on every change)
#   make check-layers  fail when a folder includes a header it must not
#   make check-style   fail when more functions are over 80 lines than allowed
#   make deps       install the Debian packages the lab needs (idempotent, root)
#   make test       deps + check (what CI runs)
#   make demo       deps + build + the bundled A/B example (scripts/demo)
#
# Every library comes through pkg-config. Sources are picked up by wildcard:
# a new lab/STAGE/*.c or common/*.c is part of mglrulab, a new
# tests/unit/test_*.c is a test (tests/unit/fixtures_*.c are helpers that
# several tests link, each named below). docs/layout.md maps the folders to the
# stages of the data flow; `make check-layers` enforces who may include whom.

VERSION  := 0.1.0
CC       ?= cc
PKGS     := libvirt libguestfs jansson inih libcrypto sqlite3
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

WARN     := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral
CFLAGS   ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -DMGLRULAB_VERSION='"$(VERSION)"' \
	     $(WARN) $(CFLAGS) $(LAB_INC) $(PKG_CFLAGS) -MMD -MP
LDLIBS   := $(PKG_LIBS) -lm

SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# Compiles go through ccache when it is installed (`make CCACHE=` turns it
# off): a clean clone (CI's) compiles 517 files, the lab's twice (plain
# and sanitized); with a warm ccache they are hits. Where its folder lives
# is ccache's own setting (CCACHE_DIR); .ci/run keeps it in the kernel
# cache, which outlives clones. Links are not cached: they are check-build's
# remaining time.
CCACHE   ?= $(shell command -v ccache 2>/dev/null)

# Host sources: one folder per stage under lab/, plus common/ (what the
# host shares with the guest programs). Headers are included by name; each
# folder is on the include path (scripts/lab-includes prints the flags).
LAB_DIRS := $(sort $(dir $(wildcard lab/*/*.c lab/*/*.h)))
LAB_INC  := $(patsubst %/,-I%,$(LAB_DIRS)) -Icommon
LAB_SRCS := $(wildcard lab/*/*.c) $(wildcard common/*.c)
LAB_OBJS := $(LAB_SRCS:%.c=build/%.o)
LIB_OBJS_SAN := $(filter-out build/san/lab/cmd/%.o,$(LAB_SRCS:%.c=build/san/%.o))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=build/tests/%)

.PHONY: check-build all check test test-quick unit integration deps clean workloads demo test-guest check-layers plugin \
	check-style
# Keep the sanitizer objects: they are intermediate to the tests, and make
# would otherwise delete them and rebuild them on every `make unit`.
.SECONDARY:
all: mglrulab workloads

mglrulab: $(LAB_OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

build/%.o: %.c
	@mkdir -p $(@D)
	$(CCACHE) $(CC) $(ALL_CFLAGS) -c -o $@ $<

build/san/%.o: %.c
	@mkdir -p $(@D)
	$(CCACHE) $(CC) $(ALL_CFLAGS) $(SAN) -c -o $@ $<

# The sanitized lab objects as an archive: a unit test links the objects it
# reaches, not all of them (build/tests went from 1.4 GB to 215 MB). A test
# is compiled to an object first (build/san/tests/unit/), so ccache has it.
LIB_SAN := build/san/liblab.a
$(LIB_SAN): $(LIB_OBJS_SAN)
	@rm -f $@
	$(AR) rcs $@ $^

build/tests/test_%: build/san/tests/unit/test_%.o $(LIB_SAN)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(SAN) -o $@ $(filter %.o,$^) $(LIB_SAN) $(LDLIBS) $(shell pkg-config --libs cmocka)

# Static guest-side programs (the guest runner and workloads). Each
# workloads/NAME.c or workloads/NAME/ *.c becomes build/guest/NAME.
WORKLOAD_SRCS := $(wildcard workloads/*.c)
WORKLOAD_BINS := $(WORKLOAD_SRCS:workloads/%.c=build/guest/%)
# Shared workload code (workloads/lib/*.c plus common/*.c, the parsers and
# contract the host shares) is an archive, so a program links only what it
# uses. Guest programs see common/ and workloads/lib/, never lab/.
WL_LIB_SRCS := $(wildcard workloads/lib/*.c) $(wildcard common/*.c)
WL_LIB_OBJS := $(WL_LIB_SRCS:%.c=build/guest/obj/%.o)
WL_LIB      := build/guest/libwl.a
WL_CFLAGS   := -std=c11 -D_GNU_SOURCE $(WARN) -O2 -pthread -Iworkloads/lib -Icommon
workloads: $(WORKLOAD_BINS)
build/guest/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CCACHE) $(CC) $(WL_CFLAGS) -MMD -MP -c -o $@ $<
$(WL_LIB): $(WL_LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^
build/guest/%: workloads/%.c $(WL_LIB)
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -static -pthread -Iworkloads/lib -Icommon -o $@ $< $(WL_LIB) -lm

# The guest runner, PID 1 of every guest (guests/runner/), static with libjansson.
GUEST_RUNNER := build/guest/mglrulab-runner
workloads: $(GUEST_RUNNER)
$(GUEST_RUNNER): guests/runner/runner.c common/cpulist.c common/cpulist.h common/guest_protocol.h \
		  common/workload_contract.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -static -Icommon -o $@ $(filter %.c,$^) -l:libjansson.a

# The attribution plugin (guests/plugin/), loaded by QEMU: its API header
# comes from Debian's qemu source package, the installed version's
# (scripts/qemu-plugin-header; the first time needs root and the archive).
PLUGIN := build/plugin/mglrulab-attr.so
# The coherence plugin (docs/coherence.md), loaded the same way in its place.
COH_PLUGIN := build/plugin/mglrulab-coh.so
PLUGIN_INC := build/plugin/include
plugin: $(PLUGIN) $(COH_PLUGIN)
$(PLUGIN_INC)/qemu-plugin.h:
	scripts/qemu-plugin-header $(PLUGIN_INC)
$(PLUGIN): guests/plugin/mglrulab_attr.c $(PLUGIN_INC)/qemu-plugin.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -fPIC -shared -pthread -I$(PLUGIN_INC) -o $@ $<
$(COH_PLUGIN): guests/plugin/mglrulab_coh.c $(PLUGIN_INC)/qemu-plugin.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -fPIC -shared -pthread -I$(PLUGIN_INC) -o $@ $<

# Test-only guest programs: tests/guest/NAME.c becomes build/tests/guest/NAME,
# never build/guest/NAME, so no lab image holds them; a test builds an image
# of its own with them (guest run --bin-dir).
TEST_GUEST_SRCS := $(wildcard tests/guest/*.c)
TEST_GUEST_BINS := $(TEST_GUEST_SRCS:tests/guest/%.c=build/tests/guest/%)
test-guest: $(TEST_GUEST_BINS)
build/tests/guest/%: tests/guest/%.c common/guest_protocol.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -static -Icommon -o $@ $<

# The guest-side JSON-line writer and median are unit-tested on the host as well.
build/tests/test_counters_jsonl: build/san/workloads/lib/jsonl.o
build/tests/test_wl_median: build/san/workloads/lib/median.o
# The report tests' shared sessions and helpers, each once (tests/unit/fixtures_report.h).
REPORT_FIXTURE_TESTS := test_report_headline test_report_render test_report_families \
	test_report_html test_report_html_runs test_report_html_screens test_report_layout \
	test_report_text_tables test_strbuf_sink \
	test_report_hosts
$(REPORT_FIXTURE_TESTS:%=build/tests/%): build/san/tests/unit/fixtures_report.o
# The field-table tests' shared helpers (tests/unit/fixtures_table.h).
build/tests/test_session_doc_table build/tests/test_result_table: build/san/tests/unit/fixtures_table.o
# A bisection's steps, each session and build what the test says (no kernel, no guest).
build/tests/test_bisect_steps: LDLIBS += -Wl,--wrap=session_main -Wl,--wrap=kbuild_kernel
# The scheduler's runs, each a record the test writes at once (no guest).
# Its records' decodings counted (issue 48: once each).
build/tests/test_session_twins: LDLIBS += -Wl,--wrap=session_run_one -Wl,--wrap=run_record_decode \
	-Wl,--wrap=run_records_decode_valid
# A look's decodings and copies counted (issue 48, step 8: the records handed decoded,
# the session's document analysed, no tree).
build/tests/test_session_seq: LDLIBS += -Wl,--wrap=run_records_decode -Wl,--wrap=json_deep_copy \
	-Wl,--wrap=json_copy
# A report's runs decoded once, by the analysis, and handed to its view (issue 48).
build/tests/test_view_runs: LDLIBS += -Wl,--wrap=run_records_decode
# A watch's steps, each build, session and bisection what the test says.
build/tests/test_watch_work: LDLIBS += -Wl,--wrap=session_main -Wl,--wrap=kbuild_kernel \
	-Wl,--wrap=bisect_main

# The unit test programs, $(JOBS) at a time (each a process of its own:
# no shared files, their temporary folders from mkdtemp), each one's
# output kept together (-O): 53 s one at a time on an idle 2-core machine,
# most of it test_stats_seq, test_subreaper and test_report_render.
UNIT_RUNS := $(UNIT_BINS:build/tests/%=unit-run/%)
unit: $(UNIT_BINS)
	@$(MAKE) --no-print-directory -O -j$(JOBS) $(UNIT_RUNS)
	@echo "unit: $(words $(UNIT_BINS)) test programs passed"
.PHONY: $(UNIT_RUNS)
$(UNIT_RUNS): unit-run/%: build/tests/%
	@echo "== $<"; $<

# What the integration tests run (check-build compiles it too).
INTEGRATION_BINS := mglrulab workloads test-guest plugin
integration: $(INTEGRATION_BINS)
	tests/integration/run-all

# Who may include whom: docs/layout.md. Seconds, so it runs first.
check-layers:
	scripts/check-layers

# Ratchets: what may only go down. Functions over 80 lines
# (scripts/long-functions lists them): lower MAX_LONG_FUNCTIONS when you
# split one. JSON key lookups outside the codecs, as docs/layout.md
# defines them (scripts/json-lookups): lower MAX_JSON_LOOKUPS when one
# moves into a decoder. Files in lab/ over 800 lines (scripts/long-files):
# each listed in docs/layout.md with its reason. Pairs of places in lab/
# sharing a run of 8 or more lines (scripts/duplicate-code, the rule in
# docs/layout.md): lower MAX_DUPLICATE_PAIRS when a copy goes. Their
# self-test: tests/integration/06-ratchets.sh.
MAX_LONG_FUNCTIONS := 0
MAX_JSON_LOOKUPS := 11
MAX_DUPLICATE_PAIRS := 0
check-style:
	scripts/long-functions --max $(MAX_LONG_FUNCTIONS)
	scripts/json-lookups --max $(MAX_JSON_LOOKUPS)
	scripts/duplicate-code --max $(MAX_DUPLICATE_PAIRS)
	scripts/long-files

check: check-layers check-style unit integration

# Everything check compiles, built in parallel first: on a 2-core machine
# 202 s one file at a time, 110 s with -j2 (2026-12-05). check itself stays
# serial: its tests must not run beside each other.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
check-build:
	$(MAKE) -j$(JOBS) $(UNIT_BINS) $(INTEGRATION_BINS)

# On every change (`make test` before a stop): the layer and style checks,
# the unit tests and the integration tests whose header says
# "# run-all: quick" (no kernel built, no guest booted). No deps: a
# development machine has them; no plugin: no quick test loads it. The
# fuzzers get 10 s each, not 30 (71, 75): 88 s each beside a kernel build,
# the quick suite's longest tests (2026-12-06); `make test` keeps 30.
QUICK_BINS := mglrulab workloads test-guest
QUICK_FUZZ_SECONDS ?= 10
test-quick:
	$(MAKE) -j$(JOBS) $(UNIT_BINS) $(QUICK_BINS)
	$(MAKE) check-layers check-style unit
	QUICK=1 FUZZ_SECONDS=$(QUICK_FUZZ_SECONDS) tests/integration/run-all

# The README's two commands: each installs what it needs first.
test: deps
	$(MAKE) check-build
	$(MAKE) check
# The plugins for lab.conf's [run] coherence: without them the session says
# "not done: the coherence plugin is not built" and decides all the same.
demo: deps
	$(MAKE) all
	-$(MAKE) plugin
	scripts/demo

deps:
	scripts/install-deps

clean:
	rm -rf build mglrulab

-include $(shell find build -name '*.d' 2>/dev/null)
