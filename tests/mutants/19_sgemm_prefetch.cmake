# Planted bugs for exercise 19 (see workbook_mutant() in cmake/workbook.cmake).

# Without the barrier before the stores, a work-item that finishes the k loop first overwrites
# tile t while others still read it. A CPU device runs the group's work-items in turn and hides
# it; the race pass reports it.
workbook_mutant(missing_read_barrier mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // everyone done reading tile t before it is overwritten]=]
  [=[        // planted bug: no barrier before tile t + 1 is stored]=] RACE)
# Without the barrier after the stores, a work-item may read tile t + 1 before the others have
# stored their shares of it.
workbook_mutant(missing_write_barrier mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // tile t + 1 complete before anyone reads it]=]
  [=[        // planted bug: no barrier after tile t + 1 is stored]=] RACE)
# The prefetch fetches the tile being multiplied instead of the next one: tile 0 counted twice,
# the last tile never.
workbook_mutant(prefetch_same_tile mmul.cl
  [=[        if (t + 1 < tiles) fetch_tiles(A, B, N, t + 1, id, first_row, first_col, ra, rb);]=]
  [=[        if (t + 1 < tiles) fetch_tiles(A, B, N, t, id, first_row, first_col, ra, rb);  // planted bug]=])
# The loop stops when there is no next tile to prefetch, so the last tile is never multiplied.
workbook_mutant(last_tile_dropped mmul.cl
  [=[    for (int t = 0; t < tiles; t++) {]=]
  [=[    for (int t = 0; t + 1 < tiles; t++) {  // planted bug: the last tile is left out]=])
