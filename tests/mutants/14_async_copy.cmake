# Planted bugs for exercise 14 (see workbook_mutant() in cmake/workbook.cmake).

# Only the group's own block is copied: the neighbours at the block's edges are missing.
workbook_mutant(no_halo smooth.cl
  [=[    const int first = max(base - 1, 0);
    const int end = min(base + (int)get_local_size(0) + 1, count);]=]
  [=[    const int first = base;  // planted bug: no neighbours copied
    const int end = min(base + (int)get_local_size(0), count);]=])
workbook_mutant(ends_not_clamped smooth.cl
  [=[        const float left = (i == 0) ? centre : tile[lid];]=]
  [=[        const float left = tile[lid];  // planted bug: reads before the array at i == 0]=])
# Reads the tile without waiting for the copy.
workbook_mutant(no_wait smooth.cl
  [=[    wait_group_events(1, &copied);]=]
  [=[    (void)copied;  // planted bug: the copy is never waited for]=])
workbook_mutant(no_bounds_check smooth.cl
  [=[    if (i < count) {
        const float centre]=]
  [=[    {  // planted bug: work-items past the end write too
        const float centre]=])
# The calls kept in a branch no launch takes, the tile loaded by hand: right values everywhere, and
# the words of both calls in the source. What ran (Oclgrind's count of the calls) catches it.
workbook_mutant(calls_in_dead_branch smooth.cl
  [=[    event_t copied = async_work_group_copy(destination, in + first, (size_t)n, 0);
    // Until this returns the tile may be incomplete; afterwards it is visible to the whole group.
    wait_group_events(1, &copied);]=]
  [=[    if (count < 0) {  // planted bug: the calls in a branch no launch takes
        event_t copied = async_work_group_copy(destination, in + first, (size_t)n, 0);
        wait_group_events(1, &copied);
    }
    for (int k = lid; k < n; k += (int)get_local_size(0)) destination[k] = in[first + k];
    barrier(CLK_LOCAL_MEM_FENCE);]=]
  MESSAGE "ran async_work_group_copy 0 times")
