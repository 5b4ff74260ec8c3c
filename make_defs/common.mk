# The rules of the plain-make path, shared by every exercise's Makefile. A Makefile in
# exercises/NN_name/ reads the platform file and then this one:
#     -include ../../make.def
#     include ../../make_defs/common.mk
# and gets, like the CMake build (cmake/workbook.cmake):
#     make            the STARTER demo and graded test: build-make/bin/NN_name and
#                     build-make/bin/test-NN_name-starter
#     make run        builds and runs the demo (options in ARGS: make run ARGS="--count 100")
#     make check      builds and runs the graded test (exit status 0 when it passes)
#     make solution   the solution's demo and graded test (NN_name-solution, test-NN_name-solution)
#     make clean      removes this exercise's build files; make clean-all removes build-make/
#     make libs       only the util layer (common/) that every exercise links
#     V=1             shows the full compiler commands
#     WB_BUILD_DIR=   builds somewhere else than build-make/
#
# The exercise's files come from course.toml (read by make_defs/manifest.awk): its `edit` list
# says which .cpp files are the student's host code, its `kernels` list which .cl files are built
# into the programs (make_defs/embed_kernels.sh, the twin of cmake/embed_kernels.cmake). The util
# layer (common/src) and the graded test's shared halves (harness/testing, harness/runner and the
# evidence record) are built once into build-make/common/ and reused by every exercise. Needs GNU
# make (3.81 or newer), a POSIX shell, awk and od. Paths with spaces do not work. Build one
# exercise at a time (make -j inside one exercise is fine): two makes running at once could both
# rebuild the shared library. make_defs/all.mk builds them all, in parallel safely.

.SUFFIXES:
.DELETE_ON_ERROR:
.DEFAULT_GOAL := all

# The top of the tree, from where this file was included ("../..").
WB_TOP := $(patsubst %/make_defs/,%,$(dir $(lastword $(MAKEFILE_LIST))))

ifndef MAKE_DEF
$(error No make.def at the top of the tree. Copy the platform file for your machine first, e.g. \
  "cp make_defs/linux-pocl.def make.def" (see make_defs/README.md))
endif

# --- Settings a make.def may leave out --------------------------------------------------------
OPENCL_VERSION ?= 300
# Files of common/src not to build on this platform (the Windows file leaves out the POSIX-only
# ones; no exercise uses them).
COMMON_EXCLUDE ?=
# The executable suffix (".exe" on Windows).
EXE ?=
AWK ?= awk
WB_BUILD_DIR ?= $(WB_TOP)/build-make

# --- Flags, as common/CMakeLists.txt gives them -----------------------------------------------
WB_DEFINES := -DCL_HPP_ENABLE_EXCEPTIONS -DCL_HPP_TARGET_OPENCL_VERSION=$(OPENCL_VERSION) \
  -DCL_HPP_MINIMUM_OPENCL_VERSION=110 -DCL_TARGET_OPENCL_VERSION=$(OPENCL_VERSION)
WB_COMMON_INC := -I$(WB_TOP)/common/include
WB_TESTING_INC := -I$(WB_TOP)/harness/testing/include -I$(WB_TOP)/harness/include -I$(WB_TOP)/harness/runner/include
# Warnings first, so a -Wno-... in CXXFLAGS wins; project includes before CPPFLAGS' -I paths.
WB_COMPILE = $(CXX) -Wall -Wextra $(CXXFLAGS) $(WB_DEFINES) -MMD -MP
WB_LINK = $(CXX) $(CXXFLAGS) $(LDFLAGS)
# Everything is rebuilt when the platform file or these rules change.
WB_CONFIG := $(wildcard $(WB_TOP)/make.def) $(WB_TOP)/make_defs/common.mk

# Quiet by default: one line per step. V=1 shows the commands.
ifeq ($(V),1)
  Q :=
  say = @true
else
  Q := @
  say = @printf '  %-6s %s\n' '$(1)' '$(2)'
endif

