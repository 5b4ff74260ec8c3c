// workbook-broker's request handlers: each decodes one forwarded OpenCL call, makes the real call
// and encodes the reply; binaries never leave. What only the checker's own kernels get (their
// build, hidden secret, bounds and staged inputs) is in server_checker.cpp.
#include "server.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>
#include <thread>

namespace workbook::broker {

namespace {

std::vector<std::size_t> sizes(Reader& in, cl_uint dims) {
    std::vector<std::size_t> out(dims);
    for (auto& s : out) s = static_cast<std::size_t>(in.get<std::uint64_t>());
    return out;
}

cl_int event_status(cl_event e) {
    cl_int s = CL_QUEUED;
    const cl_int err = clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, nullptr);
    return err == CL_SUCCESS ? s : err;
}

// Pointer-sized bytes for an argument the runtime would read as an object handle (a buffer, an
// image, a sampler, a queue) would make the broker dereference a pointer of the client's choosing.
bool handle_typed_arg(cl_kernel kernel, cl_uint index) {
    cl_kernel_arg_address_qualifier address = 0;
    if (clGetKernelArgInfo(kernel, index, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address, &address, nullptr) !=
        CL_SUCCESS)
        return true;
    if (address != CL_KERNEL_ARG_ADDRESS_PRIVATE) return true;
    char type[256] = {};
    if (clGetKernelArgInfo(kernel, index, CL_KERNEL_ARG_TYPE_NAME, sizeof type - 1, type, nullptr) != CL_SUCCESS)
        return true;
    const std::string name(type);
    for (const char* bad : {"sampler_t", "queue_t", "event_t", "image", "pipe", "*"})
        if (name.find(bad) != std::string::npos) return true;
    return false;
}

}  // namespace

Writer Server::handle(Op op, Reader& in) {
    try {
        switch (op) {
        case Op::GetPlatformIDs: {
            cl_uint n = 0;
            cl_int err = clGetPlatformIDs(0, nullptr, &n);
            std::vector<cl_platform_id> platforms(n);
            if (err == CL_SUCCESS && n) err = clGetPlatformIDs(n, platforms.data(), nullptr);
            std::vector<std::uint64_t> ids;
            if (err == CL_SUCCESS)
                for (auto p : platforms) ids.push_back(id_of(Kind::Platform, p));
            Writer w = status(err == CL_PLATFORM_NOT_FOUND_KHR ? CL_SUCCESS : err);
            w.ids(ids);
            return w;
        }
        case Op::GetDeviceIDs: {
            const auto platform = get<cl_platform_id>(in, Kind::Platform, true);
            const auto type = in.get<cl_device_type>();
            cl_uint n = 0;
            cl_int err = clGetDeviceIDs(platform, type, 0, nullptr, &n);
            std::vector<cl_device_id> devices(n);
            if (err == CL_SUCCESS && n) err = clGetDeviceIDs(platform, type, n, devices.data(), nullptr);
            if (err != CL_SUCCESS) return status(err);
            std::vector<std::uint64_t> ids;
            for (auto d : devices) ids.push_back(id_of(Kind::Device, d));
            Writer w = status(CL_SUCCESS);
            w.ids(ids);
            return w;
        }
        case Op::Info: return info(in);
        case Op::CreateContext: return create_context(in, false);
        case Op::CreateContextFromType: return create_context(in, true);
        case Op::CreateQueue: return create_queue(in);
        case Op::CreateBuffer: return create_buffer(in);
        case Op::CreateProgramWithSource: {
            const auto context = get<cl_context>(in, Kind::Context);
            const std::string source = in.text();
            const char* text = source.c_str();
            cl_int err = CL_SUCCESS;
            cl_program p = clCreateProgramWithSource(context, 1, &text, nullptr, &err);
            if (err != CL_SUCCESS) return status(err);
            const auto id = add(Kind::Program, p);
            sources_[id] = source;
            Writer w = status(CL_SUCCESS);
            w.put(id);
            return w;
        }
        case Op::BuildProgram: return build_program(in);
        case Op::CreateKernel: {
            const auto program = get<cl_program>(in, Kind::Program);
            const std::string name = in.text();
            cl_int err = CL_SUCCESS;
            cl_kernel k = clCreateKernel(program, name.c_str(), &err);
            if (err != CL_SUCCESS) return status(err);
            if (err = adopt(program, k); err != CL_SUCCESS) {
                clReleaseKernel(k);
                return status(err);
            }
            Writer w = status(CL_SUCCESS);
            w.put(add(Kind::Kernel, k));
            return w;
        }
        case Op::CreateKernelsInProgram: return create_kernels(in);
        case Op::SetKernelArg: return set_kernel_arg(in);
        case Op::EnqueueNDRange: return enqueue_ndrange(in);
        case Op::EnqueueRead: return enqueue_read(in);
        case Op::TakeRead: return take_read(in);
        case Op::EnqueueWrite: return enqueue_write(in);
        case Op::EnqueueCopy: return enqueue_copy(in);
        case Op::EnqueueFill: return enqueue_fill(in);
        case Op::EnqueueMarker: return enqueue_sync(in, false);
        case Op::EnqueueBarrier: return enqueue_sync(in, true);
        case Op::Flush: return status(clFlush(get<cl_command_queue>(in, Kind::Queue)));
        case Op::Wait: return wait(in);
        case Op::CreateUserEvent: {
            const auto context = get<cl_context>(in, Kind::Context);
            cl_int err = CL_SUCCESS;
            cl_event e = clCreateUserEvent(context, &err);
            if (err != CL_SUCCESS) return status(err);
            // Held to the end, so that one never set can be failed before the report waits.
            clRetainEvent(e);
            user_events_.push_back(e);
            Writer w = status(CL_SUCCESS);
            w.put(add(Kind::Event, e));
            return w;
        }
        case Op::SetUserEventStatus: {
            const auto event = get<cl_event>(in, Kind::Event);
            return status(clSetUserEventStatus(event, in.get<cl_int>()));
        }
        case Op::Release: return release(in);
        case Op::Unsupported: unsupported_.insert(in.text()); return status(CL_SUCCESS);
        }
        return status(CL_INVALID_OPERATION);
    } catch (const Refused& r) {
        return status(r.code);
    } catch (const std::bad_alloc&) {
        return status(CL_OUT_OF_HOST_MEMORY);
    } catch (const WireError&) {
        return status(CL_INVALID_VALUE);
    }
}

