// Correct vector pi kernels in another style: the niters % width leftover steps come first, the
// vectors after them; the lanes are added as a dot product with ones; the group's sums are added
// by a tree in local memory (any group size, not only powers of two).

// Halves the number of active work-items each round: the lower half adds the upper half's slots.
// Reads (slots >= upper) and writes (slots < upper) of one round never overlap; the barrier
// separates the rounds.
void tree_to_partial_sum(const float sum, __local float* local_sums, __global float* partial_sums)
{
    const uint lid = get_local_id(0);
    local_sums[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint active = get_local_size(0); active > 1;) {
        const uint upper = (active + 1) / 2;  // the first slot of the upper part
        if (lid + upper < active) {
            local_sums[lid] += local_sums[lid + upper];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        active = upper;
    }
    if (lid == 0) {
        partial_sums[get_group_id(0)] = local_sums[0];
    }
}

__kernel void pi_vec4(const int niters,
                      const float step_size,
                      __local float* local_sums,
                      __global float* partial_sums)
{
    const long first = (long)get_global_id(0) * niters;
    const int leftover = niters % 4;
    float sum = 0.0f;
    for (int i = 0; i < leftover; i++) {
        const float x = ((float)(first + i) + 0.5f) * step_size;
        sum += 4.0f / (1.0f + x * x);
    }
    float4 sums = (float4)(0.0f);
    for (long step = first + leftover; step < first + niters; step += 4) {
        const float4 x = ((float4)((float)step) + (float4)(0.5f, 1.5f, 2.5f, 3.5f)) * step_size;
        sums += 4.0f / (1.0f + x * x);
    }
    sum += dot(sums, (float4)(1.0f));
    tree_to_partial_sum(sum, local_sums, partial_sums);
}

__kernel void pi_vec8(const int niters,
                      const float step_size,
                      __local float* local_sums,
                      __global float* partial_sums)
{
    const long first = (long)get_global_id(0) * niters;
    const int leftover = niters % 8;
    float sum = 0.0f;
    for (int i = 0; i < leftover; i++) {
        const float x = ((float)(first + i) + 0.5f) * step_size;
        sum += 4.0f / (1.0f + x * x);
    }
    float8 sums = (float8)(0.0f);
    for (long step = first + leftover; step < first + niters; step += 8) {
        const float8 x = ((float8)((float)step) + (float8)(0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f)) * step_size;
        sums += 4.0f / (1.0f + x * x);
    }
    sum += dot(sums.lo, (float4)(1.0f)) + dot(sums.hi, (float4)(1.0f));
    tree_to_partial_sum(sum, local_sums, partial_sums);
}
