// The forwarding ICD's shared parts (icd_core.cpp, icd_ops.cpp): the client objects the loader
// dispatches through, the connection to workbook-broker, and the helpers every entry point uses.
#pragma once

#include "wire.hpp"

#include <CL/cl_icd.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

// Every object starts with its dispatch table, as the ICD loader requires; the rest is ours.
struct WorkbookHandle {
    const cl_icd_dispatch* dispatch;
    workbook::broker::Kind kind;
    std::uint64_t id;  // the broker's id
    std::atomic<cl_uint> refs{1};
};
struct _cl_platform_id : WorkbookHandle {};
struct _cl_device_id : WorkbookHandle {};
struct _cl_context : WorkbookHandle {};
struct _cl_command_queue : WorkbookHandle {};
struct _cl_program : WorkbookHandle {};
struct _cl_kernel : WorkbookHandle {};
struct _cl_mem : WorkbookHandle {
    cl_mem_flags flags = 0;
    std::size_t size = 0;
    void* host_ptr = nullptr;  // USE_HOST_PTR's memory, kept in step on map and read
    struct Mapping {
        std::size_t offset, size;
        cl_map_flags flags;
        std::unique_ptr<std::byte[]> shadow;  // null when the mapping is host_ptr itself
    };
    std::multimap<void*, Mapping> maps;
};
struct _cl_event : WorkbookHandle {
    cl_command_type type = 0;  // 0: ask the broker; else the command this one emulates
    struct Callback {
        cl_int trigger;
        void(CL_CALLBACK* fn)(cl_event, cl_int, void*);
        void* data;
    };
    std::vector<Callback> callbacks;
};

namespace workbook::broker::icd {

const cl_icd_dispatch* table();

// The one connection to the broker, from WORKBOOK_BROKER_FD; null without it.
class Link {
public:
    static Link* get();
    // One request, one reply, under the connection's lock; throws WireError.
    Reader call(const Writer& request);

    // The client object for a broker id: platforms and devices are made when first seen.
    WorkbookHandle* find(Kind kind, std::uint64_t id);
    template <typename T>
    T* make(Kind kind, std::uint64_t id) {
        auto* object = new T{};
        object->dispatch = table();
        object->kind = kind;
        object->id = id;
        remember(object);
        return object;
    }
    void remember(WorkbookHandle* object);
    void forget(WorkbookHandle* object);
    bool is_live_mem(const void* p);

private:
    explicit Link(int fd) : fd_(fd) {}
    int fd_;
    std::mutex socket_;
    std::mutex registry_;
    std::map<std::pair<Kind, std::uint64_t>, WorkbookHandle*> objects_;
};

Link& link();  // throws WireError when there is no broker
Writer request(Op op);
// Reads a reply's status; the rest of the reply follows in the Reader.
cl_int status_of(Reader& reply);

// Entry-point guards: a lost broker becomes CL_OUT_OF_RESOURCES, named once on stderr.
void report_lost(const char* what);
template <typename F>
cl_int guarded(F&& f) {
    try {
        return f();
    } catch (const WireError& e) {
        report_lost(e.what());
        return CL_OUT_OF_RESOURCES;
    } catch (const std::bad_alloc&) {
        return CL_OUT_OF_HOST_MEMORY;
    }
}
template <typename T, typename F>
T creating(cl_int* errcode_ret, F&& f) {
    T out = nullptr;
    const cl_int err = guarded([&] { return f(out); });
    if (errcode_ret) *errcode_ret = err;
    return err == CL_SUCCESS ? out : nullptr;
}

cl_int retain(WorkbookHandle* object);
cl_int release(WorkbookHandle* object);

// A clGet*Info through the broker, its handles turned back into client objects.
cl_int info(InfoOf of, WorkbookHandle* object, std::uint64_t second, cl_uint param, std::size_t size, void* value,
            std::size_t* size_ret);
// Copies a locally known answer out the way every clGet*Info does.
cl_int answer(const void* data, std::size_t n, std::size_t size, void* value, std::size_t* size_ret);

// The wait list's ids, or CL_INVALID_EVENT_WAIT_LIST.
cl_int put_wait_list(Writer& w, cl_uint n, const cl_event* list);
// A command's event: to the caller if it asked, else released.
void give_event(std::uint64_t id, cl_event* out, cl_command_type type = 0);
// Polls the broker until the events complete (the lock is free between polls).
cl_int wait_ids(const std::vector<std::uint64_t>& ids);
// Completes non-blocking reads and event callbacks whose events have finished.
void settle();
void observe(cl_event event, cl_int status);

void note_unsupported(const char* name);
void install_supported(cl_icd_dispatch& d);  // icd_ops.cpp's entry points

}  // namespace workbook::broker::icd