Writer Server::info(Reader& in) {
    const auto of = in.get<InfoOf>();
    const auto id = in.get<std::uint64_t>();
    const auto id2 = in.get<std::uint64_t>();
    const auto param = in.get<cl_uint>();
    auto obj = [&](Kind k) { return lookup(k, id); };
    void* second = nullptr;
    if (of == InfoOf::ProgramBuild || of == InfoOf::KernelWorkGroup)
        second = lookup(Kind::Device, id2, of == InfoOf::KernelWorkGroup);

    if (of == InfoOf::Program && (param == CL_PROGRAM_BINARY_SIZES || param == CL_PROGRAM_BINARIES)) {
        // Binaries hold the secret compiled in: sizes read zero, and the binaries themselves
        // are the client's own business (it writes nothing into its buffers).
        cl_uint n = 0;
        const cl_int err = clGetProgramInfo(static_cast<cl_program>(obj(Kind::Program)), CL_PROGRAM_NUM_DEVICES,
                                            sizeof n, &n, nullptr);
        if (err != CL_SUCCESS) return status(err);
        if (param == CL_PROGRAM_BINARIES) return status(CL_INVALID_VALUE);
        const std::vector<std::size_t> zeros(n, 0);
        Writer w = status(CL_SUCCESS);
        w.bytes(zeros.data(), zeros.size() * sizeof(std::size_t));
        return w;
    }
    // The secret's argument is not there for the client: one argument fewer, and its index invalid.
    if (of == InfoOf::KernelArg) {
        const auto hidden = secret_args_.find(static_cast<cl_kernel>(obj(Kind::Kernel)));
        if (hidden != secret_args_.end() && id2 >= hidden->second) return status(CL_INVALID_ARG_INDEX);
    }
    if (of == InfoOf::Kernel && param == CL_KERNEL_NUM_ARGS) {
        const auto hidden = secret_args_.find(static_cast<cl_kernel>(obj(Kind::Kernel)));
        if (hidden != secret_args_.end()) {
            Writer w = status(CL_SUCCESS);
            w.bytes(&hidden->second, sizeof hidden->second);
            return w;
        }
    }
    if (of == InfoOf::ProgramBuild && param == CL_PROGRAM_BUILD_OPTIONS) {
        obj(Kind::Program);
        const auto it = client_options_.find(id);
        const std::string own = it == client_options_.end() ? std::string() : it->second;
        Writer w = status(CL_SUCCESS);
        w.bytes(own.c_str(), own.size() + 1);
        return w;
    }

    auto query = [&](std::size_t size, void* value, std::size_t* size_ret) -> cl_int {
        switch (of) {
        case InfoOf::Platform:
            return clGetPlatformInfo(static_cast<cl_platform_id>(obj(Kind::Platform)), param, size, value, size_ret);
        case InfoOf::Device:
            return clGetDeviceInfo(static_cast<cl_device_id>(obj(Kind::Device)), param, size, value, size_ret);
        case InfoOf::Context:
            return clGetContextInfo(static_cast<cl_context>(obj(Kind::Context)), param, size, value, size_ret);
        case InfoOf::Queue:
            return clGetCommandQueueInfo(static_cast<cl_command_queue>(obj(Kind::Queue)), param, size, value,
                                         size_ret);
        case InfoOf::Mem:
            return clGetMemObjectInfo(static_cast<cl_mem>(obj(Kind::Mem)), param, size, value, size_ret);
        case InfoOf::Program:
            return clGetProgramInfo(static_cast<cl_program>(obj(Kind::Program)), param, size, value, size_ret);
        case InfoOf::ProgramBuild:
            return clGetProgramBuildInfo(static_cast<cl_program>(obj(Kind::Program)),
                                         static_cast<cl_device_id>(second), param, size, value, size_ret);
        case InfoOf::Kernel:
            return clGetKernelInfo(static_cast<cl_kernel>(obj(Kind::Kernel)), param, size, value, size_ret);
        case InfoOf::KernelWorkGroup:
            return clGetKernelWorkGroupInfo(static_cast<cl_kernel>(obj(Kind::Kernel)),
                                            static_cast<cl_device_id>(second), param, size, value, size_ret);
        case InfoOf::KernelArg:
            return clGetKernelArgInfo(static_cast<cl_kernel>(obj(Kind::Kernel)), static_cast<cl_uint>(id2), param,
                                      size, value, size_ret);
        case InfoOf::Event:
            return clGetEventInfo(static_cast<cl_event>(obj(Kind::Event)), param, size, value, size_ret);
        case InfoOf::EventProfiling:
            return clGetEventProfilingInfo(static_cast<cl_event>(obj(Kind::Event)), param, size, value, size_ret);
        }
        return CL_INVALID_VALUE;
    };
    std::size_t size = 0;
    cl_int err = query(0, nullptr, &size);
    if (err != CL_SUCCESS) return status(err);
    std::vector<std::byte> value(size);
    if (size) err = query(size, value.data(), nullptr);
    if (err != CL_SUCCESS) return status(err);

    const HandleParam hp = handle_param(of, param);
    if (hp.any) {
        auto swap = [&](std::size_t i) {
            void* h = nullptr;
            std::memcpy(&h, value.data() + i * sizeof h, sizeof h);
            const std::uint64_t mapped = id_of(hp.kind, h);
            std::memcpy(value.data() + i * sizeof h, &mapped, sizeof mapped);
        };
        const std::size_t n = size / sizeof(void*);
        if (!hp.properties) {
            for (std::size_t i = 0; i < n; ++i) swap(i);
        } else {
            // In a property list only CL_CONTEXT_PLATFORM's value is a handle.
            for (std::size_t i = 0; i + 1 < n; i += 2) {
                cl_context_properties key = 0;
                std::memcpy(&key, value.data() + i * sizeof key, sizeof key);
                if (key == CL_CONTEXT_PLATFORM) swap(i + 1);
            }
        }
    }
    Writer w = status(CL_SUCCESS);
    if (looks_like_text(value)) {
        const std::string text = scrub(std::string(reinterpret_cast<const char*>(value.data()), size - 1));
        w.bytes(text.c_str(), text.size() + 1);
    } else {
        w.bytes(value.data(), value.size());
    }
    return w;
}

