# Builds every exercise listed in course.toml with plain make, from the top of the tree:
#     make -f make_defs/all.mk -j2             each exercise's starter demo and graded test
#     make -f make_defs/all.mk -j2 solution    each exercise's solution demo and graded test
#     make -f make_defs/all.mk clean           removes build-make/
# It runs `make -C exercises/NN_name` for each exercise (their Makefiles do the work, see
# make_defs/common.mk), after building the shared util layer once, so the exercises can then be
# built side by side and share the -j job slots.

WB_TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))..)
AWK ?= awk
EXERCISES := $(shell $(AWK) -v key=folders -f $(WB_TOP)/make_defs/manifest.awk $(WB_TOP)/course.toml)
ifeq ($(strip $(EXERCISES)),)
$(error could not read the exercise list from $(WB_TOP)/course.toml (is awk installed?))
endif
FIRST := $(firstword $(EXERCISES))

.PHONY: all solution libs clean $(addprefix all/,$(EXERCISES)) $(addprefix solution/,$(EXERCISES))
.DEFAULT_GOAL := all

all: $(addprefix all/,$(EXERCISES))
solution: $(addprefix solution/,$(EXERCISES))

# all/02_vadd runs `make -C exercises/02_vadd all`; solution/02_vadd its `solution` target.
$(addprefix all/,$(EXERCISES)) $(addprefix solution/,$(EXERCISES)): %: libs
	@$(MAKE) --no-print-directory -C $(WB_TOP)/exercises/$(notdir $@) $(patsubst %/,%,$(dir $@))

# all/NN and solution/NN are two makes in one exercise folder, and they share outputs (the
# runner's objects, the embedded speed references): run side by side they would write the same
# file at once (CI saw `mv: cannot stat ...embedded_kernels.cpp.partial`). Where both are asked
# for, an exercise's solution build waits for its starter build; other exercises still overlap.
GOALS := $(or $(MAKECMDGOALS),all)
$(foreach e,$(EXERCISES),$(if $(and $(filter all all/$(e),$(GOALS)),$(filter solution solution/$(e),$(GOALS))),$(eval solution/$(e): | all/$(e))))

libs:
	@$(MAKE) --no-print-directory -C $(WB_TOP)/exercises/$(FIRST) libs

clean:
	@$(MAKE) --no-print-directory -C $(WB_TOP)/exercises/$(FIRST) clean-all
