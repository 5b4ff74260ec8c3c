// The forwarding ICD's core: the connection to workbook-broker, client objects and their
// reference counts, info queries, platforms, devices, contexts and queues, the dispatch table
// (every call the broker does not forward answers CL_INVALID_OPERATION) and the loader's entry points.
#include "icd.hpp"
#include "dispatch_slots.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <set>
#include <string>
#include <tuple>
#include <fcntl.h>
#include <sys/socket.h>

namespace workbook::broker::icd {

namespace {

constexpr char icd_suffix[] = "WBB";

cl_uint refcount_param(InfoOf of) {
    switch (of) {
    case InfoOf::Context: return CL_CONTEXT_REFERENCE_COUNT;
    case InfoOf::Queue: return CL_QUEUE_REFERENCE_COUNT;
    case InfoOf::Mem: return CL_MEM_REFERENCE_COUNT;
    case InfoOf::Program: return CL_PROGRAM_REFERENCE_COUNT;
    case InfoOf::Kernel: return CL_KERNEL_REFERENCE_COUNT;
    case InfoOf::Event: return CL_EVENT_REFERENCE_COUNT;
    default: return 0;
    }
}

// The broker's ids of a property list (key, value pairs; 0 ends it), CL_CONTEXT_PLATFORM's value
// an id.
std::vector<std::uint64_t> context_properties(const cl_context_properties* props) {
    std::vector<std::uint64_t> out;
    for (; props && props[0]; props += 2) {
        out.push_back(static_cast<std::uint64_t>(props[0]));
        out.push_back(props[0] == CL_CONTEXT_PLATFORM ? reinterpret_cast<cl_platform_id>(props[1])->id
                                                      : static_cast<std::uint64_t>(props[1]));
    }
    return out;
}

}  // namespace

void report_lost(const char* what) {
    static std::once_flag once;
    std::call_once(once, [&] { std::cerr << "workbook broker ICD: " << what << "\n"; });
}

void note_unsupported(const char* name) {
    static std::mutex m;
    static std::set<std::string> seen;
    {
        std::lock_guard lock(m);
        if (!seen.insert(name).second) return;
    }
    std::cerr << "workbook broker ICD: " << name
              << " is not supported by the broker (graded runs forward only the OpenCL calls the course uses); "
                 "it returns CL_INVALID_OPERATION\n";
    try {
        if (Link* l = Link::get()) {
            Writer w = request(Op::Unsupported);
            w.text(name);
            l->call(w);
        }
    } catch (const WireError&) {
    }
}

Link* Link::get() {
    static Link* const instance = []() -> Link* {
        const char* text = std::getenv("WORKBOOK_BROKER_FD");
        if (!text || !*text) return nullptr;
        char* end = nullptr;
        const long fd = std::strtol(text, &end, 10);
        int type = 0;
        socklen_t len = sizeof type;
        if (*end || fd < 0 || ::getsockopt(static_cast<int>(fd), SOL_SOCKET, SO_TYPE, &type, &len) != 0 ||
            type != SOCK_STREAM) {
            std::cerr << "workbook broker ICD: WORKBOOK_BROKER_FD=" << text << " is not a connected stream socket\n";
            return nullptr;
        }
        // The connection is this process's: programs it starts do not inherit it.
        ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
        return new Link(static_cast<int>(fd));
    }();
    return instance;
}

Reader Link::call(const Writer& message) {
    std::lock_guard lock(socket_);
    send_frame(fd_, message);
    std::vector<std::byte> reply;
    if (!receive_frame(fd_, reply)) throw WireError("the broker closed the connection");
    return Reader(std::move(reply));
}

WorkbookHandle* Link::find(Kind kind, std::uint64_t id) {
    if (id == 0) return nullptr;
    {
        std::lock_guard lock(registry_);
        if (const auto it = objects_.find({kind, id}); it != objects_.end()) return it->second;
    }
    if (kind == Kind::Platform) return make<_cl_platform_id>(kind, id);
    if (kind == Kind::Device) return make<_cl_device_id>(kind, id);
    return nullptr;
}

void Link::remember(WorkbookHandle* object) {
    std::lock_guard lock(registry_);
    objects_[{object->kind, object->id}] = object;
}

void Link::forget(WorkbookHandle* object) {
    std::lock_guard lock(registry_);
    objects_.erase({object->kind, object->id});
}

bool Link::is_live_mem(const void* p) {
    std::lock_guard lock(registry_);
    const auto* m = static_cast<const _cl_mem*>(p);
    return std::any_of(objects_.begin(), objects_.end(), [m](const auto& entry) { return entry.second == m; });
}

Link& link() {
    Link* l = Link::get();
    if (!l) throw WireError("no broker connection (WORKBOOK_BROKER_FD)");
    return *l;
}

Writer request(Op op) {
    Writer w;
    w.put(op);
    return w;
}

cl_int status_of(Reader& reply) { return reply.get<cl_int>(); }

cl_int retain(WorkbookHandle* object) {
    if (!object) return CL_INVALID_VALUE;
    if (object->kind != Kind::Platform && object->kind != Kind::Device) ++object->refs;
    return CL_SUCCESS;
}

cl_int release(WorkbookHandle* object) {
    if (!object) return CL_INVALID_VALUE;
    if (object->kind == Kind::Platform || object->kind == Kind::Device) return CL_SUCCESS;
    if (--object->refs > 0) return CL_SUCCESS;
    link().forget(object);
    cl_int err = CL_SUCCESS;
    try {
        Writer w = request(Op::Release);
        w.put(object->kind).put(object->id);
        Reader r = link().call(w);
        err = status_of(r);
    } catch (const WireError& e) {
        report_lost(e.what());
    }
    switch (object->kind) {
    case Kind::Context: delete static_cast<_cl_context*>(object); break;
    case Kind::Queue: delete static_cast<_cl_command_queue*>(object); break;
    case Kind::Mem: delete static_cast<_cl_mem*>(object); break;
    case Kind::Program: delete static_cast<_cl_program*>(object); break;
    case Kind::Kernel: delete static_cast<_cl_kernel*>(object); break;
    case Kind::Event: delete static_cast<_cl_event*>(object); break;
    default: break;
    }
    return err;
}

cl_int answer(const void* data, std::size_t n, std::size_t size, void* value, std::size_t* size_ret) {
    if (value && size < n) return CL_INVALID_VALUE;
    if (value && n) std::memcpy(value, data, n);
    if (size_ret) *size_ret = n;
    return CL_SUCCESS;
}

cl_int info(InfoOf of, WorkbookHandle* object, std::uint64_t second, cl_uint param, std::size_t size, void* value,
            std::size_t* size_ret) {
    if (!object) return CL_INVALID_VALUE;
    if (param && param == refcount_param(of)) {
        const cl_uint refs = object->refs;
        return answer(&refs, sizeof refs, size, value, size_ret);
    }
    if (of == InfoOf::Platform && param == CL_PLATFORM_ICD_SUFFIX_KHR)
        return answer(icd_suffix, sizeof icd_suffix, size, value, size_ret);
    return guarded([&] {
        Writer w = request(Op::Info);
        w.put(of).put(object->id).put(second).put(param);
        Reader r = link().call(w);
        if (const cl_int err = status_of(r); err != CL_SUCCESS) return err;
        const auto [data, n] = r.bytes();
        std::vector<std::byte> out(data, data + n);
        const HandleParam hp = handle_param(of, param);
        if (hp.any) {
            auto swap = [&](std::size_t i) {
                std::uint64_t id = 0;
                std::memcpy(&id, out.data() + i * sizeof id, sizeof id);
                WorkbookHandle* h = link().find(hp.kind, id);
                std::memcpy(out.data() + i * sizeof h, &h, sizeof h);
            };
            const std::size_t count = n / sizeof(std::uint64_t);
            for (std::size_t i = 0; i < count; i += hp.properties ? 2 : 1) {
                if (!hp.properties) swap(i);
                else if (i + 1 < count && *reinterpret_cast<const cl_context_properties*>(out.data() + i * 8) ==
                                              CL_CONTEXT_PLATFORM)
                    swap(i + 1);
            }
        }
        return answer(out.data(), out.size(), size, value, size_ret);
    });
}

namespace {

cl_int get_platform_ids(cl_uint num_entries, cl_platform_id* platforms, cl_uint* num_platforms) {
    if ((num_entries == 0 && platforms) || (!platforms && !num_platforms)) return CL_INVALID_VALUE;
    Link* l = Link::get();
    if (!l) {
        // Without a broker this driver offers nothing, so the loader reports no platform.
        if (num_platforms) *num_platforms = 0;
        return CL_SUCCESS;
    }
    return guarded([&] {
        Reader r = l->call(request(Op::GetPlatformIDs));
        if (const cl_int err = status_of(r); err != CL_SUCCESS) return err;
        const auto ids = r.ids();
        for (cl_uint i = 0; platforms && i < num_entries && i < ids.size(); ++i)
            platforms[i] = static_cast<cl_platform_id>(l->find(Kind::Platform, ids[i]));
        if (num_platforms) *num_platforms = static_cast<cl_uint>(ids.size());
        return CL_SUCCESS;
    });
}

cl_int get_platform_info(cl_platform_id p, cl_platform_info param, std::size_t size, void* value, std::size_t* ret) {
    return info(InfoOf::Platform, p, 0, param, size, value, ret);
}

cl_int get_device_ids(cl_platform_id platform, cl_device_type type, cl_uint num_entries, cl_device_id* devices,
                      cl_uint* num_devices) {
    if ((num_entries == 0 && devices) || (!devices && !num_devices)) return CL_INVALID_VALUE;
    return guarded([&] {
        Writer w = request(Op::GetDeviceIDs);
        w.put<std::uint64_t>(platform ? platform->id : 0).put(type);
        Reader r = link().call(w);
        if (const cl_int err = status_of(r); err != CL_SUCCESS) return err;
        const auto ids = r.ids();
        for (cl_uint i = 0; devices && i < num_entries && i < ids.size(); ++i)
            devices[i] = static_cast<cl_device_id>(link().find(Kind::Device, ids[i]));
        if (num_devices) *num_devices = static_cast<cl_uint>(ids.size());
        return CL_SUCCESS;
    });
}

cl_int get_device_info(cl_device_id d, cl_device_info param, std::size_t size, void* value, std::size_t* ret) {
    return info(InfoOf::Device, d, 0, param, size, value, ret);
}

cl_context create_context(const cl_context_properties* props, cl_uint n, const cl_device_id* devices,
                          void(CL_CALLBACK*)(const char*, const void*, std::size_t, void*), void*, cl_int* err) {
    return creating<cl_context>(err, [&](cl_context& out) {
        if (n == 0 || !devices) return CL_INVALID_VALUE;
        std::vector<std::uint64_t> ids;
        for (cl_uint i = 0; i < n; ++i) {
            if (!devices[i]) return CL_INVALID_DEVICE;
            ids.push_back(devices[i]->id);
        }
        Writer w = request(Op::CreateContext);
        w.ids(context_properties(props)).ids(ids);
        Reader r = link().call(w);
        if (const cl_int e = status_of(r); e != CL_SUCCESS) return e;
        out = link().make<_cl_context>(Kind::Context, r.get<std::uint64_t>());
        return CL_SUCCESS;
    });
}

cl_context create_context_from_type(const cl_context_properties* props, cl_device_type type,
                                    void(CL_CALLBACK*)(const char*, const void*, std::size_t, void*), void*,
                                    cl_int* err) {
    return creating<cl_context>(err, [&](cl_context& out) {
        Writer w = request(Op::CreateContextFromType);
        w.ids(context_properties(props)).put(type);
        Reader r = link().call(w);
        if (const cl_int e = status_of(r); e != CL_SUCCESS) return e;
        out = link().make<_cl_context>(Kind::Context, r.get<std::uint64_t>());
        return CL_SUCCESS;
    });
}

cl_int get_context_info(cl_context c, cl_context_info param, std::size_t size, void* value, std::size_t* ret) {
    return info(InfoOf::Context, c, 0, param, size, value, ret);
}

cl_command_queue create_queue(cl_context context, cl_device_id device, std::vector<std::uint64_t> props,
                              cl_int* err) {
    return creating<cl_command_queue>(err, [&](cl_command_queue& out) {
        if (!context) return CL_INVALID_CONTEXT;
        if (!device) return CL_INVALID_DEVICE;
        Writer w = request(Op::CreateQueue);
        w.put(context->id).put(device->id).ids(props);
        Reader r = link().call(w);
        if (const cl_int e = status_of(r); e != CL_SUCCESS) return e;
        out = link().make<_cl_command_queue>(Kind::Queue, r.get<std::uint64_t>());
        return CL_SUCCESS;
    });
}

cl_command_queue create_command_queue(cl_context context, cl_device_id device, cl_command_queue_properties props,
                                      cl_int* err) {
    return create_queue(context, device, {CL_QUEUE_PROPERTIES, props}, err);
}

cl_command_queue create_command_queue_with_properties(cl_context context, cl_device_id device,
                                                      const cl_queue_properties* props, cl_int* err) {
    std::vector<std::uint64_t> list;
    for (; props && props[0]; props += 2) {
        list.push_back(props[0]);
        list.push_back(props[1]);
    }
    return create_queue(context, device, list, err);
}

cl_int get_queue_info(cl_command_queue q, cl_command_queue_info param, std::size_t size, void* value,
                      std::size_t* ret) {
    return info(InfoOf::Queue, q, 0, param, size, value, ret);
}

// The loader's own lookups for extensions: the broker forwards none.
void* get_extension_function_address(const char* name) {
    if (name && std::string(name) == "clIcdGetPlatformIDsKHR") return reinterpret_cast<void*>(&get_platform_ids);
    return nullptr;
}

// Fills a slot the broker does not forward: the call names itself and fails cleanly.
template <std::size_t N>
struct SlotName {
    char text[N];
    constexpr SlotName(const char (&s)[N]) { std::copy_n(s, N, text); }
};

template <SlotName name, typename Slot>
struct Unsupported {
    static constexpr Slot fn = nullptr;  // a slot typed void* (an API of another system)
};

template <SlotName name, typename R, typename... A>
struct Unsupported<name, R (*)(A...)> {
    static R call(A... args) {
        note_unsupported(name.text);
        if constexpr (sizeof...(A) > 0) {
            // Creators report through their last parameter, errcode_ret.
            using Last = std::tuple_element_t<sizeof...(A) - 1, std::tuple<A...>>;
            if constexpr (std::is_same_v<Last, cl_int*>)
                if (auto* e = std::get<sizeof...(A) - 1>(std::forward_as_tuple(args...))) *e = CL_INVALID_OPERATION;
        }
        if constexpr (std::is_same_v<R, cl_int>) return CL_INVALID_OPERATION;
        else if constexpr (!std::is_void_v<R>) return R{};
    }
    static constexpr R (*fn)(A...) = &call;
};

cl_icd_dispatch make_table() {
    cl_icd_dispatch d{};
#define WORKBOOK_BROKER_UNSUPPORTED(slot) d.slot = Unsupported<#slot, decltype(d.slot)>::fn;
    WORKBOOK_BROKER_DISPATCH_SLOTS(WORKBOOK_BROKER_UNSUPPORTED)
#undef WORKBOOK_BROKER_UNSUPPORTED
    d.clGetPlatformIDs = get_platform_ids;
    d.clGetPlatformInfo = get_platform_info;
    d.clGetDeviceIDs = get_device_ids;
    d.clGetDeviceInfo = get_device_info;
    d.clRetainDevice = [](cl_device_id d) { return retain(d); };
    d.clReleaseDevice = [](cl_device_id d) { return release(d); };
    d.clCreateContext = create_context;
    d.clCreateContextFromType = create_context_from_type;
    d.clRetainContext = [](cl_context c) { return c ? retain(c) : CL_INVALID_CONTEXT; };
    d.clReleaseContext = [](cl_context c) { return c ? release(c) : CL_INVALID_CONTEXT; };
    d.clGetContextInfo = get_context_info;
    d.clCreateCommandQueue = create_command_queue;
    d.clCreateCommandQueueWithProperties = create_command_queue_with_properties;
    d.clRetainCommandQueue = [](cl_command_queue q) { return q ? retain(q) : CL_INVALID_COMMAND_QUEUE; };
    d.clReleaseCommandQueue = [](cl_command_queue q) { return q ? release(q) : CL_INVALID_COMMAND_QUEUE; };
    d.clGetCommandQueueInfo = get_queue_info;
    d.clGetExtensionFunctionAddress = get_extension_function_address;
    install_supported(d);
    return d;
}

}  // namespace

const cl_icd_dispatch* table() {
    static const cl_icd_dispatch d = make_table();
    return &d;
}

}  // namespace workbook::broker::icd

// What the loader looks up by name; everything else it reaches through the dispatch table.
extern "C" {

__attribute__((visibility("default"))) cl_int clIcdGetPlatformIDsKHR(cl_uint num_entries, cl_platform_id* platforms,
                                                                     cl_uint* num_platforms) {
    return workbook::broker::icd::table()->clGetPlatformIDs(num_entries, platforms, num_platforms);
}

__attribute__((visibility("default"))) void* clGetExtensionFunctionAddress(const char* name) {
    return workbook::broker::icd::table()->clGetExtensionFunctionAddress(name);
}

__attribute__((visibility("default"))) cl_int clGetPlatformInfo(cl_platform_id platform, cl_platform_info param,
                                                                std::size_t size, void* value, std::size_t* ret) {
    return workbook::broker::icd::table()->clGetPlatformInfo(platform, param, size, value, ret);
}

}