Writer Server::create_context(Reader& in, bool from_type) {
    const auto raw = in.ids();
    if (raw.size() % 2) throw Refused{CL_INVALID_PROPERTY};
    std::vector<cl_context_properties> props;
    for (std::size_t i = 0; i < raw.size(); i += 2) {
        props.push_back(static_cast<cl_context_properties>(raw[i]));
        if (raw[i] == CL_CONTEXT_PLATFORM)
            props.push_back(reinterpret_cast<cl_context_properties>(lookup(Kind::Platform, raw[i + 1])));
        else if (raw[i] == CL_CONTEXT_INTEROP_USER_SYNC)
            props.push_back(static_cast<cl_context_properties>(raw[i + 1]));
        else
            throw Refused{CL_INVALID_PROPERTY};
    }
    if (!props.empty()) props.push_back(0);
    cl_int err = CL_SUCCESS;
    cl_context c = nullptr;
    if (from_type) {
        c = clCreateContextFromType(props.empty() ? nullptr : props.data(), in.get<cl_device_type>(), nullptr, nullptr,
                                    &err);
    } else {
        std::vector<cl_device_id> devices;
        for (const auto id : in.ids()) devices.push_back(static_cast<cl_device_id>(lookup(Kind::Device, id)));
        c = clCreateContext(props.empty() ? nullptr : props.data(), static_cast<cl_uint>(devices.size()),
                            devices.data(), nullptr, nullptr, &err);
    }
    if (err != CL_SUCCESS) return status(err);
    Writer w = status(CL_SUCCESS);
    w.put(add(Kind::Context, c));
    return w;
}

