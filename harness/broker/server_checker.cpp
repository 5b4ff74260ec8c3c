// What the broker does for the checker's own kernels alone: builds them apart from the client's
// options, sets and hides their secret argument, refuses launches past the buffers they index,
// and copies the inputs each launch is about to read (the evidence the checker asks for).
#include "server.hpp"

#include <algorithm>
#include <string>

namespace workbook::broker {

Writer Server::build_program(Reader& in) {
    const auto id = in.get<std::uint64_t>();
    const auto program = static_cast<cl_program>(lookup(Kind::Program, id));
    std::vector<cl_device_id> devices;
    for (const auto d : in.ids()) devices.push_back(static_cast<cl_device_id>(lookup(Kind::Device, d)));
    const std::string own = in.text();
    // Argument info lets set_kernel_arg tell a handle from plain bytes (and adopt find its
    // argument). The checker's own sources are built with none of the client's options (a -D of
    // the client's could turn the checker's kernel into one that writes its secret argument out),
    // and with no secret either: it is an argument, so the program, and PoCL's cache of it, hold none.
    const auto source = sources_.find(id);
    const bool checkers = !secret_.empty() && source != sources_.end() && ours_.count(source->second);
    // Nothing else is built where the checker named its sources: a kernel of the runner's own,
    // run in this process, could read its memory (PoCL runs kernels as native code, unchecked).
    if (!ours_.empty() && !checkers) {
        client_options_[id] = own;
        return status(CL_BUILD_PROGRAM_FAILURE);
    }
    const std::string options = checkers ? "-cl-kernel-arg-info" : own + " -cl-kernel-arg-info";
    const cl_int err = clBuildProgram(program, static_cast<cl_uint>(devices.size()),
                                      devices.empty() ? nullptr : devices.data(), options.c_str(), nullptr, nullptr);
    client_options_[id] = own;
    if (checkers) checkers_programs_.insert(program);
    else checkers_programs_.erase(program);
    return status(err);
}

cl_int Server::adopt(cl_program program, cl_kernel kernel) {
    if (!checkers_programs_.count(program)) return CL_SUCCESS;
    cl_uint n = 0;
    cl_int err = clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof n, &n, nullptr);
    if (err != CL_SUCCESS || n == 0) return err;
    const auto text = [&](cl_uint index, cl_kernel_arg_info what) {
        char value[128] = {};
        clGetKernelArgInfo(kernel, index, what, sizeof value - 1, value, nullptr);
        return std::string(value);
    };
    char kernel_name[256] = {};
    clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof kernel_name - 1, kernel_name, nullptr);
    if (const auto bound = bounds_.find(kernel_name); bound != bounds_.end()) {
        // A bound whose argument the kernel lacks is the checker's mistake: its launches all refused.
        BoundArg b{n, bound->second.power, false, std::nullopt, {}};
        for (cl_uint i = 0; i < n; ++i) {
            if (text(i, CL_KERNEL_ARG_NAME) == bound->second.arg) {
                b.index = i;
                b.is_signed = text(i, CL_KERNEL_ARG_TYPE_NAME) == "int";
            }
            cl_kernel_arg_address_qualifier address = 0;
            clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address, &address, nullptr);
            if (address == CL_KERNEL_ARG_ADDRESS_GLOBAL || address == CL_KERNEL_ARG_ADDRESS_CONSTANT) b.buffers.push_back(i);
        }
        bound_args_[kernel] = b;
    }
    if (text(n - 1, CL_KERNEL_ARG_NAME) != secret_argument) return CL_SUCCESS;
    err = clSetKernelArg(kernel, n - 1, sizeof secret_value_, &secret_value_);
    if (err == CL_SUCCESS) secret_args_[kernel] = n - 1;
    return err;
}

cl_int Server::within_bound(cl_kernel kernel) {
    const auto b = bound_args_.find(kernel);
    if (b == bound_args_.end()) return CL_SUCCESS;
    if (!b->second.value) return CL_INVALID_KERNEL_ARGS;
    const std::int64_t v = std::max<std::int64_t>(0, *b->second.value);
    const std::uint64_t need = (b->second.power == 2 ? static_cast<std::uint64_t>(v) * static_cast<std::uint64_t>(v)
                                                     : static_cast<std::uint64_t>(v)) * 4;
    const auto& mems = kernel_mems_[kernel];
    for (const cl_uint index : b->second.buffers) {
        const auto mem = mems.find(index);  // none: a null pointer, whose indices reach anywhere
        std::size_t size = 0;
        if (mem == mems.end() || clGetMemObjectInfo(mem->second, CL_MEM_SIZE, sizeof size, &size, nullptr) != CL_SUCCESS ||
            size < need)
            return CL_INVALID_KERNEL_ARGS;
    }
    return CL_SUCCESS;
}

std::vector<Staged> Server::stage_inputs(cl_command_queue queue, cl_kernel kernel, std::vector<cl_event>& waits) {
    std::vector<Staged> out;
    if (watched_.empty()) return out;
    const auto args = kernel_mems_.find(kernel);
    if (args == kernel_mems_.end()) return out;
    cl_context context = nullptr;
    clGetKernelInfo(kernel, CL_KERNEL_CONTEXT, sizeof context, &context, nullptr);
    const std::vector<cl_event> before = waits;
    for (const auto& [index, mem] : args->second) {
        std::size_t size = 0;
        clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, nullptr);
        size = std::min(size, watched_bytes_);
        if (size == 0 || size > max_staged_bytes - std::min(staged_bytes_, max_staged_bytes)) continue;
        // Copied on the device first: the runner's buffer may be one the host cannot read
        // (CL_MEM_HOST_NO_ACCESS), and the kernel may overwrite it.
        cl_int err = CL_SUCCESS;
        Staged s;
        s.arg = index;
        s.copy = clCreateBuffer(context, CL_MEM_READ_WRITE, size, nullptr, &err);
        if (err != CL_SUCCESS) continue;
        cl_event copied = nullptr;
        err = clEnqueueCopyBuffer(queue, mem, s.copy, 0, 0, size, static_cast<cl_uint>(before.size()),
                                  before.empty() ? nullptr : before.data(), &copied);
        if (err != CL_SUCCESS) {
            clReleaseMemObject(s.copy);
            continue;
        }
        s.bytes.resize(size);
        err = clEnqueueReadBuffer(queue, s.copy, CL_FALSE, 0, size, s.bytes.data(), 1, &copied, &s.read);
        if (err != CL_SUCCESS) s.read = nullptr;
        waits.push_back(copied);  // released at the report, with the read
        copies_.push_back(copied);
        staged_bytes_ += size;
        out.push_back(std::move(s));
    }
    return out;
}

}  // namespace workbook::broker