# A path as seen from the top of the tree: messages and embedded kernels' labels use it.
to_top = $(patsubst $(abspath $(WB_TOP))/%,%,$(abspath $(1)))

# --- This exercise, from the manifest ---------------------------------------------------------
EXERCISE := $(notdir $(CURDIR))
manifest = $(shell $(AWK) -v folder=$(EXERCISE) -v key=$(1) -f $(WB_TOP)/make_defs/manifest.awk $(WB_TOP)/course.toml)
EDIT := $(call manifest,edit)
KERNELS := $(call manifest,kernels)
ifeq ($(EDIT),__not_in_manifest__)
$(error exercises/$(EXERCISE) is not listed in course.toml)
endif
ifeq ($(strip $(EDIT)),)
$(error could not read the edit list of $(EXERCISE) from $(WB_TOP)/course.toml (is awk installed?))
endif

SOLUTION_DIR := $(WB_TOP)/solutions/$(EXERCISE)
HOST := $(filter %.cpp,$(EDIT))
# Kernel paths, relative to this folder: the starter's are the manifest's; the solution takes
# the edited ones from solutions/NN_name (as _workbook_variant does).
STARTER_KERNELS := $(KERNELS)
SOLUTION_KERNELS := $(foreach k,$(KERNELS),$(if $(filter $(k),$(EDIT)),$(SOLUTION_DIR)/$(k),$(k)))

# --- Where things go --------------------------------------------------------------------------
BIN := $(WB_BUILD_DIR)/bin
LIBDIR := $(WB_BUILD_DIR)/common
OBJ := $(WB_BUILD_DIR)/$(EXERCISE)