Writer Server::create_queue(Reader& in) {
    const auto context = get<cl_context>(in, Kind::Context);
    const auto device = get<cl_device_id>(in, Kind::Device);
    const auto raw = in.ids();
    if (raw.size() % 2) throw Refused{CL_INVALID_VALUE};
    cl_command_queue_properties flags = 0;
    std::vector<cl_queue_properties> props;
    bool sized = false;
    for (std::size_t i = 0; i < raw.size(); i += 2) {
        if (raw[i] == CL_QUEUE_PROPERTIES) flags = raw[i + 1];
        else if (raw[i] == CL_QUEUE_SIZE) sized = true;
        else throw Refused{CL_INVALID_VALUE};
        props.push_back(raw[i]);
        props.push_back(raw[i + 1]);
    }
    props.push_back(0);
    cl_int err = CL_SUCCESS;
    // The 1.x call where it suffices: a 1.2 platform (Oclgrind) has no clCreateCommandQueueWithProperties.
    cl_command_queue q = sized ? clCreateCommandQueueWithProperties(context, device, props.data(), &err)
                               : clCreateCommandQueue(context, device, flags, &err);
    if (err != CL_SUCCESS) return status(err);
    const auto id = add(Kind::Queue, q);
    if (flags & CL_QUEUE_PROFILING_ENABLE) profiling_queues_.insert(id);
    Writer w = status(CL_SUCCESS);
    w.put(id);
    return w;
}

Writer Server::create_buffer(Reader& in) {
    const auto context = get<cl_context>(in, Kind::Context);
    auto flags = in.get<cl_mem_flags>();
    const auto size = static_cast<std::size_t>(in.get<std::uint64_t>());
    const auto [data, length] = in.bytes();
    // The client's host memory cannot be the buffer's here: USE_HOST_PTR becomes a copy, and the
    // client copies back on map and read.
    if (flags & CL_MEM_USE_HOST_PTR) flags = (flags & ~CL_MEM_USE_HOST_PTR) | CL_MEM_COPY_HOST_PTR;
    const bool copy = flags & CL_MEM_COPY_HOST_PTR;
    if (copy && length != size) throw Refused{CL_INVALID_HOST_PTR};
    if (size > max_buffer_bytes - std::min(buffer_bytes_, max_buffer_bytes)) return status(CL_MEM_OBJECT_ALLOCATION_FAILURE);
    buffer_bytes_ += size;
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(context, flags, size, copy ? const_cast<std::byte*>(data) : nullptr, &err);
    if (err != CL_SUCCESS) return status(err);
    Writer w = status(CL_SUCCESS);
    w.put(add(Kind::Mem, m));
    return w;
}

