# Planted bugs for exercise 02: each is the solution with one mistake students make, and the
# graded test must fail on every one (see workbook_mutant() in cmake/workbook.cmake).

# The kernel
workbook_mutant(no_bounds_check vadd.cl
  [=[    if (i < count) {]=]
  [=[    {  // planted bug: no bounds check]=])
workbook_mutant(bound_one_short vadd.cl
  [=[if (i < count)]=]
  [=[if (i < count - 1)  /* planted bug */]=])
# Also run under the race check: with exact-size buffers Oclgrind sees the write past c.
workbook_mutant(bound_one_past vadd.cl
  [=[if (i < count)]=]
  [=[if (i <= count)  /* planted bug */]=] ALSO_RACE)
workbook_mutant(wrong_operand vadd.cl
  [=[c[i] = a[i] + b[i];]=]
  [=[c[i] = a[i] + a[i];  // planted bug]=])
workbook_mutant(subtracts vadd.cl
  [=[c[i] = a[i] + b[i];]=]
  [=[c[i] = a[i] - b[i];  // planted bug]=])
workbook_mutant(shifted_index vadd.cl
  [=[c[i] = a[i] + b[i];]=]
  [=[c[i] = a[i + 1] + b[i + 1];  // planted bug]=])
workbook_mutant(local_id vadd.cl
  [=[get_global_id(0)]=]
  [=[get_local_id(0) /* planted bug */]=])
# The sum goes through a 16-bit half on its way to c (vstore_half needs no fp16 extension).
workbook_mutant(lost_precision vadd.cl
  [=[        c[i] = a[i] + b[i];]=]
  [=[        ushort h;  // planted bug: half precision
        vstore_half(a[i] + b[i], 0, (__private half*)&h);
        c[i] = vload_half(0, (__private half*)&h);]=])

# The host code
workbook_mutant(host_no_read_back vadd_host.cpp
  [=[    queue.enqueueReadBuffer(c_device, CL_TRUE, 0, bytes, c);]=]
  [=[    (void)c;  // planted bug: c is never read back]=])
workbook_mutant(host_count_one_short vadd_host.cpp
  [=[c_device, static_cast<cl_uint>(count));]=]
  [=[c_device, static_cast<cl_uint>(count - 1));  // planted bug]=])
workbook_mutant(host_reads_one_too_many vadd_host.cpp
  [=[    const std::size_t bytes = count * sizeof(float);]=]
  [=[    const std::size_t bytes = (count + 1) * sizeof(float);  // planted bug: one element too many]=])
# Host code that never touches OpenCL: the sum on the CPU, right at every size. Only the witness
# case (the test's own vadd.cl, whose results carry a mark) can tell.
workbook_mutant(host_sums_on_cpu vadd_host.cpp
  [=[    cl::Context context(device);]=]
  [=[    for (std::size_t i = 0; i < count; ++i) c[i] = a[i] + b[i];  // planted bug: no device at all
    (void)device;
    return;
    cl::Context context(device);]=]
  MESSAGE "did not run the kernel it was given")

# Host code that reads the witness's key from the kernel text it is handed (the key was written
# in it: issue 60, class 1) and adds the marks on the CPU, never touching the device. With the
# OpenCL broker the key is in no text the runner holds: the witness case sees plain sums.
workbook_mutant(host_reads_the_witness_key vadd_host.cpp
  [=[    cl::Context context(device);]=]
  [=[    {  // planted bug: the key from the kernel's text, the marks added on the CPU
        const std::string text = kernel_source("vadd.cl").text;
        std::uint32_t key = 0;
        bool found = false;
        for (const char* cue : {"#define WORKBOOK_WITNESS_KEY ", "0x9E3779B1u) ^ "})
            if (const auto at = text.find(cue); !found && at != std::string::npos) {
                const std::string digits = text.substr(at + std::string(cue).size(), 12);
                if (!digits.empty() && digits[0] >= '0' && digits[0] <= '9') {
                    key = static_cast<std::uint32_t>(std::stoul(digits));
                    found = true;
                }
            }
        for (std::size_t i = 0; i < count; ++i) {
            std::uint32_t h = (static_cast<std::uint32_t>(i) * 0x9E3779B1u) ^ key;
            h ^= h >> 15;
            h *= 0x2C1B3C6Du;
            h ^= h >> 12;
            c[i] = a[i] + b[i] + (found ? static_cast<float>(h % 1021u + 1u) : 0.0f);
        }
        (void)device;
        return;
    }
    cl::Context context(device);]=]
  MESSAGE "did not run the kernel it was given")

# Host code that runs the kernel it is given, but over zeros: the results are then the marks
# alone, which it adds to sums made on the CPU. The marks are right; the device summed nothing.
# The OpenCL broker copies what each launch's buffers hold as the kernel runs, and the witness
# case requires a launch over the inputs given.
workbook_mutant(host_marks_from_zeros vadd_host.cpp
  [=[    vadd(cl::EnqueueArgs(queue, cl::NDRange(count)), a_device, b_device, c_device, static_cast<cl_uint>(count));
    queue.enqueueReadBuffer(c_device, CL_TRUE, 0, bytes, c);]=]
  [=[    std::vector<float> zeros(count, 0.0f);  // planted bug: the kernel over zeros, the sums on the CPU
    cl::Buffer z_device(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, zeros.data());
    vadd(cl::EnqueueArgs(queue, cl::NDRange(count)), z_device, z_device, c_device, static_cast<cl_uint>(count));
    queue.enqueueReadBuffer(c_device, CL_TRUE, 0, bytes, c);
    for (std::size_t i = 0; i < count; ++i) c[i] = (a[i] + b[i]) + c[i];]=]
  MESSAGE "never over its two inputs")
