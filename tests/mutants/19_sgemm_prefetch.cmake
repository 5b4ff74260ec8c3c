# Planted bugs for exercise 19 (see workbook_mutant() in cmake/workbook.cmake).

# Without the barrier at the end of a step, a work-item may read tile t + 1 before the others
# have stored their shares of it, or store tile t + 2 over tile t while others still read it. A CPU
# device runs the group's work-items in turn and hides it; the race pass reports it.
workbook_mutant(missing_barrier mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // tile t + 1 complete, and tile t read by everyone]=]
  [=[        // planted bug: no barrier at the end of the step]=] RACE)
# The next tile stored into the set being read: one barrier is no longer enough.
workbook_mutant(same_set mmul.cl
  [=[        if (t + 1 < tiles) { PUT_TILES(s ^ 1) }]=]
  [=[        if (t + 1 < tiles) { PUT_TILES(s) }  // planted bug: the set being read]=] RACE)
# The prefetch fetches the tile being multiplied instead of the next one: tile 0 counted twice,
# the last tile never.
workbook_mutant(prefetch_same_tile mmul.cl
  [=[        if (t + 1 < tiles) { FETCH_TILES(t + 1) }]=]
  [=[        if (t + 1 < tiles) { FETCH_TILES(t) }  // planted bug]=])
# The loop stops when there is no next tile to prefetch, so the last tile is never multiplied.
workbook_mutant(last_tile_dropped mmul.cl
  [=[    for (int t = 0; t < tiles; t++) {]=]
  [=[    for (int t = 0; t + 1 < tiles; t++) {  // planted bug: the last tile is left out]=])
# The barrier kept only where the tiles are 8 deep, as under Oclgrind's default 32 KiB of local
# memory: PoCL and the H100 grade the 16-deep build. The race pass gives Oclgrind the graded
# device's local memory (race_check.cpp), so it checks the build that is graded.
workbook_mutant(barrier_only_when_shallow mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // tile t + 1 complete, and tile t read by everyone]=]
  [=[        if (TSK < 16) barrier(CLK_LOCAL_MEM_FENCE);  // planted bug: only in the 8-deep build]=] RACE)
