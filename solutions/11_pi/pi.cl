// Exercise 11 solution: per-work-item sums, then a reduction in local memory per work-group.
__kernel void pi(const int niters,
                 const float step_size,
                 __local float* local_sums,
                 __global float* partial_sums)
{
    const int lid = get_local_id(0);
    const int group_size = get_local_size(0);
    // 64-bit: with 2^28 steps, niters · global id is fine in int, but a run of 2^33 steps (the
    // classic program's) is not, and the overflow would silently integrate the wrong range.
    const long first = (long)get_global_id(0) * niters;

    float sum = 0.0f;
    for (int i = 0; i < niters; i++) {
        const float x = ((float)(first + i) + 0.5f) * step_size;
        sum += 4.0f / (1.0f + x * x);
    }
    local_sums[lid] = sum;
    // Work-item 0 is about to read every other work-item's slot: they must all be written first.
    barrier(CLK_LOCAL_MEM_FENCE);

    // A serial reduction by one work-item: simple, and the group is small next to niters.
    // (Going further: a tree reduction halves the active work-items at every step.)
    if (lid == 0) {
        float group_sum = 0.0f;
        for (int l = 0; l < group_size; l++) {
            group_sum += local_sums[l];
        }
        partial_sums[get_group_id(0)] = group_sum;
    }
}
