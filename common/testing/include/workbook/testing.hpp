// What graded tests share: the device (chosen from WORKBOOK_* variables, printed once), seeded
// inputs, the awkward sizes, device outputs that are poisoned and guarded, launches whose global
// size overshoots the data on purpose, and the graders for vector-sum kernels and host code.
#pragma once

#include "workbook/check.hpp"
#include "workbook/cl.hpp"
#include "workbook/device.hpp"
#include "workbook/matmul.hpp"
#include "workbook/random.hpp"

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace workbook::testing {

struct TestDevice {
    DeviceChoice choice;
    cl::Context context;
    cl::CommandQueue queue;  // in order, profiling on
};

// Chosen on first use from WORKBOOK_PLATFORM / WORKBOOK_DEVICE / WORKBOOK_DEVICE_TYPE.
TestDevice& device();

// A generator for one purpose and size, derived from the session seed.
Rng rng(std::string_view purpose, std::uint64_t index = 0);

// "repeat with WORKBOOK_SEED=1234": appended to every failure message.
std::string repeat_hint();

// True when WORKBOOK_SMALL=1: graded tests then use only small sizes, for running under a
// simulator such as Oclgrind, which is thousands of times slower than a device.
bool small_sizes_only();

// 1, small primes, sizes that are no multiple of any work-group size, one just past a power of
// two and one above 2^20 (with WORKBOOK_SMALL=1: 1, 7, 61 and 257).
std::vector<std::size_t> awkward_sizes();

// Elements of slack after every test buffer: junk after inputs (so reading past the end is
// harmless), the guard pattern after outputs (so writing past the end is seen).
inline constexpr std::size_t guard_elements = 1024;

// The slack after device buffers: guard_elements on a real device, none under the simulator
// (WORKBOOK_SMALL=1), whose own bounds check then sees an access one element past the end.
std::size_t device_slack();

// A read-only device buffer holding `values` followed by device_slack() elements of random junk.
cl::Buffer padded_input(std::span<const float> values, cl_mem_flags flags = CL_MEM_READ_ONLY);

// A device output of `count` NaN-poisoned elements followed by a guard band of device_slack().
class DeviceOutput {
public:
    explicit DeviceOutput(std::size_t count, cl_mem_flags flags = CL_MEM_READ_WRITE);
    const cl::Buffer& buffer() const { return buffer_; }
    std::size_t count() const { return count_; }
    // Reads everything back: the `count` values, and sets guard_report (empty when intact).
    std::vector<float> read(std::string& guard_report) const;

private:
    std::size_t count_;
    cl::Buffer buffer_;
};

// A 1D launch for `count` items whose global size is deliberately rounded up past count, with a
// local size the kernel and device accept: a kernel without a bounds check writes past the end.
struct OvershootingLaunch {
    std::size_t global = 0;
    std::size_t local = 0;
};
OvershootingLaunch overshooting_launch(const cl::Kernel& kernel, std::size_t count);

// Grades `kernel_name` from the kernel file `file`, a kernel of the shape
//   kernel(in_0, ..., in_{n-1}, out, const unsigned int count)  with out[i] = in_0[i] + ... + in_{n-1}[i]
// at every awkward size, with overshooting launches, poisoned outputs and guard bands.
void check_vector_sum_kernel(const std::string& file, const std::string& kernel_name, std::size_t inputs);

// Grades host code that computes out[i] = in_0[i] + ... on the device: `run` gets the input
// arrays, a poisoned output with a guard band after it, and the count.
using VectorSumHost = std::function<void(const std::vector<const float*>& inputs, float* out, std::size_t count)>;
void check_vector_sum_host(const std::string& what, std::size_t inputs, const VectorSumHost& run);

// The sizes a matmul rung is graded at: 1, 17, 100, 257 (none a multiple of 16 or of a
// work-group size) and 1024, each capped at the rung's max_n (which is then tried itself).
std::vector<int> matmul_sizes(const matmul::Rung& rung);

// Grades a rung's mmul kernel with its own launch geometry: random non-symmetric A and B (junk
// after them), C poisoned with NaN and a guard band after it, tolerance relative to Σ|a·b|, the
// first mismatch reported with its row and column.
void check_matmul_kernel(const matmul::Rung& rung);

// Grades a kernel with the pi signature (pi.hpp) from `file`: every partial sum, for launches with
// work-groups of 1, 7, 33, 64 and the most the kernel accepts, 1 to 5 groups, and niters of 1, 3,
// 5, 17, 1000 plus `extra_niters` (for vector kernels, counts that are no multiple of the width).
// A partial sum that is missing, misplaced or off by more than the float maths allows fails.
void check_pi_kernel(const std::string& file, const std::string& kernel_name, const std::vector<int>& extra_niters = {});

// The message for a vector result: the comparison, what NaN means here, and the seed.
std::string explain_result(const std::string& what, std::size_t count, const Comparison& result);

}  // namespace workbook::testing
