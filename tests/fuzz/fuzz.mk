# The fuzz build, driven by tests/fuzz/run.sh (which passes TOP, BUILD, CC, SOURCES,
# DEPS_CFLAGS and DEPS_LIBS): every object compiled by clang with the sanitizers and
# libFuzzer's coverage, the library as one archive, one program per target.
TARGETS   = tuning profile env gdrun calib
SANITIZE  = -fsanitize=address,undefined -fno-sanitize-recover=all
CFLAGS    = -std=c11 -g -O1 -fno-omit-frame-pointer $(SANITIZE) -fsanitize=fuzzer-no-link \
            -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter -Werror
CPPFLAGS  = -D_GNU_SOURCE -I$(TOP)/include -I$(TOP)/runtime -I$(TOP)/coll -I$(TOP)/launcher -I$(TOP) \
            -I$(TOP)/tests/fuzz -DGDC_PKGDATADIR='"$(TOP)/share"' -DGDC_SRCDIR='"$(TOP)"' $(DEPS_CFLAGS)
LIBS      = $(DEPS_LIBS) -lm -ldl -lpthread

LIB_OBJS   = $(SOURCES:%.c=$(BUILD)/obj/%.o)
GDRUN_OBJS = $(patsubst %.c,$(BUILD)/obj/%.o,launcher/gdrun_options.c launcher/gdrun_env.c launcher/gdrun_msg.c)

all: $(TARGETS:%=$(BUILD)/fuzz_%)

$(BUILD)/obj/%.o: $(TOP)/%.c
	@mkdir -p $(@D)
	@echo "  CC      $*.c"
	@$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libgdc_fuzz.a: $(LIB_OBJS)
	@rm -f $@
	@ar rcs $@ $^

$(BUILD)/fuzz_gdrun: $(BUILD)/obj/tests/fuzz/fuzz_gdrun.o $(GDRUN_OBJS)
	@echo "  LINK    $(@F)"
	@$(CC) $(SANITIZE) -fsanitize=fuzzer $^ $(LIBS) -o $@

$(BUILD)/fuzz_%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(BUILD)/libgdc_fuzz.a
	@echo "  LINK    $(@F)"
	@$(CC) $(SANITIZE) -fsanitize=fuzzer $^ $(LIBS) -o $@

.PHONY: all
.SECONDARY:
-include $(LIB_OBJS:.o=.d) $(GDRUN_OBJS:.o=.d) $(TARGETS:%=$(BUILD)/obj/tests/fuzz/fuzz_%.d)
