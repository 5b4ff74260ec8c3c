// A correct pi kernel in another style: every sum runs backwards. The steps from the last to
// the first, the group's sums from the last work-item's to the first; the index is a 64-bit
// count down. Float rounding differs from the forward sums but stays within the same bound.
__kernel void pi(const int niters,
                 const float step_size,
                 __local float* local_sums,
                 __global float* partial_sums)
{
    const size_t lid = get_local_id(0);
    const ulong first = (ulong)get_global_id(0) * (ulong)niters;

    float sum = 0.0f;
    for (ulong step = first + (ulong)niters; step > first; step--) {
        const float x = ((float)(step - 1) + 0.5f) * step_size;
        sum += 4.0f / (1.0f + x * x);
    }
    local_sums[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);

    if (lid == 0) {
        float group_sum = 0.0f;
        for (size_t l = get_local_size(0); l > 0; l--) {
            group_sum += local_sums[l - 1];
        }
        partial_sums[get_group_id(0)] = group_sum;
    }
}
