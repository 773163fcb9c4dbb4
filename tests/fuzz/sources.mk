# Read by tests/fuzz/run.sh after the top Makefile: the library's C sources, as configure
# left them, so that the fuzz build never keeps a list of its own.
fuzz-print-sources:
	@echo $(filter %.c,$(libgdc_core_la_SOURCES) $(libgdc_coll_kernels_la_SOURCES))
