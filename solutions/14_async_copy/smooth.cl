// Exercise 14 solution: one asynchronous copy per work-group, then every read from local memory.
__kernel void smooth(__global const float* in,
                     __global float* out,
                     const int count,
                     __local float* tile)
{
    const int lid = get_local_id(0);
    const int base = get_group_id(0) * get_local_size(0);
    // The block and its two neighbours, cut at the ends of the array. The host rounds the global
    // size up only to whole groups, so every group holds at least one element and `n` >= 1.
    const int first = max(base - 1, 0);
    const int end = min(base + (int)get_local_size(0) + 1, count);
    const int n = end - first;
    // tile[0] stands for element base - 1; at the start of the array that element does not
    // exist and the copy lands one place further on.
    __local float* destination = tile + (first - (base - 1));

    // The whole group issues one copy (same arguments in every work-item), which the device may
    // carry out with its fastest means (a DMA engine, wide loads), instead of one load per work-item.
    // Not const: wait_group_events takes a pointer to a plain event_t.
    event_t copied = async_work_group_copy(destination, in + first, (size_t)n, 0);
    // Until this returns the tile may be incomplete; afterwards it is visible to the whole group.
    wait_group_events(1, &copied);

    const int i = get_global_id(0);
    if (i < count) {
        const float centre = tile[lid + 1];
        const float left = (i == 0) ? centre : tile[lid];
        const float right = (i == count - 1) ? centre : tile[lid + 2];
        out[i] = (left + centre + right) / 3.0f;
    }
}
