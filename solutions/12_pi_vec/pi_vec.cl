// Exercise 12 solution: pi with float4 and float8 lanes, and one reduction shared by both kernels.

// Stores this work-item's sum, then work-item 0 adds the group's sums (as in exercise 11). It holds
// a barrier, so every work-item of the group must call it: it is the last thing both kernels do.
void reduce_to_partial_sum(const float sum, __local float* local_sums, __global float* partial_sums)
{
    const int lid = get_local_id(0);
    local_sums[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        float group_sum = 0.0f;
        for (int l = 0; l < get_local_size(0); l++) {
            group_sum += local_sums[l];
        }
        partial_sums[get_group_id(0)] = group_sum;
    }
}

__kernel void pi_vec4(const int niters,
                      const float step_size,
                      __local float* local_sums,
                      __global float* partial_sums)
{
    const long first = (long)get_global_id(0) * niters;
    // The midpoints of four consecutive steps, relative to the first of them.
    const float4 lanes = (float4)(0.5f, 1.5f, 2.5f, 3.5f);
    float4 sums = (float4)(0.0f);
    int i = 0;
    // One vector operation evaluates four steps; the arithmetic is the scalar kernel's, lane by lane.
    for (; i + 4 <= niters; i += 4) {
        const float4 x = ((float)(first + i) + lanes) * step_size;
        sums += 4.0f / (1.0f + x * x);
    }
    // Adding the lanes pairwise (halves first) keeps the roundings of this last step small.
    const float2 halves = sums.lo + sums.hi;
    float sum = halves.s0 + halves.s1;
    // niters need not be a multiple of 4: the last niters % 4 steps one at a time.
    for (; i < niters; i++) {
        const float x = ((float)(first + i) + 0.5f) * step_size;
        sum += 4.0f / (1.0f + x * x);
    }
    reduce_to_partial_sum(sum, local_sums, partial_sums);
}

__kernel void pi_vec8(const int niters,
                      const float step_size,
                      __local float* local_sums,
                      __global float* partial_sums)
{
    const long first = (long)get_global_id(0) * niters;
    const float8 lanes = (float8)(0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f);
    float8 sums = (float8)(0.0f);
    int i = 0;
    for (; i + 8 <= niters; i += 8) {
        const float8 x = ((float)(first + i) + lanes) * step_size;
        sums += 4.0f / (1.0f + x * x);
    }
    // Adding the lanes pairwise keeps the roundings of this last step small.
    const float4 halves = sums.lo + sums.hi;
    float sum = (halves.s0 + halves.s1) + (halves.s2 + halves.s3);
    for (; i < niters; i++) {
        const float x = ((float)(first + i) + 0.5f) * step_size;
        sum += 4.0f / (1.0f + x * x);
    }
    reduce_to_partial_sum(sum, local_sums, partial_sums);
}
