// A correct pi kernel whose group sum is a tree: pairs of slots added, then pairs of pairs, a
// barrier between levels, for any group size (7 and 33 among the tested ones, not powers of two:
// a slot whose partner lies past the group keeps its value for the next level).
__kernel void pi(const int niters,
                 const float step_size,
                 __local float* local_sums,
                 __global float* partial_sums)
{
    const size_t lid = get_local_id(0);
    const size_t items = get_local_size(0);
    const ulong first = (ulong)get_global_id(0) * (ulong)niters;

    float sum = 0.0f;
    for (uint i = 0; i < (uint)niters; i++) {
        const float x = ((float)(first + i) + 0.5f) * step_size;
        sum += 4.0f / (1.0f + x * x);
    }
    local_sums[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (size_t width = 1; width < items; width *= 2) {
        if (lid % (2 * width) == 0 && lid + width < items) local_sums[lid] += local_sums[lid + width];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) partial_sums[get_group_id(0)] = local_sums[0];
}
