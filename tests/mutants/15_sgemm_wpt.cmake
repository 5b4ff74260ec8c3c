# Planted bugs for exercise 15 (see workbook_mutant() in cmake/workbook.cmake).

workbook_mutant(missing_first_barrier mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // both tiles complete before anyone reads them]=]
  [=[        // planted bug: no barrier after the loads]=] RACE)
# The stores and the sums disagree on rows: each sum lands in row lr*WPT + w of the block.
workbook_mutant(store_rows_contiguous mmul.cl
  [=[const int row = first_row + lr + w * RTS;]=]
  [=[const int row = first_row + lr * WPT + w;  // planted bug: not the row this sum is for]=])
workbook_mutant(edge_tiles_dropped mmul.cl
  [=[const int tiles = (N + TS - 1) / TS;]=]
  [=[const int tiles = N / TS;  // planted bug: rounds down]=])
# The register holds the wrong B value: the row of the tile instead of the column.
workbook_mutant(b_transposed mmul.cl
  [=[const float b = Bwrk[k * TS + lc];]=]
  [=[const float b = Bwrk[lc * TS + k];  // planted bug: B tile read transposed]=])
# The store checks the column only: the last block's rows past N are written past the end of C.
workbook_mutant(store_unguarded_rows mmul.cl
  [=[if (row < N && col < N) C[row * N + col] = acc[w];]=]
  [=[if (col < N) C[row * N + col] = acc[w];  // planted bug: rows past N written]=] ALSO_RACE)
