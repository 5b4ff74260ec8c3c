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
