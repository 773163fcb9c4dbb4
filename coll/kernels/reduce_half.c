/* The fp16 / bfloat16 conversions of half.h as functions, for callers outside the kernels
 * (tests, the simulator's reference, the executor). */
#include "kernels/half.h"
#include "kernels/reduce.h"

float gdc_coll_half_to_float(uint16_t h)
{
    return gdc_coll_half_decode(h);
}

uint16_t gdc_coll_float_to_half(float f)
{
    return gdc_coll_half_encode(f);
}

float gdc_coll_bf16_to_float(uint16_t b)
{
    return gdc_coll_bf16_decode(b);
}

uint16_t gdc_coll_float_to_bf16(float f)
{
    return gdc_coll_bf16_encode(f);
}