Writer Server::create_kernels(Reader& in) {
    const auto program = get<cl_program>(in, Kind::Program);
    cl_uint n = 0;
    cl_int err = clCreateKernelsInProgram(program, 0, nullptr, &n);
    if (err != CL_SUCCESS) return status(err);
    std::vector<cl_kernel> kernels(n);
    if (n) err = clCreateKernelsInProgram(program, n, kernels.data(), nullptr);
    if (err != CL_SUCCESS) return status(err);
    for (auto k : kernels)
        if (err == CL_SUCCESS) err = adopt(program, k);
    if (err != CL_SUCCESS) {
        for (auto k : kernels) clReleaseKernel(k);
        return status(err);
    }
    std::vector<std::uint64_t> ids;
    for (auto k : kernels) ids.push_back(add(Kind::Kernel, k));
    Writer w = status(CL_SUCCESS);
    w.ids(ids);
    return w;
}

Writer Server::set_kernel_arg(Reader& in) {
    const auto kernel = get<cl_kernel>(in, Kind::Kernel);
    const auto index = in.get<cl_uint>();
    if (const auto hidden = secret_args_.find(kernel); hidden != secret_args_.end() && index >= hidden->second)
        return status(CL_INVALID_ARG_INDEX);
    switch (in.get<ArgKind>()) {
    case ArgKind::Local:
        kernel_mems_[kernel].erase(index);
        return status(clSetKernelArg(kernel, index, static_cast<std::size_t>(in.get<std::uint64_t>()), nullptr));
    case ArgKind::Mem: {
        const auto m = get<cl_mem>(in, Kind::Mem, true);
        const cl_int err = clSetKernelArg(kernel, index, sizeof m, &m);
        if (err == CL_SUCCESS && m) kernel_mems_[kernel][index] = m;
        else kernel_mems_[kernel].erase(index);
        return status(err);
    }
    case ArgKind::Bytes: {
        kernel_mems_[kernel].erase(index);
        const auto [data, size] = in.bytes();
        if (size == sizeof(void*) && handle_typed_arg(kernel, index)) return status(CL_INVALID_ARG_VALUE);
        const cl_int err = clSetKernelArg(kernel, index, size, data);
        if (const auto b = bound_args_.find(kernel); err == CL_SUCCESS && b != bound_args_.end() && b->second.index == index) {
            std::uint32_t raw = 0;
            std::memcpy(&raw, data, std::min<std::size_t>(size, sizeof raw));
            b->second.value = b->second.is_signed ? std::int64_t{static_cast<std::int32_t>(raw)} : std::int64_t{raw};
        }
        return status(err);
    }
    }
    return status(CL_INVALID_ARG_VALUE);
}

Writer Server::event_reply(cl_event event, bool wanted) {
    Writer w = status(CL_SUCCESS);
    w.put(hand_out(event, wanted));
    return w;
}

Writer Server::enqueue_ndrange(Reader& in) {
    const auto queue_id = in.get<std::uint64_t>();
    const auto queue = static_cast<cl_command_queue>(lookup(Kind::Queue, queue_id));
    const auto kernel = get<cl_kernel>(in, Kind::Kernel);
    const auto dims = in.get<cl_uint>();
    if (dims < 1 || dims > 3) throw Refused{CL_INVALID_WORK_DIMENSION};
    KernelRun run;
    run.dims = dims;
    if (in.get<std::uint8_t>()) run.offset = sizes(in, dims);
    run.global = sizes(in, dims);
    if (in.get<std::uint8_t>()) run.local = sizes(in, dims);
    auto waits = wait_list(in);
    const bool want = in.get<std::uint8_t>();
    // A launch of the checker's kernel on buffers smaller than it indexes would read past them.
    if (const cl_int bound = within_bound(kernel); bound != CL_SUCCESS) return status(bound);
    run.inputs = stage_inputs(queue, kernel, waits);
    cl_event event = nullptr;
    const cl_int err = clEnqueueNDRangeKernel(queue, kernel, dims, run.offset.empty() ? nullptr : run.offset.data(),
                                              run.global.data(), run.local.empty() ? nullptr : run.local.data(),
                                              static_cast<cl_uint>(waits.size()), waits.empty() ? nullptr : waits.data(),
                                              &event);
    if (err != CL_SUCCESS) {
        for (auto& staged : run.inputs) stale_.push_back(std::move(staged));  // moved: the reads' memory stays put
        return status(err);
    }
    char name[256] = {};
    clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof name - 1, name, nullptr);
    run.name = name;
    run.profiling = profiling_queues_.count(queue_id) > 0;
    clRetainEvent(event);
    run.event = event;
    runs_.push_back(std::move(run));
    return event_reply(event, want);
}