COMMON_SRC := $(filter-out $(addprefix $(WB_TOP)/common/src/,$(COMMON_EXCLUDE)), \
  $(sort $(wildcard $(WB_TOP)/common/src/*.cpp)))
TESTING_SRC := $(sort $(wildcard $(WB_TOP)/harness/testing/src/*.cpp)) $(WB_TOP)/harness/src/evidence.cpp $(WB_TOP)/harness/src/oclgrind.cpp \
  $(WB_TOP)/harness/src/traffic.cpp \
  $(WB_TOP)/harness/runner/src/protocol.cpp
COMMON_OBJ := $(patsubst $(WB_TOP)/common/%.cpp,$(LIBDIR)/%.o,$(COMMON_SRC))
# What every runner links as objects (their operations register themselves): main(), the device,
# the generic operations; and this exercise's own operations (runner.cpp) when it has some.
RUNNER_MAIN_OBJ := $(addprefix $(LIBDIR)/harness/runner/src/,runner_main.o ops.o protocol.o observed_events.o)
RUNNER_OPS_OBJ := $(if $(wildcard runner.cpp),$(OBJ)/runner.o)
# The speed and traffic checks' reference kernels (course.toml's speed_references and
# traffic_references), in the runners.
SPEED_REFERENCES := $(sort $(foreach r,$(call manifest,speed_references) $(call manifest,traffic_references),$(WB_TOP)/solutions/$(r)/mmul.cl))
REFERENCES_OBJ := $(if $(strip $(SPEED_REFERENCES)),$(OBJ)/references/embedded_kernels.o)
TESTING_OBJ := $(patsubst $(WB_TOP)/harness/%.cpp,$(LIBDIR)/harness/%.o,$(TESTING_SRC))
COMMON_LIB := $(LIBDIR)/libworkbook_common.a
TESTING_LIB := $(LIBDIR)/libworkbook_testing.a

STARTER_OBJ := $(patsubst %.cpp,$(OBJ)/starter/%.o,$(HOST)) $(OBJ)/starter/embedded_kernels.o
SOLUTION_OBJ := $(patsubst %.cpp,$(OBJ)/solution/%.o,$(HOST)) $(OBJ)/solution/embedded_kernels.o

DEMO := $(BIN)/$(EXERCISE)$(EXE)
TEST := $(BIN)/test-$(EXERCISE)-starter$(EXE)
SOLUTION_DEMO := $(BIN)/$(EXERCISE)-solution$(EXE)
SOLUTION_TEST := $(BIN)/test-$(EXERCISE)-solution$(EXE)
# A graded test is two programs: the test (the checker) and the runner beside it that runs the
# student's code (harness/runner/include/workbook/runner.hpp).
RUNNER := $(BIN)/runner-$(EXERCISE)-starter$(EXE)
SOLUTION_RUNNER := $(BIN)/runner-$(EXERCISE)-solution$(EXE)

# --- Targets ----------------------------------------------------------------------------------
.PHONY: all run check solution libs clean clean-all

all: $(DEMO) $(TEST)
	@echo "$(EXERCISE): demo $(call to_top,$(DEMO)), graded test $(call to_top,$(TEST))"

run: $(DEMO)
	$(DEMO) $(ARGS)

check: $(TEST)
	$(TEST) $(ARGS)

solution: $(SOLUTION_DEMO) $(SOLUTION_TEST)
	@echo "$(EXERCISE): solution demo $(call to_top,$(SOLUTION_DEMO)), graded test $(call to_top,$(SOLUTION_TEST))"

# The util layer alone (make_defs/all.mk builds it first, before the exercises in parallel).
libs: $(COMMON_LIB) $(TESTING_LIB) $(RUNNER_MAIN_OBJ)

clean:
	rm -rf $(OBJ) $(DEMO) $(TEST) $(RUNNER) $(SOLUTION_DEMO) $(SOLUTION_TEST) $(SOLUTION_RUNNER)

clean-all:
	rm -rf $(WB_BUILD_DIR)

# --- The util layer: built once, shared by all exercises --------------------------------------
$(LIBDIR)/%.o: $(WB_TOP)/common/%.cpp $(WB_CONFIG)
	$(call say,CXX,$(call to_top,$<))
	@mkdir -p $(@D)
	$(Q)$(WB_COMPILE) -DTOML_HEADER_ONLY=1 $(WB_COMMON_INC) $(CPPFLAGS) -c $< -o $@

$(LIBDIR)/harness/%.o: $(WB_TOP)/harness/%.cpp $(WB_CONFIG)
	$(call say,CXX,$(call to_top,$<))
	@mkdir -p $(@D)
	$(Q)$(WB_COMPILE) $(WB_TESTING_INC) $(WB_COMMON_INC) $(CPPFLAGS) -c $< -o $@

$(COMMON_LIB): $(COMMON_OBJ)
	$(call say,AR,$(call to_top,$@))
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(TESTING_LIB): $(TESTING_OBJ)
	$(call say,AR,$(call to_top,$@))
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# --- This exercise ----------------------------------------------------------------------------
# The demo's and the test's main files, compiled once for both variants.
$(OBJ)/main.o: main.cpp $(WB_CONFIG)
	$(call say,CXX,$(call to_top,$<))
	@mkdir -p $(@D)
	$(Q)$(WB_COMPILE) -I. $(WB_COMMON_INC) $(CPPFLAGS) -c $< -o $@

$(OBJ)/test.o $(OBJ)/runner.o: $(OBJ)/%.o: %.cpp $(WB_CONFIG)
	$(call say,CXX,$(call to_top,$<))
	@mkdir -p $(@D)
	$(Q)$(WB_COMPILE) -I. $(WB_TESTING_INC) $(WB_COMMON_INC) $(CPPFLAGS) -c $< -o $@

# The student's host files, and the solution's (which include this folder's headers).
$(OBJ)/starter/%.o: %.cpp $(WB_CONFIG)
	$(call say,CXX,$(call to_top,$<))
	@mkdir -p $(@D)
	$(Q)$(WB_COMPILE) -I. $(WB_COMMON_INC) $(CPPFLAGS) -c $< -o $@

$(OBJ)/solution/%.o: $(SOLUTION_DIR)/%.cpp $(WB_CONFIG)
	$(call say,CXX,$(call to_top,$<))
	@mkdir -p $(@D)
	$(Q)$(WB_COMPILE) -I. $(WB_COMMON_INC) $(CPPFLAGS) -c $< -o $@

# The kernels, embedded as byte arrays (the script runs at the top of the tree so that each
# kernel is labelled with its path from there, as in the CMake build).
$(OBJ)/starter/embedded_kernels.cpp: $(STARTER_KERNELS) $(WB_TOP)/make_defs/embed_kernels.sh
	$(call say,EMBED,$(if $(STARTER_KERNELS),$(foreach k,$(STARTER_KERNELS),$(call to_top,$(k))),(no kernels)))
	@mkdir -p $(@D)
	$(Q)cd $(WB_TOP) && sh make_defs/embed_kernels.sh $(abspath $@) $(foreach k,$(STARTER_KERNELS),$(call to_top,$(k)))

$(OBJ)/solution/embedded_kernels.cpp: $(SOLUTION_KERNELS) $(WB_TOP)/make_defs/embed_kernels.sh
	$(call say,EMBED,$(if $(SOLUTION_KERNELS),$(foreach k,$(SOLUTION_KERNELS),$(call to_top,$(k))),(no kernels)))
	@mkdir -p $(@D)
	$(Q)cd $(WB_TOP) && sh make_defs/embed_kernels.sh $(abspath $@) $(foreach k,$(SOLUTION_KERNELS),$(call to_top,$(k)))

$(OBJ)/references/embedded_kernels.cpp: $(SPEED_REFERENCES) $(WB_TOP)/make_defs/embed_kernels.sh
	$(call say,EMBED,$(foreach k,$(SPEED_REFERENCES),$(call to_top,$(k))))
	@mkdir -p $(@D)
	$(Q)cd $(WB_TOP) && WB_QUALIFIED=1 sh make_defs/embed_kernels.sh $(abspath $@) $(foreach k,$(SPEED_REFERENCES),$(call to_top,$(k)))

$(OBJ)/starter/embedded_kernels.o $(OBJ)/solution/embedded_kernels.o $(OBJ)/references/embedded_kernels.o: %.o: %.cpp $(WB_CONFIG)
	$(call say,CXX,$(call to_top,$<))
	$(Q)$(WB_COMPILE) $(WB_COMMON_INC) $(CPPFLAGS) -c $< -o $@

# The programs: their objects, then the archives in the order listed (the testing library before
# the util layer it uses). The embedded kernels are linked as an object, never from an archive,
# so that their registration objects are kept.
define link_program
$(call say,LINK,$(call to_top,$@))
@mkdir -p $(@D)
$(Q)$(WB_LINK) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(LDLIBS)
endef

$(DEMO): $(OBJ)/main.o $(STARTER_OBJ) $(COMMON_LIB)
	$(link_program)
$(TEST): $(OBJ)/test.o $(OBJ)/starter/embedded_kernels.o $(TESTING_LIB) $(COMMON_LIB) | $(RUNNER)
	$(link_program)
$(RUNNER): $(RUNNER_MAIN_OBJ) $(RUNNER_OPS_OBJ) $(REFERENCES_OBJ) $(STARTER_OBJ) $(COMMON_LIB)
	$(link_program)
$(SOLUTION_DEMO): $(OBJ)/main.o $(SOLUTION_OBJ) $(COMMON_LIB)
	$(link_program)
$(SOLUTION_TEST): $(OBJ)/test.o $(OBJ)/solution/embedded_kernels.o $(TESTING_LIB) $(COMMON_LIB) | $(SOLUTION_RUNNER)
	$(link_program)
$(SOLUTION_RUNNER): $(RUNNER_MAIN_OBJ) $(RUNNER_OPS_OBJ) $(REFERENCES_OBJ) $(SOLUTION_OBJ) $(COMMON_LIB)
	$(link_program)

# Header dependencies the compiler wrote (-MMD -MP).
-include $(wildcard $(OBJ)/*.d $(OBJ)/*/*.d $(LIBDIR)/*/*.d $(LIBDIR)/*/*/*.d)
