# Planted bugs for exercise 10 (see workbook_mutant() in cmake/workbook.cmake).

workbook_mutant(missing_first_barrier mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // both tiles complete before anyone reads them]=]
  [=[        // planted bug: no barrier after the loads]=] RACE)
workbook_mutant(missing_second_barrier mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // everyone done with these tiles before the next load]=]
  [=[        // planted bug: no barrier before the next load]=] RACE)
workbook_mutant(tile_index_swapped mmul.cl
  [=[sum += Awrk[lr * TS + k] * Bwrk[k * TS + lc];]=]
  [=[sum += Awrk[k * TS + lr] * Bwrk[k * TS + lc];  // planted bug: A tile read transposed]=])
# Only whole tiles: the blocks at the edges are dropped when N is not a multiple of TS.
workbook_mutant(edge_tiles_dropped mmul.cl
  [=[const int blocks = (N + TS - 1) / TS;]=]
  [=[const int blocks = N / TS;  // planted bug: rounds down]=])
# Early return before the barriers: work-items outside the matrix never reach them.
workbook_mutant(early_return mmul.cl
  [=[    float sum = 0.0f;
    // Rounded up]=]
  [=[    if (row >= N || col >= N) return;  // planted bug: skips the barriers
    float sum = 0.0f;
    // Rounded up]=]
  RACE_MESSAGE "Work-group divergence")