Writer Server::enqueue_read(Reader& in) {
    const auto queue = get<cl_command_queue>(in, Kind::Queue);
    const auto mem = get<cl_mem>(in, Kind::Mem);
    const auto offset = static_cast<std::size_t>(in.get<std::uint64_t>());
    const auto size = static_cast<std::size_t>(in.get<std::uint64_t>());
    const auto waits = wait_list(in);
    std::vector<std::byte> staging(size);
    cl_event event = nullptr;
    const cl_int err = clEnqueueReadBuffer(queue, mem, CL_FALSE, offset, size, staging.data(),
                                           static_cast<cl_uint>(waits.size()), waits.empty() ? nullptr : waits.data(),
                                           &event);
    if (err != CL_SUCCESS) return status(err);
    clFlush(queue);
    clRetainEvent(event);
    const auto token = next_token_++;
    reads_[token] = {event, std::move(staging)};
    Writer w = status(CL_SUCCESS);
    w.put(token);
    w.put(hand_out(event, true));
    return w;
}

Writer Server::take_read(Reader& in) {
    const auto it = reads_.find(in.get<std::uint64_t>());
    if (it == reads_.end()) return status(CL_INVALID_VALUE);
    const cl_int s = event_status(it->second.first);
    if (s > CL_COMPLETE) return status(CL_INVALID_OPERATION);  // the client takes only after its wait
    Writer w = status(s < 0 ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS);
    if (s == CL_COMPLETE) w.bytes(it->second.second.data(), it->second.second.size());
    clReleaseEvent(it->second.first);
    reads_.erase(it);
    return w;
}

Writer Server::enqueue_write(Reader& in) {
    const auto queue = get<cl_command_queue>(in, Kind::Queue);
    const auto mem = get<cl_mem>(in, Kind::Mem);
    const auto offset = static_cast<std::size_t>(in.get<std::uint64_t>());
    const auto [data, size] = in.bytes();
    const auto waits = wait_list(in);
    const bool want = in.get<std::uint8_t>();
    std::vector<std::byte> staging(data, data + size);
    cl_event event = nullptr;
    const cl_int err = clEnqueueWriteBuffer(queue, mem, CL_FALSE, offset, size, staging.data(),
                                            static_cast<cl_uint>(waits.size()), waits.empty() ? nullptr : waits.data(),
                                            &event);
    if (err != CL_SUCCESS) return status(err);
    clFlush(queue);
    clRetainEvent(event);
    writes_.emplace_back(event, std::move(staging));
    return event_reply(event, want);
}

Writer Server::enqueue_copy(Reader& in) {
    const auto queue = get<cl_command_queue>(in, Kind::Queue);
    const auto src = get<cl_mem>(in, Kind::Mem);
    const auto dst = get<cl_mem>(in, Kind::Mem);
    const auto src_offset = static_cast<std::size_t>(in.get<std::uint64_t>());
    const auto dst_offset = static_cast<std::size_t>(in.get<std::uint64_t>());
    const auto size = static_cast<std::size_t>(in.get<std::uint64_t>());
    const auto waits = wait_list(in);
    const bool want = in.get<std::uint8_t>();
    cl_event event = nullptr;
    const cl_int err = clEnqueueCopyBuffer(queue, src, dst, src_offset, dst_offset, size,
                                           static_cast<cl_uint>(waits.size()), waits.empty() ? nullptr : waits.data(),
                                           &event);
    if (err != CL_SUCCESS) return status(err);
    return event_reply(event, want);
}

