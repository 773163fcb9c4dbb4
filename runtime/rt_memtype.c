#include "rt_memtype.h"

#include "rt_cuda.h"

gdc_rt_memtype_t gdc_rt_memtype_of(const void *ptr)
{
    unsigned int mem_type   = 0;
    int          is_managed = 0;

    if (!gdc_rt_cuda_available() || ptr == NULL) {
        return GDC_RT_MEM_HOST;
    }
    if (gdc_rt_cuda.cuPointerGetAttribute(&mem_type, GDC_RT_CU_POINTER_ATTRIBUTE_MEMORY_TYPE, gdc_rt_cuda_ptr(ptr)) !=
        GDC_RT_CUDA_SUCCESS) {
        return GDC_RT_MEM_HOST; /* not known to CUDA: ordinary host memory */
    }
    if (gdc_rt_cuda.cuPointerGetAttribute(&is_managed, GDC_RT_CU_POINTER_ATTRIBUTE_IS_MANAGED, gdc_rt_cuda_ptr(ptr)) ==
            GDC_RT_CUDA_SUCCESS &&
        is_managed) {
        return GDC_RT_MEM_CUDA_MANAGED;
    }
    return mem_type == GDC_RT_CU_MEMORYTYPE_DEVICE || mem_type == GDC_RT_CU_MEMORYTYPE_UNIFIED ? GDC_RT_MEM_CUDA
                                                                                              : GDC_RT_MEM_HOST;
}

const char *gdc_rt_memtype_name(gdc_rt_memtype_t type)
{
    switch (type) {
    case GDC_RT_MEM_HOST: return "host";
    case GDC_RT_MEM_CUDA: return "cuda";
    case GDC_RT_MEM_CUDA_MANAGED: return "cuda-managed";
    }
    return "unknown";
}
