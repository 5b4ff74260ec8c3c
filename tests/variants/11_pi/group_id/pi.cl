// A correct pi kernel that numbers its work-items the way many course kernels do: from the
// group's number, the group's size and the local id. That number ignores a launch's global
// offset, which is right: the exercise's launches have none. The first step is a long.
__kernel void pi(const int niters,
                 const float step_size,
                 __local float* local_sums,
                 __global float* partial_sums)
{
    const int lid = get_local_id(0);
    const int group = get_group_id(0);
    const int items = get_local_size(0);
    const long first = ((long)group * items + lid) * niters;

    float sum = 0.0f;
    for (int i = 0; i < niters; i++) {
        const float x = ((float)(first + i) + 0.5f) * step_size;
        sum += 4.0f / (1.0f + x * x);
    }
    local_sums[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);

    if (lid == 0) {
        float total = 0.0f;
        for (int l = 0; l < items; l++) total += local_sums[l];
        partial_sums[group] = total;
    }
}
