// Exercise 14: a 3-point moving average, out[i] = (in[i-1] + in[i] + in[i+1]) / 3, where a
// neighbour past either end of the array is in[i] itself.
//
// Each work-group first copies the part of `in` it needs into local memory with ONE
// async_work_group_copy: its own block of get_local_size(0) elements plus one neighbour on each
// side (`tile` holds get_local_size(0) + 2 floats; tile[0] is the element just before the block).
// wait_group_events makes the copy complete and visible to the whole group; then every work-item
// reads its three values from `tile` instead of from global memory.
__kernel void smooth(__global const float* in,
                     __global float* out,
                     const int count,
                     __local float* tile)
{
    // TODO: base = get_group_id(0) * get_local_size(0): the first element of this group's block.
    // TODO: the range to copy: from max(base - 1, 0) to min(base + get_local_size(0) + 1, count)
    //       (exclusive). At the start of the array there is no element before the block: copy into
    //       tile + 1 then.
    // TODO: event_t e = async_work_group_copy(destination in tile, in + first, number of floats, 0);
    //       wait_group_events(1, &e);   -- every work-item of the group calls both, with the same
    //       arguments.
    // TODO: i = get_global_id(0); if i < count: left = tile[lid] (or the centre at i == 0),
    //       centre = tile[lid + 1], right = tile[lid + 2] (or the centre at i == count - 1);
    //       out[i] = (left + centre + right) / 3.0f.
}
