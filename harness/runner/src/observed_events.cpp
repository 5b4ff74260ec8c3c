// The runner's view of the profiling times its process read (runner_observed.hpp). Defining
// clGetEventProfilingInfo here puts this definition in front of the OpenCL loader's for every call
// in the runner's executable (the student's host code, the util layer, CLHPP), and it forwards
// each call to the loader's own.
#include "workbook/runner_observed.hpp"

#include <CL/cl.h>
#include <dlfcn.h>

#include <map>
#include <mutex>
#include <utility>

namespace {

using Real = cl_int (*)(cl_event, cl_profiling_info, size_t, void*, size_t*);

std::mutex seen_mutex;
std::map<cl_event, std::pair<cl_ulong, cl_ulong>> seen;  // START, END as read (0: not read)

}  // namespace

extern "C" CL_API_ENTRY cl_int CL_API_CALL clGetEventProfilingInfo(cl_event event, cl_profiling_info name, size_t size,
                                                                   void* value, size_t* size_ret) {
    static const Real real = reinterpret_cast<Real>(dlsym(RTLD_NEXT, "clGetEventProfilingInfo"));
    if (!real) return CL_INVALID_OPERATION;
    const cl_int status = real(event, name, size, value, size_ret);
    if (status == CL_SUCCESS && value && size >= sizeof(cl_ulong) &&
        (name == CL_PROFILING_COMMAND_START || name == CL_PROFILING_COMMAND_END)) {
        const std::lock_guard lock(seen_mutex);
        auto& times = seen[event];
        (name == CL_PROFILING_COMMAND_START ? times.first : times.second) = *static_cast<const cl_ulong*>(value);
    }
    return status;
}

namespace workbook::runner {

std::vector<double> observed_event_seconds() {
    const std::lock_guard lock(seen_mutex);
    std::vector<double> out;
    for (const auto& [event, times] : seen)
        if (times.first != 0 && times.second >= times.first) out.push_back(static_cast<double>(times.second - times.first) * 1e-9);
    return out;
}

void forget_observed_events() {
    const std::lock_guard lock(seen_mutex);
    seen.clear();
}

}  // namespace workbook::runner
