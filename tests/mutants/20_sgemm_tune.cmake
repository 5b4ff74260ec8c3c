# Planted bugs for exercise 20 (see workbook_mutant() in cmake/workbook.cmake). The one-set loop
# (PREFETCH = 0) is the student's; each bug below is in it, or keeps a barrier for some shapes only.

# Without the barrier after the stores, a work-item multiplies a tile others have not stored yet.
# A CPU device runs the group's work-items in turn and hides it; the race pass reports it at the
# graded shape that does not prefetch.
workbook_mutant(one_set_no_first_barrier mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // tile t complete]=]
  [=[        // planted bug: no barrier between the stores and the multiply-adds]=] RACE)
# Without the barrier at the end of the step, the next step stores over the tile others still read.
workbook_mutant(one_set_no_second_barrier mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // tile t read by everyone: the next step may overwrite it]=]
  [=[        // planted bug: the next step may overwrite the tile while others read it]=] RACE)
# Every step loads tile 0: correct where N fits one tile deep, wrong elsewhere; the tuner marks
# these shapes FAILED and never chooses one (tests/tuning).
workbook_mutant(one_set_fetches_tile_0 mmul.cl
  [=[        FETCH_TILES(t)
        PUT_TILES(0)]=]
  [=[        FETCH_TILES(0)  // planted bug: always the first tile
        PUT_TILES(0)]=])
# The prefetching loop's barrier kept only in blocks of more than 64 rows. The untuned CPU shape
# (64 x 64, prefetching) has none, and it is the shape graded there, so the race pass checks it.
workbook_mutant(barrier_only_in_big_blocks mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // tile t + 1 complete, and tile t read by everyone]=]
  [=[        if (TSM > 64) barrier(CLK_LOCAL_MEM_FENCE);  // planted bug: only in the big blocks]=] RACE)
# The block's sides swapped where the group finds its place: right wherever the block is square
# (every shape a CPU would grade otherwise), wrong at a 32 x 64 or 64 x 128 block, which the test
# therefore always grades too.
workbook_mutant(block_sides_swapped mmul.cl
  [=[    const int first_row = get_group_id(1) * TSM, first_col = get_group_id(0) * TSN;]=]
  [=[    const int first_row = get_group_id(1) * TSN, first_col = get_group_id(0) * TSM;  // planted bug: sides swapped]=]
  MESSAGE "elements differ")
