# Planted bugs for exercise 17 (see workbook_mutant() in cmake/workbook.cmake).

workbook_mutant(missing_first_barrier mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // both tiles complete before anyone reads them]=]
  [=[        // planted bug: no barrier after the loads]=] RACE)
workbook_mutant(edge_tiles_dropped mmul.cl
  [=[const int tiles = (N + TSK - 1) / TSK;]=]
  [=[const int tiles = N / TSK;  // planted bug: rounds down]=])
# The second float4 of columns read from the wrong place: eight columns instead of TSN / 2 on.
workbook_mutant(second_columns_misread mmul.cl
  [=[b1 = Bwrk[k * (TSN / 4) + lc + TSN / 8];]=]
  [=[b1 = Bwrk[k * (TSN / 4) + lc + 2];  // planted bug: not the columns stored]=])
# The stores take the rows as neighbours while the sums used rows RTSM apart.
workbook_mutant(store_rows_neighbours mmul.cl
  [=[        const int row = first_row + lr + i * RTSM;]=]
  [=[        const int row = first_row + lr * WPTM + i;  // planted bug: not the rows summed]=])
# The loads cover half of each tile.
workbook_mutant(half_tile_loaded mmul.cl
  [=[for (int q = id; q < TSM * TSK / 4; q += threads) {]=]
  [=[for (int q = id; q < TSM * TSK / 8; q += threads) {  // planted bug: half the float4s]=] ALSO_RACE)
# B re-read from local memory for every row of the block (exercise 16's traffic), written with
# vload4: a call, not a load instruction, in Oclgrind's counts, which once showed half the
# solution's local traffic and passed on PoCL. Counted as the loads they are (traffic.cpp), its
# local bytes are above the previous rung's.
workbook_mutant(b_reread_with_vload4 mmul.cl
  [=[            const float4 b0 = Bwrk[k * (TSN / 4) + lc], b1 = Bwrk[k * (TSN / 4) + lc + TSN / 8];
            for (int i = 0; i < WPTM; i++) {
                const float a = As[(lr + i * RTSM) * TSK + k];
                acc[i][0] += a * b0;
                acc[i][1] += a * b1;
            }]=]
  [=[            __local const float* Bs = (__local const float*)Bwrk;  // planted bug: B re-read for every row
            for (int i = 0; i < WPTM; i++) {
                const float a = As[(lr + i * RTSM) * TSK + k];
                acc[i][0] += a * vload4(k * (TSN / 4) + lc, Bs);
                acc[i][1] += a * vload4(k * (TSN / 4) + lc + TSN / 8, Bs);
            }]=]
  MESSAGE "local bytes loaded per multiply-add")
