// A correct vadd in another style: each work-item takes the next element of its group's block in
// the order the group's work-items arrive at a counter in local memory, not by its own id. It
// uses an atomic's result for an address and a branch, and no barrier follows: the race pass's
// order rule (an atomic's result branched on before a barrier) must not refuse it.
__kernel void vadd(__global const float* a,
                   __global const float* b,
                   __global float* c,
                   const unsigned int count)
{
    __local int arrivals;
    if (get_local_id(0) == 0) arrivals = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const size_t i = get_group_id(0) * get_local_size(0) + (size_t)atomic_inc(&arrivals);
    if (i < count) {
        c[i] = a[i] + b[i];
    }
}
