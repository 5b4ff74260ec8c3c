// A correct pi kernel that shares its group's steps out interleaved: work-item l takes steps
// l, l + size, l + 2·size, ... of the group's range, so neighbours evaluate neighbouring steps
// (what a GPU reading an array would want). A group's partial sum covers the same steps as with
// consecutive ranges. The group's first step comes from the global id minus the local id, so it
// includes the launch's global offset.
__kernel void pi(const int niters,
                 const float step_size,
                 __local float* local_sums,
                 __global float* partial_sums)
{
    const size_t lid = get_local_id(0);
    const size_t items = get_local_size(0);
    const long group_first = (long)(get_global_id(0) - lid) * niters;

    float sum = 0.0f;
    for (long i = group_first + (long)lid; i < group_first + (long)items * niters; i += (long)items) {
        const float x = ((float)i + 0.5f) * step_size;
        sum += 4.0f / (1.0f + x * x);
    }
    local_sums[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);

    if (lid == 0) {
        float total = 0.0f;
        for (size_t l = 0; l < items; l++) total += local_sums[l];
        partial_sums[get_group_id(0)] = total;
    }
}
