// The broker's wire protocol, shared by the forwarding ICD (client) and workbook-broker (server):
// length-prefixed frames over a Unix stream socket, each a request (an Op and its arguments) or
// its reply (a cl_int status first). Objects travel as server-assigned 64-bit ids, never pointers.
#pragma once

#include <CL/cl.h>
#include <CL/cl_ext.h>  // CL_PLATFORM_ICD_SUFFIX_KHR, CL_PLATFORM_NOT_FOUND_KHR

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace workbook::broker {

// A malformed or truncated frame, or a broken connection.
struct WireError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class Op : std::uint32_t {
    GetPlatformIDs = 1,
    GetDeviceIDs,
    Info,  // every clGet*Info, selected by an InfoOf
    CreateContext,
    CreateContextFromType,
    CreateQueue,
    CreateBuffer,
    CreateProgramWithSource,
    BuildProgram,
    CreateKernel,
    CreateKernelsInProgram,
    SetKernelArg,
    EnqueueNDRange,
    EnqueueRead,    // non-blocking on the server; the data is taken later with TakeRead
    TakeRead,
    EnqueueWrite,   // the server keeps its copy of the data until the command completes
    EnqueueCopy,
    EnqueueFill,
    EnqueueMarker,  // also clFinish's marker
    EnqueueBarrier,
    Flush,
    Wait,           // polls events for a short while: the server never blocks on the device
    CreateUserEvent,
    SetUserEventStatus,
    Release,
    Unsupported,    // the client names a call it refused, for the report
};

enum class Kind : std::uint8_t { Platform, Device, Context, Queue, Mem, Program, Kernel, Event };

enum class InfoOf : std::uint8_t {
    Platform, Device, Context, Queue, Mem, Program, ProgramBuild, Kernel, KernelWorkGroup, KernelArg,
    Event, EventProfiling,
};

enum class ArgKind : std::uint8_t { Local, Mem, Bytes };

// Which info results hold object handles, to be swapped for ids on the way out and back.
struct HandleParam {
    bool any = false;
    Kind kind = Kind::Platform;
    bool properties = false;  // a zero-ended property list whose CL_CONTEXT_PLATFORM value is one
};
HandleParam handle_param(InfoOf of, cl_uint param);

// The error a bad id of this kind earns (CL_INVALID_CONTEXT for a context, ...).
cl_int invalid_code(Kind kind);

class Writer {
public:
    template <typename T>
    Writer& put(T value) {
        static_assert(std::is_trivially_copyable_v<T>);
        return raw(&value, sizeof value);
    }
    Writer& raw(const void* data, std::size_t size);
    Writer& bytes(const void* data, std::size_t size);  // length first
    Writer& text(std::string_view s) { return bytes(s.data(), s.size()); }
    Writer& ids(const std::vector<std::uint64_t>& ids);
    const std::vector<std::byte>& data() const { return buffer_; }

private:
    std::vector<std::byte> buffer_;
};

class Reader {
public:
    explicit Reader(std::vector<std::byte> data) : buffer_(std::move(data)) {}
    template <typename T>
    T get() {
        static_assert(std::is_trivially_copyable_v<T>);
        T value;
        std::memcpy(&value, take(sizeof value), sizeof value);
        return value;
    }
    // A length-prefixed run of bytes; the pointer lives as long as the Reader.
    std::pair<const std::byte*, std::size_t> bytes();
    std::string text();
    std::vector<std::uint64_t> ids();

private:
    const std::byte* take(std::size_t size);
    std::vector<std::byte> buffer_;
    std::size_t at_ = 0;
};

// One frame each way; receive returns false at a clean end of stream.
void send_frame(int fd, const Writer& message);
bool receive_frame(int fd, std::vector<std::byte>& out);

}  // namespace workbook::broker