Writer Server::enqueue_fill(Reader& in) {
    const auto queue = get<cl_command_queue>(in, Kind::Queue);
    const auto mem = get<cl_mem>(in, Kind::Mem);
    const auto [pattern, pattern_size] = in.bytes();
    const auto offset = static_cast<std::size_t>(in.get<std::uint64_t>());
    const auto size = static_cast<std::size_t>(in.get<std::uint64_t>());
    const auto waits = wait_list(in);
    const bool want = in.get<std::uint8_t>();
    cl_event event = nullptr;
    // The runtime copies the pattern before returning.
    const cl_int err = clEnqueueFillBuffer(queue, mem, pattern, pattern_size, offset, size,
                                           static_cast<cl_uint>(waits.size()), waits.empty() ? nullptr : waits.data(),
                                           &event);
    if (err != CL_SUCCESS) return status(err);
    return event_reply(event, want);
}

Writer Server::enqueue_sync(Reader& in, bool barrier) {
    const auto queue = get<cl_command_queue>(in, Kind::Queue);
    const auto waits = wait_list(in);
    const bool want = in.get<std::uint8_t>();
    cl_event event = nullptr;
    const auto n = static_cast<cl_uint>(waits.size());
    const cl_event* list = waits.empty() ? nullptr : waits.data();
    const cl_int err = barrier ? clEnqueueBarrierWithWaitList(queue, n, list, &event)
                               : clEnqueueMarkerWithWaitList(queue, n, list, &event);
    if (err != CL_SUCCESS) return status(err);
    clFlush(queue);
    return event_reply(event, want);
}

Writer Server::wait(Reader& in) {
    std::vector<cl_event> events;
    for (const auto id : in.ids()) events.push_back(static_cast<cl_event>(lookup(Kind::Event, id)));
    const auto budget = std::chrono::microseconds(std::min<std::uint32_t>(in.get<std::uint32_t>(), 5000));
    for (auto e : events) {
        cl_command_queue q = nullptr;
        if (clGetEventInfo(e, CL_EVENT_COMMAND_QUEUE, sizeof q, &q, nullptr) == CL_SUCCESS && q) clFlush(q);
    }
    const auto start = std::chrono::steady_clock::now();
    cl_int state = 0;
    for (;;) {
        bool all = true;
        for (auto e : events) {
            const cl_int s = event_status(e);
            if (s < 0) state = -1;
            if (s != CL_COMPLETE) all = false;
        }
        if (state < 0) break;
        if (all) {
            state = 1;
            break;
        }
        if (std::chrono::steady_clock::now() - start >= budget) break;
        std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    Writer w = status(CL_SUCCESS);
    w.put(state);
    return w;
}

Writer Server::release(Reader& in) {
    const auto kind = in.get<Kind>();
    const auto id = in.get<std::uint64_t>();
    if (kind == Kind::Platform || kind == Kind::Device) return status(CL_SUCCESS);
    void* h = lookup(kind, id);
    cl_int err = CL_SUCCESS;
    switch (kind) {
    case Kind::Context: err = clReleaseContext(static_cast<cl_context>(h)); break;
    case Kind::Queue: err = clReleaseCommandQueue(static_cast<cl_command_queue>(h)); break;
    case Kind::Mem: err = clReleaseMemObject(static_cast<cl_mem>(h)); break;
    case Kind::Program: err = clReleaseProgram(static_cast<cl_program>(h)); break;
    case Kind::Kernel: err = clReleaseKernel(static_cast<cl_kernel>(h)); break;
    case Kind::Event: err = clReleaseEvent(static_cast<cl_event>(h)); break;
    default: break;
    }
    // A kernel's record of its buffer arguments names no released object.
    if (kind == Kind::Kernel) kernel_mems_.erase(static_cast<cl_kernel>(h));
    if (kind == Kind::Kernel) secret_args_.erase(static_cast<cl_kernel>(h));
    if (kind == Kind::Kernel) bound_args_.erase(static_cast<cl_kernel>(h));
    if (kind == Kind::Program) checkers_programs_.erase(static_cast<cl_program>(h));
    if (kind == Kind::Mem)
        for (auto& [k, args] : kernel_mems_) std::erase_if(args, [&](const auto& a) { return a.second == h; });
    objects_.erase(id);
    ids_.erase(h);
    client_options_.erase(id);
    profiling_queues_.erase(id);
    return status(err);
}

}  // namespace workbook::broker
