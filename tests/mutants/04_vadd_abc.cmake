# Planted bugs for exercise 04: each is the solution with one mistake students make, and the
# graded test must fail on every one (see workbook_mutant() in cmake/workbook.cmake).

workbook_mutant(drops_c vadd_abc.cl
  [=[d[i] = a[i] + b[i] + c[i];]=]
  [=[d[i] = a[i] + b[i];  // planted bug]=])
workbook_mutant(no_bounds_check vadd_abc.cl
  [=[    if (i < count) {]=]
  [=[    {  // planted bug: no bounds check]=])
workbook_mutant(host_swapped_buffers vadd_abc_host.cpp
  [=[a_device, b_device, c_device, d_device,]=]
  [=[a_device, b_device, d_device, c_device,  // planted bug: c and d swapped]=])
# Host code that never touches OpenCL (the witness case catches it; see 02's host_sums_on_cpu).
workbook_mutant(host_sums_on_cpu vadd_abc_host.cpp
  [=[    cl::Context context(device);]=]
  [=[    for (std::size_t i = 0; i < count; ++i) d[i] = a[i] + b[i] + c[i];  // planted bug: no device at all
    (void)device;
    return;
    cl::Context context(device);]=]
  MESSAGE "did not run the kernel it was given")
