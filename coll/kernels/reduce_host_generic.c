/* The host kernels for the compilation target's baseline (SSE2 on x86-64). */
#define GDC_COLL_ISA           generic
#define GDC_COLL_KERNEL_TARGET /* the build's own flags */
#include "kernels/reduce_host_kernels.h"
