// What runners do for the graded tests (see runner.hpp): the generic operations every runner has
// (a vector-sum kernel, a pi kernel, a kernel's largest 1D work-group), and the pieces exercises'
// runner.cpp files put together for their own: a matmul rung, host code that sums vectors.
//
// Buffers travel whole: the checker sends each input with its slack of junk and each output
// poisoned with its guard band after it; the runner copies them to the device as they are and
// sends the outputs back whole, so the checker alone decides what a wrong value or a write past
// the end is.
#pragma once

#include "workbook/kernels.hpp"
#include "workbook/matmul.hpp"
#include "workbook/runner.hpp"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace workbook::runner {

// The program built from kernel file `file` (as kernel_source finds it), built once per runner.
cl::Program program(const std::string& file, const std::string& options = "");

// A device buffer holding `values` (inputs and poisoned outputs alike).
cl::Buffer buffer_of(const std::vector<float>& values, cl_mem_flags flags = CL_MEM_READ_WRITE);

// The whole buffer back, `count` floats.
std::vector<float> read_back(const cl::Buffer& buffer, std::size_t count);

// "matmul": request n, arrays a, b (n·n and slack) and c (poisoned, guard band); reply c and the
// launch's description. The rung decides the geometry on this device.
Message run_matmul(const matmul::Rung& rung, const Message& request);

// The speed check's launches (testing.hpp's check_matmul_speed), one kernel of `rungs` at a time:
// "student" is the rung's kernel as the student wrote it (kernel_source), any other key a
// reference rung whose kernel "<key>/mmul.cl" was embedded at build time (never read from a
// folder a student can write). Request text "kernel" and "step":
//   upload    n, arrays a, b and c: builds the kernel (once), makes the buffers; replies the
//             device type ("cpu", "gpu" or "other") and the launch's description
//   launch    one launch on those buffers, waited for: the checker times this call from outside
//             on CPU devices, where the kernel is native code in this process
//   download  c, and the last launch's device time as "event_s"
Message run_matmul_timed(const std::map<std::string, matmul::Rung>& rungs, const Message& request);

// The checker's witness kernel when `request` carries one (text "witness_file" and
// "witness_source", testing.hpp): kernel_source() gives it in place of that file for as long as
// the returned object lives; null when the request has none.
std::unique_ptr<KernelOverride> witness_kernel(const Message& request);

// The witness kernel of `request` (text "witness_source") built here and handed on as a program
// made from the device's binary of it: where the runner, not the student's host code, builds the
// program (exercise 03), the host code gets a kernel whose program has no source to read the
// mark's key from (CL_PROGRAM_SOURCE is empty). Null when the request carries no witness.
std::optional<cl::Program> witness_binary_program(const Message& request);

// Host code that computes out = in_0 + ... on the device: request count, inputs, arrays in0...
// and out (and maybe a witness kernel); reply out.
using VectorSumHost = std::function<void(const std::vector<const float*>& inputs, float* out, std::size_t count)>;
Message run_vector_sum_host(const Message& request, const VectorSumHost& run);

}  // namespace workbook::runner
