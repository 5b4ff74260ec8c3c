# Planted bugs for exercise 01: each is the solution with one mistake students make, and the
# graded test must fail on every one (see workbook_mutant() in cmake/workbook.cmake).

# Global and local memory sizes swapped: both are cl_ulong byte counts, so it compiles.
workbook_mutant(memory_sizes_swapped device_info.cpp
  [=[                d.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>(),
                d.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>(),]=]
  [=[                d.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>(),  // planted bug: swapped
                d.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>(),]=])

# A neighbouring query in place of the compute units.
workbook_mutant(max_compute_units_wrong device_info.cpp
  [=[d.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>(),]=]
  [=[static_cast<cl_uint>(d.getInfo<CL_DEVICE_MAX_CLOCK_FREQUENCY>()),  // planted bug: wrong query]=])
